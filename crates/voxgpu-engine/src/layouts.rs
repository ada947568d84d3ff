//! Structs that both Rust and WGSL read. Each has one definition here and one in
//! `shaders/common.wgsl`; `tests/shaders.rs` reflects the WGSL with naga and checks every
//! member offset and the total size against these.

use glam::{Mat4, Vec3};

/// Per-node record in the chunk metadata buffer, indexed by slot. Read by the vertex shader
/// (through the page table) to place a node's quads, and by the LOD and cull passes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkMeta {
    /// World block coordinates of the node's minimum corner (`NodeKey::origin`).
    pub origin: [i32; 3],
    /// The scale the node's quads are in: coordinates scale by `2^lod` (node level plus the mip
    /// level it was meshed at). Written by the mesher.
    pub lod: u32,
    /// The node's level (0: a chunk). Written by the CPU.
    pub node_level: u32,
    /// The parent node's slot, [`NO_SLOT`] when it is not resident. Written by the CPU.
    pub parent: u32,
    /// [`NodeFlags`], written by the LOD pass.
    pub flags: u32,
    /// How the node is drawn ([`DrawState`]), written by the LOD pass: 0 when it is not.
    pub shown: u32,
}

impl ChunkMeta {
    /// Byte offset of `parent`, which the CPU rewrites when the parent arrives or leaves.
    pub const PARENT_OFFSET: u64 = std::mem::offset_of!(ChunkMeta, parent) as u64;
}

/// Bits of [`ChunkMeta::flags`]. Twin of `NODE_*` in `shaders/common.wgsl`.
pub struct NodeFlags;

impl NodeFlags {
    /// Nearer than the distance where the node's level begins: its children are wanted.
    pub const SPLIT: u32 = 1;
    /// `SPLIT` has been decided once; hysteresis applies from then on.
    pub const SELECTED: u32 = 2;
    /// The node was shown before this frame's decision (a snapshot the first step takes, so
    /// that children read their parent's last state, not one being written).
    pub const WAS_SHOWN: u32 = 4;
    /// This frame is the node's first decision: it is new to its slot.
    pub const NEW: u32 = 8;
}

/// Fields of [`ChunkMeta::shown`]: whether the node is shown, and its cross-fade. Twin of
/// `DRAW_*` in `shaders/common.wgsl`. A node with any bit set keeps its quads and is drawn; one
/// fading (frames left above 0) is drawn through the dither.
pub struct DrawState;

impl DrawState {
    /// Shown: neither replaced by its children nor covered by an ancestor.
    pub const SHOWN: u32 = 1;
    /// Bits 8..16: frames left of the cross-fade (fading in when shown, else out).
    pub const FADE_LEFT_SHIFT: u32 = 8;
    /// Bits 16..24: the fade's length in frames.
    pub const FADE_TOTAL_SHIFT: u32 = 16;
}

