//! `.vox` import under mutated real files: the sample asset, models spread apart by transforms
//! and a terrain box from the project's own export, each with random byte flips, overwrites,
//! truncations, insertions, deletions and chunk-size (and count) fields set to hostile values.
//! Every case must end, quickly, in a world or a one-line error: no panic, no hang (a case
//! running over [`CASE_LIMIT`] aborts the run, naming it) and no allocation over
//! [`LARGEST_ALLOCATION`] bytes (a declared size of 2³¹ must not be allocated).
//!
//! `cargo test` runs [`DEFAULT_CASES`] cases per file; `VOXGPU_FUZZ_CASES=N` runs N.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use glam::IVec3;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use voxgpu_worlds::worldgen::vox::{from_bytes, write_spread_models};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, export_vox, generate};

/// Cases per file in a plain `cargo test`.
const DEFAULT_CASES: u32 = 256;
/// Longest a case may run before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(20);
/// Largest single allocation a case may make: far above what a model within the extent limit
/// needs at once (a chunk is 64 KiB), far below a hostile declared size.
const LARGEST_ALLOCATION: usize = 256 << 20;

/// The system allocator, recording the largest request made on each thread.
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is passed to `System` unchanged; only the sizes are recorded.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

fn cases() -> u32 {
    std::env::var("VOXGPU_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// One change to a file's bytes. Positions are taken modulo the length at the time.
#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        byte: u8,
    },
    Truncate {
        keep: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    /// A size or count field of the format (the `n`th found in the original file) set to `value`.
    Field {
        nth: usize,
        value: u32,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let hostile = prop_oneof![
        Just(0u32),
        Just(1),
        Just(1 << 31),
        Just(u32::MAX),
        Just(u32::MAX - 11),
        Just(0x7fff_fff0),
        0u32..4096,
        any::<u32>(),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..64))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..256).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), hostile).prop_map(|(nth, value)| Mutation::Field { nth, value }),
    ]
}

/// `bytes` with `mutations` applied; `fields` are the offsets of little-endian `u32` size and
/// count fields.
fn mutate(bytes: &[u8], fields: &[usize], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for m in mutations {
        let len = out.len();
        match m {
            Mutation::Flip { at, bit } if len > 0 => out[at % len] ^= 1 << bit,
            Mutation::Set { at, byte } if len > 0 => out[at % len] = *byte,
            Mutation::Truncate { keep } => out.truncate(keep % (len + 1)),
            Mutation::Insert { at, bytes } => {
                let at = at % (len + 1);
                out.splice(at..at, bytes.iter().copied());
            }
            Mutation::Delete { at, len: n } if len > 0 => {
                let at = at % len;
                out.drain(at..(at + n).min(len));
            }
            Mutation::Field { nth, value } if !fields.is_empty() => {
                let at = fields[nth % fields.len()];
                if at + 4 <= len {
                    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
                }
            }
            _ => {}
        }
    }
    out
}

/// Offsets of the size fields of every chunk of a `.vox` file (content and children sizes), and
/// of the first three `u32`s of each chunk's content (voxel counts, model sizes, node ids, child
/// and dictionary counts).
fn vox_fields(bytes: &[u8]) -> Vec<usize> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    // "VOX ", the version, then MAIN (id, content size, children size) and its children.
    let mut fields = vec![12, 16];
    let mut at = 20;
    while at + 12 <= bytes.len() {
        let content = u32_at(at + 4);
        fields.extend([at + 4, at + 8]);
        fields.extend((0..3).map(|k| at + 12 + 4 * k).filter(|&f| f + 4 <= at + 12 + content));
        at += 12 + content + u32_at(at + 8);
    }
    fields
}

/// The real files: the sample asset (two models under a scene graph, materials), models spread
/// apart by transforms as the project writes them, and a box of terrain exported by the
/// project's own `.vox` export.
fn real_files() -> &'static [(String, Vec<u8>)] {
    static FILES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sample.vox");
        let temp =
            |name: &str| std::env::temp_dir().join(format!("voxgpu-fuzz-{}-{name}", std::process::id()));
        let spread = temp("spread.vox");
        write_spread_models(&spread, 40).expect("spread models");
        let terrain =
            generate(&WorldSource::Terrain, &WorldParams { seed: 3, center: IVec3::ZERO, view_distance: 1 })
                .expect("terrain");
        let exported = temp("terrain.vox");
        export_vox(&terrain, IVec3::new(0, 0, 0), IVec3::new(12, 128, 8), &exported).expect("export");
        let files = vec![
            ("sample.vox".to_string(), std::fs::read(&sample).expect("assets/sample.vox")),
            ("spread.vox".to_string(), std::fs::read(&spread).expect("written")),
            ("terrain.vox".to_string(), std::fs::read(&exported).expect("exported")),
        ];
        let _ = std::fs::remove_file(&spread);
        let _ = std::fs::remove_file(&exported);
        files
    })
}

/// Runs `case` on this thread within [`CASE_LIMIT`] (aborting the run, with `what`, past it) and
/// returns the largest allocation it made.
fn bounded<T>(what: &dyn Fn() -> String, case: impl FnOnce() -> T) -> (T, usize) {
    let (done, waiting) = std::sync::mpsc::channel::<()>();
    let description = what();
    let watchdog = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = waiting.recv_timeout(CASE_LIMIT) {
            eprintln!("a fuzz case ran over {CASE_LIMIT:?} (a hang): {description}");
            std::process::abort();
        }
    });
    LARGEST.with(|l| l.set(0));
    let out = case();
    let largest = LARGEST.with(|l| l.get());
    let _ = done.send(());
    let _ = watchdog.join();
    (out, largest)
}

