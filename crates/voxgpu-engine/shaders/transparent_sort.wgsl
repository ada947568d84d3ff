// Back-to-front order of the transparent draw list: a counting sort of the commands by their
// chunk's distance from the eye and their face direction, with equal keys ordered by their node.
// Twin of crates/voxgpu-core/src/cull.rs (`transparent_sort_key`, `transparent_tie_order`).
//
// Reads:  params, counts (transparent commands), chunks (node origins and levels), sort_keys
//         regions 0 (per group of commands, its key and size on its first entry, SORT_FOLLOWER on
//         the others) and 2 (the group's slot on its first entry), both written by the cull pass,
//         which also counted the commands per key into sort_buckets.
// Writes: sort_buckets (counts, then cursors and, in its second half, each key's first
//         position), args[2 capacity, 3 capacity) (the transparent commands in draw order, which
//         the transparent pass draws), sort_keys regions 1 and 4 (the sorted entries' keys and
//         slots, for tests), region 3 (scratch: groups by their place within their key) and
//         instanced (the instanced path's draw arguments, from the counts; `instanced_only`
//         writes them alone after the cull pass's first phase).
// Dispatch: `scan` one workgroup of 256, then `scatter` and `place` one invocation per list
//           entry each. The CPU zeroes sort_buckets before the cull pass.
//
// Keys (cull::transparent_sort_key) order chunks far first by the square root of their distance,
// and a chunk's six face directions within its distance key, so ascending keys draw back to
// front. The commands of one face stream form one group and keep their stream order. Groups of
// different nodes with equal keys are drawn in the order of their node's origin (x, then y, then
// z) and level, so the order is total: the same frame comes out whatever order the GPU's atomics
// ran in, run after run. `scatter` gathers each key's groups in an arbitrary order; `place` ranks
// each group among those of its key, a walk over that key's groups: work quadratic in the groups
// of one key, which stay few (a key spans a distance of about its square root in blocks, and the
// nodes there grow with the distance). Software adapters that stop a shader's loops after 65,535
// iterations would misplace a key holding more groups than that.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read_write> args: array<DrawArgs>;
@group(0) @binding(2) var<storage, read> counts: array<u32, 22>;
@group(0) @binding(3) var<storage, read_write> sort_keys: array<u32>;
// [0, SORT_BUCKETS): counts, then cursors (after `scatter`: each key's end); [SORT_BUCKETS,
// 2 SORT_BUCKETS): each key's first position.
@group(0) @binding(4) var<storage, read_write> sort_buckets: array<atomic<u32>, 2 * SORT_BUCKETS>;
// The instanced draw path's seven draws (opaque, transparent, cross-fading opaque, occluded, the
// farther opaque bands): one instance
// of PAGE_QUADS quads per list entry. Draw k starts k pages into the index pattern, which is how
// chunk_draw.wgsl tells the lists apart.
@group(0) @binding(5) var<storage, read_write> instanced: array<DrawArgs, 7>;
@group(0) @binding(6) var<storage, read> chunks: array<ChunkMeta>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;

// The instanced path's draw `list` from the commands the cull pass wrote to it.
fn instanced_draws(list: u32) {
    if list < 7u {
        let entries = min(counts[list], params.draw_capacity);
        instanced[list] = DrawArgs(6u * PAGE_QUADS, entries, list * 6u * PAGE_QUADS, 0, 0u);
    }
}

// The instanced draws alone: after the cull pass's first phase, which has no transparent list.
@compute @workgroup_size(8)
fn instanced_only(@builtin(local_invocation_index) lid: u32) {
    instanced_draws(lid);
}

const SCAN_THREADS: u32 = 256u;
const BUCKETS_PER_THREAD: u32 = SORT_BUCKETS / SCAN_THREADS;

var<workgroup> partial: array<u32, SCAN_THREADS>;

// Exclusive prefix sum over the buckets: each thread sums its run of buckets, the 256 sums are
// scanned in shared memory (Hillis-Steele), then each thread writes its run's starts.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_index) lid: u32) {
    instanced_draws(lid);
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
        atomicStore(&sort_buckets[SORT_BUCKETS + first + i], start);
        start += n;
    }
}

// The unsorted list entry of this invocation, or none past the list's end or on a follower.
fn group_head(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    let entry = linear_invocation(id, groups, 64u);
    if entry >= min(counts[1], params.draw_capacity) || sort_keys[entry] == SORT_FOLLOWER {
        return SORT_FOLLOWER;
    }
    return entry;
}

// Whether the group at unsorted entry `a` is drawn before the one at `b` of the same key: the
// node with the lesser origin (x, then y, then z), then the lesser level. Twin of cull.rs
// `transparent_tie_order`. Two groups of one key are never of one drawn node (each face direction
// of a node has its own face slot), so this orders them totally; the unsorted position decides
// last, so even groups of equal nodes never take the same place.
fn drawn_before(a: u32, b: u32) -> bool {
    let capacity = params.draw_capacity;
    let p = chunks[sort_keys[SORT_SLOTS_REGION * capacity + a]];
    let q = chunks[sort_keys[SORT_SLOTS_REGION * capacity + b]];
    if p.origin.x != q.origin.x {
        return p.origin.x < q.origin.x;
    }
    if p.origin.y != q.origin.y {
        return p.origin.y < q.origin.y;
    }
    if p.origin.z != q.origin.z {
        return p.origin.z < q.origin.z;
    }
    if p.node_level != q.node_level {
        return p.node_level < q.node_level;
    }
    return a < b;
}

// One invocation per unsorted list entry; a group's first entry takes room for the group within
// its key and records itself there (region 3), in whatever order the atomics run.
@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let head = group_head(id, groups);
    if head == SORT_FOLLOWER {
        return;
    }
    let entry = sort_keys[head];
    let key = entry & ((1u << SORT_GROUP_SHIFT) - 1u);
    let at = atomicAdd(&sort_buckets[key], entry >> SORT_GROUP_SHIFT);
    sort_keys[SORT_BUCKETED_REGION * params.draw_capacity + at] = head;
}

// One invocation per unsorted list entry; a group's first entry counts the entries of the groups
// of its key drawn before it (`drawn_before`), and moves the whole group, in its order, there.
@compute @workgroup_size(64)
fn place(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let head = group_head(id, groups);
    if head == SORT_FOLLOWER {
        return;
    }
    let capacity = params.draw_capacity;
    let entry = sort_keys[head];
    let key = entry & ((1u << SORT_GROUP_SHIFT) - 1u);
    let size = entry >> SORT_GROUP_SHIFT;
    let start = atomicLoad(&sort_buckets[SORT_BUCKETS + key]);
    let end = atomicLoad(&sort_buckets[key]);
    // The key's groups lie back to back in region 3 from `start`, each recorded on its first
    // entry: walk them group by group.
    var at = start;
    var i = start;
    while i < end {
        let other = sort_keys[SORT_BUCKETED_REGION * capacity + i];
        let other_size = sort_keys[other] >> SORT_GROUP_SHIFT;
        if drawn_before(other, head) {
            at += other_size;
        }
        i += max(other_size, 1u);
    }
    let slot = sort_keys[SORT_SLOTS_REGION * capacity + head];
    for (var j = 0u; j < size; j++) {
        args[2u * capacity + at + j] = args[capacity + head + j];
        sort_keys[SORT_SORTED_REGION * capacity + at + j] = key;
        sort_keys[SORT_SORTED_SLOTS_REGION * capacity + at + j] = slot;
    }
}
