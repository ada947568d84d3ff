// Light: sky and block light of the nodes the CPU lists, in the light pool. Twin:
// crates/voxgpu-core/src/light.rs, which states the rules and why the steps give its fixed point.
// The rules and the helpers on packed light bytes are in light_bytes.wgsl, and what one
// invocation of a spread round does in light_spread.wgsl; this file includes both.
//
// Reads:  jobs (the nodes to light, by level, each with its children's slots), voxels (the
//         nodes' level-0 cells), links (same-level neighbours, as words), rules (per block id:
//         light opacity in bits 0..4, emission in 4..8), range (the jobs a dispatch covers, and
//         the spread's round).
// Writes: light (LIGHT_WORDS per slot: the cells' light, its levels, the open-column mask, the
//         spread stamp),
//         next_round (the spread's next round's indirect dispatch, once a cell changed in this
//         one; zeroed by the CPU's encoder before the pass).
// Entry points, in the order a frame records them:
//   mask    1 workgroup of 256 per job, 2 column pairs an invocation: the node's open columns
//           (every cell of opacity 0). Each pair's 32 voxel words are read without a
//           data-dependent exit, so the loads overlap instead of forming a chain of up to 1,024
//           dependent reads
//   fall    1 invocation per 4 columns of a job: sky light straight down through the nodes above
//           (their masks let open columns pass unread), emission as block light
//   spread  up to RELAX_STEPS rounds over the level-0 jobs: each open cell takes the largest
//           light its six neighbours offer, across chunk borders. Two forms (light.rs
//           `LightPass::spread_in_lines`): `spread`, 1 invocation per light word (4 cells) a
//           round; and `spread_lines`, rounds along x, z, y, x, ..., 1 invocation per row of 32 cells (x)
//           or line of 32 words (y, z) that takes what the neighbours off the line offer and
//           then sweeps each way along the line, so light crosses a chunk in one round. In
//           place: a neighbour read may be this round's or the last, both at most the fixed
//           point and at least the last round's, so each round does at least what a Jacobi
//           round would, and RELAX_STEPS of them reach the fixed point. A round after one in
//           which no cell changed would find the fixed point already (every cell at least what
//           its six neighbours offer), so rounds after the first are dispatched indirectly, and
//           only a round in which a cell changed writes the next one's workgroups: the rounds
//           left after the light settles run no workgroup. In `spread_lines` a round after the
//           first also skips each chunk where neither it nor a face neighbour changed in the
//           round before (`changed_last_round`, from the slots' spread stamps)
//   levels  1 workgroup of 256 per job, every job in one dispatch: levels 1..5 of its light,
//           each cell the largest of its eight below, per channel (of a chunk's spread light; of a
//           coarser job's light from `fall`, which `pull` then replaces where children are)
//   pull    per node level from 1 up, 1 invocation per word of a job's light levels: octants
//           with a resident child take the child's levels 1..5 as their levels 0..4 (the
//           children's light is final by then: chunks' from `levels`, coarser children's from
//           the pull of the level below), and level 5 the largest over the octants

struct LightRange {
    // The first job and how many a dispatch covers.
    first: u32,
    count: u32,
    // The spread's round, 0..RELAX_STEPS (0 for the other entry points).
    round: u32,
    // The next round's workgroups (x, y), written as its indirect dispatch once a cell changes
    // in this round; 0 after the last round.
    next_x: u32,
    next_y: u32,
    // The spread round's stamp (light.rs `STAMPS_PER_RECORDING`): above every earlier round's,
    // this recording's and the ones before.
    stamp: u32,
    pad1: u32,
    pad2: u32,
}

// One node to light. Rust twin: light::LightJob.
struct LightJob {
    slot: u32,
    // Its node level: cells 2^level blocks tall.
    level: u32,
    // The slots of its children by octant (x | y << 1 | z << 2), NO_SLOT where not resident or
    // for a chunk.
    children: array<u32, 8>,
}

@group(0) @binding(0) var<uniform> range: LightRange;
@group(0) @binding(1) var<storage, read> jobs: array<LightJob>;
@group(0) @binding(2) var<storage, read> voxels: array<u32>;
@group(0) @binding(3) var<storage, read> links: array<u32>;
@group(0) @binding(4) var<storage, read> rules: array<u32>;
@group(0) @binding(5) var<storage, read_write> light: array<atomic<u32>>;
// Indirect dispatch arguments (x, y, z) of the spread's rounds of the other parity than this
// one's: round r + 1's at word 3 * ((r + 1) / 2).
@group(0) @binding(6) var<storage, read_write> next_round: array<atomic<u32>>;

