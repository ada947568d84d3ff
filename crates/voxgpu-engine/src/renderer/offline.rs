//! The renderer's calls that wait for the GPU or serve tools rather than a frame loop:
//! settling a world, and the [`Tools`] handle (profiling controls, the draw submission, the
//! depth pre-pass switch, a timed full re-mesh).

use web_time::Instant;

use super::{Renderer, Targets};
use crate::counters::read_now;
use crate::inspect::Inspector;
use crate::profiling::FrameTimings;
use crate::{FrameStats, GpuError};
use voxgpu_core::camera::Camera;

/// Frames `settle` renders at most before giving up.
const MAX_SETTLE_FRAMES: u32 = 64;

impl Renderer {
    /// Renders into `targets` until every chunk is meshed: frames repeat while the mesher still
    /// had work or was refused pages (the pool grows in between). Waits for the GPU after each
    /// frame, so it is for headless rendering, loading screens, tests and benchmarks, not the
    /// interactive loop. The returned stats are exact for the last frame, which drew the
    /// complete world.
    pub fn settle(&mut self, camera: &Camera, targets: &Targets) -> Result<FrameStats, GpuError> {
        for _ in 0..MAX_SETTLE_FRAMES {
            self.render(camera, targets)?;
            let counters = self.read_counters_now()?;
            let refused = self.resident.refused_since_seen(&counters);
            // The counters are those of the frame just submitted.
            self.handle_counters(counters, self.frames.frame_index - 1)?;
            // Settled: nothing left to mesh and no cross-fade under way.
            if counters.jobs_asked == 0 && !refused && counters.fading_nodes == 0 {
                return Ok(self.stats(counters));
            }
        }
        Err(GpuError::Unsettled { frames: MAX_SETTLE_FRAMES })
    }

    /// Reads what the GPU holds (meshes, levels of detail, visibility, mips, the transparent
    /// order) and how the renderer runs on its device. Each read waits for the GPU.
    pub fn inspect(&self) -> Inspector<'_> {
        Inspector::new(self)
    }

    /// The controls tools use: profiling, the depth pre-pass, a timed full re-mesh.
    pub fn tools(&mut self) -> Tools<'_> {
        Tools { renderer: self }
    }

    fn read_counters_now(&self) -> Result<crate::counters::GpuCounters, GpuError> {
        read_now(
            &self.gpu.device,
            &self.gpu.queue,
            &self.passes.counter_sources(&self.resident, self.shadows()),
        )
    }

    pub(crate) fn parts(&self) -> (&super::device::Gpu, &super::Residency, &super::passes::Passes) {
        (&self.gpu, &self.resident, &self.passes)
    }

    pub(crate) fn render_pass_commands(&self) -> u32 {
        self.frames.render_pass_commands
    }

    pub(crate) fn latest_timings(&self) -> Option<&FrameTimings> {
        self.frames.profiling.latest.as_ref()
    }
}

/// A renderer's controls for tools and measurements ([`Renderer::tools`]): nothing a game's
/// frame loop needs.
pub struct Tools<'a> {
    renderer: &'a mut Renderer,
}

