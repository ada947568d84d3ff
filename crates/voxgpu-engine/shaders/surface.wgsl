// A quad's place and a surface's colour before light and haze: shared by the chunk draw
// (chunk_draw.wgsl: every vertex, and the forward-shaded fragments) and the opaque surfaces'
// shading pass (shade.wgsl), which rebuilds each pixel's surface from the quad its key names.
// Both must colour a point of a quad the same way.
//
// Reads the globals its includer declares under these names: camera, blocks (per block id: its
// RGBA8 colour, then its face tiles: top, side, bottom, 8 bits each, and its emission in bits
// 24-27), atlas and tile_averages (the texture atlas, crates/voxgpu-core/src/voxel/atlas.rs).

// Brightness at ambient occlusion 0 (a corner closed on both sides).
const AO_DARKEST: f32 = 0.42;

// A quad of the mega quad buffer, decoded, in its node.
struct QuadPlace {
    face: u32,
    // The face's axis, and the quad's two axes across it (u then v).
    axis: u32,
    u_axis: u32,
    v_axis: u32,
    positive: bool,
    skirt: u32,
    block: u32,
    // The quad's minimum cell in the node, and its size across, in cells.
    min_cell: vec3<f32>,
    size: vec2<f32>,
    // Blocks per cell (2^level).
    scale: f32,
    // The node's minimum corner measured from camera.anchor, in blocks.
    origin: vec3<f32>,
    // Ambient occlusion at the corners (0 closed .. 3 open): (0, 0), (+u, 0), (0, +v), (+u, +v).
    corner_ao: vec4<u32>,
}

fn quad_place(quad: vec2<u32>, chunk: ChunkMeta) -> QuadPlace {
    var place: QuadPlace;
    place.face = quad_field(quad, QUAD_FACE_WORD, QUAD_FACE_SHIFT, QUAD_FACE_BITS);
    place.axis = face_axis(place.face);
    place.u_axis = (place.axis + 1u) % 3u;
    place.v_axis = (place.axis + 2u) % 3u;
    place.positive = face_is_positive(place.face);
    place.skirt = quad_field(quad, QUAD_SKIRT_WORD, QUAD_SKIRT_SHIFT, QUAD_SKIRT_BITS);
    place.block = quad_field(quad, QUAD_BLOCK_WORD, QUAD_BLOCK_SHIFT, QUAD_BLOCK_BITS);
    place.min_cell = vec3<f32>(
        f32(quad_field(quad, QUAD_X_WORD, QUAD_X_SHIFT, QUAD_X_BITS)),
        f32(quad_field(quad, QUAD_Y_WORD, QUAD_Y_SHIFT, QUAD_Y_BITS)),
        f32(quad_field(quad, QUAD_Z_WORD, QUAD_Z_SHIFT, QUAD_Z_BITS)),
    );
    place.size = vec2<f32>(
        f32(quad_field(quad, QUAD_W_WORD, QUAD_W_SHIFT, QUAD_W_BITS) + 1u),
        f32(quad_field(quad, QUAD_H_WORD, QUAD_H_SHIFT, QUAD_H_BITS) + 1u),
    );
    place.scale = f32(1u << chunk.lod);
    place.origin = anchored(chunk.origin, camera.anchor);
    // Two bits per corner, corner k on the +u side when k & 1 and the +v side when k & 2.
    let ao = quad_field(quad, QUAD_AO_WORD, QUAD_AO_SHIFT, QUAD_AO_BITS);
    place.corner_ao = vec4<u32>(ao & 3u, (ao >> 2u) & 3u, (ao >> 4u) & 3u, (ao >> 6u) & 3u);
    return place;
}

// Whether the quad is split into its two triangles along the diagonal from (+u, 0) to (0, +v)
// rather than from (0, 0) to (+u, +v): where those two corners are brighter together, so a dark
// corner darkens one triangle rather than a streak across both (the anisotropy of interpolated
// ambient occlusion).
fn ao_flipped(corner_ao: vec4<u32>) -> bool {
    return corner_ao.y + corner_ao.z > corner_ao.x + corner_ao.w;
}

// The quad's ambient occlusion, 0 closed .. 1 open, at `uv` (0..1 across it): linear over each
// of its two triangles, as the rasteriser interpolates the corners' values (on a flat triangle a
// perspective-correct interpolation is the linear one in the triangle's own plane).
fn ao_across(corner_ao: vec4<u32>, uv: vec2<f32>) -> f32 {
    let a = vec4<f32>(corner_ao) / 3.0;
    let u = uv.x;
    let v = uv.y;
    if ao_flipped(corner_ao) {
        if u + v <= 1.0 {
            return a.x + u * (a.y - a.x) + v * (a.z - a.x);
        }
        return a.w + (1.0 - u) * (a.z - a.w) + (1.0 - v) * (a.y - a.w);
    }
    if u >= v {
        return a.x + u * (a.y - a.x) + v * (a.w - a.y);
    }
    return a.x + v * (a.z - a.x) + u * (a.w - a.z);
}

