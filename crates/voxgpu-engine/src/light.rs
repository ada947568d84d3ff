//! The light pass (`shaders/light.wgsl`; rules and twin in `voxgpu_core::light`): sky and block
//! light of the nodes whose light a change can reach, into the chunk pool's light pool, in the
//! frame of the change, before anything is drawn.
//!
//! The CPU knows every change that moves light (a node in or out, an edit), so it lists the nodes
//! to light itself ([`crate::chunk_pool::ChunkPool::light_jobs`]), sorted by level, and the pass
//! is recorded only on frames that have any: a frame without changes costs nothing. A frame's
//! steps, each over its own range of the list (one uniform per range): `mask` and `fall` over
//! every job; `spread` or `spread_lines` ([`LightPass::set_spread_in_lines`]) [`RELAX_STEPS`] times
//! over the chunks, one uniform per round, each round after the first dispatched indirectly with
//! the workgroups the round before writes only if a cell changed in it (so the rounds after the
//! light settles run none); `levels` over every job at once (each job's levels 1..5 from its
//! level 0); then for each node level from 1 up, `pull`: the octants with a resident child take
//! their levels from the child's (final by then: a chunk's from `levels`, a coarser child's from
//! the pull of the level below), and the top level, one cell, the largest over the octants. A
//! job's level-k light over a child is the child's level k + 1 (a max pyramid of a max pyramid),
//! so the pull copies every level at once, one invocation a word, and the chain from the chunks
//! to the top node level is one dispatch per level: on a GPU this pass waits on its chains of
//! dependent steps, not on its arithmetic.

use wgpu_profiler::GpuProfiler;

use super::bindings::{BindingTable, Resources, Slot};
use super::layouts::LIGHT_MASK_OFFSET;
use super::pipelines::{ComputeShader, SharedPipelines, dispatch_linear, linear_dispatch};
use super::profiling::{compute_pass, scope, stage};
use super::shaders::{LIGHT, shader_source};
use voxgpu_core::light::{LightRules, RELAX_STEPS};
use voxgpu_core::voxel::{BlockRegistry, MAX_NODE_LEVEL};

/// One node to light. Twin of `LightJob` in `shaders/light.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LightJob {
    pub slot: u32,
    pub level: u32,
    /// Children's slots by octant, `NO_SLOT` where not resident (and for chunks).
    pub children: [u32; 8],
}

/// A dispatch's jobs, and the spread's round with the next round's workgroups. Twin of
/// `LightRange`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct LightRange {
    first: u32,
    count: u32,
    round: u32,
    /// The next round's workgroups, (0, 0) after the last.
    next: [u32; 2],
    /// The spread round's stamp: `STAMPS_PER_RECORDING` per recording, then the round, plus 1.
    stamp: u32,
    pad: [u32; 2],
}

/// Spread stamps numbered per recording: more than [`RELAX_STEPS`], so the rounds of one
/// recording stamp above every round of the ones before (until the count wraps after 2^28
/// recordings, when old stamps read as recent and only cost skipped work).
const STAMPS_PER_RECORDING: u32 = 16;
const _: () = assert!(STAMPS_PER_RECORDING > RELAX_STEPS);

/// Ranges: every job, then one per node level, then the chunks once per spread round.
const LEVEL_RANGES: usize = MAX_NODE_LEVEL as usize + 1;
const RANGES: usize = 1 + LEVEL_RANGES + RELAX_STEPS as usize;
const ALL: usize = 0;
const CHUNKS: usize = 1;
const FIRST_ROUND: usize = 1 + LEVEL_RANGES;

/// Light words of a node's level 0 (32³ cells, 4 a word): the invocations per job of `spread`'s
/// rounds (`pull` has one per word of every level, [`LIGHT_MASK_OFFSET`]). Twin of the
/// shader's `LEVEL0_WORDS`.
const LEVEL0_WORDS: u32 = 8192;

/// Bytes of one indirect dispatch's arguments (x, y, z workgroups).
const ROUND_ARGS_BYTES: u64 = size_of::<wgpu::util::DispatchIndirectArgs>() as u64;

/// Invocations per chunk of `spread_lines` round `round`: rounds go along x, z, y, x, ...; along
/// x each row of 32 cells has one, along z or y each line of 32 light words. Twin of the shader's
/// `X_LINES` and `ACROSS_LINES`.
fn spread_lines(round: u32) -> u32 {
    if round.is_multiple_of(3) { 1024 } else { 256 }
}

/// `light.wgsl`.
pub const LIGHT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.light",
    shaders: &[LIGHT],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("range", size_of::<LightRange>() as u64),
        Slot::read("jobs", size_of::<LightJob>() as u64),
        Slot::read("voxels", 4),
        Slot::read("links", 4),
        Slot::read("rules", 4),
        Slot::read_write("light", 4),
        Slot::read_write("next_round", 4),
    ],
};

