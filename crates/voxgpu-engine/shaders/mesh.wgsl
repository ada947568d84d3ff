// Binary greedy mesher: both face directions of one axis of one node (a chunk, or a coarser
// level-of-detail node) per workgroup, at the node's selected mip level. Twin of
// crates/voxgpu-core/src/mesh/greedy.rs (`mesh_grid`), which it must match quad for quad. A node
// that is not drawn only empties its faces; neighbours that are not drawn count as absent
// (`link`).
//
// Reads:  params, work (jobs), voxels (the node's mip, and the same mip of its drawn face and
//         edge neighbours: border culling and ambient occlusion), links (neighbour slots, mips),
//         chunks (drawn, node level), opaque_bits (block opacity, a uniform).
// Writes: quads and page_owner (the pages it allocates), faces (counts and page list), allocator
//         (pops pages; failed_pages on failure), links (state back to dirty on failure), chunks
//         (the level the quads are in, node level plus mip, which the draw scales them by).
// Dispatch: indirect from work[0..3] after the release pass: (pairs, 2 or 1, 1) workgroups of
//           256 invocations per pair of jobs (the +axis and -axis faces of one chunk, jobs 2x and
//           2x + 1; y is 1 where params.split_pairs is 0). With at most params.split_pairs pairs,
//           workgroup (x, y) meshes face y of the pair and invocation i works on slice (depth
//           along the axis) i >> 3 and the eighth i & 7 of its rows; with more, workgroup (x, 0)
//           meshes both faces, invocation i face (i >> 7), slice (i >> 2) & 31 and the quarter
//           i & 3 of its rows, and any (x, 1) returns.
//
// Level L meshes the (32 >> L)^3 grid: the same code with `dim` = 32 >> L as every loop bound,
// slices past `dim` idle. Where the neighbour is at another level, the opaque border faces it
// hides are emitted as skirts (see greedy.rs for why that closes every seam).
//
// Everything is kept as 32-bit rows in the axis's *plane* layout: row v of slice a holds bit u
// for the cell at depth a and tangent coordinates (u, v) (`voxel_pos`). Steps (1, 2 and the skirt
// rows in mesh_build.wgsl, the ambient occlusion planes in mesh_ao.wgsl, steps 3 and 5 in
// mesh_rows.wgsl):
// 1. `build_planes`: the level is read once in memory order (an X-row of ids per invocation and
//    step, four words at a time) into rows of solid, opaque, and same-id-as-the-next-cell bits;
//    for the X and Y axes, 32x32 bit transposes in shared memory turn them into that axis's
//    planes.
// 2. `build_halo`: the opaque cells just outside the chunk (face neighbours' layers, edge
//    neighbours' lines) as rows and columns of bits, for ambient occlusion and border culling.
// 3. `stack_rows`: each invocation takes its rows of a slice. A row's visible faces are a few
//    bit operations (solid here, not opaque in front); its ambient occlusion is eight bit planes,
//    two per corner, from three rows of the layer in front (`ao_planes`); merge keys (block,
//    skirt, AO) are compared 32 faces at a time, block ids through the same-id plane. That splits
//    the row into maximal runs of one key (`row_runs`). A run whose row above holds exactly the
//    same run with the same key continues the quad above; every other run starts a quad. Rows
//    depend only on themselves and the row above, so the rows of a slice are split four or
//    eight ways with no invocation waiting on another. The continuing runs go to workgroup
//    memory, the starting ones stay in registers, and each invocation's quad counts are summed.
// 4. One invocation per face sums the counts, pops the pages the face needs and records them
//    with the cells the face's quads cover (`FaceMesh.bounds`).
// 5. `emit_rows`: each quad start is written to its place in the face's stream; its height is how
//    many rows below continue it, read from the continuing runs.
// Then `commit` (one invocation) takes the popped pages off the free stack.
// Counting first and then writing is cheaper than reserving worst-case space: the stream is
// exactly as long as it needs to be. Workgroup memory: within WebGPU's default 16 KiB
// (`mesher::MESH_WORKGROUP_BYTES`, checked against this file by tests/shaders.rs).

