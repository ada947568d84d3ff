//! The compute mesher's passes and the order they run in:
//!
//! 1. `collect`  two dispatches of one invocation per slot, `collect_evicted` then
//!    `collect_dirty`: each evicted, then each dirty slot puts six jobs (one per face) on the work
//!    list, dirty ones while the budget lasts, and adds its three job pairs (the two faces of one
//!    axis) to the indirect dispatch size;
//! 2. `release`  one workgroup per job (indirect, two per pair): frees the face's old pages;
//! 3. `mesh`     two workgroups of 256 invocations per job pair (indirect): binary greedy
//!    meshing of both faces of one axis of the chunk's selected level (chosen by the `lod`
//!    pass, `src/lod.rs`) into freshly popped pages, one face per workgroup in a run of a few
//!    pairs, both in the first workgroup (the second idle) in a larger one;
//! 4. `commit`   one invocation: takes the popped pages off the free stack.
//!
//! The CPU's part is constant per frame: reset the work list header, record five dispatches
//! (collect evicted, collect dirty, release; mesh, commit), two of them indirect, in two compute
//! passes.

use wgpu_profiler::GpuProfiler;

use super::bindings::{BindingTable, Resources, Slot};
use super::layouts::{AllocatorHeader, ChunkLinks, ChunkMeta, FaceMesh, PassParams, WORK_JOBS_OFFSET};
use super::pipelines::{ComputeShader, SharedPipelines, compute_pipeline};
use super::profiling::{compute_pass, scope, stage};
use super::shaders::{MESH, MESH_COLLECT, MESH_RELEASE, MESH_SUBGROUPS, shader_source};

/// At most this many chunks are meshed per frame: three job pairs each (one per axis), and the
/// pairs (the x of the indirect dispatches) must stay under the 65535 workgroups one dispatch
/// dimension allows.
pub const MAX_CHUNKS_PER_FRAME: u32 = 65535 / 3;

const FACE_BYTES: u64 = size_of::<FaceMesh>() as u64;
/// The allocator binding holds its header and at least one stack entry.
const HEADER_BYTES: u64 = size_of::<AllocatorHeader>() as u64 + 4;
const PARAMS: u64 = size_of::<PassParams>() as u64;
/// The opacity bitset of every block id (65,536 bits), bound as a uniform.
pub const OPAQUE_BITS_BYTES: u64 = (1 << 16) / 8;
/// The work list holds its header and the six jobs of one slot.
const WORK_BYTES: u64 = 4 * (WORK_JOBS_OFFSET as u64 + 6);

/// `mesh_collect.wgsl`: collect evicted, collect dirty.
pub const COLLECT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.mesh.collect",
    shaders: &[MESH_COLLECT],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", PARAMS),
        Slot::read_write("links", size_of::<ChunkLinks>() as u64),
        Slot::read_write("work", WORK_BYTES),
    ],
};

/// `mesh_release.wgsl`: frees the listed faces' old pages.
pub const RELEASE_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.mesh.release",
    shaders: &[MESH_RELEASE],
    partial_shaders: &[],
    slots: &[
        Slot::read("work", WORK_BYTES),
        Slot::read("faces", FACE_BYTES),
        Slot::read_write("allocator", HEADER_BYTES),
    ],
};

/// `mesh.wgsl`: the mesh pass and its page commit.
pub const MESH_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.mesh",
    shaders: &[MESH, MESH_SUBGROUPS],
    partial_shaders: &[],
    slots: &[
        Slot::read("work", WORK_BYTES),
        Slot::read("voxels", 4),
        Slot::read_write("links", size_of::<ChunkLinks>() as u64),
        Slot::uniform("opaque_bits", OPAQUE_BITS_BYTES),
        Slot::read_write("quads", voxgpu_core::mesh::QUAD_BYTES as u64),
        Slot::read_write("page_owner", 4),
        Slot::read_write("allocator", HEADER_BYTES),
        Slot::read_write("faces", FACE_BYTES),
        Slot::uniform("params", PARAMS),
        Slot::read_write("chunks", size_of::<ChunkMeta>() as u64),
    ],
};

/// Which slots a mesher run puts on its work list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collect {
    /// Evicted slots, then dirty ones while the budget lasts: a frame's run.
    EvictedAndDirty,
    /// Evicted slots only: a release-only run.
    Evicted,
}

pub struct BindGroups {
    collect: wgpu::BindGroup,
    release: wgpu::BindGroup,
    mesh: wgpu::BindGroup,
}

pub struct Mesher {
    collect_evicted: wgpu::ComputePipeline,
    collect_dirty: wgpu::ComputePipeline,
    release: wgpu::ComputePipeline,
    mesh: wgpu::ComputePipeline,
    commit: wgpu::ComputePipeline,
    collect_layout: wgpu::BindGroupLayout,
    release_layout: wgpu::BindGroupLayout,
    mesh_layout: wgpu::BindGroupLayout,
}

