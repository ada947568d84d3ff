// Shared declarations: prepended to every other shader by `shaders::shader_source`
// (src/shaders.rs).
//
// Every constant and struct here has one Rust twin, and `tests/shaders.rs` checks the two
// against each other: the quad bit layout (`mesh::QUAD_FIELDS`), the page size
// (`quad_pool::PAGE_QUADS_LOG2`), `ChunkMeta` and `Camera` (src/layouts.rs).

const CHUNK_SIZE: u32 = 32u;

// Packed quad: two u32 words. See crates/voxgpu-core/src/mesh/quad.rs for the table.
const QUAD_X_WORD: u32 = 0u;
const QUAD_X_SHIFT: u32 = 0u;
const QUAD_X_BITS: u32 = 5u;
const QUAD_Y_WORD: u32 = 0u;
const QUAD_Y_SHIFT: u32 = 5u;
const QUAD_Y_BITS: u32 = 5u;
const QUAD_Z_WORD: u32 = 0u;
const QUAD_Z_SHIFT: u32 = 10u;
const QUAD_Z_BITS: u32 = 5u;
const QUAD_W_WORD: u32 = 0u;
const QUAD_W_SHIFT: u32 = 15u;
const QUAD_W_BITS: u32 = 5u;
const QUAD_H_WORD: u32 = 0u;
const QUAD_H_SHIFT: u32 = 20u;
const QUAD_H_BITS: u32 = 5u;
const QUAD_FACE_WORD: u32 = 0u;
const QUAD_FACE_SHIFT: u32 = 25u;
const QUAD_FACE_BITS: u32 = 3u;
const QUAD_SKIRT_WORD: u32 = 0u;
const QUAD_SKIRT_SHIFT: u32 = 28u;
const QUAD_SKIRT_BITS: u32 = 1u;
const QUAD_BLOCK_WORD: u32 = 1u;
const QUAD_BLOCK_SHIFT: u32 = 0u;
const QUAD_BLOCK_BITS: u32 = 16u;
const QUAD_AO_WORD: u32 = 1u;
const QUAD_AO_SHIFT: u32 = 16u;
const QUAD_AO_BITS: u32 = 8u;

// The mega quad buffer is split into pages of 2^QUAD_PAGE_LOG2 quads; each page belongs to one
// chunk, and `page_owner[quad >> QUAD_PAGE_LOG2]` names it.
const QUAD_PAGE_LOG2: u32 = 8u;

// Face directions, in the order used everywhere: +X, -X, +Y, -Y, +Z, -Z.
const FACE_POS_X: u32 = 0u;
const FACE_NEG_X: u32 = 1u;
const FACE_POS_Y: u32 = 2u;
const FACE_NEG_Y: u32 = 3u;
const FACE_POS_Z: u32 = 4u;
const FACE_NEG_Z: u32 = 5u;

// The voxel pool: one slot of SLOT_WORDS u32 per resident chunk, u16 block ids two per word
// (low half first), x fastest. Level 0 (32^3) comes first, then the mips 16^3 ... 1^3 back to
// back: see level_base.
const SLOT_WORDS: u32 = 18752u;
// The coarsest level of detail (1^3).
const MAX_LEVEL: u32 = 5u;
// ChunkLinks::lod of a chunk that has not been given a level yet.
const LEVEL_UNSET: u32 = 0xffffffffu;

// Where level `level` starts in a slot, in u16 ids (always even, so levels start on a word). Twin
// of layouts::level_base.
fn level_base(level: u32) -> u32 {
    var base = 0u;
    for (var k = 0u; k < level; k++) {
        let size = CHUNK_SIZE >> k;
        base += size * size * size;
    }
    return base;
}
// The light pool (light.wgsl; twin voxgpu_core::light): one slot of LIGHT_WORDS u32 per node
// slot, one byte a cell (sky light in bits 0..4, block light in 4..8), four cells a word, x
// fastest: level 0 (32^3) then its levels 16^3 ... 1^3, each from a word (light_level_base),
// then LIGHT_MASK_WORDS words of the open columns of level 0 (bit x of word z: every cell of
// column (x, z) passes light untouched), then the spread stamp (light.wgsl's `spread_lines`).
const LIGHT_WORDS: u32 = 9396u;
const LIGHT_MASK_OFFSET: u32 = 9363u;
const LIGHT_MASK_WORDS: u32 = 32u;
const LIGHT_STAMP_OFFSET: u32 = 9395u;

