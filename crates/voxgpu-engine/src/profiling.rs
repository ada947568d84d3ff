//! Per-stage GPU timings of the frame, from `wgpu-profiler` timestamp scopes.
//!
//! Every stage is its own pass (or a scope around passes), so pass timestamps, which need only
//! `TIMESTAMP_QUERY`, time each one; the parent scopes (`mesh`, `draw`) and `upload` (copies, not
//! a pass) also need `TIMESTAMP_QUERY_INSIDE_ENCODERS` and are left out without it. With profiling
//! off the scopes record nothing; every pass carries its stage name as its label. Results arrive a
//! few frames late and are taken without waiting, so the viewer can show them every frame.
//!
//! The scopes push no debug groups ([`SETTINGS`]): wgpu encodes each pass into a Vulkan command
//! buffer of its own, so an encoder-level group around passes (`mesh`, `draw`, `upload` around
//! the release runs) is pushed in one command buffer and popped in another. Vulkan allows that
//! for primary command buffers, but Mesa's per-command-buffer label stack (lavapipe 22.3) pops
//! from an empty stack there, and the next push into that command buffer writes through a null
//! pointer: two release runs in one upload stage crashed in `CommandEncoder::finish`.

use wgpu_profiler::{GpuProfiler, GpuProfilerQuery, GpuProfilerSettings, GpuTimerQueryResult};

use super::GpuError;

/// Frames whose timings may be in flight at once; more and the profiler drops one.
const MAX_PENDING_FRAMES: usize = 4;

/// Every profiler's settings, timer queries off until profiling is turned on: no debug groups
/// (see the module's documentation).
pub const SETTINGS: GpuProfilerSettings = GpuProfilerSettings {
    enable_timer_queries: false,
    enable_debug_groups: false,
    max_num_pending_frames: MAX_PENDING_FRAMES,
};

/// Stage names, in frame order. Children are named `parent.child`.
pub mod stage {
    /// The staged voxel and record copies at the frame's start (a scope of copies, not a pass).
    pub const UPLOAD: &str = "upload";
    /// The LOD pass: which nodes are split and drawn, and each node's mip level.
    pub const LOD: &str = "lod";
    /// The mip pass: lists the slots whose voxels changed and rebuilds their levels 1..5.
    pub const MIPS: &str = "mips";
    /// The scope around the mesher's two passes.
    pub const MESH: &str = "mesh";
    /// The mesher's work list (collect evicted, collect dirty) and the release of the listed
    /// faces' old pages.
    pub const MESH_WORK_LIST: &str = "mesh.work_list";
    /// The mesher's mesh pass and its page commit.
    pub const MESH_BUILD: &str = "mesh.build";
    /// The scope around the light pass, on frames whose changes move light.
    pub const LIGHT: &str = "light";
    /// Each node lit: its columns open to the sky (every cell clear).
    pub const LIGHT_MASK: &str = "light.mask";
    /// Sky light's fall and emission, every node lit.
    pub const LIGHT_FALL: &str = "light.fall";
    /// The spread of light over the chunks lit.
    pub const LIGHT_SPREAD: &str = "light.spread";
    /// Coarse nodes' light from their children, and every lit node's coarser levels.
    pub const LIGHT_LEVELS: &str = "light.levels";
    /// The scope around the sun's shadow cascades, on frames that draw shadows.
    pub const SHADOW: &str = "shadow";
    /// The shadow casters of each cascade listed.
    pub const SHADOW_CULL: &str = "shadow.cull";
    /// The inner cascade's depth drawn from its casters.
    pub const SHADOW_NEAR: &str = "shadow.near";
    /// The outer cascade's depth.
    pub const SHADOW_FAR: &str = "shadow.far";
    /// The cull pass's first phase (occlusion culling on): the commands of the face streams seen
    /// last frame that are still in view.
    pub const CULL_FIRST: &str = "cull_first";
    /// The scope around the first phase's render passes (`draw_first.opaque`, ...).
    pub const DRAW_FIRST: &str = "draw_first";
    /// The depth pyramid, built from the first phase's depth.
    pub const HIZ: &str = "hiz";
    /// The cull pass (its second phase with occlusion culling on): tests every face stream
    /// against the frustum, the eye and the depth pyramid, and writes the draw commands of those
    /// that can be seen.
    pub const CULL: &str = "cull";
    /// The back-to-front sort of the transparent draw list. A top-level stage like `cull`,
    /// though its name has a dot: no `sort` scope encloses it.
    pub const SORT: &str = "sort.transparent";
    /// The scope around the frame's render passes.
    pub const DRAW: &str = "draw";
    /// The depth-only pre-pass of the opaque quads.
    pub const DRAW_DEPTH_PREPASS: &str = "draw.depth_prepass";
    /// The opaque pass (with or without the pre-pass before it): surface keys (each pixel's
    /// quad), or shaded forward where the depth target cannot be read.
    pub const DRAW_OPAQUE: &str = "draw.opaque";
    /// The opaque surfaces coloured, lit and hazed, once per pixel, in compute
    /// (`shaders/shade.wgsl`);
    /// where it can store to the colour target, written straight into it with the sky.
    pub const DRAW_SHADE: &str = "draw.shade";
    /// The shaded opaque surfaces copied into the colour target, then the sky (frames whose
    /// shade pass cannot store to the colour target).
    pub const DRAW_COMPOSE: &str = "draw.compose";
    /// The blended transparent pass.
    pub const DRAW_TRANSPARENT: &str = "draw.transparent";
    /// The selected block's outline, when a block is selected.
    pub const DRAW_OUTLINE: &str = "draw.outline";
}

