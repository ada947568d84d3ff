//! One frame: `prepare` (the counters that arrived, the frame's sizes and bind groups, the
//! camera and pass parameters), `record` (uploads, the compute passes, the render passes into
//! the caller's targets, the counter copy), `render` (both on the renderer's own encoder,
//! submitted), and what follows the caller's submission (`frame_submitted`).

use web_time::Instant;

use super::{
    BELT_CHUNK_BYTES, BELT_KEEP_BYTES, BindKey, Frame, Prepared, Recorded, Renderer, Targets, work_buffer,
};
use crate::context::check_device;
use crate::counters::{CounterSources, GpuCounters};
use crate::draw::DrawSubmission;
use crate::layouts::{CameraUniform, CullParams, LodParams, PassParams};
use crate::lod::LodBuffers;
use crate::mesher::{Collect, MAX_CHUNKS_PER_FRAME, MeshBuffers};
use crate::pipelines::draw_bind_group;
use crate::profiling::stage;
use crate::{FrameStats, GpuError};
use voxgpu_core::camera::Camera;

impl Renderer {
    /// Grows the quad pool when the mesher of frame `frame` reported pages it could not get.
    /// Refusals from frames recorded before the last growth are counted but do not grow it
    /// again: they were answered already, and counters arrive a few frames late.
    pub(super) fn handle_counters(&mut self, counters: GpuCounters, frame: u64) -> Result<(), GpuError> {
        // The pages refused since the counters seen last, in the frames after `failed_seen_frame`
        // up to `frame`. When some of those frames were recorded before the last growth (the
        // first frame with the grown pool is `grown_at_frame`), they were refused by the smaller
        // pool (and a face refused again every frame it retried), so they do not say how much
        // more is needed: wait for counters wholly after the growth.
        let refused = counters.failed_pages.saturating_sub(self.failed_pages_seen);
        let after_growth = self.failed_seen_frame + 1 >= self.grown_at_frame;
        self.failed_pages_seen = self.failed_pages_seen.max(counters.failed_pages);
        self.failed_seen_frame = self.failed_seen_frame.max(frame);
        if refused > 0 && after_growth {
            self.quad_pool.grow(&self.device, &self.queue, refused)?;
            self.grown_at_frame = self.frame_index;
        }
        Ok(())
    }

    /// Sizes the work list and draw lists for this frame and rebuilds bind groups if any buffer
    /// was replaced.
    pub(super) fn size_frame(&mut self) -> PassParams {
        // Evicted chunks are collected first and do not count against the re-mesh budget.
        let budget = self.options.max_meshes_per_frame + self.pool.evictions_pending();
        let chunks = self.pool.slot_count().min(budget).min(MAX_CHUNKS_PER_FRAME);
        self.evicted_room = chunks;
        let max_jobs = 6 * chunks.max(1);
        if max_jobs > self.work_jobs {
            self.work_jobs = max_jobs.next_multiple_of(6 * 64).min(6 * MAX_CHUNKS_PER_FRAME);
            self.work = work_buffer(&self.device, self.work_jobs);
            self.work_generation += 1;
        }
        // A list never holds more commands than there are pages.
        self.draws.ensure(&self.device, self.quad_pool.pages(), self.pool.slot_count());
        self.lod.ensure(&self.device, self.pool.slot_count());
        let key = (
            self.pool.generation,
            self.quad_pool.generation,
            self.draws.generation,
            self.work_generation,
            self.lod.mip_capacity,
        );
        if self.frame.as_ref().is_none_or(|f| f.key != key) {
            self.frame = Some(self.bind_groups(key));
        }
        PassParams {
            slot_count: self.pool.slot_count(),
            max_jobs,
            draw_capacity: self.draws.capacity,
            chunk_size: voxgpu_core::voxel::CHUNK_SIZE as u32,
            ambient_occlusion: self.options.ambient_occlusion as u32,
        }
    }