// Where level `level` (0..5) of a node's light starts, in bytes (a multiple of 4). Twin of
// voxgpu_core::light::light_level_base. The levels before L take 2^15 + 2^12 + ... bytes (the
// last, 1 cell, padded to 4), so the base is the top 3L bits of 0x9248 (1001 0010 0100 1000b):
// no loop and no table, since the fragment shader calls it.
fn light_level_base(level: u32) -> u32 {
    let low = 16u - 3u * level;
    return (0x9248u >> low) << low;
}

// ChunkLinks read as plain words (shaders that only follow links): LINK_WORDS a slot, the
// neighbour across face f at word f.
const LINK_WORDS: u32 = 8u;

// A neighbour or slot index meaning "none".
const NO_SLOT: u32 = 0xffffffffu;
// The most pages one face of one chunk can need: 32768 quads (every voxel showing the face as its
// own quad: a 3D checkerboard of two different transparent blocks) / 256.
const MAX_FACE_PAGES: u32 = 128u;
// The mesh work list: words 0..3 are the indirect dispatch size (x job pairs, y 2 or 1, z 1), word 3 counts the jobs
// asked for, jobs start at word WORK_JOBS_OFFSET. A job is slot * 6 + face, with JOB_RELEASE_ONLY
// set when the chunk left and its pages only need freeing.
const WORK_JOBS_OFFSET: u32 = 4u;
const JOB_RELEASE_ONLY: u32 = 0x80000000u;
// ChunkLinks::state bits. Rust twin: layouts::ChunkState.
// Mesh all six faces (voxels, a neighbour or the level changed).
const CHUNK_DIRTY: u32 = 1u;
// The chunk left: free its pages.
const CHUNK_EVICTED: u32 = 2u;
// Voxels changed: rebuild the mip pyramid.
const CHUNK_VOXELS: u32 = 4u;
// The slot holds a node: the LOD pass gives it a level.
const CHUNK_RESIDENT: u32 = 8u;
// Every child column of this node has been generated (its children are all resident or air), so
// the children can be drawn in its place.
const CHUNK_CHILDREN_READY: u32 = 16u;
// Every child column of this node's parent has been generated: CHILDREN_READY of the parent.
const CHUNK_SIBLINGS_READY: u32 = 32u;

// ChunkMeta::flags bits, written by the LOD pass. Rust twin: layouts::NodeFlags.
// The node is closer than its level's threshold: its children are wanted in its place.
const NODE_SPLIT: u32 = 1u;
// The LOD pass has decided SPLIT at least once (hysteresis applies from then on).
const NODE_SELECTED: u32 = 2u;
// The node was shown before this frame's decision: a snapshot the first step takes, so children
// read their parent's last state rather than one the second step is writing.
const NODE_WAS_SHOWN: u32 = 4u;
// This frame is the node's first decision (it is new to its slot).
const NODE_NEW: u32 = 8u;

// ChunkMeta::shown fields, written by the LOD pass. Rust twin: layouts::DrawState. Any bit set:
// the node keeps its quads and is drawn; with frames left above 0 it is drawn through the
// cross-fade's dither (fading in when DRAW_SHOWN, else out).
const DRAW_SHOWN: u32 = 1u;
// Bits 8..16: frames left of the cross-fade.
const DRAW_FADE_LEFT_SHIFT: u32 = 8u;
// Bits 16..24: the fade's length in frames.
const DRAW_FADE_TOTAL_SHIFT: u32 = 16u;
// The longest cross-fade, in frames (8 bits).
const MAX_FADE_FRAMES: u32 = 255u;