/// Records one compute pass labelled `name` (a [`stage`] name), timed by the pass's own
/// timestamps when profiling is on, nested under `parent` (an open [`scope`]) or at the top
/// level. Every compute pass of the frame is recorded through this.
pub fn compute_pass(
    profiler: &GpuProfiler,
    encoder: &mut wgpu::CommandEncoder,
    parent: Option<&GpuProfilerQuery>,
    name: &str,
    record: impl FnOnce(&mut wgpu::ComputePass<'_>),
) {
    let query = profiler.begin_pass_query(name, encoder).with_parent(parent);
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(name),
            timestamp_writes: query.compute_pass_timestamp_writes(),
        });
        record(&mut pass);
    }
    profiler.end_query(encoder, query);
}

/// Records one render pass of `descriptor` labelled `name`, timed as [`compute_pass`] times a
/// compute pass (the descriptor's own label and timestamp writes are replaced).
pub fn render_pass<T>(
    profiler: &GpuProfiler,
    encoder: &mut wgpu::CommandEncoder,
    parent: Option<&GpuProfilerQuery>,
    name: &str,
    descriptor: wgpu::RenderPassDescriptor<'_>,
    record: impl FnOnce(&mut wgpu::RenderPass<'_>) -> T,
) -> T {
    let query = profiler.begin_pass_query(name, encoder).with_parent(parent);
    let out = {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(name),
            timestamp_writes: query.render_pass_timestamp_writes(),
            ..descriptor
        });
        record(&mut pass)
    };
    profiler.end_query(encoder, query);
    out
}

/// Records `record` inside a scope labelled `name` around several passes or copies (`mesh`,
/// `draw`, `upload`), whose passes name it as their parent. Timed only with
/// `TIMESTAMP_QUERY_INSIDE_ENCODERS`.
pub fn scope<T>(
    profiler: &GpuProfiler,
    encoder: &mut wgpu::CommandEncoder,
    name: &str,
    record: impl FnOnce(&mut wgpu::CommandEncoder, &GpuProfilerQuery) -> T,
) -> T {
    let query = profiler.begin_query(name, encoder);
    let out = record(encoder, &query);
    profiler.end_query(encoder, query);
    out
}

/// One timed scope of one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct StageTiming {
    /// The scope's label: one of the [`stage`] names, or a debug view's render pass label.
    pub name: String,
    /// Nesting depth: 0 for top-level stages.
    pub depth: u32,
    /// Start, in ms from the frame's first timestamp.
    pub start_ms: f64,
    /// GPU time from the scope's first timestamp to its last, in ms; never negative.
    pub duration_ms: f64,
}

/// A finished frame's timings, flattened depth-first (parents before their children).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTimings {
    /// Every timed scope of the frame, parents before their children (at least one in every
    /// frame the profiler reports).
    pub stages: Vec<StageTiming>,
    /// CPU milliseconds from the start of `render` to the end of recording.
    pub cpu_record_ms: f64,
    /// CPU milliseconds in wgpu's encoding (`CommandEncoder::finish`: validation, translation)
    /// and the queue submission.
    pub cpu_submit_ms: f64,
}

impl FrameTimings {
    /// GPU time of the frame: the span from the first stage's start to the last one's end.
    pub fn gpu_total_ms(&self) -> f64 {
        let end = self.stages.iter().map(|s| s.start_ms + s.duration_ms).fold(0.0, f64::max);
        end.max(0.0)
    }

