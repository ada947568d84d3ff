// Binary greedy mesher: one face direction of one chunk per workgroup. Twin of
// src/mesh/greedy.rs (`mesh_chunk`), which it must match quad for quad.
//
// Reads:  params, work (jobs), voxels (the chunk and its neighbour across this face), links (neighbour
//         slots), opaque_bits (block opacity).
// Writes: quads and page_owner (the pages it allocates), faces (counts and page list), allocator
//         (pops pages; failed_pages on failure), links (state back to dirty on failure).
// Dispatch: indirect from work[0..3] after the release pass, 32 invocations per workgroup; each
//           invocation owns one slice (depth along the face's axis).
//
// Steps, each a twin of a CPU function:
// 1. `build_columns`: solid and opaque u32 column bitmasks along the face's axis (shared memory).
// 2. `visible_column`: faces culled by shifts against the next voxel or the neighbour's border.
// 3. `mesh_slice` (counting): each slice transposes its bits out of the visible columns, splits
//    them by block and merges greedily, counting quads.
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

// Loop bound of every 32-step loop, read from params.chunk_size (always 32) at run time. With
// constant bounds, GL drivers unroll the nested loops into a shader that llvmpipe needs minutes
// to compile (measured: 4.5 min); a bound it cannot see through keeps them loops.
var<private> dim: u32;

// Once the visible columns exist (step 2), the column arrays are free: steps 3 and 5 reuse
// solid_cols as each slice's visible plane and opaque_cols as the part of it with one block,
// row v of slice s at [v * 32 + s], so the 32 invocations of a row touch 32 different banks.
// (Private arrays indexed at run time spill on GPUs, and GL drivers turn them into if-ladders
// that take llvmpipe a minute to compile.)
fn plane(slice: u32, v: u32) -> u32 {
    return solid_cols[v * 32u + slice];
}

fn set_plane(slice: u32, v: u32, bits: u32) {
    solid_cols[v * 32u + slice] = bits;
}

fn same(slice: u32, v: u32) -> u32 {
    return opaque_cols[v * 32u + slice];
}

fn set_same(slice: u32, v: u32, bits: u32) {
    opaque_cols[v * 32u + slice] = bits;
}

fn voxel(slot: u32, p: vec3<u32>) -> u32 {
    let i = p.x + 32u * (p.y + 32u * p.z);
    let word = voxels[slot * SLOT_WORDS + (i >> 1u)];
    return (word >> ((i & 1u) * 16u)) & 0xffffu;
}

fn is_opaque(block: u32) -> bool {
    return ((opaque_bits[block >> 5u] >> (block & 31u)) & 1u) != 0u;
}

