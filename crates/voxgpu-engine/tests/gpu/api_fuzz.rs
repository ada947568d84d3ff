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

use voxgpu_test_kit as kit;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use glam::{IVec2, IVec3, Vec3};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestError, TestRunner};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::{LodSettings, NodeState, Readiness, node_distance, select_nodes};
use voxgpu_core::mesh::{ChunkMesh, Face, mesh_world_chunk_lod};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{
    BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, MAX_NODE_LEVEL, MipPyramid, NodeColumn, NodeKey,
    World, cell_block, octant, raycast,
};
use voxgpu_engine::{DrawSubmission, GpuContext, GpuError, Offscreen, RendererOptions, Targets};

use kit::WgpuErrors;

/// Cases per adapter in a plain `cargo test`: about a minute on lavapipe or llvmpipe in a debug
/// build.
const DEFAULT_CASES: u32 = 128;
/// Calls per case at most.
const MAX_OPS: usize = 28;
const DEFAULT_SEED: u64 = 0x5EED_F0CC_A11D_0001;

/// Levels of the nodes the fuzz inserts: chunks, and nodes of 2 and 4 blocks per cell.
const TOP: u32 = 2;

/// Blocks the fuzz places: opaque, transparent (water, glass), and an id the registry does not
/// know. The first is what shrinking picks.
const BLOCKS: [BlockId; 6] = [ids::STONE, ids::GRASS, ids::WATER, ids::GLASS, ids::LEAVES, BlockId(999)];

/// What a node inserted by the fuzz holds: a few shapes, cheap to build and to mesh.
#[derive(Clone, Copy, Debug)]
enum Fill {
    /// All air: an insert of it is a removal.
    Empty,
    /// The lowest `height` layers.
    Floor { height: u8, block: BlockId },
    /// Every other cell of the lowest `height` layers: the mesher's worst case.
    Checker { height: u8, block: BlockId },
    /// `count` cells at places drawn from `seed`.
    Scatter { seed: u64, count: u8, block: BlockId },
    /// Every cell.
    Full { block: BlockId },
}

impl Fill {
    fn chunk(self) -> Chunk {
        let mut c = Chunk::empty();
        let n = CHUNK_SIZE;
        match self {
            Fill::Empty => {}
            Fill::Floor { height, block } => {
                for (i, v) in c.voxels_mut().iter_mut().enumerate() {
                    if (i / n % n) < height as usize {
                        *v = block;
                    }
                }
            }
            Fill::Checker { height, block } => {
                for (i, v) in c.voxels_mut().iter_mut().enumerate() {
                    let (x, y, z) = (i % n, i / n % n, i / (n * n));
                    if y < height as usize && (x + y + z) % 2 == 0 {
                        *v = block;
                    }
                }
            }
            Fill::Scatter { seed, count, block } => {
                let mut rng = kit::Rng(seed);
                for _ in 0..count {
                    let [x, y, z] = [0; 3].map(|_| rng.below(n as u64) as usize);
                    c.set(x, y, z, block);
                }
            }
            Fill::Full { block } => c.voxels_mut().fill(block),
        }
        c
    }
}

/// Where a camera looks.
#[derive(Clone, Copy, Debug)]
enum Look {
    At([f32; 3]),
    /// At its own eye (degenerate: `Camera::forward` falls back to −Z).
    Itself,
    /// Straight up, at a point this far above.
    Up(f32),
    /// Straight down.
    Down(f32),
}

#[derive(Clone, Copy, Debug)]
struct CameraSpec {
    eye: [f32; 3],
    look: Look,
    fov: f32,
    near: f32,
}

impl CameraSpec {
    fn camera(self) -> Camera {
        let eye = Vec3::from(self.eye);
        let target = match self.look {
            Look::At(t) => Vec3::from(t),
            Look::Itself => eye,
            Look::Up(d) => eye + Vec3::Y * d,
            Look::Down(d) => eye - Vec3::Y * d,
        };
        Camera { eye, target, fov_y_degrees: self.fov, near: self.near }
    }
}

