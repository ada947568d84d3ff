// Binary greedy mesher: one face direction of one chunk per workgroup, at the chunk's selected
// level of detail. Twin of src/mesh/greedy.rs (`mesh_grid`), which it must match quad for quad.
//
// Reads:  params, work (jobs), voxels (the chunk's level, and the same level of its face and edge
//         neighbours: border culling and ambient occlusion), links (neighbour slots, levels),
//         opaque_bits (block opacity).
// Writes: quads and page_owner (the pages it allocates), faces (counts and page list), allocator
//         (pops pages; failed_pages on failure), links (state back to dirty on failure), chunks
//         (the level the quads are in, which the draw scales them by).
// Dispatch: indirect from work[0..3] after the release pass, 32 invocations per workgroup; each
//           invocation owns one slice (depth along the face's axis).
//
// Level L meshes the (32 >> L)^3 grid: the same code with `dim` = 32 >> L as every loop bound,
// invocations past `dim` idle. Where the neighbour is at another level, the opaque border faces it
// hides are emitted as skirts (see greedy.rs for why that closes every seam).
//
// Steps, each a twin of a CPU function:
// 1. `build_columns`: solid and opaque u32 column bitmasks along the face's axis (shared memory).
// 2. `visible_column`: faces culled by shifts against the next voxel or the neighbour's border.
// 3. `mesh_slice` (counting): each slice transposes its bits out of the visible columns and
//    merges them greedily by key (block, skirt, ambient occlusion: `face_key`), counting quads.
// 4. One invocation sums the counts, pops the pages the face needs and records them.
// 5. `mesh_slice` (emitting): the same walk again, writing each quad to its place in the stream.
// Then `commit` (one invocation) takes the popped pages off the free stack.
// Meshing twice is cheaper than reserving worst-case space: the voxels stay in cache and the
// stream is exactly as long as it needs to be.

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

var<workgroup> solid_cols: array<u32, 1024>;
var<workgroup> opaque_cols: array<u32, 1024>;
var<workgroup> visible_cols: array<u32, 1024>;
// Per slice: quads counted (opaque, transparent), then each slice's first stream index.
var<workgroup> slice_counts: array<vec2<u32>, 32>;
var<workgroup> slice_starts: array<vec2<u32>, 32>;
var<workgroup> face_pages: array<u32, 128>;
var<workgroup> granted: u32;
// OR of all visible columns: bit s is set when slice s has any visible face.
var<workgroup> busy_slices: atomic<u32>;
// Row v of the border slice's skirt bits (bit u), and the face's skirt quad count.
var<workgroup> skirt_rows: array<atomic<u32>, 32>;
var<workgroup> skirt_quads: atomic<u32>;
// The slots around the chunk by offset ((x + 1) + 3 (y + 1) + 9 (z + 1), `slot_at`), looked up
// once per workgroup: ambient occlusion reads across borders and edges.
var<workgroup> around_slots: array<u32, 27>;

// Edge of the grid being meshed, 32 >> level, and the loop bound of every per-voxel loop. It is
// read from params.chunk_size at run time even at level 0: with constant bounds, GL drivers
// unroll the nested loops into a shader that llvmpipe needs minutes to compile (measured:
// 4.5 min); a bound it cannot see through keeps them loops.
var<private> dim: u32;
// The level being meshed and where it starts in a slot, in u16 ids.
var<private> level: u32;
var<private> level_start: u32;

// Once the visible columns exist (step 2), solid_cols is free: steps 3 and 5 reuse it as each
// slice's plane of faces not yet merged, row v of slice s at [v * 32 + s], so the 32
// invocations of a row touch 32 different banks.
// (Private arrays indexed at run time spill on GPUs, and GL drivers turn them into if-ladders
// that take llvmpipe a minute to compile.)
fn plane(slice: u32, v: u32) -> u32 {
    return solid_cols[v * 32u + slice];
}

fn set_plane(slice: u32, v: u32, bits: u32) {
    solid_cols[v * 32u + slice] = bits;
}


