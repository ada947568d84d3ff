//! The GPU engine: everything that owns wgpu objects. Plain data comes from [`voxgpu_core::voxel`] and
//! [`voxgpu_core::mesh`]; this layer puts it in buffers, meshes it with compute shaders and records the
//! frame.

mod buffers;
mod chunk_pool;
mod context;
mod counters;
mod draw;
mod error;
mod inspect;
mod layouts;
mod lod;
mod materials;
mod mesher;
mod pipelines;
mod present;
mod profiling;
mod quad_pool;
mod readback;
mod render_mode;
mod renderer;
mod shaders;
mod timing;

pub use context::{
    AdapterSummary, Capabilities, GpuContext, OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL, STORAGE_BUFFERS_PER_STAGE,
    list_adapters, required_limits,
};
pub use counters::GpuCounters;
pub use draw::{DrawSubmission, MAX_DRAW_QUADS};
pub use error::GpuError;
pub use inspect::{GpuChunkMesh, GpuNodeState};
pub use layouts::{
    AllocatorHeader, CameraUniform, ChunkLinks, ChunkMeta, ChunkState, CullParams, FaceMesh,
    JOB_RELEASE_ONLY, LodParams, MAX_FACE_PAGES, NO_SLOT, NodeFlags, PassParams, SLOT_WORDS,
    WORK_JOBS_OFFSET, level_base,
};
pub use mesher::{MAX_CHUNKS_PER_FRAME, MESH_WORKGROUP_BYTES};
pub use present::{Presented, Presenter};
pub use profiling::{FrameTimings, StageTiming, stage};
pub use quad_pool::{PAGE_QUADS, PAGE_QUADS_LOG2};
pub use readback::Pixels;
pub use render_mode::{RasterPass, RenderMode};
pub use pipelines::{COLOR_FORMAT, DEPTH_FORMAT};
pub use renderer::{Culling, FrameStats, Offscreen, Renderer, RendererOptions, Targets};
pub use shaders::{SHADERS, ShaderFile, shader_source};
pub use timing::{Clock, GpuTimer, copy_bandwidth_gb_s, median};