@group(0) @binding(0) var<storage, read> work: array<u32>;
@group(0) @binding(1) var<storage, read> voxels: array<u32>;
@group(0) @binding(2) var<storage, read_write> links: array<ChunkLinks>;
// Bit (id & 31) of word (id >> 5), all 65,536 ids, as 512 vec4 (a uniform array's stride is 16
// bytes): a uniform so that the pass binds no more than WebGPU's default 8 storage buffers.
@group(0) @binding(3) var<uniform> opaque_bits: array<vec4<u32>, 512>;
@group(0) @binding(4) var<storage, read_write> quads: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> page_owner: array<u32>;
@group(0) @binding(6) var<storage, read_write> allocator: Allocator;
@group(0) @binding(7) var<storage, read_write> faces: array<FaceMesh>;
@group(0) @binding(8) var<uniform> params: PassParams;
@group(0) @binding(9) var<storage, read_write> chunks: array<ChunkMeta>;

// Invocations per workgroup.
const GROUP: u32 = 256u;
// Rows of a slice one invocation takes at most (a quarter of 32).
const MAX_ROWS: u32 = 8u;

// Workgroup memory. Every variable below (and `counts` or the subgroup totals of the count
// sums) is written before any invocation reads it, `planes` zeroed by `build_planes` itself, so
// the pipelines skip wgpu's zeroing of it: keep it so.

// The axis's planes, row v of slice a at `plane(a, v)` in each 1024-word third:
// - PLANES_OPAQUE:  bit u is an opaque cell;
// - PLANES_SOLID:   bit u is a solid (non-air) cell;
// - PLANES_SAME_U:  bit u: cells u and u + 1 hold the same block id.
// Once every row's runs are known, the solid and same-id thirds are no longer read and hold the
// continuing runs instead: `CONTINUES + 1024 f + 32 a + v`, bit u where the run starting at u in
// row v of slice a of face f (of the pair) continues the quad of the row above.
const PLANES_OPAQUE: u32 = 0u;
const PLANES_SOLID: u32 = 1024u;
const PLANES_SAME_U: u32 = 2048u;
const CONTINUES: u32 = 1024u;
var<workgroup> planes: array<u32, 3072>;

// Opaque cells just outside the chunk, in the axis's (a, u, v) coordinates, -1 and dim being
// outside. Side s is 0 for -1 and 1 for dim.
// - HALO_AOUT + 32 s + v:  the layer a = -1 / dim (a face neighbour's), bit u;
// - HALO_UPAD + 32 s + v:  the cells u = -1 / dim of row v, bit a;
// - HALO_VROW + 32 s + a:  the row v = -1 / dim of slice a, bit u;
// - HALO_AU + 2 sa + su:   the line a = -1 / dim, u = -1 / dim (an edge neighbour's), bit v;
// - HALO_AV + 2 sa + sv:   the line a, v outside, bit u;
// - HALO_UV + 2 su + sv:   the line u, v outside, bit a.
// Cells outside on all three (corner chunks) are open, as in the twin.
const HALO_AOUT: u32 = 0u;
const HALO_UPAD: u32 = 64u;
const HALO_VROW: u32 = 128u;
const HALO_AU: u32 = 192u;
const HALO_AV: u32 = 196u;
const HALO_UV: u32 = 200u;
const HALO_WORDS: u32 = 204u;
var<workgroup> halo: array<u32, HALO_WORDS>;
// Per face of the pair (row v of the -axis face at v, of the +axis face at 32 + v): bit u set
// where the face neighbour, drawn at another level, leaves part of the border face (u, v)
// exposed to an opaque block (a cell of its drawn level over the face is not opaque); zero where
// the neighbour is absent or drawn at this level. The border slices' skirts of opaque blocks
// come from it, with no voxel reads in the rows.
var<workgroup> drawn_open: array<u32, 64>;

// The slots around the chunk by offset ((x + 1) + 3 (y + 1) + 9 (z + 1), `slot_at`), looked up
// once per workgroup.
var<workgroup> around_slots: array<u32, 27>;
// The level being meshed, shared so that every invocation reads it as uniform.
var<workgroup> shared_level: u32;
// 1 when the pair only empties its faces (read as uniform, like `shared_level`).
var<workgroup> shared_skip: u32;
// Per face of the pair: its quads (opaque in the low 16 bits, transparent in the high; a face
// has at most 32,768 of each kind) and its skirt quads, as `face_starts` sums them.
var<workgroup> face_totals: array<u32, 2>;
var<workgroup> face_skirts: array<u32, 2>;
// Per face of the pair: the cells its visible faces cover, min and max x, y, z at 3 f + axis.
var<workgroup> face_low: array<atomic<u32>, 6>;
var<workgroup> face_high: array<atomic<u32>, 6>;
// Per face of the pair: 1 when it was granted its pages.
var<workgroup> granted: array<u32, 2>;

