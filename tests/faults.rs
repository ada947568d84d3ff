//! Faults survived: a world source that panics or fails on some columns, a slow one whose jobs
//! go stale, and a lost GPU device, from which a renderer is rebuilt without losing a node or an
//! edit.

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use glam::{IVec2, IVec3, Vec3};
use voxgpu::camera::Camera;
use voxgpu::gpu::{GpuContext, GpuError, Offscreen, RendererOptions};
use voxgpu::stream::{ChunkSink, ColumnSource, StreamSettings, Streamer};
use voxgpu::voxel::blocks as ids;
use voxgpu::voxel::{BlockId, BlockRegistry, Chunk, NodeColumn, NodeKey, World};
use voxgpu::worldgen::{TerrainColumns, WorldParams, WorldSource, columns_in_view, generate};

use common::ReadImage;

const SEED: u64 = 7;
const VIEW: u32 = 2;

/// Nodes and complete columns, as the streamer leaves them.
#[derive(Default)]
struct Sink {
    nodes: HashSet<NodeKey>,
    ready: HashSet<NodeColumn>,
}

impl ChunkSink for Sink {
    type Error = std::convert::Infallible;
    fn insert(&mut self, key: NodeKey, _: Arc<Chunk>) -> Result<(), Self::Error> {
        self.nodes.insert(key);
        Ok(())
    }
    fn remove(&mut self, key: NodeKey) {
        self.nodes.remove(&key);
    }
    fn mark_dirty(&mut self, _: NodeKey) {}
    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        if ready {
            self.ready.insert(column);
        } else {
            self.ready.remove(&column);
        }
    }
}

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

#[test]
fn a_source_that_panics_or_fails_loses_only_its_columns_and_settle_returns() {
    let (panics, errs) = (IVec2::new(1, 0), IVec2::new(-1, 1));
    let (source, calls) = faulty_terrain(panics, errs);
    let settings = quick_retries(VIEW);
    let mut streamer = Streamer::new(settings, 2, source);
    let mut sink = Sink::default();
    let eye = eye_over(IVec2::ZERO);
    streamer.settle(eye, &mut sink).expect("settles");

    // Every wanted column is resident; the two bad ones with no nodes, and complete (drawn absent).
    let wanted: HashSet<IVec2> =
        columns_in_view(voxgpu::stream::ChunkManager::column_centre(IVec2::ZERO), VIEW).into_iter().collect();
    assert!(wanted.contains(&panics) && wanted.contains(&errs));
    let failed: HashMap<IVec2, String> =
        streamer.manager.failed_columns().map(|(c, m)| (c.xz, m.to_string())).collect();
    assert_eq!(failed.keys().copied().collect::<HashSet<_>>(), HashSet::from([panics, errs]));
    assert!(failed[&panics].contains("panicked") && failed[&panics].contains("the disk went away"));
    assert!(failed[&errs].contains("corrupt record"), "{}", failed[&errs]);
    for xz in &wanted {
        assert!(streamer.manager.is_resident(NodeColumn::new(0, *xz)), "{xz}");
        assert!(sink.ready.contains(&NodeColumn::new(0, *xz)), "{xz} not marked complete");
    }
    assert!(sink.nodes.iter().all(|k| k.column().xz != panics && k.column().xz != errs));
    // The good columns hold exactly what the generator makes.
    let world = generate(
        &WorldSource::Terrain,
        &WorldParams { seed: SEED, center: eye.as_ivec3(), view_distance: VIEW },
    )
    .expect("terrain");
    let expected: HashSet<NodeKey> = world
        .chunks()
        .filter(|(p, _)| IVec2::new(p.0.x, p.0.z) != panics && IVec2::new(p.0.x, p.0.z) != errs)
        .map(|(p, _)| NodeKey::chunk(p))
        .collect();
    assert_eq!(sink.nodes, expected);
    // Each bad column was tried exactly `attempts` times, every other once.
    let counts = calls.lock().unwrap().clone();
    for (column, n) in &counts {
        let bad = column.xz == panics || column.xz == errs;
        assert_eq!(*n, if bad { settings.attempts } else { 1 }, "{column:?}");
    }
    assert_eq!(counts.len(), wanted.len());

    // Away and back: a failure is forgotten with its column, which is tried afresh.
    streamer.settle(eye_over(IVec2::new(40, 0)), &mut sink).expect("settles away");
    assert_eq!(streamer.manager.failed_columns().count(), 0);
    streamer.settle(eye, &mut sink).expect("settles back");
    assert_eq!(calls.lock().unwrap()[&NodeColumn::new(0, panics)], 2 * settings.attempts);
    assert_eq!(streamer.manager.failed_columns().count(), 2);
}

