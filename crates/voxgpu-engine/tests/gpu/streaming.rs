//! Streaming and editing on every adapter: a long flight over streamed terrain stays bounded and
//! comes back to the same state and picture, and so does a fast one across node levels; a block edit at a chunk corner shows in the very
//! next frame, exactly there, and undoing it restores the picture and every other chunk's quads.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::{IVec2, IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, ChunkPos, World};
use voxgpu_engine::low_level::GpuChunkMesh;
use voxgpu_engine::{GpuContext, Offscreen, RendererOptions};
use voxgpu_worlds::stream::{ChunkManager, StreamSettings, Streamer};
use voxgpu_worlds::worldgen::{TerrainColumns, WorldParams, WorldSource, columns_in_view, generate};

const SEED: u64 = 4;
const VIEW: u32 = 2;

fn streamer() -> Streamer {
    let columns = TerrainColumns::new(SEED);
    let settings =
        StreamSettings { uploads_per_update: 24, remeshes_per_update: 32, ..StreamSettings::new(VIEW) };
    Streamer::new(settings, 2, Arc::new(move |c| Ok(columns.node_column(c))))
}

fn column_of(eye: Vec3) -> IVec2 {
    IVec2::new(eye.x.floor() as i32, eye.z.floor() as i32).div_euclid(IVec2::splat(32))
}

fn camera_at(x: f32) -> Camera {
    Camera::look_at(Vec3::new(x, 120.0, -30.0), Vec3::new(x + 40.0, 60.0, 30.0))
}

#[test]
fn a_long_flight_stays_bounded_and_returns_to_the_same_state_and_picture() {
    // 400 blocks out, twelve and a half columns' width, entering and leaving each way. The
    // camera waits while a column it wants is missing, so each crossing is streamed in full
    // however fast the generator's workers are against the frames; the speed then sets only how
    // many frames lie between crossings.
    const FRAMES: u32 = 250;
    const SPEED: f32 = 1.6;
    let registry = voxgpu_core::voxel::BlockRegistry::builtin();
    for gpu in kit::gpu_contexts() {
        let options = RendererOptions::new(64, 48, 100.0);
        let mut renderer = Offscreen::new(&gpu, options.clone(), &registry).expect("renderer");
        let mut stream = streamer();
        let start = camera_at(16.0);
        stream.settle(start.eye, &mut renderer).expect("streams");
        let first = renderer.settle(&start).expect("frame");
        let first_chunks = stream.manager.resident_chunks().clone();
        // Out along +X and back: 500 frames of motion, the camera 1.6 blocks per frame.
        let bound = (first_chunks.len() as f32 * 1.6) as u32;
        let (mut most_chunks, mut most_slots, mut most_pages) = (0, 0, 0);
        let (mut frame, mut waited) = (0, 0);
        while frame < 2 * FRAMES {
            let x = 16.0 + SPEED * if frame < FRAMES { frame } else { 2 * FRAMES - frame } as f32;
            let camera = camera_at(x);
            let report = stream.update(camera.eye, &mut renderer).expect("streams");
            let stats = renderer.render(&camera).expect("frame");
            most_chunks = most_chunks.max(stats.chunks_resident);
            most_slots = most_slots.max(stats.slots);
            most_pages = most_pages.max(stats.pages_in_use());
            if report.missing == 0 {
                frame += 1;
            } else {
                waited += 1;
                assert!(waited < 20 * FRAMES, "the streamer fell behind for {waited} frames");
            }
        }
        assert!(
            most_chunks <= bound,
            "resident chunks peaked at {most_chunks} (start {})",
            first.chunks_resident
        );
        assert!(most_slots <= bound, "slots peaked at {most_slots}");
        assert!(most_pages <= first.pages_in_use() * 2, "pages peaked at {most_pages}");
        stream.settle(start.eye, &mut renderer).expect("streams");
        let back = renderer.settle(&start).expect("frame");
        assert_eq!(stream.manager.resident_chunks(), &first_chunks, "the same chunks at the start");
        assert_eq!(back.chunks_resident, first.chunks_resident);
        assert!(back.slots <= bound, "slots {}", back.slots);
        assert_eq!(back.pages_in_use(), first.pages_in_use(), "the same quad storage in use");
        // The final picture equals a fresh render of the same world and view.
        let streamed = renderer.read_image().expect("pixels");
        let world = generate(
            &WorldSource::Terrain,
            &WorldParams {
                seed: SEED,
                center: ChunkManager::column_centre(column_of(start.eye)),
                view_distance: VIEW,
            },
        )
        .expect("terrain");
        let fresh = render_fresh(&gpu, &world, options, &start);
        let result = kit::flip(&fresh, &streamed);
        assert!(result.passes(), "{}: {result}", gpu.summary);
    }
}

fn render_fresh(
    gpu: &GpuContext,
    world: &World,
    options: RendererOptions,
    camera: &Camera,
) -> image::RgbaImage {
    let mut r = kit::renderer(gpu, world, options);
    r.settle(camera).expect("frame");
    r.read_image().expect("pixels")
}