// Edge of the grid being meshed, 32 >> level, and the loop bound of every per-voxel loop. It is
// read from params.chunk_size at run time even at level 0: with constant bounds, GL drivers
// unroll the nested loops into a shader that llvmpipe needs minutes to compile; a bound it
// cannot see through keeps them loops.
var<private> dim: u32;
// Bits 0..dim set.
var<private> row_mask: u32;
// The level being meshed and where it starts in a slot, in u16 ids.
var<private> level: u32;
var<private> level_start: u32;
var<private> slot: u32;
var<private> axis: u32;
// 0 for the X axis (whose planes come out of the transpose with slices as rows), 1 otherwise:
// see `cell`.
var<private> skew: u32;
// The invocations meshing one face: 128 (both faces of the pair in this workgroup) or 256 (one).
var<private> face_group: u32;

// Word of row `row` of 32x32 bit matrix `block` within each third of `planes`. Rows are rotated
// by the block index where `skew` is 1, so that 32 invocations reading row v of 32 different
// slices touch 32 different banks.
fn cell(block: u32, row: u32) -> u32 {
    return block * 32u + ((row + block * skew) & 31u);
}

// Where row v of slice a lives. The Z and Y planes are built as matrix a, row v; the X planes
// come out of the transpose of each z-layer as matrix v (= z), row a (= x).
fn plane(a: u32, v: u32) -> u32 {
    if axis == 0u {
        return cell(v, a);
    }
    return cell(a, v);
}

// The id at p of the level being meshed, in `owner`'s pyramid.
fn voxel(owner: u32, p: vec3<u32>) -> u32 {
    return voxel_in(owner, level_start, dim, p);
}

// The id at p of the level that starts at u16 `start` and is `size` on a side.
fn voxel_in(owner: u32, start: u32, size: u32, p: vec3<u32>) -> u32 {
    let i = start + p.x + size * (p.y + size * p.z);
    let word = voxels[owner * SLOT_WORDS + (i >> 1u)];
    return (word >> ((i & 1u) * 16u)) & 0xffffu;
}

fn is_opaque(block: u32) -> bool {
    let word = opaque_bits[block >> 7u][(block >> 5u) & 3u];
    return ((word >> (block & 31u)) & 1u) != 0u;
}

// Bit k: ids[k] is opaque.
fn opaque4(ids: vec4<u32>) -> u32 {
    return u32(is_opaque(ids.x)) | (u32(is_opaque(ids.y)) << 1u) | (u32(is_opaque(ids.z)) << 2u)
        | (u32(is_opaque(ids.w)) << 3u);
}

fn solid_row(a: u32, v: u32) -> u32 {
    return planes[PLANES_SOLID + plane(a, v)];
}

fn opaque_row(a: u32, v: u32) -> u32 {
    return planes[PLANES_OPAQUE + plane(a, v)];
}

// The id at (a, u, v) of this chunk's grid.
fn id_at(a: u32, u: u32, v: u32) -> u32 {
    return voxel(slot, voxel_pos(axis, a, u, v));
}

// What a slice's walk knows of its face: the neighbour across it, the level the neighbour is
// drawn at (the level being meshed when there is none), whether the slice is the border one.
struct SliceFace {
    face: u32,
    neighbour: u32,
    drawn: u32,
    border: bool,
}

// The id of the cell in front of (a, u, v) towards `f.face`: in the next layer, or in the face
// neighbour's facing layer on the border slice.
fn next_id(f: SliceFace, a: u32, u: u32, v: u32) -> u32 {
    let positive = face_is_positive(f.face);
    if f.border {
        return voxel(f.neighbour, voxel_pos(axis, select(dim - 1u, 0u, positive), u, v));
    }
    return id_at(select(a - 1u, a + 1u, positive), u, v);
}

