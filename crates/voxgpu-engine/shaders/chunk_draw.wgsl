// Chunk draw: pulls quads from the mega quad buffer and shades them.
//
// Reads:  quads (mega quad buffer), page_owner (page -> chunk slot), chunks (ChunkMeta per slot:
//         origin and the level its quads are in), blocks (colour and face tiles per block id),
//         atlas and tile_averages (the texture atlas, crates/voxgpu-core/src/voxel/atlas.rs),
//         camera, light and links (the cells' sky and block light, lighting.wgsl), the shadow
//         maps.
// Writes: depth, and the colour of the current render pass; the opaque pass writes the
//         surface targets instead (unlit colour, surface key), which shade.wgsl lights once
//         per pixel.
// Entry points: one vertex shader; one fragment shader per raster pass (src/render_mode.rs):
//         opaque into the surface targets (fs_opaque) or shaded forward (fs_opaque_forward),
//         shaded transparent, LOD colours, chunk colours, quad-size heat map, and
//         wireframe (line polygon mode, or quad edges found in the fragment where lines are
//         missing); fs_fade_depth for the depth pre-pass of cross-fading nodes. With the
//         FADE_DITHER constant set (the pipelines of the fading list, and the transparent one),
//         each fragment shader keeps a cross-fading node's fragment on its share of the dither.
// Drawn:  multi_draw_indexed_indirect(_count). Each command covers a run of quads of one chunk and
//         one face direction; base_vertex = 4 * first quad, and a static index buffer repeats
//         (0, 1, 2, 0, 2, 3) + 4q, so vertex_index / 4 is the global quad index and
//         vertex_index % 4 the corner. There is no vertex buffer.
//         Or instanced (camera.page_list_capacity != 0): one draw_indexed_indirect per list with
//         one instance per command, each command one page at most. The instance reads its
//         command from `args`; the quad is the command's first quad + (vertex_index / 4) %
//         PAGE_QUADS, and the transparent draw starts one page into the index pattern, so
//         vertex_index / 4 / PAGE_QUADS names the list. Corners past the command's quads
//         collapse to one point and draw nothing.

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> quads: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> page_owner: array<u32>;
@group(0) @binding(3) var<storage, read> chunks: array<ChunkMeta>;
// Per block id: RGBA8 colour, then its face tiles (top, side, bottom; 8 bits each).
@group(0) @binding(4) var<storage, read> blocks: array<vec2<u32>>;
@group(0) @binding(5) var atlas: texture_2d<f32>;
// Per tile: its mean colour, RGBA8 sRGB.
@group(0) @binding(6) var<storage, read> tile_averages: array<u32>;
// The draw lists (cull.wgsl), in regions of capacity commands: the nearest opaque band at 0, the
// transparent sorted at 2, and list k >= 2 (fading, occluded, the farther opaque bands) at k + 1.
// Read by the instanced path only.
@group(0) @binding(7) var<storage, read> args: array<DrawArgs>;
// The light pool (common.wgsl's LIGHT_WORDS per slot) and the same-level neighbour links, for
// the light in front of each fragment (light.wgsl computes it).
@group(0) @binding(8) var<storage, read> light: array<u32>;
@group(0) @binding(9) var<storage, read> links: array<u32>;
// The sun's depth in the inner and the outer shadow cascade (src/shadow.rs), compared through
// shadow_sampler (LessEqual, filtered: 2 x 2 texels per read). 1 x 1 maps that are never drawn
// when shadows are off, and while the shadow pass draws the real ones.
@group(0) @binding(10) var shadow_near: texture_depth_2d;
@group(0) @binding(11) var shadow_far: texture_depth_2d;
@group(0) @binding(12) var shadow_sampler: sampler_comparison;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;

