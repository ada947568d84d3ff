//! The frame-loop part: which frame is being made and what is still owed for the frames made
//! before it. It holds the frame index, what `prepare` set up for `record`, the recorded frame
//! awaiting its submission, the staging belt its uploads went through, the GPU counters'
//! read-back and the profiler.
//!
//! Invariants:
//! - a frame is prepared, then recorded, then confirmed (`frame_submitted`) before the next is
//!   prepared; a frame recorded but never confirmed is taken as dropped by the next `prepare`,
//!   which replays its uploads ([`FrameLoop::check_submitted`]);
//! - `frame_index` counts recorded frames that were not dropped: the frame being recorded has
//!   this number, and counters and timings name their frame by it.

use web_time::Instant;

use super::residency::Residency;
use crate::GpuError;
use crate::counters::CounterReadback;
use crate::layouts::{LodParams, PassParams};
use crate::profiling::Profiling;

/// Staging belt chunk size, and the upload size in one frame beyond which the belt is replaced.
const BELT_CHUNK_BYTES: u64 = 1 << 20;
const BELT_KEEP_BYTES: u64 = 16 << 20;

/// The frame `prepare` set up, for `record`.
pub(crate) struct Prepared {
    /// The view the frame is drawn from, and the frame size and culling it was prepared with
    /// (the camera uniform's aspect, the frozen camera checked).
    pub camera: voxgpu_core::camera::Camera,
    pub view: ((u32, u32), crate::Culling),
    pub params: PassParams,
    pub lod: LodParams,
    pub started: Instant,
    /// Evicted chunks this frame's work list has room for (they are collected first).
    pub evicted_room: u32,
    /// The frame draws sun shadows ([`crate::RendererOptions::shadows`] on this device).
    pub shadows: bool,
    /// How the frame's draw lists are submitted: the camera uniform `prepare` wrote says so too,
    /// so `record` follows it even where the submission changed in between.
    pub submission: crate::DrawSubmission,
}

/// A recorded frame, until the caller has submitted it.
struct Recorded {
    /// The counter read-back slot the frame copied into, if one was free.
    counters: Option<usize>,
    /// Milliseconds from `prepare` to the end of `record`.
    cpu_ms: f64,
    /// Evicted chunks its work list had room for: how many it released.
    evicted_room: u32,
}

pub(crate) struct FrameLoop {
    /// Frames submitted so far; the frame being recorded has this number.
    pub frame_index: u64,
    /// What `prepare` computed for the frame `record` records next.
    pub prepared: Option<Prepared>,
    /// A recorded frame whose after-submission work (counter read-back, profiler frame end,
    /// staging belt recall) has not run yet.
    unsubmitted: Option<Recorded>,
    pub belt: wgpu::util::StagingBelt,
    /// Bytes the frame being recorded uploads through the belt.
    pub uploaded_bytes: u64,
    pub counters: CounterReadback,
    pub profiling: Profiling,
    /// Render-pass commands the last frame recorded.
    pub render_pass_commands: u32,
    /// Whether the last recorded frame tested occlusion.
    pub occlusion_tested: bool,
    /// Nodes the last recorded frame lit, and of them chunks.
    pub light_nodes: (u32, u32),
    device: wgpu::Device,
}

impl FrameLoop {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            frame_index: 0,
            prepared: None,
            unsubmitted: None,
            belt: wgpu::util::StagingBelt::new(device.clone(), BELT_CHUNK_BYTES),
            uploaded_bytes: 0,
            counters: CounterReadback::new(device),
            profiling: Profiling::new(device),
            render_pass_commands: 0,
            occlusion_tested: false,
            light_nodes: (0, 0),
            device: device.clone(),
        }
    }

    /// Ends a recording: resolves the profiler's queries and closes the staging belt, whose
    /// copies the encoder holds. The frame counts as submitted from here on, and its
    /// after-submission work (`counters`: the read-back slot it copied into) waits for
    /// [`Self::after_submit`].
    pub fn finish_recording(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        counters: Option<usize>,
        started: Instant,
        evicted_room: u32,
    ) {
        self.profiling.profiler.resolve_queries(encoder);
        self.belt.finish();
        self.frame_index += 1;
        self.unsubmitted =
            Some(Recorded { counters, cpu_ms: started.elapsed().as_secs_f64() * 1e3, evicted_room });
    }

    /// `Err(FrameNotSubmitted)` when the last recorded frame was never confirmed: its encoder
    /// is taken as dropped, its uploads are queued again (ahead of those made since), its
    /// eviction bookkeeping is not applied, its frame number is given back and its staging
    /// memory recalled. Its profiler frame is closed and its timings skipped (its queries were
    /// never resolved).
    pub fn check_submitted(&mut self, resident: &mut Residency) -> Result<(), GpuError> {
        if self.unsubmitted.take().is_none() {
            return Ok(());
        }
        resident.pool.replay();
        self.belt.recall();
        self.frame_index -= 1;
        let _ = self.profiling.end_dropped_frame();
        Err(GpuError::FrameNotSubmitted)
    }

    /// The work after the caller submitted the last recorded frame (nothing if none is owed):
    /// applies its evictions, recycles its staging memory, asks for its counters, and closes its
    /// profiler frame with `submit_ms` as its encoding and submission time.
    pub fn after_submit(
        &mut self,
        resident: &mut Residency,
        queue: &wgpu::Queue,
        submit_ms: f64,
    ) -> Result<(), GpuError> {
        let Some(recorded) = self.unsubmitted.take() else { return Ok(()) };
        resident.pool.confirm(recorded.evicted_room);
        self.belt.recall();
        // The belt keeps every staging chunk it ever needed: after a burst (a world loaded at
        // once is gigabytes) start a fresh one, so the burst's staging memory is freed.
        if self.uploaded_bytes > BELT_KEEP_BYTES {
            self.belt = wgpu::util::StagingBelt::new(self.device.clone(), BELT_CHUNK_BYTES);
        }
        if let Some(index) = recorded.counters {
            self.counters.request(index);
        }
        self.profiling.end_frame((recorded.cpu_ms, submit_ms))?;
        self.profiling.collect(queue.get_timestamp_period());
        Ok(())
    }
}