// The faces from `u` on that `link` chains to it (bit k: faces k and k + 1 are linked).
fn same_run(u: u32, link: u32) -> u32 {
    let width = firstTrailingBit(~(link >> u)) + 1u;
    return select(((1u << width) - 1u) << u, 0xffffffffu, width >= 32u);
}

// The visible faces of row v of `a` towards `f.face` (x) and, of those, the skirts (y). Twin of
// greedy.rs `visible_column`, a row of it at a time.
fn visible_row(f: SliceFace, a: u32, v: u32) -> vec2<u32> {
    let here = solid_row(a, v);
    if here == 0u {
        return vec2<u32>(0u);
    }
    let positive = face_is_positive(f.face);
    let trans = here & ~opaque_row(a, v);
    var visible = 0u;
    // Transparent faces whose next cell might be the same transparent block, and (bit u) where
    // face u + 1 has the same answer as face u: cells u and u + 1 hold one id here and one id
    // in the next layer (known inside the chunk only).
    var same_kind = 0u;
    var follows = 0u;
    if f.border {
        visible = here & ~halo[HALO_AOUT + select(0u, 32u, positive) + v];
        if f.neighbour != NO_SLOT {
            same_kind = visible & trans;
        }
    } else {
        let next = select(a - 1u, a + 1u, positive);
        let next_opaque = opaque_row(next, v);
        visible = here & ~next_opaque;
        same_kind = visible & trans & solid_row(next, v) & ~next_opaque;
        follows = planes[PLANES_SAME_U + plane(a, v)] & planes[PLANES_SAME_U + plane(next, v)];
    }
    // Transparent next to transparent: hidden only when it is the same block. One comparison
    // per run of faces that share it (a lake's row is one), four runs' ids loaded together.
    let link = same_kind & (same_kind >> 1u) & follows;
    var heads = same_kind & ~(link << 1u);
    while heads != 0u {
        let u0 = firstTrailingBit(heads);
        heads &= heads - 1u;
        let u1 = select(u0, firstTrailingBit(heads), heads != 0u);
        heads &= heads - 1u;
        let u2 = select(u0, firstTrailingBit(heads), heads != 0u);
        heads &= heads - 1u;
        let u3 = select(u0, firstTrailingBit(heads), heads != 0u);
        heads &= heads - 1u;
        let us = vec4<u32>(u0, u1, u2, u3);
        let own = vec4<u32>(id_at(a, u0, v), id_at(a, u1, v), id_at(a, u2, v), id_at(a, u3, v));
        let next = vec4<u32>(next_id(f, a, u0, v), next_id(f, a, u1, v), next_id(f, a, u2, v), next_id(f, a, u3, v));
        let same = own == next;
        // A head repeated in place of a missing one hides nothing it would not hide anyway.
        visible &= ~(select(0u, same_run(us.x, link), same.x) | select(0u, same_run(us.y, link), same.y)
            | select(0u, same_run(us.z, link), same.z) | select(0u, same_run(us.w, link), same.w));
    }
    // A hidden border face whose neighbour, as drawn (at its own level), would expose it
    // becomes a skirt.
    var skirt = 0u;
    if f.border && f.drawn != level {
        let hidden = here & ~visible;
        // Opaque blocks from the precomputed rows; transparent ones (whose own block in the
        // neighbour also hides them) one by one.
        let own = opaque_row(a, v);
        skirt = hidden & own & drawn_open[select(0u, 32u, positive) + v];
        var hidden_trans = hidden & ~own;
        while hidden_trans != 0u {
            let u = firstTrailingBit(hidden_trans);
            hidden_trans &= hidden_trans - 1u;
            if drawn_exposes(f.neighbour, f.drawn, f.face, u, v, id_at(a, u, v)) {
                skirt |= 1u << u;
            }
        }
    }
    return vec2<u32>(visible | skirt, skirt);
}

