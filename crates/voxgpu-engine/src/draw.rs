//! Culling into indirect draw lists written by the GPU, and how they are submitted.
//!
//! The `cull` pass tests every chunk's box against the frustum, every face direction against
//! the eye and, with occlusion culling, every face stream's box against the depth pyramid, and
//! turns the face streams that can be seen into commands (one per run of consecutive pages),
//! opaque and transparent into separate lists. With occlusion culling it runs twice a frame: its
//! first phase lists the streams seen last frame, which are drawn and give the pyramid its depth;
//! its second lists the rest that the pyramid does not hide. It counts the chunks tested and
//! visible and the streams each phase drew or culled, and keeps each stream's verdict (which
//! the next frame's first phase reads, and inspection). The CPU records one draw call per
//! list, whatever the number of chunks: a multi-draw over the list, or (where a multi-draw is a
//! loop of draw calls, as on WebGPU) one instanced draw with an instance per page.

use wgpu::util::DrawIndexedIndirectArgs;
use wgpu_profiler::GpuProfiler;

use super::bindings::{BindingTable, Resources, Slot};
use super::layouts::{ChunkMeta, CullParams, FaceMesh, PassParams};
use super::pipelines::{ComputeShader, SharedPipelines, dispatch_linear};
use super::profiling::{compute_pass, stage};
use super::quad_cull::QuadLists;
use super::shaders::{CULL, TRANSPARENT_SORT, shader_source};
use voxgpu_core::cull::SORT_BUCKETS;

/// The most quads one command draws; the static index buffer holds `6 × MAX_DRAW_QUADS` indices.
/// A face stream never holds more, so a command never needs splitting for length.
pub const MAX_DRAW_QUADS: u32 = 32768;
const _: () = assert!(
    super::layouts::MAX_FACE_PAGES * super::quad_pool::PAGE_QUADS <= MAX_DRAW_QUADS,
    "one command must be able to cover a whole face stream"
);

/// How the draw lists are submitted: [`DrawSubmission::for_caps`] from the device's features,
/// unless `RendererOptions::draw_submission` names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawSubmission {
    /// `multi_draw_indexed_indirect_count`: the GPU-written count bounds the draws.
    IndirectCount,
    /// `multi_draw_indexed_indirect` over the whole capped list, whose unused tail is zeroed
    /// every frame (GL has no indirect count).
    CappedIndirect,
    /// One `draw_indexed_indirect` per list of `PAGE_QUADS` quads × one instance per command,
    /// each command one page at most; the vertex shader finds its quad through the list. It
    /// needs no multi-draw, which WebGPU lacks (wgpu loops over the commands there).
    Instanced,
}

impl DrawSubmission {
    /// The fastest where it was measured (docs/PERFORMANCE.md, "Draw submission"):
    /// [`DrawSubmission::IndirectCount`] when the device has `MULTI_DRAW_INDIRECT_COUNT`; in
    /// the browser [`DrawSubmission::Instanced`], the only one with a fixed number of draw calls
    /// there; [`DrawSubmission::CappedIndirect`] otherwise (GL, where one multi-draw call beats
    /// the instanced path's longer vertex work).
    pub fn for_caps(caps: super::Capabilities) -> Self {
        if caps.multi_draw_indirect_count {
            Self::IndirectCount
        } else if cfg!(target_arch = "wasm32") {
            Self::Instanced
        } else {
            Self::CappedIndirect
        }
    }

    /// Whether a device with `caps` can submit this way.
    pub fn is_supported(self, caps: super::Capabilities) -> bool {
        self != Self::IndirectCount || caps.multi_draw_indirect_count
    }

    /// The name `--draw-submission` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::IndirectCount => "count",
            Self::CappedIndirect => "capped",
            Self::Instanced => "instanced",
        }
    }

    /// Every submission, in [`Self::name`] order of the docs.
    pub const ALL: [Self; 3] = [Self::IndirectCount, Self::CappedIndirect, Self::Instanced];

    /// One line for `voxgpu info`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::IndirectCount => "multi_draw_indexed_indirect_count (the GPU's count bounds the draws)",
            Self::CappedIndirect => {
                "multi_draw_indexed_indirect over the capped list, its tail zeroed each frame (no indirect count)"
            }
            Self::Instanced => {
                "draw_indexed_indirect per list, one instance per visible page (no multi-draw)"
            }
        }
    }
}

/// The static index buffer: quad `q` of a command is two triangles over vertices `4q..4q + 4`.
pub fn quad_indices() -> Vec<u32> {
    (0..MAX_DRAW_QUADS).flat_map(|q| [0, 1, 2, 0, 2, 3].map(|c| 4 * q + c)).collect()
}