/// The pass's pipelines, its job list, ranges and block rules, and bind groups over the pool.
pub struct LightPass {
    layout: wgpu::BindGroupLayout,
    mask: wgpu::ComputePipeline,
    fall: wgpu::ComputePipeline,
    /// The source's module, for the spread of the other kind when [`Self::set_spread_in_lines`]
    /// switches to it.
    shader: ComputeShader,
    /// The spread's pipeline, `spread_lines` or `spread` as [`Self::spread_in_lines`] says: only
    /// the one in use is compiled.
    spread: wgpu::ComputePipeline,
    /// The spread's rounds sweep lines of 32 cells (`spread_lines`) rather than give each word
    /// of 4 cells an invocation (`spread`). Both reach the same fixed point; which is faster
    /// depends on the adapter. On a GPU a round waits on its longest chain of dependent steps,
    /// and a sweep's chain is 32 cells long. On a CPU adapter launching invocations dominates,
    /// and light that crosses a chunk in one round settles in a few rounds. So sweeps on CPU
    /// adapters, words elsewhere ([`Self::new`]; docs/PERFORMANCE.md has the figures); tests run
    /// both.
    spread_in_lines: bool,
    pull: wgpu::ComputePipeline,
    levels: wgpu::ComputePipeline,
    jobs: wgpu::Buffer,
    /// Jobs `jobs` holds.
    capacity: u32,
    ranges: Vec<wgpu::Buffer>,
    /// The block rules, and their GPU table.
    light_rules: LightRules,
    rules: wgpu::Buffer,
    /// The indirect dispatch arguments of the spread's rounds after the first, odd rounds in the
    /// second buffer and even in the first (a dispatch may not read its arguments from the
    /// buffer it writes): round `r`'s at byte `12 * (r / 2)` of `rounds[r % 2]`, zeroed each
    /// recording and written by round `r - 1` once a cell changed in it.
    rounds: [wgpu::Buffer; 2],
    /// One bind group per range, and the pool generation and job capacity they were made for.
    groups: Option<((u64, u32), Vec<wgpu::BindGroup>)>,
    /// Recordings so far, which number the spread's stamps.
    recordings: u32,
}

/// The entry point of the spread that sweeps lines (`lines`) or relaxes words.
fn spread_entry(lines: bool) -> &'static str {
    if lines { "spread_lines" } else { "spread" }
}

