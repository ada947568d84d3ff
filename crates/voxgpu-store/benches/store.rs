//! The world store's costs, on real terrain chunks: committing edits (one chunk per
//! transaction, as the viewer commits a frame with one edit, and 64 at once), the store's size
//! per 1,000 edited chunks, and reopening a store of 10,000 edited chunks (open, integrity
//! check, every chunk read into the overlay).
//!
//! `cargo bench -p voxgpu-store --bench store`. The size is printed (it is not a time).

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{IVec2, IVec3};
use voxgpu_core::voxel::{BlockId, BlockRegistry, Chunk, ChunkPos};
use voxgpu_store::{DATABASE_FILE, Store, StoreMeta};
use voxgpu_worlds::worldgen::TerrainColumns;

/// Real terrain chunks with one block dug out of each (an edit), to store at many positions.
fn edited_terrain(n: usize) -> Vec<Chunk> {
    let terrain = TerrainColumns::new(7);
    let mut chunks = Vec::new();
    'columns: for x in 0.. {
        for z in 0..16 {
            for (_, mut chunk) in terrain.column(IVec2::new(x, z)) {
                chunk.set(5, 5, 5, BlockId::AIR);
                chunks.push(chunk);
                if chunks.len() == n {
                    break 'columns;
                }
            }
        }
    }
    chunks
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-store-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn meta() -> StoreMeta {
    StoreMeta { source: "terrain".into(), seed: 7 }
}

fn bench(c: &mut Criterion) {
    let chunks = edited_terrain(500);
    let pos = |i: usize| ChunkPos(IVec3::new((i % 100) as i32, (i / 100 % 8) as i32, (i / 800) as i32));

    let path = temp("commit");
    let (mut store, _) = Store::open_or_create(&path, &meta()).expect("store");
    let mut i = 0;
    c.bench_function("commit 1 edited chunk (one transaction, synchronous = FULL)", |b| {
        b.iter(|| {
            store.commit([(pos(i % 5000), &chunks[i % chunks.len()])]).expect("commit");
            i += 1;
        })
    });
    c.bench_function("commit 64 edited chunks (one transaction)", |b| {
        b.iter(|| {
            let batch = (0..64).map(|k| (pos((i + k) % 5000), &chunks[(i + k) % chunks.len()]));
            store.commit(batch).expect("commit");
            i += 64;
        })
    });
    drop(store);
    let _ = std::fs::remove_dir_all(&path);

    // 10,000 edited chunks at distinct positions.
    let path = temp("reopen");
    {
        let (mut store, _) = Store::open_or_create(&path, &meta()).expect("store");
        for batch in 0..100 {
            let positions = (0..100).map(|k| ChunkPos(IVec3::new(k, batch % 8, batch / 8)));
            store
                .commit(positions.zip(chunks.iter().cycle().skip(batch as usize)).map(|(p, c)| (p, c)))
                .expect("commit");
        }
    }
    let bytes = std::fs::metadata(path.join(DATABASE_FILE)).expect("database").len();
    eprintln!(
        "store of 10,000 edited terrain chunks: {:.2} MiB, {:.0} KiB per 1,000 chunks",
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / 10.0 / 1024.0
    );
    let mut group = c.benchmark_group("reopen");
    group.sample_size(10);
    let registry = BlockRegistry::builtin();
    group.bench_function("open + integrity check + overlay of 10,000 chunks", |b| {
        b.iter(|| {
            let store = Store::open(&path).expect("reopens");
            let overlay = store.overlay(&registry).expect("overlay");
            assert_eq!(overlay.len(), 10_000);
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
