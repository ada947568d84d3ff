//! The engine's public API fuzzed on every adapter: random sequences of node inserts and
//! removals, block edits, column readiness, frames (`render`, or `prepare`, `record`, submit and
//! `frame_submitted` by hand, in and out of order), picking, settling, resizes and recovery, with
//! cameras that are fine, far (10⁷ and 10³⁰ blocks out) or broken (NaN, infinite, eye on target,
//! straight up or down, zero field of view or near plane). Every call must return what a model
//! of the API predicts, with no panic and no wgpu error; at the end, settled under a good
//! camera, the LOD pass's choices equal the CPU twin's and every node's GPU mesh equals the CPU
//! mesher's, quad for quad.
//!
//! `VOXGPU_FUZZ_CASES=N` runs `N` cases per adapter instead of the default 128; the seed is fixed
//! (`VOXGPU_FUZZ_SEED` changes it), so a failure reproduces, and proptest shrinks it to a
//! minimal call sequence printed with the failure.
//!
//! The calls and how they are drawn are in `ops.rs`, the model in `model.rs`, and the harness
//! that applies each call to the renderer and the model in `harness.rs`.

use voxgpu_test_kit as kit;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use glam::Vec3;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestError, TestRunner};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::{NodeState, Readiness, node_distance, select_nodes};
use voxgpu_core::mesh::{ChunkMesh, Face, mesh_world_chunk_lod};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockRegistry, ChunkPos, MipPyramid, NodeKey, World};
use voxgpu_engine::{GpuContext, GpuError, Offscreen, RendererOptions, Targets};

use harness::{Harness, Tally, depth_target};
use kit::WgpuErrors;
use model::{Model, Refusal};
use ops::{Fill, Op, Setup, TOP, op, setup};

mod harness;
mod model;
mod ops;

/// Cases per adapter in a plain `cargo test`: about half a minute on lavapipe or llvmpipe in a
/// debug build on a 2-core machine.
const DEFAULT_CASES: u32 = 128;
/// Calls per case at most.
const MAX_OPS: usize = 28;
const DEFAULT_SEED: u64 = 0x5EED_F0CC_A11D_0001;

/// A frame call's result as the model predicts them; any other error fails the case.
fn refusal<T>(result: Result<T, GpuError>) -> Result<Result<(), Refusal>, TestCaseError> {
    match result {
        Ok(_) => Ok(Ok(())),
        Err(GpuError::InvalidCamera) => Ok(Err(Refusal::InvalidCamera)),
        Err(GpuError::NotPrepared) => Ok(Err(Refusal::NotPrepared)),
        Err(GpuError::FrameNotSubmitted) => Ok(Err(Refusal::FrameNotSubmitted)),
        Err(e) => Err(fail(e)),
    }
}