/// The camera uniform (group 0, binding 0 of the draw shader). Laid out by `encase`, so no
/// hand-written padding.
#[derive(Clone, Copy, Debug, PartialEq, encase::ShaderType)]
pub struct CameraUniform {
    /// Anchored to clip space of the view camera (infinite reverse-Z: nearer is greater depth):
    /// takes positions measured from `anchor` ([`voxgpu_core::camera::Camera::view_proj_from`]).
    pub view_proj: Mat4,
    /// The view camera's position measured from `anchor`, in blocks (each coordinate in `[0, 1)`).
    pub eye: Vec3,
    /// The haze's exponent, `4 / ρ` for the density ρ ([`crate::haze_amount`]).
    pub fog_exponent: f32,
    /// Linear RGB of the sky at the horizon, which the haze fades to.
    pub sky_color: Vec3,
    /// Distance from the eye in blocks where the haze reaches the sky.
    pub fog_end: f32,
    /// Clip space to view directions in world axes: the inverse of the projection times the
    /// view's rotation alone, so the sky does not depend on where the eye is; the shade pass
    /// unprojects each pixel's depth through it to the surface's position from the eye.
    pub inv_rotation_proj: Mat4,
    /// The selected block's min corner measured from `anchor` (xyz), and 1 in w when one is
    /// selected.
    pub selection: glam::Vec4,
    /// The block every position on the GPU is measured from: the block the eye is in
    /// ([`voxgpu_core::camera::Camera::anchor`]). Integer world positions minus the anchor are
    /// exact, so the frame does not lose precision far from the world's origin.
    pub anchor: glam::IVec3,
    /// The draw lists' capacity when they are drawn instanced
    /// ([`crate::DrawSubmission::Instanced`]); 0 when each command is its own draw.
    pub page_list_capacity: u32,
    /// The medium the eye is in (water, glass): its linear colour in xyz and, in w, the
    /// distance in blocks over which it hides 63% of what lies behind; w = 0 in air.
    pub medium: glam::Vec4,
    /// [`CameraUniform::HAZE`], [`CameraUniform::PROCEDURAL_SKY`] and [`CameraUniform::LIGHT`].
    pub sky_flags: u32,
    /// The `t²` (`t` = distance / `fog_end`) below which haze is under 1/1024,
    /// `2^(−20 / fog_exponent)`: nearer fragments skip computing it.
    pub haze_clear2: f32,
    /// The direction towards the sun (unit, world axes) and in w the daylight, 0 at night to 1
    /// by day ([`crate::sun`]).
    pub sun: glam::Vec4,
    /// Anchored positions to each shadow cascade's clip space ([`crate::shadow::Cascade`]).
    pub shadow_view_proj: [Mat4; crate::shadow::CASCADES],
    /// The cascades' radii around the eye (x, y) and their texels' edges (z, w), in blocks.
    pub shadow_radii: glam::Vec4,
}

impl CameraUniform {
    /// `sky_flags`: distant surfaces fade into the sky.
    pub const HAZE: u32 = 1;
    /// `sky_flags`: the sky is the gradient of `sky.wgsl`, not `sky_color` flat.
    pub const PROCEDURAL_SKY: u32 = 2;
    /// `sky_flags`: surfaces are lit by the light pool's sky and block light.
    pub const LIGHT: u32 = 4;
    /// `sky_flags`: the sun's light is shadowed near the eye (the shadow maps are drawn).
    pub const SHADOWS: u32 = 8;

    /// Bytes in the uniform buffer's layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buffer = encase::UniformBuffer::new(Vec::new());
        buffer.write(self).expect("writing into a Vec cannot fail");
        buffer.into_inner()
    }
}

/// u32 words per voxel pool slot: LOD 0 (32³ u16, two per word) plus room for the mip levels
/// 16³ … 1³ (4681 u16), rounded up to a multiple of 64 words. 73.25 KiB per chunk.
pub const SLOT_WORDS: u32 = 18752;

/// u32 words of one slot of the light pool: the node's light, every level
/// ([`voxgpu_core::light::NODE_LIGHT_BYTES`]), then [`LIGHT_MASK_WORDS`] words of its open
/// columns, then the word at [`LIGHT_STAMP_OFFSET`]. Twin of `LIGHT_WORDS` in `common.wgsl`.
pub const LIGHT_WORDS: u32 = LIGHT_STAMP_OFFSET + 1;
/// Where a light slot's spread stamp is: the latest spread round (numbered across recordings)
/// in which a cell of the slot changed, which lets a sweeping round skip a chunk where neither
/// it nor a face neighbour changed in the round before (`light.wgsl`).
pub const LIGHT_STAMP_OFFSET: u32 = LIGHT_MASK_OFFSET + LIGHT_MASK_WORDS;
/// Where a light slot's open-column mask starts, in words.
pub const LIGHT_MASK_OFFSET: u32 = (voxgpu_core::light::NODE_LIGHT_BYTES / 4) as u32;
/// Words of the open-column mask: one per z, bit x.
pub const LIGHT_MASK_WORDS: u32 = 32;
const _: () = assert!(LIGHT_WORDS as usize * 4 <= 40 * 1024, "a node's light is at most 40 KiB");
/// "No slot" in neighbour links and job lists.
pub const NO_SLOT: u32 = u32::MAX;
/// Pages one face direction of one chunk can need: every voxel showing that face as its own quad,
/// 32768 quads (a 3D checkerboard of two different transparent blocks: each sees the other).
pub const MAX_FACE_PAGES: u32 = 128;
/// The work list's jobs start after the dispatch size (3 words) and the asked-for count.
pub const WORK_JOBS_OFFSET: u32 = 4;
/// The work list's header at the start of a mesher run with `PassParams::split_pairs` at
/// `split_pairs`: no job pairs yet (x, counted up by the collect pass); y workgroups per pair,
/// two where the mesh pass may give each face its own (the release pass then takes one job each),
/// else one; z 1; nothing asked for.
pub const fn work_header(split_pairs: u32) -> [u32; 4] {
    [0, if split_pairs > 0 { 2 } else { 1 }, 1, 0]
}
/// Set on a job whose chunk left: its pages are freed and nothing is meshed.
pub const JOB_RELEASE_ONLY: u32 = 0x8000_0000;

