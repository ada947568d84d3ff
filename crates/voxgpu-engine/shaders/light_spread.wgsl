// The spread's rounds as one invocation does them (part of light.wgsl, which includes this file):
// `relax`, one light word's round for `spread`, and the sweeps of `spread_lines` along a row (x)
// or a line of words (y, z), with `word_at`, their reads of the light across the node's faces.
// light.wgsl declares the bindings and the voxel reads (`block_at`, `opacity`, `neighbour`) these
// use.

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

// Four opaque cells (`opacities`): no light enters them, so a word of them keeps its light and
// a line of them has nothing to sweep.
const ALL_OPAQUE: u32 = 0x0f0f0f0fu;

// A round along x over row (y, z): every cell takes what its neighbours above, below, behind and
// in front offer, then a sweep each way along the row carries light as far as it goes. Returns
// whether a cell changed.
fn sweep_x(slot: u32, y: i32, z: i32) -> bool {
    let row = slot * LIGHT_WORDS + (CHUNK_SIZE / 4u) * (u32(y) + CHUNK_SIZE * u32(z));
    var o: array<u32, 8>;
    var l: array<u32, 8>;
    var grew = 0u;
    var open = 0u;
    for (var w = 0u; w < 8u; w++) {
        let x0 = i32(4u * w);
        let own = atomicLoad(&light[row + w]);
        let o4 = opacities(slot, 4u * w, u32(y), u32(z));
        o[w] = o4;
        l[w] = own;
        if o4 == ALL_OPAQUE {
            continue;
        }
        open |= 1u << w;
        var v = take_word(own, o4, word_at(slot, x0, y - 1, z), false);
        v = take_word(v, o4, word_at(slot, x0, y + 1, z), true);
        v = take_word(v, o4, word_at(slot, x0, y, z - 1), false);
        v = take_word(v, o4, word_at(slot, x0, y, z + 1), false);
        l[w] = v;
        grew |= u32(v != own) << w;
    }
    if open == 0u {
        return false;
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
    var open = 0u;
    for (var k = 0u; k < CHUNK_SIZE; k++) {
        let at = across(axis, x0, p, i32(k));
        let index = slot * LIGHT_WORDS + xw + (CHUNK_SIZE / 4u) * (u32(at.y) + CHUNK_SIZE * u32(at.z));
        let own = atomicLoad(&light[index]);
        let o4 = opacities(slot, u32(x0), u32(at.y), u32(at.z));
        o[k] = o4;
        l[k] = own;
        if o4 == ALL_OPAQUE {
            continue;
        }
        open |= 1u << k;
        let left = byte_of(word_at(slot, x0 - 1, at.y, at.z), 3u);
        let right = byte_of(word_at(slot, x0 + 4, at.y, at.z), 0u);
        var v = take_row(own, o4, left, right);
        // The third axis: z for a line along y, y (light from above by its rule) along z.
        let step = across(axis, 0, 1, 0);
        let before = at - step;
        let after = at + step;
        v = take_word(v, o4, word_at(slot, before.x, before.y, before.z), false);
        v = take_word(v, o4, word_at(slot, after.x, after.y, after.z), axis == 2u);
        l[k] = v;
        grew |= u32(v != own) << k;
    }
    if open == 0u {
        return false;
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