    /// The first stage named `name`, if it was timed this frame.
    pub fn get(&self, name: &str) -> Option<&StageTiming> {
        self.stages.iter().find(|s| s.name == name)
    }
}

fn flatten(results: &[GpuTimerQueryResult], depth: u32, origin: f64, out: &mut Vec<StageTiming>) {
    for r in results {
        if let Some(time) = &r.time {
            out.push(StageTiming {
                name: r.label.clone(),
                depth,
                start_ms: (time.start - origin) * 1e3,
                // GL llvmpipe's timestamps around a pass of a few microseconds can come back a
                // few microseconds out of order (measured: -0.005 ms for the `lod` pass); such a
                // pass took no measurable time, not negative time.
                duration_ms: ((time.end - time.start) * 1e3).max(0.0),
            });
        }
        flatten(&r.nested_queries, depth + 1, origin, out);
    }
}

fn earliest(results: &[GpuTimerQueryResult]) -> Option<f64> {
    results
        .iter()
        .flat_map(|r| r.time.as_ref().map(|t| t.start).into_iter().chain(earliest(&r.nested_queries)))
        .reduce(f64::min)
}

/// The profiler and the frames it has finished.
pub struct Profiling {
    pub profiler: GpuProfiler,
    /// Frames whose timings arrived, oldest first, CPU recording time attached.
    finished: Vec<FrameTimings>,
    /// CPU recording times of frames whose GPU timings are still in flight.
    /// (recording, encoding + submission) milliseconds; `None` for a frame whose encoder was
    /// dropped, whose timings are skipped.
    pending_cpu_ms: std::collections::VecDeque<Option<(f64, f64)>>,
    pub latest: Option<FrameTimings>,
    enabled: bool,
}

impl Profiling {
    pub fn new(device: &wgpu::Device) -> Self {
        let profiler = GpuProfiler::new(device, SETTINGS).expect("default settings are valid");
        Self {
            profiler,
            finished: Vec::new(),
            pending_cpu_ms: Default::default(),
            latest: None,
            enabled: false,
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Turns timestamp queries on or off. Off, scopes record nothing.
    pub fn set_enabled(&mut self, enabled: bool, timestamps: bool, adapter: &str) -> Result<(), GpuError> {
        if enabled && !timestamps {
            return Err(GpuError::NoTimestamps { adapter: adapter.to_string() });
        }
        let settings =
            GpuProfilerSettings { enable_timer_queries: enabled, ..self.profiler.settings().clone() };
        self.profiler.change_settings(settings).map_err(|e| GpuError::Profiler(e.to_string()))?;
        self.enabled = enabled;
        Ok(())
    }

    /// Closes the frame after its commands were submitted.
    pub fn end_frame(&mut self, cpu_ms: (f64, f64)) -> Result<(), GpuError> {
        self.close_frame(Some(cpu_ms))
    }

    /// Closes a frame whose encoder was dropped: its query resolve never ran, so whatever its
    /// read-back holds is not a timing, and [`Self::collect`] skips it.
    pub fn end_dropped_frame(&mut self) -> Result<(), GpuError> {
        self.close_frame(None)
    }

    fn close_frame(&mut self, cpu_ms: Option<(f64, f64)>) -> Result<(), GpuError> {
        self.profiler.end_frame().map_err(|e| GpuError::Profiler(e.to_string()))?;
        // When frames pile up, wgpu-profiler drops the previous (newest pending) frame; drop its
        // CPU time too, so every finished frame keeps its own.
        if self.pending_cpu_ms.len() == MAX_PENDING_FRAMES {
            self.pending_cpu_ms.pop_back();
        }
        self.pending_cpu_ms.push_back(cpu_ms);
        Ok(())
    }

    /// Takes every frame whose timings have arrived, without waiting.
    pub fn collect(&mut self, timestamp_period: f32) {
        while let Some(results) = self.profiler.process_finished_frame(timestamp_period) {
            let Some((cpu_record_ms, cpu_submit_ms)) =
                self.pending_cpu_ms.pop_front().unwrap_or(Some((0.0, 0.0)))
            else {
                continue; // a dropped frame
            };
            let mut stages = Vec::new();
            flatten(&results, 0, earliest(&results).unwrap_or(0.0), &mut stages);
            if stages.is_empty() {
                continue; // profiling was off for this frame
            }
            let frame = FrameTimings { stages, cpu_record_ms, cpu_submit_ms };
            self.latest = Some(frame.clone());
            self.finished.push(frame);
        }
    }

    /// Frames finished since the last call, oldest first.
    pub fn take_finished(&mut self) -> Vec<FrameTimings> {
        std::mem::take(&mut self.finished)
    }
}
