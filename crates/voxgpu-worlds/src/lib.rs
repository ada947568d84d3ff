//! voxgpu's world sources and streaming.
//!
//! - [`worldgen`]: the built-in sources (procedural terrain with caves, flat ground, test
//!   shapes, MagicaVoxel `.vox` models) and the [`worldgen::WorldSource`] a world is made from;
//! - [`stream`]: the [`stream::ChunkManager`] that keeps node columns resident around a camera,
//!   the worker pool that generates them, and [`stream::ColumnSource`], the interface through
//!   which a game streams its own chunks and far nodes.
//!
//! Nothing here touches the GPU: the manager hands its nodes to a [`voxgpu_core::ChunkSink`],
//! which the engine's renderer implements.

pub mod stream;
pub mod worldgen;
