// The depth pyramid's occlusion test, shared by the cull pass (the view's streams) and the shadow
// caster pass (the pieces of a caster's shadow).

// Whether every pixel the box [low, high] could cover holds a nearer surface in `pyramid`, as
// `test` (common.wgsl's PyramidTest) describes it: a frame's depth pyramid, laid out as hiz.wgsl builds it. Twin of
// voxgpu_core::occlusion::DepthPyramid::test_box. Included by cull.wgsl and shadow_cull.wgsl,
// which bind `pyramid: array<f32>`.
fn pyramid_occludes(test: PyramidTest, low: vec3<f32>, high: vec3<f32>) -> bool {
    let frame = vec2<f32>(test.frame);
    var lo = vec2<f32>(1e30);
    var hi = vec2<f32>(-1e30);
    var depth = 0.0;
    for (var i = 0u; i < 8u; i++) {
        let corner = select(low, high, vec3<bool>((i & 1u) != 0u, (i & 2u) != 0u, (i & 4u) != 0u));
        let clip = test.view_proj * vec4<f32>(corner, 1.0);
        // On or behind the near plane: the box reaches the eye and cannot be tested.
        if clip.w <= 0.0 || clip.z >= clip.w {
            return false;
        }
        let ndc = clip.xyz / clip.w;
        let pixel = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * frame;
        lo = min(lo, pixel);
        hi = max(hi, pixel);
        depth = max(depth, ndc.z);
    }
    // The pixels it may cover, a pixel wider each side, within the frame.
    let last = frame - 1.0;
    let first_pixel = vec2<u32>(clamp(floor(lo) - 1.0, vec2<f32>(0.0), last));
    let last_pixel = vec2<u32>(clamp(floor(hi) + 1.0, vec2<f32>(0.0), last));
    // The finest level where they span at most four texels per axis.
    var level = 0u;
    while level + 1u < test.levels
        && max(((last_pixel >> vec2<u32>(level + 1u)) - (first_pixel >> vec2<u32>(level + 1u))).x,
               ((last_pixel >> vec2<u32>(level + 1u)) - (first_pixel >> vec2<u32>(level + 1u))).y) >= 4u {
        level += 1u;
    }
    let base = (test.frame + 1u) >> vec2<u32>(1u);
    var offset = 0u;
    for (var k = 0u; k < level; k++) {
        let size = (base + (1u << k) - 1u) >> vec2<u32>(k);
        offset += size.x * size.y;
    }
    let size = (base + (1u << level) - 1u) >> vec2<u32>(level);
    let t0 = min(first_pixel >> vec2<u32>(level + 1u), size - 1u);
    let t1 = min(last_pixel >> vec2<u32>(level + 1u), size - 1u);
    var farthest = 2.0;
    for (var y = t0.y; y <= t1.y; y++) {
        for (var x = t0.x; x <= t1.x; x++) {
            farthest = min(farthest, pyramid[offset + y * size.x + x]);
        }
    }
    return depth + depth * test.depth_margin < farthest;
}