// voxgpu_core::light::MAX_ABOVE.
const MAX_ABOVE: u32 = 32u;
const LEVEL0_WORDS: u32 = 8192u;

fn block_at(slot: u32, x: u32, y: u32, z: u32) -> u32 {
    let index = x + CHUNK_SIZE * (y + CHUNK_SIZE * z);
    let word = voxels[slot * SLOT_WORDS + (index >> 1u)];
    return (word >> ((index & 1u) * 16u)) & 0xffffu;
}

fn rule(id: u32) -> u32 {
    if id >= arrayLength(&rules) {
        return 0u;
    }
    return rules[id];
}

fn opacity(id: u32) -> u32 {
    return rule(id) & 15u;
}

fn emission(id: u32) -> u32 {
    return (rule(id) >> 4u) & 15u;
}

fn neighbour(slot: u32, face: u32) -> u32 {
    return links[slot * LINK_WORDS + face];
}

fn job_index(id: vec3<u32>, groups: vec3<u32>, size: u32, per_job: u32) -> vec2<u32> {
    let index = linear_invocation(id, groups, size);
    return vec2<u32>(index / per_job, index % per_job);
}

// Per z row of the job's cells: bit x set once column (x, z) holds a cell of opacity above 0.
var<workgroup> closed: array<atomic<u32>, 32>;

@compute @workgroup_size(256)
fn mask(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lane: u32) {
    let j = group.y * groups.x + group.x;
    if j >= range.count {
        return;
    }
    let slot = jobs[range.first + j].slot;
    // A voxel word holds columns 2p and 2p + 1 of one row: 16 pairs by 32 rows z, two a lane.
    for (var item = lane; item < 512u; item += 256u) {
        let pair = item % 16u;
        let z = item / 16u;
        var shut = vec2<bool>(false);
        for (var y = 0u; y < CHUNK_SIZE; y++) {
            let word = voxels[slot * SLOT_WORDS + pair + 16u * (y + CHUNK_SIZE * z)];
            shut = shut | vec2<bool>(opacity(word & 0xffffu) != 0u, opacity(word >> 16u) != 0u);
        }
        let bits = (u32(shut.x) | (u32(shut.y) << 1u)) << (2u * pair);
        if bits != 0u {
            atomicOr(&closed[z], bits);
        }
    }
    workgroupBarrier();
    if lane < CHUNK_SIZE {
        atomicStore(&light[slot * LIGHT_WORDS + LIGHT_MASK_OFFSET + lane], ~atomicLoad(&closed[lane]));
    }
}

@compute @workgroup_size(64)
fn fall(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let at = job_index(id, groups, 64u, 256u);
    if at.x >= range.count {
        return;
    }
    let job = jobs[range.first + at.x];
    let slot = job.slot;
    let blocks = 1u << job.level;
    let x0 = (at.y % 8u) * 4u;
    let z = at.y / 8u;
    var above: array<u32, MAX_ABOVE>;
    var count = 0u;
    var next = neighbour(slot, FACE_POS_Y);
    while count < MAX_ABOVE && next != NO_SLOT {
        above[count] = next;
        count++;
        next = neighbour(next, FACE_POS_Y);
    }
    var v = vec4<u32>(MAX_LIGHT);
    // Sky light 0 stays 0 all the way down (cell_down keeps it), so the walk ends once all four
    // columns are dark: under the ground that is a few blocks below the surface.
    for (var k = count; k > 0u && any(v != vec4<u32>(0u)); k--) {
        let node = above[k - 1u];
        let open = atomicLoad(&light[node * LIGHT_WORDS + LIGHT_MASK_OFFSET + z]);
        for (var c = 0u; c < 4u; c++) {
            let x = x0 + c;
            if ((open >> x) & 1u) != 0u {
                // 32 cells of opacity 0: 15 stays, anything less loses a level a block.
                if v[c] != MAX_LIGHT {
                    v[c] = sat_sub(v[c], CHUNK_SIZE * blocks);
                }
            } else {
                for (var i = 0u; i < CHUNK_SIZE && v[c] != 0u; i++) {
                    v[c] = cell_down(v[c], opacity(block_at(node, x, CHUNK_SIZE - 1u - i, z)), blocks).y;
                }
            }
        }
    }
    for (var i = 0u; i < CHUNK_SIZE; i++) {
        let y = CHUNK_SIZE - 1u - i;
        var word = 0u;
        for (var c = 0u; c < 4u; c++) {
            let block = block_at(slot, x0 + c, y, z);
            let fell = cell_down(v[c], opacity(block), blocks);
            v[c] = fell.y;
            word |= (fell.x | (emission(block) << 4u)) << (8u * c);
        }
        let index = x0 + CHUNK_SIZE * (y + CHUNK_SIZE * z);
        atomicStore(&light[slot * LIGHT_WORDS + index / 4u], word);
    }
}

