// What shade.wgsl writes into a colour target it can store to (an RGBA8 texture whose frame is
// drawn through an sRGB view, and which the frame clears, with the procedural sky): every pixel,
// the shaded surfaces and the sky between them, so no full-screen raster pass copies them in.
// The values are sRGB-encoded here, as the sRGB view's rasterised passes encode theirs, and the
// transparent pass then blends over them through that view.

@group(0) @binding(14) var color_target: texture_storage_2d<rgba8unorm, write>;

// Linear to sRGB, per channel, the transfer function an sRGB target applies on a write.
fn srgb_encode(linear: vec3<f32>) -> vec3<f32> {
    let c = clamp(linear, vec3<f32>(0.0), vec3<f32>(1.0));
    let curve = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(curve, c * 12.92, c <= vec3<f32>(0.0031308));
}

// A pixel no opaque surface was drawn to: the sky through it.
fn store_empty(pixel: vec2<u32>, ndc: vec2<f32>) {
    textureStore(color_target, pixel, vec4<f32>(srgb_encode(sky_through(camera, ndc)), 1.0));
}

// A shaded pixel, linear RGB.
fn store_shaded(pixel: vec2<u32>, color: vec3<f32>) {
    textureStore(color_target, pixel, vec4<f32>(srgb_encode(color), 1.0));
}
