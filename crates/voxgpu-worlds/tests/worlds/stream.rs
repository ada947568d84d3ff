//! The chunk manager against a recording fake (no GPU): residency follows the camera, budgets
//! hold, bursts re-mesh each neighbour once, late and superseded results are dropped, tokens never
//! repeat; and the worker pool, and a runner that passes columns as bytes (as the browser's
//! workers do), generate what the one-shot generator does.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use glam::{IVec2, IVec3, Vec3};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{Chunk, ChunkPos, NodeColumn, NodeKey};
use voxgpu_worlds::stream::{
    ChunkManager, ChunkSink, Finished, GenerationPool, Job, JobRunner, StreamSettings, Streamer,
    UpdateReport, next_token,
};
use voxgpu_worlds::stream::{plan, wire};
use voxgpu_worlds::worldgen::{TerrainColumns, WorldParams, WorldSource, columns_in_view, generate};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Insert(NodeKey),
    Remove(NodeKey),
    Dirty(NodeKey),
    Ready(NodeColumn, bool),
}

/// Records every call, per update.
#[derive(Default)]
struct Fake {
    resident: HashSet<NodeKey>,
    ready: HashSet<NodeColumn>,
    /// The top node level: below it, a node must never arrive before its parent column.
    top: u32,
    updates: Vec<Vec<Event>>,
}

impl Fake {
    fn begin(&mut self) {
        self.updates.push(Vec::new());
    }

    fn log(&mut self, e: Event) {
        self.updates.last_mut().expect("begin first").push(e);
    }
}

impl ChunkSink for Fake {
    type Error = std::convert::Infallible;

    fn insert(&mut self, pos: NodeKey, _: Arc<Chunk>) -> Result<(), Self::Error> {
        assert!(self.resident.insert(pos), "{pos:?} inserted twice");
        assert!(!self.ready.contains(&pos.column()), "{pos:?} inserted into a column already complete");
        assert!(
            pos.level >= self.top || self.ready.contains(&pos.column().parent()),
            "{pos:?} arrived before its parent column"
        );
        self.log(Event::Insert(pos));
        Ok(())
    }

    fn remove(&mut self, pos: NodeKey) {
        assert!(self.resident.remove(&pos), "{pos:?} removed while absent");
        self.log(Event::Remove(pos));
    }

    fn mark_dirty(&mut self, pos: NodeKey) {
        assert!(self.resident.contains(&pos), "{pos:?} re-meshed while absent");
        self.log(Event::Dirty(pos));
    }

    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        if ready {
            assert!(self.ready.insert(column), "{column:?} ready twice");
        } else {
            assert!(self.ready.remove(&column), "{column:?} left while not ready");
            assert!(!self.resident.iter().any(|k| k.column() == column), "{column:?} left with nodes");
        }
        self.log(Event::Ready(column, ready));
    }
}

/// Two stone nodes per column (y = 0 and 1): small and predictable.
fn generate_now(job: Job) -> Finished {
    let chunks = (0..2).map(|y| (job.column.node(y), Arc::new(Chunk::filled(ids::STONE)))).collect();
    Finished { column: job.column, token: job.token, chunks: Ok(chunks) }
}

fn eye_over(column: IVec2) -> Vec3 {
    Vec3::new(column.x as f32 * 32.0 + 16.0, 80.0, column.y as f32 * 32.0 + 16.0)
}

/// Runs updates at `eye`, answering each update's jobs in the next, until settled.
fn settle(manager: &mut ChunkManager, fake: &mut Fake, eye: Vec3) -> usize {
    let mut jobs = Vec::new();
    for update in 0..1000 {
        fake.begin();
        let results: Vec<Finished> = jobs.drain(..).map(generate_now).collect();
        let (new_jobs, _) = manager.update(eye, results, fake).unwrap();
        jobs = new_jobs;
        if manager.is_settled() && jobs.is_empty() {
            return update;
        }
    }
    panic!("never settled");
}

fn expected_chunks(eye: Vec3, view_distance: u32) -> HashSet<NodeKey> {
    let column = IVec2::new(eye.x.floor() as i32, eye.z.floor() as i32).div_euclid(IVec2::splat(32));
    columns_in_view(ChunkManager::column_centre(column), view_distance)
        .into_iter()
        .flat_map(|c| (0..2).map(move |y| NodeKey::chunk(ChunkPos::new(c.x, y, c.y))))
        .collect()
}

