//! Terrain generation in web workers, off the page's thread.
//!
//! Each worker (`web/worker.js`) runs its own instance of this wasm module, compiled once by the
//! page and handed over, and answers a job with [`generate_column`]'s bytes as one transferred
//! buffer (`voxgpu_worlds::stream::wire`). Plain dedicated workers and messages: no shared
//! memory, so any static file host serves it, with no cross-origin isolation headers. The page's
//! side is a [`JobRunner`]: the streamer keeps the queue, and each worker holds at most
//! [`JOBS_PER_WORKER`] jobs. Each answer wakes the page (outside its frames), which takes the
//! results and hands out the next jobs at once, so a worker waits for no frame.
//!
//! **Faults.** A source that returns an error fails its job (the streamer retries the column,
//! then draws it as absent). A panic aborts the worker's instance (wasm32 builds abort on a
//! panic): its job fails with the panic's message, the worker is terminated and replaced, and its
//! other jobs go to the new one (whatever the old instance still sends is dropped: each spawn is
//! numbered). A worker that fails before it has answered anything (its script missing, say) is
//! not replaced: the page says so, and when none is left the jobs fail (the streamer retries
//! them, then draws their columns as absent).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::app::EditedChunks;
use crate::page;
use voxgpu_core::voxel::{Chunk, ChunkPos, NodeColumn, NodeKey, with_edited_chunks};
use voxgpu_worlds::stream::wire::{decode_column, decode_nodes, encode_column};
use voxgpu_worlds::stream::{Finished, Job, JobRunner};
use voxgpu_worlds::worldgen::{EXACT_LEVELS, TerrainColumns};

/// Jobs a worker holds at once: one it generates and one waiting behind it.
const JOBS_PER_WORKER: usize = 2;

/// The most workers a page starts, whatever the machine reports.
pub const MAX_WORKERS: u32 = 16;

thread_local! {
    /// A worker's terrain generator, kept between jobs (its seed's noise tables).
    static TERRAIN: RefCell<Option<(u32, TerrainColumns)>> = const { RefCell::new(None) };
    /// The message of the panic that aborted this instance, for the worker's script to report.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// In a worker, once: a panic's message is kept for [`worker_panic`] (the page's own hook shows
/// it on the page, which a worker has not).
#[wasm_bindgen]
pub fn init_worker() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("panicked: {info}");
        PANIC.with(|p| *p.borrow_mut() = Some(message));
    }));
}

/// In a worker: the nodes of terrain column `level`, `(x, z)` of seed `seed`, as bytes
/// (`wire::encode_column`), with `edited` (the edited chunks under it, as `wire` bytes) in
/// place of the chunks generated there. `panic` makes it panic instead: the test hook for a
/// failing source (`?panic-column=`).
#[wasm_bindgen]
pub fn generate_column(
    seed: u32,
    level: u32,
    x: i32,
    z: i32,
    edited: Option<Vec<u8>>,
    panic: bool,
) -> Result<Vec<u8>, JsValue> {
    assert!(!panic, "the test hook's panic in column {level} {x} {z}");
    let column = NodeColumn { level, xz: glam::IVec2::new(x, z) };
    let edited: Vec<(ChunkPos, Chunk)> = match edited {
        None => Vec::new(),
        Some(bytes) => decode_nodes(&bytes)
            .map_err(|e| JsValue::from_str(&format!("edited chunks: {e}")))?
            .into_iter()
            .filter_map(|(key, chunk)| key.as_chunk().map(|pos| (pos, chunk)))
            .collect(),
    };
    TERRAIN.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_none_or(|(s, _)| *s != seed) {
            *slot = Some((seed, TerrainColumns::new(u64::from(seed))));
        }
        let terrain = &slot.as_ref().expect("set above").1;
        Ok(encode_column(&terrain.node_column_with(column, &move |xz, generated| {
            with_edited_chunks(xz, generated, edited.iter().map(|(p, c)| (*p, c)))
        })))
    })
}

/// In a worker, after a call trapped: the panic's message, if a panic caused it.
#[wasm_bindgen]
pub fn worker_panic() -> Option<String> {
    PANIC.with(|p| p.borrow_mut().take())
}

