//! One frame through the four parts: `prepare` (the counters that arrived, the frame's sizes
//! and bind groups, the camera and pass parameters), `record` (uploads, the compute passes, the
//! render passes into the caller's targets, the counter copy), `render` (both on the
//! renderer's own encoder, submitted), and what follows the caller's submission
//! (`frame_submitted`).

use web_time::Instant;

use super::draw_passes::DrawPhase;
use super::frame_loop::Prepared;
use super::passes::Passes;
use super::{Renderer, Targets};
use crate::counters::GpuCounters;
use crate::profiling::{scope, stage};
use crate::{FrameStats, GpuError};
use voxgpu_core::camera::Camera;

/// Blocks over which a transparent medium the eye is in (water) hides 63% of what lies behind.
pub const MEDIUM_DISTANCE: f32 = 12.0;

impl Renderer {
    /// The CPU half of a frame: takes the GPU counters that have arrived (growing the quad pool
    /// if the mesher was refused pages), sizes this frame's lists, and writes the camera and pass
    /// parameters through the queue. [`Self::record`] follows, before the next `prepare`.
    /// Fails with [`GpuError::DeviceLost`] once the device is lost, and once with
    /// [`GpuError::FrameNotSubmitted`] when the frame recorded last was not confirmed with
    /// [`Self::frame_submitted`] (its uploads are then queued again; see [`Self::record`]).
    ///
    /// A camera that cannot be drawn ([`Camera::is_drawable`]: NaN or infinite eye, target, field
    /// of view or near plane, an eye beyond [`voxgpu_core::camera::MAX_EYE_COORDINATE`], or a
    /// view-projection or inverse that is not finite: a zero field of view or near plane), or such
    /// a frozen culling camera, fails with [`GpuError::InvalidCamera`] and changes nothing: the
    /// last good camera stays, and a [`Self::record`] after it records the frame an earlier
    /// `prepare` set up if that one is still unrecorded, and fails with
    /// [`GpuError::NotPrepared`] otherwise.
    pub fn prepare(&mut self, camera: &Camera) -> Result<(), GpuError> {
        // Checked before anything is touched: a NaN would reach the camera uniform, the frustum
        // planes and every LOD distance, and a refused frame must leave the renderer as it was.
        let aspect = self.options.aspect();
        let drawable = |c: &Camera| c.is_drawable(aspect);
        if !drawable(camera) || self.options.culling.frozen.is_some_and(|c| !drawable(&c)) {
            return Err(GpuError::InvalidCamera);
        }
        self.frames.check_submitted(&mut self.resident)?;
        self.gpu.check_lost()?;
        let started = Instant::now();
        let arrived = self.frames.counters.poll(&self.gpu.device);
        // The poll is where a device's loss is usually found (its callback runs inside it).
        self.gpu.check_lost()?;
        if arrived {
            let (counters, frame) = (self.frames.counters.latest, self.frames.counters.latest_frame);
            self.handle_counters(counters, frame)?;
        }
        let shadows = self.shadows();
        let (params, evicted_room) = self.passes.size(
            &self.gpu.device,
            &self.gpu.queue,
            &self.resident,
            &self.options,
            shadows,
            self.gpu.submission,
        );
        let top_level = self.resident.pool.top_level();
        let medium = self.medium_at(camera.anchor());
        let lod = self.passes.write_frame(
            &self.gpu.queue,
            camera,
            &self.options,
            self.gpu.submission,
            &params,
            top_level,
            medium,
            shadows,
        );
        let view = (self.options.size(), self.options.culling);
        self.frames.prepared = Some(Prepared {
            camera: *camera,
            view,
            params,
            lod,
            started,
            evicted_room,
            shadows,
            submission: self.gpu.submission,
        });
        Ok(())
    }

    /// Whether frames draw sun shadows: [`crate::RendererOptions::shadows`], or where it is
    /// `None` the device's default (on, except on CPU and GL adapters, where the two 1024² depth
    /// passes would cost more than the rest of the frame).
    pub fn shadows(&self) -> bool {
        self.options.shadows.unwrap_or(self.gpu.shadows_by_default)
    }

    /// The medium the eye sees through when it is inside block `eye` (a transparent block:
    /// water, glass), as the camera uniform takes it: linear colour and the distance in blocks
    /// over which it hides 63% of what lies behind ([`MEDIUM_DISTANCE`]); zero in air, in an
    /// opaque block and where no chunk is resident.
    fn medium_at(&self, eye: glam::IVec3) -> glam::Vec4 {
        let block = self.resident.block(eye);
        match self.registry.get(block) {
            Some(info) if !block.is_air() && info.opacity == voxgpu_core::voxel::Opacity::Transparent => {
                let [r, g, b, _] = info.color.map(|c| (f32::from(c) / 255.0).powf(2.2));
                glam::Vec4::new(r, g, b, MEDIUM_DISTANCE)
            }
            _ => glam::Vec4::ZERO,
        }
    }