// Frames left of a draw state's cross-fade (0: not fading).
fn fade_left(draw: u32) -> u32 {
    return (draw >> DRAW_FADE_LEFT_SHIFT) & 0xffu;
}

// Per-node record, indexed by slot. Rust twin: layouts::ChunkMeta. A level-N node is a 32^3 grid of
// cells 2^N blocks wide; level 0 is a chunk.
struct ChunkMeta {
    // World block coordinates of the node's minimum corner.
    origin: vec3<i32>,
    // The scale its quads are in: quad coordinates are scaled by 2^lod (the node level plus the
    // mip level it was meshed at). Written by the mesher.
    lod: u32,
    // The node's level: its box is 32 * 2^node_level blocks wide. Written by the CPU.
    node_level: u32,
    // The parent node's slot, NO_SLOT when it is not resident. Written by the CPU.
    parent: u32,
    // NODE_* bits, written by the LOD pass's first step.
    flags: u32,
    // DRAW_* fields, written by the LOD pass's second step: DRAW_SHOWN when the node is shown
    // (neither replaced by its children nor covered by an ancestor), and its cross-fade. 0 when
    // it is not drawn.
    shown: u32,
}

// The node's box edge in blocks.
fn node_size(record: ChunkMeta) -> f32 {
    return f32(CHUNK_SIZE << record.node_level);
}

// A world block position measured from `anchor`, in blocks: the integer difference is exact, and
// exact in f32 within 2^24 blocks of the anchor.
fn anchored(position: vec3<i32>, anchor: vec3<i32>) -> vec3<f32> {
    return vec3<f32>(position - anchor);
}

// Twin of Frustum::intersects_box: whether the box [low, high] may meet the frustum of `planes`
// (cull.rs `Frustum`): outside only when its positive vertex is behind a plane.
fn box_in_frustum(planes: array<vec4<f32>, 6>, low: vec3<f32>, high: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let plane = planes[i];
        let positive = select(low, high, plane.xyz >= vec3<f32>(0.0));
        if dot(plane.xyz, positive) + plane.w < 0.0 {
            return false;
        }
    }
    return true;
}

// The rectangle a packed quad covers, as its box's min and max corners in cells of the level it
// was meshed at: a +axis face lies on the far side of its cell. Twin of mesh::Quad::plane_box.
fn quad_plane_box(quad: vec2<u32>) -> array<vec3<f32>, 2> {
    let face = quad_field(quad, QUAD_FACE_WORD, QUAD_FACE_SHIFT, QUAD_FACE_BITS);
    let axis = face_axis(face);
    let cell = vec3<f32>(
        f32(quad_field(quad, QUAD_X_WORD, QUAD_X_SHIFT, QUAD_X_BITS)),
        f32(quad_field(quad, QUAD_Y_WORD, QUAD_Y_SHIFT, QUAD_Y_BITS)),
        f32(quad_field(quad, QUAD_Z_WORD, QUAD_Z_SHIFT, QUAD_Z_BITS)),
    );
    let low = cell + axis_unit(axis) * f32(face_is_positive(face));
    let span = axis_unit((axis + 1u) % 3u) * f32(quad_field(quad, QUAD_W_WORD, QUAD_W_SHIFT, QUAD_W_BITS) + 1u)
        + axis_unit((axis + 2u) % 3u) * f32(quad_field(quad, QUAD_H_WORD, QUAD_H_SHIFT, QUAD_H_BITS) + 1u);
    return array<vec3<f32>, 2>(low, low + span);
}