/// How a frame is driven.
#[derive(Clone, Copy, Debug)]
enum Drive {
    /// `render` (prepare, record, submit, `frame_submitted`).
    Render,
    /// `prepare`, then `record` into the caller's encoder whatever `prepare` said, then `after`.
    ByHand { clear: bool, after: After },
    /// `prepare` alone: its frame is never recorded.
    PrepareOnly,
    /// `record` with no `prepare` of its own, submitted and confirmed.
    RecordOnly,
}

/// What the caller does with a recorded encoder.
#[derive(Clone, Copy, Debug)]
enum After {
    /// Submits it and calls `frame_submitted`.
    Confirm,
    /// Submits it and forgets `frame_submitted` (the next `prepare` reports it).
    Submit,
    /// Drops it unsubmitted (the next `prepare` reports it and queues its uploads again).
    Drop,
}

/// The refusals a frame call may answer with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Refusal {
    InvalidCamera,
    NotPrepared,
    FrameNotSubmitted,
}

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

#[derive(Clone, Copy, Debug)]
enum Op {
    InsertChunk {
        pos: [i32; 3],
        fill: Fill,
    },
    InsertNode {
        level: u32,
        pos: [i32; 3],
        fill: Fill,
    },
    RemoveChunk {
        pos: [i32; 3],
    },
    SetBlock {
        at: [i32; 3],
        block: BlockId,
    },
    ColumnReady {
        level: u32,
        xz: [i32; 2],
        ready: bool,
    },
    Frame {
        camera: CameraSpec,
        drive: Drive,
    },
    Pick {
        camera: CameraSpec,
        max_distance: f32,
    },
    Settle {
        camera: CameraSpec,
    },
    Resize {
        width: u32,
        height: u32,
    },
    /// `Offscreen::recover`, on the same device or a new one on the same adapter.
    Recover {
        new_device: bool,
    },
}

/// How a case's renderer is set up.
#[derive(Clone, Copy, Debug)]
struct Setup {
    ambient_occlusion: bool,
    /// `None`: LOD off.
    first_distance: Option<f32>,
    max_meshes_per_frame: u32,
    initial_quad_pages: u32,
    /// Taken when the device can do it, else the device's default.
    submission: Option<DrawSubmission>,
}

impl Setup {
    fn lod(&self) -> LodSettings {
        self.first_distance.map_or(LodSettings::OFF, |d| {
            LodSettings::default().with_first_distance(d).expect("a distance in range")
        })
    }

    fn options(&self, gpu: &GpuContext) -> RendererOptions {
        RendererOptions {
            lod: self.lod(),
            ambient_occlusion: self.ambient_occlusion,
            max_meshes_per_frame: self.max_meshes_per_frame,
            initial_quad_pages: self.initial_quad_pages,
            draw_submission: self.submission.filter(|s| s.is_supported(gpu.caps)),
            ..RendererOptions::new(48, 32, 300.0)
        }
    }
}

fn block() -> impl Strategy<Value = BlockId> {
    prop::sample::select(BLOCKS.to_vec())
}

fn fill() -> impl Strategy<Value = Fill> {
    prop_oneof![
        1 => Just(Fill::Empty),
        3 => (1u8..=32, block()).prop_map(|(height, block)| Fill::Floor { height, block }),
        1 => (1u8..=6, block()).prop_map(|(height, block)| Fill::Checker { height, block }),
        3 => (any::<u64>(), 1u8..=64, block()).prop_map(|(seed, count, block)| Fill::Scatter { seed, count, block }),
        1 => block().prop_map(|block| Fill::Full { block }),
    ]
}

/// A coordinate of a good camera: around the fuzz's world (blocks −64..96).
fn near_coordinate() -> impl Strategy<Value = f32> + Clone {
    -100.0f32..180.0
}

/// Any coordinate: near the world, far (finite), or not finite.
fn wild_coordinate() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        10 => near_coordinate(),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(1.0e7),
        1 => Just(-1.0e7),
        1 => Just(1.0e7 + 16.5),
        1 => Just(1.0e30),
        1 => Just(-1.0e30),
        1 => Just(f32::MAX),
    ]
}