const ARGS_BYTES: u64 = size_of::<DrawIndexedIndirectArgs>() as u64;
/// Words of the counts buffer: commands of each of the [`LISTS`] lists (this phase's), quads of
/// each (the frame's), skirt quads drawn, chunks tested, chunks visible, face stream candidates,
/// drawn by the first phase, by the second, occluded, and the first phase's commands (`COUNT_*`
/// in `shaders/cull.wgsl`).
pub const COUNT_WORDS: u64 = 22;
/// The draw lists: opaque (the nearest band), transparent, fading, occluded, and the farther
/// opaque bands ([`OPAQUE_LISTS`]).
pub const LISTS: usize = 7;
/// Command-count words the second phase starts again from zero: one per list.
const PHASE_COUNT_WORDS: u64 = LISTS as u64;
/// The opaque lists in draw order: distance bands from the eye, nearest first (`distance_band` in
/// `shaders/cull.wgsl`), so early depth testing rejects what the nearer ones hide.
pub const OPAQUE_LISTS: [u32; 4] = [0, 4, 5, 6];
/// The list of the opaque faces of nodes cross-fading between levels (`LIST_FADING` in
/// `shaders/cull.wgsl`), drawn by the dithering pipelines.
pub const LIST_FADING: u32 = 2;
/// The list of the face streams occlusion culled (`LIST_OCCLUDED`), written only for the debug
/// view that shows them.
pub const LIST_OCCLUDED: u32 = 3;
/// Regions of `capacity` commands in the command buffer: each list's (lists 0 and 1 in regions
/// 0 and 1, list k ≥ 2 in region k + 1) and the transparent list sorted (region 2).
const ARGS_REGIONS: u64 = LISTS as u64 + 1;

/// Words of the `visible` buffer per slot: one per (face, kind), `VIS_*` bits in
/// `shaders/cull.wgsl`.
pub const VISIBLE_WORDS_PER_SLOT: u32 = 12;
/// `visible` bits (`VIS_*` in `shaders/cull.wgsl`): the node is drawn, has quads and is in the
/// frustum; the stream is a candidate; the pyramid found it occluded; the first phase drew it;
/// it was seen.
pub mod vis {
    /// The node is drawn, has quads and is in the frustum (the same in all of a slot's words).
    pub const IN_VIEW: u32 = 1;
    /// The stream has quads, its node is in view, and it can face the eye.
    pub const CANDIDATE: u32 = 2;
    /// The depth pyramid hid the candidate.
    pub const OCCLUDED: u32 = 4;
    /// The first phase drew it (it was seen the frame before).
    pub const DRAWN_FIRST: u32 = 8;
    /// A candidate not occluded: the next frame's first phase draws it.
    pub const SEEN: u32 = 16;
}

/// The most commands a draw list holds (a power of two): 2^21 commands of one or more 256-quad
/// pages each are over 500 million quads. Commands past it are dropped, never written out of
/// bounds.
pub const MAX_DRAW_COMMANDS: u32 = 1 << 21;

/// Regions of `capacity` words in the sort's key buffer (`SORT_KEY_REGIONS` in
/// `shaders/common.wgsl`): the unsorted keys, the sorted keys, the unsorted groups' slots, the
/// groups by place within their key, the sorted entries' slots.
pub const SORT_KEY_REGIONS: u32 = 5;
/// Where the sorted keys start in the sort's key buffer, in regions of `capacity` words.
pub const SORT_SORTED_REGION: u64 = 1;
/// Where the sorted entries' slots start in the sort's key buffer, in regions of `capacity` words.
pub const SORT_SORTED_SLOTS_REGION: u64 = 4;

const PARAMS: u64 = size_of::<PassParams>() as u64;
const META: u64 = size_of::<ChunkMeta>() as u64;

/// `cull.wgsl`: frustum and face-direction culling into the draw lists.
pub const CULL_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.cull",
    shaders: &[CULL],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", PARAMS),
        Slot::read("faces", size_of::<FaceMesh>() as u64),
        Slot::read_write("args", ARGS_BYTES),
        Slot::read_write("counts", COUNT_WORDS * 4),
        Slot::uniform("cull", size_of::<CullParams>() as u64),
        Slot::read("chunks", META),
        Slot::read_write("visible", 4),
        Slot::read_write("sort_keys", 4),
        Slot::read_write("sort_buckets", SORT_BUCKETS as u64 * 4),
        Slot::read("pyramid", 4),
    ],
};

