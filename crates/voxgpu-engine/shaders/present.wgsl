// Present: copies the renderer's frame (sRGB RGBA8, the same size) into the window's surface,
// texel for texel, with a full-screen triangle. The surface is viewed as sRGB, so the colours
// come out exactly as `read_pixels` sees them.
//
// Reads:  frame (the renderer's colour target).
// Writes: the surface texture.
// Drawn:  draw(0..3), no buffers.

@group(0) @binding(0) var frame: texture_2d<f32>;

@vertex
fn vs_present(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_present(@builtin(position) pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let size = textureDimensions(frame);
    let texel = min(vec2<u32>(pixel.xy), size - vec2<u32>(1u));
    return vec4<f32>(textureLoad(frame, texel, 0).rgb, 1.0);
}
