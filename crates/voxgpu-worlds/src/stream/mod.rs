//! Streaming: which nodes are resident around a moving camera, generated off the render thread.
//!
//! - [`ChunkManager`] is a state machine with no GPU and no threads inside (its only input besides
//!   its calls is the clock, for the delay before a failed column is retried). Each update it takes the
//!   camera's position and the generation results that arrived, and decides: which node columns
//!   should be resident at each level ([`plan`]: chunks near the camera, coarser nodes out to
//!   the view distance), which to ask the workers for (by distance over node size, so the
//!   horizon arrives coarse before the near field refines), which finished columns to upload,
//!   which to evict, and which neighbours to re-mesh. Uploads and re-mesh requests are bounded
//!   per update, and pending re-meshes are deduplicated. It talks to the renderer through
//!   [`ChunkSink`], and tells it when a column is complete, which lets children replace their
//!   parent.
//! - [`GenerationPool`] runs generation jobs on worker threads, on workers someone else owns (a
//!   [`JobRunner`]: the browser's web workers, which return each column as bytes, [`wire`]), or
//!   on the caller's thread within a time budget per update. A job is an owned
//!   snapshot (a column and a token); its result comes back through a channel. Queued jobs of
//!   columns no longer wanted are cancelled before they start.
//! - **A failing source** (an error, or a panic: caught where panics unwind; in the browser,
//!   whose wasm build aborts on a panic, the worker's instance dies and the page's runner reports
//!   the job failed) fails only its column: the manager retries it
//!   after a growing delay, a bounded number of times ([`StreamSettings::attempts`]), then marks
//!   it failed. A failed column counts as resident with no nodes, so it is drawn as absent (its
//!   neighbours' faces toward it show), nothing waits on it, and it is reported once; it is tried
//!   again only after it has left the wanted set and come back.
//! - **Generation tokens** come from one global monotonic counter ([`next_token`]). A result is
//!   applied only when its column is still wanted *and* its token is still the latest issued for
//!   that column; otherwise it is dropped and nothing else happens.

mod manager;
pub mod plan;
pub mod wire;
mod workers;

pub use manager::{ChunkManager, StreamSettings, UpdateReport};
pub use voxgpu_core::ChunkSink;
pub use workers::{ColumnSource, GenerationPool, JobRunner, SourceError};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use std::time::Duration;

use glam::Vec3;

use voxgpu_core::voxel::{Chunk, NodeColumn, NodeKey};

/// A generation job: generate node column `column`; the result must carry `token` back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub column: NodeColumn,
    pub token: u64,
}

/// A column's non-empty nodes, bottom up.
pub type ColumnChunks = Vec<(NodeKey, Arc<Chunk>)>;

/// A finished job: the column's nodes, or the source's error (or panic) as one line.
#[derive(Clone, Debug)]
pub struct Finished {
    pub column: NodeColumn,
    pub token: u64,
    pub chunks: Result<ColumnChunks, String>,
}

/// The update rate [`StreamSettings`]' per-update budgets are meant for.
const UPDATES_PER_SECOND: f64 = 60.0;

static TOKENS: AtomicU64 = AtomicU64::new(1);

/// A generation token: strictly increasing over the whole process, from any thread.
pub fn next_token() -> u64 {
    TOKENS.fetch_add(1, Ordering::Relaxed)
}

/// A manager and a worker pool together: what a frame loop or `render --flight` drives.
pub struct Streamer {
    pub manager: ChunkManager,
    pool: GenerationPool,
    /// Columns generated so far (results received, applied or dropped).
    pub generated: u64,
    /// Jobs cancelled before they started, so far.
    pub cancelled: u64,
    /// Results [`Self::collect`] took between updates, for the next update.
    collected: Vec<Finished>,
    /// Updates' worth of budgets [`Self::update_over`] owes (the fraction of 1/60 s it has not
    /// spent yet), or has spent ahead when negative.
    owed_updates: f64,
}

impl Streamer {
    /// Generation on `threads` worker threads.
    pub fn new(settings: StreamSettings, threads: usize, source: Arc<ColumnSource>) -> Self {
        Self::with_pool(settings, GenerationPool::new(threads, source))
    }

