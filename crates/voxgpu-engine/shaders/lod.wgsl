// Level-of-detail selection, in two dispatches over every slot. Twin of
// crates/voxgpu-core/src/lod.rs (`LodSettings::split`, `LodSettings::node_mip`, `select_nodes`),
// which must decide the same.
//
// 1. `decide_split`: a level-N node (N > 0) is split when it is nearer than the distance where
//    level N begins, with hysteresis: its children are wanted in its place.
// 2. `decide_shown`: a node is drawn (`shown`) unless it is split with every child column
//    generated (then its children are drawn), and only where its parent is split with every
//    child column generated (else the parent is drawn). A node whose parent is all air (no slot)
//    below the top level takes the parent as split by distance alone. Parent and children read
//    the same split bit and the same readiness (the CPU sets CHILDREN_READY on a node exactly
//    when it sets SIBLINGS_READY on its children), so each place is drawn by exactly one level.
//    Then the mip level the node is meshed at, from its distance with hysteresis, and the
//    cross-fade: a node whose shown bit changes fades over fade_frames frames (a fading-out
//    node keeps its quads and is drawn through the dither until its fade ends). A node new to
//    its slot fades in only where its parent was shown the frame before.
//
// Reads:  params (slot_count), lod_params (eye, thresholds, hysteresis, top level), chunks
//         (origins, levels, parents), links (state bits).
// Writes: chunks (flags, shown), links (lod; DIRTY on the node when it is shown or hidden or its
//         level changes, and on its face and edge neighbours, whose meshes read it; DIRTY on a
//         node whose fade out ends, so the mesher frees its pages, and on its neighbours), lod_counts (shown nodes per
//         absolute level, then the nodes fading, for stats and settling).
// Dispatch: every frame before the mip and mesh passes, one invocation per slot, 64 per
//           workgroup, `decide_split` then `decide_shown`. The CPU zeroes lod_counts before.
//
// Nothing is read back to decide: a change goes straight onto the mesher's work list.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> lod_params: LodParams;
@group(0) @binding(2) var<storage, read_write> chunks: array<ChunkMeta>;
@group(0) @binding(3) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(4) var<storage, read_write> lod_counts: array<atomic<u32>, LOD_COUNT_WORDS>;

// lod_counts: shown nodes per absolute level, then the nodes fading.
const LOD_COUNT_WORDS: u32 = LEVEL_THRESHOLDS + 1u;
const LOD_COUNT_FADING: u32 = LEVEL_THRESHOLDS;

// Distance from the eye to the nearest point of the cube [low, low + size].
fn box_distance(low: vec3<f32>, size: f32) -> f32 {
    let high = low + vec3<f32>(size);
    let gap = max(max(low - lod_params.eye, lod_params.eye - high), vec3<f32>(0.0));
    return sqrt(gap.x * gap.x + gap.y * gap.y + gap.z * gap.z);
}

// Distance from the eye to the node's box. Boxes and eye are measured from the anchor: the
// differences are those of world coordinates, rounded once, so they equal the CPU twin's
// world-space differences bit for bit (both operands of every subtraction are exact).
fn node_distance(record: ChunkMeta) -> f32 {
    return box_distance(anchored(record.origin, lod_params.anchor), node_size(record));
}

// Distance from the eye to the parent's box (twice the size, aligned: the origin rounded down to
// a multiple of the power-of-two size, in integers).
fn parent_distance(record: ChunkMeta) -> f32 {
    let size = 2 * (i32(CHUNK_SIZE) << record.node_level);
    let parent = record.origin & vec3<i32>(-size);
    return box_distance(anchored(parent, lod_params.anchor), f32(size));
}

// The level for a distance with no history: how many thresholds lie at or below it, within
// [lowest, highest].
fn plain_level(distance: f32, lowest: u32, highest: u32) -> u32 {
    var level = lowest;
    while level < highest && distance >= lod_params.thresholds[level] {
        level++;
    }
    return level;
}

// Keeps `current` while the distance stays inside its band widened by the hysteresis.
fn select_level(distance: f32, current: u32, lowest: u32, highest: u32) -> u32 {
    if current >= lowest && current <= highest {
        var low = 0.0;
        if current > lowest {
            low = lod_params.thresholds[current - 1u] * (1.0 - lod_params.hysteresis);
        }
        let bounded = current < highest;
        var high = 0.0;
        if bounded {
            high = lod_params.thresholds[current] * (1.0 + lod_params.hysteresis);
        }
        if distance >= low && (!bounded || distance < high) {
            return current;
        }
    }
    return plain_level(distance, lowest, highest);
}

fn is_resident(slot: u32) -> bool {
    return slot < params.slot_count && (atomicLoad(&links[slot].state) & CHUNK_RESIDENT) != 0u;
}

