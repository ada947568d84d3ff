// Shadow casters: the opaque face streams each shadow cascade draws (src/shadow.rs). The box
// test is crates/voxgpu-core/src/cull.rs `Frustum::intersects_box` over each cascade's box.
//
// Reads:  params, shadow (each cascade's box as planes, the camera's frustum, each cascade's
//         sphere of receivers, the sun, the anchor, the depth pyramid's camera), chunks
//         (origins, levels, shown), faces (counts, bounds and page lists), pyramid (hiz.wgsl:
//         this frame's, built from its first phase's depth, when shadow.pyramid.levels > 0).
// Writes: shadow_args (one region of draw_capacity commands per cascade), shadow_counts (per
//         cascade: an indexed draw whose instance count is the cascade's commands, then its
//         quads). The CPU sets each cascade's index count to one page and zeroes the rest
//         before the pass, and on adapters without indirect count also the args.
// Dispatch: one invocation per (slot, face, cascade), 64 per workgroup (`linear_invocation`).
//
// A caster is a stream of opaque quads of a drawn node whose direction faces the sun (the lit
// side of a surface is the one nearest the sun: the faces turned away are behind it), whose
// tight box meets the cascade's box, and whose shadow can be seen through the cascade: its box
// swept away from the sun meets the sphere within which fragments read the cascade and the
// camera's frustum at once, somewhere the eye can see. The sweep ends where it leaves the
// sphere's bottom (no receiver of the cascade lies lower) and is cut into SWEEP_PIECES pieces; a
// piece counts when its bounding box meets the sphere, the piece lies wholly behind no plane of
// the frustum and, in a frame with a depth pyramid, its bounding box (grown by the margin) is not
// occluded in it. Every point of the sweep at or above the sphere's bottom lies in a piece, and a point
// the eye sees is nearer than the pyramid's depth there (the first phase's depth, which the
// frame's final depth only brings nearer), so a shadow the eye sees through the cascade always
// has a piece that counts: no seen shadow is left out. Shadows falling inside the ground, into
// caves or behind hills are not drawn.
// Each of its pages becomes one command (base_vertex = 4 × first quad, index_count = 6 ×
// quads), so every draw submission, the instanced one included, draws the list. Commands
// beyond the capacity are dropped, never written out of bounds.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(3) var<uniform> shadow: ShadowCull;
@group(0) @binding(4) var<storage, read_write> shadow_args: array<DrawArgs>;
@group(0) @binding(5) var<storage, read_write> shadow_counts: array<atomic<u32>, 12>;
@group(0) @binding(6) var<storage, read> pyramid: array<f32>;

// Rust twin: shadow::ShadowCull.
struct ShadowCull {
    // Six planes per cascade, n · p + d >= 0 inside, over anchored positions.
    planes: array<vec4<f32>, 12>,
    // The camera's frustum, the same way, each plane moved out by shadow::RECEIVER_MARGIN.
    view: array<vec4<f32>, 6>,
    // Per cascade: the eye (xyz) and the radius within which fragments read it, plus the margin.
    receivers: array<vec4<f32>, 2>,
    // Towards the sun (unit); w: the longest a caster's shadow is followed away from it, in blocks.
    sun: vec4<f32>,
    anchor: vec3<i32>,
    // Cascades drawn this frame.
    cascades: u32,
    // The frame's depth pyramid; no test where its levels are 0.
    pyramid: PyramidTest,
    // Blocks by which a piece is grown before the pyramid tests it (shadow::RECEIVER_MARGIN).
    margin: f32,
    // 1 / sun.y where the sun stands at least shadow::SWEEP_MIN_SUN_Y high (0 elsewhere: the
    // whole sweep): a product rounds the same on every GPU and in the CPU twin, a quotient need
    // not.
    inv_sun_y: f32,
}

const PAGE_QUADS: u32 = 1u << QUAD_PAGE_LOG2;
// shadow::COUNT_WORDS_PER_CASCADE: the instanced draw's five words, then the quads listed.
const COUNT_WORDS: u32 = 6u;

// Outside only when the positive vertex is behind one of the cascade's planes.
fn box_in_cascade(cascade: u32, low: vec3<f32>, high: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let plane = shadow.planes[6u * cascade + i];
        let positive = select(low, high, plane.xyz >= vec3<f32>(0.0));
        if dot(plane.xyz, positive) + plane.w < 0.0 {
            return false;
        }
    }
    return true;
}

