// Binary greedy mesher: both face directions of one axis of one node (a chunk, or a coarser
// level-of-detail node) per workgroup, at the node's selected mip level. Twin of
// crates/voxgpu-core/src/mesh/greedy.rs (`mesh_grid`), which it must match quad for quad. A node
// that is not drawn only empties its faces; neighbours that are not drawn count as absent
// (`link`).
//
// Reads:  params, work (jobs), voxels (the node's mip, and the same mip of its drawn face and
//         edge neighbours: border culling and ambient occlusion), links (neighbour slots, mips),
//         chunks (drawn, node level), opaque_bits (block opacity).
// Writes: quads and page_owner (the pages it allocates), faces (counts and page list), allocator
//         (pops pages; failed_pages on failure), links (state back to dirty on failure), chunks
//         (the level the quads are in, node level plus mip, which the draw scales them by).
// Dispatch: indirect from work[0..3] after the release pass: one workgroup of 64 invocations per
//           pair of jobs (the +axis and -axis faces of one chunk, jobs 2g and 2g + 1).
//           Invocation i meshes face (i >> 5) of the pair at slice (depth along the axis) i & 31.
//
// Level L meshes the (32 >> L)^3 grid: the same code with `dim` = 32 >> L as every loop bound,
// slices past `dim` idle. Where the neighbour is at another level, the opaque border faces it
// hides are emitted as skirts (see greedy.rs for why that closes every seam).
//
// Everything is kept as 32-bit rows in the axis's *plane* layout: row v of slice a holds bit u
// for the cell at depth a and tangent coordinates (u, v) (`voxel_pos`). Steps (1, 2 and the skirt
// rows in mesh_build.wgsl, the ambient occlusion planes in mesh_ao.wgsl):
// 1. `build_planes`: the level is read once in memory order (an X-row of ids per invocation and
//    step, four words at a time) into rows of solid, opaque, and same-id-as-the-next-cell bits;
//    for the X and Y axes, 32x32 bit transposes in shared memory turn them into that axis's
//    planes.
// 2. `build_halo`: the opaque cells just outside the chunk (face neighbours' layers, edge
//    neighbours' lines) as rows and columns of bits, for ambient occlusion and border culling.
// 3. `walk` (counting): each invocation streams its slice row by row. A row's visible faces are
//    a few bit operations (solid here, not opaque in front); its ambient occlusion is eight bit
//    planes, two per corner, from three rows of the layer in front (`ao_planes`); merge keys
//    (block, skirt, AO) are compared 32 faces at a time, block ids through the same-id planes.
//    The greedy merge keeps the open quads as bit masks and only ever looks at the current and
//    previous row (see `walk` for why that is the twin's row-major greedy merge).
// 4. One invocation sums the slices' counts, pops the pages each face needs and records them.
// 5. `walk` (emitting): the same walk again, writing each quad to its place in the face's
//    stream when it closes.
// Then `commit` (one invocation) takes the popped pages off the free stack.
// Meshing twice is cheaper than reserving worst-case space: the voxels stay in cache and the
// stream is exactly as long as it needs to be. Workgroup memory: 19,152 bytes as WebGPU counts it
// (`mesher::MESH_WORKGROUP_BYTES`, checked against this file by tests/shaders.rs).

@group(0) @binding(0) var<storage, read> work: array<u32>;
@group(0) @binding(1) var<storage, read> voxels: array<u32>;
@group(0) @binding(2) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(3) var<storage, read> opaque_bits: array<u32>;
@group(0) @binding(4) var<storage, read_write> quads: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> page_owner: array<u32>;
@group(0) @binding(6) var<storage, read_write> allocator: Allocator;
@group(0) @binding(7) var<storage, read_write> faces: array<FaceMesh>;
@group(0) @binding(8) var<uniform> params: PassParams;
@group(0) @binding(9) var<storage, read_write> chunks: array<ChunkMeta>;

