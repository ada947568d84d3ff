// Culling and draw arguments: turns the face streams that can be seen into indexed indirect
// draw commands. Twin of crates/voxgpu-core/src/cull.rs (`Frustum::intersects_box`,
// `face_may_show`).
//
// Reads:  params, cull (frustum planes, eye, switches), chunks (origins, levels, shown), faces (counts and page
//         lists).
// Writes: args (opaque commands in [0, capacity), transparent in [capacity, 2 capacity), opaque
//         commands of cross-fading nodes in [3 capacity, 4 capacity)),
//         counts (see COUNT_* below), visible (per slot: 1 when it has quads and is in view),
//         sort_keys and sort_buckets (each transparent command's distance key and its group's
//         slot, and the commands per key, for transparent_sort.wgsl).
//         A node's box is 32 * 2^node_level blocks wide; nodes not drawn are skipped.
// Dispatch: one invocation per (slot, face, kind), 64 per workgroup, over a two-dimensional grid
//           (`linear_invocation`). The CPU zeroes counts, and on adapters without indirect count
//           also the args, before.
//
// A chunk outside the frustum draws nothing; a face direction pointing away from the eye along
// its axis for the whole chunk box draws nothing. What is left becomes commands: one per run of
// consecutive pages within a stream (one per page with CULL_PAGES), base_vertex = 4 × first
// quad, index_count = 6 × quads, over the static (0,1,2, 0,2,3) + 4q index pattern. A stream's
// commands take consecutive list entries from one atomic counter, in stream order. Commands beyond
// the capacity are dropped (never written out of bounds); the capacity is sized from the pool.
// Transparent faces are drawn from both sides (a water surface seen from under water), so
// face-direction culling skips them. The opaque faces of a node cross-fading between levels go to
// a list of their own (LIST_FADING), drawn by pipelines that dither, so the opaque pipeline
// keeps its early depth test; its transparent faces stay in the transparent list, whose shader
// dithers them.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>, 9>;
@group(0) @binding(4) var<uniform> cull: CullParams;
@group(0) @binding(5) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(6) var<storage, read_write> visible: array<u32>;
@group(0) @binding(7) var<storage, read_write> sort_keys: array<u32>;
@group(0) @binding(8) var<storage, read_write> sort_buckets: array<atomic<u32>, SORT_BUCKETS>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;
// The lists, by kind: what write_command is given and the counts are indexed by.
const LIST_OPAQUE: u32 = 0u;
const LIST_TRANSPARENT: u32 = 1u;
const LIST_FADING: u32 = 2u;
// counts[]: commands (opaque, transparent, fading), quads (the same three), skirt quads drawn,
// chunks tested (those with quads), chunks visible.
const COUNT_QUADS: u32 = 3u;
const COUNT_SKIRTS: u32 = 6u;
const COUNT_TESTED: u32 = 7u;
const COUNT_VISIBLE: u32 = 8u;
// Where each list's commands start in args, in regions of draw_capacity commands (region 2 holds
// the transparent commands sorted, transparent_sort.wgsl).
fn list_region(list: u32) -> u32 {
    return select(list, 3u, list == LIST_FADING);
}

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

// Twin of cull.rs transparent_sort_key: the square root of the distance from the view's eye to
// the box's centre, far first, then the face's slot among the box's six (face_draw_slot).
fn sort_key(low: vec3<f32>, high: vec3<f32>, face: u32) -> u32 {
    let root = sqrt(distance(0.5 * (low + high), cull.view_eye)) * cull.sort_scale;
    let bucket = min(u32(root), SORT_DISTANCES - 1u);
    return (SORT_DISTANCES - 1u - bucket) * SORT_FACE_SLOTS + face_draw_slot(face, low, high);
}

// 0 when the box's faces along `face` all point away from the view's eye, 1 when the eye's plane
// cuts the box on that axis, 2 when they all point at it.
fn face_rank(face: u32, low: vec3<f32>, high: vec3<f32>) -> u32 {
    let axis = face_axis(face);
    let e = cull.view_eye[axis];
    var toward = e < low[axis];
    var away = e > high[axis];
    if face_is_positive(face) {
        toward = e > high[axis];
        away = e < low[axis];
    }
    return select(select(1u, 2u, toward), 0u, away);
}

