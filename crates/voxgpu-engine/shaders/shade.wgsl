// Shading of the opaque surfaces, once per pixel in compute: the opaque passes wrote each
// pixel's surface key, the quad drawn there (chunk_draw.wgsl's fs_opaque), and this pass rebuilds
// that surface from its quad, colours it (surface.wgsl), lights and hazes it as the
// forward-shaded passes do (lighting.wgsl), on every compute unit rather than the rasteriser's
// few, and once per pixel rather than once per drawn fragment.
//
// Reads:  camera, chunks (each slot's origin, level and mip), light and links (the light in
//         front of each surface), shadow_near, shadow_far and shadow_sampler (the sun's shadows),
//         quads and page_owner (the quad each key names, its node), blocks, atlas and
//         tile_averages (its colour), surface_keys, depth.
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
@group(0) @binding(7) var<storage, read> quads: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read> page_owner: array<u32>;
@group(0) @binding(9) var<storage, read> blocks: array<vec2<u32>>;
@group(0) @binding(10) var atlas: texture_2d<f32>;
@group(0) @binding(11) var<storage, read> tile_averages: array<u32>;
@group(0) @binding(12) var surface_keys: texture_2d<u32>;
// The frame's depth (reverse-Z), read as an unfilterable float texture.
@group(0) @binding(13) var depth: texture_2d<f32>;
// Binding 14, what the pass writes, is the included file's.

// A point along the eye's ray through `ndc` (anchored, measured from the eye).
fn pixel_ray(ndc: vec2<f32>) -> vec3<f32> {
    let h = camera.inv_rotation_proj * vec4<f32>(ndc, 1.0, 1.0);
    return h.xyz / h.w;
}

// Where the ray from the eye along `ray` meets the plane of `place`'s face, measured from the eye;
// `ok` false where the ray runs along the plane or away from it.
struct PlaneHit {
    to_surface: vec3<f32>,
    ok: bool,
}

fn plane_hit(place: QuadPlace, ray: vec3<f32>) -> PlaneHit {
    let normal = axis_unit(place.axis);
    let plane = dot(place.origin, normal) + (dot(place.min_cell, normal) + f32(place.positive)) * place.scale;
    let along = dot(ray, normal);
    let t = (plane - dot(camera.eye, normal)) / along;
    let ok = abs(along) > 1e-30 && t > 0.0 && t < 1e30;
    return PlaneHit(ray * select(0.0, t, ok), ok);
}

// The tile coordinates (surface.wgsl's `tile_coords`) where the ray through pixel `pixel` meets
// `place`'s plane; `ok` as `plane_hit`'s.
struct TileHit {
    st: vec2<f32>,
    ok: bool,
}

fn tile_hit(place: QuadPlace, pixel: vec2<u32>, size: vec2<u32>) -> TileHit {
    let hit = plane_hit(place, pixel_ray(pixel_ndc(pixel, size)));
    return TileHit(tile_coords(place.face, camera.eye + hit.to_surface), hit.ok);
}

// How many texels of the face's tiles pixel `pixel` spans, as the rasteriser's
// max(fwidth(s), fwidth(t)) finds it for a fragment of the face there: the tile coordinates'
// differences across its 2 × 2 block of pixels, along its own row and column, from where the
// rays through those pixels meet the face's plane. Past the plane's horizon, more than any fade.
fn texels_per_pixel(place: QuadPlace, pixel: vec2<u32>, size: vec2<u32>) -> f32 {
    let block = pixel & vec2<u32>(~1u);
    let left = tile_hit(place, vec2<u32>(block.x, pixel.y), size);
    let right = tile_hit(place, vec2<u32>(block.x + 1u, pixel.y), size);
    let top = tile_hit(place, vec2<u32>(pixel.x, block.y), size);
    let bottom = tile_hit(place, vec2<u32>(pixel.x, block.y + 1u), size);
    if !(left.ok && right.ok && top.ok && bottom.ok) {
        return 1e9;
    }
    let width = abs(right.st - left.st) + abs(bottom.st - top.st);
    return max(width.x, width.y) * f32(TILE_SIZE);
}

// The centre of pixel `pixel` of a `size` frame, where the rasteriser samples it, in NDC.
fn pixel_ndc(pixel: vec2<u32>, size: vec2<u32>) -> vec2<f32> {
    return vec2<f32>(
        (f32(pixel.x) + 0.5) / f32(size.x) * 2.0 - 1.0,
        1.0 - (f32(pixel.y) + 0.5) / f32(size.y) * 2.0,
    );
}

@compute @workgroup_size(8, 8)
fn shade(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(surface_keys);
    if any(id.xy >= size) {
        return;
    }
    let ndc = pixel_ndc(id.xy, size);
    // No opaque surface here: the depth is still 0 (reverse-Z, infinitely far, which nothing
    // drawn reaches), or, in a frame drawn over a caller's depth, the key is still SURFACE_NONE.
    // A frame that clears its depth does not clear the surface key target (in builds with debug
    // assertions it fills it with SURFACE_POISON), so where its depth is 0 it holds what an
    // earlier frame left: read the key only where the depth is not.
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
    if key == SURFACE_POISON {
        store_shaded(id.xy, vec3<f32>(1.0, 0.0, 0.0));
        return;
    }
    let quad_index = key - SURFACE_FIRST_QUAD;
    let slot = page_owner[quad_index >> QUAD_PAGE_LOG2];
    let record = chunks[slot];
    let place = quad_place(quads[quad_index], record);
    // The surface's position: where the ray through the pixel's centre meets the quad's plane,
    // as the rasteriser's interpolation finds it. Where the ray runs along the plane, from the
    // depth, unprojected, a skirt's push-back undone.
    let hit = plane_hit(place, pixel_ray(ndc));
    var to_surface = hit.to_surface;
    if !hit.ok {
        if place.skirt != 0u {
            z /= 1.0 - SKIRT_DEPTH_BIAS;
        }
        let h = camera.inv_rotation_proj * vec4<f32>(ndc, z, 1.0);
        to_surface = h.xyz / h.w;
    }
    let anchored = camera.eye + to_surface;
    // Across the quad, 0..1 each way, for its ambient occlusion.
    let corner = place.origin + place.min_cell * place.scale;
    let across = vec2<f32>(
        dot(anchored - corner, axis_unit(place.u_axis)),
        dot(anchored - corner, axis_unit(place.v_axis)),
    );
    let uv = clamp(across / (place.size * place.scale), vec2<f32>(0.0), vec2<f32>(1.0));
    let unlit = unlit_color(place.block, place.face, anchored, texels_per_pixel(place, id.xy, size), ao_across(place.corner_ao, uv));
    let point = SurfacePoint(anchored, place.face, slot, record.lod - record.node_level, record.lod, record.origin);
    let color = unlit.rgb * lighting(point, block_emission(place.block));
    store_shaded(id.xy, atmosphere(color, to_surface));
}