// The axis's planes, row v of slice a at `plane(a, v)` in each 1024-word quarter:
// - PLANES_SOLID:   bit u is a solid (non-air) cell;
// - PLANES_OPAQUE:  bit u is an opaque cell;
// - PLANES_SAME_U:  bit u: cells u and u + 1 hold the same block id;
// - PLANES_SAME_V:  bit u: cells (u, v) and (u, v + 1) hold the same block id.
// The last two let the walks compare block ids 32 faces at a time, with no voxel reads.
const PLANES_SOLID: u32 = 0u;
const PLANES_OPAQUE: u32 = 1024u;
const PLANES_SAME_U: u32 = 2048u;
const PLANES_SAME_V: u32 = 3072u;
var<workgroup> planes: array<u32, 4096>;
// Opacity of block ids below OPAQUE_CACHED_IDS, copied from opaque_bits: the build tests two
// ids per word it reads.
const OPAQUE_CACHED_IDS: u32 = 2048u;
var<workgroup> opaque_cache: array<u32, 64>;

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
// come from it, with no voxel reads in the walks.
var<workgroup> drawn_open: array<u32, 64>;

// The slots around the chunk by offset ((x + 1) + 3 (y + 1) + 9 (z + 1), `slot_at`), looked up
// once per workgroup.
var<workgroup> around_slots: array<u32, 27>;
// The level being meshed, shared so that every invocation reads it as uniform.
var<workgroup> shared_level: u32;
// 1 when the pair only empties its faces (read as uniform, like `shared_level`).
var<workgroup> shared_skip: u32;
// Per invocation: quads counted (opaque, transparent), then each slice's first stream index.
var<workgroup> slice_counts: array<vec2<u32>, 64>;
var<workgroup> slice_starts: array<vec2<u32>, 64>;
var<workgroup> slice_skirts: array<u32, 64>;
// Bit f set when face f of the pair was granted its pages.
var<workgroup> granted: u32;

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