const _: () = assert!(SLOT_WORDS >= level_base(voxgpu_core::lod::MAX_LEVEL + 1).div_ceil(2));

/// Where level `level` of a chunk starts in its slot, in u16 ids: the levels lie back to back,
/// 32³ then 16³ … 1³. Twin of `level_base` in `shaders/common.wgsl`.
pub const fn level_base(level: u32) -> u32 {
    let mut base = 0;
    let mut k = 0;
    while k < level {
        let size = (voxgpu_core::voxel::CHUNK_SIZE as u32) >> k;
        base += size * size * size;
        k += 1;
    }
    base
}
const _: () = assert!(SLOT_WORDS as usize * 4 <= 80 * 1024, "a resident chunk holds at most about 80 KiB");

/// Bits of [`ChunkLinks::state`]: the work a slot is waiting for.
pub struct ChunkState;

impl ChunkState {
    /// Mesh all six faces: voxels, a neighbour or the level changed.
    pub const DIRTY: u32 = 1;
    /// The chunk left: free its pages.
    pub const EVICTED: u32 = 2;
    /// Voxels changed: rebuild the mip pyramid before anything meshes against it.
    pub const VOXELS: u32 = 4;
    /// The slot holds a node: the LOD pass gives it a level.
    pub const RESIDENT: u32 = 8;
    /// Every child column of the node has been generated: its children may replace it.
    pub const CHILDREN_READY: u32 = 16;
    /// Every child column of the node's parent has been generated (the parent's
    /// `CHILDREN_READY`).
    pub const SIBLINGS_READY: u32 = 32;
    /// The bits that say what a slot is, as opposed to work requested of the GPU.
    pub const STANDING: u32 = Self::RESIDENT | Self::CHILDREN_READY | Self::SIBLINGS_READY;
}

/// The mesher's view of a slot: its six neighbours' slots (in [`voxgpu_core::mesh::Face`] order,
/// [`NO_SLOT`] when absent), its state bits ([`ChunkState`]) and its selected level. The CPU
/// writes `neighbours` and `state` ([`ChunkLinks::CPU_BYTES`]) when the chunk or a neighbour
/// changes; the GPU clears the bits it has acted on, sets `DIRTY` when a level changes or pages
/// ran out, and owns `lod`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkLinks {
    /// The same-level face neighbours' slots, in [`voxgpu_core::mesh::Face`] order; [`NO_SLOT`]
    /// where the neighbour is not resident.
    pub neighbours: [u32; 6],
    /// [`ChunkState`] bits.
    pub state: u32,
    /// The level the LOD pass chose ([`voxgpu_core::lod::LEVEL_UNSET`] until it has).
    pub lod: u32,
}

impl ChunkLinks {
    /// A slot's first record: no neighbours, no state bits, no level chosen yet.
    pub const EMPTY: ChunkLinks =
        ChunkLinks { neighbours: [NO_SLOT; 6], state: 0, lod: voxgpu_core::lod::LEVEL_UNSET };
    /// The leading bytes the CPU writes after the slot's first write: everything but `lod`.
    pub const CPU_BYTES: usize = std::mem::offset_of!(ChunkLinks, lod);
}