fn vec3(c: impl Strategy<Value = f32> + Clone) -> impl Strategy<Value = [f32; 3]> {
    [c.clone(), c.clone(), c]
}

fn camera() -> impl Strategy<Value = CameraSpec> {
    let good = (vec3(near_coordinate()), vec3(near_coordinate())).prop_map(|(eye, target)| CameraSpec {
        eye,
        look: Look::At(target),
        fov: 70.0,
        near: 0.1,
    });
    let look = prop_oneof![
        4 => vec3(wild_coordinate()).prop_map(Look::At),
        1 => Just(Look::Itself),
        1 => (0.0f32..100.0).prop_map(Look::Up),
        1 => (0.0f32..100.0).prop_map(Look::Down),
    ];
    let fov = prop_oneof![
        4 => Just(70.0f32),
        2 => 1.0f32..179.0,
        1 => Just(0.0),
        1 => Just(180.0),
        1 => Just(-70.0),
        1 => Just(360.0),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
    ];
    let near = prop_oneof![
        4 => Just(0.1f32),
        2 => 0.001f32..10.0,
        1 => Just(0.0),
        1 => Just(-1.0),
        1 => Just(1.0e30),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
    ];
    let wild = (vec3(wild_coordinate()), look, fov, near).prop_map(|(eye, look, fov, near)| CameraSpec {
        eye,
        look,
        fov,
        near,
    });
    prop_oneof![3 => good, 2 => wild]
}

/// Sides in pixels: 0 (refused), small, the largest allowed, one past it (refused).
fn side(max: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 1u32..=80,
        1 => Just(0),
        1 => Just(max),
        1 => Just(max + 1),
    ]
}

fn op(max_side: u32) -> impl Strategy<Value = Op> {
    let chunk_pos = [-1i32..=1, 0i32..=1, 0i32..=1];
    let drive = prop_oneof![
        3 => Just(Drive::Render),
        4 => (any::<bool>(), prop_oneof![3 => Just(After::Confirm), 1 => Just(After::Submit), 1 => Just(After::Drop)])
            .prop_map(|(clear, after)| Drive::ByHand { clear, after }),
        1 => Just(Drive::PrepareOnly),
        1 => Just(Drive::RecordOnly),
    ];
    let max_distance = prop_oneof![
        6 => 0.0f32..300.0,
        1 => Just(-1.0),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(1.0e30),
    ];
    let size = prop_oneof![
        6 => (side(max_side), side(max_side)),
        // The largest side with a small other: the texture limit without gigabytes of target.
        1 => (Just(max_side), 1u32..=4),
        1 => (1u32..=4, Just(max_side)),
        1 => Just((1024, 1024)),
    ];
    prop_oneof![
        4 => (chunk_pos.clone(), fill()).prop_map(|(pos, fill)| Op::InsertChunk { pos, fill }),
        2 => (1u32..=TOP, [-1i32..=0, 0i32..=0, 0i32..=0], fill())
            .prop_map(|(level, pos, fill)| Op::InsertNode { level, pos, fill }),
        2 => chunk_pos.prop_map(|pos| Op::RemoveChunk { pos }),
        5 => ([-40i32..72, -4i32..68, -4i32..68], block()).prop_map(|(at, block)| Op::SetBlock { at, block }),
        1 => ([-40i32..72, -4i32..68, -4i32..68]).prop_map(|at| Op::SetBlock { at, block: BlockId::AIR }),
        3 => (0u32..=TOP, [-2i32..=1, -1i32..=1], any::<bool>())
            .prop_map(|(level, xz, ready)| Op::ColumnReady { level, xz, ready }),
        7 => (camera(), drive).prop_map(|(camera, drive)| Op::Frame { camera, drive }),
        2 => (camera(), max_distance).prop_map(|(camera, max_distance)| Op::Pick { camera, max_distance }),
        1 => camera().prop_map(|camera| Op::Settle { camera }),
        2 => size.prop_map(|(width, height)| Op::Resize { width, height }),
        1 => any::<bool>().prop_map(|new_device| Op::Recover { new_device }),
    ]
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        any::<bool>(),
        prop_oneof![Just(Some(24.0f32)), Just(None), Just(Some(48.0)), Just(Some(128.0))],
        prop_oneof![Just(4096u32), Just(3)],
        prop_oneof![Just(4096u32), Just(1)],
        prop_oneof![
            Just(None),
            Just(Some(DrawSubmission::CappedIndirect)),
            Just(Some(DrawSubmission::Instanced))
        ],
    )
        .prop_map(
            |(ambient_occlusion, first_distance, max_meshes_per_frame, initial_quad_pages, submission)| {
                Setup {
                    ambient_occlusion,
                    first_distance,
                    max_meshes_per_frame,
                    initial_quad_pages,
                    submission,
                }
            },
        )
}

