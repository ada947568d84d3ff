//! The two passes that run before meshing each frame, and the small buffers they own:
//!
//! 1. **`lod`** (`shaders/lod.wgsl`), two dispatches of one invocation per slot: first whether
//!    each node is split (nearer than where its level begins, with hysteresis), then whether it
//!    is drawn (neither replaced by its children nor covered by its parent) and its mip level
//!    from its distance, with hysteresis. A change marks the node and its neighbours dirty, so
//!    they are re-meshed in this same frame. It also counts drawn nodes per absolute level.
//! 2. **`mips`** (`shaders/mips.wgsl`, `mips_build.wgsl`), three dispatches: `collect` (one
//!    invocation per slot) lists the slots whose voxels changed, `finalize` (one invocation)
//!    writes the dispatch size, and `build` (indirect) rebuilds their levels 1..5 in place, one
//!    workgroup each, at most 65,535 slots a frame (the rest wait a frame). Neighbours meshed
//!    at a coarser level read those mips across their border, so the build marks them dirty.
//!
//! The CPU's part is constant per frame: write the parameters, reset the mip list header, clear
//! the level counts, and record five dispatches (one of them indirect) in two compute passes.

use wgpu_profiler::GpuProfiler;

use super::layouts::{ChunkLinks, ChunkMeta, LodParams, PassParams, WORK_JOBS_OFFSET};
use super::pipelines::{bind_group, compute_pipeline, storage_entry, uniform_entry};
use super::profiling::stage;
use super::shaders::{LOD, MIPS, MIPS_BUILD, shader_source};
use voxgpu_core::lod::LEVELS;

/// Drawn nodes per absolute level, as the `lod` pass counted them.
pub const LOD_COUNT_BYTES: u64 = 4 * LEVELS as u64;

/// The pool buffers the passes read and write.
pub struct LodBuffers<'a> {
    pub params: &'a wgpu::Buffer,
    pub meta: &'a wgpu::Buffer,
    pub links: &'a wgpu::Buffer,
    pub voxels: &'a wgpu::Buffer,
}

pub struct LodBindGroups {
    select: wgpu::BindGroup,
    collect: wgpu::BindGroup,
    build: wgpu::BindGroup,
}

pub struct LodPasses {
    split: wgpu::ComputePipeline,
    select: wgpu::ComputePipeline,
    collect: wgpu::ComputePipeline,
    finalize: wgpu::ComputePipeline,
    build: wgpu::ComputePipeline,
    select_layout: wgpu::BindGroupLayout,
    collect_layout: wgpu::BindGroupLayout,
    build_layout: wgpu::BindGroupLayout,
    /// [`LodParams`], written each frame.
    pub params: wgpu::Buffer,
    /// Drawn nodes per absolute level ([`LOD_COUNT_BYTES`]), zeroed each frame and copied with the
    /// counters.
    pub counts: wgpu::Buffer,
    /// The mip list: indirect dispatch size, count, then one slot per entry.
    pub mip_work: wgpu::Buffer,
    /// Slots `mip_work` has room for.
    pub mip_capacity: u32,
}

