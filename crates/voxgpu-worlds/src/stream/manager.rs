//! The chunk manager: residency around the camera as a state machine (see `stream/mod.rs`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use glam::{IVec2, IVec3, Vec3};
use web_time::Instant;

use super::plan::{centre_of, wanted_columns};
use super::{ChunkSink, ColumnChunks, Finished, Job, next_token};
use voxgpu_core::lod::LodSettings;
use voxgpu_core::mesh::meshes_reading;
use voxgpu_core::voxel::{CHUNK_SIZE, ChunkPos, NodeColumn, NodeKey};

/// Radius, levels and per-update budgets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamSettings {
    /// The view distance in chunks: top-level node columns whose centre lies within it are
    /// resident (see [`super::plan`]).
    pub view_distance: u32,
    /// The thresholds the LOD pass splits nodes at, which decide the finer levels' extent.
    pub lod: LodSettings,
    /// Chunks inserted per update at most (a finished column waits whole until it fits, unless
    /// it alone is larger than the budget). This and the re-mesh budget are per update at 60
    /// updates a second; [`super::Streamer::update_over`] scales them with the time an update
    /// stands for.
    pub uploads_per_update: usize,
    /// Re-mesh requests per update at most; the rest wait, deduplicated.
    pub remeshes_per_update: usize,
    /// Generation jobs in flight at most: a bound on the queue, not a rate, so it is never
    /// scaled (a long queue would keep serving a camera that has moved on).
    pub max_in_flight: usize,
    /// Attempts at a column whose source fails before it is marked failed (at least one).
    pub attempts: u32,
    /// The delay before the first retry of a failed column; each later retry waits four times
    /// longer than the one before, at most 5 s.
    pub retry_after: Duration,
    /// Resident nodes at most (a GPU memory budget, or the adapter's pool limit, converted by the
    /// caller): the least urgent columns (farthest for their size) are not wanted once the
    /// estimate of their nodes reaches it.
    pub max_nodes: Option<usize>,
}

impl StreamSettings {
    pub fn new(view_distance: u32) -> Self {
        Self {
            view_distance,
            lod: LodSettings::default(),
            uploads_per_update: 64,
            remeshes_per_update: 128,
            max_in_flight: 16,
            attempts: 3,
            retry_after: Duration::from_millis(100),
            max_nodes: None,
        }
    }
}

/// What one update did, for stats and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateReport {
    pub inserted: usize,
    pub removed: usize,
    pub remesh_requests: usize,
    /// Jobs handed out this update.
    pub requested: usize,
    /// Results dropped: their column was no longer wanted, or a newer job had been issued.
    pub dropped: usize,
    /// Re-meshes still waiting for a later update.
    pub remesh_pending: usize,
    /// Columns wanted and not yet resident.
    pub missing: usize,
    /// Columns whose source failed this update and that will be tried again.
    pub retrying: usize,
    /// Columns marked failed this update, after their last attempt.
    pub failed: usize,
    /// Queued jobs cancelled this update because their columns were no longer wanted (counted by
    /// the pool: [`super::Streamer`] fills it in).
    pub cancelled: usize,
}

/// The longest wait before a failed column is tried again, whatever `retry_after` and the
/// number of attempts say.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(5);

/// A column whose source failed: the attempts so far, when the next may start, and the last
/// message. A failed column (no attempts left) stays here while it is wanted.
#[derive(Clone, Debug)]
struct Failure {
    attempts: u32,
    retry_at: Instant,
    message: String,
}