    /// The mesher's bind groups over the pools, with `params` and `work` as its pass parameters
    /// and work list: the frame's own, or a release run's.
    fn mesh_bind_groups(&self, params: &wgpu::Buffer, work: &wgpu::Buffer) -> crate::mesher::BindGroups {
        let (pool, quads) = (&self.pool, &self.quad_pool);
        self.mesher.bind_groups(
            &self.device,
            &MeshBuffers {
                params,
                work,
                voxels: &pool.voxels.buffer,
                links: &pool.links_buffer.buffer,
                opaque_bits: &self.opaque_bits,
                quads: &quads.quads.buffer,
                page_owner: &quads.page_owner.buffer,
                allocator: &quads.allocator.buffer,
                faces: &pool.faces.buffer,
                meta: &pool.meta.buffer,
            },
        )
    }

    fn bind_groups(&self, key: BindKey) -> Frame {
        let (pool, quads) = (&self.pool, &self.quad_pool);
        let mesh = self.mesh_bind_groups(&self.params, &self.work);
        let lod = self.lod.bind_groups(
            &self.device,
            &LodBuffers {
                params: &self.params,
                meta: &pool.meta.buffer,
                links: &pool.links_buffer.buffer,
                voxels: &pool.voxels.buffer,
            },
        );
        let cull = self.draws.bind_group(&self.device, &self.params, &pool.faces.buffer, &pool.meta.buffer);
        let draw = draw_bind_group(
            &self.device,
            &self.draw_layout,
            &[&self.camera, &quads.quads.buffer, &quads.page_owner.buffer, &pool.meta.buffer],
            &self.materials,
            &self.draws.args,
        );
        Frame { key, lod, mesh, cull, draw }
    }