// The id at p of the level being meshed, in `slot`'s pyramid.
fn voxel(slot: u32, p: vec3<u32>) -> u32 {
    return voxel_in(slot, level_start, dim, p);
}

// The id at p of the level that starts at u16 `start` and is `size` on a side.
fn voxel_in(slot: u32, start: u32, size: u32, p: vec3<u32>) -> u32 {
    let i = start + p.x + size * (p.y + size * p.z);
    let word = voxels[slot * SLOT_WORDS + (i >> 1u)];
    return (word >> ((i & 1u) * 16u)) & 0xffffu;
}

fn is_opaque(block: u32) -> bool {
    return ((opaque_bits[block >> 5u] >> (block & 31u)) & 1u) != 0u;
}

// Whether the cell at depth `a`, tangent (u, v) along `axis` (grid coordinates of the level being
// meshed, each in -1..=dim) is an opaque block. Inside the chunk that is a bit of the opaque
// columns in shared memory (built for this axis in step 1 and left untouched after); outside,
// the voxel of the neighbour it falls into. Absent neighbours and corner chunks are open. Twin
// of greedy.rs `Surroundings::occludes`.
fn occludes(slot: u32, axis: u32, a: i32, u: i32, v: i32) -> bool {
    let size = i32(dim);
    if all(vec3<i32>(a, u, v) >= vec3<i32>(0)) && all(vec3<i32>(a, u, v) < vec3<i32>(size)) {
        return ((opaque_cols[u32(v) * 32u + u32(u)] >> u32(a)) & 1u) != 0u;
    }
    var p = vec3<i32>(u, v, a);
    if axis == 0u {
        p = vec3<i32>(a, u, v);
    } else if axis == 1u {
        p = vec3<i32>(v, a, u);
    }
    let offset = select(vec3<i32>(0), vec3<i32>(-1), p < vec3<i32>(0))
        + select(vec3<i32>(0), vec3<i32>(1), p >= vec3<i32>(size));
    let around = offset + vec3<i32>(1);
    let owner = around_slots[around.x + 3 * around.y + 9 * around.z];
    return owner != NO_SLOT && is_opaque(voxel(owner, vec3<u32>(p - offset * size)));
}

// Ambient occlusion of the face towards `face` of the cell at depth `slice`, tangent (u, v): 2
// bits per corner, corner k on the +u side when k & 1 and the +v side when k & 2; 3 is open, 0
// closed. From the three cells touching the corner in the layer in front of the face: both
// sides closed gives 0, else 3 minus the closed cells. Twin of greedy.rs `face_ao`. Unrolled:
// see mesh_slice on llvmpipe's loop budget.
fn face_ao(slot: u32, face: u32, slice: u32, u: u32, v: u32) -> u32 {
    if params.ambient_occlusion == 0u {
        return 0xffu;
    }
    let axis = face_axis(face);
    let front = vec3<i32>(i32(slice) + select(-1, 1, face_is_positive(face)), i32(u), i32(v));
    let a = u32(front.x);
    if front.x >= 0 && a < dim && u > 0u && u + 1u < dim && v > 0u && v + 1u < dim {
        // All eight cells around the front cell lie in this chunk: bit `a` of the eight
        // neighbouring opaque columns, the four corners at once.
        let c = v * 32u + u;
        let side_u = (vec4<u32>(opaque_cols[c - 1u], opaque_cols[c + 1u], opaque_cols[c - 1u], opaque_cols[c + 1u]) >> vec4<u32>(a)) & vec4<u32>(1u);
        let side_v = (vec4<u32>(opaque_cols[c - 32u], opaque_cols[c - 32u], opaque_cols[c + 32u], opaque_cols[c + 32u]) >> vec4<u32>(a)) & vec4<u32>(1u);
        let corner = (vec4<u32>(opaque_cols[c - 33u], opaque_cols[c - 31u], opaque_cols[c + 31u], opaque_cols[c + 33u]) >> vec4<u32>(a)) & vec4<u32>(1u);
        let value = select(vec4<u32>(3u) - side_u - side_v - corner, vec4<u32>(0u), (side_u & side_v) == vec4<u32>(1u));
        return value.x | (value.y << 2u) | (value.z << 4u) | (value.w << 6u);
    }
    // Faces on the chunk's rim: sample by sample, across the border where needed. (A loop,
    // not four inlined calls: GL drivers inline every call, and llvmpipe's compile time grows
    // with the code.)
    var ao = 0u;
    for (var k = 0u; k < 4u; k++) {
        let du = select(-1, 1, (k & 1u) != 0u);
        let dv = select(-1, 1, (k & 2u) != 0u);
        ao |= corner_ao(slot, axis, front, du, dv) << (2u * k);
    }
    return ao;
}

