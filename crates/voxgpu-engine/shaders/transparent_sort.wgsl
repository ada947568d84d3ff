// Back-to-front order of the transparent draw list: a counting sort of the commands by their
// chunk's distance from the eye and their face direction. Twin of
// crates/voxgpu-core/src/cull.rs (`transparent_sort_key`).
//
// Reads:  params, counts (transparent commands), sort_keys[0, capacity) (per group of commands,
//         its key and size on its first entry, SORT_FOLLOWER on the others; written by the cull
//         pass, which also counted the commands per key into sort_buckets).
// Writes: sort_buckets (counts, then first positions, then cursors), args[2 capacity, 3 capacity)
//         (the transparent commands in key order, which the transparent pass draws),
//         sort_keys[capacity, 2 capacity) (their keys, for tests) and instanced (the instanced
//         path's draw arguments, from the counts).
// Dispatch: `scan` one workgroup of 256, then `scatter` one invocation per list entry. The CPU
//           zeroes sort_buckets before the cull pass.
//
// Keys (cull::transparent_sort_key) order chunks far first by the square root of their distance,
// and a chunk's six face directions within its distance key, so ascending keys draw back to
// front. The commands of one face stream form one group and keep their stream order. Only
// groups of different chunks with equal keys (the same distance key and face slot) keep no
// particular order among themselves.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(2) var<storage, read> counts: array<u32, 7>;
@group(0) @binding(3) var<storage, read_write> sort_keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> sort_buckets: array<atomic<u32>, SORT_BUCKETS>;
// The instanced draw path's two draws (opaque, transparent): one instance of PAGE_QUADS quads per
// list entry. The transparent draw starts one page into the index pattern, which is how
// chunk_draw.wgsl tells the lists apart.
@group(0) @binding(5) var<storage, read_write> instanced: array<DrawArgs, 2>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;

const SCAN_THREADS: u32 = 256u;
const BUCKETS_PER_THREAD: u32 = SORT_BUCKETS / SCAN_THREADS;

var<workgroup> partial: array<u32, SCAN_THREADS>;

// Exclusive prefix sum over the buckets: each thread sums its run of buckets, the 256 sums are
// scanned in shared memory (Hillis-Steele), then each thread writes its run's starts.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_index) lid: u32) {
    if lid < 2u {
        let entries = min(counts[lid], params.draw_capacity);
        instanced[lid] = DrawArgs(6u * PAGE_QUADS, entries, lid * 6u * PAGE_QUADS, 0, 0u);
    }
    let first = lid * BUCKETS_PER_THREAD;
    var sum = 0u;
    for (var i = 0u; i < BUCKETS_PER_THREAD; i++) {
        sum += atomicLoad(&sort_buckets[first + i]);
    }
    partial[lid] = sum;
    workgroupBarrier();
    for (var step = 1u; step < SCAN_THREADS; step <<= 1u) {
        var add = 0u;
        if lid >= step {
            add = partial[lid - step];
        }
        workgroupBarrier();
        partial[lid] += add;
        workgroupBarrier();
    }
    var start = partial[lid] - sum;
    for (var i = 0u; i < BUCKETS_PER_THREAD; i++) {
        let n = atomicLoad(&sort_buckets[first + i]);
        atomicStore(&sort_buckets[first + i], start);
        start += n;
    }
}

// One invocation per unsorted list entry; a group's first entry moves the whole group, in its
// order, to the group's place in its key (cull.wgsl gives every face stream's commands one
// group, in stream order).
@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>) {
    let capacity = params.draw_capacity;
    if id.x >= min(counts[1], capacity) {
        return;
    }
    let entry = sort_keys[id.x];
    if entry == SORT_FOLLOWER {
        return;
    }
    let key = entry & ((1u << SORT_GROUP_SHIFT) - 1u);
    let size = entry >> SORT_GROUP_SHIFT;
    let at = atomicAdd(&sort_buckets[key], size);
    for (var j = 0u; j < size; j++) {
        args[2u * capacity + at + j] = args[capacity + id.x + j];
        sort_keys[capacity + at + j] = key;
    }
}
