//! Faults a world source causes, survived by the streamer: a source that panics or fails on
//! some columns (retries, then the column resident as absent), and a slow one whose jobs go
//! stale (cancelled before they start). The renderer's side of these faults is in the engine's
//! tests (`crates/voxgpu-engine/tests/gpu/faults.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use glam::{IVec2, Vec3};
use voxgpu_core::voxel::{Chunk, NodeColumn, NodeKey};
use voxgpu_worlds::stream::{ChunkSink, ColumnSource, StreamSettings, Streamer};
use voxgpu_worlds::worldgen::{TerrainColumns, WorldParams, WorldSource, columns_in_view, generate};

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
        columns_in_view(voxgpu_worlds::stream::ChunkManager::column_centre(IVec2::ZERO), VIEW)
            .into_iter()
            .collect();
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
        columns_in_view(voxgpu_worlds::stream::ChunkManager::column_centre(far), 4).into_iter().collect();
    let resident: HashSet<IVec2> = streamer.manager.resident_columns().map(|c| c.xz).collect();
    assert_eq!(resident, wanted);
}
