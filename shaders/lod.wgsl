// Level-of-detail selection: which mip level each chunk is meshed at. Twin of src/lod.rs
// (`LodSettings::select`, `chunk_distance`), which must choose the same levels.
//
// Reads:  params (slot_count), lod_params (eye, thresholds, hysteresis), chunks (origins).
// Writes: links (lod; DIRTY on the chunk and its six neighbours when its level changes, since
//         their skirts depend on it), lod_counts (resident chunks per level, for stats).
// Dispatch: every frame before the mip and mesh passes, one invocation per slot, 64 per
//           workgroup. The CPU zeroes lod_counts before.
//
// Nothing is read back to decide a level: a change goes straight onto the mesher's work list.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> lod_params: LodParams;
@group(0) @binding(2) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(3) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(4) var<storage, read_write> lod_counts: array<atomic<u32>, 6>;

// Distance from the eye to the nearest point of the chunk's box [origin, origin + 32].
fn chunk_distance(origin: vec3<i32>) -> f32 {
    let low = vec3<f32>(origin);
    let high = low + vec3<f32>(f32(CHUNK_SIZE));
    let gap = max(max(low - lod_params.eye, lod_params.eye - high), vec3<f32>(0.0));
    return sqrt(gap.x * gap.x + gap.y * gap.y + gap.z * gap.z);
}

// The level for a distance with no history: how many thresholds lie at or below it.
fn plain_level(distance: f32) -> u32 {
    var level = 0u;
    while level < lod_params.max_level && distance >= lod_params.thresholds[level] {
        level++;
    }
    return level;
}

// Keeps `current` while the distance stays inside its band widened by the hysteresis.
fn select_level(distance: f32, current: u32) -> u32 {
    if current <= lod_params.max_level {
        var low = 0.0;
        if current > 0u {
            low = lod_params.thresholds[current - 1u] * (1.0 - lod_params.hysteresis);
        }
        let bounded = current < lod_params.max_level;
        var high = 0.0;
        if bounded {
            high = lod_params.thresholds[current] * (1.0 + lod_params.hysteresis);
        }
        if distance >= low && (!bounded || distance < high) {
            return current;
        }
    }
    return plain_level(distance);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if slot >= params.slot_count || (atomicLoad(&links[slot].state) & CHUNK_RESIDENT) == 0u {
        return;
    }
    let current = links[slot].lod;
    let level = select_level(chunk_distance(chunks[slot].origin), current);
    atomicAdd(&lod_counts[level], 1u);
    if level == current {
        return;
    }
    links[slot].lod = level;
    atomicOr(&links[slot].state, CHUNK_DIRTY);
    for (var face = 0u; face < 6u; face++) {
        let neighbour = links[slot].neighbours[face];
        if neighbour != NO_SLOT {
            atomicOr(&links[neighbour].state, CHUNK_DIRTY);
        }
    }
}