/// What the renderer holds, as the API's documentation says each call changes it: the nodes
/// (with the ancestor updates of `set_block`), the complete columns, the frame's size, and
/// whether a prepared frame waits to be recorded.
struct Model {
    nodes: BTreeMap<NodeKey, Chunk>,
    ready: HashSet<NodeColumn>,
    size: (u32, u32),
    max_side: u32,
    /// A `prepare` succeeded whose frame was not recorded yet.
    prepared: bool,
    /// The frame recorded last was not confirmed with `frame_submitted`.
    unconfirmed: bool,
    /// Frames recorded, submitted and confirmed.
    confirmed: u64,
}

impl Model {
    fn insert(&mut self, key: NodeKey, chunk: Chunk) {
        if chunk.is_empty() {
            self.nodes.remove(&key);
        } else {
            self.nodes.insert(key, chunk);
        }
    }

    fn cell(&self, key: NodeKey, at: IVec3) -> BlockId {
        self.nodes.get(&key).map_or(BlockId::AIR, |c| c.get(at.x as usize, at.y as usize, at.z as usize))
    }

    fn block(&self, world: IVec3) -> BlockId {
        let (pos, local) = ChunkPos::from_block(world);
        self.cell(NodeKey::chunk(pos), local)
    }

    fn set_block(&mut self, world: IVec3, block: BlockId) {
        let (pos, local) = ChunkPos::from_block(world);
        let key = NodeKey::chunk(pos);
        if !self.nodes.contains_key(&key) && block.is_air() {
            return;
        }
        let mut chunk = self.nodes.get(&key).cloned().unwrap_or_else(Chunk::empty);
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        self.insert(key, chunk);
        // Each level up, the one cell holding the block is the mip rule over the eight below,
        // while the node is resident or its column generated, and until a cell stays the same.
        let size = IVec3::splat(CHUNK_SIZE as i32);
        for level in 1..=MAX_NODE_LEVEL {
            let cell = world.div_euclid(IVec3::splat(1 << level));
            let key = NodeKey::new(level, cell.div_euclid(size));
            if !self.nodes.contains_key(&key) && !self.ready.contains(&key.column()) {
                return;
            }
            let below: [BlockId; 8] = std::array::from_fn(|i| {
                let fine = cell * 2 + octant(i);
                self.cell(NodeKey::new(level - 1, fine.div_euclid(size)), fine.rem_euclid(size))
            });
            let new = cell_block(&below);
            let local = cell.rem_euclid(size);
            if self.cell(key, local) == new {
                return;
            }
            let mut node = self.nodes.get(&key).cloned().unwrap_or_else(Chunk::empty);
            node.set(local.x as usize, local.y as usize, local.z as usize, new);
            self.insert(key, node);
        }
    }

    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        let changed = if ready { self.ready.insert(column) } else { self.ready.remove(&column) };
        if changed && !ready {
            self.nodes.retain(|key, _| key.column() != column);
        }
    }

    fn readiness(&self, key: NodeKey) -> Readiness {
        let generated = |c: NodeColumn| c.children().iter().all(|c| self.ready.contains(c));
        Readiness {
            children: key.level > 0 && generated(key.column()),
            siblings: generated(key.column().parent()),
        }
    }

    /// `prepare`: the camera is checked first, then the last frame's confirmation.
    fn prepare(&mut self, camera: &Camera) -> Result<(), Refusal> {
        if !self.camera_accepted(camera) {
            return Err(Refusal::InvalidCamera);
        }
        if std::mem::take(&mut self.unconfirmed) {
            return Err(Refusal::FrameNotSubmitted);
        }
        self.prepared = true;
        Ok(())
    }

    fn record(&mut self) -> Result<(), Refusal> {
        if std::mem::take(&mut self.prepared) { Ok(()) } else { Err(Refusal::NotPrepared) }
    }

    /// `render`, or `settle`'s first frame: `prepare`, and when it succeeds a frame recorded,
    /// submitted and confirmed.
    fn frame(&mut self, camera: &Camera) -> Result<(), Refusal> {
        self.prepare(camera)?;
        self.record()?;
        self.confirmed += 1;
        Ok(())
    }

    fn size_allowed(&self, width: u32, height: u32) -> bool {
        (1..=self.max_side).contains(&width) && (1..=self.max_side).contains(&height)
    }

    /// Whether `prepare` takes the camera: everything finite, the eye within
    /// `MAX_EYE_COORDINATE` of the origin, the view-projection and its inverse finite too.
    fn camera_accepted(&self, camera: &Camera) -> bool {
        let view_proj = camera.view_proj(self.size.0 as f32 / self.size.1 as f32);
        camera.eye.is_finite()
            && camera.eye.abs().max_element() <= voxgpu_core::camera::MAX_EYE_COORDINATE
            && camera.target.is_finite()
            && camera.fov_y_degrees.is_finite()
            && camera.near.is_finite()
            && view_proj.is_finite()
            && view_proj.inverse().is_finite()
    }
}