    /// The GPU half of a frame, into the caller's encoder: the uploads, the compute passes
    /// (levels of detail, mips, meshing, culling, the transparent sort) and the render passes
    /// into `targets`. GPU-counted stats are a frame or two old.
    ///
    /// The encoder carries the frame's uploads (edits, new chunks, evictions) and counter
    /// copies, so the caller submits it and then calls [`Self::frame_submitted`], before the next
    /// `prepare`. The renderer keeps the frame's uploads until then. A `prepare` that finds the
    /// last recorded frame unconfirmed takes its encoder as dropped: it queues those uploads
    /// again, ahead of any made since, and fails once with [`GpuError::FrameNotSubmitted`]; the
    /// `prepare` after it goes on, and the next frame shows every edit. So a dropped encoder
    /// loses nothing, and a missing `frame_submitted` (whose frame the renderer cannot tell from
    /// a dropped one) is reported at its next frame instead of re-uploading silently.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
    ) -> Result<FrameStats, GpuError> {
        let Prepared { camera, view, params, lod, started, evicted_room, shadows, submission } =
            self.frames.prepared.take().ok_or(GpuError::NotPrepared)?;
        // The staging belt maps new buffers and panics when that fails, as it does on a lost
        // device: nothing is recorded once the loss is known.
        self.gpu.check_lost()?;
        self.record_uploads(encoder);
        let (gpu, passes, frames) = (&self.gpu, &mut self.passes, &mut self.frames);
        let profiler = &frames.profiling.profiler;
        let options = &self.options;
        passes.record_compute(&gpu.queue, encoder, profiler, submission, &params, &lod);
        // With light off nothing reads the light pool, so it is never computed.
        frames.light_nodes = (0, 0);
        if options.light {
            let light_jobs = self.resident.pool.light_jobs(passes.light_rules());
            let chunks = light_jobs.iter().filter(|job| job.level == 0).count();
            frames.light_nodes = (light_jobs.len() as u32, chunks as u32);
            passes.record_light(&gpu.device, &gpu.queue, encoder, profiler, &self.resident, &light_jobs);
        } else {
            self.resident.pool.forget_light_changes();
        }
        // With occlusion culling: the streams seen last frame are drawn first, the depth pyramid
        // is built from their depth, and the cull pass tests the rest against it. The shadow
        // casters are listed after the pyramid where they can test it, else before anything is
        // drawn; either way before any pass reads the shadow map.
        passes.bind_deferred(&gpu.device, &self.resident, targets, options);
        let occlusion = passes.occlusion_frame(view, options, targets.depth);
        passes.write_cull(&gpu.queue, &camera, view, options, submission, occlusion);
        let shadow_pyramid = passes.shadow_pyramid(&camera, view.0, options, occlusion);
        let record_shadows = |passes: &Passes, encoder: &mut wgpu::CommandEncoder| {
            let how = (submission, &params);
            passes.record_shadows(&gpu.queue, encoder, profiler, how, &shadow_pyramid);
        };
        if shadows && shadow_pyramid.levels == 0 {
            record_shadows(passes, encoder);
        }
        let mut commands = 0;
        if occlusion.two_phase {
            passes.record_cull_first(encoder, profiler, submission, &params);
            commands += passes.record_draw(encoder, profiler, targets, options, submission, DrawPhase::First);
            passes.draws.reset_phase(encoder, submission);
            passes.pyramid.record(&gpu.device, encoder, profiler, targets.depth, camera);
        }
        if shadows && shadow_pyramid.levels > 0 {
            record_shadows(passes, encoder);
        }
        passes.record_cull(encoder, profiler, &params);
        let phase = if occlusion.two_phase { DrawPhase::Second } else { DrawPhase::Only };
        commands += passes.record_draw(encoder, profiler, targets, options, submission, phase);
        frames.render_pass_commands = commands;
        frames.occlusion_tested = occlusion.test;
        let sources = passes.counter_sources(&self.resident, shadows);
        let counters = frames.counters.copy(encoder, &sources, frames.frame_index);
        frames.finish_recording(encoder, counters, started, evicted_room);
        Ok(self.stats(self.frames.counters.latest))
    }

    /// One frame on the renderer's own encoder and submission: `prepare`, `record` into
    /// `targets`, submit, [`Self::frame_submitted`].
    pub(crate) fn render(&mut self, camera: &Camera, targets: &Targets) -> Result<FrameStats, GpuError> {
        self.prepare(camera)?;
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.frame") });
        let stats = self.record(&mut encoder, targets)?;
        let submit = Instant::now();
        // wgpu validates and translates the passes in `finish`.
        self.gpu.queue.submit([encoder.finish()]);
        let submit_ms = submit.elapsed().as_secs_f64() * 1e3;
        self.frames.after_submit(&mut self.resident, &self.gpu.queue, submit_ms)?;
        Ok(stats)
    }

    /// Tells the renderer that the encoder of the last [`Self::record`] has been submitted: it
    /// then applies that frame's evictions (their slots can be reused), drops the copies of its
    /// uploads, asks for its counters and timings and recycles its staging memory. Calling it
    /// again, or when nothing was recorded, does nothing. Without it the next `prepare` fails
    /// with [`GpuError::FrameNotSubmitted`] (see [`Self::record`]).
    pub fn frame_submitted(&mut self) {
        // Errors of the profiler's frame end surface through `set_profiling`'s callers; a frame
        // loop that never profiles has none.
        let _ = self.frames.after_submit(&mut self.resident, &self.gpu.queue, 0.0);
    }

    /// Grows the quad pool when the mesher of frame `frame` reported pages it could not get
    /// (the residency part's growth policy).
    pub(super) fn handle_counters(&mut self, counters: GpuCounters, frame: u64) -> Result<(), GpuError> {
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        self.resident.handle_counters(device, queue, counters, frame, self.frames.frame_index)
    }

    /// Records the staged voxel and record writes as the frame's first commands, and between
    /// them each staged release: a release-only mesher run on buffers of its own (pass
    /// parameters and work list written by copies in the encoder), whose work list holds six
    /// jobs per evicted slot, so every evicted slot is collected, its pages freed and its faces
    /// emptied before the writes after it put new nodes into those slots.
    pub(super) fn record_uploads(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let most_evicted = self.resident.pool.staged_release().map(|largest| largest.evicted);
        let ambient_occlusion = self.options.ambient_occlusion;
        let runs = self.passes.release_runs(&self.gpu.device, &self.resident, most_evicted);
        let (frames, pool, queue) = (&mut self.frames, &mut self.resident.pool, &self.gpu.queue);
        frames.uploaded_bytes = scope(&frames.profiling.profiler, encoder, stage::UPLOAD, |encoder, _| {
            pool.record_uploads(encoder, &mut frames.belt, queue, |encoder, belt, release| {
                let runs = runs.as_ref().expect("made for the staged releases");
                runs.record(encoder, belt, release.slot_count, release.evicted, ambient_occlusion);
            })
        });
        drop(runs);
        if most_evicted.is_some() {
            self.passes.end_release_runs();
        }
    }

    pub(super) fn stats(&self, c: GpuCounters) -> FrameStats {
        FrameStats {
            chunks_resident: self.resident.len() as u32,
            face_jobs: c.jobs_asked,
            // Every list but the debug view's occluded one (LIST_OCCLUDED).
            quads: c.quads.iter().enumerate().filter(|&(l, _)| l != 3).map(|(_, &q)| q as u64).sum(),
            draw_commands: c
                .draw_commands
                .iter()
                .enumerate()
                .filter(|&(l, _)| l != 3)
                .map(|(_, &n)| n)
                .sum::<u32>()
                + c.first_phase_commands,
            // Every list but the transparent and the debug view's occluded one.
            quads_culled: if c.quads_culled_one_by_one != 0 {
                [0, 2, 4, 5, 6]
                    .iter()
                    .map(|&l| c.quads[l] as u64 - (c.quads_kept[l] as u64).min(c.quads[l] as u64))
                    .sum()
            } else {
                0
            },
            skirt_quads: c.skirt_quads as u64,
            chunks_tested: c.chunks_tested,
            chunks_visible: c.chunks_visible,
            candidates: c.candidates,
            drawn_first: c.drawn_first,
            drawn_second: c.drawn_second,
            occluded: c.occluded,
            occlusion_tested: self.frames.occlusion_tested,
            light_nodes: self.frames.light_nodes.0,
            light_chunks: self.frames.light_nodes.1,
            lod_levels: c.lod_levels,
            fading_nodes: c.fading_nodes,
            shadow_quads: c.shadow_quads,
            quad_buffer_bytes: self.resident.quads.bytes(),
            free_pages: c.free_pages,
            slots: self.resident.pool.slot_count(),
            gpu_bytes: self.gpu_bytes(),
            uploaded_bytes: self.frames.uploaded_bytes,
        }
    }

    /// Bytes of every buffer that grows with the world: the residency's pools and the draw
    /// lists.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        self.resident.gpu_bytes() + self.passes.bytes()
    }
}
