// The mesher's build steps (part of mesh.wgsl, which includes this file): the axis's bit planes from
// one read of the level, the halo of opaque cells around the chunk, and the skirt rows of the
// border faces. They run once per workgroup, before the walks; mesh.wgsl declares the workgroup
// memory they fill and the per-workgroup values (`dim`, `axis`, `slot`, `level`) they read.

// Grid position (x, y, z) of the cell at (a, u, v) of this axis, any of them possibly -1 or dim.
fn grid_pos(c: vec3<i32>) -> vec3<i32> {
    if axis == 0u {
        return c;
    }
    if axis == 1u {
        return vec3<i32>(c.z, c.x, c.y);
    }
    return vec3<i32>(c.y, c.z, c.x);
}

// One X-row's bits over x as the build gathers them, two ids (one word) at a time.
struct RowBits {
    solid: u32,
    opaque: u32,
    // Bit x: cell x holds the same id as cell x + 1 along x, y or z (y and z only where the axis
    // being meshed compares along them).
    same_x: u32,
    same_y: u32,
    same_z: u32,
    // The upper id of the last word added.
    previous: u32,
}

fn word_in_row(at: u32, inside: bool) -> u32 {
    if inside {
        return voxels[at];
    }
    return 0u;
}

// Words at..at + 3, which are pairs `pair`.. of a row of `pairs`; air past the row or where not
// `wanted`.
fn words4(at: u32, pair: u32, pairs: u32, wanted: bool) -> vec4<u32> {
    return vec4<u32>(word_in_row(at, wanted && pair < pairs), word_in_row(at + 1u, wanted && pair + 1u < pairs),
        word_in_row(at + 2u, wanted && pair + 2u < pairs), word_in_row(at + 3u, wanted && pair + 3u < pairs));
}

// Adds word `pair` of a row (ids 2 pair and 2 pair + 1), with the same word of the next rows
// along y and z.
fn add_pair(bits: RowBits, pair: u32, word: u32, word_y: u32, word_z: u32) -> RowBits {
    var b = bits;
    let lo = word & 0xffffu;
    let hi = word >> 16u;
    let shift = 2u * pair;
    b.solid |= (u32(lo != 0u) | (u32(hi != 0u) << 1u)) << shift;
    b.opaque |= (u32(is_opaque(lo)) | (u32(is_opaque(hi)) << 1u)) << shift;
    // The word's own two ids, and its first id against the previous word's second.
    b.same_x |= u32(lo == hi) << shift;
    if pair > 0u {
        b.same_x |= u32(lo == b.previous) << (shift - 1u);
    }
    b.previous = hi;
    let diff_y = word ^ word_y;
    let diff_z = word ^ word_z;
    b.same_y |= (u32((diff_y & 0xffffu) == 0u) | (u32((diff_y >> 16u) == 0u) << 1u)) << shift;
    b.same_z |= (u32((diff_z & 0xffffu) == 0u) | (u32((diff_z >> 16u) == 0u) << 1u)) << shift;
    return b;
}

