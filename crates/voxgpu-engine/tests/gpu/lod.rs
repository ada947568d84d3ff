//! Levels of detail on every adapter, against the CPU twins: mip pyramids, level choices (with
//! hysteresis), LOD meshes with skirts; and the crack test, which renders scenes across level
//! boundaries and counts background pixels that show through a seam.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::collections::{BTreeSet, HashMap};

use glam::{IVec3, Vec3};
use kit::Rng;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::{LEVEL_UNSET, LodSettings, chunk_distance};
use voxgpu_core::mesh::{ChunkMesh, mesh_world_chunk, mesh_world_chunk_lod};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{
    BlockId, BlockRegistry, Chunk, ChunkPos, MIP_LEVELS, MipPyramid, World, chunk_aabb,
};
use voxgpu_engine::{GpuContext, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

fn lod(first_distance: f32) -> LodSettings {
    LodSettings::default().with_first_distance(first_distance).expect("a distance LOD accepts")
}

fn small(settings: LodSettings) -> RendererOptions {
    RendererOptions { lod: settings, ..RendererOptions::new(16, 16, 1000.0) }
}

fn terrain(seed: u64, view_distance: u32) -> World {
    generate(&WorldSource::Terrain, &WorldParams { seed, center: IVec3::ZERO, view_distance })
        .expect("terrain")
}

/// A chunk of random blocks, `solid_percent` of them not air, from few ids so cells tie often.
fn random_chunk(rng: &mut Rng, solid_percent: u64) -> Chunk {
    let palette = [ids::STONE, ids::DIRT, ids::GRASS, ids::WATER];
    let mut chunk = Chunk::empty();
    for v in chunk.voxels_mut().iter_mut() {
        if rng.below(100) < solid_percent {
            *v = palette[rng.below(4) as usize];
        }
    }
    chunk
}

fn assert_mips_match(gpu: &GpuContext, r: &Offscreen, world: &World, when: &str) {
    for (pos, chunk) in world.chunks() {
        let cpu = MipPyramid::build(chunk);
        let gpu_levels = r.inspect().mips(pos).expect("readback").expect("resident");
        for level in 1..=MIP_LEVELS {
            assert!(
                gpu_levels[level - 1] == cpu.level(level),
                "{when}: {pos:?} level {level} differs on {}",
                gpu.summary
            );
        }
    }
}

#[test]
fn gpu_mips_equal_the_cpu_pyramid_after_uploads_and_edits() {
    let mut rng = Rng(11);
    let mut world = World::new(BlockRegistry::builtin());
    for (i, percent) in [20u64, 45, 50, 55, 80].into_iter().enumerate() {
        world.insert(ChunkPos::new(i as i32, 0, 0), random_chunk(&mut rng, percent));
    }
    for (pos, chunk) in terrain(4, 1).chunks().take(12) {
        world.insert(pos.neighbour(IVec3::new(0, 0, 4)), (**chunk).clone());
    }
    let camera = Camera::look_at(Vec3::new(-50.0, 60.0, -50.0), Vec3::ZERO);
    for gpu in kit::gpu_contexts() {
        let mut world = world.clone();
        let mut r = kit::renderer(&gpu, &world, small(LodSettings::default()));
        r.settle(&camera).expect("settles");
        assert_mips_match(&gpu, &r, &world, "after upload");
        // Edits rebuild the pyramid of the chunk they touch.
        for _ in 0..200 {
            let p = IVec3::new(rng.below(160) as i32, rng.below(32) as i32, rng.below(32) as i32);
            let block = if rng.below(2) == 0 { BlockId::AIR } else { ids::BRICK };
            if world.chunk(ChunkPos::from_block(p).0).is_some() {
                world.set_block(p, block);
                r.set_block(p, block).expect("edit");
            }
        }
        r.settle(&camera).expect("settles");
        assert_mips_match(&gpu, &r, &world, "after edits");
    }
}

#[test]
fn gpu_level_choices_equal_the_cpu_twin_along_a_random_flight() {
    let world = terrain(3, 4);
    let settings = lod(40.0);
    let mut rng = Rng(5);
    let eyes: Vec<Vec3> = (0..16)
        .map(|i| {
            let mut r = |n: u64, off: f32| rng.below(n) as f32 - off + if i % 2 == 0 { 0.0 } else { 0.37 };
            Vec3::new(r(300, 150.0), r(220, 20.0), r(300, 150.0))
        })
        .collect();
    for gpu in kit::gpu_contexts() {
        let mut r = kit::renderer(&gpu, &world, small(settings));
        let mut cpu: HashMap<ChunkPos, u32> = world.chunks().map(|(p, _)| (p, LEVEL_UNSET)).collect();
        let (mut compared, mut borderline) = (0, 0);
        let mut seen = BTreeSet::new();
        for &eye in &eyes {
            // One frame: the LOD pass runs exactly once with this eye.
            r.render(&Camera::look_at(eye, eye + Vec3::X)).expect("frame");
            for (pos, level) in r.inspect().levels().expect("readback") {
                let current = cpu[&pos];
                let distance = chunk_distance(pos, eye);
                if settings.is_borderline(distance, 1e-5) {
                    // Float rounding may go either way here; follow the GPU.
                    borderline += 1;
                } else {
                    let expected = settings.select(distance, current);
                    assert_eq!(level, expected, "{pos:?} at {distance} from {eye} on {}", gpu.summary);
                    compared += 1;
                }
                cpu.insert(pos, level);
                seen.insert(level);
            }
        }
        assert!(seen.len() >= 4, "the flight should use several levels, saw {seen:?}");
        assert!(borderline * 100 < compared, "{borderline} borderline of {compared}");
    }
}

#[test]
fn a_camera_jittering_across_a_threshold_changes_a_level_at_most_once() {
    let mut world = World::new(BlockRegistry::builtin());
    world.insert(ChunkPos::new(0, 0, 0), Chunk::filled(ids::STONE));
    let settings = LodSettings::default();
    // The chunk's box ends at x = 32; the first threshold is 128 blocks, its margin 12.8.
    let eye_at = |offset: f32| Vec3::new(32.0 + 128.0 + offset, 16.0, 16.0);
    for gpu in kit::gpu_contexts() {
        for (amplitude, most) in [(9.0f32, 1usize), (20.0, usize::MAX)] {
            let mut r = kit::renderer(&gpu, &world, small(settings));
            let mut levels = Vec::new();
            let mut cpu_level = LEVEL_UNSET;
            let mut cpu_levels = Vec::new();
            for i in 0..24 {
                let eye = eye_at(amplitude * (i as f32 * 1.7).sin());
                r.render(&Camera::look_at(eye, Vec3::ZERO)).expect("frame");
                levels.push(r.inspect().levels().expect("readback")[0].1);
                cpu_level = settings.select(chunk_distance(ChunkPos::new(0, 0, 0), eye), cpu_level);
                cpu_levels.push(cpu_level);
            }
            assert_eq!(levels, cpu_levels, "GPU and CPU twin on {}", gpu.summary);
            let changes = levels.windows(2).filter(|w| w[0] != w[1]).count();
            if most == 1 {
                assert!(changes <= 1, "±{amplitude} inside the margin: {changes} changes {levels:?}");
            } else {
                assert!(changes >= 2, "±{amplitude} beyond the margin must switch: {levels:?}");
            }
        }
    }
}

fn skirts(mesh: &ChunkMesh) -> usize {
    mesh.all_quads().filter(|q| q.unpack().skirt).count()
}

/// Every level, 0 through 5 (grids of 32 down to 1 cell), meets its neighbours' levels in one row
/// of random chunks running away from the camera, with two different transparent blocks so
/// transparent skirts occur, once with ambient occlusion and once without.
#[test]
fn gpu_meshes_at_every_level_with_and_without_ambient_occlusion_equal_the_cpu_twin() {
    let palette = [ids::STONE, ids::DIRT, ids::WATER, ids::GLASS];
    let mut rng = Rng(41);
    let mut world = World::new(BlockRegistry::builtin());
    for x in 0..14 {
        for y in 0..2 {
            let mut chunk = Chunk::empty();
            for v in chunk.voxels_mut().iter_mut() {
                if rng.below(100) < 55 {
                    *v = palette[rng.below(4) as usize];
                }
            }
            world.insert(ChunkPos::new(x, y, 0), chunk);
        }
    }
    let pyramids: HashMap<ChunkPos, MipPyramid> =
        world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
    let eye = Vec3::new(-8.0, 32.0, 16.0);
    for gpu in kit::gpu_contexts() {
        for ambient_occlusion in [true, false] {
            let options = RendererOptions { ambient_occlusion, ..small(lod(24.0)) };
            let mut r = kit::renderer(&gpu, &world, options);
            r.settle(&Camera::look_at(eye, eye + Vec3::X)).expect("settles");
            let levels: HashMap<ChunkPos, u32> = r.inspect().levels().expect("levels").into_iter().collect();
            let distinct: BTreeSet<u32> = levels.values().copied().collect();
            assert_eq!(distinct, (0..=5).collect(), "every level is meshed");
            let (mut skirts_opaque, mut skirts_transparent) = (0, 0);
            for m in r.inspect().meshes().expect("meshes") {
                let cpu = mesh_world_chunk_lod(
                    &world,
                    m.pos,
                    &|p| &pyramids[&p],
                    &|p| levels[&p],
                    ambient_occlusion,
                );
                assert!(
                    kit::same_mesh(&m, &cpu),
                    "{:?} at level {} (AO {ambient_occlusion}) on {}: quads or bounds differ",
                    m.pos,
                    m.level,
                    gpu.summary
                );
                skirts_opaque += m.mesh.opaque.quads.iter().filter(|q| q.unpack().skirt).count();
                skirts_transparent += m.mesh.transparent.quads.iter().filter(|q| q.unpack().skirt).count();
            }
            assert!(
                skirts_opaque > 0 && skirts_transparent > 0,
                "{skirts_opaque} / {skirts_transparent} skirts"
            );
        }
    }
}

#[test]
fn gpu_lod_meshes_and_skirts_equal_the_cpu_twin() {
    let scenes = [
        ("terrain", terrain(5, 3), Vec3::new(-70.0, 110.0, -70.0), lod(40.0)),
        (
            "sphere",
            generate(&WorldSource::Sphere, &WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 })
                .expect("sphere"),
            Vec3::new(70.0, 60.0, 30.0),
            lod(24.0),
        ),
    ];
    for gpu in kit::gpu_contexts() {
        for (name, world, eye, settings) in &scenes {
            let mut r = kit::renderer(&gpu, world, small(*settings));
            r.settle(&Camera::look_at(*eye, Vec3::new(0.0, 40.0, 0.0))).expect("settles");
            let levels: HashMap<ChunkPos, u32> = r.inspect().levels().expect("levels").into_iter().collect();
            let pyramids: HashMap<ChunkPos, MipPyramid> =
                world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
            let (mut skirt_total, mut coarse_drawn, mut coarse_full) = (0, 0, 0);
            for m in r.inspect().meshes().expect("meshes") {
                assert_eq!(m.level, levels[&m.pos], "{name} {:?}: meshed at the selected level", m.pos);
                let cpu = mesh_world_chunk_lod(world, m.pos, &|p| &pyramids[&p], &|p| levels[&p], true);
                assert_eq!(m.mesh.opaque.counts, cpu.opaque.counts, "{name} {:?} on {}", m.pos, gpu.summary);
                assert_eq!(m.mesh.transparent.counts, cpu.transparent.counts, "{name} {:?}", m.pos);
                assert!(
                    kit::same_mesh(&m, &cpu),
                    "{name} {:?} on {}: quads or bounds differ",
                    m.pos,
                    gpu.summary
                );
                skirt_total += skirts(&m.mesh);
                // Scaled by 2^level, every quad (skirts included) stays inside the chunk's box,
                // the one extent culling tests (`chunk_aabb`).
                for q in m.mesh.all_quads().map(|q| q.unpack()) {
                    let n = q.face.axis();
                    let mut high = q.min + glam::UVec3::splat(0);
                    high[n] += 1;
                    high[(n + 1) % 3] += q.size[0];
                    high[(n + 2) % 3] += q.size[1];
                    let (low, box_high) = chunk_aabb(m.pos);
                    let scaled = (high << m.level).as_vec3() + low;
                    assert!(
                        scaled.cmple(box_high).all(),
                        "{name} {:?}: {q:?} at level {} leaves the box",
                        m.pos,
                        m.level
                    );
                }
                // Coarse chunks draw fewer quads than they would at full detail. (Not each one:
                // a chunk with a few quads, a tree top, can gain one at level 2, where its
                // half-filled cells round up into a bigger blob whose faces ambient occlusion
                // splits.)
                if m.level >= 2 {
                    coarse_full += mesh_world_chunk(world, m.pos).quad_count();
                    coarse_drawn += m.mesh.quad_count() - skirts(&m.mesh);
                }
            }
            let distinct: BTreeSet<u32> = levels.values().copied().collect();
            assert!(distinct.len() >= 3, "{name}: levels {distinct:?}");
            assert!(skirt_total > 0, "{name}: level boundaries must produce skirts");
            assert!(
                coarse_drawn * 2 < coarse_full,
                "{name}: chunks at level >= 2 draw {coarse_drawn} quads, at full detail {coarse_full}"
            );

            // Edits change a chunk's mips, which its neighbours read: at their own coarse level
            // (culling), or at this chunk's coarse level (a full-detail neighbour's skirts). Flip
            // an 8³ block on the border of coarse chunks that face a chunk at another level, and
            // every chunk must still equal the twin.
            let mut edited = world.clone();
            let mut flipped = 0;
            for (&pos, &level) in &levels {
                for face in voxgpu_core::mesh::Face::ALL {
                    let other = pos.neighbour(face.normal());
                    if level == 0 || levels.get(&other).is_none_or(|&l| l == level) || flipped >= 12 {
                        continue;
                    }
                    let axis = face.axis();
                    for i in 0..512 {
                        let mut local = IVec3::new(12 + i % 8, 12 + i / 8 % 8, 12 + i / 64);
                        // Off the level-0 border layer, so only the mips tell the neighbour.
                        local[axis] = if face.is_positive() { 23 + i / 64 } else { 1 + i / 64 };
                        let at = pos.origin() + local;
                        let block = if edited.block(at).is_air() { ids::BRICK } else { BlockId::AIR };
                        edited.set_block(at, block);
                        r.set_block(at, block).expect("edit");
                    }
                    flipped += 1;
                }
            }
            assert!(flipped > 0, "{name}: no coarse chunk faces another level");
            r.settle(&Camera::look_at(*eye, Vec3::new(0.0, 40.0, 0.0))).expect("settles");
            let pyramids: HashMap<ChunkPos, MipPyramid> =
                edited.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
            for m in r.inspect().meshes().expect("meshes") {
                let cpu = mesh_world_chunk_lod(&edited, m.pos, &|p| &pyramids[&p], &|p| levels[&p], true);
                assert!(
                    kit::same_mesh(&m, &cpu),
                    "{name} {:?} on {} after edits: quads or bounds differ",
                    m.pos,
                    gpu.summary
                );
            }
        }
    }
}