/// One worker and the jobs it holds.
struct Slot {
    worker: Worker,
    /// Which spawn this is: messages of a worker this one replaced carry an older number.
    spawn: u32,
    jobs: Vec<Job>,
    /// It has answered at least once (so a later failure is the source's, not its start's).
    answered: bool,
    /// Terminated after a start-up failure: takes no jobs.
    dead: bool,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// What a worker said, with its slot and spawn.
enum Message {
    Data(usize, u32, JsValue),
    /// The worker's script failed outside a job (it could not load, or threw at its top level).
    Error(usize, u32, String),
}

/// The page's side of the generation workers.
pub struct WebWorkers {
    seed: u32,
    /// The world's edited chunks, handed with each job to the worker.
    edited: EditedChunks,
    /// The compiled module, handed to each new worker.
    module: JsValue,
    /// Column whose generation panics (the test hook).
    panic_column: Option<NodeColumn>,
    slots: Vec<Slot>,
    /// Spawns so far.
    spawns: u32,
    inbox: Rc<RefCell<Vec<Message>>>,
    /// Called after each message arrives (outside any frame): the page takes the results and
    /// hands out the next jobs then, not only once a frame.
    wake: Rc<dyn Fn()>,
    /// Jobs failed outside `results` (no worker left to take them), returned by the next call.
    failed: Vec<Finished>,
    /// Workers replaced after a panic, so far.
    pub replaced: Rc<RefCell<u32>>,
}

impl WebWorkers {
    /// `count` workers generating terrain of `seed` with `module` (a `WebAssembly.Module` of this
    /// build), with the world's `edited` chunks; `wake` is called when a worker has answered.
    pub fn new(
        count: u32,
        seed: u32,
        module: JsValue,
        edited: EditedChunks,
        panic_column: Option<NodeColumn>,
        wake: Rc<dyn Fn()>,
    ) -> Result<Self, String> {
        let mut workers = Self {
            seed,
            edited,
            module,
            panic_column,
            slots: Vec::new(),
            spawns: 0,
            inbox: Rc::default(),
            wake,
            failed: Vec::new(),
            replaced: Rc::default(),
        };
        for i in 0..count.max(1) as usize {
            let slot = workers.spawn(i)?;
            workers.slots.push(slot);
        }
        Ok(workers)
    }

    pub fn count(&self) -> usize {
        self.slots.len()
    }