// Whether a cell of this workgroup changed in the round.
var<workgroup> changed: atomic<u32>;

// Lines of a chunk a round along x covers (rows of 8 words), and along y or z (lines of 32).
const X_LINES: u32 = 1024u;
const ACROSS_LINES: u32 = 256u;

// When a cell of this workgroup changed in round `round`, dispatches the next round (its
// arguments were zeroed by the CPU's encoder before the pass, so a round after one in which no
// cell changed runs no workgroup).
fn mark_round(lane: u32, round: u32) {
    workgroupBarrier();
    if lane == 0u && atomicLoad(&changed) != 0u && range.next_x != 0u {
        let at = 3u * ((round + 1u) / 2u);
        atomicStore(&next_round[at], range.next_x);
        atomicStore(&next_round[at + 1u], range.next_y);
        atomicStore(&next_round[at + 2u], 1u);
    }
}

// A round of one invocation per light word (4 cells): a short chain per invocation, for GPUs,
// where the rounds wait on their longest chain.
@compute @workgroup_size(64)
fn spread(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
          @builtin(local_invocation_index) lane: u32) {
    let at = job_index(id, groups, 64u, LEVEL0_WORDS);
    if at.x < range.count && relax(jobs[range.first + at.x].slot, at.y) {
        atomicStore(&changed, 1u);
    }
    mark_round(lane, range.round);
}

// A round of sweeps along x, z, y, x, ... (one invocation per row or line of 32 cells): light
// crosses a chunk in one round, so it settles in a few and the rest run no workgroup; for CPU
// adapters, where launching invocations costs more than their chains.
@compute @workgroup_size(64)
fn spread_lines(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                @builtin(local_invocation_index) lane: u32) {
    let round = range.round;
    let turn = round % 3u;
    let axis = select(select(1u, 2u, turn == 1u), 0u, turn == 0u);
    let at = job_index(id, groups, 64u, select(ACROSS_LINES, X_LINES, axis == 0u));
    if at.x < range.count {
        let slot = jobs[range.first + at.x].slot;
        var grew = false;
        if round == 0u || changed_last_round(slot) {
            if axis == 0u {
                grew = sweep_x(slot, i32(at.y % CHUNK_SIZE), i32(at.y / CHUNK_SIZE));
            } else {
                grew = sweep_across(slot, axis, at.y % 8u, i32(at.y / 8u));
            }
        }
        if grew {
            atomicStore(&changed, 1u);
        }
    }
    mark_round(lane, round);
    // The workgroup's lines are all of one chunk (X_LINES and ACROSS_LINES are multiples of 64).
    if lane == 0u && atomicLoad(&changed) != 0u {
        atomicMax(&light[jobs[range.first + at.x].slot * LIGHT_WORDS + LIGHT_STAMP_OFFSET], range.stamp);
    }
}

// Whether a cell of `slot` or of a face neighbour changed in the round before this one (its
// stamp is at least that round's). A chunk where none did finds the fixed point it had: every
// cell already takes what its neighbours offered, and they offer the same. Skipping it costs the
// fixed point nothing, only the reads a sweep would spend to find no change: on a CPU adapter,
// most of the light's time while the world streams in, since sky-lit air and buried stone
// settle in the first round.
fn changed_last_round(slot: u32) -> bool {
    let since = range.stamp - 1u;
    if atomicLoad(&light[slot * LIGHT_WORDS + LIGHT_STAMP_OFFSET]) >= since {
        return true;
    }
    for (var face = 0u; face < 6u; face++) {
        let n = neighbour(slot, face);
        if n != NO_SLOT && atomicLoad(&light[n * LIGHT_WORDS + LIGHT_STAMP_OFFSET]) >= since {
            return true;
        }
    }
    return false;
}

fn light_byte(slot: u32, index: u32) -> u32 {
    return byte_of(atomicLoad(&light[slot * LIGHT_WORDS + index / 4u]), index % 4u);
}

