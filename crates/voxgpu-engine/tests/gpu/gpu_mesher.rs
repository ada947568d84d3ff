//! The compute mesher against its CPU twin, on every adapter: the quads of every chunk must be
//! the same set. Also: re-meshing one chunk leaves every other chunk's quads and pages untouched,
//! and a mega quad buffer that starts far too small ends with every chunk correct.

use voxgpu_test_kit as kit;

use std::sync::Arc;

use glam::{IVec3, Vec3};
use kit::Rng;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::mesh::{Face, mesh_world_chunk};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, World};
use voxgpu_engine::low_level::GpuChunkMesh;
use voxgpu_engine::{GpuContext, MESH_SPLIT_PAIRS, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

fn camera() -> Camera {
    Camera::look_at(Vec3::new(-20.0, 90.0, -20.0), Vec3::new(16.0, 16.0, 16.0))
}

fn gpu_meshes(gpu: &GpuContext, world: &World, options: RendererOptions) -> Vec<GpuChunkMesh> {
    let mut r = kit::renderer(gpu, world, options);
    r.settle(&camera()).expect("settles");
    r.inspect().meshes().expect("readback")
}

/// Full detail everywhere: these tests compare against the level-0 CPU mesher (`tests/lod.rs`
/// covers the other levels).
fn small() -> RendererOptions {
    RendererOptions { lod: LodSettings::OFF, ..RendererOptions::new(16, 16, 64.0) }
}

/// Every chunk's GPU quads equal the CPU twin's, as sets per chunk.
fn assert_gpu_equals_cpu(name: &str, gpu: &GpuContext, world: &World, options: RendererOptions) {
    let meshes = gpu_meshes(gpu, world, options);
    assert_eq!(meshes.len(), world.len(), "{name}: resident chunks");
    for m in &meshes {
        let cpu = mesh_world_chunk(world, m.pos);
        assert_eq!(
            m.mesh.opaque.counts, cpu.opaque.counts,
            "{name} {:?} on {}: opaque counts",
            m.pos, gpu.summary
        );
        assert_eq!(
            m.mesh.transparent.counts, cpu.transparent.counts,
            "{name} {:?}: transparent counts",
            m.pos
        );
        for face in Face::ALL {
            assert_eq!(m.bounds[face as usize], cpu.face_bounds(face), "{name} {:?} {face:?}: bounds", m.pos);
        }
        let (got, want) = (kit::as_set(&m.mesh), kit::as_set(&cpu));

        assert!(
            got == want,
            "{name} {:?} on {}: quads differ; GPU only: {:?}; CPU only: {:?}",
            m.pos,
            gpu.summary,
            got.difference(&want).take(4).map(|q| q.2.unpack()).collect::<Vec<_>>(),
            want.difference(&got).take(4).map(|q| q.2.unpack()).collect::<Vec<_>>(),
        );
    }
}

fn world_of(chunks: Vec<(ChunkPos, Chunk)>) -> World {
    let mut world = World::new(BlockRegistry::builtin());
    for (pos, chunk) in chunks {
        world.insert(pos, chunk);
    }
    world
}

fn from_fn(f: impl Fn(usize, usize, usize) -> BlockId) -> Chunk {
    let mut c = Chunk::empty();
    let n = CHUNK_SIZE;
    for (i, v) in c.voxels_mut().iter_mut().enumerate() {
        *v = f(i % n, i / n % n, i / (n * n));
    }
    c
}

fn random_chunk(rng: &mut Rng, density: u64) -> Chunk {
    let mixed = [ids::STONE, ids::DIRT, ids::WATER, ids::GLASS, ids::LEAVES, BlockId(40_000)];
    let mut c = Chunk::empty();
    for v in c.voxels_mut() {
        if rng.below(100) < density {
            *v = mixed[rng.below(mixed.len() as u64) as usize];
        }
    }
    c
}

#[test]
fn gpu_quads_equal_cpu_quads_on_named_cases() {
    let p = ChunkPos::new;
    let mut single = Chunk::empty();
    single.set(31, 0, 17, ids::GLASS);
    let checker = from_fn(|x, y, z| if (x + y + z) % 2 == 0 { ids::STONE } else { BlockId::AIR });
    let half = from_fn(|_, y, _| if y < 16 { ids::STONE } else { BlockId::AIR });
    let cases: Vec<(&str, Vec<(ChunkPos, Chunk)>)> = vec![
        ("full alone", vec![(p(0, 0, 0), Chunk::filled(ids::STONE))]),
        ("single voxel", vec![(p(0, 0, 0), single)]),
        ("checkerboard", vec![(p(0, 0, 0), checker.clone())]),
        (
            // The centre chunk has solid neighbours on some sides, partly solid and water on
            // others, and none on the rest.
            "neighbours solid, partial, water, absent",
            vec![
                (p(0, 0, 0), checker),
                (p(1, 0, 0), Chunk::filled(ids::STONE)),
                (p(-1, 0, 0), half.clone()),
                (p(0, 1, 0), half),
                (p(0, 0, 1), Chunk::filled(ids::WATER)),
            ],
        ),
        (
            "water next to water",
            vec![(p(0, 0, 0), Chunk::filled(ids::WATER)), (p(0, 1, 0), Chunk::filled(ids::WATER))],
        ),
    ];
    for gpu in kit::gpu_contexts() {
        for (name, chunks) in &cases {
            assert_gpu_equals_cpu(name, &gpu, &world_of(chunks.clone()), small());
        }
        // An empty world meshes nothing and draws nothing.
        assert!(gpu_meshes(&gpu, &world_of(vec![]), small()).is_empty());
    }
}

#[test]
fn gpu_quads_equal_cpu_quads_on_random_fills() {
    for gpu in kit::gpu_contexts() {
        for seed in 0..6u64 {
            let mut rng = Rng(seed);
            let density = [5, 35, 60, 90][seed as usize % 4];
            // A 2×2×2 block of random chunks, one of them missing, so borders see all cases.
            let mut chunks = Vec::new();
            for i in 0..8 {
                if i != (seed % 8) as i32 {
                    chunks
                        .push((ChunkPos::new(i & 1, (i >> 1) & 1, i >> 2), random_chunk(&mut rng, density)));
                }
            }
            assert_gpu_equals_cpu(&format!("random seed {seed}"), &gpu, &world_of(chunks), small());
        }
    }
}

/// The mesh pass lays a run out two ways: one workgroup per face in a run of at most
/// `split_pairs` job pairs (`MESH_SPLIT_PAIRS` on a GPU, 0 on a software adapter), one per face
/// pair in a larger one. With the GPU's threshold, seven chunks are meshed in a run of 21 pairs;
/// 48 (all inserted before the first frame, under a budget of 4,096) in one of 144. Both must
/// equal the twin on every adapter.
#[test]
fn both_layouts_of_the_mesh_pass_equal_the_twin() {
    let (few, many) = (7, 48);
    assert!(3 * few <= MESH_SPLIT_PAIRS && 3 * many > MESH_SPLIT_PAIRS);
    let mut rng = Rng(29);
    let world = |n: i32, density: u64, rng: &mut Rng| {
        world_of(
            (0..n).map(|i| (ChunkPos::new(i % 4, (i / 4) % 4, i / 16), random_chunk(rng, density))).collect(),
        )
    };
    for gpu in kit::gpu_contexts() {
        // The large run sparser, so that its 48 chunks mesh quickly on a software adapter.
        for (layout, n, density) in
            [("one face per workgroup", few, 45), ("one face pair per workgroup", many, 8)]
        {
            let world = world(n as i32, density, &mut rng);
            let mut r = kit::renderer(&gpu, &world, small());
            r.tools().set_mesh_split_pairs(MESH_SPLIT_PAIRS);
            r.settle(&camera()).expect("settles");
            let meshes = r.inspect().meshes().expect("readback");
            assert_eq!(meshes.len(), world.len(), "{layout}: resident chunks");
            for m in &meshes {
                let cpu = mesh_world_chunk(&world, m.pos);
                assert!(
                    kit::same_mesh(m, &cpu),
                    "{layout} {:?} on {}: quads or bounds differ",
                    m.pos,
                    gpu.summary
                );
            }
        }
    }
}

#[test]
fn gpu_quads_equal_cpu_quads_on_terrain() {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 11, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain");
    for gpu in kit::gpu_contexts() {
        assert_gpu_equals_cpu("terrain", &gpu, &world, small());
    }
}

#[test]
fn remeshing_one_chunk_leaves_every_other_chunk_untouched() {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 5, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain");
    // A block on the +X border of chunk (0, y, 0): that chunk and its +X neighbour change.
    let surface = (0..256).rev().find(|&y| !world.block(IVec3::new(31, y, 4)).is_air()).expect("ground");
    let edit = IVec3::new(31, surface, 4);
    for gpu in kit::gpu_contexts() {
        let mut r = Offscreen::new(&gpu, small(), &world.registry).expect("renderer");
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        r.settle(&camera()).expect("settles");
        let before = r.inspect().meshes().expect("readback");
        r.set_block(edit, BlockId::AIR).expect("edit");
        r.settle(&camera()).expect("settles");
        let after = r.inspect().meshes().expect("readback");

        let (edited, _) = ChunkPos::from_block(edit);
        let affected = [edited, edited.neighbour(IVec3::X)];
        let mut world_after = world.clone();
        world_after.set_block(edit, BlockId::AIR);
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(b.pos, a.pos);
            if affected.contains(&a.pos) {
                assert!(
                    kit::as_set(&a.mesh) == kit::as_set(&mesh_world_chunk(&world_after, a.pos)),
                    "{:?} re-meshed",
                    a.pos
                );
            } else {
                assert_eq!(a, b, "{:?} must be bit-identical: same quads, same order, same pages", a.pos);
            }
        }
        assert!(before.iter().zip(&after).any(|(b, a)| a != b), "the edit must change something");
    }
}

