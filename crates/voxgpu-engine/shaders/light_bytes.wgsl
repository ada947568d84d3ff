// Packed light (part of light.wgsl, which includes this file): a cell's light is a byte, sky
// light in bits 0..4 and block light in bits 4..8, each 0..MAX_LIGHT, and a light word holds four
// cells along x, cell x0 + c in byte c. The light rules on these values (twins of light.rs
// `enter`, `cell_down` and `offered`), the per-channel maxima of bytes, words and rows, and the
// take steps of a word and a row (`take_word`, `take_row`) the sweeps apply: pure
// functions of their arguments.

const MAX_LIGHT: u32 = 15u;

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
