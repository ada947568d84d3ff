// Culling and draw arguments: turns the face streams that can be seen into indexed indirect
// draw commands. Twin of src/cull.rs (`Frustum::intersects_box`, `face_may_show`).
//
// Reads:  params, cull (frustum planes, eye, switches), chunks (origins, levels, shown), faces (counts and page
//         lists).
// Writes: args (opaque commands in [0, capacity), transparent in [capacity, 2 capacity)),
//         counts (see COUNT_* below), visible (per slot: 1 when it has quads and is in view),
//         sort_keys and sort_buckets (each transparent command's distance key, and the commands
//         per key, for transparent_sort.wgsl).
//         A node's box is 32 * 2^node_level blocks wide; nodes not shown are skipped.
// Dispatch: one invocation per (slot, face, kind), 64 per workgroup. The CPU zeroes counts, and
//           on adapters without indirect count also the args, before.
//
// A chunk outside the frustum draws nothing; a face direction pointing away from the eye along
// its axis for the whole chunk box draws nothing. What is left becomes commands: one per run of
// consecutive pages within a stream, base_vertex = 4 × first quad, index_count = 6 × quads, over
// the static (0,1,2, 0,2,3) + 4q index pattern, appended with an atomic counter. Commands beyond
// the capacity are dropped (never written out of bounds); the capacity is sized from the pool.
// Transparent faces are drawn from both sides (a water surface seen from under water), so
// face-direction culling skips them.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>, 7>;
@group(0) @binding(4) var<uniform> cull: CullParams;
@group(0) @binding(5) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(6) var<storage, read_write> visible: array<u32>;
@group(0) @binding(7) var<storage, read_write> sort_keys: array<u32>;
@group(0) @binding(8) var<storage, read_write> sort_buckets: array<atomic<u32>, SORT_BUCKETS>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;
// counts[]: commands (opaque, transparent), quads (opaque, transparent), skirt quads drawn,
// chunks tested (those with quads), chunks visible.
const COUNT_SKIRTS: u32 = 4u;
const COUNT_TESTED: u32 = 5u;
const COUNT_VISIBLE: u32 = 6u;

// Twin of Frustum::intersects_box: outside only when the positive vertex is behind a plane.
fn box_in_frustum(low: vec3<f32>, high: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let plane = cull.planes[i];
        let positive = select(low, high, plane.xyz >= vec3<f32>(0.0));
        if dot(plane.xyz, positive) + plane.w < 0.0 {
            return false;
        }
    }
    return true;
}

// Twin of cull.rs face_may_show: faces along +axis can face the eye only if part of the box lies
// below the eye's coordinate on that axis, and likewise for -axis.
fn face_may_show(face: u32, low: vec3<f32>, high: vec3<f32>) -> bool {
    let axis = face_axis(face);
    if face_is_positive(face) {
        return low[axis] < cull.eye[axis];
    }
    return high[axis] > cull.eye[axis];
}

// Twin of cull.rs transparent_sort_key: the distance from the view's eye to the chunk's centre,
// far first.
fn sort_key(centre: vec3<f32>) -> u32 {
    let bucket = min(u32(distance(centre, cull.view_eye) * cull.sort_scale), SORT_BUCKETS - 1u);
    return SORT_BUCKETS - 1u - bucket;
}

fn push(kind: u32, first_quad: u32, quads: u32, key: u32) {
    atomicAdd(&counts[2u + kind], quads);
    let index = atomicAdd(&counts[kind], 1u);
    if index < params.draw_capacity {
        args[kind * params.draw_capacity + index] = DrawArgs(quads * 6u, 1u, 0u, i32(first_quad * 4u), 0u);
        if kind == 1u {
            sort_keys[index] = key;
            atomicAdd(&sort_buckets[key], 1u);
        }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let face_index = id.x / 2u;
    let kind = id.x % 2u;
    if face_index >= params.slot_count * 6u {
        return;
    }
    let slot = face_index / 6u;
    let face = face_index % 6u;
    let record = chunks[slot];
    let size = node_size(record);
    let low = vec3<f32>(record.origin);
    let high = low + vec3<f32>(size);
    // A node not drawn (replaced by its children or covered by an ancestor) draws nothing, even
    // before the mesher has emptied its faces.
    let in_view = record.shown != 0u && ((cull.flags & CULL_FRUSTUM) == 0u || box_in_frustum(low, high));

    // One invocation per slot counts the chunk and records whether it is visible.
    if face == 0u && kind == 0u {
        var quads = 0u;
        for (var f = 0u; f < 6u; f++) {
            quads += faces[slot * 6u + f].opaque + faces[slot * 6u + f].transparent;
        }
        visible[slot] = u32(quads > 0u && in_view);
        if quads > 0u {
            atomicAdd(&counts[COUNT_TESTED], 1u);
            if in_view {
                atomicAdd(&counts[COUNT_VISIBLE], 1u);
            }
        }
    }
    let face_culled = kind == 0u && (cull.flags & CULL_FACES) != 0u && !face_may_show(face, low, high);
    if !in_view || face_culled {
        return;
    }
    let key = sort_key(low + vec3<f32>(0.5 * size));

    let opaque = faces[face_index].opaque;
    if kind == 0u {
        // Skirts of both kinds, counted once per drawn face.
        atomicAdd(&counts[COUNT_SKIRTS], faces[face_index].skirts);
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
                push(kind, first_quad, quads, key);
            }
            first_quad = quad;
            quads = page_end - i;
        }
        i = page_end;
    }
    if quads > 0u {
        push(kind, first_quad, quads, key);
    }
}
