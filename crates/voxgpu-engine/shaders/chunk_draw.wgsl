// Chunk draw: pulls quads from the mega quad buffer and shades them.
//
// Reads:  quads (mega quad buffer), page_owner (page -> chunk slot), chunks (ChunkMeta per slot:
//         origin and the level its quads are in), blocks (colour and face tiles per block id),
//         atlas and tile_averages (the texture atlas, crates/voxgpu-core/src/voxel/atlas.rs),
//         quad_list (per-quad culling's kept quads), camera, light and links (the cells' sky and
//         block light, lighting.wgsl), the shadow maps. A quad's place and colour are surface.wgsl's, which shade.wgsl shares.
// Writes: depth, and the colour of the current render pass; the opaque pass writes the
//         surface key target instead (the quad drawn at each pixel), from which shade.wgsl
//         colours and lights each pixel once.
// Entry points: vs_main; vs_surface for the opaque pass into the surface key target (only what
//         its fragment needs); one fragment shader per raster pass (src/render_mode.rs):
//         opaque into the surface key target (fs_opaque) or shaded forward (fs_opaque_forward),
//         shaded transparent, LOD colours, chunk colours, quad-size heat map, and
//         wireframe (line polygon mode, or quad edges found in the fragment where lines are
//         missing); fs_fade_depth for the depth pre-pass of cross-fading nodes. With the
//         FADE_DITHER constant set (the pipelines of the fading list, and the transparent one),
//         each fragment shader keeps a cross-fading node's fragment on its share of the dither.
// Drawn:  multi_draw_indexed_indirect(_count). Each command covers a run of quads of one chunk and
//         one face direction; base_vertex = 4 * first quad, and a static index buffer repeats
//         (0, 1, 2, 0, 2, 3) + 4q, so vertex_index / 4 is the global quad index and
//         vertex_index % 4 the corner. There is no vertex buffer. With per-quad culling
//         (quad_cull.wgsl) the opaque lists' commands instead have base_vertex =
//         QUAD_LIST_VERTEX + 4 * their first entry of the quad list, which names each quad.
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
// Per block id: RGBA8 colour, then its face tiles (top, side, bottom; 8 bits each) and emission.
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
// The opaque lists' kept quads after per-quad culling (quad_cull.wgsl), one quad index an entry:
// a vertex index v >= QUAD_LIST_VERTEX is corner v % 4 of entry (v - QUAD_LIST_VERTEX) / 4.
@group(0) @binding(13) var<storage, read> quad_list: array<u32>;

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;
// Twin of quad_cull.wgsl's QUAD_LIST_VERTEX.
const QUAD_LIST_VERTEX: u32 = 1u << 30u;

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
    return fade_hides(draw_of(in), in.clip.xy);
}

