// Draw arguments: turns every face stream into indexed indirect draw commands.
//
// Reads:  faces (counts and page lists), params.
// Writes: args (opaque commands in [0, capacity), transparent in [capacity, 2 capacity)),
//         counts (commands per list, quads per list, then skirt quads).
// Dispatch: one invocation per (slot, face, kind), 64 per workgroup. The CPU zeroes counts, and
//           on adapters without indirect count also the args, before.
//
// A command covers one run of consecutive pages within a stream: base_vertex = 4 × first quad,
// index_count = 6 × quads, over the static (0,1,2, 0,2,3) + 4q index pattern. Commands beyond
// the capacity are dropped (never written out of bounds); the capacity is sized from the pool.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>, 5>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;

fn push(kind: u32, first_quad: u32, quads: u32) {
    atomicAdd(&counts[2u + kind], quads);
    let index = atomicAdd(&counts[kind], 1u);
    if index < params.draw_capacity {
        args[kind * params.draw_capacity + index] = DrawArgs(quads * 6u, 1u, 0u, i32(first_quad * 4u), 0u);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let face_index = id.x / 2u;
    let kind = id.x % 2u;
    if face_index >= params.slot_count * 6u {
        return;
    }
    let opaque = faces[face_index].opaque;
    if kind == 0u {
        // Skirts of both kinds, counted once per face.
        atomicAdd(&counts[4], faces[face_index].skirts);
    }
    var i = select(opaque, 0u, kind == 0u);
    let end = i + select(faces[face_index].transparent, opaque, kind == 0u);
    // A face stream holds at most MAX_FACE_PAGES pages, which one command can always cover.
    var first_quad = 0u;
    var quads = 0u;
    while i < end {
        let page_end = min(end, ((i >> QUAD_PAGE_LOG2) + 1u) << QUAD_PAGE_LOG2);
        let quad = (faces[face_index].pages[i >> QUAD_PAGE_LOG2] << QUAD_PAGE_LOG2) + (i & (PAGE_QUADS - 1u));
        if quads > 0u && quad == first_quad + quads {
            quads += page_end - i;
        } else {
            if quads > 0u {
                push(kind, first_quad, quads);
            }
            first_quad = quad;
            quads = page_end - i;
        }
        i = page_end;
    }
    if quads > 0u {
        push(kind, first_quad, quads);
    }
}