    fn spawn(&mut self, index: usize) -> Result<Slot, String> {
        self.spawns += 1;
        let spawn = self.spawns;
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("worker.js", &options)
            .map_err(|e| format!("cannot start a generation worker: {}", page::js_message(e)))?;
        let (inbox, wake) = (Rc::clone(&self.inbox), Rc::clone(&self.wake));
        let on_message = Closure::new(move |event: MessageEvent| {
            inbox.borrow_mut().push(Message::Data(index, spawn, event.data()));
            wake();
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let (inbox, wake) = (Rc::clone(&self.inbox), Rc::clone(&self.wake));
        let on_error = Closure::new(move |event: web_sys::Event| {
            // The page handles it: keep the browser from logging it as uncaught as well.
            event.prevent_default();
            // A script that did not load fires a plain `Event`, with no message.
            let text = get(&event, "message").as_string().unwrap_or_else(|| "its script did not load".into());
            inbox.borrow_mut().push(Message::Error(index, spawn, text));
            wake();
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let init = js_sys::Object::new();
        set(&init, "module", &self.module);
        worker
            .post_message(&init)
            .map_err(|e| format!("cannot start a generation worker: {}", page::js_message(e)))?;
        Ok(Slot {
            worker,
            spawn,
            jobs: Vec::new(),
            answered: false,
            dead: false,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn post(&self, slot: usize, job: Job) {
        let message = js_sys::Object::new();
        set(&message, "token", &JsValue::from_f64(job.token as f64));
        set(&message, "seed", &JsValue::from(self.seed));
        set(&message, "level", &JsValue::from(job.column.level));
        set(&message, "x", &JsValue::from(job.column.xz.x));
        set(&message, "z", &JsValue::from(job.column.xz.y));
        set(&message, "panic", &JsValue::from_bool(self.panic_column == Some(job.column)));
        if let Some(edited) = self.edited_under(job.column) {
            set(&message, "edited", &js_sys::Uint8Array::from(&edited[..]));
        }
        // A worker that cannot take a message has failed; its error event follows.
        let _ = self.slots[slot].worker.post_message(&message);
    }

    /// The edited chunks under `column` as `wire` bytes, where it is built from chunks (levels up
    /// to `EXACT_LEVELS`; coarser levels are generated from the noise and see no edits) and any
    /// were edited.
    fn edited_under(&self, column: NodeColumn) -> Option<Vec<u8>> {
        if column.level > EXACT_LEVELS {
            return None;
        }
        let edited = self.edited.read().unwrap_or_else(|e| e.into_inner());
        let under: Vec<(NodeKey, Chunk)> = edited
            .iter()
            .filter(|(p, _)| column.covers_chunk_column(glam::IVec2::new(p.0.x, p.0.z)))
            .map(|(p, c)| (NodeKey::chunk(*p), (**c).clone()))
            .collect();
        (!under.is_empty()).then(|| encode_column(&under))
    }

    /// Replaces worker `index` after a panic, handing its remaining jobs to the new one; where no
    /// new worker starts, they fail (into `out`) and the slot stays stopped.
    fn replace(&mut self, index: usize, out: &mut Vec<Finished>) {
        self.slots[index].worker.terminate();
        let jobs = std::mem::take(&mut self.slots[index].jobs);
        match self.spawn(index) {
            Ok(slot) => {
                self.slots[index] = slot;
                for &job in &jobs {
                    self.post(index, job);
                }
                self.slots[index].jobs = jobs;
                *self.replaced.borrow_mut() += 1;
            }
            Err(e) => {
                page::fail(&e);
                self.slots[index].dead = true;
                out.extend(jobs.into_iter().map(|job| failure(job, &e)));
            }
        }
    }

    /// Takes the job carrying `token` from slot `index`.
    fn take_job(&mut self, index: usize, token: u64) -> Option<Job> {
        let jobs = &mut self.slots[index].jobs;
        let at = jobs.iter().position(|j| j.token == token)?;
        Some(jobs.remove(at))
    }

    /// Worker `index` failed outside a job: its jobs fail with `text`. One that had answered
    /// before is replaced; one that never did could not start, and is left stopped.
    fn stopped(&mut self, index: usize, text: &str, out: &mut Vec<Finished>) {
        let jobs = std::mem::take(&mut self.slots[index].jobs);
        out.extend(jobs.into_iter().map(|job| failure(job, &format!("generation worker failed: {text}"))));
        if self.slots[index].answered {
            self.replace(index, out);
        } else if !self.slots[index].dead {
            self.slots[index].worker.terminate();
            self.slots[index].dead = true;
            page::fail(&format!("a generation worker could not start: {text}"));
        }
    }
}

/// `job` failed with `text`.
fn failure(job: Job, text: &str) -> Finished {
    Finished { column: job.column, token: job.token, chunks: Err(text.to_string()) }
}

impl JobRunner for WebWorkers {
    fn room(&self) -> usize {
        self.slots.iter().filter(|s| !s.dead).map(|s| JOBS_PER_WORKER.saturating_sub(s.jobs.len())).sum()
    }

    fn start(&mut self, job: Job) {
        let live = (0..self.slots.len()).filter(|&i| !self.slots[i].dead);
        match live.min_by_key(|&i| self.slots[i].jobs.len()) {
            Some(index) => {
                self.slots[index].jobs.push(job);
                self.post(index, job);
            }
            None => self.failed.push(failure(job, "no generation worker is running")),
        }
    }

    fn results(&mut self) -> Vec<Finished> {
        let messages = std::mem::take(&mut *self.inbox.borrow_mut());
        let mut out = std::mem::take(&mut self.failed);
        for message in messages {
            let (index, data) = match message {
                // A worker already replaced: its jobs went to the new one.
                Message::Data(index, spawn, _) | Message::Error(index, spawn, _)
                    if self.slots[index].spawn != spawn =>
                {
                    continue;
                }
                Message::Data(index, _, data) if get(&data, "startup").as_bool() != Some(true) => {
                    (index, data)
                }
                Message::Data(index, _, data) => {
                    let text = get(&data, "error").as_string().unwrap_or_default();
                    self.stopped(index, &text, &mut out);
                    continue;
                }
                Message::Error(index, _, text) => {
                    self.stopped(index, &text, &mut out);
                    continue;
                }
            };
            let token = get(&data, "token").as_f64().unwrap_or(-1.0) as u64;
            let Some(job) = self.take_job(index, token) else { continue };
            self.slots[index].answered = true;
            let bytes = get(&data, "bytes");
            let chunks = if bytes.is_instance_of::<js_sys::ArrayBuffer>() {
                let bytes = js_sys::Uint8Array::new(&bytes).to_vec();
                decode_column(job.column, &bytes)
                    .map(|nodes| nodes.into_iter().map(|(k, c)| (k, Arc::new(c))).collect())
            } else {
                Err(get(&data, "error").as_string().unwrap_or_else(|| "a worker sent nothing".into()))
            };
            out.push(Finished { column: job.column, token: job.token, chunks });
            if get(&data, "lost").as_bool() == Some(true) {
                self.replace(index, &mut out);
            }
        }
        out
    }
}

impl Drop for WebWorkers {
    fn drop(&mut self) {
        for slot in &self.slots {
            slot.worker.terminate();
        }
    }
}

fn set(object: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(object, &JsValue::from_str(key), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}
