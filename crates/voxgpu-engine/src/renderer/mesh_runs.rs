//! The passes part's mesher runs: the work list a run reads (the indirect dispatch size, the
//! asked-for count, six jobs per listed slot), the frame's run, and the release-only runs recorded
//! between a frame's uploads, which have pass parameters and a work list of their own so that
//! they never overwrite the frame's.

use super::passes::Passes;
use super::residency::Residency;
use crate::layouts::{PassParams, WORK_JOBS_OFFSET, work_header};
use crate::mesher::{BindGroups, Collect};

/// A mesher work list: the indirect dispatch size, the asked-for count, then six jobs per
/// listed slot.
pub(super) struct WorkList {
    pub(super) buffer: wgpu::Buffer,
    jobs: u32,
    /// Bumped whenever the buffer is replaced.
    pub(super) generation: u64,
}

impl WorkList {
    pub(super) fn new(device: &wgpu::Device, label: &'static str, jobs: u32) -> Self {
        Self { buffer: work_buffer(device, label, jobs), jobs, generation: 0 }
    }

    /// Makes room for `jobs` jobs, rounded up to whole workgroups of slots and capped at
    /// `max_jobs`.
    pub(super) fn ensure(&mut self, device: &wgpu::Device, label: &'static str, jobs: u32, max_jobs: u32) {
        if jobs > self.jobs {
            self.jobs = jobs.next_multiple_of(6 * 64).min(max_jobs.max(jobs));
            self.buffer = work_buffer(device, label, self.jobs);
            self.generation += 1;
        }
    }
}

fn work_buffer(device: &wgpu::Device, label: &'static str, jobs: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: 4 * (WORK_JOBS_OFFSET + jobs) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The release-only mesher runs recorded between a frame's uploads (the chunk pool's staged
/// releases) have pass parameters and a work list of their own, apart from the frame's, which
/// they would overwrite; both are written by copies in the encoder, so each run sees its own.
pub(super) struct ReleaseRun {
    pub(super) params: wgpu::Buffer,
    pub(super) work: WorkList,
    /// Scopes of the release runs: never timed (a frame's profile names each stage once), and,
    /// as every profiler's, without debug groups (`profiling::SETTINGS`).
    pub(super) profiler: wgpu_profiler::GpuProfiler,
}

impl Passes {
    /// Writes the pass parameters and resets the work list header: a mesher run's start.
    pub fn write_mesh_run(&self, queue: &wgpu::Queue, params: &PassParams) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
        queue.write_buffer(&self.work.buffer, 0, bytemuck::cast_slice(&work_header(params.split_pairs)));
    }

    /// Records the mesher over the frame's work list (written by [`Self::write_mesh_run`]).
    pub fn record_mesh(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        params: &PassParams,
    ) {
        let bound = self.bound();
        let (work, slots) = (&self.work.buffer, params.slot_count);
        self.mesher.record(encoder, profiler, &bound.mesh, work, slots, Collect::EvictedAndDirty);
    }

    /// What the uploads of a frame need to record its staged release runs: the runs' bind
    /// groups (sized for `most_evicted` evicted slots in one run), or `None` when no run is
    /// staged.
    pub fn release_runs(
        &mut self,
        device: &wgpu::Device,
        resident: &Residency,
        most_evicted: Option<u32>,
    ) -> Option<ReleaseRuns<'_>> {
        let evicted = most_evicted?;
        self.release.work.ensure(device, "voxgpu.release.work", 6 * evicted.max(1), u32::MAX);
        let resources = self
            .resources(resident)
            .buffer("params", &self.release.params)
            .buffer("work", &self.release.work.buffer);
        let groups = self.mesher.bind_groups(device, &resources);
        Some(ReleaseRuns { passes: self, groups })
    }

    /// Closes the release runs' profiler frame after a frame's uploads recorded runs: their
    /// scopes record nothing, and closing the frame drops them.
    pub fn end_release_runs(&mut self) {
        let _ = self.release.profiler.end_frame();
        let _ = self.release.profiler.process_finished_frame(1.0);
    }
}

/// The staged release runs of one frame's uploads.
pub(crate) struct ReleaseRuns<'a> {
    passes: &'a Passes,
    groups: BindGroups,
}

impl ReleaseRuns<'_> {
    /// Records one release-only run over `slot_count` slots with `evicted` evicted ones: its
    /// parameters and work list header written by copies through `belt`, then the mesher
    /// collecting evicted slots only. A dirty node meshed here would be meshed before this
    /// frame's LOD and mip passes, from stale mips, and its DIRTY consumed.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        belt: &mut wgpu::util::StagingBelt,
        slot_count: u32,
        evicted: u32,
        ambient_occlusion: bool,
    ) {
        let release = &self.passes.release;
        let run = PassParams {
            slot_count,
            max_jobs: 6 * evicted,
            draw_capacity: 0,
            chunk_size: voxgpu_core::voxel::CHUNK_SIZE as u32,
            ambient_occlusion: ambient_occlusion as u32,
            split_pairs: self.passes.split_pairs,
        };
        let mut write = |buffer: &wgpu::Buffer, bytes: &[u8]| {
            let size = wgpu::BufferSize::new(bytes.len() as u64).expect("not empty");
            belt.write_buffer(encoder, buffer, 0, size).copy_from_slice(bytes);
        };
        write(&release.params, bytemuck::bytes_of(&run));
        write(&release.work.buffer, bytemuck::cast_slice(&work_header(run.split_pairs)));
        let work = &release.work.buffer;
        self.passes.mesher.record(
            encoder,
            &release.profiler,
            &self.groups,
            work,
            slot_count,
            Collect::Evicted,
        );
    }
}