/// `transparent_sort.wgsl`: the back-to-front sort of the transparent list.
pub const SORT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.sort",
    shaders: &[TRANSPARENT_SORT],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", PARAMS),
        Slot::read_write("args", ARGS_BYTES),
        Slot::read("counts", COUNT_WORDS * 4),
        Slot::read_write("sort_keys", 4),
        Slot::read_write("sort_buckets", 2 * SORT_BUCKETS as u64 * 4),
        Slot::read_write("instanced", LISTS as u64 * ARGS_BYTES),
        Slot::read("chunks", META),
    ],
};

/// The command lists (one buffer of [`ARGS_REGIONS`] regions of `capacity` commands: the
/// nearest opaque band, transparent as the cull pass appends them, transparent sorted back to
/// front, the opaque faces of cross-fading nodes, occluded streams for the debug view, the
/// farther opaque bands), their
/// counts, the cull parameters, the per-slot visibility the cull pass writes and the transparent
/// sort's keys and buckets.
pub struct DrawLists {
    pub args: wgpu::Buffer,
    pub counts: wgpu::Buffer,
    /// Commands each list holds.
    pub capacity: u32,
    /// [`CullParams`], written each frame.
    pub cull_params: wgpu::Buffer,
    /// [`VISIBLE_WORDS_PER_SLOT`] words per slot, one per (face, kind) face stream: its
    /// [`vis`] bits from the last cull pass.
    pub visible: wgpu::Buffer,
    visible_slots: u32,
    /// The transparent sort's words, in [`SORT_KEY_REGIONS`] regions of `capacity`: each
    /// command's distance key unsorted in `[0, capacity)` and sorted in
    /// `[capacity, 2 capacity)`.
    pub sort_keys: wgpu::Buffer,
    /// Transparent commands per key, then each key's next position, and each key's first
    /// position in the second half (`transparent_sort.wgsl`).
    sort_buckets: wgpu::Buffer,
    /// The instanced path's draws, one per list, written by the sort's scan (and after the first
    /// phase by `instanced_only`).
    instanced: wgpu::Buffer,
    /// Bumped whenever a buffer is replaced, so bind groups know to rebuild.
    pub generation: u64,
    first: wgpu::ComputePipeline,
    second: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    instanced_only: wgpu::ComputePipeline,
    sort_scan: wgpu::ComputePipeline,
    sort_scatter: wgpu::ComputePipeline,
    sort_place: wgpu::ComputePipeline,
    sort_layout: wgpu::BindGroupLayout,
    /// The opaque lists' quads culled one by one after each cull phase, and their draws.
    pub quad_lists: QuadLists,
    /// This frame culls quads one by one (`Culling::quads` with [`DrawSubmission::IndirectCount`]):
    /// every list but the transparent one is drawn from `quad_lists`.
    pub per_quad: bool,
}

/// The bind groups of the cull pass, of per-quad culling and of the transparent sort after it.
pub struct CullBindGroups {
    cull: wgpu::BindGroup,
    quads: [wgpu::BindGroup; 2],
    sort: wgpu::BindGroup,
}