/// Cameras the rule must take and refuse, whatever the matrices say: plain finite views near or
/// 10⁷ blocks from the world are taken; any NaN or infinity, or a zero field of view or near
/// plane, is refused.
fn check_camera_rule(model: &Model, spec: &CameraSpec) -> Result<(), TestCaseError> {
    let c = spec.camera();
    let accepted = model.camera_accepted(&c);
    let plain = c.eye.is_finite()
        && c.target.is_finite()
        && c.eye.abs().max_element() <= 2.0e7
        && c.target.abs().max_element() <= 2.0e7
        && (1.0..=179.0).contains(&c.fov_y_degrees)
        && (0.001..=10.0).contains(&c.near);
    let broken = !c.eye.is_finite()
        || !c.target.is_finite()
        || !c.fov_y_degrees.is_finite()
        || !c.near.is_finite()
        || c.fov_y_degrees == 0.0
        || c.near == 0.0;
    prop_assert!(!plain || accepted, "a plain camera is refused: {spec:?}");
    prop_assert!(!broken || !accepted, "a broken camera is taken: {spec:?}");
    Ok(())
}

/// One case's renderer, its device and the depth target of frames recorded by hand.
struct Harness {
    gpu: GpuContext,
    errors: WgpuErrors,
    r: Offscreen,
    depth: wgpu::TextureView,
    tally: Tally,
}

/// What the passing cases exercised, so a run shows it tested something: frames drawn and
/// refused for each reason, refused sizes, picks that hit, nodes whose quads were compared.
#[derive(Default)]
struct Tally {
    frames: std::cell::Cell<u64>,
    refused: std::cell::Cell<[u64; 3]>,
    sizes_refused: std::cell::Cell<u64>,
    hits: std::cell::Cell<u64>,
    recoveries: std::cell::Cell<u64>,
    meshes: std::cell::Cell<u64>,
}

impl Tally {
    fn frame(&self, outcome: Result<(), Refusal>) {
        match outcome {
            Ok(()) => self.frames.set(self.frames.get() + 1),
            Err(r) => {
                let mut refused = self.refused.get();
                refused[r as usize] += 1;
                self.refused.set(refused);
            }
        }
    }

    fn bump(cell: &std::cell::Cell<u64>) {
        cell.set(cell.get() + 1);
    }