// Whether the neighbour drawn at level `drawn` leaves any part of the face of `block` at tangent
// cell (u, v) exposed: it covers several of the neighbour's cells when the neighbour is finer,
// part of one when coarser. Twin of `drawn_exposes` in crates/voxgpu-core/src/mesh/greedy.rs.
fn drawn_exposes(neighbour: u32, drawn: u32, face: u32, u: u32, v: u32, block: u32) -> bool {
    let size = params.chunk_size >> drawn;
    let start = level_base(drawn);
    let depth = select(size - 1u, 0u, face_is_positive(face));
    let u_low = u * size / dim;
    let u_high = max((u + 1u) * size / dim, u_low + 1u);
    let v_low = v * size / dim;
    let v_high = max((v + 1u) * size / dim, v_low + 1u);
    for (var dv = v_low; dv < v_high; dv++) {
        for (var du = u_low; du < u_high; du++) {
            let next = voxel_in(neighbour, start, size, voxel_pos(face_axis(face), depth, du, dv));
            if !is_opaque(next) && next != block {
                return true;
            }
        }
    }
    return false;
}

// Bits from `start` up to, not including, the first bit at or after `start + 1` set in `stops`
// (a run of a row), as (width, mask).
fn run_from(start: u32, stops: u32) -> vec2<u32> {
    let after = stops & ~((2u << start) - 1u);
    let end = select(firstTrailingBit(after), 32u, after == 0u);
    let width = end - start;
    let mask = select(((1u << width) - 1u) << start, 0xffffffffu, width == 32u);
    return vec2<u32>(width, mask);
}

// Pops `count` pages; returns the index of the first in the free stack, or NO_SLOT when the
// stack is too shallow. No retry loop: contention costs one atomicAdd per face. Once a request
// fails, every later one this frame fails too; they retry next frame, after the CPU has grown
// the pool.
fn pop_pages(count: u32) -> u32 {
    let start = atomicAdd(&allocator.popped, count);
    let depth = atomicLoad(&allocator.free_count);
    if start + count > depth {
        return NO_SLOT;
    }
    atomicMax(&allocator.granted, start + count);
    return depth - start - count;
}

fn clear_face(face_index: u32) {
    faces[face_index].opaque = 0u;
    faces[face_index].transparent = 0u;
    faces[face_index].page_count = 0u;
    faces[face_index].skirts = 0u;
    faces[face_index].bounds = 0u;
}

// The mesh pass of workgroup `group` of a dispatch over `pairs` job pairs (the entry point `main`
// is in mesh_counts_plain.wgsl or mesh_counts_subgroups.wgsl, with the `face_starts` it uses).
// Up to params.split_pairs job pairs in a run, each pair's two faces are meshed by two
// workgroups, one face each, so that a few chunks (an edit, a short flight) spread over twice the
// workgroups and each invocation walks half the rows: a run that small leaves most of a GPU idle.
// Past it, the first workgroup of each pair meshes both faces and the second returns, since
// building the axis's planes twice would then cost throughput (on a software adapter, whose few
// cores are busy from the first workgroup, always).
fn mesh_main(group: vec2<u32>, pairs: u32, lid: u32) {
    let split = pairs <= params.split_pairs;
    if !split && group.y == 1u {
        return;
    }
    // Invocations per slice of a face: 8 when this workgroup meshes one face, 4 for two.
    let lanes_log2 = select(2u, 3u, split);
    face_group = select(128u, 256u, split);
    let half = select(lid / 128u, group.y, split);
    let job = work[WORK_JOBS_OFFSET + 2u * group.x];
    let pair_index = job & ~JOB_RELEASE_ONLY;
    slot = pair_index / 6u;
    axis = face_axis(pair_index % 6u);
    skew = u32(axis != 0u);
    // A node that left, or one not drawn (its children or an ancestor stand in for it, and it is
    // not fading out), keeps no quads. The test is read through workgroup memory so that every
    // invocation sees it as uniform: the barriers below need uniform control flow, and a read of
    // a read_write buffer is not uniform to WGSL's analysis (Tint, in browsers, enforces it).
    if lid == 0u {
        shared_skip = u32((job & JOB_RELEASE_ONLY) != 0u || chunks[slot].shown == 0u);
    }
    if workgroupUniformLoad(&shared_skip) != 0u {
        if lid < 2u && (!split || lid == group.y) {
            clear_face(pair_index + lid);
        }
        return;
    }
    if lid == 0u {
        shared_level = min(links[slot].lod, MAX_LEVEL);
        chunks[slot].lod = chunks[slot].node_level + shared_level;
    }
    if lid < 6u {
        atomicStore(&face_low[lid], 31u);
        atomicStore(&face_high[lid], 0u);
    }
    if lid < 27u {
        around_slots[lid] = slot_at(slot, vec3<i32>(i32(lid % 3u), i32(lid / 3u % 3u), i32(lid / 9u)) - vec3<i32>(1));
    }
    level = workgroupUniformLoad(&shared_level);
    dim = params.chunk_size >> level;
    row_mask = select((1u << dim) - 1u, 0xffffffffu, dim == 32u);
    level_start = level_base(level);

    build_planes(lid);
    build_halo(lid);
    build_drawn_open(lid);
    workgroupBarrier();

    let face = 2u * axis + half;
    let a = (lid >> lanes_log2) & 31u;
    // This invocation's share of the slice's rows (a quarter or an eighth; one row each below
    // 4^3 or 8^3, none past dim).
    let row_count = max(dim >> lanes_log2, 1u);
    let first = min((lid & ((1u << lanes_log2) - 1u)) * row_count, dim);
    let end = min(first + row_count, dim);
    let meshing = a < dim && first < end;
    let across = drawn_neighbour(face);
    let f = SliceFace(face, across.x, across.y, a == select(0u, dim - 1u, face_is_positive(face)));
    var rows: OwnRows;
    var own = vec3<u32>(0u);
    if meshing {
        own = stack_rows(f, a, first, end, &rows);
    }
    if meshing && rows.low.x < 32u {
        let low = voxel_pos(axis, rows.low.x, rows.low.y, rows.low.z);
        let high = voxel_pos(axis, rows.high.x, rows.high.y, rows.high.z);
        for (var k = 0u; k < 3u; k++) {
            atomicMin(&face_low[3u * half + k], low[k]);
            atomicMax(&face_high[3u * half + k], high[k]);
        }
    }
    // Its first stream indices; once this returns, every row's runs are known, and the solid and
    // same-id planes give way to the continuing runs.
    let starts = face_starts(lid, half, own);
    if meshing {
        for (var v = first; v < end; v++) {
            planes[CONTINUES + 1024u * half + 32u * a + v] = rows.continues[v - first];
        }
    }
    if lid % face_group == 0u {
        granted[half] = allocate(pair_index + half, half);
    }
    // The page lists the writes read were just put in `faces`, and the continuing runs in
    // `planes`.
    storageBarrier();
    workgroupBarrier();
    if meshing && granted[half] != 0u {
        emit_rows(face, half, a, first, end, &rows, starts);
    }
}

