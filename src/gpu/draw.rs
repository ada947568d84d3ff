//! Indirect draw lists written by the GPU, and how they are submitted.
//!
//! The `draw_args` pass turns every face stream into commands (one per run of consecutive pages),
//! opaque and transparent into separate lists, so culling can later drop a chunk's faces that
//! point away from the camera by dropping commands. The CPU records one multi-draw per list,
//! whatever the number of chunks.

use wgpu::util::DrawIndexedIndirectArgs;
use wgpu_profiler::GpuProfiler;

use super::layouts::{FaceMesh, PassParams};
use super::pipelines::{bind_group, compute_pipeline, storage_entry, uniform_entry};
use super::profiling::stage;
use super::shaders::{DRAW_ARGS, shader_source};

/// The most quads one command draws; the static index buffer holds `6 × MAX_DRAW_QUADS` indices.
/// A face stream never holds more, so a command never needs splitting for length.
pub const MAX_DRAW_QUADS: u32 = 32768;
const _: () = assert!(
    super::layouts::MAX_FACE_PAGES * super::quad_pool::PAGE_QUADS <= MAX_DRAW_QUADS,
    "one command must be able to cover a whole face stream"
);

/// How the draw lists are submitted, chosen once from the adapter's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawSubmission {
    /// `multi_draw_indexed_indirect_count`: the GPU-written count bounds the draws.
    IndirectCount,
    /// `multi_draw_indexed_indirect` over the whole capped list, whose unused tail is zeroed
    /// every frame (GL has no indirect count).
    CappedIndirect,
}

impl DrawSubmission {
    pub fn for_caps(caps: super::Capabilities) -> Self {
        if caps.multi_draw_indirect_count { Self::IndirectCount } else { Self::CappedIndirect }
    }
}

/// The static index buffer: quad `q` of a command is two triangles over vertices `4q..4q + 4`.
pub fn quad_indices() -> Vec<u32> {
    (0..MAX_DRAW_QUADS).flat_map(|q| [0, 1, 2, 0, 2, 3].map(|c| 4 * q + c)).collect()
}

const ARGS_BYTES: u64 = size_of::<DrawIndexedIndirectArgs>() as u64;
/// Words of the counts buffer: commands (opaque, transparent), quads (opaque, transparent), then
/// skirt quads.
pub const COUNT_WORDS: u64 = 5;

/// The opaque and transparent command lists (one buffer, two halves) and their counts.
pub struct DrawLists {
    pub args: wgpu::Buffer,
    pub counts: wgpu::Buffer,
    /// Commands each list holds.
    pub capacity: u32,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

impl DrawLists {
    pub fn new(device: &wgpu::Device, capacity: u32) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("voxgpu.draw_args"),
            entries: &[
                uniform_entry(0, size_of::<PassParams>() as u64),
                storage_entry(1, true, size_of::<FaceMesh>() as u64),
                storage_entry(2, false, ARGS_BYTES),
                storage_entry(3, false, COUNT_WORDS * 4),
            ],
        });
        let pipeline =
            compute_pipeline(device, "voxgpu.draw_args", &layout, &shader_source(DRAW_ARGS), "main");
        let counts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("voxgpu.draw_args.counts"),
            size: COUNT_WORDS * 4,
            usage: wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let capacity = capacity.max(1);
        Self { args: args_buffer(device, capacity), counts, capacity, pipeline, layout }
    }

    /// Makes each list hold at least `capacity` commands. Returns whether the buffer changed.
    pub fn ensure(&mut self, device: &wgpu::Device, capacity: u32) -> bool {
        if capacity <= self.capacity {
            return false;
        }
        self.capacity = capacity.next_power_of_two();
        self.args = args_buffer(device, self.capacity);
        true
    }

    pub fn bind_group(
        &self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        faces: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        bind_group(device, "voxgpu.draw_args", &self.layout, &[params, faces, &self.args, &self.counts])
    }

    /// Zeroes the counts (and, for the capped path, the commands) before the pass writes them.
    pub fn reset(&self, encoder: &mut wgpu::CommandEncoder, submission: DrawSubmission) {
        encoder.clear_buffer(&self.counts, 0, None);
        if submission == DrawSubmission::CappedIndirect {
            encoder.clear_buffer(&self.args, 0, None);
        }
    }

    /// Records the `draw_args` pass (profiled): two invocations (opaque, transparent) per face of
    /// each slot.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        group: &wgpu::BindGroup,
        slot_count: u32,
    ) {
        let query = profiler.begin_pass_query(stage::DRAW_ARGS, encoder);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(stage::DRAW_ARGS),
                timestamp_writes: query.compute_pass_timestamp_writes(),
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups((slot_count * 12).div_ceil(64).max(1), 1, 1);
        }
        profiler.end_query(encoder, query);
    }

    /// Records the draws of list `kind` (0 opaque, 1 transparent): one command whatever the
    /// number of chunks.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, submission: DrawSubmission, kind: u32) {
        let offset = kind as u64 * self.capacity as u64 * ARGS_BYTES;
        match submission {
            DrawSubmission::IndirectCount => pass.multi_draw_indexed_indirect_count(
                &self.args,
                offset,
                &self.counts,
                kind as u64 * 4,
                self.capacity,
            ),
            DrawSubmission::CappedIndirect => {
                pass.multi_draw_indexed_indirect(&self.args, offset, self.capacity)
            }
        }
    }
}

fn args_buffer(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.draw_args.commands"),
        size: 2 * capacity as u64 * ARGS_BYTES,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