#[test]
fn a_one_page_quad_buffer_grows_until_every_checkerboard_chunk_is_correct() {
    // Twelve checkerboard chunks need 12 × 6 × 64 pages; the pool starts with one.
    let checker = from_fn(|x, y, z| if (x + y + z) % 2 == 0 { ids::BRICK } else { BlockId::AIR });
    let chunks = (0..12).map(|i| (ChunkPos::new(i % 4, 0, i / 4), checker.clone())).collect();
    let world = world_of(chunks);
    for gpu in kit::gpu_contexts() {
        let options = RendererOptions { initial_quad_pages: 1, ..small() };
        assert_gpu_equals_cpu("grown checkerboard", &gpu, &world, options);
    }
}

#[test]
fn a_departed_chunks_quads_never_show_under_a_newcomer_when_the_budget_is_full() {
    let mut rng = Rng(99);
    let chunks: Vec<(ChunkPos, Chunk)> =
        (0..8).map(|i| (ChunkPos::new(i, 0, 0), random_chunk(&mut rng, 40))).collect();
    let world = world_of(chunks);
    let departed = ChunkPos::new(3, 0, 0);
    let newcomer = ChunkPos::new(3, 5, 0);
    let newcomer_chunk = Chunk::filled(ids::SAND);
    for gpu in kit::gpu_contexts() {
        // One re-mesh per frame, so most of the work below waits.
        let options = RendererOptions { max_meshes_per_frame: 1, ..small() };
        let mut r = Offscreen::new(&gpu, options, &world.registry).expect("renderer");
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        r.settle(&camera()).expect("settles");
        let departed_quads = kit::as_set(&mesh_world_chunk(&world, departed));
        for x in [0, 1, 5, 6, 7] {
            r.set_block(IVec3::new(x * 32 + 5, 5, 5), ids::BRICK).expect("edit");
        }
        r.remove_chunk(departed);
        r.insert_chunk(newcomer, Arc::new(newcomer_chunk.clone())).expect("chunk fits");
        for _ in 0..3 {
            r.render(&camera()).expect("frame");
            for m in r.inspect().meshes().expect("readback") {
                assert!(m.pos != departed, "the departed chunk is gone");
                let quads = kit::as_set(&m.mesh);
                assert!(
                    quads.is_empty() || quads != departed_quads,
                    "{:?} shows the departed chunk's quads",
                    m.pos
                );
                if m.pos == newcomer {
                    let mut expected = World::new(world.registry.clone());
                    expected.insert(newcomer, newcomer_chunk.clone());
                    assert!(
                        quads.is_empty() || quads == kit::as_set(&mesh_world_chunk(&expected, newcomer)),
                        "newcomer is empty or right"
                    );
                }
            }
        }
        r.settle(&camera()).expect("settles");
    }
}