/// What the cull pass tests against (a uniform), from the culling camera. Twin of `CullParams` in
/// `shaders/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullParams {
    /// Frustum planes `(normal, d)`, inside where `normal · p + d ≥ 0` ([`voxgpu_core::cull::Frustum`]).
    pub planes: [[f32; 4]; 6],
    /// The culling camera's position measured from `anchor`, in blocks: face directions are
    /// tested against it.
    pub eye: [f32; 3],
    /// [`CullParams::FRUSTUM`] | [`CullParams::FACES`] | [`CullParams::PAGES`] |
    /// [`CullParams::OCCLUSION`] | [`CullParams::TWO_PHASE`] | [`CullParams::LIST_OCCLUDED`]:
    /// which tests run, whether commands stop at pages, whether the frame has a first phase, and
    /// whether occluded streams are listed.
    pub flags: u32,
    /// The view's eye measured from `anchor`: transparent commands are sorted by distance from it.
    pub view_eye: [f32; 3],
    /// Distance keys per square root of a block ([`voxgpu_core::cull::SORT_SCALE`]).
    pub sort_scale: f32,
    /// The block positions are measured from ([`CameraUniform::anchor`]); the planes too are in
    /// these coordinates.
    pub anchor: [i32; 3],
    /// Pads `pyramid` to its 16-byte alignment; zero.
    pub _pad: u32,
    /// The depth pyramid the streams are tested against; its levels are 0 when there is none.
    pub pyramid: PyramidTest,
}

/// What a test against a depth pyramid needs of it (`PyramidTest` in `shaders/common.wgsl`):
/// the cull pass and the shadow caster pass each carry one.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PyramidTest {
    /// Anchored positions to the clip space of the camera the pyramid's depth was drawn with
    /// (columns).
    pub view_proj: [[f32; 4]; 4],
    /// The frame the pyramid was built from, in pixels.
    pub frame: [u32; 2],
    /// Its levels; 0 for no test.
    pub levels: u32,
    /// [`voxgpu_core::occlusion::DEPTH_MARGIN`].
    pub depth_margin: f32,
}

impl CullParams {
    /// [`CullParams::flags`] bit: nodes whose box lies outside the frustum draw nothing.
    pub const FRUSTUM: u32 = 1;
    /// [`CullParams::flags`] bit: face directions that point away from the eye for the whole
    /// node box draw nothing.
    pub const FACES: u32 = 2;
    /// [`CullParams::flags`] bit: every page of a face stream is its own command (the instanced
    /// draw path draws one page per instance).
    pub const PAGES: u32 = 4;
    /// [`CullParams::flags`] bit: face streams are tested against the depth pyramid.
    pub const OCCLUSION: u32 = 8;
    /// [`CullParams::flags`] bit: the frame's first phase drew the streams seen last frame.
    pub const TWO_PHASE: u32 = 16;
    /// [`CullParams::flags`] bit: occluded streams are listed for the debug view that shows them.
    pub const LIST_OCCLUDED: u32 = 32;
    /// [`CullParams::flags`] bit: opaque commands go to distance bands drawn near first.
    pub const FRONT_TO_BACK: u32 = 64;

    /// Culls with the frustum of `cull_camera` at `aspect` from its eye and sorts transparent
    /// commands by distance from `view`'s eye, every position measured from `anchor`.
    pub fn new(
        cull_camera: &voxgpu_core::camera::Camera,
        aspect: f32,
        flags: u32,
        view: &voxgpu_core::camera::Camera,
        anchor: glam::IVec3,
    ) -> Self {
        let frustum = voxgpu_core::cull::Frustum::from_view_proj(cull_camera.view_proj_from(aspect, anchor));
        Self {
            planes: frustum.planes.map(|p| p.to_array()),
            eye: cull_camera.eye_from(anchor).to_array(),
            flags,
            view_eye: view.eye_from(anchor).to_array(),
            sort_scale: voxgpu_core::cull::SORT_SCALE,
            anchor: anchor.to_array(),
            ..Self::default()
        }
    }
}

/// What the LOD pass reads, written once per frame (a storage buffer: the thresholds array has a
/// 4-byte stride).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LodParams {
    /// The view camera's position measured from `anchor`, in blocks: node distances are measured
    /// from it.
    pub eye: [f32; 3],
    /// Widening of each level's distance band, as a fraction of its threshold
    /// ([`voxgpu_core::lod::LodSettings::hysteresis`]).
    pub hysteresis: f32,
    /// `thresholds[k]`: distance in blocks where absolute level `k + 1` begins.
    pub thresholds: [f32; voxgpu_core::lod::LEVELS],
    /// Coarsest mip above a node's own level.
    pub max_level: u32,
    /// The highest node level resident: its nodes have no parent to be covered by.
    pub top_level: u32,
    /// Frames a level change cross-fades over ([`voxgpu_core::lod::LodSettings::fade_frames`]).
    pub fade_frames: u32,
    /// Pads `anchor` to its 16-byte alignment; zero.
    pub _pad: u32,
    /// The block positions are measured from ([`CameraUniform::anchor`]).
    pub anchor: [i32; 3],
    /// Pads the record to the WGSL struct's size (a multiple of its 16-byte alignment); zero.
    pub _pad_end: u32,
}