// The light levels of a level-L job (L >= 1) from its children, one invocation per word of
// levels 0..5 (LIGHT_MASK_OFFSET words; the mask follows them). A max pyramid of a max pyramid
// is one: a job's level-k cell over an octant with a resident child is that child's level-(k+1)
// cell, since the job's level 0 there is the child's level 1 and both take the largest of eight
// per channel. So every level is copied at once from the children (final by the dispatch before),
// with no chain of levels within the job. Octants without a child keep what the `levels` dispatch
// made of the fall's light; level 5, one cell over all eight octants, takes the largest of the
// children's level 5 and those octants' level 4.
@compute @workgroup_size(64)
fn pull(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let at = job_index(id, groups, 64u, LIGHT_MASK_OFFSET);
    if at.x >= range.count {
        return;
    }
    let job = jobs[range.first + at.x];
    var level = MAX_LEVEL;
    while at.y * 4u < light_level_base(level) {
        level -= 1u;
    }
    let size = CHUNK_SIZE >> level;
    let half = size >> 1u;
    // The word's first cell within its level.
    let first = at.y * 4u - light_level_base(level);
    let own = job.slot * LIGHT_WORDS + at.y;
    if half >= 4u {
        // Four cells of a row within one octant: one aligned word of the child's level + 1.
        let p = vec3<u32>(first % size, (first / size) % size, first / (size * size));
        let octant = vec3<u32>(p >= vec3<u32>(half));
        let child = job.children[octant.x | (octant.y << 1u) | (octant.z << 2u)];
        if child == NO_SLOT {
            return;
        }
        let q = p - octant * half;
        let index = light_level_base(level + 1u) + q.x + half * (q.y + half * q.z);
        atomicStore(&light[own], atomicLoad(&light[child * LIGHT_WORDS + index / 4u]));
        return;
    }
    // Levels 3..5: a word's cells may lie in different octants, so cell by cell.
    let kept = atomicLoad(&light[own]);
    var word = 0u;
    for (var c = 0u; c < 4u; c++) {
        let i = first + c;
        var l = byte_of(kept, c);
        if level == MAX_LEVEL {
            if i == 0u {
                l = 0u;
                for (var o = 0u; o < 8u; o++) {
                    let child = job.children[o];
                    if child == NO_SLOT {
                        // Level 4 is 2 cells a side: octant o's cell is cell o.
                        l = light_max(l, light_byte(job.slot, light_level_base(MAX_LEVEL - 1u) + o));
                    } else {
                        l = light_max(l, light_byte(child, light_level_base(MAX_LEVEL)));
                    }
                }
            }
        } else {
            let p = vec3<u32>(i % size, (i / size) % size, i / (size * size));
            let octant = vec3<u32>(p >= vec3<u32>(half));
            let child = job.children[octant.x | (octant.y << 1u) | (octant.z << 2u)];
            if child != NO_SLOT {
                let q = p - octant * half;
                l = light_byte(child, light_level_base(level + 1u) + q.x + half * (q.y + half * q.z));
            }
        }
        word |= l << (8u * c);
    }
    atomicStore(&light[own], word);
}

// Levels 1..5 of a job's light, a level at a time, one invocation per output word. A level of 4
// or more cells a side reads each output word's 2 x 2 rows of 8 cells below as 8 aligned words;
// the two smallest levels read bytes.
const LEVELS_GROUP: u32 = 256u;

@compute @workgroup_size(256)
fn levels(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
          @builtin(local_invocation_index) lane: u32) {
    let j = group.y * groups.x + group.x;
    if j >= range.count {
        return;
    }
    let slot = jobs[range.first + j].slot;
    let at = slot * LIGHT_WORDS;
    for (var level = 1u; level <= MAX_LEVEL; level++) {
        let size = CHUNK_SIZE >> level;
        let cells = size * size * size;
        let below = light_level_base(level - 1u);
        let base = light_level_base(level);
        for (var w = lane; w * 4u < cells; w += LEVELS_GROUP) {
            var word = 0u;
            if size >= 4u {
                let i = w * 4u;
                let p = vec3<u32>(i % size, (i / size) % size, i / (size * size)) * 2u;
                var lo = 0u;
                var hi = 0u;
                for (var k = 0u; k < 4u; k++) {
                    let row = below + p.x + 2u * size * (p.y + (k & 1u) + 2u * size * (p.z + (k >> 1u)));
                    lo = light_max4(lo, atomicLoad(&light[at + row / 4u]));
                    hi = light_max4(hi, atomicLoad(&light[at + row / 4u + 1u]));
                }
                word = pair_max(lo, hi);
            } else {
                for (var c = 0u; c < 4u; c++) {
                    let i = w * 4u + c;
                    if i < cells {
                        let p = vec3<u32>(i % size, (i / size) % size, i / (size * size)) * 2u;
                        var l = 0u;
                        for (var k = 0u; k < 8u; k++) {
                            let q = p + vec3<u32>(k & 1u, (k >> 1u) & 1u, k >> 2u);
                            l = light_max(l, light_byte(slot, below + q.x + 2u * size * (q.y + 2u * size * q.z)));
                        }
                        word |= l << (8u * c);
                    }
                }
            }
            atomicStore(&light[at + base / 4u + w], word);
        }
        storageBarrier();
        workgroupBarrier();
    }
}