#[test]
fn residency_follows_a_moving_camera_and_returns_to_the_same_set() {
    let settings = StreamSettings { uploads_per_update: 8, remeshes_per_update: 8, ..StreamSettings::new(3) };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    let start = eye_over(IVec2::ZERO);
    settle(&mut manager, &mut fake, start);
    let first = fake.resident.clone();
    assert_eq!(first, expected_chunks(start, 3));
    for step in 1..=12 {
        let eye = eye_over(IVec2::new(step, step / 2));
        settle(&mut manager, &mut fake, eye);
        assert_eq!(fake.resident, expected_chunks(eye, 3), "step {step}");
        assert_eq!(&fake.resident, manager.resident_chunks());
    }
    settle(&mut manager, &mut fake, start);
    assert_eq!(fake.resident, first, "back at the start, the same chunks");
}

#[test]
fn the_per_update_budgets_are_never_exceeded() {
    let settings = StreamSettings {
        uploads_per_update: 5,
        remeshes_per_update: 3,
        max_in_flight: 7,
        ..StreamSettings::new(4)
    };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    let mut jobs: Vec<Job> = Vec::new();
    for update in 0..400 {
        let eye = eye_over(IVec2::new(update / 20, 0));
        fake.begin();
        let results: Vec<Finished> = jobs.drain(..).map(generate_now).collect();
        let (new_jobs, report) = manager.update(eye, results, &mut fake).unwrap();
        let events = fake.updates.last().unwrap();
        let inserts = events.iter().filter(|e| matches!(e, Event::Insert(_))).count();
        let dirty = events.iter().filter(|e| matches!(e, Event::Dirty(_))).count();
        // Columns are two chunks, the budget five: at most two whole columns per update.
        assert!(inserts <= 5, "update {update}: {inserts} inserts");
        assert!(dirty <= 3, "update {update}: {dirty} re-meshes");
        assert!(new_jobs.len() <= 7, "update {update}: {} jobs", new_jobs.len());
        assert_eq!((report.inserted, report.remesh_requests), (inserts, dirty));
        jobs = new_jobs;
    }
}

/// Whether the mesh of `pos` reads chunk `other`: a face neighbour (borders) or an edge neighbour
/// (ambient occlusion), written out here independently of `mesh::meshes_reading`.
fn reads(pos: NodeKey, other: NodeKey) -> bool {
    let d = (other.pos - pos.pos).abs();
    pos.level == other.level && d.max_element() == 1 && d.element_sum() <= 2
}

#[test]
fn a_burst_of_arrivals_remeshes_each_affected_neighbour_once() {
    let settings = StreamSettings {
        uploads_per_update: 10_000,
        remeshes_per_update: 10_000,
        max_in_flight: 10_000,
        ..StreamSettings::new(2)
    };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    settle(&mut manager, &mut fake, eye_over(IVec2::ZERO));
    // Step the camera two columns: a ring of new columns arrives in one update, next to many
    // resident ones.
    let eye = eye_over(IVec2::new(2, 0));
    fake.begin();
    let (jobs, _) = manager.update(eye, [], &mut fake).unwrap();
    fake.begin();
    manager.update(eye, jobs.into_iter().map(generate_now), &mut fake).unwrap();
    let burst = fake.updates.last().unwrap().clone();
    let arrived: HashSet<NodeKey> =
        burst.iter().filter_map(|e| if let Event::Insert(p) = e { Some(*p) } else { None }).collect();
    assert!(arrived.len() >= 8, "a burst: {} chunks", arrived.len());
    let mut remeshed: HashMap<NodeKey, usize> = HashMap::new();
    for e in &burst {
        if let Event::Dirty(p) = e {
            *remeshed.entry(*p).or_default() += 1;
        }
    }
    assert!(!remeshed.is_empty());
    for (pos, n) in &remeshed {
        assert_eq!(*n, 1, "{pos:?} re-meshed {n} times");
        assert!(!arrived.contains(pos), "{pos:?} arrived in the burst and is meshed anyway");
        assert!(arrived.iter().any(|a| reads(*pos, *a)), "{pos:?} reads no arrival");
    }
    // Every resident chunk whose mesh reads an arrival is re-meshed.
    for pos in fake.resident.iter().filter(|p| !arrived.contains(p)) {
        if arrived.iter().any(|a| reads(*pos, *a)) {
            assert!(remeshed.contains_key(pos), "{pos:?} touches an arrival but was not re-meshed");
        }
    }
}

