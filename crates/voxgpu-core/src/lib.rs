//! voxgpu's data layer and CPU twins, with no GPU in it.
//!
//! - [`voxel`]: block ids and the registry, 32³ chunks, the world, mips, level-of-detail node
//!   keys, the texture atlas, raycasting;
//! - [`mesh`]: the packed quad format shared with the GPU, the six face directions, and the CPU
//!   reference binary greedy mesher that the compute mesher is tested against;
//! - [`lod`]: which mip level and which node level draws each place;
//! - [`light`]: sky and block light per cell, and its levels of detail;
//! - [`cull`]: frustum and face-direction culling and the transparent sort keys;
//! - [`occlusion`]: the depth pyramid and the occlusion test of a box against it;
//! - [`camera`] and [`fly`]: the view and scripted flights;
//! - [`ChunkSink`]: where a streaming manager puts the nodes it makes resident.
//!
//! Every function here that the engine also runs on the GPU is its exact twin: the tests compare
//! integer outputs for equality.

#![warn(missing_docs)]

pub mod camera;
pub mod color;
pub mod cull;
pub mod fly;
pub mod keys;
pub mod light;
pub mod lod;
pub mod mesh;
pub mod occlusion;
mod sink;
pub mod voxel;

pub use sink::ChunkSink;
