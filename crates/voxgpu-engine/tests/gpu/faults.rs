//! Faults the renderer survives: a failed world column drawn as absent, a lost GPU device, from
//! which a renderer is rebuilt without losing a node or an edit, and frames whose encoder the
//! caller dropped or whose submission it did not confirm. The streamer's side of a failing or
//! slow source is in `crates/voxgpu-worlds/tests/worlds/faults.rs`; the headless commands on a
//! lost device in the application's `tests/app/faults.rs`.

use voxgpu_test_kit as kit;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use glam::{IVec2, IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, BlockRegistry, Chunk, NodeColumn, World};
use voxgpu_engine::{GpuContext, GpuError, Offscreen, RendererOptions};
use voxgpu_worlds::stream::{ColumnSource, StreamSettings, Streamer};
use voxgpu_worlds::worldgen::{TerrainColumns, WorldParams, WorldSource, generate};

use kit::ReadImage;

const SEED: u64 = 7;
const VIEW: u32 = 2;

fn eye_over(column: IVec2) -> Vec3 {
    Vec3::new(column.x as f32 * 32.0 + 16.0, 90.0, column.y as f32 * 32.0 + 16.0)
}

/// Terrain that panics on `panics` and returns an error on `errs`, counting the calls per column.
fn faulty_terrain(panics: IVec2, errs: IVec2) -> (Arc<ColumnSource>, Arc<Mutex<HashMap<NodeColumn, u32>>>) {
    let calls: Arc<Mutex<HashMap<NodeColumn, u32>>> = Arc::default();
    let terrain = TerrainColumns::new(SEED);
    let counted = Arc::clone(&calls);
    let source = move |c: NodeColumn| {
        *counted.lock().unwrap().entry(c).or_default() += 1;
        if c.xz == panics {
            panic!("the disk went away under column {:?}", c.xz);
        }
        if c.xz == errs {
            return Err(format!("corrupt record for column {:?}", c.xz).into());
        }
        Ok(terrain.node_column(c))
    };
    (Arc::new(source), calls)
}

fn quick_retries(view: u32) -> StreamSettings {
    StreamSettings { retry_after: Duration::from_millis(5), ..StreamSettings::new(view) }
}

/// A failed column is drawn as absent: the streamed renderer holds exactly the meshes of the
/// world without that column, its neighbours' faces toward it shown.
#[test]
fn a_failed_column_is_drawn_as_absent_on_every_adapter() {
    let (panics, errs) = (IVec2::new(0, 1), IVec2::new(99, 99));
    let registry = BlockRegistry::builtin();
    let eye = eye_over(IVec2::ZERO);
    let world = generate(
        &WorldSource::Terrain,
        &WorldParams { seed: SEED, center: eye.as_ivec3(), view_distance: VIEW },
    )
    .expect("terrain");
    let mut holed = World::new(world.registry.clone());
    for (pos, chunk) in world.chunks().filter(|(p, _)| IVec2::new(p.0.x, p.0.z) != panics) {
        holed.insert(pos, (**chunk).clone());
    }
    let camera = Camera::look_at(Vec3::new(-40.0, 110.0, 70.0), Vec3::new(16.0, 50.0, 40.0));
    for gpu in kit::gpu_contexts() {
        let options = RendererOptions::new(96, 64, 200.0);
        let mut streamed = Offscreen::new(&gpu, options.clone(), &registry).expect("renderer");
        let (source, _) = faulty_terrain(panics, errs);
        let mut streamer = Streamer::new(quick_retries(VIEW), 2, source);
        streamer.settle(eye, &mut streamed).expect("settles");
        streamed.settle(&camera).expect("frame");
        let mut whole = kit::renderer(&gpu, &holed, options);
        whole.settle(&camera).expect("frame");
        let as_sets = |r: &Offscreen| -> Vec<_> {
            r.inspect().meshes().expect("meshes").into_iter().map(|m| (m.key, kit::as_set(&m.mesh))).collect()
        };
        assert_eq!(as_sets(&streamed), as_sets(&whole), "{}", gpu.summary);
        let difference = kit::flip(&whole.read_image().unwrap(), &streamed.read_image().unwrap());
        assert!(difference.passes(), "{}: {difference}", gpu.summary);
    }
}

/// Two contexts on the same adapter: one to lose, one to recover on.
fn pair(gpu: &GpuContext) -> GpuContext {
    GpuContext::from_adapter(gpu.adapter.clone()).expect("a second device on the adapter")
}