#[test]
fn a_late_result_for_an_evicted_column_is_dropped() {
    let mut manager = ChunkManager::new(StreamSettings::new(2));
    let mut fake = Fake::default();
    fake.begin();
    let (jobs, _) = manager.update(eye_over(IVec2::ZERO), [], &mut fake).unwrap();
    assert!(!jobs.is_empty());
    // The camera leaves before the results arrive.
    fake.begin();
    let far = eye_over(IVec2::new(100, 0));
    let (_, report) = manager.update(far, jobs.iter().copied().map(generate_now), &mut fake).unwrap();
    assert_eq!(report.dropped, jobs.len());
    assert_eq!(report.inserted, 0);
    assert!(fake.updates.last().unwrap().is_empty(), "nothing else happens");
}

#[test]
fn a_result_superseded_by_a_newer_request_is_dropped() {
    let settings = StreamSettings { max_in_flight: 1, ..StreamSettings::new(0) };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    let home = eye_over(IVec2::ZERO);
    fake.begin();
    let (first, _) = manager.update(home, [], &mut fake).unwrap();
    assert_eq!(first.len(), 1);
    // Away and back: the column is asked for again with a newer token.
    fake.begin();
    manager.update(eye_over(IVec2::new(50, 50)), [], &mut fake).unwrap();
    fake.begin();
    let (second, _) = manager.update(home, [], &mut fake).unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].column, first[0].column);
    assert!(second[0].token > first[0].token);
    fake.begin();
    let (_, report) = manager.update(home, [generate_now(first[0])], &mut fake).unwrap();
    assert_eq!((report.dropped, report.inserted), (1, 0), "the old token is dropped");
    fake.begin();
    let (_, report) = manager.update(home, [generate_now(second[0])], &mut fake).unwrap();
    assert_eq!((report.dropped, report.inserted), (0, 2), "the latest token is applied");
}

#[test]
fn the_token_counter_never_repeats() {
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(|| {
                let tokens: Vec<u64> = (0..20_000).map(|_| next_token()).collect();
                assert!(tokens.windows(2).all(|w| w[0] < w[1]), "increasing within a thread");
                tokens
            })
        })
        .collect();
    let mut all = HashSet::new();
    for t in threads {
        for token in t.join().unwrap() {
            assert!(all.insert(token), "token {token} issued twice");
        }
    }
}

#[test]
fn the_worker_pool_generates_what_the_one_shot_generator_does() {
    let params = WorldParams { seed: 9, center: IVec3::ZERO, view_distance: 2 };
    let world = generate(&WorldSource::Terrain, &params).unwrap();
    let columns = TerrainColumns::new(9);
    let mut pool = GenerationPool::new(2, Arc::new(move |c| Ok(columns.node_column(c))));
    let jobs: Vec<Job> = columns_in_view(params.center, 2)
        .into_iter()
        .map(|column| Job { column: NodeColumn::new(0, column), token: next_token() })
        .collect();
    pool.submit(jobs.iter().copied());
    let mut results = Vec::new();
    while results.len() < jobs.len() {
        results.extend(pool.wait_results(Duration::from_secs(30)));
    }
    let mut chunks = 0;
    for finished in results {
        let job = jobs.iter().find(|j| j.column == finished.column).expect("a job's column");
        assert_eq!(finished.token, job.token);
        for (pos, chunk) in finished.chunks.expect("terrain never fails") {
            let pos = pos.as_chunk().expect("level 0");
            assert_eq!(world.chunk(pos).map(|c| &**c), Some(&*chunk), "{pos:?}");
            chunks += 1;
        }
    }
    assert_eq!(chunks, world.len());
}

/// The nodes `plan::wanted_columns` asks for around `eye`, two per column as `generate_now` makes.
fn expected_nodes(eye: Vec3, view_distance: u32) -> HashSet<NodeKey> {
    let centre = plan::centre_of(IVec2::new(eye.x.floor() as i32, eye.z.floor() as i32));
    plan::wanted_columns(centre, view_distance, &voxgpu_core::lod::LodSettings::default())
        .into_iter()
        .flat_map(|c| (0..2).map(move |y| c.node(y)))
        .collect()
}