// Pieces a caster's sweep is cut into: the bounding box of a long diagonal sweep would be far
// larger than the shadow it bounds (shadow::SWEEP_PIECES).
const SWEEP_PIECES: u32 = 8u;

// How far a box whose top is at `top` is swept away from the sun: to where its shadow leaves the
// bottom of `sphere` (no fragment reading the cascade lies lower), at most shadow.sun.w.
fn sweep_length(sphere: vec4<f32>, top: f32) -> f32 {
    let sun = shadow.sun;
    if shadow.inv_sun_y <= 0.0 {
        return sun.w;
    }
    return clamp((top - (sphere.y - sphere.w)) * shadow.inv_sun_y, 0.0, sun.w);
}

// Whether a piece of a sweep, the box [low, high] moved along from `a` to `b`, can hold a
// receiver the eye sees: its bounding box meets the cascade's sphere, the piece is wholly behind
// no plane of the camera's frustum (both grown by the margin on the CPU; against a plane the
// piece's support is exact, the box's plus the nearer end's) and its bounding box is not hidden
// from the eye in the depth pyramid.
fn piece_seen(sphere: vec4<f32>, low: vec3<f32>, high: vec3<f32>, a: vec3<f32>, b: vec3<f32>) -> bool {
    let piece_low = low + min(a, b);
    let piece_high = high + max(a, b);
    let gap = clamp(sphere.xyz, piece_low, piece_high) - sphere.xyz;
    if dot(gap, gap) > sphere.w * sphere.w {
        return false;
    }
    for (var i = 0u; i < 6u; i++) {
        let plane = shadow.view[i];
        let positive = select(low, high, plane.xyz >= vec3<f32>(0.0));
        if dot(plane.xyz, positive) + max(dot(plane.xyz, a), dot(plane.xyz, b)) + plane.w < 0.0 {
            return false;
        }
    }
    let grow = vec3<f32>(shadow.margin);
    return shadow.pyramid.levels == 0u
        || !pyramid_occludes(shadow.pyramid, piece_low - grow, piece_high + grow);
}

// Whether the box's shadow (the box swept away from the sun) can reach a fragment the eye sees
// that reads `cascade`: whether one piece of its sweep is seen.
fn shadow_seen(cascade: u32, low: vec3<f32>, high: vec3<f32>) -> bool {
    let sphere = shadow.receivers[cascade];
    let step = -shadow.sun.xyz * (sweep_length(sphere, high.y) / f32(SWEEP_PIECES));
    for (var k = 0u; k < SWEEP_PIECES; k++) {
        if piece_seen(sphere, low, high, step * f32(k), step * f32(k + 1u)) {
            return true;
        }
    }
    return false;
}

@compute @workgroup_size(64)
fn casters(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let invocation = linear_invocation(id, groups, 64u);
    let cascade = invocation % SHADOW_CASCADES;
    let face_index = invocation / SHADOW_CASCADES;
    if face_index >= params.slot_count * 6u || cascade >= shadow.cascades {
        return;
    }
    let record = chunks[face_index / 6u];
    let opaque = faces[face_index].opaque;
    if record.shown == 0u || opaque == 0u || dot(face_normal(face_index % 6u), shadow.sun.xyz) <= 0.0 {
        return;
    }
    let bounds = stream_box(record, faces[face_index].bounds, shadow.anchor);
    if !box_in_cascade(cascade, bounds[0], bounds[1]) || !shadow_seen(cascade, bounds[0], bounds[1]) {
        return;
    }
    let pages = (opaque + PAGE_QUADS - 1u) >> QUAD_PAGE_LOG2;
    let base = atomicAdd(&shadow_counts[COUNT_WORDS * cascade + 1u], pages);
    atomicAdd(&shadow_counts[COUNT_WORDS * cascade + 5u], opaque);
    for (var k = 0u; k < pages; k++) {
        if base + k < params.draw_capacity {
            let quads = min(opaque - k * PAGE_QUADS, PAGE_QUADS);
            let first_quad = faces[face_index].pages[k] << QUAD_PAGE_LOG2;
            shadow_args[cascade * params.draw_capacity + base + k] =
                DrawArgs(quads * 6u, 1u, 0u, i32(first_quad * 4u), 0u);
        }
    }
}