    fn add(&self, other: &Tally) {
        let sum = |a: &std::cell::Cell<u64>, b: &std::cell::Cell<u64>| a.set(a.get() + b.get());
        sum(&self.frames, &other.frames);
        let (mut a, b) = (self.refused.get(), other.refused.get());
        (0..3).for_each(|i| a[i] += b[i]);
        self.refused.set(a);
        sum(&self.sizes_refused, &other.sizes_refused);
        sum(&self.hits, &other.hits);
        sum(&self.recoveries, &other.recoveries);
        sum(&self.meshes, &other.meshes);
    }

    fn all(&self) -> [u64; 8] {
        let r = self.refused.get();
        [
            self.frames.get(),
            r[0],
            r[1],
            r[2],
            self.sizes_refused.get(),
            self.hits.get(),
            self.recoveries.get(),
            self.meshes.get(),
        ]
    }
}

/// A depth target of the renderer's frame size.
fn depth_target(r: &Offscreen) -> wgpu::TextureView {
    let (width, height) = r.options().size();
    voxgpu_engine::depth_target(r.inspect().device(), width, height)
}

impl Harness {
    /// Fails the case with `what` if a wgpu error was reported since the last check.
    fn no_wgpu_error(&self, what: &dyn std::fmt::Debug) -> Result<(), TestCaseError> {
        let errors = self.errors.take();
        prop_assert!(errors.is_empty(), "wgpu error after {what:?}: {errors:?}");
        Ok(())
    }

    fn record_by_hand(
        &mut self,
        clear: bool,
    ) -> (Result<voxgpu_engine::FrameStats, GpuError>, wgpu::CommandEncoder) {
        let color = self.r.color_view();
        let mut encoder = self.r.inspect().device().create_command_encoder(&Default::default());
        let stats = self.r.record(&mut encoder, &Targets { color: &color, depth: &self.depth, clear });
        (stats, encoder)
    }