// The occlusion value of the face corner towards (du, dv) from the front cell (depth, u, v).
fn corner_ao(slot: u32, axis: u32, front: vec3<i32>, du: i32, dv: i32) -> u32 {
    let side_u = occludes(slot, axis, front.x, front.y + du, front.z);
    let side_v = occludes(slot, axis, front.x, front.y, front.z + dv);
    let corner = occludes(slot, axis, front.x, front.y + du, front.z + dv);
    if side_u && side_v {
        return 0u;
    }
    return 3u - u32(side_u) - u32(side_v) - u32(corner);
}

// Reads the level once, in memory order: for each z, invocation y loads the dim / 2 words of the
// X-row (y, z) and turns it into solid and opaque bits over x (invocations past dim load nothing). Those rows are the X columns as
// they stand; Y columns come from transposing the 32 rows of a z-layer through shared memory;
// Z columns gather one bit per layer. (Reading each column's voxels directly costs strided
// global loads, one after another: 62% of the mesher's time before this.)
var<workgroup> layer_solid: array<u32, 32>;
var<workgroup> layer_opaque: array<u32, 32>;

fn build_columns(slot: u32, axis: u32, lid: u32) {
    if axis == 2u {
        for (var x = 0u; x < 32u; x++) {
            solid_cols[lid * 32u + x] = 0u;
            opaque_cols[lid * 32u + x] = 0u;
        }
    }
    // Words per row; the 1^3 level is half a word, its upper id always air.
    let pairs = max(dim / 2u, 1u);
    for (var z = 0u; z < dim; z++) {
        let row = slot * SLOT_WORDS + (level_start >> 1u) + (lid + dim * z) * pairs;
        var solid = 0u;
        var opaque = 0u;
        for (var pair = 0u; pair < pairs && lid < dim; pair++) {
            let word = voxels[row + pair];
            let lo = word & 0xffffu;
            let hi = word >> 16u;
            solid |= (u32(lo != 0u) | (u32(hi != 0u) << 1u)) << (2u * pair);
            opaque |= (u32(is_opaque(lo)) | (u32(is_opaque(hi)) << 1u)) << (2u * pair);
        }
        if axis == 0u {
            // Column (u = y, v = z) is the row itself.
            solid_cols[z * 32u + lid] = solid;
            opaque_cols[z * 32u + lid] = opaque;
        } else if axis == 2u {
            // Column (u = x, v = y) gets bit z of every x. Invocations start at different x so
            // that they touch different banks.
            for (var i = 0u; i < dim; i++) {
                let x = (i + lid) & (dim - 1u);
                solid_cols[lid * 32u + x] |= ((solid >> x) & 1u) << z;
                opaque_cols[lid * 32u + x] |= ((opaque >> x) & 1u) << z;
            }
        }
        if axis == 1u {
            // Column (u = z, v = x) is bit x of the layer's 32 rows: a transpose, invocation x
            // gathering it.
            layer_solid[lid] = solid;
            layer_opaque[lid] = opaque;
        }
        workgroupBarrier();
        if axis == 1u {
            var column_solid = 0u;
            var column_opaque = 0u;
            for (var y = 0u; y < dim; y++) {
                column_solid |= ((layer_solid[y] >> lid) & 1u) << y;
                column_opaque |= ((layer_opaque[y] >> lid) & 1u) << y;
            }
            solid_cols[lid * 32u + z] = column_solid;
            opaque_cols[lid * 32u + z] = column_opaque;
        }
        workgroupBarrier();
    }
}

