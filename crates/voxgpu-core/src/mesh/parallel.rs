//! The CPU reference mesher over many chunks on every core: the baseline `voxgpu bench` holds
//! the GPU mesher against, and the `stats --mesher cpu` path.

use std::num::NonZeroUsize;

use super::{ChunkMesh, Neighbours, mesh_chunk};
use crate::voxel::{ChunkPos, World};

/// Threads the CPU side uses by default: one per core the OS reports.
pub fn cpu_threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// Meshes `positions` of `world` (each against its resident neighbours) on `threads` threads.
/// The output is in the order of `positions`.
pub fn mesh_chunks_parallel(world: &World, positions: &[ChunkPos], threads: usize) -> Vec<ChunkMesh> {
    let opaque = world.registry.opaque_table();
    map_parallel(positions, threads, |pos| match world.chunk(pos) {
        Some(chunk) => mesh_chunk(chunk, &Neighbours::of(world, pos), &opaque),
        None => ChunkMesh::default(),
    })
}

/// `f` over `positions` on `threads` threads, in contiguous parts; the output is in the order of
/// `positions`.
pub fn map_parallel<T: Send>(
    positions: &[ChunkPos],
    threads: usize,
    f: impl Fn(ChunkPos) -> T + Sync,
) -> Vec<T> {
    let per_thread = positions.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(per_thread)
            .map(|part| scope.spawn(move || part.iter().map(|&pos| f(pos)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("mesher threads do not panic")).collect()
    })
}