@compute @workgroup_size(64)
fn decide_split(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if !is_resident(slot) {
        return;
    }
    let record = chunks[slot];
    var split = false;
    if record.node_level > 0u {
        let begins = lod_params.thresholds[record.node_level - 1u];
        let distance = node_distance(record);
        if (record.flags & NODE_SELECTED) == 0u {
            split = distance < begins;
        } else if (record.flags & NODE_SPLIT) != 0u {
            split = distance < begins * (1.0 + lod_params.hysteresis);
        } else {
            split = distance < begins * (1.0 - lod_params.hysteresis);
        }
    }
    // The snapshot decide_shown reads of this node as a parent, and whether this is its first
    // decision.
    let was_shown = select(0u, NODE_WAS_SHOWN, (record.shown & DRAW_SHOWN) != 0u);
    let first = select(NODE_NEW, 0u, (record.flags & NODE_SELECTED) != 0u);
    chunks[slot].flags = NODE_SELECTED | select(0u, NODE_SPLIT, split) | was_shown | first;
}

// Twin of lod::next_fade: the frames left of a fade after this frame. A change starts one, a
// change back during one mirrors it, so each level's share of the pixels goes on from where it
// was. A fade longer than total (the setting changed during it) goes on with total frames left.
fn next_fade(total: u32, changed: bool, fades: bool, left_before: u32) -> u32 {
    let left = min(left_before, total);
    if !changed {
        return max(left, 1u) - 1u;
    }
    if !fades || total == 0u {
        return 0u;
    }
    if left > 0u {
        return total + 1u - left;
    }
    return total;
}

// Marks the face and edge neighbours of `slot` dirty (edges through either face neighbour).
fn mark_around(slot: u32) {
    for (var face = 0u; face < 6u; face++) {
        let neighbour = links[slot].neighbours[face];
        if neighbour == NO_SLOT {
            continue;
        }
        atomicOr(&links[neighbour].state, CHUNK_DIRTY);
        for (var other = 0u; other < 6u; other++) {
            let edge = links[neighbour].neighbours[other];
            if (other >> 1u) != (face >> 1u) && edge != NO_SLOT {
                atomicOr(&links[edge].state, CHUNK_DIRTY);
            }
        }
    }
}

@compute @workgroup_size(64)
fn decide_shown(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if !is_resident(slot) {
        // A departed node's slot draws nothing from the frame after its removal, even while its
        // pages wait for the release pass.
        if slot < params.slot_count {
            chunks[slot].shown = 0u;
        }
        return;
    }
    let record = chunks[slot];
    let state = atomicLoad(&links[slot].state);
    let replaced = (record.flags & NODE_SPLIT) != 0u && (state & CHUNK_CHILDREN_READY) != 0u;
    let siblings_ready = (state & CHUNK_SIBLINGS_READY) != 0u;
    var covered = false;
    if record.parent != NO_SLOT {
        let parent_split = (chunks[record.parent].flags & NODE_SPLIT) != 0u;
        covered = !(parent_split && siblings_ready);
    } else if record.node_level < lod_params.top_level {
        // The parent is all air (no slot): it is split by its distance alone, and where it is
        // not, the level above it draws the place (the air the parent stands for).
        let parent_split = parent_distance(record) < lod_params.thresholds[record.node_level];
        covered = !(parent_split && siblings_ready);
    }
    let shown = !replaced && !covered;

    let current_mip = links[slot].lod;
    var current = LEVEL_UNSET;
    if current_mip != LEVEL_UNSET {
        current = record.node_level + current_mip;
    }
    let highest = min(record.node_level + lod_params.max_level, LEVEL_THRESHOLDS - 1u);
    let level = select_level(node_distance(record), current, record.node_level, highest);
    let mip = level - record.node_level;
    let was_shown = (record.shown & DRAW_SHOWN) != 0u;
    let left_before = fade_left(record.shown);
    let parent_was_shown = record.parent != NO_SLOT && (chunks[record.parent].flags & NODE_WAS_SHOWN) != 0u;
    let fades = (record.flags & NODE_NEW) == 0u || parent_was_shown;
    let total = min(lod_params.fade_frames, MAX_FADE_FRAMES);
    let left = next_fade(total, shown != was_shown, fades, left_before);
    let fade = select(0u, (left << DRAW_FADE_LEFT_SHIFT) | (total << DRAW_FADE_TOTAL_SHIFT), left > 0u);
    chunks[slot].shown = select(0u, DRAW_SHOWN, shown) | fade;
    if shown {
        atomicAdd(&lod_counts[level], 1u);
    }
    if left > 0u {
        atomicAdd(&lod_counts[LOD_COUNT_FADING], 1u);
    }
    // A fade out that ends: the node stops being drawn, so its pages are freed, and its
    // neighbours, which saw it as present while it was drawn (chunk_links.wgsl), close their
    // borders towards it.
    let fade_out_ends = !shown && left == 0u && left_before > 0u;
    if mip == current_mip && shown == was_shown && !fade_out_ends {
        return;
    }
    links[slot].lod = mip;
    atomicOr(&links[slot].state, CHUNK_DIRTY);
    if shown != was_shown || fade_out_ends {
        mark_around(slot);
    } else {
        for (var face = 0u; face < 6u; face++) {
            let neighbour = links[slot].neighbours[face];
            if neighbour != NO_SLOT {
                atomicOr(&links[neighbour].state, CHUNK_DIRTY);
            }
        }
    }
}
