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

use super::bindings::{BindingTable, Resources, Slot};
use super::layouts::{ChunkLinks, ChunkMeta, LodParams, PassParams, WORK_JOBS_OFFSET};
use super::pipelines::{ComputeShader, SharedPipelines, compute_pipeline};
use super::profiling::{compute_pass, stage};
use super::shaders::{LOD, MIPS, MIPS_BUILD, shader_source};
use voxgpu_core::lod::LEVELS;

/// Shown nodes per absolute level, then the nodes cross-fading, as the `lod` pass counted them.
pub const LOD_COUNT_BYTES: u64 = 4 * (LEVELS as u64 + 1);

const PARAMS: u64 = size_of::<PassParams>() as u64;
const LINKS: u64 = size_of::<ChunkLinks>() as u64;
const META: u64 = size_of::<ChunkMeta>() as u64;

/// `lod.wgsl`: both LOD dispatches.
pub const SELECT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.lod",
    shaders: &[LOD],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", PARAMS),
        Slot::read("lod_params", size_of::<LodParams>() as u64),
        Slot::read_write("chunks", META),
        Slot::read_write("links", LINKS),
        Slot::read_write("lod_counts", LOD_COUNT_BYTES),
    ],
};

/// `mips.wgsl`: the mip list's collect and finalize.
pub const COLLECT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.mips.collect",
    shaders: &[MIPS],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", PARAMS),
        Slot::read_write("links", LINKS),
        // The header (dispatch size and count) and one entry.
        Slot::read_write("mip_work", 4 * (WORK_JOBS_OFFSET as u64 + 1)),
    ],
};

/// `mips_build.wgsl`: one workgroup per listed slot.
pub const BUILD_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.mips.build",
    shaders: &[MIPS_BUILD],
    partial_shaders: &[],
    slots: &[
        Slot::read("mip_work", 4 * (WORK_JOBS_OFFSET as u64 + 1)),
        Slot::read_write("links", LINKS),
        Slot::read_write("voxels", 4),
        Slot::read("chunks", META),
    ],
};

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
    /// Shown nodes per absolute level, then the nodes fading ([`LOD_COUNT_BYTES`]), zeroed each
    /// frame and copied with the counters.
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
    pub fn new(shared: &SharedPipelines) -> Self {
        let device = shared.device();
        let select_layout = SELECT_BINDINGS.layout(device);
        let collect_layout = COLLECT_BINDINGS.layout(device);
        let build_layout = BUILD_BINDINGS.layout(device);
        let mips_shader = ComputeShader::new(shared, &COLLECT_BINDINGS, "voxgpu.mips", shader_source(MIPS));
        let collect = |entry: &str| mips_shader.pipeline(&format!("voxgpu.mips.{entry}"), entry);
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
        let lod_shader = ComputeShader::new(shared, &SELECT_BINDINGS, "voxgpu.lod", shader_source(LOD));
        Self {
            split: lod_shader.pipeline("voxgpu.lod.split", "decide_split"),
            select: lod_shader.pipeline("voxgpu.lod.shown", "decide_shown"),
            collect: collect("collect"),
            finalize: collect("finalize"),
            build: compute_pipeline(
                shared,
                &BUILD_BINDINGS,
                "voxgpu.mips.build",
                shader_source(MIPS_BUILD),
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

    /// The passes' buffers by name: the LOD parameters, level counts and mip list.
    pub fn resources<'a>(&'a self, resources: Resources<'a>) -> Resources<'a> {
        resources
            .buffer("lod_params", &self.params)
            .buffer("lod_counts", &self.counts)
            .buffer("mip_work", &self.mip_work)
    }

    /// The bind groups over `resources` (the frame's, with [`Self::resources`] among them).
    pub fn bind_groups(&self, device: &wgpu::Device, resources: &Resources) -> LodBindGroups {
        LodBindGroups {
            select: SELECT_BINDINGS.bind_group(device, &self.select_layout, resources),
            collect: COLLECT_BINDINGS.bind_group(device, &self.collect_layout, resources),
            build: BUILD_BINDINGS.bind_group(device, &self.build_layout, resources),
        }
    }

    /// Writes this frame's parameters and resets the counts and the mip list header.
    pub fn prepare(&self, queue: &wgpu::Queue, encoder: &mut wgpu::CommandEncoder, params: &LodParams) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
        queue.write_buffer(&self.mip_work, 0, bytemuck::cast_slice(&[0u32, 1, 1, 0]));
        encoder.clear_buffer(&self.counts, 0, None);
    }

    /// Records the `lod` pass (split, shown), unless `frozen` (the last frame's decisions stand),
    /// then the `mips` pass (collect, finalize, build): two profiled compute passes, five
    /// dispatches.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        groups: &LodBindGroups,
        slot_count: u32,
        frozen: bool,
    ) {
        let per_slot = slot_count.div_ceil(64).max(1);
        if !frozen {
            compute_pass(profiler, encoder, None, stage::LOD, |pass| {
                pass.set_bind_group(0, &groups.select, &[]);
                pass.set_pipeline(&self.split);
                pass.dispatch_workgroups(per_slot, 1, 1);
                pass.set_pipeline(&self.select);
                pass.dispatch_workgroups(per_slot, 1, 1);
            });
        }
        compute_pass(profiler, encoder, None, stage::MIPS, |pass| {
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