struct VertexOut {
    // Invariant: the depth pre-pass and the opaque pass must compute the same depth.
    @builtin(position) @invariant clip: vec4<f32>,
    // The position measured from camera.anchor, in blocks. Its fraction is the world position's
    // (the anchor is a whole block), and its precision does not fall with distance from the
    // world's origin.
    @location(0) anchored: vec3<f32>,
    // The flat per-quad values packed into one varying (each varying costs the rasteriser):
    // the node's draw state (ChunkMeta::shown, its cross-fade) in bits 0-23, the face direction
    // in 24-26, 1 for a skirt quad in bit 27, the chunk's level of detail in 28-31. Read them
    // with draw_of, face_of, skirt_of and lod_of.
    @location(1) @interpolate(flat) tags: u32,
    @location(2) @interpolate(flat) block: u32,
    // The node's slot in bits 3.., the mip its quads were meshed at (lod - node level) in 0..3:
    // where the fragment's light is read.
    @location(3) @interpolate(flat) slot_mip: u32,
    // Position inside the quad, in its voxels (0..w, 0..h), and the quad's size.
    @location(5) quad_uv: vec2<f32>,
    @location(6) @interpolate(flat) quad_size: vec2<u32>,
    @location(7) @interpolate(flat) chunk_origin: vec3<i32>,
    // Ambient occlusion, 1 open .. 0 closed, interpolated from the quad's corners.
    @location(8) ao: f32,
}

const TAG_FACE_SHIFT: u32 = 24u;
const TAG_SKIRT_SHIFT: u32 = 27u;
const TAG_LOD_SHIFT: u32 = 28u;

fn draw_of(in: VertexOut) -> u32 {
    return in.tags & ((1u << TAG_FACE_SHIFT) - 1u);
}

fn face_of(in: VertexOut) -> u32 {
    return (in.tags >> TAG_FACE_SHIFT) & 7u;
}

fn skirt_of(in: VertexOut) -> u32 {
    return (in.tags >> TAG_SKIRT_SHIFT) & 1u;
}

fn lod_of(in: VertexOut) -> u32 {
    return in.tags >> TAG_LOD_SHIFT;
}

// Set on the pipelines that may draw cross-fading nodes: the fading list's, and the transparent
// one (its list holds fading nodes' transparent faces too). Elsewhere the test below folds away,
// so the opaque pipeline has no discard and keeps early depth testing.
override FADE_DITHER: bool = false;

// Whether this fragment of a cross-fading node belongs to the other level. A 4 × 4 ordered
// dither over 2 × 2-pixel blocks says which of the two levels each block shows: the new one where
// the threshold lies below the new level's share, which grows by one step of 1 / (total + 1) a
// frame. The node fading in and the one fading out read the same threshold and the same share
// (they began the same frame), so at every pixel exactly one of them draws. A block is the quad
// of pixels a GPU shades together, so a fragment shader may discard first: a quad is discarded
// or kept whole, and a kept one has all four pixels for its derivatives.
fn faded_away(in: VertexOut) -> bool {
    let left = fade_left(draw_of(in));
    if !FADE_DITHER || left == 0u {
        return false;
    }
    let total = (draw_of(in) >> DRAW_FADE_TOTAL_SHIFT) & 0xffu;
    let share = f32(total + 1u - left) / f32(total + 1u);
    let pixel = (vec2<u32>(in.clip.xy) >> vec2<u32>(1u)) & vec2<u32>(3u);
    var bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    let threshold = (f32(bayer[pixel.y * 4u + pixel.x]) + 0.5) / 16.0;
    let shows_new = threshold < share;
    return shows_new != ((draw_of(in) & DRAW_SHOWN) != 0u);
}

// Corner (du, dv) in the face's tangent plane. Positive faces go counter-clockwise seen from
// outside; negative faces reverse the order so they too are front-facing from outside.
fn corner_offset(corner: u32, positive: bool) -> vec2<f32> {
    var c = corner;
    if !positive {
        c = (4u - corner) & 3u;
    }
    let du = f32(c == 1u || c == 2u);
    let dv = f32(c >= 2u);
    return vec2<f32>(du, dv);
}

