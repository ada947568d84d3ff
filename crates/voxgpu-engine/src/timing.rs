//! One GPU interval measured with timestamp queries: the beginning and end of a compute pass.
//! Used by `voxgpu bench`; per-stage frame profiling is `voxgpu profile`'s job.

use web_time::Instant;

use super::bindings::{BindingTable, Slot};
use super::readback::read_buffer;
use super::shaders::{COPY_BANDWIDTH, shader_source};
use super::{GpuContext, GpuError};

/// Where a measured time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// GPU timestamp queries around the pass.
    Timestamps,
    /// Wall clock around submit-and-wait (software adapters).
    Wall,
}

/// Two timestamp queries around one compute pass and the buffer they resolve into; times the
/// pass in milliseconds ([`GpuTimer::time`]).
pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period: f32,
}

impl GpuTimer {
    /// `None` when the device was created without `TIMESTAMP_QUERY`.
    pub fn new(gpu: &GpuContext) -> Option<Self> {
        if !gpu.caps.timestamps {
            return None;
        }
        let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("voxgpu.timer"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("voxgpu.timer.resolve"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(Self { queries, resolve, period: gpu.queue.get_timestamp_period() })
    }

    /// Timestamp writes for a pass: its beginning and its end.
    pub fn pass_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Resolves the two timestamps; call after the pass, in the same encoder.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
    }

    /// Submits `encoder` (which wrote and resolved this timer's pass timestamps), waits, and
    /// returns the pass's milliseconds: from the timestamps on a real GPU, from the wall clock
    /// around submit-and-wait on a software adapter, whose pass timestamps do not enclose the
    /// dispatches' work (lavapipe: 0.05 ms stamped for an 80 ms copy).
    pub fn time(&self, gpu: &GpuContext, encoder: wgpu::CommandEncoder) -> Result<f64, GpuError> {
        let start = Instant::now();
        gpu.queue.submit([encoder.finish()]);
        let bytes = read_buffer(&gpu.device, &gpu.queue, &self.resolve, 0, 16)?;
        if self.clock(gpu) == Clock::Wall {
            return Ok(start.elapsed().as_secs_f64() * 1e3);
        }
        let ticks: &[u64] = bytemuck::cast_slice(&bytes);
        Ok(ticks[1].saturating_sub(ticks[0]) as f64 * self.period as f64 / 1.0e6)
    }

    /// Which clock [`GpuTimer::time`] reads on this adapter.
    pub fn clock(&self, gpu: &GpuContext) -> Clock {
        if gpu.summary.device_type == wgpu::DeviceType::Cpu { Clock::Wall } else { Clock::Timestamps }
    }
}

/// `copy_bandwidth.wgsl`: one buffer copied into another, 16 bytes an invocation.
pub const COPY_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.bench.copy",
    shaders: &[COPY_BANDWIDTH],
    partial_shaders: &[],
    slots: &[Slot::read("src", 16), Slot::read_write("dst", 16)],
};

/// Measures storage-buffer copy bandwidth (bytes read + bytes written per second) with a compute
/// kernel over `bytes`-sized buffers, median of `repeats` after one warm-up. GB/s (10⁹).
pub fn copy_bandwidth_gb_s(
    gpu: &GpuContext,
    timer: &GpuTimer,
    bytes: u64,
    repeats: usize,
) -> Result<f64, GpuError> {
    use super::bindings::Resources;
    use super::pipelines::{SharedPipelines, compute_pipeline};
    let device = &gpu.device;
    let limit = device.limits().max_storage_buffer_binding_size.min(device.limits().max_buffer_size);
    let bytes = bytes.min(limit) / 16 * 16;
    let buffer = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (buffer("voxgpu.bench.copy_src"), buffer("voxgpu.bench.copy_dst"));
    let layout = COPY_BINDINGS.layout(device);
    let shared = SharedPipelines::new(device);
    let pipeline =
        compute_pipeline(&shared, &COPY_BINDINGS, "voxgpu.bench.copy", shader_source(COPY_BANDWIDTH), "main");
    let group =
        COPY_BINDINGS.bind_group(device, &layout, &Resources::new().buffer("src", &src).buffer("dst", &dst));
    let groups = (bytes / 16).div_ceil(256).min(65535) as u32;
    let mut times = Vec::new();
    for _ in 0..=repeats {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("voxgpu.bench.copy"),
                timestamp_writes: Some(timer.pass_writes()),
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        timer.resolve(&mut encoder);
        times.push(timer.time(gpu, encoder)?);
    }
    times.remove(0);
    let ms = median(&mut times);
    Ok(2.0 * bytes as f64 / (ms / 1.0e3) / 1.0e9)
}

/// Median of a non-empty list (sorts it).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
