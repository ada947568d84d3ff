// Mesh work list: which chunk faces the mesher handles this frame, and the freeing of their old
// pages.
//
// Reads:  links (each slot's state), params, faces (the queued slots' page lists).
// Writes: work (jobs and the indirect dispatch size), links (DIRTY or EVICTED cleared once
//         queued), allocator (the queued slots' old pages pushed on the free stack).
// Dispatch: `collect_evicted`, then `collect_dirty`, each one invocation per slot (64 per
//           workgroup). The CPU resets work[0..4] to (0, 1, 1, 0) before.
//
// Each dirty or evicted slot asks for six jobs, one per face direction. A slot whose six jobs do
// not fit under params.max_jobs keeps its state and is picked up next frame, so max_jobs is also
// the per-frame re-mesh budget. A queued slot's old pages go back on the free stack here, so the
// mesh pass that follows (which only pops) can hand them out again: pushes and pops never share
// a dispatch.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(2) var<storage, read_write> work: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(4) var<storage, read_write> allocator: Allocator;

// Queues the six jobs of `slot` if they fit under the budget, frees its pages, and clears the bit
// that asked.
fn enqueue(slot: u32, release_only: u32, bit: u32) {
    let first = atomicAdd(&work[3], 6u);
    if first + 6u > params.max_jobs {
        return;
    }
    for (var face = 0u; face < 6u; face++) {
        atomicStore(&work[WORK_JOBS_OFFSET + first + face], (slot * 6u + face) | release_only);
    }
    // The indirect dispatch size, in job pairs (the two faces of one axis, one workgroup each):
    // every slot that fits adds its three. Slots that fit are exactly those whose six jobs lie
    // below max_jobs (a multiple of six), so jobs [0, 2 work[0]) are all written.
    atomicAdd(&work[0], 3u);
    release_pages(slot);
    atomicAnd(&links[slot].state, ~bit);
}

// Pushes every page of the six faces of `slot` on the free stack, four pages' loads in flight
// together.
fn release_pages(slot: u32) {
    var counts: array<u32, 6>;
    var total = 0u;
    for (var face = 0u; face < 6u; face++) {
        counts[face] = faces[slot * 6u + face].page_count;
        total += counts[face];
    }
    if total == 0u {
        return;
    }
    var at = atomicAdd(&allocator.free_count, total);
    for (var face = 0u; face < 6u; face++) {
        let f = slot * 6u + face;
        for (var i = 0u; i < counts[face]; i += 4u) {
            let last = MAX_FACE_PAGES - 1u;
            let pages = vec4<u32>(faces[f].pages[i], faces[f].pages[min(i + 1u, last)],
                faces[f].pages[min(i + 2u, last)], faces[f].pages[min(i + 3u, last)]);
            let n = min(counts[face] - i, 4u);
            for (var k = 0u; k < n; k++) {
                allocator.free[at + k] = pages[k];
            }
            at += n;
        }
    }
}

// First dispatch: evicted slots. They go before any dirty one, so the budget never delays
// freeing a departed chunk's pages (the CPU reuses its slot only once that is done).
@compute @workgroup_size(64)
fn collect_evicted(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if slot < params.slot_count && (atomicLoad(&links[slot].state) & CHUNK_EVICTED) != 0u {
        enqueue(slot, JOB_RELEASE_ONLY, CHUNK_EVICTED);
    }
}

// Second dispatch: dirty slots, while the budget lasts.
@compute @workgroup_size(64)
fn collect_dirty(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if slot >= params.slot_count {
        return;
    }
    if (atomicLoad(&links[slot].state) & (CHUNK_DIRTY | CHUNK_EVICTED)) == CHUNK_DIRTY {
        enqueue(slot, 0u, CHUNK_DIRTY);
    }
}