#[test]
fn jobs_of_columns_no_longer_wanted_are_cancelled_before_they_start() {
    // One worker, held inside the first column it takes until the test lets it go: the queue's
    // state at the camera's jump is exact, whatever the machine's load.
    let started: Arc<Mutex<Vec<IVec2>>> = Arc::default();
    let gate: Arc<(Mutex<bool>, std::sync::Condvar)> = Arc::default();
    let (log, hold) = (Arc::clone(&started), Arc::clone(&gate));
    let terrain = TerrainColumns::new(SEED);
    let slow = move |c: NodeColumn| {
        log.lock().unwrap().push(c.xz);
        let (open, wake) = &*hold;
        let mut open = open.lock().unwrap();
        while !*open {
            open = wake.wait(open).unwrap();
        }
        Ok(terrain.node_column(c))
    };
    // 4 chunks: more columns than jobs in flight.
    let settings = StreamSettings { max_in_flight: 16, ..StreamSettings::new(4) };
    let mut streamer = Streamer::new(settings, 1, Arc::new(slow));
    let mut sink = Sink::default();
    let first = streamer.update(eye_over(IVec2::ZERO), &mut sink).unwrap();
    assert_eq!(first.requested, 16);
    // The camera jumps far away: none of the first columns is wanted any more.
    let far = IVec2::new(100, 100);
    let jumped = streamer.update(eye_over(far), &mut sink).unwrap();
    let near = started.lock().unwrap().len();
    // The worker had taken at most one job (it is held in it); every other was cancelled.
    assert!(near <= 1, "{near} jobs started");
    assert_eq!(jumped.cancelled + near, 16, "cancelled {} with {near} started", jumped.cancelled);
    assert_eq!(streamer.cancelled as usize, jumped.cancelled);
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    streamer.settle(eye_over(far), &mut sink).expect("settles far away");
    let stale = started.lock().unwrap().iter().filter(|c| c.x.abs() < 10).count();
    assert_eq!(stale, near, "only the started job of the first columns was generated");
    let wanted: HashSet<IVec2> =
        columns_in_view(voxgpu::stream::ChunkManager::column_centre(far), 4).into_iter().collect();
    let resident: HashSet<IVec2> = streamer.manager.resident_columns().map(|c| c.xz).collect();
    assert_eq!(resident, wanted);
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
    for gpu in common::gpu_contexts() {
        let options = RendererOptions::new(96, 64, 200.0);
        let mut streamed = Offscreen::new(&gpu, options.clone(), &registry).expect("renderer");
        let (source, _) = faulty_terrain(panics, errs);
        let mut streamer = Streamer::new(quick_retries(VIEW), 2, source);
        streamer.settle(eye, &mut streamed).expect("settles");
        streamed.settle(&camera).expect("frame");
        let mut whole = common::renderer(&gpu, &holed, options);
        whole.settle(&camera).expect("frame");
        let as_sets = |r: &Offscreen| -> Vec<_> {
            r.read_meshes().expect("meshes").into_iter().map(|m| (m.key, common::as_set(&m.mesh))).collect()
        };
        assert_eq!(as_sets(&streamed), as_sets(&whole), "{}", gpu.summary);
        let difference = common::flip(&whole.read_image().unwrap(), &streamed.read_image().unwrap());
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
    for gpu in common::gpu_contexts() {
        let lost = pair(&gpu);
        let options = RendererOptions::new(96, 64, 400.0);
        let mut renderer = Offscreen::new(&lost, options, &registry).expect("renderer");
        // Terrain at 12 chunks: chunks and coarser nodes, with complete columns.
        let columns = TerrainColumns::new(SEED);
        let settings = StreamSettings { lod: renderer.lod(), ..StreamSettings::new(12) };
        let mut streamer = Streamer::new(settings, 2, Arc::new(move |c| Ok(columns.node_column(c))));
        let eye = Vec3::new(16.0, 120.0, 16.0);
        let camera = Camera::look_at(eye, Vec3::new(60.0, 60.0, 50.0));
        streamer.settle(eye, &mut renderer).expect("streams");
        // Edits: a pillar in view, and a dug block.
        let ground =
            (0..200).rev().find(|&y| renderer.block(IVec3::new(40, y, 40)) != BlockId::AIR).expect("ground");
        for y in 1..=6 {
            renderer.set_block(IVec3::new(40, ground + y, 40), ids::BRICK).expect("edit");
        }
        renderer.set_block(IVec3::new(41, ground, 40), BlockId::AIR).expect("edit");
        renderer.settle(&camera).expect("frame");
        let before = renderer.read_image().expect("pixels");
        let meshes = |r: &Offscreen| -> Vec<_> {
            r.read_meshes()
                .expect("meshes")
                .into_iter()
                .map(|m| (m.key, m.level, common::as_set(&m.mesh)))
                .collect()
        };
        let meshes_before = meshes(&renderer);
        let nodes_before = renderer.nodes_per_level();

        lost.device.destroy();
        let _ = lost.device.poll(wgpu::PollType::wait_indefinitely());
        match renderer.render(&camera) {
            Err(GpuError::DeviceLost(reason)) => assert!(reason.contains("Destroyed"), "{reason}"),
            other => panic!("{}: a frame on a destroyed device gave {other:?}", gpu.summary),
        }

        let fresh = pair(&gpu);
        renderer.recover(&fresh).expect("recovers");
        assert_eq!(renderer.nodes_per_level(), nodes_before);
        assert_eq!(renderer.block(IVec3::new(40, ground + 6, 40)), ids::BRICK);
        renderer.settle(&camera).expect("frame on the new device");
        assert_eq!(meshes(&renderer), meshes_before, "{}", gpu.summary);
        // The opaque picture is the same bit for bit; the terrain's water is blended in an order
        // that is not deterministic between chunks, so the frame is held to the golden-image
        // thresholds rather than to every bit.
        let after = renderer.read_image().unwrap();
        let difference = common::flip(&before, &after);
        assert!(difference.passes(), "{}: the picture changed: {difference}", gpu.summary);
        // Streaming carries on into the recovered renderer.
        let away = Vec3::new(400.0, 120.0, 16.0);
        streamer.settle(away, &mut renderer).expect("streams after recovery");
        renderer.settle(&Camera::look_at(away, away + Vec3::new(40.0, -50.0, 30.0))).expect("frame");
    }
}

/// The headless commands' paths on a lost device: `profile --soak` (which needs no timestamps,
/// so it runs on GL too) and a session filled as `render` and `stats` fill theirs, each ending
/// with `GpuError::DeviceLost`, one line, instead of a panic or a hang.
#[test]
fn headless_work_on_a_lost_device_fails_with_one_line() {
    use voxgpu::cli::CliError;
    use voxgpu::session::{Residency, Session};
    for gpu in common::gpu_contexts() {
        let lost = pair(&gpu);
        lost.device.destroy();
        let _ = lost.device.poll(wgpu::PollType::wait_indefinitely());
        let args = common::profile_args("--soak 1 --width 32 --height 32 --seed 7 --view-distance 2");
        let err = voxgpu::cli::soak::run(&lost, &args, 1).expect_err("a lost device");
        assert!(matches!(err, CliError::Gpu(GpuError::DeviceLost(_))), "{}: {err:?}", gpu.summary);
        assert_eq!(err.to_string().lines().count(), 1, "{err}");

        let mut session =
            Session::open(&lost, args.world.config(), Residency::WholeWhereExact, (None, None), |fog| {
                RendererOptions::new(32, 32, fog)
            })
            .expect("opening records no GPU work");
        let err =
            session.fill().and_then(|()| Ok(session.renderer.settle(&session.camera)?)).expect_err("lost");
        assert!(err.to_string().contains("GPU device lost") && err.to_string().lines().count() == 1, "{err}");
    }
}

/// A frame recorded into the caller's encoder with edits, a removal and a newcomer, and the
/// encoder dropped unsubmitted: the next `prepare` names the missing submission once, and the
/// renderer goes on to hold every one of those changes (and one made after the drop) exactly,
/// node for node, as a renderer given the final world from the start.
#[test]
fn a_dropped_frame_encoder_loses_no_upload_and_the_next_prepare_names_it() {
    use voxgpu::gpu::{COLOR_FORMAT, DEPTH_FORMAT, Renderer, Targets};
    use voxgpu::voxel::ChunkPos;
    let world = common::opaque_terrain(SEED, VIEW);
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
        lod: voxgpu::lod::LodSettings::OFF,
        color_format: COLOR_FORMAT,
        ..RendererOptions::new(48, 32, 300.0)
    };
    for gpu in common::gpu_contexts() {
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

        let got = r.read_meshes().expect("meshes");
        assert_eq!(got.len(), expected.len(), "{}: resident nodes", gpu.summary);
        for m in &got {
            assert!(
                common::as_set(&m.mesh) == common::as_set(&voxgpu::mesh::mesh_world_chunk(&expected, m.pos)),
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
    r: voxgpu::gpu::Renderer,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
}

impl CallerFrames {
    fn new(gpu: &GpuContext, world: &World, options: RendererOptions) -> Self {
        use voxgpu::gpu::{COLOR_FORMAT, DEPTH_FORMAT, Renderer};
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
        let targets = voxgpu::gpu::Targets { color: &self.color, depth: &self.depth, clear: true };
        self.r.record(&mut encoder, &targets).expect("record");
        encoder
    }

    fn settle(&mut self, camera: &Camera) {
        let targets = voxgpu::gpu::Targets { color: &self.color, depth: &self.depth, clear: true };
        self.r.settle(camera, &targets).expect("settles");
    }

    /// Every chunk's mips and its mesh at the level the GPU chose equal the CPU twins' of `world`.
    fn assert_lod_meshes(&self, gpu: &GpuContext, world: &World, when: &str) {
        use voxgpu::voxel::{MIP_LEVELS, MipPyramid};
        let levels: HashMap<_, _> = self.r.read_levels().expect("levels").into_iter().collect();
        let pyramids: HashMap<_, _> = world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
        for (pos, pyramid) in &pyramids {
            let got = self.r.read_mips(*pos).expect("readback").expect("resident");
            for level in 1..=MIP_LEVELS {
                assert!(
                    got[level - 1] == pyramid.level(level),
                    "{} {when}: {pos:?} mip {level}",
                    gpu.summary
                );
            }
        }
        let meshes = self.r.read_meshes().expect("meshes");
        assert_eq!(meshes.len(), world.len(), "{} {when}: resident nodes", gpu.summary);
        for m in &meshes {
            let cpu =
                voxgpu::mesh::mesh_world_chunk_lod(world, m.pos, &|p| &pyramids[&p], &|p| levels[&p], true);
            assert!(
                common::as_set(&m.mesh) == common::as_set(&cpu),
                "{} {when}: {:?} at level {}: the mesh is not the twin's",
                gpu.summary,
                m.pos,
                levels[&m.pos]
            );
        }
    }
}

fn lod_options() -> RendererOptions {
    RendererOptions {
        lod: voxgpu::lod::LodSettings::default().with_first_distance(24.0).expect("a distance LOD"),
        ..RendererOptions::new(48, 32, 1000.0)
    }
}

/// An 8³ block inside `pos` (off its border layers) flipped between air and brick, in `world` and
/// through `r`: it changes the chunk's mips at every level.
fn flip_inside(r: &mut voxgpu::gpu::Renderer, world: &mut World, pos: voxgpu::voxel::ChunkPos) {
    for i in 0..512 {
        let at = pos.origin() + IVec3::new(12 + i % 8, 12 + i / 8 % 8, 12 + i / 64);
        let block = if world.block(at).is_air() { ids::BRICK } else { BlockId::AIR };
        world.set_block(at, block);
        r.set_block(at, block).expect("edit");
    }
}

/// A chunk drawn at a coarse mip, with a resident face neighbour: its position and the
/// neighbour's block next to their shared face.
fn coarse_chunk_and_border(r: &voxgpu::gpu::Renderer, world: &World) -> (voxgpu::voxel::ChunkPos, IVec3) {
    for (pos, level) in r.read_levels().expect("levels") {
        if level == 0 {
            continue;
        }
        for face in voxgpu::mesh::Face::ALL {
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
    let world = common::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-70.0, 110.0, -70.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in common::gpu_contexts() {
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
    use voxgpu::mesh::mesh_world_chunk;
    use voxgpu::voxel::ChunkPos;
    let world = common::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-30.0, 120.0, -30.0), Vec3::new(32.0, 40.0, 32.0));
    let positions = world.sorted_positions();
    let departed =
        *positions.iter().find(|p| mesh_world_chunk(&world, **p).quad_count() > 0).expect("a chunk");
    let newcomer = ChunkPos::new(9, 0, 9);
    let options = RendererOptions {
        lod: voxgpu::lod::LodSettings::OFF,
        max_meshes_per_frame: 1,
        ..RendererOptions::new(48, 32, 300.0)
    };
    for gpu in common::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, options.clone());
        f.settle(&camera);
        let departed_quads = common::as_set(&mesh_world_chunk(&world, departed));
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
            for m in f.r.read_meshes().expect("meshes") {
                let quads = common::as_set(&m.mesh);
                assert!(m.pos != departed, "the departed chunk is gone");
                assert!(
                    quads.is_empty() || quads != departed_quads,
                    "{} frame {frame}: {:?} shows the departed chunk's quads",
                    gpu.summary,
                    m.pos
                );
                if m.pos == newcomer {
                    assert!(
                        quads.is_empty() || quads == common::as_set(&mesh_world_chunk(&expected, newcomer)),
                        "{} frame {frame}: the newcomer is empty or right",
                        gpu.summary
                    );
                }
            }
        }
        f.settle(&camera);
        for m in f.r.read_meshes().expect("meshes") {
            assert!(
                common::as_set(&m.mesh) == common::as_set(&mesh_world_chunk(&expected, m.pos)),
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
    use voxgpu::voxel::ChunkPos;
    let world = common::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-70.0, 110.0, -70.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in common::gpu_contexts() {
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
    let world = common::opaque_terrain(SEED, VIEW);
    let camera = Camera::look_at(Vec3::new(-30.0, 120.0, -30.0), Vec3::new(32.0, 40.0, 32.0));
    for gpu in common::gpu_contexts() {
        let mut f = CallerFrames::new(&gpu, &world, lod_options());
        f.settle(&camera);
        f.r.set_profiling(true).expect("timestamps");
        f.r.flush_timings().expect("flush");
        f.r.take_timings();
        drop(f.record(&gpu, &camera));
        assert!(matches!(f.r.prepare(&camera), Err(GpuError::FrameNotSubmitted)));
        for _ in 0..2 {
            let encoder = f.record(&gpu, &camera);
            gpu.queue.submit([encoder.finish()]);
            f.r.frame_submitted();
            f.r.flush_timings().expect("flush");
        }
        let frames = f.r.take_timings();
        assert_eq!(frames.len(), 2, "{}: frames with timings", gpu.summary);
    }
}