// The box of a face stream's quads (FaceMesh.bounds, in cells of the level it was meshed at),
// measured from `anchor`.
fn stream_box(record: ChunkMeta, bounds: u32, anchor: vec3<i32>) -> array<vec3<f32>, 2> {
    let cell = f32(1u << record.lod);
    let low = vec3<u32>(bounds, bounds >> 5u, bounds >> 10u) & vec3<u32>(31u);
    let high = vec3<u32>(bounds >> 15u, bounds >> 20u, bounds >> 25u) & vec3<u32>(31u);
    let origin = anchored(record.origin, anchor);
    return array<vec3<f32>, 2>(origin + vec3<f32>(low) * cell, origin + vec3<f32>(high + 1u) * cell);
}

// Per-chunk links for the mesher, indexed by slot. Rust twin: layouts::ChunkLinks. The CPU writes
// `neighbours` and `state` when the chunk or a neighbour changes or leaves; the GPU clears the
// DIRTY and VOXELS bits as it queues the work, and sets DIRTY when a level changes or pages ran
// out. `lod` belongs to the GPU (the CPU writes it only to LEVEL_UNSET for a new chunk).
struct ChunkLinks {
    neighbours: array<u32, 6>,
    state: atomic<u32>,
    // The level chosen by the LOD pass, which the mesher meshes at next.
    lod: u32,
}

// Where one face direction of one chunk keeps its quads, indexed by slot * 6 + face. The face's
// stream holds its opaque quads, then its transparent ones; stream index i lives in page
// pages[i >> QUAD_PAGE_LOG2] at offset i & 255. Rust twin: layouts::FaceMesh.
struct FaceMesh {
    opaque: u32,
    transparent: u32,
    page_count: u32,
    // How many of the quads (opaque and transparent) are LOD skirts.
    skirts: u32,
    // The cells the quads cover, in the meshed level's grid (0..32 >> level per axis): min x, y, z
    // in bits 0, 5, 10 and max x, y, z (inclusive) in bits 15, 20, 25 (`pack_bounds`); 0 and
    // meaningless when the face has no quads. A quad's face lies on its cell's side towards the
    // face direction. For occlusion culling: a node's box is a cube, its surface rarely fills it.
    bounds: u32,
    pages: array<u32, 128>,
}

// The GPU page allocator: a stack of free page numbers, `free_count` deep. The release pass
// pushes (atomicAdd on free_count). The mesher pops without contention loops: each workgroup
// takes a range of a per-frame cursor (atomicAdd on `popped`) and gets pages
// free[free_count - popped_end, free_count - popped_start); a range past the stack's depth fails.
// The commit step then lowers free_count by what was granted. Pushes and pops never share a
// dispatch. Rust twin of the header: layouts::AllocatorHeader.
struct Allocator {
    free_count: atomic<u32>,
    // Pages asked for but not granted, summed since creation; the CPU grows the pool when it
    // rises.
    failed_pages: atomic<u32>,
    // Pages asked for by this frame's mesh pass so far (runs past free_count once requests fail).
    popped: atomic<u32>,
    // End of the granted part of `popped`: requests succeed in cursor order up to the first
    // that does not fit, so the granted pages are exactly [0, granted) of the cursor.
    granted: atomic<u32>,
    free: array<u32>,
}

