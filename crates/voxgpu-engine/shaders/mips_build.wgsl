// Mip pyramid, second half: builds the listed slots' levels 1..5. See mips.wgsl for the rule and
// the collect step. A separate file because the slot list is read here as a read-only binding
// (it is also this dispatch's indirect buffer).
//
// Reads:  mip_work (slot list), voxels (level 0, then each level as it is built), links, chunks.
// Writes: voxels (levels 1..5), links (DIRTY on neighbours that read these mips).
// Dispatch: indirect from mip_work[0..3], one workgroup of 256 per listed slot.


@group(0) @binding(0) var<storage, read> mip_work: array<u32>;
@group(0) @binding(1) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(2) var<storage, read_write> voxels: array<u32>;
// Read by `slot_at`: only drawn neighbours are followed.
@group(0) @binding(3) var<storage, read> chunks: array<ChunkMeta>;

// How many of a cell's 8 ids (4 low halves, 4 high halves of its words) equal `id`.
fn count_of(id: u32, low: vec4<u32>, high: vec4<u32>) -> u32 {
    let n = vec4<u32>(low == vec4<u32>(id)) + vec4<u32>(high == vec4<u32>(id));
    return n.x + n.y + n.z + n.w;
}

// Keeps `best` (id, count, offered from an upper child) unless `id` is more frequent among the
// four pairs' offers, or as frequent and offered from above where `best` is not, or equal in both
// and lower.
fn consider(best: vec3<u32>, id: u32, offers: vec4<u32>, from_upper: vec4<bool>) -> vec3<u32> {
    let same = offers == vec4<u32>(id);
    let n = vec4<u32>(same);
    let count = n.x + n.y + n.z + n.w;
    let upper = u32(any(same & from_upper));
    let better = count > best.y || (count == best.y && (upper > best.z || (upper == best.z && id < best.x)));
    if id != 0u && better {
        return vec3<u32>(id, count, upper);
    }
    return best;
}

// Twin of mips.rs `cell_block`, over the cell's ids as two vectors (x = 0 in `low`, x = 1 in
// `high`, each in the rows (dy, dz) = (0, 0), (1, 0), (0, 1), (1, 1)); no arrays, so everything
// stays in registers. Solid from 4 of 8 children or one full vertical pair; the block is the
// most frequent of what the four pairs show from above.
fn cell_block(low: vec4<u32>, high: vec4<u32>) -> u32 {
    // The pairs (x, z) = (0, 0), (0, 1), (1, 0), (1, 1): their lower and upper children.
    let lower = vec4<u32>(low.x, low.z, high.x, high.z);
    let upper = vec4<u32>(low.y, low.w, high.y, high.w);
    let from_upper = upper != vec4<u32>(0u);
    let full_pair = any((lower != vec4<u32>(0u)) & from_upper);
    if 8u - count_of(0u, low, high) < 4u && !full_pair {
        return 0u;
    }
    let offers = select(lower, upper, from_upper);
    var best = vec3<u32>(0u, 0u, 0u);
    best = consider(best, offers.x, offers, from_upper);
    best = consider(best, offers.y, offers, from_upper);
    best = consider(best, offers.z, offers, from_upper);
    best = consider(best, offers.w, offers, from_upper);
    return best.x;
}

// Cell `index` (x fastest) of a level of edge `size`, from the level below starting at word
// `below_start`. A cell's two x-neighbours below share one word, so it reads four words.
fn cell(below_start: u32, size: u32, index: u32) -> u32 {
    let below = 2u * size;
    let x = index % size;
    let y = (index / size) % size;
    let z = index / (size * size);
    let row = 2u * y + below * 2u * z;
    let first = below_start + (2u * x + below * row) / 2u;
    // Rows (dy, dz) = (0, 0), (1, 0), (0, 1), (1, 1) of the cell, each one word.
    let step_y = below / 2u;
    let step_z = below * below / 2u;
    let words = vec4<u32>(
        voxels[first],
        voxels[first + step_y],
        voxels[first + step_z],
        voxels[first + step_y + step_z],
    );
    return cell_block(words & vec4<u32>(0xffffu), words >> vec4<u32>(16u));
}

@compute @workgroup_size(256)
fn build(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let slot = mip_work[WORK_JOBS_OFFSET + group.x];
    let slot_start = slot * SLOT_WORDS;
    for (var level = 1u; level <= MAX_LEVEL; level++) {
        let size = CHUNK_SIZE >> level;
        let below_start = slot_start + level_base(level - 1u) / 2u;
        let start = slot_start + level_base(level) / 2u;
        // Two cells per word; the 1^3 level is one cell, its upper half air.
        let words = max(size * size * size / 2u, 1u);
        for (var w = lid; w < words; w += 256u) {
            var packed = cell(below_start, size, 2u * w);
            if size > 1u {
                packed |= cell(below_start, size, 2u * w + 1u) << 16u;
            }
            voxels[start + w] = packed;
        }
        // The next level reads what this one wrote.
        storageBarrier();
    }
    // A face or edge neighbour reads these mips when it is meshed at a coarser level (border
    // culling and ambient occlusion at its level), and a face neighbour when this chunk is drawn
    // at a coarser level than it (its skirts read this chunk's drawn level). Edits near level
    // 0's borders reach full-detail neighbours through the CPU already. The 26 offsets are
    // walked from lid 0..26 (corners find no slot).
    if lid < 27u && lid != 13u {
        let own = links[slot].lod;
        let coarse = own != 0u && own != LEVEL_UNSET;
        let offset = vec3<i32>(i32(lid % 3u), i32(lid / 3u % 3u), i32(lid / 9u)) - vec3<i32>(1);
        let neighbour = slot_at(slot, offset);
        if neighbour != NO_SLOT {
            let level = links[neighbour].lod;
            let is_face = dot(abs(offset), vec3<i32>(1)) == 1;
            if (coarse && is_face) || (level != 0u && level != LEVEL_UNSET) {
                atomicOr(&links[neighbour].state, CHUNK_DIRTY);
            }
        }
    }
}
