//! Meshing: the packed quad format shared with the GPU, face directions, and the CPU reference
//! binary greedy mesher that is the test oracle for the compute mesher.

mod face;
mod greedy;
mod neighbourhood;
mod parallel;
mod quad;

pub use face::Face;
pub use greedy::{
    ChunkMesh, FaceGroups, face_range, mesh_chunk, mesh_grid, mesh_world_chunk, mesh_world_chunk_lod,
};
pub use neighbourhood::{Grid, Neighbours, Surroundings, around_index, meshes_reading, meshes_reading_block};
pub use parallel::{cpu_threads, map_parallel, mesh_chunks_parallel};
pub use quad::{PackedQuad, QUAD_BYTES, QUAD_FIELDS, Quad, QuadField};