fn visible_column(slot: u32, neighbour: u32, face: u32, u: u32, v: u32) -> u32 {
    let col = v * 32u + u;
    let solid = solid_cols[col];
    if solid == 0u {
        return 0u;
    }
    let axis = face_axis(face);
    let positive = face_is_positive(face);
    let last = dim - 1u;
    let opaque_col = opaque_cols[col];
    let trans_col = solid & ~opaque_col;
    var border = 0u;
    if neighbour != NO_SLOT {
        border = voxel(neighbour, voxel_pos(axis, select(last, 0u, positive), u, v));
    }
    let border_opaque = u32(is_opaque(border));
    let border_trans = u32(border != 0u && border_opaque == 0u);
    var next_opaque = (opaque_col << 1u) | border_opaque;
    var next_trans = (trans_col << 1u) | border_trans;
    var border_bit = 1u;
    if positive {
        next_opaque = (opaque_col >> 1u) | (border_opaque << last);
        next_trans = (trans_col >> 1u) | (border_trans << last);
        border_bit = 1u << last;
    }
    var visible = solid & ~next_opaque;

    // Transparent next to transparent: hidden only when it is the same block.
    var same_kind = visible & trans_col & next_trans;
    while same_kind != 0u {
        let a = firstTrailingBit(same_kind);
        same_kind &= same_kind - 1u;
        var next = border;
        if positive && a < last {
            next = voxel(slot, voxel_pos(axis, a + 1u, u, v));
        } else if !positive && a > 0u {
            next = voxel(slot, voxel_pos(axis, a - 1u, u, v));
        }
        if next == voxel(slot, voxel_pos(axis, a, u, v)) {
            visible &= ~(1u << a);
        }
    }

    // A hidden border face whose neighbour, as drawn (at its own level), would expose it
    // becomes a skirt.
    if neighbour != NO_SLOT && (solid & border_bit & ~visible) != 0u {
        let drawn = min(links[neighbour].lod, MAX_LEVEL);
        let block = voxel(slot, voxel_pos(axis, select(0u, last, positive), u, v));
        if drawn != level && drawn_exposes(neighbour, drawn, face, u, v, block) {
            visible |= border_bit;
            atomicOr(&skirt_rows[v], 1u << u);
        }
    }
    return visible;
}

// Whether the neighbour drawn at level `drawn` leaves any part of the face of `block` at tangent
// cell (u, v) exposed: it covers several of the neighbour's cells when the neighbour is finer,
// part of one when coarser. Twin of greedy.rs `Border::drawn_exposes`.
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

// The merge key of the visible face at (u, v) of `slice`: block id (bits 0..16), skirt (bit 16),
// ambient occlusion (bits 17..25). Faces merge only when their keys are equal.
fn face_key(slot: u32, face: u32, slice: u32, u: u32, v: u32, has_skirts: bool) -> u32 {
    return block_and_skirt(slot, face, slice, u, v, has_skirts) | (face_ao(slot, face, slice, u, v) << 17u);
}

fn block_and_skirt(slot: u32, face: u32, slice: u32, u: u32, v: u32, has_skirts: bool) -> u32 {
    let block = voxel(slot, voxel_pos(face_axis(face), slice, u, v));
    var skirt = 0u;
    if has_skirts {
        skirt = (atomicLoad(&skirt_rows[v]) >> u) & 1u;
    }
    return block | (skirt << 16u);
}

// Whether the face at (u, v) has merge key `key`; ambient occlusion, the dear part, is only
// worked out for faces of the same block and skirt.
fn has_key(slot: u32, face: u32, slice: u32, u: u32, v: u32, has_skirts: bool, key: u32) -> bool {
    return block_and_skirt(slot, face, slice, u, v, has_skirts) == (key & 0x1ffffu)
        && face_ao(slot, face, slice, u, v) == (key >> 17u);
}

