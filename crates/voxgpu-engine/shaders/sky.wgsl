// Procedural sky: a full-screen triangle drawn after the opaque quads, only where no surface was
// drawn (depth still at its clear value, 0 in reverse-Z). A gradient from the horizon (the fog
// colour, so distant terrain fades into it) to a deeper zenith, and a glow around the sun that
// lights the faces (chunk_draw.wgsl `face_shade`).
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

// The sun, high and a little towards +X +Z.
const SUN: vec3<f32> = vec3<f32>(0.35, 0.78, 0.52);

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
    let up = clamp(dir.y, -1.0, 1.0);
    let zenith = camera.sky_color * vec3<f32>(0.35, 0.5, 0.8);
    var color = mix(camera.sky_color, zenith, smoothstep(0.0, 0.8, up));
    // Below the horizon (seen past the world's edge): a little darker than the horizon.
    color = mix(color, camera.sky_color * 0.8, smoothstep(0.0, -0.3, up));
    let sun = max(dot(dir, normalize(SUN)), 0.0);
    color += vec3<f32>(1.0, 0.85, 0.6) * (pow(sun, 600.0) * 3.0 + pow(sun, 16.0) * 0.25);
    return vec4<f32>(color, 1.0);
}