/// A renderer whose device is destroyed mid-run reports the loss, then is rebuilt on a new
/// device from what it holds on the CPU: the same nodes, levels and edits, the same meshes and
/// the same picture, and streaming goes on.
#[test]
fn a_renderer_recovers_from_a_lost_device_with_every_node_and_edit() {
    let registry = BlockRegistry::builtin();
    for gpu in kit::gpu_contexts() {
        let lost = pair(&gpu);
        // Level 1 from 32 blocks, so that few columns are chunks.
        let lod =
            voxgpu_core::lod::LodSettings::default().with_first_distance(32.0).expect("a first distance");
        let options = RendererOptions { lod, ..RendererOptions::new(96, 64, 400.0) };
        let mut renderer = Offscreen::new(&lost, options, &registry).expect("renderer");
        // Terrain at 12 chunks: chunks and coarser nodes, with complete columns.
        let columns = TerrainColumns::new(SEED);
        let settings = StreamSettings { lod: renderer.options().lod, ..StreamSettings::new(12) };
        let mut streamer = Streamer::new(settings, 2, Arc::new(move |c| Ok(columns.node_column(c))));
        let eye = Vec3::new(16.0, 120.0, 16.0);
        let camera = Camera::look_at(eye, Vec3::new(60.0, 60.0, 50.0));
        streamer.settle(eye, &mut renderer).expect("streams");
        // Edits: a pillar in view, and a dug block.
        let ground = (0..200)
            .rev()
            .find(|&y| renderer.resident().block(IVec3::new(40, y, 40)) != BlockId::AIR)
            .expect("ground");
        for y in 1..=6 {
            renderer.set_block(IVec3::new(40, ground + y, 40), ids::BRICK).expect("edit");
        }
        renderer.set_block(IVec3::new(41, ground, 40), BlockId::AIR).expect("edit");
        renderer.settle(&camera).expect("frame");
        let before = renderer.read_image().expect("pixels");
        let meshes = |r: &Offscreen| -> Vec<_> {
            r.inspect()
                .meshes()
                .expect("meshes")
                .into_iter()
                .map(|m| (m.key, m.level, kit::as_set(&m.mesh)))
                .collect()
        };
        let meshes_before = meshes(&renderer);
        let nodes_before = renderer.resident().nodes_per_level();

        lost.device.destroy();
        let _ = lost.device.poll(wgpu::PollType::wait_indefinitely());
        match renderer.render(&camera) {
            Err(GpuError::DeviceLost(reason)) => assert!(reason.contains("Destroyed"), "{reason}"),
            other => panic!("{}: a frame on a destroyed device gave {other:?}", gpu.summary),
        }

        let fresh = pair(&gpu);
        renderer.recover(&fresh).expect("recovers");
        assert_eq!(renderer.resident().nodes_per_level(), nodes_before);
        assert_eq!(renderer.resident().block(IVec3::new(40, ground + 6, 40)), ids::BRICK);
        renderer.settle(&camera).expect("frame on the new device");
        assert_eq!(meshes(&renderer), meshes_before, "{}", gpu.summary);
        // The opaque picture is the same bit for bit; the terrain's water is blended in an order
        // that is not deterministic between chunks, so the frame is held to the golden-image
        // thresholds rather than to every bit.
        let after = renderer.read_image().unwrap();
        let difference = kit::flip(&before, &after);
        assert!(difference.passes(), "{}: the picture changed: {difference}", gpu.summary);
        // Streaming carries on into the recovered renderer.
        let away = Vec3::new(400.0, 120.0, 16.0);
        streamer.settle(away, &mut renderer).expect("streams after recovery");
        renderer.settle(&Camera::look_at(away, away + Vec3::new(40.0, -50.0, 30.0))).expect("frame");
    }
}