#[test]
fn a_camera_jump_reuses_the_departed_nodes_slots_and_grows_no_pool() {
    // 48 nodes, then all of them removed and 48 others inserted with no frame in between, as a
    // streamer's settle after a jump does. The voxel pool starts with 64 slots: 48 fresh slots
    // on top of the 48 waiting for their release would grow it. The newcomers are the departed
    // chunks far away, in the same layout, so they need exactly the same pages; each lands in a
    // departed node's slot holding another chunk's quads until it is meshed.
    const N: i32 = 48;
    let mut rng = Rng(41);
    let chunks: Vec<Chunk> = (0..N).map(|_| random_chunk(&mut rng, 5)).collect();
    let at = |i: i32, shift: i32| ChunkPos::new(i % 8 + shift, 0, i / 8);
    let world_at =
        |shift: i32| world_of((0..N).map(|i| (at(i, shift), chunks[i as usize].clone())).collect());
    let (first, second) = (world_at(0), world_at(100));
    for gpu in kit::gpu_contexts() {
        // A few re-meshes per frame, so newcomers wait in their slots over several frames.
        let options = RendererOptions { max_meshes_per_frame: 4, ..small() };
        let mut r = Offscreen::new(&gpu, options, &first.registry).expect("renderer");
        for (pos, chunk) in first.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        let before = r.settle(&camera()).expect("settles");
        assert_eq!(before.slots, N as u32, "{}", gpu.summary);

        for pos in first.sorted_positions() {
            r.remove_chunk(pos);
        }
        for pos in second.sorted_positions() {
            r.insert_chunk(pos, Arc::clone(second.chunk(pos).expect("listed"))).expect("chunk fits");
        }
        for frame in 0..3 {
            r.render(&camera()).expect("frame");
            for m in r.inspect().meshes().expect("readback") {
                let quads = kit::as_set(&m.mesh);
                assert!(
                    quads.is_empty() || quads == kit::as_set(&mesh_world_chunk(&second, m.pos)),
                    "{} frame {frame}: {:?} shows quads not its own",
                    gpu.summary,
                    m.pos
                );
            }
        }
        let after = r.settle(&camera()).expect("settles");
        assert_eq!(after.slots, N as u32, "{}: voxel pool slots after the jump", gpu.summary);
        assert_eq!(
            (after.gpu_bytes, after.quad_buffer_bytes),
            (before.gpu_bytes, before.quad_buffer_bytes),
            "{}: GPU buffer bytes and quad buffer bytes after the jump",
            gpu.summary
        );
        let meshes = r.inspect().meshes().expect("readback");
        assert_eq!(meshes.len(), N as usize);
        for m in &meshes {
            assert!(
                kit::as_set(&m.mesh) == kit::as_set(&mesh_world_chunk(&second, m.pos)),
                "{} {:?}: mesh after the jump",
                gpu.summary,
                m.pos
            );
        }
    }
}