    /// Generation on the caller's thread, inside [`Self::update`], for up to `budget` per update
    /// (at least one column when any is wanted): for platforms without threads.
    pub fn inline(settings: StreamSettings, source: Arc<ColumnSource>, budget: Duration) -> Self {
        Self::with_pool(settings, GenerationPool::inline(source, budget))
    }

    /// Generation by `runner` (the browser's web workers).
    pub fn with_runner(settings: StreamSettings, runner: Box<dyn JobRunner>) -> Self {
        Self::with_pool(settings, GenerationPool::runner(runner))
    }

    fn with_pool(settings: StreamSettings, pool: GenerationPool) -> Self {
        Self {
            manager: ChunkManager::new(settings),
            pool,
            generated: 0,
            cancelled: 0,
            collected: Vec::new(),
            owed_updates: 0.0,
        }
    }

    /// One update: takes the results that arrived, updates the manager, hands out its jobs.
    pub fn update<S: ChunkSink>(&mut self, eye: Vec3, sink: &mut S) -> Result<UpdateReport, S::Error> {
        let mut results = std::mem::take(&mut self.collected);
        results.extend(self.pool.try_results());
        self.step(eye, results, sink)
    }

    /// One update standing for `elapsed` of the caller's time (the interval since its last
    /// update): the upload and re-mesh budgets are spent once for each 1/60 s of it, the
    /// fraction carried to the next update, up to one second's worth (and at least once an
    /// update). Streaming then inserts at the same rate in chunks a second whatever the frame
    /// rate: where a frame takes a second (a software adapter drawing the horizon), one update
    /// inserts what sixty would at 60 frames a second, and the frame meshes and lights them
    /// together, so a node whose neighbours arrive in the same update is meshed and lit once,
    /// not once per neighbour. Jobs in flight stay bounded by `max_in_flight`.
    pub fn update_over<S: ChunkSink>(
        &mut self,
        eye: Vec3,
        sink: &mut S,
        elapsed: Duration,
    ) -> Result<UpdateReport, S::Error> {
        let owed = (self.owed_updates + elapsed.as_secs_f64() * UPDATES_PER_SECOND).min(UPDATES_PER_SECOND);
        let updates = owed.floor().max(1.0);
        // Spending ahead (a frame shorter than 1/60 s) is forgiven after one update's worth.
        self.owed_updates = (owed - updates).max(-1.0);
        self.manager.set_budget_scale(updates as usize);
        let report = self.update(eye, sink);
        self.manager.set_budget_scale(1);
        report
    }

    /// Between updates: takes a [`JobRunner`]'s results as they arrive (kept for the next
    /// update), which hands the runner its next queued jobs at once rather than at the next
    /// update. For runners only: inline, it would generate.
    pub fn collect(&mut self) {
        let results = self.pool.try_results();
        self.collected.extend(results);
    }

    /// The manager's update on `results`, then the pool: forgotten jobs cancelled, new ones
    /// handed out.
    fn step<S: ChunkSink>(
        &mut self,
        eye: Vec3,
        results: Vec<Finished>,
        sink: &mut S,
    ) -> Result<UpdateReport, S::Error> {
        self.generated += results.len() as u64;
        let (jobs, mut report) = self.manager.update(eye, results, sink)?;
        report.cancelled = self.pool.cancel(&self.manager.take_forgotten());
        self.cancelled += report.cancelled as u64;
        self.pool.submit(jobs);
        Ok(report)
    }

    /// Updates at `eye`, waiting for the workers, until every wanted column is resident (or
    /// failed) and no re-mesh is pending. For headless use and tests. A failing column costs at
    /// most its retries' delays, never a wait without end.
    pub fn settle<S: ChunkSink>(&mut self, eye: Vec3, sink: &mut S) -> Result<(), S::Error> {
        self.update(eye, sink)?;
        while !self.manager.is_settled() {
            let results = self.pool.wait_results(Duration::from_millis(50));
            self.step(eye, results, sink)?;
        }
        Ok(())
    }
}
