//! Per-quad culling (`shaders/quad_cull.wgsl`): after each phase of the cull pass, every quad of
//! the opaque lists' commands is tested on its own against the frustum and, after the first
//! phase, the depth pyramid; the kept ones are written to a quad list per draw list, which a few
//! commands of up to [`MAX_DRAW_QUADS`] quads draw instead of a command per run of pages.
//!
//! Why: on GPUs whose rasteriser and vertex stage are a small part of the chip (an H100 or H200
//! runs vertex and fragment work on a few of its units), a quad costs the same whether it is
//! clipped or drawn, and every command costs on its own; removing a quad before the draw is the
//! only way to save its vertices (docs/PERFORMANCE.md). Only with
//! [`DrawSubmission::IndirectCount`], whose GPU-written count bounds each list's few commands;
//! the transparent list keeps its sorted commands.
//!
//! Invariant: leaving a quad out never changes the picture (the shader says why), so a frame
//! with per-quad culling equals the frame without it pixel for pixel.

use super::bindings::{BindingTable, Resources, Slot};
use super::draw::{COUNT_WORDS, DrawSubmission, LISTS, MAX_DRAW_QUADS};
use super::layouts::{ChunkMeta, CullParams, PassParams};
use super::pipelines::{ComputeShader, SharedPipelines};
use super::shaders::{QUAD_CULL, shader_source};
use wgpu::util::DrawIndexedIndirectArgs;

/// Vertex indices from here on name quad list entries (`QUAD_LIST_VERTEX` in
/// `shaders/quad_cull.wgsl` and `shaders/chunk_draw.wgsl`): a command over entries `e..` has
/// `base_vertex = QUAD_LIST_VERTEX + 4e`.
pub const QUAD_LIST_VERTEX: u32 = 1 << 30;

/// Words of the `lists` buffer before the commands (`LISTS_*` in `shaders/quad_cull.wgsl`): 4
/// unused, then the quads each list kept this phase, each list's command count, the quads each
/// list kept this frame and, in the eighth word, 1 when the frame culled quads one by one, 8
/// words each.
const KEPT_WORD: u64 = 4;
const COMMAND_COUNTS_WORD: u64 = 12;
const FRAME_KEPT_WORD: u64 = 20;
const COMMANDS_WORD: u64 = 28;
/// The counts word of list 0's quads this frame (`COUNT_QUADS` in `shaders/cull.wgsl`).
const COUNT_QUADS: usize = 7;
const ARGS_BYTES: u64 = size_of::<DrawIndexedIndirectArgs>() as u64;

/// `quad_cull.wgsl`'s bindings.
pub const QUAD_CULL_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.quad_cull",
    shaders: &[QUAD_CULL],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", size_of::<PassParams>() as u64),
        Slot::uniform("cull", size_of::<CullParams>() as u64),
        Slot::uniform("counts", COUNT_WORDS.next_multiple_of(4) * 4),
        Slot::read("args", ARGS_BYTES),
        Slot::read("chunks", size_of::<ChunkMeta>() as u64),
        Slot::read("page_owner", 4),
        Slot::read("quads", voxgpu_core::mesh::QUAD_BYTES as u64),
        Slot::read("pyramid", 4),
        Slot::read_write("quad_list", 4),
        Slot::read_write("quad_lists", 4 * COMMANDS_WORD),
        Slot::read_write("quad_dispatch", 12),
    ],
};

/// Commands each list's region of the `lists` buffer holds for a quad list of `entries`.
fn commands_per_list(entries: u32) -> u32 {
    entries.div_ceil(MAX_DRAW_QUADS)
}

/// The quad list, the compacted lists' commands and counts, and the pass's pipelines.
pub struct QuadLists {
    /// One quad index per entry; list `k` from the sum of the frame's quads of the lists before
    /// it.
    quad_list: wgpu::Buffer,
    /// `COMMANDS_WORD` words of counts (the first four unused), then [`LISTS`] regions of
    /// [`commands_per_list`] commands.
    lists: wgpu::Buffer,
    entries: u32,
    /// The expand dispatch's workgroups, written by `prepare`.
    dispatch: wgpu::Buffer,
    /// Bound as `quad_dispatch` while the expand dispatch reads `dispatch` as its arguments (a
    /// buffer cannot be both in one dispatch).
    dispatch_stand_in: wgpu::Buffer,
    /// Bumped whenever a buffer is replaced.
    pub generation: u64,
    shader: ComputeShader,
    /// `prepare`, `expand_first`, `expand_second`, `finish`: compiled by the first frame that
    /// culls quads one by one (a renderer on a CPU adapter or without the count submission never
    /// does).
    pipelines: std::sync::OnceLock<[wgpu::ComputePipeline; 4]>,
    layout: wgpu::BindGroupLayout,
}

fn buffers(device: &wgpu::Device, entries: u32) -> (wgpu::Buffer, wgpu::Buffer) {
    let quad_list = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.quad_cull.quad_list"),
        size: 4 * entries.max(1) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let commands = LISTS as u64 * commands_per_list(entries.max(1)) as u64;
    let lists = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.quad_cull.lists"),
        size: 4 * COMMANDS_WORD + commands * ARGS_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    (quad_list, lists)
}

