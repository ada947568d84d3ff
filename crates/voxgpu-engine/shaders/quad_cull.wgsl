// Per-quad culling: every quad of the commands the cull pass wrote into the opaque draw lists
// (every list but the transparent one, whose order the sort fixed) is tested on its own against
// the frustum and, after a frame's first phase, the depth pyramid, and the kept ones are
// written to a quad list per draw list. Each list is then drawn by a few commands of up to
// MAX_DRAW_QUADS quads each instead of a command per run of pages. The box tested is
// voxgpu_core::cull::quad_box's.
//
// Reads:  params (draw_capacity), cull (the frustum planes, anchor, flags and pyramid of the
//         cull pass), counts (each list's commands this phase and quads this frame), args (the
//         cull pass's commands), chunks, page_owner and quads (a quad's node and cells), pyramid.
// Writes: quad_list (each list's kept quads, list k from its base: the sum of the frame's quads
//         of the lists before it), quad_lists (LISTS_* below: the kept counts, each list's commands
//         and their count, the frame's kept quads), quad_dispatch (the expand dispatch).
// Dispatch, once per phase after the cull pass: `prepare` (1 invocation), `expand_first` or
//         `expand_second` (indirect: one workgroup per command of the compacted lists), `finish`
//         (1 workgroup, an invocation per list).
//
// Why a quad's box can be tested alone: a quad outside a frustum plane covers no pixel centre,
// and one whose every pixel holds a nearer surface in the pyramid fails every depth test (the
// argument occlusion.rs gives for a stream's box). The frustum test's box is QUAD_MARGIN blocks
// larger each side, which is far more than f32 rounding of a plane's distance at any distance
// this renderer draws; the pyramid test already widens its box by a pixel. So leaving a quad out
// never changes the picture. A command's kept quads are written a round of WORKGROUP at a time,
// rounds in order, within a round in no fixed order; the lists' commands themselves come in no
// fixed order (their entries are taken by atomics), and opaque quads drawn in any order give the
// same depth and surface keys.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<uniform> cull: CullParams;
// cull.wgsl's counts (22 words) as a uniform: read them with `count`.
@group(0) @binding(2) var<uniform> counts: array<vec4<u32>, 6>;
@group(0) @binding(3) var<storage, read> args: array<DrawArgs>;
@group(0) @binding(4) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(5) var<storage, read> page_owner: array<u32>;
@group(0) @binding(6) var<storage, read> quads: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read> pyramid: array<f32>;
@group(0) @binding(8) var<storage, read_write> quad_list: array<u32>;
@group(0) @binding(9) var<storage, read_write> quad_lists: array<atomic<u32>>;
// The expand dispatch's workgroups (x, y, z), written by `prepare`. The expand dispatch reads it
// as its indirect arguments, so its bind group binds another buffer here.
@group(0) @binding(10) var<storage, read_write> quad_dispatch: array<u32, 3>;

// Twins of draw.rs LISTS and cull.wgsl's list numbers.
const LISTS: u32 = 7u;
const LIST_TRANSPARENT: u32 = 1u;
const LIST_OCCLUDED: u32 = 3u;
// counts[]: the quads of list k this frame from COUNT_QUADS + k (cull.wgsl).
const COUNT_QUADS: u32 = 7u;
// Words of `quad_lists` (twins of quad_cull.rs QuadLists), 8 words each after 4 unused: the
// quads each list kept this phase; each list's command count; the quads each list kept this
// frame and, after them, 1 once the frame culled quads one by one (zeroed by the CPU before the
// frame); then LISTS regions of commands_per_list() commands, list k's at LISTS_COMMANDS + 5 × k
// × commands_per_list().
const LISTS_KEPT: u32 = 4u;
const LISTS_COMMAND_COUNTS: u32 = 12u;
const LISTS_FRAME_KEPT: u32 = 20u;
const LISTS_COMMANDS: u32 = 28u;
// Workgroups a dispatch takes along x (WebGPU's and Vulkan's least maximum).
const MAX_GROUPS_X: u32 = 65535u;
// Quads one command draws: the static index buffer's length (draw.rs MAX_DRAW_QUADS).
const MAX_DRAW_QUADS: u32 = 32768u;
// Vertex indices from here on name quad list entries, not quads (chunk_draw.wgsl `pulled_quad`):
// a command over entries e.. has base_vertex QUAD_LIST_VERTEX + 4e. Twin of
// quad_cull.rs QUAD_LIST_VERTEX.
const QUAD_LIST_VERTEX: u32 = 1u << 30u;
// How much larger than the quad its box is for the frustum test, in blocks (twin of
// voxgpu_core::cull::QUAD_MARGIN).
const QUAD_MARGIN: f32 = 0.0625;
const WORKGROUP: u32 = 64u;

// Word `i` of the cull pass's counts.
fn count(i: u32) -> u32 {
    return counts[i / 4u][i % 4u];
}

// The commands each list's region holds: enough for every quad of the quad list.
fn commands_per_list() -> u32 {
    return (arrayLength(&quad_list) + MAX_DRAW_QUADS - 1u) / MAX_DRAW_QUADS;
}

// The commands of list `list` this phase that the cull pass wrote (it drops those beyond the
// capacity), 0 for the transparent list.
fn list_commands(list: u32) -> u32 {
    return select(min(count(list), params.draw_capacity), 0u, list == LIST_TRANSPARENT);
}

