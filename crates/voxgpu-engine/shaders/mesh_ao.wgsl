// Ambient occlusion as bit planes (part of mesh.wgsl, which includes this file): 32 faces of a row at
// once, from three rows of the layer in front of them with the cells past the row's ends taken
// from the halo. Twin of neighbourhood.rs `Surroundings::face_ao`.

// Row v (-1..=dim) of front layer `front` (-1..=dim): x the opaque bits over u, y the cell at
// u = -1, z the cell at u = dim.
fn front_row(front: i32, v: i32) -> vec3<u32> {
    let size = i32(dim);
    let a_in = front >= 0 && front < size;
    let v_in = v >= 0 && v < size;
    let sa = u32(front >= size);
    let sv = u32(v >= size);
    if a_in && v_in {
        let a = u32(front);
        let vu = u32(v);
        return vec3<u32>(opaque_row(a, vu), (halo[HALO_UPAD + vu] >> a) & 1u, (halo[HALO_UPAD + 32u + vu] >> a) & 1u);
    }
    if a_in {
        let a = u32(front);
        return vec3<u32>(halo[HALO_VROW + 32u * sv + a], (halo[HALO_UV + sv] >> a) & 1u, (halo[HALO_UV + 2u + sv] >> a) & 1u);
    }
    if v_in {
        let vu = u32(v);
        return vec3<u32>(halo[HALO_AOUT + 32u * sa + vu], (halo[HALO_AU + 2u * sa] >> vu) & 1u, (halo[HALO_AU + 2u * sa + 1u] >> vu) & 1u);
    }
    return vec3<u32>(halo[HALO_AV + 2u * sa + sv], 0u, 0u);
}

// Bit u: the cell at u - 1 / u + 1 of a front row.
fn at_left(r: vec3<u32>) -> u32 {
    return ((r.x << 1u) | r.y) & row_mask;
}

fn at_right(r: vec3<u32>) -> u32 {
    return ((r.x >> 1u) | (r.z << (dim - 1u))) & row_mask;
}

// Ambient occlusion of a row's 32 faces as bit planes, from the front layer's rows v - 1, v and
// v + 1: `lo[k]` and `hi[k]` are the low and high bit of corner k's value (corner k on the +u
// side when k & 1, the +v side when k & 2). Per corner: both sides closed gives 0, else 3 minus
// the closed cells of (side u, side v, diagonal); so the high bit is "fewer than two closed" and
// the low bit "an even number closed, sides not both". Twin of neighbourhood.rs `face_ao`, 32 faces
// per operation.
struct AoPlanes {
    lo: vec4<u32>,
    hi: vec4<u32>,
}

fn ao_planes(below: vec3<u32>, here: vec3<u32>, above: vec3<u32>) -> AoPlanes {
    if params.ambient_occlusion == 0u {
        return AoPlanes(vec4<u32>(0xffffffffu), vec4<u32>(0xffffffffu));
    }
    let side_u = vec4<u32>(at_left(here), at_right(here), at_left(here), at_right(here));
    let side_v = vec4<u32>(below.x, below.x, above.x, above.x);
    let diagonal = vec4<u32>(at_left(below), at_right(below), at_left(above), at_right(above));
    let both = side_u & side_v;
    let two = both | (side_u & diagonal) | (side_v & diagonal);
    return AoPlanes(~both & ~(side_u ^ side_v ^ diagonal), ~two);
}

// The AO byte of face u.
fn ao_at(p: AoPlanes, u: u32) -> u32 {
    let lo = (p.lo >> vec4<u32>(u)) & vec4<u32>(1u);
    let hi = (p.hi >> vec4<u32>(u)) & vec4<u32>(1u);
    let corners = lo | (hi << vec4<u32>(1u));
    return corners.x | (corners.y << 2u) | (corners.z << 4u) | (corners.w << 6u);
}

// Bit u set where faces u and u + 1 have the same ambient occlusion.
fn ao_equal_right(p: AoPlanes) -> u32 {
    let d = (p.lo ^ (p.lo >> vec4<u32>(1u))) | (p.hi ^ (p.hi >> vec4<u32>(1u)));
    return ~(d.x | d.y | d.z | d.w);
}

// Bit u set where faces u of two rows have the same ambient occlusion.
fn ao_equal_rows(p: AoPlanes, q: AoPlanes) -> u32 {
    let d = (p.lo ^ q.lo) | (p.hi ^ q.hi);
    return ~(d.x | d.y | d.z | d.w);
}