// Twin of cull.rs face_draw_slot: the faces pointing away first, then by rank and face index.
fn face_draw_slot(face: u32, low: vec3<f32>, high: vec3<f32>) -> u32 {
    let rank = face_rank(face, low, high);
    var slot = 0u;
    for (var g = 0u; g < 6u; g++) {
        let r = face_rank(g, low, high);
        slot += u32(r < rank || (r == rank && g < face));
    }
    return slot;
}

// The command list entry of one run of quads; beyond the capacity it is dropped.
fn write_command(list: u32, index: u32, first_quad: u32, quads: u32) {
    atomicAdd(&counts[COUNT_QUADS + list], quads);
    if index < params.draw_capacity {
        args[list_region(list) * params.draw_capacity + index] =
            DrawArgs(quads * 6u, 1u, 0u, i32(first_quad * 4u), 0u);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let invocation = linear_invocation(id, groups, 64u);
    let face_index = invocation / 2u;
    let kind = invocation % 2u;
    if face_index >= params.slot_count * 6u {
        return;
    }
    let slot = face_index / 6u;
    let face = face_index % 6u;
    let record = chunks[slot];
    let size = node_size(record);
    // Positions measured from the anchor (the block the view's eye is in), as the planes and eyes
    // are: exact integer differences, so culling keeps its precision far from the origin.
    let low = anchored(record.origin, cull.anchor);
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
    let opaque = faces[face_index].opaque;
    if kind == 0u {
        // Skirts of both kinds, counted once per drawn face.
        atomicAdd(&counts[COUNT_SKIRTS], faces[face_index].skirts);
    }
    let start = select(opaque, 0u, kind == 0u);
    let end = start + select(faces[face_index].transparent, opaque, kind == 0u);
    // The stream's runs of consecutive pages are counted, given consecutive list entries with one
    // atomic, then written: so a stream's commands stay in stream order in the list, and the
    // transparent sort moves them as one group. A face stream holds at most MAX_FACE_PAGES
    // pages, so there are at most that many runs.
    // With CULL_PAGES every page is a run of its own.
    let split = (cull.flags & CULL_PAGES) != 0u;
    var runs = 0u;
    var next = 0xffffffffu;
    for (var i = start; i < end; i = min(end, ((i >> QUAD_PAGE_LOG2) + 1u) << QUAD_PAGE_LOG2)) {
        let quad = stream_quad(face_index, i);
        runs += u32(split || quad != next);
        next = quad + min(end, ((i >> QUAD_PAGE_LOG2) + 1u) << QUAD_PAGE_LOG2) - i;
    }
    if runs == 0u {
        return;
    }
    let list = select(kind, LIST_FADING, kind == LIST_OPAQUE && fade_left(record.shown) > 0u);
    let base = atomicAdd(&counts[list], runs);
    var run = 0u;
    var first_quad = 0u;
    var quads = 0u;
    for (var i = start; i < end; i = min(end, ((i >> QUAD_PAGE_LOG2) + 1u) << QUAD_PAGE_LOG2)) {
        let page_end = min(end, ((i >> QUAD_PAGE_LOG2) + 1u) << QUAD_PAGE_LOG2);
        let quad = stream_quad(face_index, i);
        if quads > 0u && !split && quad == first_quad + quads {
            quads += page_end - i;
        } else {
            if quads > 0u {
                write_command(list, base + run, first_quad, quads);
                run += 1u;
            }
            first_quad = quad;
            quads = page_end - i;
        }
    }
    write_command(list, base + run, first_quad, quads);
    if list == LIST_TRANSPARENT && base < params.draw_capacity {
        // The group's first entry carries the key and the group's size in the list; the others
        // are marked as followers, which the sort's scatter skips.
        let written = min(runs, params.draw_capacity - base);
        let key = sort_key(low, high, face);
        sort_keys[base] = key | (written << SORT_GROUP_SHIFT);
        for (var j = 1u; j < written; j++) {
            sort_keys[base + j] = SORT_FOLLOWER;
        }
        // The group's node, which orders groups of equal keys (transparent_sort.wgsl `place`).
        sort_keys[SORT_SLOTS_REGION * params.draw_capacity + base] = slot;
        atomicAdd(&sort_buckets[key], written);
    }
}

// The mega-buffer quad index of entry `i` of a face stream.
fn stream_quad(face_index: u32, i: u32) -> u32 {
    return (faces[face_index].pages[i >> QUAD_PAGE_LOG2] << QUAD_PAGE_LOG2) + (i & (PAGE_QUADS - 1u));
}