// How many faces from u on in row v, up to `most`, are left in the plane with merge key `key`.
fn run_with_key(slot: u32, face: u32, slice: u32, u: u32, v: u32, most: u32, has_skirts: bool, key: u32) -> u32 {
    let row = plane(slice, v);
    var n = 0u;
    while n < most && ((row >> (u + n)) & 1u) != 0u && has_key(slot, face, slice, u + n, v, has_skirts, key) {
        n++;
    }
    return n;
}

// Meshes one slice. Counts quads per kind (x opaque, y transparent); when `emit`, also writes
// them from stream index `starts` on.
//
// Greedy merge in row-major order: the lowest face left in the row starts a quad, which grows
// along u over consecutive faces with its key, then down over rows that hold the whole run with
// that key. greedy.rs `emit_slice` splits the plane by key first and merges each part with bit
// scans; the rectangles are the same, because a quad only ever consumes faces of its own key,
// and each key's faces are visited in the same row-major order either way. This form visits
// each face a bounded number of times however many keys there are, which matters: llvmpipe
// stops every loop of an invocation once their iterations add up to 65,535
// (LP_MAX_TGSI_LOOP_ITERATIONS, shared by all loops of a shader), and splitting by key costs
// keys x faces iterations, which ambient occlusion made exceed it.
fn mesh_slice(slot: u32, face: u32, slice: u32, emit: bool, starts: vec2<u32>) -> vec2<u32> {
    let axis = face_axis(face);
    let has_skirts = slice == select(0u, dim - 1u, face_is_positive(face));
    for (var v = 0u; v < dim; v++) {
        var row = 0u;
        for (var u = 0u; u < dim; u++) {
            row |= ((visible_cols[v * 32u + u] >> slice) & 1u) << u;
        }
        set_plane(slice, v, row);
    }
    var counts = vec2<u32>(0u, 0u);
    for (var v = 0u; v < dim; v++) {
        loop {
            let row = plane(slice, v);
            if row == 0u {
                break;
            }
            let u = firstTrailingBit(row);
            let key = face_key(slot, face, slice, u, v, has_skirts);
            let width = 1u + run_with_key(slot, face, slice, u + 1u, v, dim - u - 1u, has_skirts, key);
            let run = select(((1u << width) - 1u) << u, 0xffffffffu, width == 32u);
            set_plane(slice, v, row & ~run);
            var height = 1u;
            while v + height < dim && (plane(slice, v + height) & run) == run
                && run_with_key(slot, face, slice, u, v + height, width, has_skirts, key) == width {
                set_plane(slice, v + height, plane(slice, v + height) & ~run);
                height++;
            }
            let block = key & 0xffffu;
            let skirt = ((key >> 16u) & 1u) != 0u;
            let kind = select(1u, 0u, is_opaque(block));
            if emit {
                let index = starts[kind] + counts[kind];
                let page = face_pages[index >> QUAD_PAGE_LOG2];
                let in_page = index & ((1u << QUAD_PAGE_LOG2) - 1u);
                let min = voxel_pos(axis, slice, u, v);
                quads[(page << QUAD_PAGE_LOG2) + in_page] =
                    pack_quad(min, vec2<u32>(width, height), face, block, skirt, key >> 17u);
            } else if skirt {
                atomicAdd(&skirt_quads, 1u);
            }
            counts[kind] += 1u;
        }
    }
    return counts;
}

