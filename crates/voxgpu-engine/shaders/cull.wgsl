// Culling and draw arguments: turns the face streams that can be seen into indexed indirect
// draw commands, in two phases around the depth pyramid. Twin of crates/voxgpu-core/src/cull.rs
// (`Frustum::intersects_box`, `face_may_show`) and occlusion.rs (`DepthPyramid::test_box`).
//
// Reads:  params, cull (frustum planes, eye, switches, the pyramid's camera), chunks (origins,
//         levels, shown), faces (counts, bounds and page lists), pyramid (hiz.wgsl), visible
//         (last frame's verdicts).
// Writes: args (in regions of draw_capacity commands: opaque, transparent as appended, the
//         transparent sorted by transparent_sort.wgsl, the opaque faces of cross-fading nodes,
//         and the occluded streams of the debug view), counts (see COUNT_* below), visible (one
//         word of VIS_* bits per (slot, face, kind)), sort_keys and sort_buckets (each
//         transparent command's distance key and its group's slot, and the commands per key, for
//         transparent_sort.wgsl).
//         A node's box is 32 * 2^node_level blocks wide; nodes not drawn are skipped.
// Dispatch: one invocation per (slot, face, kind), 64 per workgroup, over a two-dimensional grid
//           (`linear_invocation`), once per phase. The CPU zeroes counts, and on adapters without
//           indirect count also the args, before each phase (the per-frame totals only before
//           the first).
//
// A candidate is a face stream with quads whose node is drawn and in the frustum and whose
// direction can face the eye (transparent faces are double-sided and skip that test).
// - `first` (the first phase, only when the frame tests occlusion and builds a pyramid): the
//   opaque candidates seen last frame (VIS_SEEN) become commands, drawn before the pyramid is
//   built from their depth.
// - `second`: every candidate is tested against the pyramid (when there is one); it is seen when
//   not occluded, and becomes a command when seen and not drawn by the first phase. Every
//   transparent candidate is drawn here, after all opaque ones. An occluded stream's fragments
//   would all fail the depth test (occlusion.rs says why), so culling it leaves the frame as it
//   was; which streams the first phase drew only changes the work.
// Commands: one per run of consecutive pages within a stream (one per page with CULL_PAGES),
// base_vertex = 4 × first quad, index_count = 6 × quads, over the static (0,1,2, 0,2,3) + 4q
// index pattern. A stream's commands take consecutive list entries from one atomic counter, in
// stream order. Commands beyond the capacity are dropped (never written out of bounds); the
// capacity is sized from the pool. The opaque faces of a node cross-fading between levels go to a
// list of their own (LIST_FADING), drawn by pipelines that dither, so the opaque pipeline keeps
// its early depth test; its transparent faces stay in the transparent list, whose shader dithers
// them.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>, 22>;
@group(0) @binding(4) var<uniform> cull: CullParams;
@group(0) @binding(5) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(6) var<storage, read_write> visible: array<u32>;
@group(0) @binding(7) var<storage, read_write> sort_keys: array<u32>;
@group(0) @binding(8) var<storage, read_write> sort_buckets: array<atomic<u32>, SORT_BUCKETS>;
@group(0) @binding(9) var<storage, read> pyramid: array<f32>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;
// The lists, by kind: what write_command is given and the command and quad counts are indexed by.
const LIST_OPAQUE: u32 = 0u;
const LIST_TRANSPARENT: u32 = 1u;
const LIST_FADING: u32 = 2u;
const LIST_OCCLUDED: u32 = 3u;
// The opaque faces of nodes farther away, in OPAQUE_BANDS distance bands drawn near first (band 0
// is LIST_OPAQUE), so early depth testing rejects most of what lies behind: lists
// LIST_FAR_OPAQUE + band - 1 for bands 1.., each starting BAND_START[band] blocks from the eye
// (the nearest point of the node's box).
const LIST_FAR_OPAQUE: u32 = 4u;
const OPAQUE_BANDS: u32 = 4u;
const LISTS: u32 = 7u;
// counts[]: commands of each list (this phase's), quads of each list (the frame's), skirt quads
// drawn, chunks tested (those with quads), chunks visible, candidates, candidates drawn by the
// first phase, by the second, occluded (drawn by neither), commands the first phase wrote.
const COUNT_QUADS: u32 = 7u;
const COUNT_SKIRTS: u32 = 14u;
const COUNT_TESTED: u32 = 15u;
const COUNT_VISIBLE: u32 = 16u;
const COUNT_CANDIDATES: u32 = 17u;
const COUNT_DRAWN_FIRST: u32 = 18u;
const COUNT_DRAWN_SECOND: u32 = 19u;
const COUNT_OCCLUDED: u32 = 20u;
const COUNT_FIRST_COMMANDS: u32 = 21u;
// visible[] bits of one (slot, face, kind): the node is drawn, has quads and is in the frustum
// (the same in all twelve words of a slot); the stream is a candidate; the pyramid found it
// occluded; the first phase drew it; it was seen (a candidate not occluded): the first phase of
// the next frame draws it.
const VIS_IN_VIEW: u32 = 1u;
const VIS_CANDIDATE: u32 = 2u;
const VIS_OCCLUDED: u32 = 4u;
const VIS_DRAWN_FIRST: u32 = 8u;
const VIS_SEEN: u32 = 16u;
// Where each list's commands start in args, in regions of draw_capacity commands (region 2 holds
// the transparent commands sorted, transparent_sort.wgsl): lists 0, 1 in regions 0, 1, list k >= 2
// in region k + 1.
fn list_region(list: u32) -> u32 {
    return list + u32(list >= LIST_FADING);
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

// Whether every pixel the box could cover holds a nearer surface (pyramid_test.wgsl).
fn box_occluded(low: vec3<f32>, high: vec3<f32>) -> bool {
    return pyramid_occludes(cull.pyramid, low, high);
}

@compute @workgroup_size(64)
fn first(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    cull_stream(linear_invocation(id, groups, 64u), true);
}

@compute @workgroup_size(64)
fn second(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    cull_stream(linear_invocation(id, groups, 64u), false);
}

fn cull_stream(invocation: u32, first_phase: bool) {
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
    let in_view = record.shown != 0u && ((cull.flags & CULL_FRUSTUM) == 0u || box_in_frustum(cull.planes, low, high));
    var node_quads = 0u;
    for (var f = 0u; f < 6u; f++) {
        node_quads += faces[slot * 6u + f].opaque + faces[slot * 6u + f].transparent;
    }
    let node_in_view = node_quads > 0u && in_view;
    // One invocation per slot counts the chunk and whether it is visible, once a frame.
    if !first_phase && face == 0u && kind == 0u && node_quads > 0u {
        atomicAdd(&counts[COUNT_TESTED], 1u);
        if in_view {
            atomicAdd(&counts[COUNT_VISIBLE], 1u);
        }
    }
    let opaque = faces[face_index].opaque;
    let start = select(opaque, 0u, kind == 0u);
    let end = start + select(faces[face_index].transparent, opaque, kind == 0u);
    let face_culled = kind == 0u && (cull.flags & CULL_FACES) != 0u && !face_may_show(face, low, high);
    let candidate = in_view && !face_culled && end > start;
    let word = invocation;
    let last = visible[word];
    let drawn_first = candidate && kind == 0u && (last & VIS_SEEN) != 0u;
    if first_phase {
        if drawn_first {
            atomicAdd(&counts[COUNT_DRAWN_FIRST], 1u);
            atomicAdd(&counts[COUNT_FIRST_COMMANDS], write_stream(record, slot, face, kind, start, end, low, high, false));
        }
        return;
    }
    let two_phase = (cull.flags & CULL_TWO_PHASE) != 0u;
    var occluded = false;
    if candidate && (cull.flags & CULL_OCCLUSION) != 0u && cull.pyramid.levels > 0u {
        let bounds = stream_box(record, faces[face_index].bounds, cull.anchor);
        occluded = box_occluded(bounds[0], bounds[1]);
    }
    let first_drew = two_phase && drawn_first;
    visible[word] = select(0u, VIS_IN_VIEW, node_in_view) | select(0u, VIS_CANDIDATE, candidate)
        | select(0u, VIS_OCCLUDED, candidate && occluded) | select(0u, VIS_DRAWN_FIRST, first_drew)
        | select(0u, VIS_SEEN, candidate && !occluded);
    if candidate {
        atomicAdd(&counts[COUNT_CANDIDATES], 1u);
    }
    if !candidate || first_drew {
        return;
    }
    if occluded {
        atomicAdd(&counts[COUNT_OCCLUDED], 1u);
        if (cull.flags & CULL_LIST_OCCLUDED) != 0u {
            write_stream(record, slot, face, kind, start, end, low, high, true);
        }
        return;
    }
    atomicAdd(&counts[COUNT_DRAWN_SECOND], 1u);
    write_stream(record, slot, face, kind, start, end, low, high, false);
}

// The distance band of a node box [node_low, node_high]: 0 within 64 blocks of the view's eye,
// then 256, 1024 and beyond (factors of 4: the nodes that cover most of the frame come first).
fn distance_band(node_low: vec3<f32>, node_high: vec3<f32>) -> u32 {
    let d = distance(clamp(cull.view_eye, node_low, node_high), cull.view_eye);
    return u32(d >= 64.0) + u32(d >= 256.0) + u32(d >= 1024.0);
}

// Writes the commands of stream entries [start, end) of (slot, face) into its list (or the
// occluded list); [node_low, node_high] is the node's box. Returns how many.
fn write_stream(record: ChunkMeta, slot: u32, face: u32, kind: u32, start: u32, end: u32,
                node_low: vec3<f32>, node_high: vec3<f32>, to_occluded: bool) -> u32 {
    let face_index = slot * 6u + face;
    if kind == 0u && !to_occluded {
        // Skirts of both kinds, counted once per drawn face.
        atomicAdd(&counts[COUNT_SKIRTS], faces[face_index].skirts);
    }
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
    var list = select(kind, LIST_FADING, kind == LIST_OPAQUE && fade_left(record.shown) > 0u);
    if list == LIST_OPAQUE && (cull.flags & CULL_FRONT_TO_BACK) != 0u {
        let band = distance_band(node_low, node_high);
        list = select(LIST_FAR_OPAQUE + band - 1u, LIST_OPAQUE, band == 0u);
    }
    if to_occluded {
        list = LIST_OCCLUDED;
    }
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
        let key = sort_key(node_low, node_high, face);
        sort_keys[base] = key | (written << SORT_GROUP_SHIFT);
        for (var j = 1u; j < written; j++) {
            sort_keys[base + j] = SORT_FOLLOWER;
        }
        // The group's node, which orders groups of equal keys (transparent_sort.wgsl `place`).
        sort_keys[SORT_SLOTS_REGION * params.draw_capacity + base] = slot;
        atomicAdd(&sort_buckets[key], written);
    }
    return runs;
}

// The mega-buffer quad index of entry `i` of a face stream.
fn stream_quad(face_index: u32, i: u32) -> u32 {
    return (faces[face_index].pages[i >> QUAD_PAGE_LOG2] << QUAD_PAGE_LOG2) + (i & (PAGE_QUADS - 1u));
}