fn sort_keys_buffer(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.sort.keys"),
        size: SORT_KEY_REGIONS as u64 * 4 * capacity as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn visible_buffer(device: &wgpu::Device, slots: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.cull.visible"),
        size: 4 * (VISIBLE_WORDS_PER_SLOT * slots) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl DrawLists {
    /// Bytes of the command lists, counts, visibility and sort buffers.
    pub fn bytes(&self) -> u64 {
        [&self.args, &self.counts, &self.visible, &self.sort_keys, &self.sort_buckets, &self.instanced]
            .iter()
            .map(|b| b.size())
            .sum::<u64>()
            + self.quad_lists.bytes()
    }

    pub fn new(shared: &SharedPipelines, capacity: u32) -> Self {
        let device = shared.device();
        let layout = CULL_BINDINGS.layout(device);
        let cull = ComputeShader::new(shared, &CULL_BINDINGS, "voxgpu.cull", shader_source(CULL));
        let first = cull.pipeline("voxgpu.cull.first", "first");
        let second = cull.pipeline("voxgpu.cull", "second");
        let sort_layout = SORT_BINDINGS.layout(device);
        let sort = ComputeShader::new(shared, &SORT_BINDINGS, "voxgpu.sort", shader_source(TRANSPARENT_SORT));
        let sort_scan = sort.pipeline("voxgpu.sort.scan", "scan");
        let sort_scatter = sort.pipeline("voxgpu.sort.scatter", "scatter");
        let sort_place = sort.pipeline("voxgpu.sort.place", "place");
        let instanced_only = sort.pipeline("voxgpu.sort.instanced_only", "instanced_only");
        let counts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("voxgpu.cull.counts"),
            // Whole vec4s: per-quad culling reads the counts as a uniform array.
            size: COUNT_WORDS.next_multiple_of(4) * 4,
            usage: wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let capacity = capacity.max(1);
        Self {
            args: args_buffer(device, capacity),
            counts,
            capacity,
            cull_params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.cull.params"),
                size: size_of::<CullParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            visible: visible_buffer(device, 64),
            visible_slots: 64,
            sort_keys: sort_keys_buffer(device, capacity),
            sort_buckets: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.sort.buckets"),
                size: 2 * SORT_BUCKETS as u64 * 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            instanced: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.draw.instanced"),
                size: LISTS as u64 * ARGS_BYTES,
                usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            generation: 0,
            first,
            second,
            layout,
            instanced_only,
            sort_scan,
            sort_scatter,
            sort_place,
            sort_layout,
            quad_lists: QuadLists::new(shared),
            per_quad: false,
        }
    }

    /// Makes each list hold at least `commands` commands, the visibility array `slots` slots and,
    /// when frames cull `per_quad`, the quad list every one of `quads` quads.
    pub fn ensure(&mut self, device: &wgpu::Device, commands: u32, slots: u32, quads: u32, per_quad: bool) {
        self.per_quad = per_quad;
        let quad_lists = self.quad_lists.generation;
        self.quad_lists.ensure(device, quads, per_quad);
        if self.quad_lists.generation != quad_lists {
            self.generation += 1;
        }
        let commands = commands.min(MAX_DRAW_COMMANDS);
        if commands > self.capacity {
            self.capacity = commands.next_power_of_two();
            self.args = args_buffer(device, self.capacity);
            self.sort_keys = sort_keys_buffer(device, self.capacity);
            self.generation += 1;
        }
        if slots > self.visible_slots {
            self.visible_slots = slots.next_power_of_two();
            self.visible = visible_buffer(device, self.visible_slots);
            self.generation += 1;
        }
    }

    /// The lists' buffers by name: commands, counts, cull parameters, visibility, the sort's
    /// keys and buckets, the instanced draws.
    pub fn resources<'a>(&'a self, resources: Resources<'a>) -> Resources<'a> {
        let resources = resources
            .buffer("args", &self.args)
            .buffer("counts", &self.counts)
            .buffer("cull", &self.cull_params)
            .buffer("visible", &self.visible)
            .buffer("sort_keys", &self.sort_keys)
            .buffer("sort_buckets", &self.sort_buckets)
            .buffer("instanced", &self.instanced);
        self.quad_lists.resources(resources)
    }

    /// The cull and sort bind groups over `resources` (the frame's, with [`Self::resources`]
    /// among them).
    pub fn bind_groups(&self, device: &wgpu::Device, resources: &Resources) -> CullBindGroups {
        CullBindGroups {
            cull: CULL_BINDINGS.bind_group(device, &self.layout, resources),
            quads: self.quad_lists.bind_groups(device, resources),
            sort: SORT_BINDINGS.bind_group(device, &self.sort_layout, resources),
        }
    }

    /// Zeroes the counts (and, for the capped path, the commands) before the frame's cull pass
    /// writes them.
    pub fn reset(&self, encoder: &mut wgpu::CommandEncoder, submission: DrawSubmission) {
        encoder.clear_buffer(&self.counts, 0, None);
        encoder.clear_buffer(&self.sort_buckets, 0, None);
        self.quad_lists.reset(encoder);
        if submission == DrawSubmission::CappedIndirect {
            encoder.clear_buffer(&self.args, 0, None);
        }
    }

    /// Records the cull pass's first phase (two invocations per face of each slot; the opaque
    /// streams seen last frame become commands) and, for the instanced path, its draws' arguments.
    pub fn record_first(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        groups: &CullBindGroups,
        slot_count: u32,
        submission: DrawSubmission,
    ) {
        compute_pass(profiler, encoder, None, stage::CULL_FIRST, |pass| {
            pass.set_pipeline(&self.first);
            pass.set_bind_group(0, &groups.cull, &[]);
            dispatch_linear(pass, slot_count.saturating_mul(12), 64);
            if self.per_quad {
                self.quad_lists.record(pass, &groups.quads, true);
            }
            if submission == DrawSubmission::Instanced {
                pass.set_bind_group(0, &groups.sort, &[]);
                pass.set_pipeline(&self.instanced_only);
                pass.dispatch_workgroups(1, 1, 1);
            }
        });
    }

    /// After the first phase's draws: the lists start again from zero for the second (its
    /// command counts, and for the capped path its commands).
    pub fn reset_phase(&self, encoder: &mut wgpu::CommandEncoder, submission: DrawSubmission) {
        encoder.clear_buffer(&self.counts, 0, Some(4 * PHASE_COUNT_WORDS));
        if submission == DrawSubmission::CappedIndirect {
            encoder.clear_buffer(&self.args, 0, None);
        }
    }

    /// Records the `cull` pass (its second phase with occlusion culling, its only one without),
    /// two invocations (opaque, transparent) per face of each slot, then the transparent sort
    /// pass (`scan` with one workgroup, `scatter` and `place` with one invocation per command of
    /// capacity): two profiled compute passes, four dispatches.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        groups: &CullBindGroups,
        slot_count: u32,
    ) {
        compute_pass(profiler, encoder, None, stage::CULL, |pass| {
            pass.set_pipeline(&self.second);
            pass.set_bind_group(0, &groups.cull, &[]);
            dispatch_linear(pass, slot_count.saturating_mul(12), 64);
            if self.per_quad {
                self.quad_lists.record(pass, &groups.quads, false);
            }
        });
        compute_pass(profiler, encoder, None, stage::SORT, |pass| {
            pass.set_bind_group(0, &groups.sort, &[]);
            pass.set_pipeline(&self.sort_scan);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.sort_scatter);
            dispatch_linear(pass, self.capacity, 64);
            pass.set_pipeline(&self.sort_place);
            dispatch_linear(pass, self.capacity, 64);
        });
    }

    /// Records the draws of list `kind` (0 the nearest opaque band, 1 transparent,
    /// [`LIST_FADING`], [`LIST_OCCLUDED`], 4.. the farther opaque bands of [`OPAQUE_LISTS`]): one
    /// command whatever the number of chunks.
    pub fn draw(&self, pass: &mut CountingPass<'_, '_>, submission: DrawSubmission, kind: u32) {
        // Opaque commands from the first region, transparent ones from the sorted third, the
        // others from the region after their list's number.
        let region = if kind == 0 { 0 } else { kind as u64 + 1 };
        let offset = region * self.capacity as u64 * ARGS_BYTES;
        pass.commands += 1;
        if self.per_quad && kind != 1 {
            self.quad_lists.draw(pass.pass, kind);
            return;
        }
        match submission {
            DrawSubmission::IndirectCount => pass.pass.multi_draw_indexed_indirect_count(
                &self.args,
                offset,
                &self.counts,
                kind as u64 * 4,
                self.capacity,
            ),
            DrawSubmission::CappedIndirect => {
                pass.pass.multi_draw_indexed_indirect(&self.args, offset, self.capacity)
            }
            DrawSubmission::Instanced => {
                pass.pass.draw_indexed_indirect(&self.instanced, kind as u64 * ARGS_BYTES)
            }
        }
    }
}