// Where list `list`'s kept quads start in quad_list: after every quad the lists before it drew
// this frame, which bounds what they keep in either phase.
fn list_base(list: u32) -> u32 {
    var base = 0u;
    for (var l = 0u; l < list; l++) {
        base += select(count(COUNT_QUADS + l), 0u, l == LIST_TRANSPARENT);
    }
    return base;
}

@compute @workgroup_size(1)
fn prepare() {
    var total = 0u;
    for (var list = 0u; list < LISTS; list++) {
        total += list_commands(list);
        atomicStore(&quad_lists[LISTS_KEPT + list], 0u);
    }
    quad_dispatch = array<u32, 3>(min(total, MAX_GROUPS_X), (total + MAX_GROUPS_X - 1u) / MAX_GROUPS_X, 1u);
}

// Whether quad `q` may cover a pixel: its box (cull::quad_box) grown by QUAD_MARGIN meets the
// frustum and, with `occlusion`, the box is not hidden in the pyramid.
fn quad_seen(q: u32, occlusion: bool) -> bool {
    let chunk = chunks[page_owner[q >> QUAD_PAGE_LOG2]];
    let cells = quad_plane_box(quads[q]);
    let scale = f32(1u << chunk.lod);
    let origin = anchored(chunk.origin, cull.anchor);
    let low = origin + cells[0] * scale;
    let high = origin + cells[1] * scale;
    if (cull.flags & CULL_FRUSTUM) != 0u && !box_in_frustum(cull.planes, low - QUAD_MARGIN, high + QUAD_MARGIN) {
        return false;
    }
    return !(occlusion && pyramid_occludes(cull.pyramid, low, high));
}

var<workgroup> round_kept: atomic<u32>;
var<workgroup> round_base: u32;

// One workgroup per command: its quads in rounds of WORKGROUP, each round's kept ones given
// consecutive entries with one atomic on the list's count.
fn expand(group: u32, local: u32, first_phase: bool) {
    var list = LISTS;
    var command = 0u;
    var first = 0u;
    for (var l = 0u; l < LISTS; l++) {
        let n = list_commands(l);
        if group >= first && group < first + n {
            list = l;
            command = group - first;
        }
        first += n;
    }
    if list == LISTS {
        return;
    }
    let args_region = list + u32(list >= 2u);
    let drawn = args[args_region * params.draw_capacity + command];
    let count = drawn.index_count / 6u;
    let first_quad = u32(drawn.base_vertex) / 4u;
    let occlusion = !first_phase && list != LIST_OCCLUDED && (cull.flags & CULL_OCCLUSION) != 0u
        && cull.pyramid.levels > 0u;
    let base = list_base(list);
    let capacity = arrayLength(&quad_list);
    for (var i = 0u; i < count; i += WORKGROUP) {
        let k = i + local;
        let keep = k < count && quad_seen(first_quad + k, occlusion);
        var slot = 0u;
        if keep {
            slot = atomicAdd(&round_kept, 1u);
        }
        workgroupBarrier();
        if local == 0u {
            round_base = atomicAdd(&quad_lists[LISTS_KEPT + list], atomicLoad(&round_kept));
            atomicStore(&round_kept, 0u);
        }
        workgroupBarrier();
        let entry = base + round_base + slot;
        if keep && entry < capacity {
            quad_list[entry] = first_quad + k;
        }
    }
}

@compute @workgroup_size(64)
fn expand_first(@builtin(workgroup_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    expand(id.y * MAX_GROUPS_X + id.x, local, true);
}

@compute @workgroup_size(64)
fn expand_second(@builtin(workgroup_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    expand(id.y * MAX_GROUPS_X + id.x, local, false);
}

// Each list's commands over its kept quads, MAX_DRAW_QUADS at most each; the frame's kept counts.
@compute @workgroup_size(8)
fn finish(@builtin(local_invocation_index) list: u32) {
    if list >= LISTS || list == LIST_TRANSPARENT {
        return;
    }
    let per_list = commands_per_list();
    let base = list_base(list);
    let kept = min(atomicLoad(&quad_lists[LISTS_KEPT + list]), arrayLength(&quad_list) - min(base, arrayLength(&quad_list)));
    let commands = min((kept + MAX_DRAW_QUADS - 1u) / MAX_DRAW_QUADS, per_list);
    for (var c = 0u; c < commands; c++) {
        let at = LISTS_COMMANDS + 5u * (list * per_list + c);
        let entry = base + c * MAX_DRAW_QUADS;
        atomicStore(&quad_lists[at], 6u * min(MAX_DRAW_QUADS, kept - c * MAX_DRAW_QUADS));
        atomicStore(&quad_lists[at + 1u], 1u);
        atomicStore(&quad_lists[at + 2u], 0u);
        atomicStore(&quad_lists[at + 3u], QUAD_LIST_VERTEX + 4u * entry);
        atomicStore(&quad_lists[at + 4u], 0u);
    }
    atomicStore(&quad_lists[LISTS_COMMAND_COUNTS + list], commands);
    atomicAdd(&quad_lists[LISTS_FRAME_KEPT + list], kept);
    atomicStore(&quad_lists[LISTS_FRAME_KEPT + LISTS], 1u);
}