// Word of row `row` of 32x32 bit matrix `block` within each quarter of `planes`. Rows are rotated
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
    var word = 0u;
    if block < OPAQUE_CACHED_IDS {
        word = opaque_cache[block >> 5u];
    } else {
        word = opaque_bits[block >> 5u];
    }
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
    // Transparent faces whose next cell might be the same transparent block.
    var same_kind = 0u;
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
    }
    // Transparent next to transparent: hidden only when it is the same block.
    while same_kind != 0u {
        let u = firstTrailingBit(same_kind);
        same_kind &= same_kind - 1u;
        var next_id = 0u;
        if f.border {
            next_id = voxel(f.neighbour, voxel_pos(axis, select(dim - 1u, 0u, positive), u, v));
        } else {
            next_id = id_at(select(a - 1u, a + 1u, positive), u, v);
        }
        if next_id == id_at(a, u, v) {
            visible &= ~(1u << u);
        }
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

// Meshes one slice, row by row. Counts quads per kind (x opaque, y transparent) and skirt quads
// (z); when `emit`, also writes them from stream index `starts` on.
//
// The twin splits each slice's faces by key and merges each key's faces row-major: the lowest face
// left in the first non-empty row starts a quad, which grows along u over consecutive faces, then
// down over the rows that still hold the whole run. Quads only ever take faces of their own key,
// so doing all keys at once, in one row-major pass, gives the same quads. A quad started in row v
// can never find its run in a lower row taken by another quad: every quad started before it
// either ended above row v, or lies in other columns of row v, or covers row v in its own
// columns, and in the last two cases it cannot reach the run's columns below row v either. So a quad
// grows down exactly while every face under it in the next row is visible and has the key of
// the face above it, and the merge can stream: `open` marks the columns of quads still growing,
// `starts_at` their first column, `first_row` (5 bit planes) the row each began in. Per row, an
// open quad with any column that does not continue closes (and is written); the faces left start
// new quads, split into runs where the key changes along the row. Each quad costs one step to
// open and one to close; everything else is a fixed number of operations per row.
fn walk(face: u32, a: u32, emit: bool, starts: vec2<u32>) -> vec3<u32> {
    let positive = face_is_positive(face);
    let across = drawn_neighbour(face);
    let f = SliceFace(face, across.x, across.y, a == select(0u, dim - 1u, positive));
    let front = i32(a) + select(-1, 1, positive);
    var counts = vec3<u32>(0u);
    var open = 0u;
    var starts_at = 0u;
    var first_row_lo = vec4<u32>(0u);
    var first_row_hi = 0u;
    var prev_ao = AoPlanes(vec4<u32>(0u), vec4<u32>(0u));
    var prev_skirt = 0u;
    var cached_index = vec2<u32>(NO_SLOT);
    var cached_page = vec2<u32>(0u);
    // Rows v - 1 and v of the layer in front; row v + 1 is fetched at the top of each step.
    var below = vec3<u32>(0u);
    var here = vec3<u32>(0u);
    for (var row = -1; row < 1; row++) {
        below = here;
        here = front_row(front, row);
    }
    // Rows 0..dim, the last pass (v = dim) only closing what is still open.
    for (var v = 0u; v <= dim; v++) {
        var visible = 0u;
        var skirt = 0u;
        var ao = AoPlanes(vec4<u32>(0u), vec4<u32>(0u));
        var equal_right = 0u;
        // Bit u: face u continues the face above it (visible, same key).
        var continues = 0u;
        var above = vec3<u32>(0u);
        if v < dim {
            let row = visible_row(f, a, v);
            visible = row.x;
            skirt = row.y;
            above = front_row(front, i32(v) + 1);
        }
        if visible != 0u {
            ao = ao_planes(below, here, above);
            equal_right = planes[PLANES_SAME_U + plane(a, v)] & ao_equal_right(ao) & ~(skirt ^ (skirt >> 1u));
            if open != 0u {
                continues = visible & planes[PLANES_SAME_V + plane(a, v - 1u)] & ~(skirt ^ prev_skirt)
                    & ao_equal_rows(ao, prev_ao);
            }
        }
        // Close every open quad with a column that does not continue.
        var broken = open & ~continues;
        while broken != 0u {
            let column = firstTrailingBit(broken);
            let u = firstLeadingBit(starts_at & ((2u << column) - 1u));
            let run = run_from(u, starts_at | ~open);
            broken &= ~run.y;
            open &= ~run.y;
            starts_at &= ~(1u << u);
            if emit {
                let block = id_at(a, u, v - 1u);
                let bit_rows = vec4<u32>((first_row_lo >> vec4<u32>(u)) & vec4<u32>(1u));
                let v0 = bit_rows.x | (bit_rows.y << 1u) | (bit_rows.z << 2u) | (bit_rows.w << 3u)
                    | (((first_row_hi >> u) & 1u) << 4u);
                let opaque_quad = ((opaque_row(a, v - 1u) >> u) & 1u) != 0u;
                let index = select(starts.y + counts.y, starts.x + counts.x, opaque_quad);
                // The page of the stream index, looked up once per page and kind.
                let page_index = index >> QUAD_PAGE_LOG2;
                if page_index != select(cached_index.y, cached_index.x, opaque_quad) {
                    let looked_up = faces[slot * 6u + face].pages[page_index];
                    cached_page = select(vec2<u32>(cached_page.x, looked_up), vec2<u32>(looked_up, cached_page.y), opaque_quad);
                    cached_index = select(vec2<u32>(cached_index.x, page_index), vec2<u32>(page_index, cached_index.y), opaque_quad);
                }
                let page = select(cached_page.y, cached_page.x, opaque_quad);
                let in_page = index & ((1u << QUAD_PAGE_LOG2) - 1u);
                let is_skirt = ((prev_skirt >> u) & 1u) != 0u;
                quads[(page << QUAD_PAGE_LOG2) + in_page] = pack_quad(
                    voxel_pos(axis, a, u, v0), vec2<u32>(run.x, v - v0), face, block, is_skirt, ao_at(prev_ao, u));
                counts += vec3<u32>(u32(opaque_quad), u32(!opaque_quad), 0u);
            }
        }
        // Faces not under an open quad start new ones, one per run of equal keys.
        let fresh = visible & ~open;
        let linked = fresh & (fresh >> 1u) & equal_right;
        var new_starts = fresh & ~(linked << 1u);
        starts_at |= new_starts;
        while new_starts != 0u {
            let u = firstTrailingBit(new_starts);
            new_starts &= new_starts - 1u;
            let width = firstTrailingBit(~(linked >> u)) + 1u;
            let run = select(((1u << width) - 1u) << u, 0xffffffffu, width == 32u);
            open |= run;
            let bit = 1u << u;
            let row_bits = (vec4<u32>(v) >> vec4<u32>(0u, 1u, 2u, 3u)) & vec4<u32>(1u);
            first_row_lo = (first_row_lo & vec4<u32>(~bit)) | (row_bits * bit);
            first_row_hi = (first_row_hi & ~bit) | (((v >> 4u) & 1u) * bit);
            if !emit {
                let opaque_quad = ((opaque_row(a, v) >> u) & 1u) != 0u;
                counts += vec3<u32>(u32(opaque_quad), u32(!opaque_quad), (skirt >> u) & 1u);
            }
        }
        prev_ao = ao;
        prev_skirt = skirt;
        below = here;
        here = above;
    }
    return counts;
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
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let job = work[WORK_JOBS_OFFSET + 2u * group.x];
    let pair_index = job & ~JOB_RELEASE_ONLY;
    slot = pair_index / 6u;
    axis = face_axis(pair_index % 6u);
    skew = u32(axis != 0u);
    // A node that left, or one not drawn (its children or an ancestor stand in for it, and it is
    // not fading out), keeps no quads. The test is read through workgroup memory so that every invocation sees it as
    // uniform: the barriers below need uniform control flow, and a read of a read_write buffer
    // is not uniform to WGSL's analysis (Tint, in browsers, enforces it).
    if lid == 0u {
        shared_skip = u32((job & JOB_RELEASE_ONLY) != 0u || chunks[slot].shown == 0u);
    }
    if workgroupUniformLoad(&shared_skip) != 0u {
        if lid < 2u {
            clear_face(pair_index + lid);
        }
        return;
    }
    if lid == 0u {
        shared_level = min(links[slot].lod, MAX_LEVEL);
        chunks[slot].lod = chunks[slot].node_level + shared_level;
    }
    opaque_cache[lid] = opaque_bits[lid];
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

    let half = lid >> 5u;
    let face = 2u * axis + half;
    let a = lid & 31u;
    let meshing = a < dim;
    // Two walks through one call site (GL drivers inline every call): the first counts, the
    // second, once pages are granted, emits.
    var emit = false;
    var starts = vec2<u32>(0u, 0u);
    loop {
        var counts = vec3<u32>(0u);
        if meshing && (!emit || ((granted >> half) & 1u) != 0u) {
            counts = walk(face, a, emit, starts);
        }
        if emit {
            break;
        }
        slice_counts[lid] = counts.xy;
        slice_skirts[lid] = counts.z;
        workgroupBarrier();
        if lid == 0u {
            var both = 0u;
            for (var f = 0u; f < 2u; f++) {
                both |= allocate(pair_index + f, 32u * f) << f;
            }
            granted = both;
        }
        // The page lists the emitting walks read were just written to `faces`.
        storageBarrier();
        if workgroupUniformLoad(&granted) == 0u {
            break;
        }
        starts = slice_starts[lid];
        emit = true;
    }
}

// Sums the counts of the `dim` slices from `first_lid` into the stream layout (all opaque quads by
// slice, then all transparent quads by slice), pops the pages the face needs and records them;
// returns 1 when granted. On failure the face is left empty and the chunk dirty.
fn allocate(face_index: u32, first_lid: u32) -> u32 {
    var total = vec2<u32>(0u, 0u);
    var skirts = 0u;
    for (var s = 0u; s < dim; s++) {
        total += slice_counts[first_lid + s];
        skirts += slice_skirts[first_lid + s];
    }
    var next = vec2<u32>(0u, total.x);
    for (var s = 0u; s < dim; s++) {
        slice_starts[first_lid + s] = next;
        next += slice_counts[first_lid + s];
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
