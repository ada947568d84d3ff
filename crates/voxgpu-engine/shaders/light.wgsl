// Light: sky and block light of the nodes the CPU lists, in the light pool. Twin:
// crates/voxgpu-core/src/light.rs, which states the rules and why the steps give its fixed point.
//
// Reads:  jobs (the nodes to light, by level, each with its children's slots), voxels (the
//         nodes' level-0 cells), links (same-level neighbours, as words), rules (per block id:
//         light opacity in bits 0..4, emission in 4..8), range (the jobs a dispatch covers, and
//         the spread's round).
// Writes: light (LIGHT_WORDS per slot: the cells' light, its levels, the open-column mask),
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
//           left after the light settles run no workgroup
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
    pad0: u32,
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

const MAX_LIGHT: u32 = 15u;
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

fn sat_sub(a: u32, b: u32) -> u32 {
    return select(0u, a - b, a > b);
}

// Twin of light::enter: sky light `v` entering a cell of opacity `o` from above.
fn enter(v: u32, o: u32) -> u32 {
    if o >= MAX_LIGHT {
        return 0u;
    }
    if v == MAX_LIGHT {
        return MAX_LIGHT - o;
    }
    return sat_sub(v, max(1u, o));
}

// Twin of light::cell_down: the cell's value (x) and what leaves its bottom (y).
fn cell_down(v: u32, o: u32, blocks: u32) -> vec2<u32> {
    let top = enter(v, o);
    if top == MAX_LIGHT || top == 0u {
        return vec2<u32>(top, top);
    }
    return vec2<u32>(top, sat_sub(top, (blocks - 1u) * max(1u, o)));
}

// The per-channel larger of two cells' light bytes.
fn light_max(a: u32, b: u32) -> u32 {
    return max(a & 15u, b & 15u) | max(a & 0xf0u, b & 0xf0u);
}

// Twin of light::offered: what a cell of opacity `o` takes from neighbour light `n`.
fn offered(n: u32, o: u32, from_above: bool) -> u32 {
    if o >= MAX_LIGHT {
        return 0u;
    }
    let cost = max(1u, o);
    var sky = sat_sub(n & 15u, cost);
    if from_above {
        sky = enter(n & 15u, o);
    }
    return sky | (sat_sub(n >> 4u, cost) << 4u);
}