// Brightness at ambient occlusion 0 (a corner closed on both sides).
const AO_DARKEST: f32 = 0.42;

// The quad vertex `vertex` of a draw reads, or NO_QUAD where it draws nothing: on the instanced
// path the command is entry `instance` of `region` (of camera.page_list_capacity commands), the
// quad that command's first + (vertex / 4) % PAGE_QUADS, and corners past its quads draw
// nothing; otherwise the quad is vertex / 4 (base_vertex holds the command's first quad).
const NO_QUAD: u32 = 0xffffffffu;
fn pulled_quad(vertex: u32, instance: u32, region: u32) -> u32 {
    let quad_index = vertex >> 2u;
    let capacity = camera.page_list_capacity;
    if capacity == 0u {
        return quad_index;
    }
    let command = args[region * capacity + min(instance, capacity - 1u)];
    let local = quad_index & (PAGE_QUADS - 1u);
    if 6u * local >= command.index_count || instance >= capacity {
        return NO_QUAD;
    }
    return u32(command.base_vertex) / 4u + local;
}

// A vertex behind the near plane (reverse-Z: depth below 0; in a shadow cascade, before its
// nearest depth), so clipped in every polygon mode: what a vertex that draws nothing returns.
fn clipped() -> VertexOut {
    var none: VertexOut;
    none.clip = vec4<f32>(0.0, 0.0, -1.0, 1.0);
    return none;
}

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> VertexOut {
    // List 0 reads region 0, list 1 (transparent) the sorted region 2, list k >= 2 region k + 1.
    let list = vertex >> (2u + QUAD_PAGE_LOG2);
    let quad_index = pulled_quad(vertex, instance, min(2u * list, list + 1u));
    if quad_index == NO_QUAD {
        return clipped();
    }
    return quad_vertex(quad_index, vertex & 3u);
}

// The cascade a shadow pipeline draws (src/shadow.rs).
override SHADOW_CASCADE: u32 = 0u;

