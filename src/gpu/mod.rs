//! The GPU engine: everything that owns wgpu objects. Plain data comes from [`crate::voxel`] and
//! [`crate::mesh`]; this layer puts it in buffers and records the frame.

mod context;
mod draw;
mod error;
mod layouts;
mod pipelines;
mod quad_pool;
mod readback;
mod renderer;
mod shaders;

pub use context::{AdapterSummary, Capabilities, GpuContext, list_adapters};
pub use draw::{DrawSubmission, MAX_DRAW_QUADS};
pub use error::GpuError;
pub use layouts::{CameraUniform, ChunkMeta};
pub use quad_pool::{PAGE_QUADS, PAGE_QUADS_LOG2};
pub use renderer::{FrameStats, Renderer, RendererOptions};
pub use shaders::{SHADERS, ShaderFile, shader_source};