// Pops the pages face `half` of the pair needs (its totals from `face_starts`) and records them
// with its counts and bounds; returns 1 when granted. On failure the face is left empty and the
// chunk dirty.
fn allocate(face_index: u32, half: u32) -> u32 {
    let packed = face_totals[half];
    let total = vec2<u32>(packed & 0xffffu, packed >> 16u);
    let skirts = face_skirts[half];
    var low = vec3<u32>(0u);
    var high = vec3<u32>(0u);
    for (var k = 0u; k < 3u; k++) {
        low[k] = atomicLoad(&face_low[3u * half + k]);
        high[k] = atomicLoad(&face_high[3u * half + k]);
    }
    let needed = (total.x + total.y + (1u << QUAD_PAGE_LOG2) - 1u) >> QUAD_PAGE_LOG2;
    var first = 0u;
    if needed > 0u {
        first = pop_pages(needed);
    }
    if first == NO_SLOT {
        atomicAdd(&allocator.failed_pages, needed);
        atomicOr(&links[slot].state, CHUNK_DIRTY);
        clear_face(face_index);
        return 0u;
    }
    for (var i = 0u; i < needed; i++) {
        let page = allocator.free[first + i];
        faces[face_index].pages[i] = page;
        page_owner[page] = slot;
    }
    faces[face_index].opaque = total.x;
    faces[face_index].transparent = total.y;
    faces[face_index].page_count = needed;
    faces[face_index].skirts = skirts;
    faces[face_index].bounds = select(0u, pack_bounds(low, high), total.x + total.y > 0u);
    return 1u;
}

// After the mesh pass: the pages granted leave the stack (refused requests took none).
@compute @workgroup_size(1)
fn commit() {
    let depth = atomicLoad(&allocator.free_count);
    atomicStore(&allocator.free_count, depth - atomicLoad(&allocator.granted));
    atomicStore(&allocator.popped, 0u);
    atomicStore(&allocator.granted, 0u);
}
