// Light, shadow and haze of a point on a surface: shared by the forward-shaded passes
// (chunk_draw.wgsl: the transparent quads, the light view, fs_opaque_forward) and the opaque surfaces' shading pass
// (shade.wgsl), which both read them the same way.
//
// Reads the globals its includer declares under these names: camera, light (the light pool,
// common.wgsl's LIGHT_WORDS per slot), links (the same-level neighbour links), shadow_near,
// shadow_far and shadow_sampler (src/shadow.rs).

// A point of a surface as its lighting sees it.
struct SurfacePoint {
    // Measured from camera.anchor, in blocks.
    anchored: vec3<f32>,
    face: u32,
    // The node's slot, the mip its quads were meshed at (lod - node level) and their level.
    slot: u32,
    mip: u32,
    lod: u32,
    // The node's minimum corner, world blocks.
    origin: vec3<i32>,
}

// Skirts are pushed back by this fraction of their distance (reverse-Z: depth falls as 1 / w,
// so scaling it by 1 - f moves the quad about f × distance further away). They then lose every
// depth test against a real surface at the same place and show only through gaps.
const SKIRT_DEPTH_BIAS: f32 = 1.0 / 2048.0;

// A surface's colour seen from the eye along `to_surface` (anchored, not normalised): faded by
// the medium the eye is in, then by the haze into the sky behind it. The near field, where the
// haze is under 1/1024, returns before any transcendental or the sky's gradient.
fn atmosphere(color: vec3<f32>, to_surface: vec3<f32>) -> vec3<f32> {
    let distance2 = dot(to_surface, to_surface);
    if camera.medium.w > 0.0 {
        return mix(camera.medium.rgb, color, exp(-sqrt(distance2) / camera.medium.w));
    }
    if (camera.sky_flags & SKY_HAZE) == 0u {
        return color;
    }
    let haze = haze_amount(distance2, camera.fog_end, camera.fog_exponent, camera.haze_clear2);
    if haze == 0.0 {
        return color;
    }
    let procedural = (camera.sky_flags & SKY_PROCEDURAL) != 0u;
    let dir = to_surface * inverseSqrt(max(distance2, 1e-12));
    return mix(color, sky_gradient(camera.sky_color, dir, procedural, camera.sun), haze);
}

// The light byte `index` of `slot`'s light.
fn light_byte(slot: u32, index: u32) -> u32 {
    return (light[slot * LIGHT_WORDS + index / 4u] >> ((index % 4u) * 8u)) & 0xffu;
}

// The light byte of cell `cell` of level `mip` of `slot`'s node, where the cell may lie one node
// across on any axis (reached through the face links, an axis at a time); 0 where no node is.
// Written without loops (llvmpipe has miscompiled looped link walks, chunk_links.wgsl).
fn light_cell(slot: u32, mip: u32, cell: vec3<i32>) -> u32 {
    let size = i32(CHUNK_SIZE >> mip);
    var s = slot;
    var p = cell;
    if p.x < 0 {
        s = links[s * LINK_WORDS + FACE_NEG_X];
        p.x += size;
    } else if p.x >= size {
        s = links[s * LINK_WORDS + FACE_POS_X];
        p.x -= size;
    }
    if s != NO_SLOT && p.y < 0 {
        s = links[s * LINK_WORDS + FACE_NEG_Y];
        p.y += size;
    } else if s != NO_SLOT && p.y >= size {
        s = links[s * LINK_WORDS + FACE_POS_Y];
        p.y -= size;
    }
    if s != NO_SLOT && p.z < 0 {
        s = links[s * LINK_WORDS + FACE_NEG_Z];
        p.z += size;
    } else if s != NO_SLOT && p.z >= size {
        s = links[s * LINK_WORDS + FACE_POS_Z];
        p.z -= size;
    }
    if s == NO_SLOT {
        return 0u;
    }
    let q = vec3<u32>(p);
    return light_byte(s, light_level_base(mip) + q.x + u32(size) * (q.y + u32(size) * q.z));
}

