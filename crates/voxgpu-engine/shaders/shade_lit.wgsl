// What shade.wgsl writes when the colour target cannot be stored to: `lit`, which compose.wgsl
// then draws into the colour target, leaving the pixels where no opaque surface was drawn as they
// were (the sky pass draws them next).

@group(0) @binding(14) var lit: texture_storage_2d<rgba16float, write>;

// A pixel no opaque surface was drawn to: alpha 0, so compose leaves it.
fn store_empty(pixel: vec2<u32>, ndc: vec2<f32>) {
    textureStore(lit, pixel, vec4<f32>(0.0));
}

// A shaded pixel, linear RGB.
fn store_shaded(pixel: vec2<u32>, color: vec3<f32>) {
    textureStore(lit, pixel, vec4<f32>(color, 1.0));
}