#[test]
fn an_edit_at_a_chunk_corner_shows_next_frame_exactly_there_and_undoes_cleanly() {
    // Opaque terrain (pixel-exact comparisons), at full detail so only the touched chunks change.
    let world = kit::opaque_terrain(SEED, VIEW);
    // The air block at the corner of chunk (0, cy, 0) nearest above the ground: it touches the
    // chunks at +X, +Y and +Z.
    let ground = (0..256).rev().find(|&y| !world.block(IVec3::new(31, y, 31)).is_air()).expect("ground");
    let corner = IVec3::new(31, (ground / 32) * 32 + 31, 31);
    let corner = if corner.y <= ground { corner + IVec3::Y * 32 } else { corner };
    assert!(world.block(corner).is_air());
    let centre = corner.as_vec3() + 0.5;
    let camera = Camera::look_at(centre + Vec3::new(-9.0, 6.0, -7.0), centre);
    let options = RendererOptions { lod: LodSettings::OFF, ..RendererOptions::new(96, 72, 200.0) };
    let (touched, _) = ChunkPos::from_block(corner);
    // The chunk and those whose meshes read the block: the face neighbours across +X, +Y and +Z
    // (borders) and the edge neighbours between them (ambient occlusion). The corner chunk at
    // (+1, +1, +1) reads nothing of it.
    let affected: BTreeSet<ChunkPos> = [IVec3::ZERO, IVec3::X, IVec3::Y, IVec3::Z]
        .into_iter()
        .chain([IVec3::new(1, 1, 0), IVec3::new(1, 0, 1), IVec3::new(0, 1, 1)])
        .map(|d| touched.neighbour(d))
        .collect();
    for gpu in kit::gpu_contexts() {
        let mut r = Offscreen::new(&gpu, options.clone(), &world.registry).expect("renderer");
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("fits");
        }
        r.settle(&camera).expect("frame");
        let before = r.read_image().unwrap();
        let meshes_before = r.inspect().meshes().unwrap();

        r.set_block(corner, ids::BRICK).expect("edit");
        r.render(&camera).expect("one frame");
        let edited = r.read_image().unwrap();
        let changed: Vec<(u32, u32)> = before
            .enumerate_pixels()
            .filter(|(x, y, p)| edited.get_pixel(*x, *y) != *p)
            .map(|(x, y, _)| (x, y))
            .collect();
        assert!(!changed.is_empty(), "{}: the edit shows in the next frame", gpu.summary);
        // Exactly there: every changed pixel lies within the block's projection (one pixel of
        // slack for edge rasterisation).
        let (low, high) = project_box(&camera, corner, 96, 72);
        for &(x, y) in &changed {
            let inside = x as f32 >= low.x - 1.0
                && x as f32 <= high.x + 1.0
                && y as f32 >= low.y - 1.0
                && y as f32 <= high.y + 1.0;
            assert!(inside, "pixel ({x}, {y}) changed outside the block's projection {low}..{high}");
        }
        let meshes_edited = r.inspect().meshes().unwrap();
        assert_untouched_identical(&meshes_before, &meshes_edited, &affected);

        r.set_block(corner, BlockId::AIR).expect("undo");
        r.render(&camera).expect("one frame");
        assert!(r.read_image().unwrap() == before, "{}: undo restores every pixel", gpu.summary);
        assert_untouched_identical(&meshes_before, &r.inspect().meshes().unwrap(), &affected);
        // The touched chunks are back to the same quads (their pages may differ).
        for (a, b) in meshes_before.iter().zip(&r.inspect().meshes().unwrap()) {
            assert!(kit::as_set(&a.mesh) == kit::as_set(&b.mesh), "{:?} quads after undo", a.pos);
        }
    }
}

/// Chunks outside `affected` keep their quads and pages bit for bit.
fn assert_untouched_identical(
    before: &[GpuChunkMesh],
    after: &[GpuChunkMesh],
    affected: &BTreeSet<ChunkPos>,
) {
    assert_eq!(before.len(), after.len());
    let mut untouched = 0;
    for (a, b) in before.iter().zip(after) {
        assert_eq!(a.pos, b.pos);
        if !affected.contains(&a.pos) {
            assert_eq!(a, b, "{:?} changed although the edit does not touch it", a.pos);
            untouched += 1;
        }
    }
    assert!(untouched > 10);
}

/// The screen-space bounding box of block `b` in a `w`×`h` image.
fn project_box(camera: &Camera, b: IVec3, w: u32, h: u32) -> (glam::Vec2, glam::Vec2) {
    let view_proj = camera.view_proj(w as f32 / h as f32);
    let mut low = glam::Vec2::splat(f32::INFINITY);
    let mut high = glam::Vec2::splat(f32::NEG_INFINITY);
    for i in 0..8 {
        let corner = b.as_vec3() + Vec3::new((i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2) as f32);
        let ndc = view_proj.project_point3(corner);
        let px = glam::Vec2::new((ndc.x + 1.0) * 0.5 * w as f32, (1.0 - ndc.y) * 0.5 * h as f32);
        low = low.min(px);
        high = high.max(px);
    }
    (low, high)
}