// Sky (x) and block (y) light in front of surface point `p`, 0..15: the four cells of the meshed
// level nearest it in the layer in front of its face, weighted bilinearly, so light changes
// smoothly across a greedy quad and across node borders. Cells of light 0 (opaque cells, which
// hold only their emission, and the unlit) are left out of the weights, so a wall beside the
// face does not darken it (ambient occlusion already does).
// Axes are picked by masks, not by indexing a vector with the face's axis (a dynamically
// indexed vector can spill to memory); where the four cells lie in the node, as they do but
// at its borders, they are read from its slot directly.
fn sampled_light(p: SurfacePoint) -> vec2<f32> {
    let face = p.face;
    let axis = face_axis(face);
    let normal = axis_unit(axis);
    let eu = axis_unit((axis + 1u) % 3u);
    let ev = axis_unit((axis + 2u) % 3u);
    let mip = p.mip;
    let slot = p.slot;
    // The fragment in the meshed level's cells, measured from the node's corner, moved half a
    // cell into the layer in front of the face.
    let local = (p.anchored - anchored(p.origin, camera.anchor)) / f32(1u << p.lod);
    let q = local + face_normal(face) * 0.5;
    let t = vec2<f32>(dot(q, eu), dot(q, ev)) - 0.5;
    let low = floor(t);
    let w = t - low;
    // The first of the four cells (the others one step along u, v and both).
    let first = vec3<i32>(floor(q * normal) + low.x * eu + low.y * ev);
    let iu = vec3<i32>(eu);
    let iv = vec3<i32>(ev);
    let size = i32(CHUNK_SIZE >> mip);
    var b: vec4<u32>;
    if all(first >= vec3<i32>(0)) && all(first + iu + iv < vec3<i32>(size)) {
        let stride = vec3<i32>(1, size, size * size);
        let su = u32(dot(iu, stride));
        let sv = u32(dot(iv, stride));
        let i = light_level_base(mip) + u32(dot(first, stride));
        b = vec4<u32>(light_byte(slot, i), light_byte(slot, i + su), light_byte(slot, i + sv), light_byte(slot, i + su + sv));
    } else {
        b = vec4<u32>(
            light_cell(slot, mip, first),
            light_cell(slot, mip, first + iu),
            light_cell(slot, mip, first + iv),
            light_cell(slot, mip, first + iu + iv),
        );
    }
    let bilinear = vec4<f32>((1.0 - w.x) * (1.0 - w.y), w.x * (1.0 - w.y), (1.0 - w.x) * w.y, w.x * w.y);
    let weights = bilinear * vec4<f32>(b != vec4<u32>(0u));
    let weight = dot(weights, vec4<f32>(1.0));
    if weight <= 0.0 {
        return vec2<f32>(0.0);
    }
    let sky = vec4<f32>(b & vec4<u32>(15u));
    let block = vec4<f32>(b >> vec4<u32>(4u));
    return vec2<f32>(dot(weights, sky), dot(weights, block)) / weight;
}

// The brightness of light level `level` (0..15, interpolated): 0.8 per level below 15, so
// 15 is 1 and 0 about 0.035, as the eye reads light's fall-off.
fn light_brightness(level: vec2<f32>) -> vec2<f32> {
    return exp2((level - 15.0) * 0.321928);
}

// Block light's colour (linear): warm, as lamps and lava are.
const BLOCK_LIGHT_COLOR: vec3<f32> = vec3<f32>(1.0, 0.78, 0.52);

// Light from the open sky by face at full daylight: up faces see all of it, sides half, down
// faces what the ground throws back. With the sun's diffuse light on the faces it faces
// (SUN_DIFFUSE), at 10:00 these give face_shade's fixed shades within 0.1 (its ±Z pair,
// 0.70 and 0.88, become 0.62 and 0.79: no one sun gives face_shade's six).
fn sky_ambient(face: u32) -> f32 {
    if face == FACE_POS_Y {
        return 0.74;
    }
    return select(0.62, 0.45, face == FACE_NEG_Y);
}
const SUN_DIFFUSE: f32 = 0.36;
// The sky's light at night (linear), moonlit blue.
const NIGHT_SKY: vec3<f32> = vec3<f32>(0.05, 0.065, 0.12);