// Step 1. Invocation i reads X-rows i, i + 256, ... (row y + dim z, dim / 2 words each) and, for
// the id comparison along u, the row after it along y (X axis) or z (Y axis). Each row becomes
// bits over x (solid, opaque, same id as the next cell along u), stored as row y of matrix z (Z
// and X axes) or row z of matrix y (Y axis). The Z planes are those rows as they stand; the X and
// Y planes are each matrix transposed in place.
fn build_planes(lid: u32) {
    // Levels below 32^3 fill only part of each matrix. (Every barrier here is reached by every
    // invocation whatever the level and axis, as WGSL's uniformity rules ask.)
    for (var i = lid; i < 3072u; i += GROUP) {
        planes[i] = 0u;
    }
    workgroupBarrier();
    // Words per row; the 1^3 level is half a word, its upper id always air.
    let pairs = max(dim / 2u, 1u);
    let base = slot * SLOT_WORDS + (level_start >> 1u);
    // Which neighbouring row this axis compares with along u: u is y for X, z for Y, x for Z.
    let need_y = axis == 0u;
    let need_z = axis == 1u;
    for (var r = lid; r < dim * dim; r += GROUP) {
        let y = r % dim;
        let z = r / dim;
        let has_y = need_y && y + 1u < dim;
        let has_z = need_z && z + 1u < dim;
        var bits = RowBits(0u, 0u, 0u, 0u, 0u, 0u);
        // Four words (eight ids) per step, with the same words of the next rows along y and
        // z, all loaded before any is used, so that their latencies overlap; words past the row
        // read as air, their bits past dim.
        for (var pair = 0u; pair < pairs; pair += 4u) {
            let at = base + r * pairs + pair;
            let w = words4(at, pair, pairs, true);
            let wy = words4(at + pairs, pair, pairs, has_y);
            let wz = words4(at + pairs * dim, pair, pairs, has_z);
            bits = add_pair(bits, pair, w.x, wy.x, wz.x);
            bits = add_pair(bits, pair + 1u, w.y, wy.y, wz.y);
            bits = add_pair(bits, pair + 2u, w.z, wy.z, wz.z);
            bits = add_pair(bits, pair + 3u, w.w, wy.w, wz.w);
        }
        var s = bits.solid;
        var o = bits.opaque;
        var same_x = bits.same_x;
        var same_y = bits.same_y;
        var same_z = bits.same_z;
        // The last cell of a row has nothing after it; dim 1 has no pair partner.
        same_x &= row_mask >> 1u;
        if !has_y {
            same_y = 0u;
        }
        if !has_z {
            same_z = 0u;
        }
        var at = cell(z, y);
        var same_u = same_x;
        if axis == 0u {
            same_u = same_y;
        } else if axis == 1u {
            at = cell(y, z);
            same_u = same_z;
        }
        planes[PLANES_SOLID + at] = s & row_mask;
        planes[PLANES_OPAQUE + at] = o & row_mask;
        planes[PLANES_SAME_U + at] = same_u & row_mask;
    }
    // For the X and Y axes, an in-place transpose of each 32x32 matrix (bit c of row r <-> bit r
    // of row c): at stage j, rows k and k + j (k without bit j) swap the j x j blocks off the
    // diagonal. Item: plane (0..3), matrix (5 bits), row pair (4 bits).
    var j = 16u;
    var m = 0x0000ffffu;
    for (var stage = 0u; stage < 5u; stage++) {
        workgroupBarrier();
        let lg = 4u - stage;
        for (var item = lid; item < 3u * 512u && axis != 2u; item += GROUP) {
            let block = (item >> 4u) & 31u;
            if block >= dim {
                continue;
            }
            let third = (item >> 9u) * 1024u;
            let q = item & 15u;
            let k = ((q >> lg) << (lg + 1u)) | (q & (j - 1u));
            let lo_at = third + cell(block, k);
            let hi_at = third + cell(block, k + j);
            let t = ((planes[lo_at] >> j) ^ planes[hi_at]) & m;
            planes[hi_at] ^= t;
            planes[lo_at] ^= t << j;
        }
        j >>= 1u;
        m ^= m << j;
    }
}