/// A frame recorded into the caller's encoder with edits, a removal and a newcomer, and the
/// encoder dropped unsubmitted: the next `prepare` names the missing submission once, and the
/// renderer goes on to hold every one of those changes (and one made after the drop) exactly,
/// node for node, as a renderer given the final world from the start.
#[test]
fn a_dropped_frame_encoder_loses_no_upload_and_the_next_prepare_names_it() {
    use voxgpu_core::voxel::ChunkPos;
    use voxgpu_engine::{COLOR_FORMAT, DEPTH_FORMAT, Renderer, Targets};
    let world = kit::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-30.0, 120.0, -30.0), Vec3::new(32.0, 40.0, 32.0));
    let ground = |w: &World, x: i32, z: i32| (0..256).rev().find(|&y| !w.block(IVec3::new(x, y, z)).is_air());
    let edit = IVec3::new(5, ground(&world, 5, 9).expect("ground") + 1, 9);
    let later = IVec3::new(40, ground(&world, 40, 3).expect("ground"), 3);
    let departed = world.sorted_positions()[3];
    let newcomer = ChunkPos::new(9, 0, 9);
    let mut expected = world.clone();
    expected.set_block(edit, ids::BRICK);
    expected.set_block(later, BlockId::AIR);
    expected.remove(departed);
    expected.insert(newcomer, Chunk::filled(ids::SAND));
    let options = RendererOptions {
        lod: voxgpu_core::lod::LodSettings::OFF,
        color_format: COLOR_FORMAT,
        ..RendererOptions::new(48, 32, 300.0)
    };
    for gpu in kit::gpu_contexts() {
        let mut r =
            Renderer::new(&gpu.device, &gpu.queue, options.clone(), &world.registry).expect("renderer");
        let texture = |format, usage| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d { width: 48, height: 32, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let color = texture(COLOR_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT);
        let depth = texture(DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT);
        let (color, depth) = (color.create_view(&Default::default()), depth.create_view(&Default::default()));
        let targets = Targets { color: &color, depth: &depth, clear: true };
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        r.settle(&camera, &targets).expect("settles");

        r.set_block(edit, ids::BRICK).expect("edit");
        r.remove_chunk(departed);
        r.insert_chunk(newcomer, Arc::new(Chunk::filled(ids::SAND))).expect("chunk fits");
        r.prepare(&camera).expect("prepare");
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        r.record(&mut encoder, &targets).expect("record");
        drop(encoder);
        r.set_block(later, BlockId::AIR).expect("edit after the dropped frame");
        match r.prepare(&camera) {
            Err(GpuError::FrameNotSubmitted) => {}
            other => panic!("{}: prepare after a dropped encoder gave {other:?}", gpu.summary),
        }
        r.settle(&camera, &targets).expect("settles after the dropped frame");

        let got = r.inspect().meshes().expect("meshes");
        assert_eq!(got.len(), expected.len(), "{}: resident nodes", gpu.summary);
        for m in &got {
            assert!(
                kit::as_set(&m.mesh) == kit::as_set(&voxgpu_core::mesh::mesh_world_chunk(&expected, m.pos)),
                "{} {:?}: the mesh is not the final world's",
                gpu.summary,
                m.pos
            );
        }
    }
}

/// A renderer drawn into the caller's targets (`Renderer::record` into the caller's encoder),
/// `w × h`, with every chunk of `world` resident.
struct CallerFrames {
    r: voxgpu_engine::Renderer,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
}

