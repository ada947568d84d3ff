//! The renderer's calls that wait for the GPU or change how frames are measured: settling a
//! world, timing a full re-mesh, and the profiling controls. None of them belongs in an interactive frame loop except
//! `latest_timings`.

use web_time::Instant;

use super::{Renderer, Targets};
use crate::FrameStats;
use crate::GpuError;
use crate::counters::read_now;
use crate::profiling::FrameTimings;
use voxgpu_core::camera::Camera;

/// Frames `settle` renders at most before giving up.
const MAX_SETTLE_FRAMES: u32 = 64;

impl Renderer {
    /// Turns GPU timestamp profiling on or off. On an adapter without timestamp queries, turning
    /// it on fails with [`GpuError::NoTimestamps`] and rendering goes on unprofiled.
    pub fn set_profiling(&mut self, enabled: bool) -> Result<(), GpuError> {
        self.profiling.set_enabled(enabled, self.caps.timestamps, &self.adapter_name)
    }

    /// The newest frame whose GPU timings have arrived (a few frames old), if profiling is on.
    pub fn latest_timings(&self) -> Option<&FrameTimings> {
        self.profiling.latest.as_ref()
    }

    /// Every profiled frame finished since the last call, oldest first.
    pub fn take_timings(&mut self) -> Vec<FrameTimings> {
        self.profiling.collect(self.queue.get_timestamp_period());
        self.profiling.take_finished()
    }

    /// Waits until every submitted frame's timings have arrived.
    pub fn flush_timings(&mut self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        self.profiling.collect(self.queue.get_timestamp_period());
        Ok(())
    }

    /// Renders into `targets` until every chunk is meshed: frames repeat while the mesher still
    /// had work or was refused pages (the pool grows in between). Waits for the GPU after each
    /// frame, so it is for headless rendering, loading screens, tests and benchmarks, not the
    /// interactive loop. The returned stats are exact for the last frame, which drew the
    /// complete world.
    pub fn settle(&mut self, camera: &Camera, targets: &Targets) -> Result<FrameStats, GpuError> {
        for _ in 0..MAX_SETTLE_FRAMES {
            self.render(camera, targets)?;
            let counters = read_now(&self.device, &self.queue, &self.counter_sources())?;
            let refused = counters.failed_pages > self.failed_pages_seen;
            // The counters are those of the frame just submitted.
            self.handle_counters(counters, self.frame_index - 1)?;
            if counters.jobs_asked == 0 && !refused {
                return Ok(self.stats(counters));
            }
        }
        Err(GpuError::Unsettled { frames: MAX_SETTLE_FRAMES })
    }

    /// Re-meshes every resident chunk once and returns the mesher's GPU milliseconds: the sum of
    /// its profiled passes on a real GPU, the wall clock around submit-and-wait on a software
    /// adapter (whose pass timestamps do not enclose the work). Waits for the GPU.
    pub fn timed_remesh(&mut self) -> Result<f64, GpuError> {
        self.check_submitted()?;
        let was_profiling = self.profiling.enabled();
        let wall_clock = self.device_type == wgpu::DeviceType::Cpu;
        if !wall_clock {
            self.set_profiling(true)?;
        }
        self.take_timings();
        self.pool.mark_all_dirty();
        let params = self.size_frame();
        self.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(&self.work, 0, bytemuck::cast_slice(&[0u32, 1, 1, 0]));
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.bench") });
        self.record_uploads(&mut encoder);
        let frame = self.frame.as_ref().expect("prepared");
        self.mesher.record(
            &mut encoder,
            &self.profiling.profiler,
            &frame.mesh,
            &self.work,
            params.slot_count,
            crate::mesher::Collect::EvictedAndDirty,
        );
        let started = Instant::now();
        self.finish_recording(&mut encoder, None, started);
        self.queue.submit([encoder.finish()]);
        self.after_submit(0.0)?;
        self.flush_timings()?;
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        let frames = self.take_timings();
        self.profiling.set_enabled(was_profiling, self.caps.timestamps, &self.adapter_name)?;

        // The pass must have meshed every chunk, with every page granted, or the time means little.
        let counters = read_now(&self.device, &self.queue, &self.counter_sources())?;
        let all_jobs = 6 * self.pool.len() as u32;
        if counters.failed_pages > self.failed_pages_seen
            || counters.jobs_asked != all_jobs
            || params.max_jobs < all_jobs
        {
            return Err(GpuError::Unsettled { frames: 1 });
        }
        if wall_clock {
            return Ok(wall_ms);
        }
        let frame = frames.last().ok_or_else(|| GpuError::Profiler("no timings arrived".into()))?;
        Ok(frame.stages.iter().filter(|s| s.name.starts_with("mesh.")).map(|s| s.duration_ms).sum())
    }
}