// Reads the chunk once, in memory order: for each z, invocation y loads the 16 words of the
// X-row (y, z) and turns it into solid and opaque bits over x. Those rows are the X columns as
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
    for (var z = 0u; z < params.chunk_size; z++) {
        let row = slot * SLOT_WORDS + (lid + 32u * z) * 16u;
        var solid = 0u;
        var opaque = 0u;
        for (var pair = 0u; pair < 16u; pair++) {
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
            for (var i = 0u; i < 32u; i++) {
                let x = (i + lid) & 31u;
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
            for (var y = 0u; y < 32u; y++) {
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
    let opaque_col = opaque_cols[col];
    let trans_col = solid & ~opaque_col;
    var border = 0u;
    if neighbour != NO_SLOT {
        border = voxel(neighbour, voxel_pos(axis, select(31u, 0u, positive), u, v));
    }
    let border_opaque = u32(is_opaque(border));
    let border_trans = u32(border != 0u && border_opaque == 0u);
    var next_opaque = (opaque_col << 1u) | border_opaque;
    var next_trans = (trans_col << 1u) | border_trans;
    if positive {
        next_opaque = (opaque_col >> 1u) | (border_opaque << 31u);
        next_trans = (trans_col >> 1u) | (border_trans << 31u);
    }
    var visible = solid & ~next_opaque;

    // Transparent next to transparent: hidden only when it is the same block.
    var same_kind = visible & trans_col & next_trans;
    while same_kind != 0u {
        let a = firstTrailingBit(same_kind);
        same_kind &= same_kind - 1u;
        var next = border;
        if positive && a < 31u {
            next = voxel(slot, voxel_pos(axis, a + 1u, u, v));
        } else if !positive && a > 0u {
            next = voxel(slot, voxel_pos(axis, a - 1u, u, v));
        }
        if next == voxel(slot, voxel_pos(axis, a, u, v)) {
            visible &= ~(1u << a);
        }
    }
    return visible;
}

// Meshes one slice. Counts quads per kind (x opaque, y transparent); when `emit`, also writes
// them from stream index `starts` on.
fn mesh_slice(slot: u32, face: u32, slice: u32, emit: bool, starts: vec2<u32>) -> vec2<u32> {
    let axis = face_axis(face);
    for (var v = 0u; v < dim; v++) {
        var row = 0u;
        for (var u = 0u; u < dim; u++) {
            row |= ((visible_cols[v * 32u + u] >> slice) & 1u) << u;
        }
        set_plane(slice, v, row);
    }
    var counts = vec2<u32>(0u, 0u);
    var v0 = 0u;
    loop {
        while v0 < dim && plane(slice, v0) == 0u {
            v0++;
        }
        if v0 == dim {
            break;
        }
        // Split off every face of the first face's block (emit_slice in greedy.rs).
        let block = voxel(slot, voxel_pos(axis, slice, firstTrailingBit(plane(slice, v0)), v0));
        for (var v = v0; v < dim; v++) {
            let row = plane(slice, v);
            var bits = row;
            var matching = 0u;
            while bits != 0u {
                let u = firstTrailingBit(bits);
                bits &= bits - 1u;
                if voxel(slot, voxel_pos(axis, slice, u, v)) == block {
                    matching |= 1u << u;
                }
            }
            set_same(slice, v, matching);
            set_plane(slice, v, row & ~matching);
        }
        let kind = select(1u, 0u, is_opaque(block));

        // Greedy merge (merge_plane in greedy.rs).
        for (var v = v0; v < dim; v++) {
            var row = same(slice, v);
            while row != 0u {
                let u = firstTrailingBit(row);
                let width = countTrailingZeros(~(row >> u));
                let run = select(((1u << width) - 1u) << u, 0xffffffffu, width == 32u);
                row &= ~run;
                var height = 1u;
                while v + height < dim && (same(slice, v + height) & run) == run {
                    set_same(slice, v + height, same(slice, v + height) & ~run);
                    height++;
                }
                if emit {
                    let index = starts[kind] + counts[kind];
                    let page = face_pages[index >> QUAD_PAGE_LOG2];
                    let in_page = index & ((1u << QUAD_PAGE_LOG2) - 1u);
                    let min = voxel_pos(axis, slice, u, v);
                    quads[(page << QUAD_PAGE_LOG2) + in_page] = pack_quad(min, vec2<u32>(width, height), face, block);
                }
                counts[kind] += 1u;
            }
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
    dim = params.chunk_size;
    let job = work[WORK_JOBS_OFFSET + group.x];
    let face_index = job & ~JOB_RELEASE_ONLY;
    let slot = face_index / 6u;
    let face = face_index % 6u;
    if (job & JOB_RELEASE_ONLY) != 0u {
        if lid == 0u {
            faces[face_index].opaque = 0u;
            faces[face_index].transparent = 0u;
            faces[face_index].page_count = 0u;
        }
        return;
    }

    build_columns(slot, face_axis(face), lid);
    workgroupBarrier();
    let neighbour = links[slot].neighbours[face];
    var busy = 0u;
    for (var k = 0u; k < dim; k++) {
        let col = k * 32u + lid;
        let visible = visible_column(slot, neighbour, face, col & 31u, col >> 5u);
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
        links[slot].state = CHUNK_DIRTY;
        faces[face_index].opaque = 0u;
        faces[face_index].transparent = 0u;
        faces[face_index].page_count = 0u;
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