#[test]
fn streaming_holds_the_columns_the_generator_would() {
    let registry = voxgpu_core::voxel::BlockRegistry::builtin();
    for gpu in kit::gpu_contexts() {
        let mut renderer =
            Offscreen::new(&gpu, RendererOptions::new(16, 16, 100.0), &registry).expect("renderer");
        let mut stream = streamer();
        let eye = Vec3::new(100.0, 90.0, -50.0);
        stream.settle(eye, &mut renderer).expect("streams");
        let columns: std::collections::HashSet<_> = stream.manager.resident_columns().map(|c| c.xz).collect();
        let expected: std::collections::HashSet<_> =
            columns_in_view(ChunkManager::column_centre(column_of(eye)), VIEW).into_iter().collect();
        assert_eq!(columns, expected);
        assert_eq!(renderer.resident().len(), stream.manager.resident_chunks().len());
    }
}

#[test]
fn a_flight_across_node_levels_stays_bounded_and_returns_to_the_same_state_and_picture() {
    // 17 chunks: chunks, level-1 and level-2 nodes (top level 2, 128-block nodes), level 1 from
    // 32 blocks so that few columns are chunks (at the start 107 chunks, 34 level-1 and 60
    // level-2 nodes; 416 chunks with level 1 from 128). Out 320 blocks along +X and back, 16
    // blocks per frame: every level's columns change, across two level-2 node boundaries, and
    // places change level both ways.
    const FRAMES: u32 = 20;
    const SPEED: f32 = 16.0;
    let registry = voxgpu_core::voxel::BlockRegistry::builtin();
    for gpu in kit::gpu_contexts() {
        // No hysteresis: it makes levels depend on the path (its purpose, tested in lod.rs), and
        // this test wants the state at the start to be a function of the camera alone.
        let lod = LodSettings::default()
            .with_hysteresis(0.0)
            .and_then(|l| l.with_first_distance(32.0))
            .expect("no hysteresis is allowed");
        let options = RendererOptions { lod, ..RendererOptions::new(64, 48, 800.0) };
        let mut renderer = Offscreen::new(&gpu, options, &registry).expect("renderer");
        let settings = StreamSettings { uploads_per_update: 400, lod, ..StreamSettings::new(17) };
        let source = TerrainColumns::new(SEED);
        let mut stream = Streamer::new(settings, 2, Arc::new(move |c| Ok(source.node_column(c))));
        let start = camera_at(16.0);
        stream.settle(start.eye, &mut renderer).expect("streams");
        let first = renderer.settle(&start).expect("frame");
        let first_nodes = stream.manager.resident_chunks().clone();
        let levels: BTreeSet<u32> = first_nodes.iter().map(|k| k.level).collect();
        assert_eq!(levels, BTreeSet::from([0, 1, 2]));
        let first_picture = renderer.read_image().expect("pixels");
        // Quads drawn without occlusion culling, whose first phase draws what the frames before
        // saw: a function of the camera alone.
        let unoccluded_quads = |r: &mut Offscreen, camera: &Camera| {
            let culling = r.options().culling;
            r.set_culling(voxgpu_engine::Culling { occlusion: false, ..culling });
            let quads = r.settle(camera).expect("frame").quads;
            r.set_culling(culling);
            quads
        };
        let first_quads = unoccluded_quads(&mut renderer, &start);
        let bound = (first_nodes.len() as f32 * 1.5) as u32;
        let (mut most_nodes, mut most_slots) = (0, 0);
        for frame in 0..2 * FRAMES {
            let x = 16.0 + SPEED * if frame < FRAMES { frame } else { 2 * FRAMES - frame } as f32;
            let camera = camera_at(x);
            stream.update(camera.eye, &mut renderer).expect("streams");
            let stats = renderer.render(&camera).expect("frame");
            most_nodes = most_nodes.max(stats.chunks_resident);
            most_slots = most_slots.max(stats.slots);
        }
        assert!(
            most_nodes <= bound,
            "resident nodes peaked at {most_nodes} (start {})",
            first.chunks_resident
        );
        assert!(most_slots <= bound, "slots peaked at {most_slots}");
        stream.settle(start.eye, &mut renderer).expect("streams");
        let back = renderer.settle(&start).expect("frame");
        assert_eq!(stream.manager.resident_chunks(), &first_nodes, "the same nodes at the start");
        assert_eq!(back.chunks_resident, first.chunks_resident);
        assert_eq!(back.pages_in_use(), first.pages_in_use(), "the same quad storage in use");
        let picture = renderer.read_image().expect("pixels");
        assert_eq!(unoccluded_quads(&mut renderer, &start), first_quads, "the same quads drawn");
        assert!(
            picture == first_picture,
            "{}: the picture at the start differs after the flight",
            gpu.summary
        );
    }
}
