//! CPU reference mesher throughput on the cases that bound it: empty and full chunks (the
//! fast paths), a 3D checkerboard (the worst case: every face exposed, nothing merges) and real
//! terrain chunks with their neighbours.
//!
//! `cargo bench --bench mesher`; figures go to docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::IVec3;
use voxgpu::mesh::{Neighbours, mesh_chunk};
use voxgpu::voxel::blocks as ids;
use voxgpu::voxel::{BlockRegistry, CHUNK_SIZE, CHUNK_VOLUME, Chunk};
use voxgpu::worldgen::{WorldParams, WorldSource, generate};

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
        group.bench_function(name, |b| {
            b.iter(|| mesh_chunk(black_box(&chunk), &Neighbours::default(), &opaque))
        });
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
    group.finish();
}

criterion_group!(benches, single_chunks, terrain);
criterion_main!(benches);