/// A render pass that counts the commands recorded into it. The frame records every draw-pass
/// command through one of these, so the count is exact: `tests/culling.rs` pins that it does not
/// depend on the number of chunks.
pub struct CountingPass<'p, 'e> {
    pass: &'p mut wgpu::RenderPass<'e>,
    pub commands: u32,
}

impl<'p, 'e> CountingPass<'p, 'e> {
    pub fn new(pass: &'p mut wgpu::RenderPass<'e>) -> Self {
        Self { pass, commands: 0 }
    }

    pub fn set_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
        self.commands += 1;
        self.pass.set_pipeline(pipeline);
    }

    pub fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup) {
        self.commands += 1;
        self.pass.set_bind_group(index, group, &[]);
    }

    /// A non-indexed draw of `vertices` (the sky's full-screen triangle).
    pub fn draw(&mut self, vertices: std::ops::Range<u32>) {
        self.commands += 1;
        self.pass.draw(vertices, 0..1);
    }

    /// The pass itself, for one draw command (counted).
    pub fn draw_command(&mut self) -> &mut wgpu::RenderPass<'e> {
        self.commands += 1;
        self.pass
    }

    pub fn set_index_buffer(&mut self, buffer: &wgpu::Buffer) {
        self.commands += 1;
        self.pass.set_index_buffer(buffer.slice(..), wgpu::IndexFormat::Uint32);
    }
}

fn args_buffer(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.cull.commands"),
        // Opaque, transparent as the cull pass appends them, transparent sorted, fading,
        // occluded, the farther opaque bands.
        size: ARGS_REGIONS * capacity as u64 * ARGS_BYTES,
        usage: wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}