// Pops `count` pages; returns the index of the first in the free stack, or NO_SLOT when the
// stack is too shallow. No retry loop: contention costs one atomicAdd per workgroup. Once a
// request fails, every later one this frame fails too; they retry next frame, after the CPU has
// grown the pool.
fn pop_pages(count: u32) -> u32 {
    let start = atomicAdd(&allocator.popped, count);
    let depth = atomicLoad(&allocator.free_count);
    if start + count > depth {
        return NO_SLOT;
    }
    atomicMax(&allocator.granted, start + count);
    return depth - start - count;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let job = work[WORK_JOBS_OFFSET + group.x];
    let face_index = job & ~JOB_RELEASE_ONLY;
    let slot = face_index / 6u;
    let face = face_index % 6u;
    if (job & JOB_RELEASE_ONLY) != 0u {
        if lid == 0u {
            faces[face_index].opaque = 0u;
            faces[face_index].transparent = 0u;
            faces[face_index].page_count = 0u;
            faces[face_index].skirts = 0u;
        }
        return;
    }
    level = min(links[slot].lod, MAX_LEVEL);
    dim = params.chunk_size >> level;
    level_start = level_base(level);
    if lid == 0u {
        chunks[slot].lod = level;
    }

    if lid < 27u {
        around_slots[lid] = slot_at(slot, vec3<i32>(i32(lid % 3u), i32(lid / 3u % 3u), i32(lid / 9u)) - vec3<i32>(1));
    }
    build_columns(slot, face_axis(face), lid);
    workgroupBarrier();
    let neighbour = links[slot].neighbours[face];
    var busy = 0u;
    for (var k = 0u; k < dim; k++) {
        let col = k * 32u + lid;
        let visible = visible_column(slot, neighbour, face, lid, k);
        visible_cols[col] = visible;
        busy |= visible;
    }
    atomicOr(&busy_slices, busy);
    workgroupBarrier();
    // Slices with no visible face skip both walks (most slices of buried or sky-facing chunks).
    let has_faces = ((atomicLoad(&busy_slices) >> lid) & 1u) != 0u;

    // Two walks through one call site (GL drivers inline every call): the first counts, the
    // second, once pages are granted, emits.
    var emit = false;
    var starts = vec2<u32>(0u, 0u);
    loop {
        var counts = vec2<u32>(0u, 0u);
        if has_faces {
            counts = mesh_slice(slot, face, lid, emit, starts);
        }
        if emit {
            break;
        }
        slice_counts[lid] = counts;
        workgroupBarrier();
        if lid == 0u {
            allocate(slot, face_index);
        }
        if workgroupUniformLoad(&granted) == 0u {
            break;
        }
        starts = slice_starts[lid];
        emit = true;
    }
}

// Sums the slices' counts into the stream layout (all opaque quads by slice, then all
// transparent quads by slice), pops the pages the face needs and records them; on failure the
// face is left empty and the chunk dirty. Run by one invocation.
fn allocate(slot: u32, face_index: u32) {
    var total = vec2<u32>(0u, 0u);
    for (var s = 0u; s < dim; s++) {
        total += slice_counts[s];
    }
    var next = vec2<u32>(0u, total.x);
    for (var s = 0u; s < dim; s++) {
        slice_starts[s] = next;
        next += slice_counts[s];
    }
    let needed = (total.x + total.y + (1u << QUAD_PAGE_LOG2) - 1u) >> QUAD_PAGE_LOG2;
    var first = 0u;
    if needed > 0u {
        first = pop_pages(needed);
    }
    if first == NO_SLOT {
        atomicAdd(&allocator.failed_pages, needed);
        atomicOr(&links[slot].state, CHUNK_DIRTY);
        faces[face_index].opaque = 0u;
        faces[face_index].transparent = 0u;
        faces[face_index].page_count = 0u;
        faces[face_index].skirts = 0u;
        granted = 0u;
        return;
    }
    for (var i = 0u; i < needed; i++) {
        let page = allocator.free[first + i];
        face_pages[i] = page;
        faces[face_index].pages[i] = page;
        page_owner[page] = slot;
    }
    faces[face_index].opaque = total.x;
    faces[face_index].transparent = total.y;
    faces[face_index].page_count = needed;
    faces[face_index].skirts = atomicLoad(&skirt_quads);
    granted = 1u;
}

// After the mesh pass: the pages granted leave the stack (refused requests took none).
@compute @workgroup_size(1)
fn commit() {
    let depth = atomicLoad(&allocator.free_count);
    atomicStore(&allocator.free_count, depth - atomicLoad(&allocator.granted));
    atomicStore(&allocator.popped, 0u);
    atomicStore(&allocator.granted, 0u);
}
