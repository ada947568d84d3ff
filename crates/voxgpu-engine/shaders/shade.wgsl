// Shading of the opaque surfaces, once per pixel in compute: the opaque passes wrote each
// pixel's unlit colour and surface key (chunk_draw.wgsl's fs_opaque), and this pass lights and
// hazes them as the forward-shaded passes do (lighting.wgsl), on every compute unit rather than
// the rasteriser's few, and once per pixel rather than once per drawn fragment.
//
// Reads:  camera, chunks (each slot's origin, level and mip), light and links (the light in
//         front of each surface), shadow_near, shadow_far and shadow_sampler (the sun's shadows),
//         surface_colors (unlit RGB times UNLIT_SCALE, the block's emission in alpha), surface_keys, depth.
// Writes: every pixel, through `store_shaded` and `store_empty` of the file included with it:
//         shade_lit.wgsl into `lit` (compose.wgsl then draws it into the colour target), or
//         shade_color.wgsl straight into a colour target that can be stored to.
// Dispatch: (⌈width / 8⌉, ⌈height / 8⌉) workgroups of 8 × 8, one invocation per pixel.

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(2) var<storage, read> light: array<u32>;
@group(0) @binding(3) var<storage, read> links: array<u32>;
@group(0) @binding(4) var shadow_near: texture_depth_2d;
@group(0) @binding(5) var shadow_far: texture_depth_2d;
@group(0) @binding(6) var shadow_sampler: sampler_comparison;
@group(0) @binding(7) var surface_colors: texture_2d<f32>;
@group(0) @binding(8) var surface_keys: texture_2d<u32>;
// The frame's depth (reverse-Z), read as an unfilterable float texture.
@group(0) @binding(9) var depth: texture_2d<f32>;
// Binding 10, what the pass writes, is the included file's.

@compute @workgroup_size(8, 8)
fn shade(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(surface_keys);
    if any(id.xy >= size) {
        return;
    }
    // The pixel's centre, where the rasteriser sampled it.
    let ndc = vec2<f32>(
        (f32(id.x) + 0.5) / f32(size.x) * 2.0 - 1.0,
        1.0 - (f32(id.y) + 0.5) / f32(size.y) * 2.0,
    );
    // No opaque surface here: the depth is still 0 (reverse-Z, infinitely far, which nothing
    // drawn reaches), or, in a frame drawn over a caller's depth, the key is still SURFACE_NONE.
    // A frame that clears its depth does not clear the surface targets (in builds with debug
    // assertions it fills them with a red surface no frame draws), so where its depth is 0 they
    // hold what an earlier frame left: read the key only where the depth is not.
    var z = textureLoad(depth, id.xy, 0).x;
    if z == 0.0 {
        store_empty(id.xy, ndc);
        return;
    }
    let key = textureLoad(surface_keys, id.xy, 0).x;
    if key == SURFACE_NONE {
        store_empty(id.xy, ndc);
        return;
    }
    // The surface's position from its depth, unprojected through the pixel's centre, a skirt's
    // push-back undone.
    if ((key >> 3u) & 1u) != 0u {
        z /= 1.0 - SKIRT_DEPTH_BIAS;
    }
    let h = camera.inv_rotation_proj * vec4<f32>(ndc, z, 1.0);
    let to_surface = h.xyz / h.w;
    let slot = key >> 4u;
    let record = chunks[slot];
    let point = SurfacePoint(camera.eye + to_surface, key & 7u, slot, record.lod - record.node_level, record.lod, record.origin);
    let surface = textureLoad(surface_colors, id.xy, 0);
    let color = surface.rgb / UNLIT_SCALE * lighting(point, surface.a);
    store_shaded(id.xy, atmosphere(color, to_surface));
}