/// Two slot releases staged in one frame (each insert after a removal finds no free slot), the
/// frame recorded with default options: it renders on every adapter, and settles to the CPU
/// twin's meshes.
#[test]
fn two_slot_releases_in_one_frame_render_and_settle() {
    let full = Chunk::filled(ids::STONE);
    let mut expected = World::new(BlockRegistry::builtin());
    for gpu in kit::gpu_contexts() {
        let mut r =
            Offscreen::new(&gpu, RendererOptions::new(16, 16, 64.0), &expected.registry).expect("renderer");
        r.insert_chunk(ChunkPos::new(0, 0, 0), Arc::new(full.clone())).expect("chunk fits");
        r.insert_chunk(ChunkPos::new(1, 0, 0), Arc::new(full.clone())).expect("chunk fits");
        r.remove_chunk(ChunkPos::new(0, 0, 0));
        r.insert_chunk(ChunkPos::new(0, 1, 0), Arc::new(full.clone())).expect("chunk fits");
        r.remove_chunk(ChunkPos::new(1, 0, 0));
        r.insert_chunk(ChunkPos::new(1, 1, 0), Arc::new(full.clone())).expect("chunk fits");
        r.settle(&camera()).expect("settles");
        expected = World::new(BlockRegistry::builtin());
        expected.insert(ChunkPos::new(0, 1, 0), full.clone());
        expected.insert(ChunkPos::new(1, 1, 0), full.clone());
        let meshes = r.inspect().meshes().expect("readback");
        assert_eq!(meshes.len(), 2, "{}: resident chunks", gpu.summary);
        for m in &meshes {
            assert!(
                kit::as_set(&m.mesh) == kit::as_set(&mesh_world_chunk(&expected, m.pos)),
                "{} {:?}: mesh after two releases in one frame",
                gpu.summary,
                m.pos
            );
        }
    }
}

/// The mesher sums its counts with subgroup operations where the device has them, in workgroup
/// memory otherwise. On every adapter with subgroups both paths must equal the twin (the other
/// tests run whichever path the adapter takes); lavapipe, with subgroups of 4 to 8, is one.
#[test]
fn the_subgroup_and_the_plain_count_paths_both_equal_the_twin() {
    let terrain =
        generate(&WorldSource::Terrain, &WorldParams { seed: 3, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain");
    let mut rng = Rng(17);
    let random = world_of(
        (0..8).map(|i| (ChunkPos::new(i & 1, (i >> 1) & 1, i >> 2), random_chunk(&mut rng, 40))).collect(),
    );
    let mut with_subgroups = 0;
    for gpu in kit::gpu_contexts() {
        if !gpu.caps.subgroups {
            println!("{}: no subgroups, plain path only", gpu.summary);
            continue;
        }
        with_subgroups += 1;
        let plain = GpuContext::with_caps(gpu.adapter.clone(), |mut caps| {
            caps.subgroups = false;
            caps
        })
        .expect("device without subgroups");
        assert!(!plain.caps.subgroups);
        for (context, path) in [(&*gpu, "subgroups"), (&plain, "plain")] {
            assert_gpu_equals_cpu(&format!("terrain, {path}"), context, &terrain, small());
            assert_gpu_equals_cpu(&format!("random, {path}"), context, &random, small());
        }
    }
    let vulkan_required = std::env::var("VOXGPU_REQUIRE_BACKENDS").is_ok_and(|b| b.contains("vulkan"));
    assert!(
        !vulkan_required || with_subgroups > 0,
        "lavapipe offers subgroups: the subgroup path must be tested"
    );
}
