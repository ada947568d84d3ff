//! The calls a fuzz case makes and how proptest draws them: node fills, cameras (good, far or
//! broken), how a frame is driven, sizes, and the renderer's set-up.

use voxgpu_test_kit as kit;

use glam::Vec3;
use proptest::prelude::*;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, Chunk};
use voxgpu_engine::{DrawSubmission, GpuContext, RendererOptions};

/// Levels of the nodes the fuzz inserts: chunks, and nodes of 2 and 4 blocks per cell.
pub(super) const TOP: u32 = 2;

/// Blocks the fuzz places: opaque, transparent (water, glass), and an id the registry does not
/// know. The first is what shrinking picks.
const BLOCKS: [BlockId; 6] = [ids::STONE, ids::GRASS, ids::WATER, ids::GLASS, ids::LEAVES, BlockId(999)];

/// What a node inserted by the fuzz holds: a few shapes, cheap to build and to mesh.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fill {
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
    pub(super) fn chunk(self) -> Chunk {
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
pub(super) struct CameraSpec {
    eye: [f32; 3],
    look: Look,
    fov: f32,
    near: f32,
}

impl CameraSpec {
    pub(super) fn camera(self) -> Camera {
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
pub(super) enum Drive {
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
pub(super) enum After {
    /// Submits it and calls `frame_submitted`.
    Confirm,
    /// Submits it and forgets `frame_submitted` (the next `prepare` reports it).
    Submit,
    /// Drops it unsubmitted (the next `prepare` reports it and queues its uploads again).
    Drop,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
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
pub(super) struct Setup {
    pub(super) ambient_occlusion: bool,
    /// `None`: LOD off.
    first_distance: Option<f32>,
    max_meshes_per_frame: u32,
    initial_quad_pages: u32,
    /// Taken when the device can do it, else the device's default.
    submission: Option<DrawSubmission>,
}

impl Setup {
    pub(super) fn lod(&self) -> LodSettings {
        self.first_distance.map_or(LodSettings::OFF, |d| {
            LodSettings::default().with_first_distance(d).expect("a distance in range")
        })
    }

    pub(super) fn options(&self, gpu: &GpuContext) -> RendererOptions {
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

pub(super) fn op(max_side: u32) -> impl Strategy<Value = Op> {
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

pub(super) fn setup() -> impl Strategy<Value = Setup> {
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