fn mip_work_buffer(device: &wgpu::Device, slots: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.mips.work"),
        size: 4 * (WORK_JOBS_OFFSET + slots) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl LodPasses {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries })
        };
        let params = size_of::<PassParams>() as u64;
        let links = size_of::<ChunkLinks>() as u64;
        let select_layout = layout(
            "voxgpu.lod",
            &[
                uniform_entry(0, params),
                storage_entry(1, true, size_of::<LodParams>() as u64),
                storage_entry(2, false, size_of::<ChunkMeta>() as u64),
                storage_entry(3, false, links),
                storage_entry(4, false, LOD_COUNT_BYTES),
            ],
        );
        let collect_layout = layout(
            "voxgpu.mips.collect",
            &[uniform_entry(0, params), storage_entry(1, false, links), storage_entry(2, false, 16)],
        );
        let build_layout = layout(
            "voxgpu.mips.build",
            &[
                storage_entry(0, true, 16),
                storage_entry(1, false, links),
                storage_entry(2, false, 4),
                storage_entry(3, true, size_of::<ChunkMeta>() as u64),
            ],
        );
        let mips_source = shader_source(MIPS);
        let collect = |entry: &str| {
            compute_pipeline(device, &format!("voxgpu.mips.{entry}"), &collect_layout, &mips_source, entry)
        };
        let storage = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let lod_source = shader_source(LOD);
        Self {
            split: compute_pipeline(device, "voxgpu.lod.split", &select_layout, &lod_source, "decide_split"),
            select: compute_pipeline(device, "voxgpu.lod.shown", &select_layout, &lod_source, "decide_shown"),
            collect: collect("collect"),
            finalize: collect("finalize"),
            build: compute_pipeline(
                device,
                "voxgpu.mips.build",
                &build_layout,
                &shader_source(MIPS_BUILD),
                "build",
            ),
            select_layout,
            collect_layout,
            build_layout,
            params: storage("voxgpu.lod.params", size_of::<LodParams>() as u64),
            counts: storage("voxgpu.lod.counts", LOD_COUNT_BYTES),
            mip_work: mip_work_buffer(device, 64),
            mip_capacity: 64,
        }
    }

    /// Makes room in the mip list for `slots` slots; returns whether the buffer was replaced.
    pub fn ensure(&mut self, device: &wgpu::Device, slots: u32) -> bool {
        if slots <= self.mip_capacity {
            return false;
        }
        self.mip_capacity = slots.next_power_of_two();
        self.mip_work = mip_work_buffer(device, self.mip_capacity);
        true
    }

    pub fn bind_groups(&self, device: &wgpu::Device, b: &LodBuffers) -> LodBindGroups {
        LodBindGroups {
            select: bind_group(
                device,
                "voxgpu.lod",
                &self.select_layout,
                &[b.params, &self.params, b.meta, b.links, &self.counts],
            ),
            collect: bind_group(
                device,
                "voxgpu.mips.collect",
                &self.collect_layout,
                &[b.params, b.links, &self.mip_work],
            ),
            build: bind_group(
                device,
                "voxgpu.mips.build",
                &self.build_layout,
                &[&self.mip_work, b.links, b.voxels, b.meta],
            ),
        }
    }

    /// Writes this frame's parameters and resets the counts and the mip list header.
    pub fn prepare(&self, queue: &wgpu::Queue, encoder: &mut wgpu::CommandEncoder, params: &LodParams) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
        queue.write_buffer(&self.mip_work, 0, bytemuck::cast_slice(&[0u32, 1, 1, 0]));
        encoder.clear_buffer(&self.counts, 0, None);
    }

    /// Records the `lod` pass (split, shown), then the `mips` pass (collect, finalize, build): two
    /// profiled compute passes, five dispatches.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        groups: &LodBindGroups,
        slot_count: u32,
    ) {
        let per_slot = slot_count.div_ceil(64).max(1);
        let timed_pass =
            |encoder: &mut wgpu::CommandEncoder, name: &str, record: &dyn Fn(&mut wgpu::ComputePass)| {
                let query = profiler.begin_pass_query(name, encoder);
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(name),
                        timestamp_writes: query.compute_pass_timestamp_writes(),
                    });
                    record(&mut pass);
                }
                profiler.end_query(encoder, query);
            };
        timed_pass(encoder, stage::LOD, &|pass| {
            pass.set_bind_group(0, &groups.select, &[]);
            pass.set_pipeline(&self.split);
            pass.dispatch_workgroups(per_slot, 1, 1);
            pass.set_pipeline(&self.select);
            pass.dispatch_workgroups(per_slot, 1, 1);
        });
        timed_pass(encoder, stage::MIPS, &|pass| {
            pass.set_bind_group(0, &groups.collect, &[]);
            pass.set_pipeline(&self.collect);
            pass.dispatch_workgroups(per_slot, 1, 1);
            pass.set_pipeline(&self.finalize);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.build);
            pass.set_bind_group(0, &groups.build, &[]);
            pass.dispatch_workgroups_indirect(&self.mip_work, 0);
        });
    }
}
