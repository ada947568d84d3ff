// Mip pyramid, second half: builds the listed slots' levels 1..5. See mips.wgsl for the rule and
// the collect step. A separate file because the slot list is read here as a read-only binding
// (it is also this dispatch's indirect buffer).
//
// Reads:  mip_work (slot list), voxels (level 0, then each level as it is built), links.
// Writes: voxels (levels 1..5), links (DIRTY on coarse-level neighbours).
// Dispatch: indirect from mip_work[0..3], one workgroup of 64 per listed slot.


@group(0) @binding(0) var<storage, read> mip_work: array<u32>;
@group(0) @binding(1) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(2) var<storage, read_write> voxels: array<u32>;

// Twin of mips.rs `cell_block`.
fn cell_block(cell: array<u32, 8>) -> u32 {
    var ids = cell;
    var solid = 0u;
    for (var i = 0u; i < 8u; i++) {
        solid += u32(ids[i] != 0u);
    }
    if solid < 4u {
        return 0u;
    }
    var best = 0u;
    var best_count = 0u;
    for (var i = 0u; i < 8u; i++) {
        let candidate = ids[i];
        var count = 0u;
        for (var j = 0u; j < 8u; j++) {
            count += u32(ids[j] == candidate);
        }
        if candidate != 0u && (count > best_count || (count == best_count && candidate < best)) {
            best = candidate;
            best_count = count;
        }
    }
    return best;
}

// Cell `index` (x fastest) of a level of edge `size`, from the level below starting at word
// `below_start`. A cell's two x-neighbours below share one word, so it reads four words.
fn cell(below_start: u32, size: u32, index: u32) -> u32 {
    let below = 2u * size;
    let x = index % size;
    let y = (index / size) % size;
    let z = index / (size * size);
    var ids: array<u32, 8>;
    for (var i = 0u; i < 4u; i++) {
        let row = (2u * y + (i & 1u)) + below * (2u * z + (i >> 1u));
        let word = voxels[below_start + (2u * x + below * row) / 2u];
        ids[2u * i] = word & 0xffffu;
        ids[2u * i + 1u] = word >> 16u;
    }
    return cell_block(ids);
}

@compute @workgroup_size(64)
fn build(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let slot = mip_work[WORK_JOBS_OFFSET + group.x];
    let slot_start = slot * SLOT_WORDS;
    for (var level = 1u; level <= MAX_LEVEL; level++) {
        let size = CHUNK_SIZE >> level;
        let below_start = slot_start + level_base(level - 1u) / 2u;
        let start = slot_start + level_base(level) / 2u;
        // Two cells per word; the 1^3 level is one cell, its upper half air.
        let words = max(size * size * size / 2u, 1u);
        for (var w = lid; w < words; w += 64u) {
            var packed = cell(below_start, size, 2u * w);
            if size > 1u {
                packed |= cell(below_start, size, 2u * w + 1u) << 16u;
            }
            voxels[start + w] = packed;
        }
        // The next level reads what this one wrote.
        storageBarrier();
    }
    // Neighbours meshed at a coarser level read these mips across their border.
    if lid == 0u {
        for (var face = 0u; face < 6u; face++) {
            let neighbour = links[slot].neighbours[face];
            if neighbour != NO_SLOT {
                let level = links[neighbour].lod;
                if level != 0u && level != LEVEL_UNSET {
                    atomicOr(&links[neighbour].state, CHUNK_DIRTY);
                }
            }
        }
    }
}