/// Imports `bytes`; `Err` names what is wrong with the outcome (not the file).
fn import_checked(bytes: &[u8], what: &dyn Fn() -> String) -> Result<bool, String> {
    let (result, largest) = bounded(what, || from_bytes(bytes, Path::new("fuzz.vox")));
    if largest > LARGEST_ALLOCATION {
        return Err(format!("allocated {largest} bytes at once: {}", what()));
    }
    match result {
        Ok(world) => {
            let _ = world.chunks().count();
            Ok(true)
        }
        Err(e) => {
            let line = e.to_string();
            if line.is_empty() || line.contains('\n') {
                return Err(format!("not one line: {line:?}: {}", what()));
            }
            Ok(false)
        }
    }
}

#[test]
fn mutated_vox_files_import_or_fail_with_one_line() {
    let began = Instant::now();
    let mut totals = (0u32, 0u32);
    for (name, original) in real_files() {
        assert!(import_checked(original, &|| name.clone()).expect("the original"), "{name} imports");
        let fields = vox_fields(original);
        let mut runner =
            TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
        let imported = std::cell::Cell::new(0u32);
        runner
            .run(&proptest::collection::vec(mutation(), 1..6), |mutations| {
                let bytes = mutate(original, &fields, &mutations);
                let what = || format!("{name} with {mutations:?}");
                let ok = import_checked(&bytes, &what).map_err(TestCaseError::fail)?;
                imported.set(imported.get() + u32::from(ok));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        totals = (totals.0 + cases(), totals.1 + imported.get());
    }
    eprintln!(
        "{} mutated .vox files in {:.1} s: {} imported, the rest refused with one line",
        totals.0,
        began.elapsed().as_secs_f64(),
        totals.1
    );
}

/// A `.vox` file of `models` under the scene graph `scenes`.
fn crafted(models: Vec<dot_vox::Model>, scenes: Vec<dot_vox::SceneNode>) -> Vec<u8> {
    let data = dot_vox::DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models,
        palette: dot_vox::DEFAULT_PALETTE.to_vec(),
        materials: Vec::new(),
        scenes,
        layers: vec![dot_vox::Layer { attributes: Default::default() }],
    };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).expect("writing to a Vec cannot fail");
    bytes
}

/// A model of `size` filled with palette index 1.
fn solid(size: [u32; 3]) -> dot_vox::Model {
    let mut voxels = Vec::new();
    for z in 0..size[2] as u8 {
        for y in 0..size[1] as u8 {
            for x in 0..size[0] as u8 {
                voxels.push(dot_vox::Voxel { x, y, z, i: 0 });
            }
        }
    }
    dot_vox::Model { size: dot_vox::Size { x: size[0], y: size[1], z: size[2] }, voxels }
}

fn transform_to(child: u32) -> dot_vox::SceneNode {
    dot_vox::SceneNode::Transform {
        attributes: Default::default(),
        frames: vec![dot_vox::Frame::new(Default::default())],
        child,
        layer_id: 0,
    }
}

fn malformed_within_bounds(bytes: &[u8], what: &str) -> String {
    let (result, largest) = bounded(&|| what.to_string(), || from_bytes(bytes, Path::new("crafted.vox")));
    assert!(largest <= LARGEST_ALLOCATION, "{what}: allocated {largest} bytes at once");
    match result {
        Err(e @ voxgpu_worlds::worldgen::WorldError::VoxMalformed { .. }) => e.to_string(),
        Err(e) => panic!("{what}: {e}"),
        Ok(_) => panic!("{what}: imported"),
    }
}

/// A group listing itself as each of its 1,000 children: the walk stops at the visit limit,
/// and the nodes it has stacked to visit count towards it, so the stack never holds more than
/// the limit (it grew by 999 entries a visit, to gigabytes, before).
#[test]
fn a_group_listing_itself_is_refused_without_a_huge_stack() {
    let group = dot_vox::SceneNode::Group { attributes: Default::default(), children: vec![1; 1000] };
    let bytes = crafted(vec![solid([1, 1, 1])], vec![transform_to(1), group]);
    let line = malformed_within_bounds(&bytes, "a self-listing group");
    assert!(line.contains("cycle or is too large"), "{line}");
}

/// 65,533 instances of one 8,192-voxel model (a 300 KB file) would place 537 million voxels:
/// refused before placing any.
#[test]
fn a_model_instanced_past_the_voxel_limit_is_refused_before_placing() {
    let instances = 65_533u32;
    let shape = dot_vox::SceneNode::Shape {
        attributes: Default::default(),
        models: vec![dot_vox::ShapeModel { model_id: 0, attributes: Default::default() }],
    };
    let group =
        dot_vox::SceneNode::Group { attributes: Default::default(), children: vec![2; instances as usize] };
    let bytes = crafted(vec![solid([32, 16, 16])], vec![transform_to(1), group, shape]);
    let line = malformed_within_bounds(&bytes, "one model instanced 65,533 times");
    assert!(line.contains("536846336 voxels"), "{line}");
}
