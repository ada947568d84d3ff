//! The `voxgpu` application: the desktop viewer, the command-line front end (`render`, `stats`,
//! `bench`, `profile`, `info`, `export`) and the mesher baseline `bench` compares against.
//!
//! The renderer itself lives in library crates, which this crate's code names directly (it
//! re-exports none of them):
//! - `voxgpu-core` (data and CPU twins, no GPU): `voxgpu_core::voxel`, `mesh`, `lod`, `cull`,
//!   `camera`, `fly`, `keys`;
//! - `voxgpu-engine` (the GPU renderer on wgpu): `voxgpu_engine`;
//! - `voxgpu-worlds` (world sources and streaming): `voxgpu_worlds::worldgen`, `stream`;
//! - `voxgpu-store` (the world store, no GPU): `voxgpu_store`;
//! - `voxgpu-play` (what both viewers do with input: keys, fly camera, editing, frame rate):
//!   `voxgpu_play`.
//!
//! A game embeds those crates, not this one.

pub mod cli;
pub mod crate_baseline;
pub mod session;
#[cfg(feature = "viewer")]
pub mod viewer;

/// A frame read back by the engine as an `image` buffer (for PNG output and comparisons).
pub fn to_image(pixels: voxgpu_engine::Pixels) -> image::RgbaImage {
    let voxgpu_engine::Pixels { width, height, rgba } = pixels;
    image::RgbaImage::from_raw(width, height, rgba).expect("the engine reads width × height × 4 bytes")
}