impl LodParams {
    /// This frame's parameters: `settings` seen from `camera`, positions measured from `anchor`,
    /// with `top_level` the highest node level resident.
    pub fn new(
        settings: &voxgpu_core::lod::LodSettings,
        camera: &voxgpu_core::camera::Camera,
        anchor: glam::IVec3,
        top_level: u32,
    ) -> Self {
        Self {
            eye: camera.eye_from(anchor).to_array(),
            anchor: anchor.to_array(),
            _pad_end: 0,
            hysteresis: settings.hysteresis(),
            thresholds: settings.thresholds(),
            max_level: settings.max_level(),
            top_level,
            fade_frames: settings.fade_frames(),
            _pad: 0,
        }
    }
}

/// Where one face direction of one chunk keeps its quads (indexed by `slot * 6 + face`): opaque
/// quads then transparent ones, stream index `i` in page `pages[i / PAGE_QUADS]`. Written only by
/// the GPU mesher.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FaceMesh {
    /// Opaque quads: stream indices `0..opaque`.
    pub opaque: u32,
    /// Transparent quads, after the opaque ones: stream indices `opaque..opaque + transparent`.
    pub transparent: u32,
    /// Pages the stream holds: the first `page_count` entries of `pages` are in use.
    pub page_count: u32,
    /// How many of the quads (opaque and transparent) are LOD skirts.
    pub skirts: u32,
    /// The cells the quads cover, packed (see [`FaceMesh::bounds`]).
    pub bounds: u32,
    /// The stream's pages in stream order (page `k` holds indices `k * PAGE_QUADS ..`); entries
    /// past `page_count` are unused.
    pub pages: [u32; MAX_FACE_PAGES as usize],
}

impl FaceMesh {
    /// The cells the face's quads cover, in the meshed level's grid, as min and max (inclusive)
    /// cell; `None` when the face has no quads. Packed 5 bits per axis, min x, y, z in bits 0,
    /// 5, 10, max in bits 15, 20, 25 (`pack_bounds` in `common.wgsl`).
    pub fn bounds(&self) -> Option<[glam::UVec3; 2]> {
        if self.opaque + self.transparent == 0 {
            return None;
        }
        let axis = |shift: u32| {
            glam::UVec3::new(
                self.bounds >> shift & 31,
                self.bounds >> (shift + 5) & 31,
                self.bounds >> (shift + 10) & 31,
            )
        };
        Some([axis(0), axis(15)])
    }
}

/// The fixed head of the allocator buffer; the free page stack follows it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AllocatorHeader {
    /// Entries on the free stack.
    pub free_count: u32,
    /// Pages asked for and refused, summed since creation; the CPU grows the pool when it rises.
    pub failed_pages: u32,
    /// Pages asked for by the current mesh pass; zero between frames.
    pub popped: u32,
    /// Pages granted by the current mesh pass (a prefix of `popped`); zero between frames.
    pub granted: u32,
}

/// Sizes the compute passes need, written once per frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PassParams {
    /// Highest slot in use + 1.
    pub slot_count: u32,
    /// Jobs the work list holds this frame (a multiple of 6): the re-mesh budget.
    pub max_jobs: u32,
    /// Commands each draw list holds.
    pub draw_capacity: u32,
    /// Always [`voxgpu_core::voxel::CHUNK_SIZE`]: the mesher's loop bound, passed at run time so GL
    /// drivers do not unroll its nested loops (see `shaders/mesh.wgsl`).
    pub chunk_size: u32,
    /// 1: the mesher bakes ambient occlusion into the quads; 0: every corner open.
    pub ambient_occlusion: u32,
    /// Up to this many job pairs in a run, the mesh pass gives each face a workgroup of its own
    /// ([`crate::MESH_SPLIT_PAIRS`] on a GPU, 0 on a software adapter).
    pub split_pairs: u32,
}