impl CallerFrames {
    fn new(gpu: &GpuContext, world: &World, options: RendererOptions) -> Self {
        use voxgpu_engine::{COLOR_FORMAT, DEPTH_FORMAT, Renderer};
        let options = RendererOptions { color_format: COLOR_FORMAT, ..options };
        let (w, h) = (options.width, options.height);
        let mut r = Renderer::new(&gpu.device, &gpu.queue, options, &world.registry).expect("renderer");
        let texture = |format| {
            gpu.device
                .create_texture(&wgpu::TextureDescriptor {
                    label: None,
                    size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        Self { r, color: texture(COLOR_FORMAT), depth: texture(DEPTH_FORMAT) }
    }

    /// `prepare` and `record` into a new encoder, returned unsubmitted.
    fn record(&mut self, gpu: &GpuContext, camera: &Camera) -> wgpu::CommandEncoder {
        self.r.prepare(camera).expect("prepare");
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let targets = voxgpu_engine::Targets { color: &self.color, depth: &self.depth, clear: true };
        self.r.record(&mut encoder, &targets).expect("record");
        encoder
    }

    fn settle(&mut self, camera: &Camera) {
        let targets = voxgpu_engine::Targets { color: &self.color, depth: &self.depth, clear: true };
        self.r.settle(camera, &targets).expect("settles");
    }

    /// Every chunk's mips and its mesh at the level the GPU chose equal the CPU twins' of `world`.
    fn assert_lod_meshes(&self, gpu: &GpuContext, world: &World, when: &str) {
        use voxgpu_core::voxel::{MIP_LEVELS, MipPyramid};
        let levels: HashMap<_, _> = self.r.inspect().levels().expect("levels").into_iter().collect();
        let pyramids: HashMap<_, _> = world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
        for (pos, pyramid) in &pyramids {
            let got = self.r.inspect().mips(*pos).expect("readback").expect("resident");
            for level in 1..=MIP_LEVELS {
                assert!(
                    got[level - 1] == pyramid.level(level),
                    "{} {when}: {pos:?} mip {level}",
                    gpu.summary
                );
            }
        }
        let meshes = self.r.inspect().meshes().expect("meshes");
        assert_eq!(meshes.len(), world.len(), "{} {when}: resident nodes", gpu.summary);
        for m in &meshes {
            let cpu = voxgpu_core::mesh::mesh_world_chunk_lod(
                world,
                m.pos,
                &|p| &pyramids[&p],
                &|p| levels[&p],
                true,
            );
            assert!(
                kit::same_mesh(m, &cpu),
                "{} {when}: {:?} at level {}: the mesh (quads or bounds) is not the twin's",
                gpu.summary,
                m.pos,
                levels[&m.pos]
            );
        }
    }
}

fn lod_options() -> RendererOptions {
    RendererOptions {
        lod: voxgpu_core::lod::LodSettings::default().with_first_distance(24.0).expect("a distance LOD"),
        ..RendererOptions::new(48, 32, 1000.0)
    }
}

/// An 8³ block inside `pos` (off its border layers) flipped between air and brick, in `world` and
/// through `r`: it changes the chunk's mips at every level.
fn flip_inside(r: &mut voxgpu_engine::Renderer, world: &mut World, pos: voxgpu_core::voxel::ChunkPos) {
    for i in 0..512 {
        let at = pos.origin() + IVec3::new(12 + i % 8, 12 + i / 8 % 8, 12 + i / 64);
        let block = if world.block(at).is_air() { ids::BRICK } else { BlockId::AIR };
        world.set_block(at, block);
        r.set_block(at, block).expect("edit");
    }
}

/// A chunk drawn at a coarse mip, with a resident face neighbour: its position and the
/// neighbour's block next to their shared face.
fn coarse_chunk_and_border(
    r: &voxgpu_engine::Renderer,
    world: &World,
) -> (voxgpu_core::voxel::ChunkPos, IVec3) {
    for (pos, level) in r.inspect().levels().expect("levels") {
        if level == 0 {
            continue;
        }
        for face in voxgpu_core::mesh::Face::ALL {
            let other = pos.neighbour(face.normal());
            if world.chunk(other).is_none() {
                continue;
            }
            // The neighbour's voxel touching the middle of the shared face.
            let mut local = IVec3::splat(16);
            local[face.axis()] = if face.is_positive() { 32 } else { -1 };
            return (pos, pos.origin() + local);
        }
    }
    panic!("no chunk is drawn at a coarse mip");
}

/// LOD on: a dropped frame asked for a coarse chunk's mips to be rebuilt (an edit inside it),
/// and an edit in its neighbour, before the next `prepare`, asked for it to be re-meshed. The
/// replayed request and the newer one both reach the GPU: its mips are rebuilt and it is meshed
/// from them, as every other chunk.
#[test]
fn a_dropped_frames_mip_request_survives_a_later_request_for_the_same_node() {
    let world = kit::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-70.0, 110.0, -70.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in kit::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, lod_options());
        f.settle(&camera);
        let mut expected = world.clone();
        let (coarse, border) = coarse_chunk_and_border(&f.r, &world);
        flip_inside(&mut f.r, &mut expected, coarse);
        drop(f.record(&gpu, &camera));
        let block = if expected.block(border).is_air() { ids::BRICK } else { BlockId::AIR };
        expected.set_block(border, block);
        f.r.set_block(border, block).expect("the neighbour's edit");
        assert!(matches!(f.r.prepare(&camera), Err(GpuError::FrameNotSubmitted)), "{}", gpu.summary);
        f.settle(&camera);
        f.assert_lod_meshes(&gpu, &expected, "after the dropped frame");
    }
}

/// A removal between `record` and `frame_submitted` is not in the submitted frame: its slot
/// stays quarantined until a frame releases it, so the newcomer inserted next is never drawn
/// with the departed chunk's quads (one re-mesh per frame keeps it waiting behind edits).
#[test]
fn a_removal_between_record_and_frame_submitted_waits_for_its_release() {
    use voxgpu_core::mesh::mesh_world_chunk;
    use voxgpu_core::voxel::ChunkPos;
    let world = kit::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-30.0, 120.0, -30.0), Vec3::new(32.0, 40.0, 32.0));
    let positions = world.sorted_positions();
    let departed =
        *positions.iter().find(|p| mesh_world_chunk(&world, **p).quad_count() > 0).expect("a chunk");
    let newcomer = ChunkPos::new(9, 0, 9);
    let options = RendererOptions {
        lod: voxgpu_core::lod::LodSettings::OFF,
        max_meshes_per_frame: 1,
        ..RendererOptions::new(48, 32, 300.0)
    };
    for gpu in kit::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, options.clone());
        f.settle(&camera);
        let departed_quads = kit::as_set(&mesh_world_chunk(&world, departed));
        assert!(!departed_quads.is_empty());
        let mut expected = world.clone();
        for pos in positions.iter().filter(|&&p| p != departed).take(6) {
            let at = pos.origin() + IVec3::new(5, 5, 5);
            expected.set_block(at, ids::BRICK);
            f.r.set_block(at, ids::BRICK).expect("edit");
        }
        let encoder = f.record(&gpu, &camera);
        f.r.remove_chunk(departed);
        gpu.queue.submit([encoder.finish()]);
        f.r.frame_submitted();
        f.r.insert_chunk(newcomer, Arc::new(Chunk::filled(ids::SAND))).expect("chunk fits");
        expected.remove(departed);
        expected.insert(newcomer, Chunk::filled(ids::SAND));
        for frame in 0..4 {
            let encoder = f.record(&gpu, &camera);
            gpu.queue.submit([encoder.finish()]);
            f.r.frame_submitted();
            for m in f.r.inspect().meshes().expect("meshes") {
                let quads = kit::as_set(&m.mesh);
                assert!(m.pos != departed, "the departed chunk is gone");
                assert!(
                    quads.is_empty() || quads != departed_quads,
                    "{} frame {frame}: {:?} shows the departed chunk's quads",
                    gpu.summary,
                    m.pos
                );
                if m.pos == newcomer {
                    assert!(
                        quads.is_empty() || quads == kit::as_set(&mesh_world_chunk(&expected, newcomer)),
                        "{} frame {frame}: the newcomer is empty or right",
                        gpu.summary
                    );
                }
            }
        }
        f.settle(&camera);
        for m in f.r.inspect().meshes().expect("meshes") {
            assert!(
                kit::as_set(&m.mesh) == kit::as_set(&mesh_world_chunk(&expected, m.pos)),
                "{} {:?}: the final mesh",
                gpu.summary,
                m.pos
            );
        }
    }
}