pub struct ChunkManager {
    settings: StreamSettings,
    /// The camera column of the last residency decision.
    center: Option<IVec2>,
    wanted: HashSet<NodeColumn>,
    /// Wanted columns, most urgent first (recomputed when the camera changes column).
    order: Vec<NodeColumn>,
    /// The latest token issued for each column with a job in flight.
    in_flight: HashMap<NodeColumn, u64>,
    /// Finished columns accepted and waiting for the upload budget.
    ready: VecDeque<(NodeColumn, ColumnChunks)>,
    /// Applied columns and their nodes.
    resident: HashMap<NodeColumn, Vec<NodeKey>>,
    resident_chunks: HashSet<NodeKey>,
    /// Re-meshes asked for and not yet sent, in order, without duplicates.
    remesh_queue: VecDeque<NodeKey>,
    remesh_set: HashSet<NodeKey>,
    /// Nodes inserted by the current update: meshed anyway, never queued for a re-mesh.
    fresh: HashSet<NodeKey>,
    /// Columns and nodes generated so far per level: the estimate of nodes per column that
    /// `max_nodes` is applied with.
    generated: HashMap<u32, (u64, u64)>,
    /// The last plan was cut short by `max_nodes`.
    capped: bool,
    /// The nodes-per-column estimates the last plan was made with.
    planned_with: Vec<f64>,
    /// Wanted columns whose source has failed at least once.
    failures: HashMap<NodeColumn, Failure>,
    /// Tokens of jobs forgotten since the last [`ChunkManager::take_forgotten`].
    forgotten: HashSet<u64>,
    /// How many updates' worth of the upload and re-mesh budgets the next update may spend (at
    /// least 1): see [`super::Streamer::update_over`].
    budget_scale: usize,
}

impl ChunkManager {
    pub fn new(settings: StreamSettings) -> Self {
        Self {
            settings,
            center: None,
            wanted: HashSet::new(),
            order: Vec::new(),
            in_flight: HashMap::new(),
            ready: VecDeque::new(),
            resident: HashMap::new(),
            resident_chunks: HashSet::new(),
            remesh_queue: VecDeque::new(),
            remesh_set: HashSet::new(),
            fresh: HashSet::new(),
            generated: HashMap::new(),
            capped: false,
            planned_with: Vec::new(),
            failures: HashMap::new(),
            forgotten: HashSet::new(),
            budget_scale: 1,
        }
    }

