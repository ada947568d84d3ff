// Procedural sky: a full-screen triangle drawn after the opaque quads, only where no surface was
// drawn (depth still at its clear value, 0 in reverse-Z): common.wgsl's `sky_through`, the
// gradient of `sky_gradient` (which the haze fades distant surfaces to, so the terrain's end is
// the sky behind it) and the sun's disc, both following the time of day (Camera.sun); the sun
// also lights the faces (lighting.wgsl `lighting`). Where the shade pass writes the colour
// target itself (shade_color.wgsl), it writes this sky too and this pass is not drawn.
//
// Reads:  camera (inverse of the projection and the view's rotation, sky colour). The sky
//         depends on where the camera looks, never on where it is.
// Writes: colour where depth equals 0; no depth.
// Drawn:  draw(0..3) at the end of the frame's first colour pass.

@group(0) @binding(0) var<uniform> camera: Camera;

struct SkyOut {
    // Invariant: the pipeline tests depth Equal against the cleared value.
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_sky(@builtin(vertex_index) vertex: u32) -> SkyOut {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the screen, at depth 0 (infinitely far).
    let ndc = vec2<f32>(f32(vertex == 1u) * 4.0 - 1.0, f32(vertex == 2u) * 4.0 - 1.0);
    var out: SkyOut;
    out.clip = vec4<f32>(ndc, 0.0, 1.0);
    out.ndc = ndc;
    return out;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_through(camera, in.ndc), 1.0);
}
