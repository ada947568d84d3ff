//! Generation on worker threads: jobs in through one channel, results out through another.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Finished, Job};
use voxgpu_core::voxel::{Chunk, NodeColumn, NodeKey};

/// Generates one node column: its non-empty nodes. Any world can be a source: level 0 is its
/// chunks, and coarser levels are either generated at their resolution (terrain) or built from
/// the chunks by the mip rule.
pub type ColumnSource = dyn Fn(NodeColumn) -> Vec<(NodeKey, Chunk)> + Send + Sync;

/// A fixed set of worker threads running generation jobs. Dropping the pool lets the workers
/// finish the jobs already queued, then stops them. Jobs the manager has since forgotten are
/// still generated, and their results dropped.
pub struct GenerationPool {
    jobs: Option<Sender<Job>>,
    results: Receiver<Finished>,
    workers: Vec<JoinHandle<()>>,
}

impl GenerationPool {
    pub fn new(threads: usize, source: Arc<ColumnSource>) -> Self {
        let (job_tx, job_rx) = channel::<Job>();
        let (result_tx, results) = channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..threads.max(1))
            .map(|i| {
                let (jobs, results, source) = (Arc::clone(&job_rx), result_tx.clone(), Arc::clone(&source));
                std::thread::Builder::new()
                    .name(format!("voxgpu-gen-{i}"))
                    .spawn(move || worker(&jobs, &results, &*source))
                    .expect("spawning a worker thread")
            })
            .collect();
        Self { jobs: Some(job_tx), results, workers }
    }

    pub fn submit(&self, jobs: impl IntoIterator<Item = Job>) {
        if let Some(tx) = &self.jobs {
            for job in jobs {
                // The workers only stop when the pool is dropped.
                let _ = tx.send(job);
            }
        }
    }

    /// Every result that has arrived, without waiting.
    pub fn try_results(&self) -> Vec<Finished> {
        self.results.try_iter().collect()
    }

    /// Waits up to `timeout` for one result, then takes every other that has arrived.
    pub fn wait_results(&self, timeout: Duration) -> Vec<Finished> {
        let mut out: Vec<Finished> = self.results.recv_timeout(timeout).into_iter().collect();
        out.extend(self.results.try_iter());
        out
    }
}

fn worker(jobs: &Mutex<Receiver<Job>>, results: &Sender<Finished>, source: &ColumnSource) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        let chunks = source(job.column).into_iter().map(|(p, c)| (p, Arc::new(c))).collect();
        if results.send(Finished { column: job.column, token: job.token, chunks }).is_err() {
            return;
        }
    }
}

impl Drop for GenerationPool {
    fn drop(&mut self) {
        self.jobs = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