fn fail(e: GpuError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// A camera over the fuzz's world, whose LOD choices the final check compares.
fn good_camera() -> Camera {
    Camera::look_at(Vec3::new(-52.3, 97.1, -61.7), Vec3::new(20.0, 16.0, 32.0))
}

/// Settles under a good camera, then checks the renderer against the model: its CPU nodes, the
/// LOD pass's choices against the twin's (stepped from the GPU's own state before the frame, so
/// hysteresis agrees, borderline distances skipped), and every node's mesh against the CPU
/// mesher's over the drawn nodes of its level at the GPU's mip levels.
fn check_settled(h: &mut Harness, model: &Model, setup: &Setup) -> Result<(), TestCaseError> {
    let camera = good_camera();
    h.r.resize(64, 48).map_err(fail)?;
    if model.unconfirmed {
        let refused = refusal(h.r.settle(&camera))?;
        prop_assert_eq!(
            refused,
            Err(Refusal::FrameNotSubmitted),
            "the first settle after an unconfirmed frame"
        );
    }
    h.r.settle(&camera).map_err(fail)?;
    h.no_wgpu_error(&"the settling frames")?;
    for (key, chunk) in &model.nodes {
        prop_assert!(h.r.resident().node(*key).is_some_and(|c| **c == *chunk), "{key:?} differs on the CPU");
    }
    prop_assert_eq!(h.r.resident().len(), model.nodes.len());

    let before: HashMap<NodeKey, NodeState> =
        h.r.inspect()
            .nodes()
            .map_err(fail)?
            .iter()
            .map(|n| (n.key, NodeState { split: Some(n.split), mip: n.mip, shown: n.shown, fade: n.fade }))
            .collect();
    let settings = setup.lod();
    let readiness: HashMap<NodeKey, Readiness> =
        model.nodes.keys().map(|k| (*k, model.readiness(*k))).collect();
    let mut expected = before.clone();
    select_nodes(&settings, camera.eye, &readiness, &mut expected);
    h.r.settle(&camera).map_err(fail)?;
    let states = h.r.inspect().nodes().map_err(fail)?;
    prop_assert_eq!(
        states.iter().map(|n| n.key).collect::<Vec<_>>(),
        model.nodes.keys().copied().collect::<Vec<_>>(),
        "resident nodes on the GPU"
    );
    let near_edge = |key: NodeKey| settings.is_borderline(node_distance(key, camera.eye), 1e-5);
    for n in states.iter().filter(|n| !near_edge(n.key) && !near_edge(n.key.parent())) {
        let want = expected[&n.key];
        prop_assert_eq!(
            (n.split, n.shown, n.mip),
            (want.split == Some(true), want.shown, want.mip),
            "LOD choice of {:?}",
            n.key
        );
    }

    let states: HashMap<NodeKey, _> = states.into_iter().map(|n| (n.key, n)).collect();
    let meshes = h.r.inspect().meshes().map_err(fail)?;
    h.no_wgpu_error(&"the read-backs")?;
    let registry = BlockRegistry::builtin();
    for level in 0..=TOP {
        let mut world = World::new(registry.clone());
        for (key, node) in model.nodes.iter().filter(|(k, _)| k.level == level && states[*k].shown) {
            world.insert(ChunkPos(key.pos), node.clone());
        }
        let pyramids: HashMap<ChunkPos, MipPyramid> =
            world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
        let mip = |p: ChunkPos| states[&NodeKey::new(level, p.0)].mip;
        for m in meshes.iter().filter(|m| m.key.level == level) {
            let state = &states[&m.key];
            let cpu = if state.shown {
                mesh_world_chunk_lod(&world, m.pos, &|p| &pyramids[&p], &mip, setup.ambient_occlusion)
            } else {
                ChunkMesh::default()
            };
            let (got, want) = (kit::as_set(&m.mesh), kit::as_set(&cpu));
            prop_assert!(
                got == want,
                "{:?} (shown {}, mip {}): {} quads on the GPU, {} on the CPU; GPU only {:?}, CPU only {:?}",
                m.key,
                state.shown,
                state.mip,
                got.len(),
                want.len(),
                got.difference(&want).take(3).map(|q| q.2.unpack()).collect::<Vec<_>>(),
                want.difference(&got).take(3).map(|q| q.2.unpack()).collect::<Vec<_>>()
            );
            for face in Face::ALL {
                prop_assert_eq!(
                    m.bounds[face as usize],
                    cpu.face_bounds(face),
                    "{:?} {:?}: bounds",
                    m.key,
                    face
                );
            }
            if state.shown {
                prop_assert_eq!(m.level, level + state.mip, "{:?}: its quads' scale", m.key);
            }
            if !want.is_empty() {
                Tally::bump(&h.tally.meshes);
            }
        }
    }
    Ok(())
}

/// The device the cases of one adapter share, so each case does not compile every pipeline
/// again (`GpuContext::pipelines`): most of a case's time on the software adapters when each
/// case opened a device of its own. `None` until the first case opens it. A case takes it out
/// while it runs and puts it back only when it passed and left it alive, so the case after a
/// failure or a panic (a shrunk one) starts on a fresh device. A failure that depends on what
/// earlier passing cases left on the device may then not reproduce in its shrunk case.
type SharedDevice = std::cell::RefCell<Option<Rc<GpuContext>>>;

/// One case on the shared device (opened if there is none): a fresh renderer, the calls, then
/// the settled check.
fn run_case(
    base: &GpuContext,
    shared: &SharedDevice,
    setup: &Setup,
    ops: &[Op],
    tally: &Tally,
) -> Result<(), TestCaseError> {
    let taken = shared.borrow_mut().take();
    let gpu = match taken {
        Some(gpu) => gpu,
        None => Rc::new(GpuContext::from_adapter(base.adapter.clone()).map_err(fail)?),
    };
    let result = run_case_on(Rc::clone(&gpu), setup, ops, tally);
    let lost = gpu.lost.lock().unwrap_or_else(|e| e.into_inner()).is_some();
    if result.is_ok() && !lost {
        *shared.borrow_mut() = Some(gpu);
    }
    result
}

fn run_case_on(gpu: Rc<GpuContext>, setup: &Setup, ops: &[Op], tally: &Tally) -> Result<(), TestCaseError> {
    // The watch replaces the device's handler, so errors of this case alone reach it.
    let errors = WgpuErrors::default();
    errors.watch(&gpu.device);
    let options = setup.options(&gpu);
    let r = Offscreen::new(&gpu, options, &BlockRegistry::builtin()).map_err(fail)?;
    let max_side = r.inspect().device().limits().max_texture_dimension_2d.min(16384);
    let mut model = Model {
        nodes: BTreeMap::new(),
        ready: HashSet::new(),
        size: r.options().size(),
        max_side,
        prepared: false,
        unconfirmed: false,
        confirmed: 0,
    };
    let depth = depth_target(&r);
    let mut h = Harness { gpu, errors, r, depth, tally: Tally::default() };
    for op in ops {
        h.apply(&mut model, op)?;
    }
    check_settled(&mut h, &model, setup)?;
    tally.add(&h.tally);
    Ok(())
}

fn cases() -> u32 {
    std::env::var("VOXGPU_FUZZ_CASES")
        .map_or(DEFAULT_CASES, |v| v.parse().expect("VOXGPU_FUZZ_CASES: a count"))
}

fn seed() -> u64 {
    std::env::var("VOXGPU_FUZZ_SEED").map_or(DEFAULT_SEED, |v| v.parse().expect("VOXGPU_FUZZ_SEED: a u64"))
}

#[test]
fn random_call_sequences_keep_the_renderer_equal_to_its_model_and_twins() {
    for base in kit::gpu_contexts() {
        // The largest target side the renderer takes on this adapter (the renderer's own cap is
        // 16384), for the resize strategy.
        let max_side = base.device.limits().max_texture_dimension_2d.min(16384);
        let config = Config {
            cases: cases(),
            rng_algorithm: RngAlgorithm::ChaCha,
            rng_seed: RngSeed::Fixed(seed()),
            failure_persistence: None,
            max_shrink_iters: 400,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let strategy = (setup(), prop::collection::vec(op(max_side), 1..=MAX_OPS));
        let tally = Tally::default();
        let shared = SharedDevice::default();
        let result = runner.run(&strategy, |(setup, ops)| run_case(&base, &shared, &setup, &ops, &tally));
        let counts = tally.all();
        eprintln!(
            "{}: {} cases; frames drawn {}, refused for the camera {}, not prepared {}, not \
             submitted {}; sizes refused {}; picks hit {}; recoveries {}; meshes compared {}",
            base.summary,
            cases(),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            counts[5],
            counts[6],
            counts[7]
        );
        match result {
            Ok(()) => {}
            Err(TestError::Fail(reason, (setup, ops))) => {
                panic!("{}: {reason}\nminimal case (seed {:#x}):\n{setup:?}\n{ops:#?}", base.summary, seed())
            }
            Err(e) => panic!("{}: {e}", base.summary),
        }
        // Each outcome is common enough that the default run meets every one many times.
        if cases() >= DEFAULT_CASES {
            assert!(counts.iter().all(|&n| n > 0), "{}: an outcome never happened: {counts:?}", base.summary);
        } else {
            eprintln!("fewer than {DEFAULT_CASES} cases: not checked that every outcome happened");
        }
    }
}

/// The watch the fuzz relies on sees a wgpu validation error (a buffer both mappable and
/// storage, which no device without `MAPPABLE_PRIMARY_BUFFERS` allows) instead of losing it.
#[test]
fn the_error_watch_sees_a_validation_error() {
    // Devices of its own: the watch replaces the device's error handler.
    for gpu in kit::own_gpu_contexts() {
        let errors = WgpuErrors::default();
        errors.watch(&gpu.device);
        assert!(errors.take().is_empty());
        let _buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("api_fuzz.invalid"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let seen = errors.take();
        assert_eq!(seen.len(), 1, "{}: {seen:?}", gpu.summary);
        assert!(seen[0].contains("Validation") || seen[0].contains("usage"), "{}: {seen:?}", gpu.summary);
    }
}

/// A refused camera changes nothing: `record` after it fails with `NotPrepared`, or records the
/// frame an earlier `prepare` set up, pixel for pixel the frame of that good camera; a frozen
/// culling camera that is not finite is refused too; a camera 10⁷ blocks out draws, and picks
/// nothing, as does a camera that is not finite.
#[test]
fn a_refused_camera_changes_nothing_and_the_last_good_one_stays() {
    use kit::ReadImage;
    let mut world = World::new(BlockRegistry::builtin());
    world.insert(ChunkPos::new(0, 0, 0), Fill::Floor { height: 6, block: ids::STONE }.chunk());
    world.insert(ChunkPos::new(1, 0, 0), Fill::Checker { height: 3, block: ids::GLASS }.chunk());
    let good = good_camera();
    let nan = f32::NAN;
    let bad = [
        Camera::look_at(Vec3::new(nan, 50.0, 0.0), Vec3::ZERO),
        Camera::look_at(good.eye, Vec3::new(0.0, f32::INFINITY, 0.0)),
        Camera { fov_y_degrees: 0.0, ..good },
        Camera { fov_y_degrees: nan, ..good },
        Camera { near: 0.0, ..good },
        Camera { near: f32::NEG_INFINITY, ..good },
    ];
    // Devices of its own: the watch replaces the device's error handler.
    for gpu in kit::own_gpu_contexts() {
        let errors = WgpuErrors::default();
        errors.watch(&gpu.device);
        let mut r = kit::renderer(&gpu, &world, RendererOptions::new(48, 32, 300.0));
        let depth = depth_target(&r);
        r.settle(&good).expect("settles");
        let before = r.read_image().expect("pixels");
        let record = |r: &mut Offscreen| {
            let color = r.color_view();
            let mut encoder = r.inspect().device().create_command_encoder(&Default::default());
            let stats = r.record(&mut encoder, &Targets { color: &color, depth: &depth, clear: true });
            stats.map(|_| encoder)
        };
        for camera in &bad {
            assert!(matches!(r.prepare(camera), Err(GpuError::InvalidCamera)), "{camera:?}");
            assert!(matches!(record(&mut r), Err(GpuError::NotPrepared)), "{camera:?}");
            assert_eq!(r.pick(camera, 100.0), None, "{camera:?} picks");
        }
        r.prepare(&good).expect("a good camera");
        for camera in &bad {
            assert!(matches!(r.prepare(camera), Err(GpuError::InvalidCamera)), "{camera:?}");
        }
        let encoder = record(&mut r).expect("the good camera's frame");
        r.inspect().queue().submit([encoder.finish()]);
        r.frame_submitted();
        assert!(r.read_image().expect("pixels") == before, "{}: the frame after refusals", gpu.summary);

        r.set_culling(voxgpu_engine::Culling { frozen: Some(bad[0]), ..voxgpu_engine::Culling::ALL });
        assert!(matches!(r.render(&good), Err(GpuError::InvalidCamera)), "a frozen culling camera of NaN");
        r.set_culling(voxgpu_engine::Culling::ALL);
        let shift = Vec3::splat(1.0e7);
        let far = Camera::look_at(good.eye + shift, good.target + shift);
        r.settle(&far).expect("a camera 10^7 blocks out");
        assert_eq!(r.pick(&far, 1000.0), None);
        r.settle(&good).expect("back");
        assert!(r.read_image().expect("pixels") == before, "{}: back from far away", gpu.summary);
        assert_eq!(errors.take(), Vec::<String>::new(), "{}", gpu.summary);
    }
}