/// The world as drawn with LOD: each block is solid when its chunk's level holds a non-air voxel
/// over it.
struct LodShape<'a> {
    world: &'a World,
    pyramids: HashMap<ChunkPos, MipPyramid>,
    levels: HashMap<ChunkPos, u32>,
}

impl LodShape<'_> {
    fn solid(&self, block: IVec3) -> bool {
        let (pos, local) = ChunkPos::from_block(block);
        let Some(chunk) = self.world.chunk(pos) else { return false };
        let local = local.as_uvec3();
        match self.levels[&pos] {
            0 => !chunk.get(local.x as usize, local.y as usize, local.z as usize).is_air(),
            level => {
                let p = local >> level;
                !self.pyramids[&pos].get(level as usize, p.x as usize, p.y as usize, p.z as usize).is_air()
            }
        }
    }
}

#[test]
fn no_background_shows_through_lod_seams() {
    let sphere =
        generate(&WorldSource::Sphere, &WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 })
            .expect("sphere");
    let land = terrain(7, 4);
    let centre = Vec3::new(0.0, 48.0, 0.0);
    let scenes: Vec<(&str, &World, Vec3, Vec3, LodSettings)> = vec![
        ("sphere side", &sphere, Vec3::new(85.0, 55.0, 12.0), centre, lod(24.0)),
        ("sphere above", &sphere, Vec3::new(-50.0, 130.0, -45.0), centre, lod(24.0)),
        ("sphere below", &sphere, Vec3::new(30.0, -40.0, 70.0), centre, lod(24.0)),
        ("sphere close", &sphere, Vec3::new(20.0, 60.0, -62.0), centre, lod(20.0)),
        ("terrain grazing", &land, Vec3::new(-60.0, 95.0, -60.0), Vec3::new(60.0, 70.0, 60.0), lod(32.0)),
        ("terrain seam", &land, Vec3::new(40.0, 120.0, 16.0), Vec3::new(100.0, 60.0, 16.0), lod(48.0)),
    ];
    for gpu in kit::gpu_contexts() {
        for (name, world, eye, target, settings) in &scenes {
            let options = RendererOptions {
                sky_color: kit::crack::SKY,
                procedural_sky: false,
                lod: *settings,
                ..RendererOptions::new(256, 256, 1.0e6)
            };
            let mut r = kit::renderer(&gpu, world, options);
            let camera = Camera::look_at(*eye, *target);
            r.settle(&camera).expect("settles");
            let on = r.read_image().expect("pixels");
            let levels: HashMap<ChunkPos, u32> = r.inspect().levels().expect("levels").into_iter().collect();
            let distinct: BTreeSet<u32> = levels.values().copied().collect();
            assert!(
                distinct.len() >= 2,
                "{name}: the scene must straddle a level boundary, levels {distinct:?}"
            );
            let pyramids = world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
            let shape = LodShape { world, pyramids, levels };
            r.set_lod(LodSettings::OFF);
            r.settle(&camera).expect("settles");
            let off = r.read_image().expect("pixels");
            let what = format!("{name} on {}", gpu.summary);
            let stem = format!("crack-{}-lod", name.replace(' ', "_"));
            kit::crack::assert_no_cracks(&on, &off, &camera, &|p| shape.solid(p), &what, &stem);
        }
    }
}

