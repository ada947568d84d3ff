// Procedural sky: a full-screen triangle drawn after the opaque quads, only where no surface was
// drawn (depth still at its clear value, 0 in reverse-Z). The gradient of common.wgsl
// `sky_gradient` (which the haze fades distant surfaces to, so the terrain's end is the sky
// behind it) and the sun's disc, both following the time of day (Camera.sun); the sun also lights the faces
// (lighting.wgsl `lighting`).
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
    // The view ray through this pixel: unproject a point in front of an eye at the origin.
    let far = camera.inv_rotation_proj * vec4<f32>(in.ndc, 0.5, 1.0);
    let dir = normalize(far.xyz / far.w);
    if camera.medium.w > 0.0 {
        // Under water the sky is past any distance: the medium's colour.
        return vec4<f32>(camera.medium.rgb, 1.0);
    }
    var color = sky_gradient(camera.sky_color, dir, true, camera.sun);
    let sun = max(dot(dir, camera.sun.xyz), 0.0);
    color += vec3<f32>(1.0, 0.85, 0.6) * pow(sun, 600.0) * 3.0 * smoothstep(-0.05, 0.05, camera.sun.y);
    return vec4<f32>(color, 1.0);
}