// Step 2: each halo word is a line of dim cells, one invocation per word. A line lies in one
// chunk, the neighbour it falls into (absent neighbours and corner chunks leave it open, as in
// the twin's `Surroundings::occludes`), so that chunk is looked up once per line.
fn build_halo(lid: u32) {
    let size = i32(dim);
    for (var w = lid; w < HALO_WORDS; w += GROUP) {
        // The fixed coordinates of the word's cells and which one varies (0 a, 1 u, 2 v).
        var fixed = vec3<i32>(0);
        var varies = 0u;
        var used = true;
        if w < HALO_UPAD {
            let s = (w - HALO_AOUT) >> 5u;
            fixed = vec3<i32>(select(-1, size, s == 1u), 0, i32(w & 31u));
            varies = 1u;
            used = (w & 31u) < dim;
        } else if w < HALO_VROW {
            let s = (w - HALO_UPAD) >> 5u;
            fixed = vec3<i32>(0, select(-1, size, s == 1u), i32(w & 31u));
            varies = 0u;
            used = (w & 31u) < dim;
        } else if w < HALO_AU {
            let s = (w - HALO_VROW) >> 5u;
            fixed = vec3<i32>(i32(w & 31u), 0, select(-1, size, s == 1u));
            varies = 1u;
            used = (w & 31u) < dim;
        } else {
            let e = (w - HALO_AU) & 3u;
            let first = select(-1, size, (e >> 1u) == 1u);
            let second = select(-1, size, (e & 1u) == 1u);
            if w < HALO_AV {
                fixed = vec3<i32>(first, second, 0);
                varies = 2u;
            } else if w < HALO_UV {
                fixed = vec3<i32>(first, 0, second);
                varies = 1u;
            } else {
                fixed = vec3<i32>(0, first, second);
                varies = 0u;
            }
        }
        let p = grid_pos(fixed);
        let offset = select(vec3<i32>(0), vec3<i32>(-1), p < vec3<i32>(0))
            + select(vec3<i32>(0), vec3<i32>(1), p >= vec3<i32>(size));
        let around = offset + vec3<i32>(1);
        let owner = around_slots[around.x + 3 * around.y + 9 * around.z];
        let start = vec3<u32>(p - offset * size);
        let step = vec3<u32>(grid_pos(vec3<i32>(vec3<u32>(varies) == vec3<u32>(0u, 1u, 2u))));
        var bits = 0u;
        // Four cells per step, so that their loads are in flight together (cells past dim
        // repeat the last one and are masked off).
        for (var i = 0u; i < dim && used && owner != NO_SLOT; i += 4u) {
            let last = dim - 1u;
            let at = vec4<u32>(min(i, last), min(i + 1u, last), min(i + 2u, last), min(i + 3u, last));
            let ids = vec4<u32>(voxel(owner, start + step * at.x), voxel(owner, start + step * at.y),
                voxel(owner, start + step * at.z), voxel(owner, start + step * at.w));
            bits |= opaque4(ids) << i;
        }
        halo[w] = bits & row_mask;
    }
}

// The drawn neighbour across `face` and the mip level it is drawn at (the level being meshed
// when there is none).
fn drawn_neighbour(face: u32) -> vec2<u32> {
    let neighbour = link(slot, face);
    if neighbour == NO_SLOT {
        return vec2<u32>(NO_SLOT, level);
    }
    return vec2<u32>(neighbour, min(links[neighbour].lod, MAX_LEVEL));
}

// Step 2b: invocation i < 64 works out `drawn_open[i]`: row i & 31 of the -axis face for i < 32,
// of the +axis face for the others. Each face cell covers several of the neighbour's cells when
// the neighbour is finer, part of one when coarser (greedy.rs `drawn_exposes`, for an opaque block).
fn build_drawn_open(lid: u32) {
    if lid >= 64u {
        return;
    }
    let face = 2u * axis + 1u - (lid >> 5u);
    let v = lid & 31u;
    let across = drawn_neighbour(face);
    var bits = 0u;
    if across.x != NO_SLOT && across.y != level && v < dim {
        let size = params.chunk_size >> across.y;
        let start = level_base(across.y);
        let depth = select(size - 1u, 0u, face_is_positive(face));
        let v_low = v * size / dim;
        let v_high = max((v + 1u) * size / dim, v_low + 1u);
        for (var u = 0u; u < dim; u++) {
            let u_low = u * size / dim;
            let u_high = max((u + 1u) * size / dim, u_low + 1u);
            var open = false;
            for (var dv = v_low; dv < v_high && !open; dv++) {
                for (var du = u_low; du < u_high && !open; du++) {
                    open = !is_opaque(voxel_in(across.x, start, size, voxel_pos(axis, depth, du, dv)));
                }
            }
            bits |= u32(open) << u;
        }
    }
    drawn_open[lid] = bits;
}
