// The depth pyramid occlusion culling tests against (twin of
// crates/voxgpu-core/src/occlusion.rs `DepthPyramid::from_depth`).
//
// Reverse-Z: a texel keeps the smallest depth (the farthest surface) of what it covers. Level 0 is
// ceil(W/2) × ceil(H/2) texels over the W × H depth target, each the minimum of the 2 × 2 pixels it
// covers that exist; each level after halves the one before the same way, down to 1 × 1. The
// levels lie end to end in `pyramid`, rows of x. Minima are exact, so the CPU twin's pyramid
// equals this one bit for bit.
//
// Reads:  depth (the frame's depth after its first phase: `from_depth`), pyramid (level - 1:
//         `reduce`).
// Writes: pyramid (one level per dispatch).
// Dispatch: one invocation per texel of the level written, 8 × 8 per workgroup; one dispatch per
//           level, each with its own `level` uniform. `copy_depth` (tests only) writes the depth
//           itself, a pixel per invocation, into a buffer bound as `pyramid`: GL cannot copy a
//           depth texture into a buffer.

struct HizLevel {
    // The level read: its size in texels (the depth target's pixels for level 0) and where it
    // starts in `pyramid` (unused for level 0).
    src_size: vec2<u32>,
    src_offset: u32,
    // Where the level written starts in `pyramid`.
    dst_offset: u32,
    dst_size: vec2<u32>,
}

@group(0) @binding(0) var<uniform> level: HizLevel;
// The depth target, bound as an unfilterable float texture (as WebGPU allows for depth formats):
// GLSL has no textureLoad of a depth texture.
@group(0) @binding(1) var depth: texture_2d<f32>;
@group(0) @binding(2) var<storage, read_write> pyramid: array<f32>;

// The least of the texels (or, from the depth target, the pixels) under texel `texel` of the
// level written: (0,0), (1,0), (0,1), (1,1) of the level read, those inside it. Depth is at most
// 1, so the first (always inside) replaces the start value.
fn least_below(texel: vec2<u32>, from_target: bool) -> f32 {
    var least = 2.0;
    for (var i = 0u; i < 4u; i++) {
        let c = 2u * texel + vec2<u32>(i & 1u, i >> 1u);
        if all(c < level.src_size) {
            var d: f32;
            if from_target {
                d = textureLoad(depth, vec2<i32>(c), 0).x;
            } else {
                d = pyramid[level.src_offset + c.y * level.src_size.x + c.x];
            }
            least = min(least, d);
        }
    }
    return least;
}

@compute @workgroup_size(8, 8)
fn from_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    if all(id.xy < level.dst_size) {
        pyramid[level.dst_offset + id.y * level.dst_size.x + id.x] = least_below(id.xy, true);
    }
}

@compute @workgroup_size(8, 8)
fn reduce(@builtin(global_invocation_id) id: vec3<u32>) {
    if all(id.xy < level.dst_size) {
        pyramid[level.dst_offset + id.y * level.dst_size.x + id.x] = least_below(id.xy, false);
    }
}

@compute @workgroup_size(8, 8)
fn copy_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    if any(id.xy >= level.dst_size) {
        return;
    }
    pyramid[id.y * level.dst_size.x + id.x] = textureLoad(depth, vec2<i32>(id.xy), 0).x;
}