#[test]
fn nodes_of_every_level_follow_the_camera_and_arrive_after_their_parent_column() {
    // 32 chunks: top level 2, so chunks, level-1 and level-2 nodes.
    let settings =
        StreamSettings { uploads_per_update: 40, remeshes_per_update: 40, ..StreamSettings::new(32) };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake { top: plan::top_level(32), ..Fake::default() };
    let start = eye_over(IVec2::ZERO);
    settle(&mut manager, &mut fake, start);
    let first = fake.resident.clone();
    assert_eq!(first, expected_nodes(start, 32));
    let levels: HashSet<u32> = first.iter().map(|k| k.level).collect();
    assert_eq!(levels, HashSet::from([0, 1, 2]));
    // Far enough that every level's columns change, through level boundaries both ways.
    for step in [3, 9, 20, 41, 7] {
        let eye = eye_over(IVec2::new(step, -step / 3));
        settle(&mut manager, &mut fake, eye);
        assert_eq!(fake.resident, expected_nodes(eye, 32), "step {step}");
        assert_eq!(&fake.resident, manager.resident_chunks());
        // Every resident column was reported complete; every wanted one is resident.
        let columns: HashSet<NodeColumn> = fake.resident.iter().map(|k| k.column()).collect();
        assert_eq!(columns, fake.ready, "step {step}");
    }
    settle(&mut manager, &mut fake, start);
    assert_eq!(fake.resident, first, "back at the start, the same nodes");
}

#[test]
fn the_horizon_arrives_coarse_before_the_near_field_refines() {
    let settings = StreamSettings { uploads_per_update: 2, max_in_flight: 4, ..StreamSettings::new(64) };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    let eye = eye_over(IVec2::ZERO);
    fake.begin();
    let (jobs, _) = manager.update(eye, [], &mut fake).unwrap();
    // The first jobs are the camera's own column at every level, coarsest first.
    let top = plan::top_level(64);
    let first: Vec<u32> = jobs.iter().map(|j| j.column.level).collect();
    assert_eq!(first, (top - 3..=top).rev().collect::<Vec<_>>());
}

#[test]
fn a_node_budget_drops_the_farthest_columns_for_their_size_and_keeps_every_parent() {
    let cap = 150;
    let settings = StreamSettings {
        uploads_per_update: 40,
        remeshes_per_update: 40,
        max_nodes: Some(cap),
        ..StreamSettings::new(64)
    };
    let mut manager = ChunkManager::new(settings);
    let mut fake = Fake::default();
    let eye = eye_over(IVec2::new(3, 1));
    settle(&mut manager, &mut fake, eye);
    assert!(manager.is_capped(), "the budget binds");
    assert!(fake.resident.len() <= cap, "{} nodes resident over a budget of {cap}", fake.resident.len());
    let full = expected_nodes(eye, 64);
    assert!(fake.resident.len() < full.len() && fake.resident.is_subset(&full));
    // What is kept is closed under parents, in whole sibling groups (children replace a parent
    // only all four together), and at the top level nearer (for its size) than what is dropped.
    let top = plan::top_level(64);
    let centre = plan::centre_of(IVec2::new(eye.x.floor() as i32, eye.z.floor() as i32));
    let urgency = |c: &NodeColumn| c.distance(centre) / c.size() as f32;
    let kept: HashSet<NodeColumn> = fake.resident.iter().map(|k| k.column()).collect();
    let wanted: HashSet<NodeColumn> = full.iter().map(|k| k.column()).collect();
    for c in &kept {
        if c.level < top {
            assert!(kept.contains(&c.parent()), "{c:?} kept without its parent");
            assert!(
                c.parent().children().iter().all(|s| kept.contains(s)),
                "{c:?} kept without its siblings"
            );
        }
    }
    let top_kept = kept.iter().filter(|c| c.level == top).map(urgency).fold(0.0f32, f32::max);
    let top_dropped = wanted
        .iter()
        .filter(|c| c.level == top && !kept.contains(c))
        .map(urgency)
        .fold(f32::INFINITY, f32::min);
    assert!(top_kept <= top_dropped + 1e-3, "top level kept up to {top_kept}, dropped from {top_dropped}");
}

/// A runner like the browser's web workers: room for `room` jobs at once, each column generated
/// and sent back as bytes, answered on the next `results`.
struct BytesRunner {
    room: usize,
    columns: TerrainColumns,
    started: Rc<RefCell<Vec<Job>>>,
    answered: Vec<(Job, Vec<u8>)>,
}

impl JobRunner for BytesRunner {
    fn room(&self) -> usize {
        self.room - self.answered.len()
    }

    fn start(&mut self, job: Job) {
        assert!(self.room() > 0, "a job was started with no room");
        self.started.borrow_mut().push(job);
        self.answered.push((job, wire::encode_column(&self.columns.node_column(job.column))));
    }

    fn results(&mut self) -> Vec<Finished> {
        std::mem::take(&mut self.answered)
            .into_iter()
            .map(|(job, bytes)| Finished {
                column: job.column,
                token: job.token,
                chunks: wire::decode_column(job.column, &bytes)
                    .map(|nodes| nodes.into_iter().map(|(k, c)| (k, Arc::new(c))).collect()),
            })
            .collect()
    }
}