    pub(super) fn counter_sources(&self) -> CounterSources<'_> {
        CounterSources {
            work: &self.work,
            allocator: &self.quad_pool.allocator.buffer,
            draw_counts: &self.draws.counts,
            lod_counts: &self.lod.counts,
        }
    }

    /// `Err(DeviceLost)` once the watched device-lost flag is set.
    fn check_lost(&self) -> Result<(), GpuError> {
        match &self.lost {
            Some(lost) => check_device(lost),
            None => Ok(()),
        }
    }

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
        let (width, height) = self.size();
        let finite = |c: &Camera| c.is_drawable(width as f32 / height as f32);
        if !finite(camera) || self.options.culling.frozen.is_some_and(|c| !finite(&c)) {
            return Err(GpuError::InvalidCamera);
        }
        self.check_submitted()?;
        self.check_lost()?;
        let started = Instant::now();
        let arrived = self.counters.poll(&self.device);
        // The poll is where a device's loss is usually found (its callback runs inside it).
        self.check_lost()?;
        if arrived {
            self.handle_counters(self.counters.latest, self.counters.latest_frame)?;
        }
        let params = self.size_frame();
        let (width, height) = self.size();
        let aspect = width as f32 / height as f32;
        // Every position the GPU sees is measured from the block the eye is in (`Camera::anchor`).
        let anchor = camera.anchor();
        let selection = self
            .options
            .selection
            .map_or(glam::Vec4::ZERO, |b| (b.as_i64vec3() - anchor.as_i64vec3()).as_vec3().extend(1.0));
        let uniform = CameraUniform {
            view_proj: camera.view_proj_from(aspect, anchor),
            inv_rotation_proj: (camera.projection(aspect) * camera.rotation()).inverse(),
            selection,
            anchor,
            eye: camera.eye_from(anchor),
            fog_start: self.options.fog_end * self.options.fog_start_fraction,
            sky_color: self.options.sky_color,
            fog_end: self.options.fog_end,
            page_list_capacity: match self.submission {
                DrawSubmission::Instanced => self.draws.capacity,
                _ => 0,
            },
        };
        self.queue.write_buffer(&self.camera, 0, &uniform.to_bytes());
        let culling = self.options.culling;
        let cull_camera = culling.frozen.unwrap_or(*camera);
        let flags = (CullParams::FRUSTUM * culling.frustum as u32)
            | (CullParams::FACES * culling.faces as u32)
            | (CullParams::PAGES * (self.submission == DrawSubmission::Instanced) as u32);
        let cull = CullParams::new(&cull_camera, aspect, flags, camera, anchor);
        self.queue.write_buffer(&self.draws.cull_params, 0, bytemuck::bytes_of(&cull));
        self.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(&self.work, 0, bytemuck::cast_slice(&[0u32, 1, 1, 0]));
        let lod = LodParams::new(&self.options.lod, camera, anchor, self.pool.top_level());
        self.prepared = Some(Prepared { params, lod, started });
        Ok(())
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
        let Prepared { params, lod, started } = self.prepared.take().ok_or(GpuError::NotPrepared)?;
        // The staging belt maps new buffers and panics when that fails, as it does on a lost
        // device: nothing is recorded once the loss is known.
        self.check_lost()?;
        self.record_uploads(encoder);
        self.draws.reset(encoder, self.submission);
        self.lod.prepare(&self.queue, encoder, &lod);
        let frame = self.frame.as_ref().expect("sized by prepare");
        let profiler = &self.profiling.profiler;
        self.lod.record(encoder, profiler, &frame.lod, params.slot_count);
        self.mesher.record(
            encoder,
            profiler,
            &frame.mesh,
            &self.work,
            params.slot_count,
            Collect::EvictedAndDirty,
        );
        self.draws.record(encoder, profiler, &frame.cull, params.slot_count);
        self.render_pass_commands = self.record_draw(encoder, &frame.draw, targets);
        let sources = CounterSources {
            work: &self.work,
            allocator: &self.quad_pool.allocator.buffer,
            draw_counts: &self.draws.counts,
            lod_counts: &self.lod.counts,
        };
        let counters = self.counters.copy(encoder, &sources, self.frame_index);
        self.finish_recording(encoder, counters, started);
        Ok(self.stats(self.counters.latest))
    }

    /// One frame on the renderer's own encoder and submission: `prepare`, `record` into
    /// `targets`, submit, [`Self::frame_submitted`].
    pub fn render(&mut self, camera: &Camera, targets: &Targets) -> Result<FrameStats, GpuError> {
        self.prepare(camera)?;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.frame") });
        let stats = self.record(&mut encoder, targets)?;
        let submit = Instant::now();
        // wgpu validates and translates the passes in `finish`.
        self.queue.submit([encoder.finish()]);
        let submit_ms = submit.elapsed().as_secs_f64() * 1e3;
        self.after_submit(submit_ms)?;
        Ok(stats)
    }

    /// Records the staged voxel and record writes as the frame's first commands, and between
    /// them each staged release: a release-only mesher run on buffers of its own (pass
    /// parameters and work list written by copies in the encoder), whose work list holds six
    /// jobs per evicted slot, so every evicted slot is collected, its pages freed and its faces
    /// emptied before the writes after it put new nodes into those slots. It collects evicted
    /// slots only: a dirty node meshed there would be meshed before this frame's LOD and mip
    /// passes, from stale mips, and its DIRTY consumed.
    pub(super) fn record_uploads(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let groups = self.pool.staged_release().map(|largest| {
            let jobs = 6 * largest.evicted.max(1);
            if jobs > self.release_jobs {
                self.release_jobs = jobs.next_multiple_of(6 * 64);
                self.release_work = work_buffer(&self.device, self.release_jobs);
            }
            self.mesh_bind_groups(&self.release_params, &self.release_work)
        });
        let ambient_occlusion = self.options.ambient_occlusion as u32;
        let (mesher, release_profiler) = (&self.mesher, &self.release_profiler);
        let (params, work) = (&self.release_params, &self.release_work);
        let mut scope = self.profiling.profiler.scope(stage::UPLOAD, encoder);
        self.uploaded_bytes =
            self.pool.record_uploads(&mut scope, &mut self.belt, &self.queue, |encoder, belt, release| {
                let run = PassParams {
                    slot_count: release.slot_count,
                    max_jobs: 6 * release.evicted,
                    draw_capacity: 0,
                    chunk_size: voxgpu_core::voxel::CHUNK_SIZE as u32,
                    ambient_occlusion,
                };
                let mut write = |buffer: &wgpu::Buffer, bytes: &[u8]| {
                    let size = wgpu::BufferSize::new(bytes.len() as u64).expect("not empty");
                    belt.write_buffer(encoder, buffer, 0, size).copy_from_slice(bytes);
                };
                write(params, bytemuck::bytes_of(&run));
                write(work, bytemuck::cast_slice(&[0u32, 1, 1, 0]));
                let groups = groups.as_ref().expect("made for the staged releases");
                mesher.record(encoder, release_profiler, groups, work, release.slot_count, Collect::Evicted);
            });
        drop(scope);
        if groups.is_some() {
            // Its scopes record nothing; closing its frame drops them.
            let _ = self.release_profiler.end_frame();
            let _ = self.release_profiler.process_finished_frame(1.0);
        }
    }

    /// Ends a recording: resolves the profiler's queries and closes the staging belt, whose
    /// copies the encoder holds. The frame counts as submitted from here on, and its
    /// after-submission work (`counters`: the read-back slot it copied into) waits for
    /// [`Self::frame_submitted`].
    pub(crate) fn finish_recording(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        counters: Option<usize>,
        started: Instant,
    ) {
        self.profiling.profiler.resolve_queries(encoder);
        self.belt.finish();
        self.frame_index += 1;
        self.unsubmitted = Some(Recorded {
            counters,
            cpu_ms: started.elapsed().as_secs_f64() * 1e3,
            evicted_room: self.evicted_room,
        });
    }

    /// `Err(FrameNotSubmitted)` when the last recorded frame was never confirmed with
    /// [`Self::frame_submitted`]: its encoder is taken as dropped, its uploads are queued again
    /// (ahead of those made since), its eviction bookkeeping is not applied, its frame number is
    /// given back and its staging memory recalled. Its profiler frame is closed and its timings
    /// skipped (its queries were never resolved).
    pub(super) fn check_submitted(&mut self) -> Result<(), GpuError> {
        if self.unsubmitted.take().is_none() {
            return Ok(());
        }
        self.pool.replay();
        self.belt.recall();
        self.frame_index -= 1;
        let _ = self.profiling.end_dropped_frame();
        Err(GpuError::FrameNotSubmitted)
    }

    /// Tells the renderer that the encoder of the last [`Self::record`] has been submitted: it
    /// then applies that frame's evictions (their slots can be reused), drops the copies of its
    /// uploads, asks for its counters and timings and recycles its staging memory. Calling it
    /// again, or when nothing was recorded, does nothing. Without it the next `prepare` fails
    /// with [`GpuError::FrameNotSubmitted`] (see [`Self::record`]).
    pub fn frame_submitted(&mut self) {
        // Errors of the profiler's frame end surface through `set_profiling`'s callers; a frame
        // loop that never profiles has none.
        let _ = self.after_submit(0.0);
    }

    pub(super) fn after_submit(&mut self, submit_ms: f64) -> Result<(), GpuError> {
        let Some(recorded) = self.unsubmitted.take() else { return Ok(()) };
        self.pool.confirm(recorded.evicted_room);
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
        self.profiling.collect(self.queue.get_timestamp_period());
        Ok(())
    }

    pub(super) fn stats(&self, c: GpuCounters) -> FrameStats {
        FrameStats {
            chunks_resident: self.pool.len() as u32,
            face_jobs: c.jobs_asked,
            quads: c.quads.iter().map(|&q| q as u64).sum(),
            draw_commands: c.draw_commands.iter().sum(),
            skirt_quads: c.skirt_quads as u64,
            chunks_tested: c.chunks_tested,
            chunks_visible: c.chunks_visible,
            lod_levels: c.lod_levels,
            quad_buffer_bytes: self.quad_pool.bytes(),
            free_pages: c.free_pages,
            slots: self.pool.slot_count(),
            gpu_bytes: self.gpu_bytes(),
            uploaded_bytes: self.uploaded_bytes,
        }
    }
}