    fn apply(&mut self, model: &mut Model, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::InsertChunk { pos, fill } => {
                let chunk = fill.chunk();
                let key = NodeKey::chunk(ChunkPos(IVec3::from(pos)));
                self.r
                    .insert_chunk(key.as_chunk().expect("level 0"), Arc::new(chunk.clone()))
                    .map_err(fail)?;
                model.insert(key, chunk);
            }
            Op::InsertNode { level, pos, fill } => {
                let chunk = fill.chunk();
                let key = NodeKey::new(level, IVec3::from(pos));
                self.r.insert_node(key, Arc::new(chunk.clone())).map_err(fail)?;
                model.insert(key, chunk);
            }
            Op::RemoveChunk { pos } => {
                let pos = ChunkPos(IVec3::from(pos));
                self.r.remove_chunk(pos);
                model.nodes.remove(&NodeKey::chunk(pos));
            }
            Op::SetBlock { at, block } => {
                self.r.set_block(IVec3::from(at), block).map_err(fail)?;
                model.set_block(IVec3::from(at), block);
            }
            Op::ColumnReady { level, xz, ready } => {
                let column = NodeColumn::new(level, IVec2::from(xz));
                self.r.set_column_ready(column, ready);
                model.column_ready(column, ready);
            }
            Op::Frame { camera, drive } => {
                check_camera_rule(model, &camera)?;
                let c = camera.camera();
                match drive {
                    Drive::Render => {
                        let expected = model.frame(&c);
                        prop_assert_eq!(refusal(self.r.render(&c))?, expected, "{:?}", op);
                        self.tally.frame(expected);
                    }
                    Drive::ByHand { clear, after } => {
                        let expected = model.prepare(&c);
                        prop_assert_eq!(refusal(self.r.prepare(&c))?, expected, "prepare in {:?}", op);
                        let expected = model.record();
                        let (stats, encoder) = self.record_by_hand(clear);
                        prop_assert_eq!(refusal(stats)?, expected, "record in {:?}", op);
                        self.tally.frame(expected);
                        if expected.is_ok() {
                            match after {
                                After::Confirm => {
                                    self.r.inspect().queue().submit([encoder.finish()]);
                                    self.r.frame_submitted();
                                    model.confirmed += 1;
                                }
                                After::Submit => {
                                    self.r.inspect().queue().submit([encoder.finish()]);
                                    model.unconfirmed = true;
                                }
                                After::Drop => {
                                    drop(encoder);
                                    model.unconfirmed = true;
                                }
                            }
                        }
                    }
                    Drive::PrepareOnly => {
                        let expected = model.prepare(&c);
                        prop_assert_eq!(refusal(self.r.prepare(&c))?, expected, "{:?}", op);
                    }
                    Drive::RecordOnly => {
                        let expected = model.record();
                        let (stats, encoder) = self.record_by_hand(true);
                        prop_assert_eq!(refusal(stats)?, expected, "{:?}", op);
                        if expected.is_ok() {
                            self.r.inspect().queue().submit([encoder.finish()]);
                            self.r.frame_submitted();
                            model.confirmed += 1;
                        }
                    }
                }
            }
            Op::Pick { camera, max_distance } => {
                let c = camera.camera();
                let hit = self.r.pick(&c, max_distance);
                if !model.camera_accepted(&c) {
                    prop_assert_eq!(hit, None, "a camera prepare refuses picks nothing: {:?}", op);
                } else {
                    if c.eye.abs().max_element() > 1.0e6 {
                        prop_assert_eq!(hit, None, "nothing is in reach of a far camera: {:?}", op);
                    }
                    let expected = raycast(c.eye, c.forward(), max_distance, |p| model.block(p));
                    prop_assert_eq!(hit, expected, "{:?}", op);
                    if hit.is_some() {
                        Tally::bump(&self.tally.hits);
                    }
                }
            }
            Op::Settle { camera } => {
                check_camera_rule(model, &camera)?;
                let c = camera.camera();
                let expected = model.frame(&c);
                prop_assert_eq!(refusal(self.r.settle(&c))?, expected, "{:?}", op);
                self.tally.frame(expected);
            }
            Op::Resize { width, height } => {
                let allowed = model.size_allowed(width, height);
                match self.r.resize(width, height) {
                    Ok(()) => prop_assert!(allowed, "{op:?} was taken"),
                    Err(GpuError::TargetSize { .. }) => prop_assert!(!allowed, "{op:?} was refused"),
                    Err(e) => prop_assert!(false, "{op:?}: {e}"),
                }
                if allowed {
                    model.size = (width, height);
                } else {
                    Tally::bump(&self.tally.sizes_refused);
                }
                prop_assert_eq!(self.r.options().size(), model.size);
                self.depth = depth_target(&self.r);
            }
            Op::Recover { new_device } => {
                if new_device {
                    let gpu = GpuContext::from_adapter(self.gpu.adapter.clone()).map_err(fail)?;
                    self.errors.watch(&gpu.device);
                    self.gpu = gpu;
                }
                self.r.recover(&self.gpu).map_err(fail)?;
                Tally::bump(&self.tally.recoveries);
                self.depth = depth_target(&self.r);
                model.prepared = false;
                model.unconfirmed = false;
            }
        }
        self.no_wgpu_error(op)?;
        // The renderer's CPU side after every call: the same nodes per level as the model.
        let mut per_level = vec![0u32; self.r.resident().nodes_per_level().len().max(TOP as usize + 1)];
        for key in model.nodes.keys() {
            per_level[key.level as usize] += 1;
        }
        let mut held = self.r.resident().nodes_per_level();
        held.resize(per_level.len(), 0);
        prop_assert_eq!(held, per_level, "nodes per level after {:?}", op);
        Ok(())
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

/// One case: a fresh renderer on `base`, the calls, then the settled check.
fn run_case(base: &GpuContext, setup: &Setup, ops: &[Op], tally: &Tally) -> Result<(), TestCaseError> {
    let errors = WgpuErrors::default();
    // A device of the case's own, so an error or a recovery stays within the case.
    let gpu = GpuContext::from_adapter(base.adapter.clone()).map_err(fail)?;
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
        let result = runner.run(&strategy, |(setup, ops)| run_case(&base, &setup, &ops, &tally));
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