fn byte_of(word: u32, k: u32) -> u32 {
    return (word >> (8u * k)) & 0xffu;
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

// The light word holding cell (x, y, z) of level 0 of `slot`, where x, y, z may lie one cell
// outside the node: the face neighbour's word then, 0 where there is none.
fn word_at(slot: u32, x: i32, y: i32, z: i32) -> u32 {
    var s = slot;
    var p = vec3<i32>(x, y, z);
    let size = i32(CHUNK_SIZE);
    for (var axis = 0u; axis < 3u; axis++) {
        if p[axis] < 0 {
            s = neighbour(s, 2u * axis + 1u);
            p[axis] += size;
        } else if p[axis] >= size {
            s = neighbour(s, 2u * axis);
            p[axis] -= size;
        }
        if s == NO_SLOT {
            return 0u;
        }
    }
    let index = u32(p.x) + CHUNK_SIZE * (u32(p.y) + CHUNK_SIZE * u32(p.z));
    return atomicLoad(&light[s * LIGHT_WORDS + index / 4u]);
}

// Whether a cell of this workgroup changed in the round.
var<workgroup> changed: atomic<u32>;

// One light word's round: its cells take the largest light their neighbours offer. Returns
// whether the word changed.
fn relax(slot: u32, word_index: u32) -> bool {
    let first = word_index * 4u;
    let x0 = i32(first % CHUNK_SIZE);
    let y = i32((first / CHUNK_SIZE) % CHUNK_SIZE);
    let z = i32(first / (CHUNK_SIZE * CHUNK_SIZE));
    let own = atomicLoad(&light[slot * LIGHT_WORDS + word_index]);
    let below = word_at(slot, x0, y - 1, z);
    let above = word_at(slot, x0, y + 1, z);
    let back = word_at(slot, x0, y, z - 1);
    let front = word_at(slot, x0, y, z + 1);
    // The cells left of x0 and right of x0 + 3: the last byte of the word before, the first of
    // the one after.
    let left = byte_of(word_at(slot, x0 - 1, y, z), 3u);
    let right = byte_of(word_at(slot, x0 + 4, y, z), 0u);
    var word = 0u;
    for (var c = 0u; c < 4u; c++) {
        let o = opacity(block_at(slot, u32(x0) + c, u32(y), u32(z)));
        var l = byte_of(own, c);
        if o < MAX_LIGHT {
            let west = select(byte_of(own, c - 1u), left, c == 0u);
            let east = select(byte_of(own, c + 1u), right, c == 3u);
            l = light_max(l, offered(west, o, false));
            l = light_max(l, offered(east, o, false));
            l = light_max(l, offered(byte_of(below, c), o, false));
            l = light_max(l, offered(byte_of(above, c), o, true));
            l = light_max(l, offered(byte_of(back, c), o, false));
            l = light_max(l, offered(byte_of(front, c), o, false));
        }
        word |= l << (8u * c);
    }
    if word == own {
        return false;
    }
    atomicStore(&light[slot * LIGHT_WORDS + word_index], word);
    return true;
}

// The opacities of cells x0..x0 + 3 of row (y, z) of `slot`, a byte each (x0 a multiple of 4).
fn opacities(slot: u32, x0: u32, y: u32, z: u32) -> u32 {
    let first = (x0 + CHUNK_SIZE * (y + CHUNK_SIZE * z)) / 2u;
    let lo = voxels[slot * SLOT_WORDS + first];
    let hi = voxels[slot * SLOT_WORDS + first + 1u];
    return opacity(lo & 0xffffu) | (opacity(lo >> 16u) << 8u) | (opacity(hi & 0xffffu) << 16u)
        | (opacity(hi >> 16u) << 24u);
}

// The four cells of light word `own` (opacities `o4`), each raised to what the cell beside it
// in word `n` offers (`from_above` when `n` is the word above).
fn take_word(own: u32, o4: u32, n: u32, from_above: bool) -> u32 {
    var word = 0u;
    for (var c = 0u; c < 4u; c++) {
        word |= light_max(byte_of(own, c), offered(byte_of(n, c), byte_of(o4, c), from_above)) << (8u * c);
    }
    return word;
}

// The four cells of `own`, each raised to what its neighbours along x offer: within the word,
// and the cells `left` of its first and `right` of its last.
fn take_row(own: u32, o4: u32, left: u32, right: u32) -> u32 {
    var word = 0u;
    for (var c = 0u; c < 4u; c++) {
        let o = byte_of(o4, c);
        let west = select(byte_of(own, c - 1u), left, c == 0u);
        let east = select(byte_of(own, c + 1u), right, c == 3u);
        word |= light_max(light_max(byte_of(own, c), offered(west, o, false)), offered(east, o, false)) << (8u * c);
    }
    return word;
}

// A round along x over row (y, z): every cell takes what its neighbours above, below, behind and
// in front offer, then a sweep each way along the row carries light as far as it goes. Returns
// whether a cell changed.
fn sweep_x(slot: u32, y: i32, z: i32) -> bool {
    let row = slot * LIGHT_WORDS + (CHUNK_SIZE / 4u) * (u32(y) + CHUNK_SIZE * u32(z));
    var o: array<u32, 8>;
    var l: array<u32, 8>;
    var grew = 0u;
    for (var w = 0u; w < 8u; w++) {
        let x0 = i32(4u * w);
        let own = atomicLoad(&light[row + w]);
        let o4 = opacities(slot, 4u * w, u32(y), u32(z));
        var v = take_word(own, o4, word_at(slot, x0, y - 1, z), false);
        v = take_word(v, o4, word_at(slot, x0, y + 1, z), true);
        v = take_word(v, o4, word_at(slot, x0, y, z - 1), false);
        v = take_word(v, o4, word_at(slot, x0, y, z + 1), false);
        o[w] = o4;
        l[w] = v;
        grew |= u32(v != own) << w;
    }
    // Towards +x from the cell left of the row, then towards -x from the cell right of it.
    for (var back = 0u; back < 2u; back++) {
        var carry = select(byte_of(word_at(slot, -1, y, z), 3u),
                           byte_of(word_at(slot, i32(CHUNK_SIZE), y, z), 0u), back == 1u);
        for (var i = 0u; i < CHUNK_SIZE; i++) {
            let x = select(i, CHUNK_SIZE - 1u - i, back == 1u);
            let w = x / 4u;
            let shift = 8u * (x % 4u);
            let cur = (l[w] >> shift) & 0xffu;
            let v = light_max(cur, offered(carry, (o[w] >> shift) & 0xffu, false));
            l[w] = (l[w] & ~(0xffu << shift)) | (v << shift);
            grew |= u32(v != cur) << w;
            carry = v;
        }
    }
    for (var w = 0u; w < 8u; w++) {
        if ((grew >> w) & 1u) != 0u {
            atomicStore(&light[row + w], l[w]);
        }
    }
    return grew != 0u;
}

// Cell (x, y, z) with coordinate `k` along `axis` (1: y, 2: z) and `p` on the other of the two.
fn across(axis: u32, x: i32, p: i32, k: i32) -> vec3<i32> {
    if axis == 1u {
        return vec3<i32>(x, k, p);
    }
    return vec3<i32>(x, p, k);
}

// A round along y or z (`axis`) over the line of words at x0 = 4 * xw and `p` on the other axis:
// every cell takes what its neighbours along x and along the third axis offer, then a sweep each
// way along the line carries light as far as it goes (falling light taking the rule from above).
// Returns whether a cell changed.
fn sweep_across(slot: u32, axis: u32, xw: u32, p: i32) -> bool {
    let x0 = i32(4u * xw);
    var o: array<u32, 32>;
    var l: array<u32, 32>;
    var grew = 0u;
    for (var k = 0u; k < CHUNK_SIZE; k++) {
        let at = across(axis, x0, p, i32(k));
        let index = slot * LIGHT_WORDS + xw + (CHUNK_SIZE / 4u) * (u32(at.y) + CHUNK_SIZE * u32(at.z));
        let own = atomicLoad(&light[index]);
        let o4 = opacities(slot, u32(x0), u32(at.y), u32(at.z));
        let left = byte_of(word_at(slot, x0 - 1, at.y, at.z), 3u);
        let right = byte_of(word_at(slot, x0 + 4, at.y, at.z), 0u);
        var v = take_row(own, o4, left, right);
        // The third axis: z for a line along y, y (light from above by its rule) along z.
        let step = across(axis, 0, 1, 0);
        let before = at - step;
        let after = at + step;
        v = take_word(v, o4, word_at(slot, before.x, before.y, before.z), false);
        v = take_word(v, o4, word_at(slot, after.x, after.y, after.z), axis == 2u);
        o[k] = o4;
        l[k] = v;
        grew |= u32(v != own) << k;
    }
    // Up the line from the word before it, then down from the word after it (downwards along y
    // is light falling from above).
    for (var back = 0u; back < 2u; back++) {
        let start = across(axis, x0, p, select(-1, i32(CHUNK_SIZE), back == 1u));
        var carry = word_at(slot, start.x, start.y, start.z);
        for (var i = 0u; i < CHUNK_SIZE; i++) {
            let k = select(i, CHUNK_SIZE - 1u - i, back == 1u);
            let v = take_word(l[k], o[k], carry, back == 1u && axis == 1u);
            grew |= u32(v != l[k]) << k;
            l[k] = v;
            carry = v;
        }
    }
    for (var k = 0u; k < CHUNK_SIZE; k++) {
        if ((grew >> k) & 1u) != 0u {
            let at = across(axis, x0, p, i32(k));
            atomicStore(&light[slot * LIGHT_WORDS + xw + (CHUNK_SIZE / 4u) * (u32(at.y) + CHUNK_SIZE * u32(at.z))], l[k]);
        }
    }
    return grew != 0u;
}

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
        if axis == 0u {
            grew = sweep_x(slot, i32(at.y % CHUNK_SIZE), i32(at.y / CHUNK_SIZE));
        } else {
            grew = sweep_across(slot, axis, at.y % 8u, i32(at.y / 8u));
        }
        if grew {
            atomicStore(&changed, 1u);
        }
    }
    mark_round(lane, round);
}

