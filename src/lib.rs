//! The `voxgpu` application: the desktop viewer, the command-line front end (`render`, `stats`,
//! `bench`, `profile`, `info`) and the mesher baseline `bench` compares against.
//!
//! The renderer itself lives in three library crates, re-exported here under the module names
//! the application and its tests use:
//! - `voxgpu-core` (data and CPU twins, no GPU): [`voxel`], [`mesh`], [`lod`], [`cull`],
//!   [`camera`], [`fly`], [`keys`];
//! - `voxgpu-engine` (the GPU renderer on wgpu): [`gpu`];
//! - `voxgpu-worlds` (world sources and streaming): [`worldgen`], [`stream`];
//! - `voxgpu-store` (the world store, no GPU): [`store`].
//!
//! A game embeds those crates, not this one.

pub use voxgpu_core::{camera, cull, fly, keys, lod, mesh, voxel};
pub use voxgpu_engine as gpu;
pub use voxgpu_store as store;
pub use voxgpu_worlds::{stream, worldgen};

pub mod cli;
pub mod crate_baseline;
pub mod session;
#[cfg(feature = "viewer")]
pub mod viewer;

/// A frame read back by the engine as an `image` buffer (for PNG output and comparisons).
pub fn to_image(pixels: gpu::Pixels) -> image::RgbaImage {
    let gpu::Pixels { width, height, rgba } = pixels;
    image::RgbaImage::from_raw(width, height, rgba).expect("the engine reads width × height × 4 bytes")
}