/// Workgroup memory the mesh pass declares, in bytes: three 4 KiB planes of the axis being
/// meshed (opaque, solid and same-id bits, the last two reused for the continuing runs), the
/// halo, each invocation's counts and bounds and a few words, each variable counted rounded up to 16 bytes
/// as WebGPU implementations count it; the larger of the two variants (plain and subgroup
/// sums). Within WebGPU's default of 16 KiB, so every WebGPU adapter runs the mesher with
/// default limits. `tests/shaders.rs` sums each variant's workgroup variables and checks this
/// figure.
pub const MESH_WORKGROUP_BYTES: u32 = 14640;

/// On a GPU, in a run of at most this many job pairs (about 42 chunks) the mesh pass gives each
/// face of a pair a workgroup of its own, and in a larger run one workgroup meshes both
/// (`PassParams::split_pairs`). Measured on an H200 (132 SMs): one chunk 73 → 55 µs, 4,096 chunks
/// +2% for their idle second workgroups. A software adapter never splits (its few cores are
/// busy from the first workgroup); `Tools::set_mesh_split_pairs` overrides it.
pub const MESH_SPLIT_PAIRS: u32 = 128;

impl Mesher {
    /// The mesher's pipelines; with `subgroups`, the mesh pass sums its counts by subgroup
    /// operations (the device must have `Features::SUBGROUP`, with subgroups of at least 4).
    pub fn new(shared: &SharedPipelines, subgroups: bool) -> Self {
        let device = shared.device();
        let collect_layout = COLLECT_BINDINGS.layout(device);
        let release_layout = RELEASE_BINDINGS.layout(device);
        let mesh_layout = MESH_BINDINGS.layout(device);
        let collect_shader =
            ComputeShader::new(shared, &COLLECT_BINDINGS, "voxgpu.mesh.collect", shader_source(MESH_COLLECT));
        let mesh_source = shader_source(if subgroups { MESH_SUBGROUPS } else { MESH });
        let mesh_shader = ComputeShader::new(shared, &MESH_BINDINGS, "voxgpu.mesh", mesh_source)
            .writes_its_workgroup_memory();
        let collect = |entry: &str| collect_shader.pipeline(&format!("voxgpu.mesh.{entry}"), entry);
        Self {
            collect_evicted: collect("collect_evicted"),
            collect_dirty: collect("collect_dirty"),
            release: compute_pipeline(
                shared,
                &RELEASE_BINDINGS,
                "voxgpu.mesh.release",
                shader_source(MESH_RELEASE),
                "main",
            ),
            mesh: mesh_shader.pipeline("voxgpu.mesh", "main"),
            commit: mesh_shader.pipeline("voxgpu.mesh.commit", "commit"),
            collect_layout,
            release_layout,
            mesh_layout,
        }
    }

    /// The bind groups over `resources`: the pools' buffers, and the run's pass parameters
    /// (`params`) and work list (`work`), the frame's or a release run's.
    pub fn bind_groups(&self, device: &wgpu::Device, resources: &Resources) -> BindGroups {
        BindGroups {
            collect: COLLECT_BINDINGS.bind_group(device, &self.collect_layout, resources),
            release: RELEASE_BINDINGS.bind_group(device, &self.release_layout, resources),
            mesh: MESH_BINDINGS.bind_group(device, &self.mesh_layout, resources),
        }
    }

    /// Records collect evicted → collect dirty → release, mesh → commit (five dispatches) as two
    /// profiled compute passes inside a `mesh` scope. The work list header must have been reset to
    /// `layouts::work_header` for this run.
    /// With [`Collect::Evicted`] the dirty collection is left out (four dispatches): a release-only
    /// run between the uploads meshes no dirty node, whose mips and level the frame's LOD and mip
    /// passes have not updated yet.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        groups: &BindGroups,
        work: &wgpu::Buffer,
        slot_count: u32,
        collect: Collect,
    ) {
        scope(profiler, encoder, stage::MESH, |encoder, mesh| {
            compute_pass(profiler, encoder, Some(mesh), stage::MESH_WORK_LIST, |pass| {
                pass.set_bind_group(0, &groups.collect, &[]);
                let pipelines: &[&wgpu::ComputePipeline] = match collect {
                    Collect::EvictedAndDirty => &[&self.collect_evicted, &self.collect_dirty],
                    Collect::Evicted => &[&self.collect_evicted],
                };
                for pipeline in pipelines {
                    pass.set_pipeline(pipeline);
                    pass.dispatch_workgroups(slot_count.div_ceil(64).max(1), 1, 1);
                }
                pass.set_pipeline(&self.release);
                pass.set_bind_group(0, &groups.release, &[]);
                pass.dispatch_workgroups_indirect(work, 0);
            });
            compute_pass(profiler, encoder, Some(mesh), stage::MESH_BUILD, |pass| {
                pass.set_pipeline(&self.mesh);
                pass.set_bind_group(0, &groups.mesh, &[]);
                pass.dispatch_workgroups_indirect(work, 0);
                pass.set_pipeline(&self.commit);
                pass.dispatch_workgroups(1, 1, 1);
            });
        });
    }
}
