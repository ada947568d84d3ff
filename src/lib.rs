//! voxgpu: a GPU-driven voxel renderer on wgpu.
//!
//! Three layers, visible in the module tree:
//! - plain data with no wgpu: [`voxel`] (chunks, registry, world), [`mesh`] (quad format and the
//!   CPU reference mesher), [`lod`] (level selection), [`cull`] (frustum and face culling),
//!   [`camera`], [`worldgen`];
//! - the GPU engine that owns wgpu objects: [`gpu`];
//! - the command-line front end: [`cli`].

pub mod camera;
pub mod cli;
pub mod cull;
pub mod fly;
pub mod gpu;
pub mod lod;
pub mod mesh;
pub mod stream;
#[cfg(feature = "viewer")]
pub mod viewer;
pub mod voxel;
pub mod worldgen;