impl Tools<'_> {
    /// Turns GPU timestamp profiling on or off. On an adapter without timestamp queries, turning
    /// it on fails with [`GpuError::NoTimestamps`] and rendering goes on unprofiled.
    pub fn set_profiling(&mut self, enabled: bool) -> Result<(), GpuError> {
        let r = &mut *self.renderer;
        r.frames.profiling.set_enabled(enabled, r.gpu.caps.timestamps, &r.gpu.adapter_name)
    }

    /// Every profiled frame finished since the last call, oldest first.
    pub fn take_timings(&mut self) -> Vec<FrameTimings> {
        let r = &mut *self.renderer;
        r.frames.profiling.collect(r.gpu.queue.get_timestamp_period());
        r.frames.profiling.take_finished()
    }

    /// Waits until every submitted frame's timings have arrived.
    pub fn flush_timings(&mut self) -> Result<(), GpuError> {
        let r = &mut *self.renderer;
        r.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        r.frames.profiling.collect(r.gpu.queue.get_timestamp_period());
        Ok(())
    }

    /// Freezes the level-of-detail decisions (which nodes are drawn, and each one's mip) as the
    /// last frame left them, or lets the LOD pass decide again, from the next frame on. With
    /// residency held still too (no inserts or removals), a frozen frame is the last frame's
    /// decisions seen from this frame's camera: what a pop score compares the live frame with.
    pub fn set_lod_frozen(&mut self, frozen: bool) {
        self.renderer.passes.lod_frozen = frozen;
    }

    /// Runs of at most `pairs` job pairs are meshed one face per workgroup from the next frame
    /// on (the default is [`crate::MESH_SPLIT_PAIRS`] on a GPU, 0 on a software adapter): tests
    /// run both layouts of the mesh pass on any adapter this way.
    pub fn set_mesh_split_pairs(&mut self, pairs: u32) {
        self.renderer.passes.split_pairs = pairs;
    }

    /// The light's spread rounds sweep lines of 32 cells (`true`, the default on a software
    /// adapter) or give each word of 4 cells an invocation (`false`, the default on a GPU), from
    /// the next frame on: tests run both on any adapter this way.
    pub fn set_light_spread_in_lines(&mut self, lines: bool) {
        self.renderer.passes.light.set_spread_in_lines(lines);
    }

    /// Submits the draw lists `submission`'s way from the next `prepare` on (a frame already
    /// prepared keeps the way it was prepared with), kept across a recovered device: tests draw
    /// one loaded world every way the adapter can, instead of loading it once per way. Refused,
    /// changing nothing, where the device cannot submit that way.
    pub fn set_draw_submission(&mut self, submission: crate::DrawSubmission) -> Result<(), GpuError> {
        let r = &mut *self.renderer;
        super::device::check_submission(submission, r.gpu.caps, &r.gpu.adapter_name)?;
        r.gpu.submission = submission;
        r.options.draw_submission = Some(submission);
        Ok(())
    }

    /// Turns the opaque depth pre-pass on or off (filled modes), from the next frame on.
    pub fn set_depth_prepass(&mut self, on: bool) {
        self.renderer.options.depth_prepass = on;
    }

    /// Draws the opaque lists in distance bands, nearest first (on by default); off, every opaque
    /// command goes to the nearest band's list, in the order the cull pass wrote them. For
    /// measuring what the order gains.
    pub fn set_front_to_back(&mut self, on: bool) {
        self.renderer.passes.front_to_back = on;
    }

    /// Copies each frame's first-phase depth (what the depth pyramid is built from) where
    /// [`crate::low_level::Inspector::first_phase_depth`] reads it (at every frame size, a resize
    /// included); off, nothing is copied. For tests of the pyramid against its CPU twin.
    pub fn set_depth_capture(&mut self, on: bool) {
        let r = &mut *self.renderer;
        r.passes.pyramid.set_capture(&r.gpu.device, &r.gpu.queue, on);
    }

    /// Re-meshes every resident chunk once and returns the mesher's GPU milliseconds: the sum of
    /// its profiled passes on a real GPU, the wall clock around submit-and-wait on a software
    /// adapter (whose pass timestamps do not enclose the work). Waits for the GPU.
    pub fn timed_remesh(&mut self) -> Result<f64, GpuError> {
        let r = &mut *self.renderer;
        r.frames.check_submitted(&mut r.resident)?;
        let was_profiling = r.frames.profiling.enabled();
        let wall_clock = r.gpu.device_type == wgpu::DeviceType::Cpu;
        if !wall_clock {
            self.set_profiling(true)?;
        }
        self.take_timings();
        let r = &mut *self.renderer;
        r.resident.pool.mark_all_dirty();
        let (params, evicted_room) =
            r.passes.size(&r.gpu.device, &r.gpu.queue, &r.resident, &r.options, false, r.gpu.submission);
        r.passes.write_mesh_run(&r.gpu.queue, &params);
        let mut encoder = r
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.bench") });
        r.record_uploads(&mut encoder);
        r.passes.record_mesh(&mut encoder, &r.frames.profiling.profiler, &params);
        let started = Instant::now();
        r.frames.finish_recording(&mut encoder, None, started, evicted_room);
        r.gpu.queue.submit([encoder.finish()]);
        r.frames.after_submit(&mut r.resident, &r.gpu.queue, 0.0)?;
        self.flush_timings()?;
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        let frames = self.take_timings();
        let r = &mut *self.renderer;
        r.frames.profiling.set_enabled(was_profiling, r.gpu.caps.timestamps, &r.gpu.adapter_name)?;

        // The pass must have meshed every chunk, with every page granted, or the time means little.
        let counters = r.read_counters_now()?;
        let all_jobs = 6 * r.resident.len() as u32;
        if r.resident.refused_since_seen(&counters)
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