impl QuadLists {
    pub fn new(shared: &SharedPipelines) -> Self {
        let device = shared.device();
        let shader =
            ComputeShader::new(shared, &QUAD_CULL_BINDINGS, "voxgpu.quad_cull", shader_source(QUAD_CULL));
        let (quad_list, lists) = buffers(device, 1);
        let dispatch_buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 12,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        Self {
            quad_list,
            lists,
            entries: 1,
            dispatch: dispatch_buffer("voxgpu.quad_cull.dispatch", wgpu::BufferUsages::INDIRECT),
            dispatch_stand_in: dispatch_buffer(
                "voxgpu.quad_cull.dispatch_stand_in",
                wgpu::BufferUsages::empty(),
            ),
            generation: 0,
            shader,
            pipelines: std::sync::OnceLock::new(),
            layout: QUAD_CULL_BINDINGS.layout(device),
        }
    }

    /// Bytes of the quad list and the compacted commands.
    pub fn bytes(&self) -> u64 {
        self.quad_list.size() + self.lists.size()
    }

    /// Makes the quad list hold `quads` entries (every quad of the pool, which bounds what one
    /// frame draws: no stream is drawn twice) when per-quad culling is `used`, and one otherwise.
    pub fn ensure(&mut self, device: &wgpu::Device, quads: u32, used: bool) {
        // The pool's quads bound the entries' vertex indices below 2^31 (`MAX_POOL_QUADS`).
        let entries = if used { quads.clamp(1, crate::quad_pool::MAX_POOL_QUADS) } else { 1 };
        if entries != self.entries && (entries > self.entries || !used) {
            (self.quad_list, self.lists) = buffers(device, entries);
            self.entries = entries;
            self.generation += 1;
        }
    }

    /// The quad list and the compacted commands by name.
    pub fn resources<'a>(&'a self, resources: Resources<'a>) -> Resources<'a> {
        resources.buffer("quad_list", &self.quad_list).buffer("quad_lists", &self.lists)
    }

    /// The pass's bind groups: its own for `prepare` and `finish`, and the expand dispatch's.
    pub fn bind_groups(&self, device: &wgpu::Device, resources: &Resources) -> [wgpu::BindGroup; 2] {
        let own = resources.clone().buffer("quad_dispatch", &self.dispatch);
        let expand = resources.clone().buffer("quad_dispatch", &self.dispatch_stand_in);
        [own, expand].map(|r| QUAD_CULL_BINDINGS.bind_group(device, &self.layout, &r))
    }

    /// Zeroes the frame's kept counts and its flag, before the frame's first cull pass.
    pub fn reset(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.lists, 4 * FRAME_KEPT_WORD, Some(4 * (LISTS as u64 + 1)));
    }

    /// Records the pass over the commands the cull pass just wrote, into its compute pass: the
    /// first phase tests the frustum only.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>, groups: &[wgpu::BindGroup; 2], first_phase: bool) {
        let [prepare, expand_first, expand_second, finish] = self.pipelines.get_or_init(|| {
            ["prepare", "expand_first", "expand_second", "finish"]
                .map(|entry| self.shader.pipeline(&format!("voxgpu.quad_cull.{entry}"), entry))
        });
        pass.set_bind_group(0, &groups[0], &[]);
        pass.set_pipeline(prepare);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(0, &groups[1], &[]);
        pass.set_pipeline(if first_phase { expand_first } else { expand_second });
        pass.dispatch_workgroups_indirect(&self.dispatch, 0);
        pass.set_bind_group(0, &groups[0], &[]);
        pass.set_pipeline(finish);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Records the draw of list `kind`'s kept quads: at most [`commands_per_list`] commands,
    /// bounded by the count the pass wrote.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, kind: u32) {
        let per_list = commands_per_list(self.entries);
        let offset = 4 * COMMANDS_WORD + kind as u64 * per_list as u64 * ARGS_BYTES;
        let count = 4 * (COMMAND_COUNTS_WORD + kind as u64);
        pass.multi_draw_indexed_indirect_count(&self.lists, offset, &self.lists, count, per_list);
    }

    /// The buffer the frame's kept counts are copied from, and their offset and length in bytes:
    /// [`LISTS`] words, one per list, then 1 when the frame culled quads one by one.
    pub fn frame_kept(&self) -> (&wgpu::Buffer, u64, u64) {
        (&self.lists, 4 * FRAME_KEPT_WORD, 4 * (LISTS as u64 + 1))
    }

    /// The entries of the quad list each list kept in the last phase recorded, by list (the
    /// transparent list's empty), read back: `counts` are the cull pass's counts of that frame,
    /// whose quads per list place each list in the quad list.
    pub fn read_kept(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        counts: &[u32],
    ) -> Result<Vec<Vec<u32>>, crate::GpuError> {
        let words = |buffer, count: u64| -> Result<Vec<u32>, crate::GpuError> {
            let raw = crate::readback::read_buffer(device, queue, buffer, 0, 4 * count)?;
            Ok(bytemuck::pod_collect_to_vec(&raw))
        };
        let header = words(&self.lists, COMMANDS_WORD)?;
        let all = words(&self.quad_list, self.entries as u64)?;
        let mut base = 0usize;
        let mut kept = Vec::with_capacity(LISTS);
        for list in 0..LISTS {
            if list == 1 {
                kept.push(Vec::new());
                continue;
            }
            let n = header[KEPT_WORD as usize + list] as usize;
            kept.push(all[base.min(all.len())..(base + n).min(all.len())].to_vec());
            base += counts[COUNT_QUADS + list] as usize;
        }
        Ok(kept)
    }
}

/// Whether frames of `submission` cull each quad, as `asked` (`Culling::quads`) on a device that
/// does `by_default`.
pub fn used(asked: Option<bool>, by_default: bool, submission: DrawSubmission) -> bool {
    asked.unwrap_or(by_default) && submission == DrawSubmission::IndirectCount
}