// What open sky lights a face with at this hour (Camera.sun): the sky's share, darkening into
// night, and the sun's, warmer as it sets, times `sunlit`, the share of the sun that reaches the
// fragment (sun_visibility).
fn daylight(face: u32, sunlit: f32) -> vec3<f32> {
    let sun = camera.sun;
    let sky = sky_ambient(face) * mix(NIGHT_SKY, vec3<f32>(1.0), sun.w);
    let tint = mix(vec3<f32>(1.0, 0.62, 0.38), vec3<f32>(1.0), smoothstep(0.05, 0.4, sun.y));
    let direct = max(dot(face_normal(face), sun.xyz), 0.0) * SUN_DIFFUSE * smoothstep(-0.02, 0.15, sun.y);
    return sky + direct * sunlit * tint;
}

// How much of the sun reaches this fragment of a face turned towards it: 0 where something lies
// between it and the sun within the cascades' reach, 1 where nothing does, and between along
// the filtered edge of a shadow; 1 beyond the outer cascade, faded in over its last 15%
// (shadow::FADE_SHARE). The fragment reads the inner cascade within its radius, the outer one
// beyond. It is looked up two texels off its face along the normal, so the face does not
// shadow itself where the map's texels slope across it. Each cascade fills its own map, and the
// filter never reaches past its edge: a cascade is read only within its inscribed sphere.
fn sun_visibility(anchored: vec3<f32>, face: u32) -> f32 {
    let to_eye = anchored - camera.eye;
    let distance = sqrt(dot(to_eye, to_eye));
    let outer = camera.shadow_radii.y;
    if distance >= outer {
        return 1.0;
    }
    let cascade = u32(distance >= camera.shadow_radii.x - 1.0);
    let texel = select(camera.shadow_radii.z, camera.shadow_radii.w, cascade == 1u);
    let p = anchored + face_normal(face) * (2.0 * texel);
    let clip = camera.shadow_view_proj[cascade] * vec4<f32>(p, 1.0);
    let uv = vec2<f32>(clip.x * 0.5 + 0.5, 0.5 - clip.y * 0.5);
    // The level variant of the read needs no uniform control flow.
    var lit: f32;
    if cascade == 0u {
        lit = textureSampleCompareLevel(shadow_near, shadow_sampler, uv, clip.z);
    } else {
        lit = textureSampleCompareLevel(shadow_far, shadow_sampler, uv, clip.z);
    }
    return mix(lit, 1.0, smoothstep(0.85 * outer, outer, distance));
}

// How a surface point is lit (linear RGB, before the surface colour): by the sky's light (the
// daylight of its face, dimmed by the sky light in front of it) or its block light, whichever is
// brighter per channel, and at least by `own`, its block's emission (0..1). With light off
// (Camera.sky_flags), by the daylight alone, as if everything stood in the open. With shadows
// on, the sun's share of the daylight is what reaches the fragment.
fn lighting(p: SurfacePoint, own: f32) -> vec3<f32> {
    let face = p.face;
    var sunlit = 1.0;
    if (camera.sky_flags & SKY_SHADOWS) != 0u && dot(face_normal(face), camera.sun.xyz) > 0.0 && camera.sun.y > -0.02 {
        sunlit = sun_visibility(p.anchored, face);
    }
    let open = daylight(face, sunlit);
    if (camera.sky_flags & SKY_LIGHT) == 0u {
        return open;
    }
    let b = light_brightness(sampled_light(p));
    let lit = max(open * b.x, b.y * BLOCK_LIGHT_COLOR * sky_ambient(face) / 0.62);
    return max(lit, vec3<f32>(own));
}
