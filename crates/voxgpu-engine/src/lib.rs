//! voxgpu's GPU engine: a voxel renderer that records into a wgpu device, encoder and targets
//! that belong to the caller.
//!
//! Chunks of 32³ blocks (and coarser level-of-detail nodes) live in GPU storage buffers. Each
//! frame, compute passes choose every node's level of detail, rebuild the mips of edited
//! chunks, greedy-mesh what changed into one mega quad buffer, cull by frustum and face
//! direction into indirect draw lists, and sort the transparent list back to front; render
//! passes then draw it all with a fixed number of commands. The CPU's work per frame does not
//! grow with the world. Plain data and the CPU twins of every GPU pass come from
//! [`voxgpu_core`].
//!
//! # Embedding
//!
//! Create the device with [`required_limits`] and the [`OPTIONAL_FEATURES`] the adapter has,
//! build a [`Renderer`] on it, insert chunks, and each frame call [`Renderer::prepare`] then
//! [`Renderer::record`] with the frame's [`Targets`] (the depth view from [`depth_target`]).
//! Submit the encoder yourself, then call [`Renderer::frame_submitted`]. Your own geometry can go into the same encoder and the same
//! depth target, before or after voxgpu's passes.
//!
//! Conventions the caller's draws must share:
//! - **Axes and units:** right-handed, +Y up, one unit is one block; block `(x, y, z)` fills
//!   `[x, x+1) × [y, y+1) × [z, z+1)`.
//! - **Projection:** [`voxgpu_core::camera::Camera::view_proj_from`] with the camera's
//!   [`voxgpu_core::camera::Camera::anchor`], over positions measured from that anchor (world
//!   position minus the anchor, taken in integers or f64 before it becomes f32), wgpu's clip
//!   space (depth `[0, 1]`), reverse-Z with an infinite far plane. That is the renderer's own
//!   matrix, so the game's depth matches voxgpu's exactly and keeps its precision far from the
//!   origin; `Camera::view_proj` over world positions matches only near the origin.
//! - **Depth:** [`DEPTH_FORMAT`] (`Depth32Float`), cleared to 0 (infinitely far); nearer is
//!   greater, so draw with `GreaterEqual`.
//! - **Colour:** [`RendererOptions::color_format`], an sRGB format; the shaders write linear
//!   colour.
//!
//! **Device loss.** The renderer keeps every node's cells on the CPU (edits included), so a lost
//! device costs nothing but the GPU work to redo: once [`Renderer::prepare`] returns
//! [`GpuError::DeviceLost`] (after [`Renderer::watch_device_loss`]; [`Offscreen`] watches
//! [`GpuContext`]'s flag), make a new device and call [`Renderer::recover`] with it. A streaming
//! manager feeding the renderer needs nothing. On a device of your own, set its lost callback to
//! fill the watched flag, and give it an uncaptured-error handler that is not fatal once the
//! flag is set: wgpu's default handler panics on the invalid-resource errors a lost device
//! causes ([`GpuContext`] installs both).
//!
//! [`Offscreen`] is a renderer with its own targets, for headless rendering and screenshots.
//! [`GpuContext`] picks an adapter and opens a device for those who do not bring their own.
//!
//! ```no_run
//! use std::sync::Arc;
//! use glam::{IVec3, Vec3};
//! use voxgpu_core::camera::Camera;
//! use voxgpu_core::voxel::{BlockRegistry, Chunk, ChunkPos, blocks};
//! use voxgpu_engine::{Renderer, RendererOptions, Targets};
//!
//! # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, color: &wgpu::TextureView)
//! #     -> Result<(), Box<dyn std::error::Error>> {
//! // The game's device, created with voxgpu_engine::required_limits(&adapter.limits()).
//! let options = RendererOptions::new(1280, 720, 256.0); // width, height, fog distance in blocks
//! let mut voxels = Renderer::new(device, queue, options, &BlockRegistry::builtin())?;
//!
//! // One chunk: a stone floor 4 blocks thick.
//! let mut chunk = Chunk::empty();
//! for x in 0..32 {
//!     for z in 0..32 {
//!         for y in 0..4 {
//!             chunk.set(x, y, z, blocks::STONE);
//!         }
//!     }
//! }
//! voxels.insert_chunk(ChunkPos(IVec3::ZERO), Arc::new(chunk))?;
//!
//! // A depth target of the frame's size, in voxgpu's format.
//! let depth = voxgpu_engine::depth_target(device, 1280, 720);
//!
//! // Each frame: prepare, record into the game's encoder, submit, tell voxgpu.
//! let camera = Camera::look_at(Vec3::new(-20.0, 30.0, -20.0), Vec3::new(16.0, 4.0, 16.0));
//! voxels.prepare(&camera)?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! voxels.record(&mut encoder, &Targets { color, depth: &depth, clear: true })?;
//! // ... the game's own passes, loading the same colour and depth ...
//! queue.submit([encoder.finish()]);
//! voxels.frame_submitted();
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod bindings;
mod buffers;
mod chunk_pool;
mod context;
mod counters;
mod deferred;
mod draw;
mod error;
mod hiz;
mod inspect;
mod layouts;
mod light;
mod lod;
mod materials;
mod mesher;
mod pipelines;
mod present;
mod profiling;
mod quad_cull;
mod quad_pool;
mod readback;
mod render_mode;
mod renderer;
mod shaders;
pub mod shadow;
mod timing;