// One indexed indirect draw, as wgpu reads it. Rust twin: wgpu::util::DrawIndexedIndirectArgs.
struct DrawArgs {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// Sizes the compute passes need, written by the CPU once per frame. Rust twin: layouts::PassParams.
struct PassParams {
    // Slots in use (the highest slot + 1).
    slot_count: u32,
    // Most jobs the work list holds (a multiple of 6).
    max_jobs: u32,
    // Commands each of the opaque and transparent draw lists holds.
    draw_capacity: u32,
    // CHUNK_SIZE, passed at run time as the mesher's loop bound (see mesh.wgsl).
    chunk_size: u32,
    // 1: bake ambient occlusion; 0: every corner open.
    ambient_occlusion: u32,
    // Runs of at most this many job pairs are meshed one face per workgroup (see mesh.wgsl).
    split_pairs: u32,
}

// What the LOD pass selects levels from, written once per frame. Rust twin: layouts::LodParams.
struct LodParams {
    // The view's eye measured from `anchor` (the block the eye is in), in blocks.
    eye: vec3<f32>,
    // Widening of each level's band, as a fraction of its threshold.
    hysteresis: f32,
    // thresholds[k]: distance in blocks where absolute level k + 1 begins (cells 2^(k+1) wide).
    thresholds: array<f32, LEVEL_THRESHOLDS>,
    // Coarsest mip a node is meshed at above its own level; 0 turns per-node mips off.
    max_level: u32,
    // The highest node level resident: its nodes have no parent to be covered by.
    top_level: u32,
    // Frames a level change cross-fades over; 0 switches in one frame.
    fade_frames: u32,
    // The block every position is measured from (Camera.anchor).
    anchor: vec3<i32>,
}
// Absolute levels: node levels 0..=11 plus mips, capped at 16.
const LEVEL_THRESHOLDS: u32 = 16u;

// What the cull pass tests against, written once per frame from the culling camera (the view's,
// or a frozen one). Rust twin: layouts::CullParams.
struct CullParams {
    // Frustum planes (normal, d), normal · p + d >= 0 inside, normalised (cull.rs `Frustum`).
    // In coordinates measured from `anchor`.
    planes: array<vec4<f32>, 6>,
    // The culling camera's eye measured from `anchor`.
    eye: vec3<f32>,
    // CULL_* bits: which tests run, whether commands stop at pages, whether the frame has a
    // first phase and whether occluded streams are listed for the debug view.
    flags: u32,
    // The view's eye (the culling one differs when culling is frozen): transparent commands
    // are sorted by distance from it.
    view_eye: vec3<f32>,
    // Distance keys per square root of a block (cull::SORT_SCALE).
    sort_scale: f32,
    // The block every position is measured from (Camera.anchor).
    anchor: vec3<i32>,
    // The depth pyramid the streams are tested against; its levels are 0 when there is none.
    pyramid: PyramidTest,
}

// What a test against a depth pyramid (pyramid_test.wgsl) needs of it: the camera its depth was
// drawn with (anchored positions to clip space), the frame it was built from in pixels
// (occlusion.rs), its levels (0: no test) and occlusion::DEPTH_MARGIN. The cull pass and the
// shadow caster pass each carry one.
struct PyramidTest {
    view_proj: mat4x4<f32>,
    frame: vec2<u32>,
    levels: u32,
    depth_margin: f32,
}

// The texture atlas: tiles of TILE_SIZE^2 texels, ATLAS_COLUMNS to a row; tile TILE_PLAIN is
// tinted by the block's colour. Rust twin: voxel::atlas.
const TILE_SIZE: u32 = 16u;
const ATLAS_COLUMNS: u32 = 8u;
const TILE_PLAIN: u32 = 0u;

// Keys of the transparent sort (transparent_sort.wgsl): SORT_DISTANCES distance keys of
// SORT_FACE_SLOTS face slots each. Twin: cull.rs.
const SORT_BUCKETS: u32 = 4096u;
const SORT_FACE_SLOTS: u32 = 8u;
const SORT_DISTANCES: u32 = 512u; // SORT_BUCKETS / SORT_FACE_SLOTS
// The unsorted list's sort_keys: a group's first entry holds key | (entries << SORT_GROUP_SHIFT),
// its other entries SORT_FOLLOWER.
const SORT_GROUP_SHIFT: u32 = 16u;
const SORT_FOLLOWER: u32 = 0xffffffffu;
// sort_keys holds five regions of draw_capacity words: the unsorted keys, the sorted keys, the
// slot of each unsorted group's node (on its first entry), the unsorted index of each group by
// its place within its key (on its first entry there), and the sorted entries' slots.
const SORT_SORTED_REGION: u32 = 1u;
const SORT_SLOTS_REGION: u32 = 2u;
const SORT_BUCKETED_REGION: u32 = 3u;
const SORT_SORTED_SLOTS_REGION: u32 = 4u;
const SORT_KEY_REGIONS: u32 = 5u;

const CULL_FRUSTUM: u32 = 1u;
const CULL_FACES: u32 = 2u;
// Every page of a stream is its own command (the instanced draw path reads one page per instance).
const CULL_PAGES: u32 = 4u;
// Face streams are tested against the depth pyramid.
const CULL_OCCLUSION: u32 = 8u;
// The frame's first phase ran: it drew the streams seen last frame (VIS_SEEN).
const CULL_TWO_PHASE: u32 = 16u;
// Occluded streams are listed (LIST_OCCLUDED) for the debug view that shows them.
const CULL_LIST_OCCLUDED: u32 = 32u;
// Opaque commands go to distance bands drawn near first (cull.wgsl `distance_band`).
const CULL_FRONT_TO_BACK: u32 = 64u;

// Camera uniform. Rust twin: layouts::CameraUniform (encase).
//
// Every position on the GPU is measured from `anchor`, the block the eye is in: a chunk's integer
// origin minus the anchor is exact, and only that small difference becomes f32, so the frame is
// the same 10,000,000 blocks from the world's origin as at it.
struct Camera {
    // Anchored positions to clip space.
    view_proj: mat4x4<f32>,
    // The eye measured from `anchor` (each coordinate in [0, 1)).
    eye: vec3<f32>,
    // The haze's exponent: 4 / RendererOptions::fog_density (see `haze_amount`).
    fog_exponent: f32,
    // Linear RGB of the sky at the horizon.
    sky_color: vec3<f32>,
    // Distance from the eye in blocks where the haze reaches the sky.
    fog_end: f32,
    // Clip space to view directions in world axes (the view's rotation alone): the sky's view
    // rays, and shade.wgsl's rays through its pixels (measured from the eye).
    inv_rotation_proj: mat4x4<f32>,
    // The selected block's min corner measured from `anchor` (xyz) and 1 in w when one is
    // selected.
    selection: vec4<f32>,
    anchor: vec3<i32>,
    // The draw lists' capacity when they are drawn instanced (one instance per page command,
    // chunk_draw.wgsl finds its quad through the list); 0 when each command is its own draw.
    page_list_capacity: u32,
    // The medium the eye is in: linear colour, and in w the distance over which it hides 63%
    // of what lies behind (0 in air).
    medium: vec4<f32>,
    // SKY_HAZE | SKY_PROCEDURAL | SKY_LIGHT.
    sky_flags: u32,
    // The t² (t = distance / fog_end) below which haze is under 1/1024: 2^(-20 / fog_exponent).
    haze_clear2: f32,
    // Towards the sun (unit, world axes), and in w the daylight: 0 at night, 1 by day (twin:
    // voxgpu_engine::sun).
    sun: vec4<f32>,
    // Anchored positions to each shadow cascade's clip space (src/shadow.rs): x, y in -1..1
    // across the map, y up; depth 0 nearest the sun.
    shadow_view_proj: array<mat4x4<f32>, 2>,
    // The cascades' radii around the eye (x, y) and their texels' edges (z, w), in blocks.
    shadow_radii: vec4<f32>,
}

// Shadow cascades, each with a map of its own (shadow::CASCADES).
const SHADOW_CASCADES: u32 = 2u;
// Camera.sky_flags. Twins of CameraUniform::HAZE and PROCEDURAL_SKY.
const SKY_HAZE: u32 = 1u;
const SKY_PROCEDURAL: u32 = 2u;
// Surfaces are lit by the light pool's sky and block light (else by their face's shade alone).
const SKY_LIGHT: u32 = 4u;
// The sun's light is shadowed near the eye (the shadow maps are bound and drawn).
const SKY_SHADOWS: u32 = 8u;

// The sky's colour in the unit direction `dir`, without the sun's disc: what the sky shader
// draws there, and what haze fades a surface seen in that direction to, so the terrain at
// `fog_end` is the sky behind it. `horizon` is Camera.sky_color, the day's horizon; `sun` is
// Camera.sun: the sky darkens with the daylight, and glows warm around a low sun.
fn sky_gradient(horizon: vec3<f32>, dir: vec3<f32>, procedural: bool, sun: vec4<f32>) -> vec3<f32> {
    let day = mix(0.03, 1.0, sun.w);
    if !procedural {
        return horizon * day;
    }
    let up = clamp(dir.y, -1.0, 1.0);
    let zenith = horizon * vec3<f32>(0.35, 0.5, 0.8);
    var color = mix(horizon, zenith, smoothstep(0.0, 0.8, up));
    // Below the horizon (seen past the world's edge): a little darker than the horizon.
    color = mix(color, horizon * 0.8, smoothstep(0.0, -0.3, up));
    color *= day;
    // The glow: sun^16 by four squarings (no pow: this runs for every hazed fragment), wider and
    // redder as the sun nears the horizon.
    var glow = max(dot(dir, sun.xyz), 0.0);
    glow *= glow;
    glow *= glow;
    let low = 1.0 - smoothstep(0.0, 0.45, abs(sun.y));
    let wide = glow;
    glow *= glow;
    glow *= glow;
    let dusk = vec3<f32>(1.0, 0.42, 0.16) * (wide * 0.55 + 0.12 * max(1.0 - abs(up) * 3.0, 0.0)) * low;
    return color + (vec3<f32>(1.0, 0.85, 0.6) * glow * 0.25 + dusk) * smoothstep(-0.2, 0.05, sun.y);
}

// The sky seen through the point `ndc` of the screen, linear RGB: the procedural gradient and the
// sun's disc, or under water the medium's colour (the sky lies past any distance). Drawn by
// sky.wgsl, or written by the shade pass with the surfaces (shade_color.wgsl). It depends on
// where the camera looks, never on where it is.
fn sky_through(camera: Camera, ndc: vec2<f32>) -> vec3<f32> {
    if camera.medium.w > 0.0 {
        return camera.medium.rgb;
    }
    // The view ray through this point: unproject a point in front of an eye at the origin.
    let far = camera.inv_rotation_proj * vec4<f32>(ndc, 0.5, 1.0);
    let dir = normalize(far.xyz / far.w);
    var color = sky_gradient(camera.sky_color, dir, true, camera.sun);
    let sun = max(dot(dir, camera.sun.xyz), 0.0);
    color += vec3<f32>(1.0, 0.85, 0.6) * pow(sun, 600.0) * 3.0 * smoothstep(-0.05, 0.05, camera.sun.y);
    return color;
}

// How much of the sky's colour a surface at squared distance `distance2` from the eye takes,
// 0..1: with t = distance / fog_end and the exponent 4/ρ for density ρ, t^(4/ρ), taken as
// (t²)^(2/ρ) so no square root is needed: 0 at the eye, 1 at fog_end. Twin of
// voxgpu_engine::haze_amount.
// `clear2` is the t² below which the amount is under 1/1024 (Camera.haze_clear2): those
// fragments, most of the near field, skip the transcendentals.
fn haze_amount(distance2: f32, fog_end: f32, exponent: f32, clear2: f32) -> f32 {
    let t2 = clamp(distance2 / max(fog_end * fog_end, 1e-6), 1e-12, 1.0);
    if t2 < clear2 {
        return 0.0;
    }
    return exp2(0.5 * exponent * log2(t2));
}


// The index of an invocation of a one-dimensional job spread over a two-dimensional grid of
// workgroups of `size` (`linear_dispatch` in src/pipelines.rs): one dimension may hold at most
// 65,535 workgroups, so long jobs continue in the next row. Past the job's end it returns indices
// the caller's bounds check rejects.
fn linear_invocation(id: vec3<u32>, groups: vec3<u32>, size: u32) -> u32 {
    return id.y * groups.x * size + id.x;
}

fn quad_field(quad: vec2<u32>, word: u32, shift: u32, bits: u32) -> u32 {
    return (quad[word] >> shift) & ((1u << bits) - 1u);
}

fn put_field(quad: ptr<function, vec2<u32>>, word: u32, shift: u32, value: u32) {
    (*quad)[word] |= value << shift;
}

// Twin of mesh::PackedQuad::pack. `size` is the extent along the two tangent axes (1..=32).
fn pack_quad(min: vec3<u32>, size: vec2<u32>, face: u32, block: u32, skirt: bool, ao: u32) -> vec2<u32> {
    var q = vec2<u32>(0u, 0u);
    put_field(&q, QUAD_X_WORD, QUAD_X_SHIFT, min.x);
    put_field(&q, QUAD_Y_WORD, QUAD_Y_SHIFT, min.y);
    put_field(&q, QUAD_Z_WORD, QUAD_Z_SHIFT, min.z);
    put_field(&q, QUAD_W_WORD, QUAD_W_SHIFT, size.x - 1u);
    put_field(&q, QUAD_H_WORD, QUAD_H_SHIFT, size.y - 1u);
    put_field(&q, QUAD_FACE_WORD, QUAD_FACE_SHIFT, face);
    put_field(&q, QUAD_SKIRT_WORD, QUAD_SKIRT_SHIFT, u32(skirt));
    put_field(&q, QUAD_BLOCK_WORD, QUAD_BLOCK_SHIFT, block);
    put_field(&q, QUAD_AO_WORD, QUAD_AO_SHIFT, ao);
    return q;
}

// Chunk-local position of the voxel at depth `a` along `axis` and tangent coordinates (u, v),
// the tangent axes being (axis + 1) % 3 and (axis + 2) % 3. Twin of neighbourhood.rs `voxel_at`.
fn voxel_pos(axis: u32, a: u32, u: u32, v: u32) -> vec3<u32> {
    switch axis {
        case 0u: { return vec3<u32>(a, u, v); }
        case 1u: { return vec3<u32>(v, a, u); }
        default: { return vec3<u32>(u, v, a); }
    }
}

// A cell box as `FaceMesh.bounds` packs it: min and max (inclusive) cells, 5 bits per axis.
fn pack_bounds(low: vec3<u32>, high: vec3<u32>) -> u32 {
    return low.x | (low.y << 5u) | (low.z << 10u) | (high.x << 15u) | (high.y << 20u) | (high.z << 25u);
}

// Axis of a face direction: 0 = X, 1 = Y, 2 = Z.
fn face_axis(face: u32) -> u32 {
    return face >> 1u;
}

fn face_is_positive(face: u32) -> bool {
    return (face & 1u) == 0u;
}

// Unit vector along `axis`.
fn axis_unit(axis: u32) -> vec3<f32> {
    return vec3<f32>(f32(axis == 0u), f32(axis == 1u), f32(axis == 2u));
}

fn face_normal(face: u32) -> vec3<f32> {
    let sign = select(-1.0, 1.0, face_is_positive(face));
    return axis_unit(face_axis(face)) * sign;
}

// An opaque surface's key in the frame's surface key target (chunk_draw.wgsl's fs_opaque writes
// it, shade.wgsl reads it): SURFACE_FIRST_QUAD plus the index in the mega quad buffer of the quad
// drawn at the pixel. SURFACE_NONE where no surface of the frame was drawn, in a frame that does
// not clear the depth (one that does tells empty pixels by their depth, and leaves the keys
// uncleared); SURFACE_POISON where a frame that clears its depth filled the target in a build
// with debug assertions, which the shade pass paints plain red. Both are small, so every
// backend's clear (some pass the value as an f32) writes them exactly.
const SURFACE_NONE: u32 = 0u;
const SURFACE_POISON: u32 = 1u;
const SURFACE_FIRST_QUAD: u32 = 2u;