#[test]
fn a_runner_gets_jobs_as_it_has_room_and_never_a_cancelled_one() {
    let params = WorldParams { seed: 9, center: IVec3::ZERO, view_distance: 2 };
    let world = generate(&WorldSource::Terrain, &params).unwrap();
    let started = Rc::new(RefCell::new(Vec::new()));
    let runner = BytesRunner {
        room: 2,
        columns: TerrainColumns::new(9),
        started: Rc::clone(&started),
        answered: Vec::new(),
    };
    let mut pool = GenerationPool::runner(Box::new(runner));
    let jobs: Vec<Job> = columns_in_view(params.center, 2)
        .into_iter()
        .map(|column| Job { column: NodeColumn::new(0, column), token: next_token() })
        .collect();
    pool.submit(jobs.iter().copied());
    assert_eq!(*started.borrow(), jobs[..2], "the runner takes jobs in order, as it has room");
    assert_eq!(pool.queued(), jobs.len() - 2);
    let cancelled = jobs[3];
    assert_eq!(pool.cancel(&HashSet::from([cancelled.token])), 1);
    let mut results = Vec::new();
    while results.len() < jobs.len() - 1 {
        let arrived = pool.try_results();
        assert!(!arrived.is_empty(), "the pool stalled with {} jobs queued", pool.queued());
        results.extend(arrived);
    }
    assert_eq!(pool.queued(), 0);
    assert!(pool.try_results().is_empty());
    let mut expected: Vec<Job> = jobs.iter().copied().filter(|j| *j != cancelled).collect();
    assert_eq!(*started.borrow(), expected, "each job started once, in order, the cancelled one never");
    let mut chunks = 0;
    for finished in results {
        let at = expected.iter().position(|j| j.column == finished.column).expect("a job's column");
        assert_eq!(finished.token, expected.swap_remove(at).token);
        for (pos, chunk) in finished.chunks.expect("terrain never fails") {
            let pos = pos.as_chunk().expect("level 0");
            assert_eq!(world.chunk(pos).map(|c| &**c), Some(&*chunk), "{pos:?}");
            chunks += 1;
        }
    }
    let cancelled_chunks = world
        .chunks()
        .filter(|(p, _)| p.0.x == cancelled.column.xz.x && p.0.z == cancelled.column.xz.y)
        .count();
    assert_eq!(chunks, world.len() - cancelled_chunks);
}

#[test]
fn an_update_standing_for_a_long_frame_spends_that_many_updates_budgets() {
    let settings = StreamSettings {
        uploads_per_update: 5,
        remeshes_per_update: 3,
        max_in_flight: 200,
        ..StreamSettings::new(64)
    };
    let runner = BytesRunner {
        room: 10_000,
        columns: TerrainColumns::new(3),
        started: Rc::default(),
        answered: Vec::new(),
    };
    let mut streamer = Streamer::with_runner(settings, Box::new(runner));
    let mut fake = Fake::default();
    let eye = eye_over(IVec2::ZERO);
    // Chunks and whole columns an update inserted.
    let mut update = |elapsed: Duration| {
        fake.begin();
        let report = streamer.update_over(eye, &mut fake, elapsed).unwrap();
        let events = fake.updates.last().unwrap();
        let columns = events.iter().filter(|e| matches!(e, Event::Ready(_, true))).count();
        (report, columns)
    };
    // Each update may insert `updates` times 5 chunks, or one column alone that is larger.
    let within = |(report, columns): (UpdateReport, usize), updates: usize| {
        report.inserted <= 5 * updates || columns == 1
    };
    // One update's time: 200 jobs handed out (a bound on the queue, never scaled), none back yet.
    let (first, _) = update(Duration::from_secs_f64(1.0 / 60.0));
    assert_eq!((first.requested, first.inserted), (200, 0));
    // 50 ms stands for three updates at 60 a second: up to 15 chunks, more than one update's 5.
    let second = update(Duration::from_millis(50));
    assert!(within(second, 3) && second.0.inserted > 5, "{second:?}");
    // The 200 answers were taken: 200 more jobs, not three updates' 600.
    assert_eq!(second.0.requested, 200);
    // 10 ms: a sixth of an update owed, spent as one (an update never spends less).
    let third = update(Duration::from_millis(10));
    assert!(within(third, 1), "{third:?}");
    // A pause of any length stands for one second at most: 60 updates' budgets, of the 200
    // columns that are in.
    let paused = update(Duration::from_secs(3600));
    assert!(within(paused, 60) && paused.0.inserted > 15, "{paused:?}");
}
