// Selection outline: the twelve edges of the selected block as a line list, inflated a little so
// they do not z-fight with the block's faces. Line-list topology needs no optional feature.
//
// Reads:  camera (view-projection, selection: min corner measured from the anchor and a shown
//         flag).
// Writes: colour of the outline pass, depth-tested against the scene, no depth write.
// Drawn:  draw(0..24) in its own pass after the transparent one, when a block is selected.

@group(0) @binding(0) var<uniform> camera: Camera;

// How far the box grows beyond the block on every side, in blocks.
const INFLATE: f32 = 0.006;

@vertex
fn vs_outline(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    // Edge e (0..12) runs along axis e / 4; its other two coordinates are the bits of e % 4.
    let edge = vertex / 2u;
    let axis = edge / 4u;
    let bits = edge % 4u;
    var corner = vec3<f32>(0.0);
    corner[axis] = f32(vertex % 2u);
    corner[(axis + 1u) % 3u] = f32(bits & 1u);
    corner[(axis + 2u) % 3u] = f32(bits >> 1u);
    let position = camera.selection.xyz + corner * (1.0 + 2.0 * INFLATE) - vec3<f32>(INFLATE);
    return camera.view_proj * vec4<f32>(position, 1.0);
}

@fragment
fn fs_outline() -> @location(0) vec4<f32> {
    return vec4<f32>(0.01, 0.01, 0.01, 1.0);
}