    /// Wanted columns marked failed (their source failed every attempt) with the last message:
    /// drawn as absent until they leave the wanted set.
    pub fn failed_columns(&self) -> impl Iterator<Item = (NodeColumn, &str)> + '_ {
        self.failures
            .iter()
            .filter(|(_, f)| f.attempts >= self.settings.attempts.max(1))
            .map(|(c, f)| (*c, f.message.as_str()))
    }

    /// Lets the next updates spend `scale` updates' worth of the per-update budgets (at least 1).
    pub(super) fn set_budget_scale(&mut self, scale: usize) {
        self.budget_scale = scale.max(1);
    }

    /// The tokens of the jobs the last update forgot (their columns left the wanted set), for
    /// the pool to cancel those not started.
    pub fn take_forgotten(&mut self) -> HashSet<u64> {
        std::mem::take(&mut self.forgotten)
    }

    /// Whether the last plan was cut short by `max_nodes` (the budget binds).
    pub fn is_capped(&self) -> bool {
        self.capped
    }

    pub fn settings(&self) -> StreamSettings {
        self.settings
    }

    /// Resident nodes (chunks are level 0).
    pub fn resident_chunks(&self) -> &HashSet<NodeKey> {
        &self.resident_chunks
    }

    /// Resident columns.
    pub fn resident_columns(&self) -> impl Iterator<Item = NodeColumn> + '_ {
        self.resident.keys().copied()
    }

    /// Whether `column` is resident (its nodes generated and inserted).
    pub fn is_resident(&self, column: NodeColumn) -> bool {
        self.resident.contains_key(&column)
    }

    /// The block at the centre of a column, at y = 0: what residency is decided around.
    pub fn column_centre(column: IVec2) -> IVec3 {
        let half = CHUNK_SIZE as i32 / 2;
        IVec3::new(column.x * CHUNK_SIZE as i32 + half, 0, column.y * CHUNK_SIZE as i32 + half)
    }

    /// Columns that should be resident for the last camera position.
    pub fn wanted_columns(&self) -> &HashSet<NodeColumn> {
        &self.wanted
    }

    /// Chunk columns within two chunks of `eye` that no resident column covers at any level: the
    /// holes a camera there would see (a coarse ancestor stands in for missing chunks).
    pub fn near_holes(&self, eye: Vec3) -> usize {
        let block = eye.floor().as_ivec3();
        let home = IVec2::new(block.x, block.z).div_euclid(IVec2::splat(CHUNK_SIZE as i32));
        let mut holes = 0;
        for dz in -2..=2 {
            for dx in -2..=2 {
                let mut column = NodeColumn::new(0, home + IVec2::new(dx, dz));
                let mut covered = self.resident.contains_key(&column);
                while !covered && column.level < voxgpu_core::voxel::MAX_NODE_LEVEL {
                    column = column.parent();
                    covered = self.resident.contains_key(&column);
                }
                holes += usize::from(!covered);
            }
        }
        holes
    }

    /// Whether every wanted column is resident, nothing is waiting, and no re-mesh is pending.
    pub fn is_settled(&self) -> bool {
        self.in_flight.is_empty()
            && self.ready.is_empty()
            && self.remesh_queue.is_empty()
            && self.wanted.iter().all(|c| self.resident.contains_key(c))
    }

    /// One update: decide residency around `eye`, take `finished` results, apply what the
    /// budgets allow to `sink`, and return the jobs to hand to the workers.
    pub fn update<S: ChunkSink>(
        &mut self,
        eye: Vec3,
        finished: impl IntoIterator<Item = Finished>,
        sink: &mut S,
    ) -> Result<(Vec<Job>, UpdateReport), S::Error> {
        let mut report = UpdateReport::default();
        self.fresh.clear();
        // Tokens forgotten by an earlier update are of no use to a pool any more.
        self.forgotten.clear();
        self.decide_residency(eye, sink, &mut report);
        for result in finished {
            self.accept(result, &mut report);
        }
        self.upload(sink, &mut report)?;
        for _ in 0..self.settings.remeshes_per_update * self.budget_scale {
            let Some(pos) = self.remesh_queue.pop_front() else { break };
            self.remesh_set.remove(&pos);
            if self.resident_chunks.contains(&pos) {
                sink.mark_dirty(pos);
                report.remesh_requests += 1;
            }
        }
        report.remesh_pending = self.remesh_queue.len();
        let jobs = self.request_jobs();
        report.requested = jobs.len();
        report.missing = self.wanted.iter().filter(|c| !self.resident.contains_key(*c)).count();
        Ok((jobs, report))
    }

    /// Recomputes the wanted set when the camera changed column, and evicts what left it. The
    /// plan is centred on the camera's column, not the exact eye, so residency depends only on
    /// the column the camera is in, never on the path that led there.
    fn decide_residency<S: ChunkSink>(&mut self, eye: Vec3, sink: &mut S, report: &mut UpdateReport) {
        let block = eye.floor().as_ivec3();
        let column = IVec2::new(block.x, block.z).div_euclid(IVec2::splat(CHUNK_SIZE as i32));
        // Under a node budget the plan is decided again when the estimate of nodes per column,
        // which improves as columns arrive, has moved by more than 5% on some level since.
        let drifted = self.settings.max_nodes.is_some() && {
            let now = self.estimates();
            now.iter().zip(&self.planned_with).any(|(a, b)| (a - b).abs() > 0.05 * b)
        };
        if self.center == Some(column) && !drifted {
            return;
        }
        self.center = Some(column);
        let centre = centre_of(IVec2::new(block.x, block.z));
        let mut order = wanted_columns(centre, self.settings.view_distance, &self.settings.lod);
        // Most urgent first: distance in node sizes (a coarse node near the camera before a fine
        // one farther away), coarser first on a tie, so the view is covered before it refines.
        let urgency = |c: &NodeColumn| (c.distance(centre) / c.size() as f32 * 1024.0) as u64;
        order.sort_by_key(|c| (urgency(c), std::cmp::Reverse(c.level), c.xz.x, c.xz.y));
        if let Some(cap) = self.settings.max_nodes {
            // The most urgent prefix that fits. A parent is always more urgent than its child
            // (no farther, twice the size), so the prefix keeps every kept column's ancestors.
            let mut estimate = 0.0;
            let fits = order
                .iter()
                .take_while(|c| {
                    estimate += self.nodes_per_column(c.level);
                    estimate <= cap as f64
                })
                .count();
            self.capped = fits < order.len();
            self.planned_with = self.estimates();
            if self.capped {
                order.truncate(fits.max(1));
                // Children replace their parent only all four together: a partial group would
                // hold nodes never drawn. Keep whole groups whose parent is kept, top down.
                let top = super::plan::top_level(self.settings.view_distance);
                let mut kept: HashSet<NodeColumn> =
                    order.iter().copied().filter(|c| c.level == top).collect();
                let prefix: HashSet<NodeColumn> = order.iter().copied().collect();
                for level in (0..top).rev() {
                    let groups: Vec<NodeColumn> = order
                        .iter()
                        .filter(|c| c.level == level + 1 && kept.contains(c))
                        .filter(|parent| parent.children().iter().all(|c| prefix.contains(c)))
                        .copied()
                        .collect();
                    kept.extend(groups.iter().flat_map(|p| p.children()));
                }
                order.retain(|c| kept.contains(c));
            }
        }
        self.wanted = order.iter().copied().collect();
        self.order = order;
        // Jobs for unwanted columns are forgotten: their results will find no token, and those
        // not started are cancelled.
        let (wanted, forgotten) = (&self.wanted, &mut self.forgotten);
        self.in_flight.retain(|c, token| {
            let keep = wanted.contains(c);
            if !keep {
                forgotten.insert(*token);
            }
            keep
        });
        // A failure is forgotten with its column: one that comes back is tried afresh.
        self.failures.retain(|c, _| self.wanted.contains(c));
        self.ready.retain(|(c, _)| self.wanted.contains(c));
        let leaving: Vec<NodeColumn> =
            self.resident.keys().filter(|c| !self.wanted.contains(*c)).copied().collect();
        for column in leaving {
            for key in self.resident.remove(&column).unwrap_or_default() {
                self.resident_chunks.remove(&key);
                sink.remove(key);
                report.removed += 1;
                self.remesh_neighbours(key);
            }
            sink.column_ready(column, false);
        }
    }

    /// The estimate of nodes per column at every level.
    fn estimates(&self) -> Vec<f64> {
        (0..=voxgpu_core::voxel::MAX_NODE_LEVEL).map(|level| self.nodes_per_column(level)).collect()
    }

    /// Nodes per column of `level` generated so far; before any, a guess on the high side for
    /// terrain (a chunk column holds 3 to 7 chunks, a coarse column 1 or 2 nodes).
    fn nodes_per_column(&self, level: u32) -> f64 {
        match self.generated.get(&level) {
            Some(&(columns, nodes)) if columns > 0 => nodes as f64 / columns as f64,
            _ if level == 0 => 6.0,
            _ => 2.0,
        }
    }

    /// Queues a finished column when it is still wanted and its token is the latest. A failed
    /// one waits to be tried again, or after its last attempt is queued with no nodes: it becomes
    /// resident as absent.
    fn accept(&mut self, result: Finished, report: &mut UpdateReport) {
        if self.in_flight.get(&result.column) != Some(&result.token) {
            report.dropped += 1;
            return;
        }
        self.in_flight.remove(&result.column);
        let column = result.column;
        let chunks = match result.chunks {
            Ok(chunks) => chunks,
            Err(message) => {
                let failure = self.failures.entry(column).or_insert(Failure {
                    attempts: 0,
                    retry_at: Instant::now(),
                    message: String::new(),
                });
                failure.attempts += 1;
                failure.message = message;
                if failure.attempts < self.settings.attempts.max(1) {
                    let growth = 4u32.saturating_pow(failure.attempts - 1);
                    let delay = (self.settings.retry_after * growth).min(MAX_RETRY_DELAY);
                    failure.retry_at = Instant::now() + delay;
                    report.retrying += 1;
                    return;
                }
                log::warn!(
                    "world source failed on level-{} column ({}, {}) after {} attempts; drawn as absent: {}",
                    column.level,
                    column.xz.x,
                    column.xz.y,
                    failure.attempts,
                    failure.message
                );
                report.failed += 1;
                // Resident with no nodes; not counted in the estimate of nodes per column.
                self.ready.push_back((column, Vec::new()));
                return;
            }
        };
        self.failures.remove(&column);
        let seen = self.generated.entry(column.level).or_default();
        seen.0 += 1;
        seen.1 += chunks.len() as u64;
        self.ready.push_back((column, chunks));
    }

    /// Inserts whole ready columns while the upload budget lasts. A column waits until its parent
    /// column is in (the top level's have none), so a node never arrives before the level above
    /// it: a coarse node and the children that replace it could otherwise both be drawn.
    fn upload<S: ChunkSink>(&mut self, sink: &mut S, report: &mut UpdateReport) -> Result<(), S::Error> {
        let top = super::plan::top_level(self.settings.view_distance);
        let mut i = 0;
        while let Some((column, chunks)) = self.ready.get(i) {
            if column.level < top && !self.resident.contains_key(&column.parent()) {
                i += 1;
                continue;
            }
            let fits = report.inserted + chunks.len() <= self.settings.uploads_per_update * self.budget_scale;
            // A column larger than the whole budget goes alone, so it cannot wait forever.
            let alone = report.inserted == 0;
            if !fits && !alone {
                break;
            }
            let (column, chunks) = self.ready.remove(i).expect("index in range");
            let mut positions = Vec::with_capacity(chunks.len());
            for (pos, chunk) in chunks {
                if let Err(e) = sink.insert(pos, chunk) {
                    // Keep what did go in, so it is evicted with the column later.
                    self.resident.insert(column, positions);
                    return Err(e);
                }
                positions.push(pos);
                self.resident_chunks.insert(pos);
                self.fresh.insert(pos);
                report.inserted += 1;
            }
            for &pos in &positions {
                self.remesh_neighbours(pos);
            }
            self.resident.insert(column, positions);
            sink.column_ready(column, true);
        }
        Ok(())
    }

    /// Asks for the resident same-level nodes whose meshes read `key` to be re-meshed.
    fn remesh_neighbours(&mut self, key: NodeKey) {
        for neighbour in meshes_reading(ChunkPos(key.pos)).map(|p| NodeKey::new(key.level, p.0)) {
            let stale = self.resident_chunks.contains(&neighbour) && !self.fresh.contains(&neighbour);
            if stale && self.remesh_set.insert(neighbour) {
                self.remesh_queue.push_back(neighbour);
            }
        }
    }

    /// Jobs for the nearest wanted columns that are neither resident, waiting, in flight, nor
    /// waiting out a retry's delay.
    fn request_jobs(&mut self) -> Vec<Job> {
        let room = self.settings.max_in_flight.saturating_sub(self.in_flight.len());
        let waiting: HashSet<NodeColumn> = self.ready.iter().map(|(c, _)| *c).collect();
        let now = Instant::now();
        let columns: Vec<NodeColumn> = self
            .order
            .iter()
            .filter(|c| {
                !self.resident.contains_key(*c)
                    && !self.in_flight.contains_key(*c)
                    && !waiting.contains(*c)
                    && self.failures.get(*c).is_none_or(|f| f.retry_at <= now)
            })
            .take(room)
            .copied()
            .collect();
        columns
            .into_iter()
            .map(|column| {
                let token = next_token();
                self.in_flight.insert(column, token);
                Job { column, token }
            })
            .collect()
    }
}