fn jobs_buffer(device: &wgpu::Device, jobs: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.light.jobs"),
        size: jobs.max(1) as u64 * size_of::<LightJob>() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl LightPass {
    /// The pass for `registry`'s blocks on a device of `device_type` (which spread it runs:
    /// [`Self::set_spread_in_lines`]).
    pub fn new(
        shared: &SharedPipelines,
        queue: &wgpu::Queue,
        registry: &BlockRegistry,
        device_type: wgpu::DeviceType,
    ) -> Self {
        let device = shared.device();
        let layout = LIGHT_BINDINGS.layout(device);
        // The pass's two workgroup variables rely on wgpu's zeroing (their flags are only ever
        // set).
        let shader = ComputeShader::new(shared, &LIGHT_BINDINGS, "voxgpu.light", shader_source(LIGHT));
        let pipeline = |entry: &str| shader.pipeline(&format!("voxgpu.light.{entry}"), entry);
        let spread_in_lines = device_type == wgpu::DeviceType::Cpu;
        let ranges = (0..RANGES)
            .map(|_| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("voxgpu.light.range"),
                    size: size_of::<LightRange>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect();
        let light_rules = LightRules::new(registry);
        let rules = light_rules.gpu_table();
        Self {
            mask: pipeline("mask"),
            fall: pipeline("fall"),
            spread: pipeline(spread_entry(spread_in_lines)),
            spread_in_lines,
            pull: pipeline("pull"),
            levels: pipeline("levels"),
            shader,
            layout,
            jobs: jobs_buffer(device, 64),
            capacity: 64,
            ranges,
            light_rules,
            rules: crate::buffers::buffer_with(
                device,
                queue,
                "voxgpu.light.rules",
                bytemuck::cast_slice(&rules),
                wgpu::BufferUsages::STORAGE,
            ),
            rounds: [0, 1].map(|parity| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(["voxgpu.light.rounds.even", "voxgpu.light.rounds.odd"][parity]),
                    size: RELAX_STEPS.div_ceil(2) as u64 * ROUND_ARGS_BYTES,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::INDIRECT
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            }),
            groups: None,
            recordings: 0,
        }
    }

    /// The block rules the pass applies.
    pub fn rules(&self) -> &LightRules {
        &self.light_rules
    }

    /// Makes the spread sweep lines (`lines`) or relax words from the next recording on,
    /// compiling its pipeline if it changes.
    pub fn set_spread_in_lines(&mut self, lines: bool) {
        if lines != self.spread_in_lines {
            self.spread =
                self.shader.pipeline(&format!("voxgpu.light.{}", spread_entry(lines)), spread_entry(lines));
            self.spread_in_lines = lines;
        }
    }

    /// Records the light of `jobs` (sorted by level, as `light_jobs` makes them) into the pool's
    /// light, after the frame's uploads: nothing when there are none. `resources` names the
    /// pool's `voxels`, `links` and `light`, replaced when `pool_generation` changes.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        (resources, pool_generation): (&Resources<'_>, u64),
        jobs: &[LightJob],
    ) {
        if jobs.is_empty() {
            return;
        }
        let count = jobs.len() as u32;
        if count > self.capacity {
            self.capacity = count.next_power_of_two();
            self.jobs = jobs_buffer(device, self.capacity);
            self.groups = None;
        }
        queue.write_buffer(&self.jobs, 0, bytemuck::cast_slice(jobs));
        let mut ranges = [LightRange::default(); RANGES];
        ranges[ALL].count = count;
        for (i, job) in jobs.iter().enumerate() {
            let range = &mut ranges[CHUNKS + job.level as usize];
            if range.count == 0 {
                range.first = i as u32;
            }
            range.count += 1;
        }
        let chunks = ranges[CHUNKS].count;
        let lines = self.spread_in_lines;
        let per_chunk = move |round: u32| if lines { spread_lines(round) } else { LEVEL0_WORDS };
        for round in 0..RELAX_STEPS {
            let next = if round + 1 < RELAX_STEPS {
                let (x, y) = linear_dispatch(chunks * per_chunk(round + 1), 64);
                [x, y]
            } else {
                [0, 0]
            };
            let stamp = self.recordings.wrapping_mul(STAMPS_PER_RECORDING) + round + 1;
            ranges[FIRST_ROUND + round as usize] = LightRange { round, next, stamp, ..ranges[CHUNKS] };
        }
        self.recordings = self.recordings.wrapping_add(1);
        for (buffer, range) in self.ranges.iter().zip(&ranges) {
            queue.write_buffer(buffer, 0, bytemuck::bytes_of(range));
        }
        let key = (pool_generation, self.capacity);
        if self.groups.as_ref().is_none_or(|(k, _)| *k != key) {
            let groups = self
                .ranges
                .iter()
                .enumerate()
                .map(|(i, range)| {
                    // A round writes the next round's arguments, in the buffer of the other
                    // parity; the other ranges write none.
                    let next = i.checked_sub(FIRST_ROUND).map_or(0, |round| (round + 1) % 2);
                    let resources = resources
                        .clone()
                        .buffer("range", range)
                        .buffer("jobs", &self.jobs)
                        .buffer("rules", &self.rules)
                        .buffer("next_round", &self.rounds[next]);
                    LIGHT_BINDINGS.bind_group(device, &self.layout, &resources)
                })
                .collect();
            self.groups = Some((key, groups));
        }
        let (_, groups) = self.groups.as_ref().expect("made above");
        for buffer in &self.rounds {
            encoder.clear_buffer(buffer, 0, None);
        }
        scope(profiler, encoder, stage::LIGHT, |encoder, light| {
            compute_pass(profiler, encoder, Some(light), stage::LIGHT_MASK, |pass| {
                pass.set_bind_group(0, &groups[ALL], &[]);
                pass.set_pipeline(&self.mask);
                dispatch_linear(pass, count, 1);
            });
            compute_pass(profiler, encoder, Some(light), stage::LIGHT_FALL, |pass| {
                pass.set_bind_group(0, &groups[ALL], &[]);
                pass.set_pipeline(&self.fall);
                dispatch_linear(pass, count * 256, 64);
            });
            if chunks > 0 {
                compute_pass(profiler, encoder, Some(light), stage::LIGHT_SPREAD, |pass| {
                    pass.set_pipeline(&self.spread);
                    for (round, group) in groups[FIRST_ROUND..].iter().enumerate() {
                        pass.set_bind_group(0, group, &[]);
                        if round == 0 {
                            dispatch_linear(pass, chunks * per_chunk(0), 64);
                        } else {
                            let offset = (round / 2) as u64 * ROUND_ARGS_BYTES;
                            pass.dispatch_workgroups_indirect(&self.rounds[round % 2], offset);
                        }
                    }
                });
            }
            compute_pass(profiler, encoder, Some(light), stage::LIGHT_LEVELS, |pass| {
                pass.set_bind_group(0, &groups[ALL], &[]);
                pass.set_pipeline(&self.levels);
                dispatch_linear(pass, count, 1);
                pass.set_pipeline(&self.pull);
                for (level, range) in ranges.iter().enumerate().take(FIRST_ROUND).skip(CHUNKS + 1) {
                    if range.count > 0 {
                        pass.set_bind_group(0, &groups[level], &[]);
                        dispatch_linear(pass, range.count * LIGHT_MASK_OFFSET, 64);
                    }
                }
            });
        });
    }
}