pub use context::{
    AdapterSummary, Capabilities, GpuContext, OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL,
    STORAGE_BUFFERS_PER_STAGE, list_adapters, required_limits,
};
pub use draw::DrawSubmission;
pub use error::GpuError;
pub use mesher::{MAX_CHUNKS_PER_FRAME, MESH_SPLIT_PAIRS, MESH_WORKGROUP_BYTES};
pub use pipelines::{COLOR_FORMAT, DEPTH_FORMAT, SharedPipelines, depth_target};
pub use present::{Presented, Presenter};
pub use profiling::{FrameTimings, StageTiming, stage};
pub use quad_pool::PAGE_QUADS;
pub use readback::Pixels;
pub use render_mode::{RasterPass, RenderMode};
pub use renderer::{
    Culling, DEFAULT_FOG_DENSITY, DEFAULT_GPU_BUDGET_MIB, DEFAULT_TIME_OF_DAY, FrameStats, MIN_FOG_DENSITY,
    NODE_BUDGET_BYTES, Offscreen, Renderer, RendererOptions, Residency, Targets, haze_amount, haze_exponent,
    sun,
};

/// The engine's internals that its tests and tools reach into: the GPU record layouts shared
/// with the WGSL, the shader sources and every pass's binding table, the inspector and its
/// read-back results, the tools' controls, and GPU timing helpers. Nothing a game needs; these
/// change with the implementation.
pub mod low_level {
    pub use crate::bindings::{BindingTable, Slot, SlotKind};
    pub use crate::inspect::Inspector;
    pub use crate::renderer::Tools;

    /// Every pass's binding table, for checking against the shaders.
    pub const BINDING_TABLES: &[crate::bindings::BindingTable] = &[
        crate::lod::SELECT_BINDINGS,
        crate::lod::COLLECT_BINDINGS,
        crate::lod::BUILD_BINDINGS,
        crate::mesher::COLLECT_BINDINGS,
        crate::mesher::RELEASE_BINDINGS,
        crate::mesher::MESH_BINDINGS,
        crate::draw::CULL_BINDINGS,
        crate::draw::SORT_BINDINGS,
        crate::quad_cull::QUAD_CULL_BINDINGS,
        crate::hiz::HIZ_BINDINGS,
        crate::light::LIGHT_BINDINGS,
        crate::shadow::SHADOW_CULL_BINDINGS,
        crate::pipelines::DRAW_BINDINGS,
        crate::deferred::SHADE_BINDINGS,
        crate::deferred::SHADE_INTO_COLOR_BINDINGS,
        crate::deferred::COMPOSE_BINDINGS,
        crate::quad_pool::GROW_BINDINGS,
        crate::present::PRESENT_BINDINGS,
        crate::timing::COPY_BINDINGS,
    ];
    pub use crate::counters::GpuCounters;
    pub use crate::deferred::{SURFACE_FIRST_QUAD, SURFACE_NONE, SURFACE_POISON};
    pub use crate::draw::MAX_DRAW_QUADS;
    pub use crate::draw::vis;
    pub use crate::draw::{SORT_KEY_REGIONS, SORT_SORTED_REGION, SORT_SORTED_SLOTS_REGION};
    pub use crate::inspect::{
        GpuChunkMesh, GpuNodeState, ListedQuad, QuadCull, ShadowCasters, StreamVerdict,
    };
    pub use crate::layouts::{
        AllocatorHeader, CameraUniform, ChunkLinks, ChunkMeta, ChunkState, CullParams, DrawState, FaceMesh,
        JOB_RELEASE_ONLY, LIGHT_MASK_OFFSET, LIGHT_MASK_WORDS, LIGHT_STAMP_OFFSET, LIGHT_WORDS, LodParams,
        MAX_FACE_PAGES, NO_SLOT, NodeFlags, PassParams, SLOT_WORDS, WORK_JOBS_OFFSET, level_base,
    };
    pub use crate::quad_cull::QUAD_LIST_VERTEX;
    pub use crate::quad_pool::PAGE_QUADS_LOG2;
    pub use crate::shaders::{SHADERS, ShaderFile, shader_source};
    pub use crate::timing::{Clock, GpuTimer, copy_bandwidth_gb_s, median};
}
