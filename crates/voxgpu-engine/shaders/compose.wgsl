// The opaque surfaces' shaded colour (shade.wgsl) into the colour target: a full-screen triangle
// that leaves every pixel no opaque surface of the frame covers as it was (the sky, drawn next in
// the same pass, and whatever an embedder drew before the frame).
//
// Reads:  lit (alpha 0 where no opaque surface was drawn).
// Writes: colour; no depth.
// Drawn:  draw(0..3), first in the frame's first colour pass after the opaque passes.

@group(0) @binding(0) var lit: texture_2d<f32>;

@vertex
fn vs_compose(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the screen.
    return vec4<f32>(f32(vertex == 1u) * 4.0 - 1.0, f32(vertex == 2u) * 4.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_compose(@builtin(position) pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let color = textureLoad(lit, vec2<u32>(pixel.xy), 0);
    if color.a == 0.0 {
        discard;
    }
    return color;
}
