// Shadow casters: the opaque face streams each shadow cascade draws (src/shadow.rs). The box
// test is crates/voxgpu-core/src/cull.rs `Frustum::intersects_box` over each cascade's box.
//
// Reads:  params, shadow (each cascade's box as planes, the camera's frustum, each cascade's
//         sphere of receivers, the sun, the anchor), chunks (origins, levels, shown), faces
//         (counts, bounds and page lists).
// Writes: shadow_args (one region of draw_capacity commands per cascade), shadow_counts (per
//         cascade: an indexed draw whose instance count is the cascade's commands, then its
//         quads). The CPU sets each cascade's index count to one page and zeroes the rest
//         before the pass, and on adapters without indirect count also the args.
// Dispatch: one invocation per (slot, face, cascade), 64 per workgroup (`linear_invocation`).
//
// A caster is a stream of opaque quads of a drawn node whose direction faces the sun (the lit
// side of a surface is the one nearest the sun: the faces turned away are behind it), whose
// tight box meets the cascade's box, and whose shadow can be seen through the cascade: its box
// swept away from the sun (by shadow.sun.w blocks) meets the camera's frustum and the sphere
// within which fragments read the cascade. Both are conservative (the swept box's support
// against each plane, its bounding box against the sphere), so no seen shadow is left out.
// Each of its pages becomes one command (base_vertex = 4 × first quad, index_count = 6 ×
// quads), so every draw submission, the instanced one included, draws the list. Commands
// beyond the capacity are dropped, never written out of bounds.

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read> chunks: array<ChunkMeta>;
@group(0) @binding(3) var<uniform> shadow: ShadowCull;
@group(0) @binding(4) var<storage, read_write> shadow_args: array<DrawArgs>;
@group(0) @binding(5) var<storage, read_write> shadow_counts: array<atomic<u32>, 12>;

// Rust twin: shadow::ShadowCull.
struct ShadowCull {
    // Six planes per cascade, n · p + d >= 0 inside, over anchored positions.
    planes: array<vec4<f32>, 12>,
    // The camera's frustum, the same way, each plane moved out by shadow::RECEIVER_MARGIN.
    view: array<vec4<f32>, 6>,
    // Per cascade: the eye (xyz) and the radius within which fragments read it, plus the margin.
    receivers: array<vec4<f32>, 2>,
    // Towards the sun (unit); w: how far a caster's shadow is followed away from it, in blocks.
    sun: vec4<f32>,
    anchor: vec3<i32>,
    // Cascades drawn this frame.
    cascades: u32,
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

// Whether the box's shadow (the box swept by `sweep`, away from the sun) can reach a fragment
// the eye sees that reads `cascade`: not wholly behind one plane of the camera's frustum, and
// its bounding box within the cascade's sphere (both grown by the margin on the CPU).
fn shadow_seen(cascade: u32, low: vec3<f32>, high: vec3<f32>) -> bool {
    let sweep = -shadow.sun.xyz * shadow.sun.w;
    for (var i = 0u; i < 6u; i++) {
        let plane = shadow.view[i];
        let positive = select(low, high, plane.xyz >= vec3<f32>(0.0));
        let support = dot(plane.xyz, positive) + max(dot(plane.xyz, sweep), 0.0);
        if support + plane.w < 0.0 {
            return false;
        }
    }
    let sphere = shadow.receivers[cascade];
    let nearest = clamp(sphere.xyz, min(low, low + sweep), max(high, high + sweep));
    let gap = nearest - sphere.xyz;
    return dot(gap, gap) <= sphere.w * sphere.w;
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
