//! CPU reference mesher throughput on the cases that bound it: empty and full chunks (the
//! fast paths), a 3D checkerboard (the worst case: every face exposed, nothing merges) and real
//! terrain chunks with their neighbours; and the LOD twins: building a mip pyramid, and meshing
//! terrain at levels 1 and 2.
//!
//! `cargo bench -p voxgpu-core --bench mesher`; figures go to docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::IVec3;
use std::collections::HashMap;

use voxgpu_core::mesh::{Neighbours, mesh_chunk, mesh_world_chunk_lod};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockRegistry, CHUNK_SIZE, CHUNK_VOLUME, Chunk, ChunkPos, MipPyramid};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

fn single_chunks(c: &mut Criterion) {
    let opaque = BlockRegistry::builtin().opaque_table();
    let mut checker = Chunk::empty();
    for (i, v) in checker.voxels_mut().iter_mut().enumerate() {
        let (x, y, z) = (i % CHUNK_SIZE, i / CHUNK_SIZE % CHUNK_SIZE, i / (CHUNK_SIZE * CHUNK_SIZE));
        if (x + y + z) % 2 == 0 {
            *v = ids::STONE;
        }
    }
    let mut group = c.benchmark_group("mesh_chunk");
    group.throughput(Throughput::Elements(CHUNK_VOLUME as u64));
    for (name, chunk) in [
        ("empty", Chunk::empty()),
        ("full", Chunk::filled(ids::STONE)),
        ("checker", checker),
        ("water", Chunk::filled(ids::WATER)),
    ] {
        group
            .bench_function(name, |b| b.iter(|| mesh_chunk(black_box(&chunk), &Neighbours::none(), &opaque)));
    }
    group.finish();
}

fn terrain(c: &mut Criterion) {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain generates");
    let opaque = world.registry.opaque_table();
    let positions = world.sorted_positions();
    let mut group = c.benchmark_group("mesh_terrain");
    group.throughput(Throughput::Elements((positions.len() * CHUNK_VOLUME) as u64));
    group.bench_function(format!("{}_chunks", positions.len()), |b| {
        b.iter(|| {
            for &pos in &positions {
                let chunk = world.chunk(pos).expect("listed");
                black_box(mesh_chunk(chunk, &Neighbours::of(&world, pos), &opaque));
            }
        })
    });
    // The same chunks at full detail without ambient occlusion: its cost.
    let pyramids: HashMap<ChunkPos, MipPyramid> =
        positions.iter().map(|&p| (p, MipPyramid::build(world.chunk(p).expect("listed")))).collect();
    for ao in [true, false] {
        let name = format!("{}_chunks_ao_{}", positions.len(), if ao { "on" } else { "off" });
        group.bench_function(name, |b| {
            b.iter(|| {
                for &pos in &positions {
                    black_box(mesh_world_chunk_lod(&world, pos, &|q| &pyramids[&q], &|_| 0, ao));
                }
            })
        });
    }
    group.finish();
}

fn lod(c: &mut Criterion) {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain generates");
    let positions = world.sorted_positions();
    let mut group = c.benchmark_group("lod");
    group.throughput(Throughput::Elements((positions.len() * CHUNK_VOLUME) as u64));
    group.bench_function(format!("mip_pyramid_{}_chunks", positions.len()), |b| {
        b.iter(|| {
            for &pos in &positions {
                black_box(MipPyramid::build(world.chunk(pos).expect("listed")));
            }
        })
    });
    let pyramids: HashMap<ChunkPos, MipPyramid> =
        positions.iter().map(|&p| (p, MipPyramid::build(world.chunk(p).expect("listed")))).collect();
    for level in [1u32, 2] {
        // Every chunk at `level`, except those with even x at level - 1: every x border is a seam.
        let levels = |p: ChunkPos| if p.0.x % 2 == 0 { level - 1 } else { level };
        group.bench_function(format!("mesh_level_{level}_with_seams_{}_chunks", positions.len()), |b| {
            b.iter(|| {
                for &pos in &positions {
                    black_box(mesh_world_chunk_lod(&world, pos, &|q| &pyramids[&q], &levels, true));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, single_chunks, terrain, lod);
criterion_main!(benches);