// `faded_away` for a fragment of a node in draw state `draw` at framebuffer position `pixel`.
fn fade_hides(draw: u32, pixel: vec2<f32>) -> bool {
    let left = fade_left(draw);
    if !FADE_DITHER || left == 0u {
        return false;
    }
    let total = (draw >> DRAW_FADE_TOTAL_SHIFT) & 0xffu;
    let share = f32(total + 1u - left) / f32(total + 1u);
    let cell = (vec2<u32>(pixel) >> vec2<u32>(1u)) & vec2<u32>(3u);
    var bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    let threshold = (f32(bayer[cell.y * 4u + cell.x]) + 0.5) / 16.0;
    let shows_new = threshold < share;
    return shows_new != ((draw & DRAW_SHOWN) != 0u);
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

// The quad vertex `vertex` of a draw reads, or NO_QUAD where it draws nothing: a command over
// the quad list (base_vertex at or past QUAD_LIST_VERTEX) reads the list's entry; on the
// instanced path the command is entry `instance` of `region` (of camera.page_list_capacity
// commands), the quad that command's first + (vertex / 4) % PAGE_QUADS, and corners past its
// quads draw nothing; otherwise the quad is vertex / 4 (base_vertex holds the command's first
// quad).
const NO_QUAD: u32 = 0xffffffffu;
fn pulled_quad(vertex: u32, instance: u32, region: u32) -> u32 {
    if vertex >= QUAD_LIST_VERTEX {
        return quad_list[(vertex - QUAD_LIST_VERTEX) >> 2u];
    }
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

// The quad vertex `vertex` of a chunk draw's list reads (`pulled_quad`), or NO_QUAD.
fn drawn_quad(vertex: u32, instance: u32) -> u32 {
    // List 0 reads region 0, list 1 (transparent) the sorted region 2, list k >= 2 region k + 1.
    let list = vertex >> (2u + QUAD_PAGE_LOG2);
    return pulled_quad(vertex, instance, min(2u * list, list + 1u));
}

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> VertexOut {
    let quad_index = drawn_quad(vertex, instance);
    if quad_index == NO_QUAD {
        return clipped();
    }
    return quad_vertex(quad_index, vertex & 3u);
}

// What the opaque pass into the surface target needs of a vertex: its position, its node's draw
// state (the cross-fade's dither) and its quad, which the surface key names.
struct SurfaceVertex {
    // Invariant: the depth pre-pass (vs_main) and this pass must compute the same depth.
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) @interpolate(flat) draw: u32,
    @location(1) @interpolate(flat) quad: u32,
}

@vertex
fn vs_surface(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> SurfaceVertex {
    let quad_index = drawn_quad(vertex, instance);
    if quad_index == NO_QUAD {
        return SurfaceVertex(clipped().clip, 0u, 0u);
    }
    let out = quad_vertex(quad_index, vertex & 3u);
    return SurfaceVertex(out.clip, draw_of(out), quad_index);
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
    let slot = page_owner[quad_index >> QUAD_PAGE_LOG2];
    let chunk = chunks[slot];
    let place = quad_place(quads[quad_index], chunk);
    // The index buffer splits the quad along the diagonal from corner (0, 0) to (1, 1); rotating
    // the corners by one splits it along the other (surface.wgsl's `ao_flipped`).
    var corner = corner_index;
    if ao_flipped(place.corner_ao) {
        corner = (corner + 1u) & 3u;
    }
    let unit = corner_offset(corner, place.positive);
    let offset = unit * place.size;
    // A positive face lies on the far side of its block: block i spans [i, i + 1).
    var local = place.min_cell + axis_unit(place.axis) * f32(place.positive);
    local += axis_unit(place.u_axis) * offset.x + axis_unit(place.v_axis) * offset.y;
    let position = place.origin + local * place.scale;

    var out: VertexOut;
    out.clip = camera.view_proj * vec4<f32>(position, 1.0);
    if place.skirt != 0u {
        out.clip.z *= 1.0 - SKIRT_DEPTH_BIAS;
    }
    out.anchored = position;
    out.block = place.block;
    out.quad_uv = offset;
    out.quad_size = vec2<u32>(place.size);
    out.chunk_origin = chunk.origin;
    out.slot_mip = (slot << 3u) | (chunk.lod - chunk.node_level);
    out.ao = f32(place.corner_ao[u32(unit.x) + 2u * u32(unit.y)]) / 3.0;
    // The draw state fits in bits 0-23 (two 8-bit fade counts from bit 8), the level in 4 bits
    // (LEVEL_THRESHOLDS is 16).
    out.tags = chunk.shown | (place.face << TAG_FACE_SHIFT) | (place.skirt << TAG_SKIRT_SHIFT)
        | (chunk.lod << TAG_LOD_SHIFT);
    return out;
}

// Fixed per-direction light for the debug views, whose colour is the message.
fn face_shade(face: u32) -> f32 {
    var shade = array<f32, 6>(0.80, 0.62, 1.00, 0.45, 0.70, 0.88);
    return shade[face];
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

// The fragment as lighting.wgsl sees it.
fn surface_point(in: VertexOut) -> SurfacePoint {
    return SurfacePoint(in.anchored, face_of(in), in.slot_mip >> 3u, in.slot_mip & 7u, lod_of(in), in.chunk_origin);
}

// The surface's colour before light and haze (surface.wgsl's `unlit_color`).
fn unlit(in: VertexOut) -> vec4<f32> {
    let st = tile_coords(face_of(in), in.anchored);
    let texels_per_pixel = max(fwidth(st.x), fwidth(st.y)) * f32(TILE_SIZE);
    return unlit_color(in.block, face_of(in), in.anchored, texels_per_pixel, in.ao);
}

// The fragment shaded forward: lit and hazed here (the transparent pass).
fn shade(in: VertexOut) -> vec4<f32> {
    let rgba = unlit(in);
    let color = rgba.rgb * lighting(surface_point(in), block_emission(in.block));
    return vec4<f32>(atmosphere(color, in.anchored - camera.eye), rgba.a);
}

// The drawing fragment shaders discard first (`faded_away` keeps or discards whole quads), so
// the other level's share of a cross-fade costs no texture read and no light.

// An opaque surface's fragment: only its surface key (common.wgsl's SURFACE_FIRST_QUAD plus its
// quad's index). shade.wgsl rebuilds the surface from that quad, colours, lights and hazes it
// once per pixel, so hidden fragments cost the rasteriser a depth test and one store.
@fragment
fn fs_opaque(in: SurfaceVertex) -> @location(0) u32 {
    if fade_hides(in.draw, in.clip.xy) {
        discard;
    }
    return SURFACE_FIRST_QUAD + in.quad;
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