// Block colours and tile averages are sRGB bytes; light and fog work in linear RGB, and the
// sRGB target encodes the result again.
fn srgb_bytes_to_linear(packed: u32) -> vec4<f32> {
    let c = unpack4x8unorm(packed);
    return vec4<f32>(pow(c.rgb, vec3<f32>(2.2)), c.a);
}

// A small per-block brightness jitter so greedy-merged surfaces still read as blocks: a hash of
// the world block, so it does not move with the camera. It repeats every 65,536 blocks along each
// axis (far beyond what one view can compare): each coordinate is wrapped into [-32768, 32768)
// by sign-extending its low 16 bits, so the same chunks moved by a multiple of 65,536 blocks draw
// the very same frame.
fn block_jitter(position: vec3<f32>, face: u32) -> f32 {
    // Step half a block inwards so the sample floors to the block that owns the face.
    let world = vec3<i32>(floor(position - face_normal(face) * 0.5)) + camera.anchor;
    let cell = vec3<u32>((world << vec3<u32>(16u)) >> vec3<u32>(16u));
    var h = (cell.x * 73856093u) ^ (cell.y * 19349663u) ^ (cell.z * 83492791u);
    h = (h ^ (h >> 13u)) * 1274126177u;
    return 0.94 + 0.12 * f32(h & 255u) / 255.0;
}

// Where a point of a face (measured from camera.anchor) lies on its tiles, in blocks: across
// and down a side, x and z on a top or bottom. The anchor is a whole block, so the tiles sit
// where world coordinates put them.
fn tile_coords(face: u32, anchored: vec3<f32>) -> vec2<f32> {
    if face_axis(face) == 0u {
        return vec2<f32>(anchored.z, -anchored.y);
    } else if face_axis(face) == 2u {
        return vec2<f32>(anchored.x, -anchored.y);
    }
    return anchored.xz;
}

// The surface colour (linear) and alpha of block `block`'s face `face` at tile coordinates `st`:
// the face's tile, repeated once per block in world units (so a merged quad, at any level, shows
// one tile per block), read texel by texel (nearest). Where a pixel spans more than about a texel
// (`texels_per_pixel`, the larger of the tile coordinates' changes across one pixel, in texels)
// it fades to the tile's average, which stands in for mipmaps. The plain tile is tinted by the
// block's colour and alpha.
fn albedo(block: u32, face: u32, st: vec2<f32>, texels_per_pixel: f32) -> vec4<f32> {
    let info = blocks[block];
    var tile = (info.y >> 8u) & 0xffu;
    if face == FACE_POS_Y {
        tile = info.y & 0xffu;
    } else if face == FACE_NEG_Y {
        tile = (info.y >> 16u) & 0xffu;
    }
    let texel = min(vec2<u32>(fract(st) * f32(TILE_SIZE)), vec2<u32>(TILE_SIZE - 1u));
    let origin = vec2<u32>(tile % ATLAS_COLUMNS, tile / ATLAS_COLUMNS) * TILE_SIZE;
    let near = textureLoad(atlas, origin + texel, 0);
    var color = mix(near, srgb_bytes_to_linear(tile_averages[tile]), smoothstep(0.75, 2.0, texels_per_pixel));
    if tile == TILE_PLAIN {
        let tint = srgb_bytes_to_linear(info.x);
        color = vec4<f32>(color.rgb * tint.rgb, tint.a);
    }
    return color;
}

// A surface's colour before light and haze: the albedo with the block's jitter and ambient
// occlusion (`ao`, 0 closed .. 1 open).
fn unlit_color(block: u32, face: u32, anchored: vec3<f32>, texels_per_pixel: f32, ao: f32) -> vec4<f32> {
    let rgba = albedo(block, face, tile_coords(face, anchored), texels_per_pixel);
    let occlusion = mix(AO_DARKEST, 1.0, ao);
    return vec4<f32>(rgba.rgb * block_jitter(anchored, face) * occlusion, rgba.a);
}

// A block's emission, 0..1.
fn block_emission(block: u32) -> f32 {
    return f32((blocks[block].y >> 24u) & 15u) / 15.0;
}