fn light_byte(slot: u32, index: u32) -> u32 {
    return byte_of(atomicLoad(&light[slot * LIGHT_WORDS + index / 4u]), index % 4u);
}

// The per-channel larger of the four bytes of `a` and of `b`, byte by byte: sky and block light
// each in their own byte lanes (values 0..15), compared with a borrow bit per lane.
fn light_max4(a: u32, b: u32) -> u32 {
    var out = 0u;
    for (var shift = 0u; shift < 8u; shift += 4u) {
        let x = (a >> shift) & 0x0f0f0f0fu;
        let y = (b >> shift) & 0x0f0f0f0fu;
        let x_ge_y = (((x | 0x10101010u) - y) >> 4u) & 0x01010101u;
        let keep = x_ge_y * 0xffu;
        out |= ((x & keep) | (y & ~keep)) << shift;
    }
    return out;
}

// The four pairs of bytes of a two-word row of cells, each pair's per-channel largest.
fn pair_max(lo: u32, hi: u32) -> u32 {
    let a = light_max4(lo, lo >> 8u);
    let b = light_max4(hi, hi >> 8u);
    return (a & 0xffu) | ((a >> 8u) & 0xff00u) | ((b & 0xffu) << 16u) | ((b & 0xff0000u) << 8u);
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