#[test]
fn an_edit_inside_a_coarse_chunk_remeshes_the_skirts_of_its_full_detail_neighbour() {
    // N at (0,0,0) drawn at full detail, S at (1,0,0) at level 1. S's border layer (x = 0) is a
    // checkerboard of stone, its next layer full: S's level-1 border cells are solid and hide
    // N's +X faces. Clearing S's second layer (not its border layer, so the CPU sees no border
    // edit) makes those cells air at level 1: N needs skirts there, which only a re-mesh of N
    // triggered by S's new mips can give it.
    let mut world = World::new(BlockRegistry::builtin());
    world.insert(ChunkPos::new(0, 0, 0), Chunk::filled(ids::STONE));
    let mut s = Chunk::empty();
    for z in 0..32 {
        for y in 0..32 {
            if (y + z) % 2 == 0 {
                s.set(0, y, z, ids::STONE);
            }
            s.set(1, y, z, ids::STONE);
            s.set(8, y, z, ids::STONE);
        }
    }
    world.insert(ChunkPos::new(1, 0, 0), s);
    let camera = Camera::look_at(Vec3::new(-40.0, 16.0, 16.0), Vec3::new(40.0, 16.0, 16.0));
    for gpu in kit::gpu_contexts() {
        let mut r = kit::renderer(&gpu, &world, small(lod(60.0)));
        r.settle(&camera).expect("settles");
        let levels: HashMap<ChunkPos, u32> = r.inspect().levels().expect("levels").into_iter().collect();
        assert_eq!((levels[&ChunkPos::new(0, 0, 0)], levels[&ChunkPos::new(1, 0, 0)]), (0, 1));
        let mut edited = world.clone();
        for z in 0..32 {
            for y in 0..32 {
                edited.set_block(IVec3::new(33, y, z), BlockId::AIR);
                r.set_block(IVec3::new(33, y, z), BlockId::AIR).expect("edit");
            }
        }
        r.settle(&camera).expect("settles");
        let pyramids: HashMap<ChunkPos, MipPyramid> =
            edited.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
        for m in r.inspect().meshes().expect("meshes") {
            let cpu = mesh_world_chunk_lod(&edited, m.pos, &|p| &pyramids[&p], &|p| levels[&p], true);
            if m.pos == ChunkPos::new(0, 0, 0) {
                assert!(skirts(&cpu) > 0, "the twin gives N skirts after the edit");
            }
            assert!(kit::same_mesh(&m, &cpu), "{:?} on {}", m.pos, gpu.summary);
        }
    }
}
