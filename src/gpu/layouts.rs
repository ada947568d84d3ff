//! Structs that both Rust and WGSL read. Each has one definition here and one in
//! `shaders/common.wgsl`; `tests/shaders.rs` reflects the WGSL with naga and checks every
//! member offset and the total size against these.

use glam::{Mat4, Vec3};

/// Per-chunk record in the chunk metadata buffer, indexed by chunk slot. Read by the vertex
/// shader (through the page table) to place a chunk's quads.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkMeta {
    /// World block coordinates of the chunk's minimum corner (`ChunkPos::origin`).
    pub origin: [i32; 3],
    /// Level of detail; quad coordinates scale by `2^lod`.
    pub lod: u32,
}

/// The camera uniform (group 0, binding 0 of the draw shader). Laid out by `encase`, so no
/// hand-written padding.
#[derive(Clone, Copy, Debug, PartialEq, encase::ShaderType)]
pub struct CameraUniform {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Distance in blocks where fog starts and where it reaches the sky colour.
    pub fog_start: f32,
    /// Linear RGB of the sky, which the fog fades to.
    pub sky_color: Vec3,
    pub fog_end: f32,
}

impl CameraUniform {
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
/// Words of LOD 0 at the start of a slot.
pub const LOD0_WORDS: u32 = (crate::voxel::CHUNK_VOLUME / 2) as u32;
/// "No slot" in neighbour links and job lists.
pub const NO_SLOT: u32 = u32::MAX;
/// Pages one face direction of one chunk can need: every voxel showing that face as its own quad,
/// 32768 quads (a 3D checkerboard of two different transparent blocks: each sees the other).
pub const MAX_FACE_PAGES: u32 = 128;
/// The work list's jobs start after the dispatch size (3 words) and the asked-for count.
pub const WORK_JOBS_OFFSET: u32 = 4;
/// Set on a job whose chunk left: its pages are freed and nothing is meshed.
pub const JOB_RELEASE_ONLY: u32 = 0x8000_0000;

const _: () = assert!(SLOT_WORDS >= LOD0_WORDS + (4096u32 + 512 + 64 + 8 + 1).div_ceil(2));
const _: () = assert!(SLOT_WORDS as usize * 4 <= 80 * 1024, "DESIGN.md: at most about 80 KiB per chunk");

/// What the mesher should do with a slot ([`ChunkLinks::state`]).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkState {
    /// Meshed, nothing to do.
    Clean = 0,
    /// Voxels or a neighbour changed: mesh all six faces.
    Dirty = 1,
    /// The chunk left: free its pages.
    Evicted = 2,
}

/// The mesher's view of a slot: its six neighbours' slots (in [`crate::mesh::Face`] order,
/// [`NO_SLOT`] when absent) and its state. The CPU writes it when the chunk or a neighbour changes;
/// the GPU resets the state after queuing the chunk and sets it back to dirty when it could not
/// get pages.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkLinks {
    pub neighbours: [u32; 6],
    pub state: u32,
    pub _pad: u32,
}

impl ChunkLinks {
    pub const EMPTY: ChunkLinks =
        ChunkLinks { neighbours: [NO_SLOT; 6], state: ChunkState::Clean as u32, _pad: 0 };
}

/// Where one face direction of one chunk keeps its quads (indexed by `slot * 6 + face`): opaque
/// quads then transparent ones, stream index `i` in page `pages[i / PAGE_QUADS]`. Written only by
/// the GPU mesher.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FaceMesh {
    pub opaque: u32,
    pub transparent: u32,
    pub page_count: u32,
    pub _pad: u32,
    pub pages: [u32; MAX_FACE_PAGES as usize],
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
    /// Always [`crate::voxel::CHUNK_SIZE`]: the mesher's loop bound, passed at run time so GL
    /// drivers do not unroll its nested loops (see `shaders/mesh.wgsl`).
    pub chunk_size: u32,
}