/// LOD on: a release staged between `record` and `frame_submitted` (an insert finding no free
/// slot while a removal the recorded frame releases is quarantined) meshes no dirty node: an
/// edit inside a coarse chunk staged before it is meshed from the rebuilt mips.
#[test]
fn a_release_staged_while_a_frame_is_unconfirmed_meshes_no_dirty_node() {
    use voxgpu_core::voxel::ChunkPos;
    let world = kit::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-70.0, 110.0, -70.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in kit::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, lod_options());
        f.settle(&camera);
        let mut expected = world.clone();
        let (coarse, _) = coarse_chunk_and_border(&f.r, &world);
        let departed = *world.sorted_positions().iter().find(|&&p| p != coarse).expect("another chunk");
        f.r.remove_chunk(departed);
        expected.remove(departed);
        let encoder = f.record(&gpu, &camera);
        flip_inside(&mut f.r, &mut expected, coarse);
        let newcomer = ChunkPos::new(9, 0, 9);
        f.r.insert_chunk(newcomer, Arc::new(Chunk::filled(ids::SAND))).expect("chunk fits");
        expected.insert(newcomer, Chunk::filled(ids::SAND));
        gpu.queue.submit([encoder.finish()]);
        f.r.frame_submitted();
        f.settle(&camera);
        f.assert_lod_meshes(&gpu, &expected, "after the release");
    }
}

/// Profiling on: a frame whose encoder was dropped reports no timings (its queries were never
/// resolved); the frames submitted each report theirs.
#[test]
fn a_dropped_frame_reports_no_timings() {
    let world = kit::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-30.0, 120.0, -30.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in kit::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, lod_options());
        f.settle(&camera);
        f.r.tools().set_profiling(true).expect("timestamps");
        f.r.tools().flush_timings().expect("flush");
        f.r.tools().take_timings();
        drop(f.record(&gpu, &camera));
        assert!(matches!(f.r.prepare(&camera), Err(GpuError::FrameNotSubmitted)));
        for _ in 0..2 {
            let encoder = f.record(&gpu, &camera);
            gpu.queue.submit([encoder.finish()]);
            f.r.frame_submitted();
            f.r.tools().flush_timings().expect("flush");
        }
        let frames = f.r.tools().take_timings();
        assert_eq!(frames.len(), 2, "{}: frames with timings", gpu.summary);
    }
}