// A shadow caster's vertex in cascade SHADOW_CASCADE, whose commands fill region
// SHADOW_CASCADE of its lists (shadow_cull.wgsl). Skirts cast nothing: they hang below node
// borders to hide cracks from the eye, not from the sun.
@vertex
fn vs_shadow(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> @builtin(position) vec4<f32> {
    let quad_index = pulled_quad(vertex, instance, SHADOW_CASCADE);
    if quad_index == NO_QUAD || quad_field(quads[quad_index], QUAD_SKIRT_WORD, QUAD_SKIRT_SHIFT, QUAD_SKIRT_BITS) != 0u {
        return clipped().clip;
    }
    let out = quad_vertex(quad_index, vertex & 3u);
    return camera.shadow_view_proj[SHADOW_CASCADE] * vec4<f32>(out.anchored, 1.0);
}

// Corner `corner_index` (0..4) of quad `quad_index` of the mega quad buffer, as both the
// shaded passes and the shadow casters see it.
fn quad_vertex(quad_index: u32, corner_index: u32) -> VertexOut {
    let quad = quads[quad_index];
    // Two bits per corner, corner k on the +u side when k & 1 and the +v side when k & 2.
    let ao = quad_field(quad, QUAD_AO_WORD, QUAD_AO_SHIFT, QUAD_AO_BITS);
    let corner_ao = vec4<u32>(ao & 3u, (ao >> 2u) & 3u, (ao >> 4u) & 3u, (ao >> 6u) & 3u);
    let slot = page_owner[quad_index >> QUAD_PAGE_LOG2];
    let chunk = chunks[slot];

    let face = quad_field(quad, QUAD_FACE_WORD, QUAD_FACE_SHIFT, QUAD_FACE_BITS);
    let axis = face_axis(face);
    let positive = face_is_positive(face);
    let u_axis = (axis + 1u) % 3u;
    let v_axis = (axis + 2u) % 3u;
    let size = vec2<f32>(
        f32(quad_field(quad, QUAD_W_WORD, QUAD_W_SHIFT, QUAD_W_BITS) + 1u),
        f32(quad_field(quad, QUAD_H_WORD, QUAD_H_SHIFT, QUAD_H_BITS) + 1u),
    );
    let min_block = vec3<f32>(
        f32(quad_field(quad, QUAD_X_WORD, QUAD_X_SHIFT, QUAD_X_BITS)),
        f32(quad_field(quad, QUAD_Y_WORD, QUAD_Y_SHIFT, QUAD_Y_BITS)),
        f32(quad_field(quad, QUAD_Z_WORD, QUAD_Z_SHIFT, QUAD_Z_BITS)),
    );
    // The index buffer splits the quad along the diagonal from corner (0, 0) to (1, 1). Where
    // the other two corners are brighter together, rotating the corners by one splits it along
    // their diagonal instead, so a dark corner darkens one triangle rather than a streak across
    // both (the anisotropy of interpolated ambient occlusion).
    var corner = corner_index;
    if corner_ao.y + corner_ao.z > corner_ao.x + corner_ao.w {
        corner = (corner + 1u) & 3u;
    }
    let unit = corner_offset(corner, positive);
    let offset = unit * size;
    // A positive face lies on the far side of its block: block i spans [i, i + 1).
    var local = min_block + axis_unit(axis) * f32(positive);
    local += axis_unit(u_axis) * offset.x + axis_unit(v_axis) * offset.y;
    let position = anchored(chunk.origin, camera.anchor) + local * f32(1u << chunk.lod);

    var out: VertexOut;
    out.clip = camera.view_proj * vec4<f32>(position, 1.0);
    let skirt = quad_field(quad, QUAD_SKIRT_WORD, QUAD_SKIRT_SHIFT, QUAD_SKIRT_BITS);
    if skirt != 0u {
        out.clip.z *= 1.0 - SKIRT_DEPTH_BIAS;
    }
    out.anchored = position;
    out.block = quad_field(quad, QUAD_BLOCK_WORD, QUAD_BLOCK_SHIFT, QUAD_BLOCK_BITS);
    out.quad_uv = offset;
    out.quad_size = vec2<u32>(size);
    out.chunk_origin = chunk.origin;
    out.slot_mip = (slot << 3u) | (chunk.lod - chunk.node_level);
    out.ao = f32(corner_ao[u32(unit.x) + 2u * u32(unit.y)]) / 3.0;
    // The draw state fits in bits 0-23 (two 8-bit fade counts from bit 8), the level in 4 bits
    // (LEVEL_THRESHOLDS is 16).
    out.tags = chunk.shown | (face << TAG_FACE_SHIFT) | (skirt << TAG_SKIRT_SHIFT) | (chunk.lod << TAG_LOD_SHIFT);
    return out;
}

// Fixed per-direction light for the debug views, whose colour is the message.
fn face_shade(face: u32) -> f32 {
    var shade = array<f32, 6>(0.80, 0.62, 1.00, 0.45, 0.70, 0.88);
    return shade[face];
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

// Colour of each level of detail in the `lod` colour mode (linear RGB): green, yellow, orange,
// red, magenta, blue from full detail (cells of 1 block) to cells of 32 blocks, then again.
fn lod_color(lod: u32) -> vec3<f32> {
    var colors = array<vec3<f32>, 6>(
        vec3<f32>(0.10, 0.60, 0.10),
        vec3<f32>(0.80, 0.75, 0.05),
        vec3<f32>(0.90, 0.35, 0.02),
        vec3<f32>(0.75, 0.05, 0.05),
        vec3<f32>(0.60, 0.05, 0.60),
        vec3<f32>(0.05, 0.15, 0.80),
    );
    return colors[lod % 6u];
}

// Block colours and tile averages are sRGB bytes; light and fog work in linear RGB, and the
// sRGB target encodes the result again.
fn srgb_bytes_to_linear(packed: u32) -> vec4<f32> {
    let c = unpack4x8unorm(packed);
    return vec4<f32>(pow(c.rgb, vec3<f32>(2.2)), c.a);
}

// The surface colour (linear) and alpha at this fragment: the face's tile, repeated once per
// block in world units (so a merged quad, at any level, shows one tile per block), read texel by
// texel (nearest). Where a pixel spans more than about a texel it fades to the tile's average,
// which stands in for mipmaps. The plain tile is tinted by the block's colour and alpha.
fn albedo(in: VertexOut) -> vec4<f32> {
    let info = blocks[in.block];
    var tile = (info.y >> 8u) & 0xffu;
    if face_of(in) == FACE_POS_Y {
        tile = info.y & 0xffu;
    } else if face_of(in) == FACE_NEG_Y {
        tile = (info.y >> 16u) & 0xffu;
    }
    // Tile coordinates in blocks: across and down a side, x and z on a top or bottom. Measured
    // from the anchor, a whole block, so the tiles sit where world coordinates put them.
    var st = in.anchored.xz;
    if face_axis(face_of(in)) == 0u {
        st = vec2<f32>(in.anchored.z, -in.anchored.y);
    } else if face_axis(face_of(in)) == 2u {
        st = vec2<f32>(in.anchored.x, -in.anchored.y);
    }
    let texels_per_pixel = max(fwidth(st.x), fwidth(st.y)) * f32(TILE_SIZE);
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


// The fragment as lighting.wgsl sees it.
fn surface_point(in: VertexOut) -> SurfacePoint {
    return SurfacePoint(in.anchored, face_of(in), in.slot_mip >> 3u, in.slot_mip & 7u, lod_of(in), in.chunk_origin);
}

// The fragment's block's emission, 0..1.
fn emission(in: VertexOut) -> f32 {
    return f32((blocks[in.block].y >> 24u) & 15u) / 15.0;
}

// The surface's colour before light and haze: the albedo with the block's jitter and ambient
// occlusion.
fn unlit(in: VertexOut) -> vec4<f32> {
    let rgba = albedo(in);
    let occlusion = mix(AO_DARKEST, 1.0, in.ao);
    return vec4<f32>(rgba.rgb * block_jitter(in.anchored, face_of(in)) * occlusion, rgba.a);
}

// The fragment shaded forward: lit and hazed here (the transparent pass).
fn shade(in: VertexOut) -> vec4<f32> {
    let rgba = unlit(in);
    let color = rgba.rgb * lighting(surface_point(in), emission(in));
    return vec4<f32>(atmosphere(color, in.anchored - camera.eye), rgba.a);
}

// An opaque surface's fragment, lit later by shade.wgsl once per pixel: its unlit colour (times
// UNLIT_SCALE) with its block's emission in alpha, and its surface key (common.wgsl's surface_key).
struct SurfaceOut {
    @location(0) color: vec4<f32>,
    @location(1) key: u32,
}

// The drawing fragment shaders discard first (`faded_away` keeps or discards whole quads), so
// the other level's share of a cross-fade costs no texture read and no light.

@fragment
fn fs_opaque(in: VertexOut) -> SurfaceOut {
    if faded_away(in) {
        discard;
    }
    let color = unlit(in);
    let key = surface_key(in.slot_mip >> 3u, face_of(in), skirt_of(in));
    return SurfaceOut(vec4<f32>(color.rgb * UNLIT_SCALE, emission(in)), key);
}

// An opaque fragment shaded here, into the colour target: the shaded opaque passes' variant for
// a depth target the shade pass cannot read.
@fragment
fn fs_opaque_forward(in: VertexOut) -> @location(0) vec4<f32> {
    if faded_away(in) {
        discard;
    }
    let color = shade(in);
    return vec4<f32>(color.rgb, 1.0);
}

// The pass writes no depth, so the discard of the other level's share keeps early depth testing.
@fragment
fn fs_transparent(in: VertexOut) -> @location(0) vec4<f32> {
    if faded_away(in) {
        discard;
    }
    return shade(in);
}

// The depth pre-pass of cross-fading nodes: depth only, on the node's share of the dither.
@fragment
fn fs_fade_depth(in: VertexOut) {
    if faded_away(in) {
        discard;
    }
}

// Debug views: every surface opaque and lit by its face only, so the colour is the message.

@fragment
fn fs_lod(in: VertexOut) -> @location(0) vec4<f32> {
    // Skirts show lighter, so seams can be inspected.
    let base = mix(lod_color(lod_of(in)), vec3<f32>(1.0), 0.5 * f32(skirt_of(in)));
    if faded_away(in) {
        discard;
    }
    return vec4<f32>(base * face_shade(face_of(in)), 1.0);
}

@fragment
fn fs_chunks(in: VertexOut) -> @location(0) vec4<f32> {
    let c = vec3<u32>(in.chunk_origin >> vec3<u32>(5u));
    var h = (c.x * 73856093u) ^ (c.y * 19349663u) ^ (c.z * 83492791u);
    h = (h ^ (h >> 13u)) * 1274126177u;
    let rgb = vec3<f32>(f32(h & 255u), f32((h >> 8u) & 255u), f32((h >> 16u) & 255u)) / 255.0;
    if faded_away(in) {
        discard;
    }
    return vec4<f32>((0.25 + 0.75 * rgb) * face_shade(face_of(in)), 1.0);
}

// The face streams occlusion culled (the occluded list, drawn only by the occlusion debug view):
// a flat magenta, so what the pyramid hid stands out when culling is frozen and the view moves.
@fragment
fn fs_occluded(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(vec3<f32>(0.9, 0.1, 0.8) * face_shade(face_of(in)), 1.0);
}

// The light in front of each surface alone, as grey: the brighter of sky light (at full
// daylight) and block light, by light_brightness, gamma-free (the sRGB target encodes it), so a
// step in light shows as a step in grey. Seams between nodes and levels are judged here.
@fragment
fn fs_light(in: VertexOut) -> @location(0) vec4<f32> {
    let b = light_brightness(sampled_light(surface_point(in)));
    if faded_away(in) {
        discard;
    }
    return vec4<f32>(vec3<f32>(max(b.x, b.y)), 1.0);
}

// Quad area (in its level's voxels) from 1 (blue) to 1024 and more (red), on a log scale: how
// well greedy merging worked.
@fragment
fn fs_quad_size(in: VertexOut) -> @location(0) vec4<f32> {
    let area = f32(in.quad_size.x * in.quad_size.y);
    let t = clamp(log2(area) / 10.0, 0.0, 1.0);
    let ramp = vec3<f32>(smoothstep(0.4, 0.9, t), 1.0 - abs(2.0 * t - 1.0), smoothstep(0.6, 0.1, t));
    if faded_away(in) {
        discard;
    }
    return vec4<f32>(ramp * face_shade(face_of(in)), 1.0);
}

const WIRE_COLOR: vec3<f32> = vec3<f32>(0.02, 0.02, 0.03);

// Wireframe with POLYGON_MODE_LINE: the rasteriser draws the triangles' edges.
@fragment
fn fs_wire(in: VertexOut) -> @location(0) vec4<f32> {
    if faded_away(in) {
        discard;
    }
    return vec4<f32>(WIRE_COLOR, 1.0);
}

// Wireframe without line polygon mode (GLES): filled triangles that keep only the pixels within
// about one pixel of their quad's edge.
@fragment
fn fs_wire_edges(in: VertexOut) -> @location(0) vec4<f32> {
    let width = max(fwidth(in.quad_uv), vec2<f32>(1e-6));
    let to_edge = min(in.quad_uv, vec2<f32>(in.quad_size) - in.quad_uv) / width;
    if min(to_edge.x, to_edge.y) > 1.0 || faded_away(in) {
        discard;
    }
    return vec4<f32>(WIRE_COLOR, 1.0);
}
