//! `voxgpu profile`: a fixed camera flight, GPU time per stage from timestamp queries, printed as
//! a table and optionally written as JSON and a Chrome trace.

use std::path::{Path, PathBuf};

use clap::Args;
use glam::{IVec3, Vec3};
use serde::Serialize;

use super::pop::{PopScore, PopSummary};
use super::soak::{SoakArgs, SoakSetup};
use super::{CliError, CullArgs, MAX_IMAGE_SIDE, MeshArgs, SkyArgs, WorldArgs};
use crate::session::{Residency, Session};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, World};
use voxgpu_engine::{FrameStats, FrameTimings, GpuContext, GpuError, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen;

#[derive(Debug, Clone, Args)]
pub struct ProfileArgs {
    /// Frames measured, after the warm-up.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub frames: u32,
    /// Frames rendered first and not measured.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub warmup: u32,
    #[arg(long, default_value_t = 1920, value_parser = clap::value_parser!(u32).range(1..=MAX_IMAGE_SIDE as i64))]
    pub width: u32,
    #[arg(long, default_value_t = 1080, value_parser = clap::value_parser!(u32).range(1..=MAX_IMAGE_SIDE as i64))]
    pub height: u32,
    /// Write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a Chrome trace (chrome://tracing, Perfetto) of the measured frames here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Camera speed along the flight in blocks per frame (default: one lap over all frames, a
    /// stress test at tens of blocks per frame). A walk at 60 fps is about 0.1, flying about 0.5.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_speed)]
    pub speed: Option<f32>,
    /// The flight: `surface`, a circle 40 blocks over the ground, or `cave`, a walk through the
    /// first cave system found from the origin (seeded terrain only; 0.25 blocks a frame unless
    /// `--speed` says otherwise).
    #[arg(long, value_enum, default_value_t = Flight::Surface)]
    pub flight: Flight,
    /// A still view instead of the flight: the camera stays at x,y,z looking at `--target`, and
    /// no block is dug (a settled world, as a page or a paused game draws it).
    #[arg(long, value_parser = super::parse_vec3, allow_hyphen_values = true, requires = "target")]
    pub camera: Option<Vec3>,
    /// With `--camera`: the point looked at.
    #[arg(long, value_parser = super::parse_vec3, allow_hyphen_values = true, requires = "camera")]
    pub target: Option<Vec3>,
    /// After the measured frames, fly as many again drawing each frame twice from its camera,
    /// first with the last frame's level-of-detail and residency decisions frozen, then live,
    /// and report the share of pixels whose colour moves by more than CIELAB ΔE 10 (median,
    /// p99, max): how much the picture pops where levels change. No block is dug in these
    /// frames, so only level and residency changes count.
    #[arg(long)]
    pub pop_score: bool,
    #[command(flatten)]
    pub soak: SoakArgs,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub cull: CullArgs,
    #[command(flatten)]
    pub sky: SkyArgs,
    #[command(flatten)]
    pub world: WorldArgs,
}

impl ProfileArgs {
    /// The renderer these flags ask for, fog ending at `fog_end` blocks.
    pub fn renderer_options(&self, fog_end: f32) -> RendererOptions {
        self.sky.apply(RendererOptions {
            lod: self.mesh.lod_settings(),
            ambient_occlusion: self.mesh.ambient_occlusion(),
            culling: self.cull.culling(),
            depth_prepass: self.cull.depth_prepass == super::Switch::On,
            draw_submission: self.cull.draw_submission,
            ..RendererOptions::new(self.width, self.height, fog_end)
        })
    }
}

/// A soak flies over the profile's world with its renderer.
impl SoakSetup for ProfileArgs {
    fn world(&self) -> &WorldArgs {
        &self.world
    }

    fn soak(&self) -> &SoakArgs {
        &self.soak
    }

    fn renderer_options(&self, fog_end: f32) -> RendererOptions {
        ProfileArgs::renderer_options(self, fog_end)
    }
}

/// Median, 95th percentile and maximum of one series, in ms.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

impl Summary {
    fn of(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
        Self { median_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1.0) }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StageSummary {
    pub name: String,
    /// 0 for top-level stages; children are named `parent.child`.
    pub depth: u32,
    #[serde(flatten)]
    pub summary: Summary,
}

/// What `profile --json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileReport {
    pub adapter: String,
    pub backend: String,
    pub resolution: String,
    pub frames: usize,
    pub world: String,
    pub view_distance: u32,
    /// Levels of detail on or off, and where level 1 begins.
    pub lod: bool,
    pub lod_distance: f32,
    /// Culling on, occlusion culling on, and the flight.
    pub cull: bool,
    pub occlusion: bool,
    pub flight: Flight,
    /// Where the flight (or the still view) starts: the eye and the point looked at.
    pub start_eye: [f32; 3],
    pub start_target: [f32; 3],
    /// Face streams per measured frame (counted a frame or two late), medians: left by the
    /// frustum and face tests (candidates), drawn by the first phase, by the second, culled by
    /// occlusion; and the median share of candidates culled by occlusion.
    pub candidates_median: u32,
    pub drawn_first_median: u32,
    pub drawn_second_median: u32,
    pub occluded_median: u32,
    pub occluded_share_median: f64,
    /// Median per frame: opaque quads of the drawn streams that per-quad culling left out.
    pub quads_culled_median: u64,
    /// The last frame's counts (read back a frame or two late): chunks with quads (tested) and
    /// visible, draw commands, quads drawn, of them skirts, and chunks per level.
    pub chunks_tested: u32,
    pub chunks_visible: u32,
    pub draw_commands: u32,
    pub quads: u64,
    pub skirt_quads: u64,
    pub lod_levels: [u32; voxgpu_core::lod::LEVELS],
    /// Chunks re-meshed per frame (six face jobs each), median and max over the measured frames
    /// (counted a frame or two late): the dig, plus level changes as the camera moves.
    pub remeshed_median: u32,
    pub remeshed_max: u32,
    /// Nodes the light pass lit per measured frame, and of them chunks (the spread's work),
    /// medians: the dig's neighbourhood and the nodes streamed in or out.
    pub light_nodes_median: u32,
    pub light_chunks_median: u32,
    /// Quads each sun shadow cascade drew per measured frame (inner, outer), medians; zeros
    /// without shadows.
    pub shadow_quads_median: [u32; voxgpu_engine::shadow::CASCADES],
    /// How fast the camera moved along the flight.
    pub speed_blocks_per_frame: f32,
    pub stages: Vec<StageSummary>,
    pub gpu_frame: Summary,
    /// CPU time per frame: recording, then wgpu's encoding and the submission, and their sum.
    pub cpu_record: Summary,
    pub cpu_submit: Summary,
    pub cpu_frame: Summary,
    /// The whole `render` call on the CPU with profiling off, over the same number of frames.
    pub cpu_frame_unprofiled: Summary,
    /// The streamer's update before each frame (streamed worlds only).
    pub cpu_stream: Option<Summary>,
    /// Resident nodes per node level (0: chunks) at the end.
    pub nodes_per_level: Vec<u32>,
    /// Bytes of the world's GPU buffers at the end, and the budget in MiB.
    pub gpu_bytes: u64,
    pub gpu_memory_budget_mib: u32,
    /// With `--pop-score`: the popped pixels per frame over a further flight after the timed ones.
    pub pop_score: Option<PopSummary>,
}

/// `profile --flight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flight {
    Surface,
    Cave,
}

fn parse_speed(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (0.0..=1000.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a speed in blocks per frame between 0 and 1000")),
    }
}

/// The flight: a circle around the world's centre at 60% of the view distance (of at most 8
/// chunks: a streamed horizon is flown near its centre), 40 blocks above the ground under the
/// eye, looking ahead and down at the ground, or for a streamed horizon ahead and slightly down
/// (`horizon`: the far field fills the upper part of the frame); `angle` is the position on the
/// circle.
fn flight(ground: &dyn Fn(i32, i32) -> i32, radius: f32, angle: f32, horizon: bool) -> Camera {
    let at = |a: f32| Vec3::new(a.cos() * radius, 0.0, a.sin() * radius);
    let ground = |p: Vec3| ground(p.x.floor() as i32, p.z.floor() as i32) as f32;
    let mut eye = at(angle);
    eye.y = ground(eye) + 40.0;
    let mut target = at(angle + 0.35);
    target.y = if horizon { eye.y - 15.0 } else { ground(target) };
    Camera::look_at(eye, target)
}

/// Height of the top of the highest solid block in column (x, z), or 0.
fn ground_height(world: &World, x: i32, z: i32) -> i32 {
    let top = world.chunk_bounds().map_or(0, |(_, max)| max.y);
    (0..top).rev().find(|&y| !world.block(IVec3::new(x, y, z)).is_air()).map_or(0, |y| y + 1)
}

pub fn run(args: &ProfileArgs) -> Result<(), CliError> {
    let gpu = GpuContext::new()?;
    if let Some(seconds) = args.soak.seconds {
        let report = super::soak::run(&gpu, args, seconds)?;
        if let Some(path) = &args.json {
            write(path, serde_json::to_string_pretty(&report).expect("plain struct serialises"))?;
        }
        return Ok(());
    }
    let report = profile(&gpu, args)?;
    print_table(&report);
    if let Some(path) = &args.json {
        write(path, serde_json::to_string_pretty(&report).expect("plain struct serialises"))?;
    }
    Ok(())
}

/// Flies, measures and summarises. Fails with [`GpuError::NoTimestamps`] on an adapter (or a
/// device) without timestamp queries, before rendering anything.
pub fn profile(gpu: &GpuContext, args: &ProfileArgs) -> Result<ProfileReport, CliError> {
    if !gpu.caps.timestamps {
        return Err(GpuError::NoTimestamps { adapter: gpu.summary.to_string() }.into());
    }
    let config = args.world.config();
    let mut session =
        Session::open(gpu, config.clone(), Residency::WholeWhereExact, (None, None), |fog_end| {
            args.renderer_options(fog_end)
        })?;
    // A streamed world's ground is read from the terrain, a whole one's from its chunks.
    let horizon = config.uses_nodes();
    let terrain = worldgen::TerrainColumns::new(config.seed);
    let radius = config.view_distance.min(voxgpu_worlds::stream::plan::TOP_RADIUS_NODES) as f32
        * CHUNK_SIZE as f32
        * 0.6;
    let still = args.camera.zip(args.target).map(|(eye, target)| Camera::look_at(eye, target));
    // The cave walk, found from the generator: every frame's camera, computed before the flight.
    let cave_speed = args.speed.unwrap_or(0.25);
    let cave = match (args.flight, still) {
        (Flight::Cave, None) => {
            if !matches!(config.source, worldgen::WorldSource::Terrain) {
                return Err(CliError::Usage(
                    "--flight cave needs the seeded terrain (--world terrain)".into(),
                ));
            }
            let mut blocks = super::cave::Blocks::new(&terrain);
            let start = super::cave::find_cave(&mut blocks, &terrain, 16)
                .ok_or_else(|| CliError::Usage("no cave found within 16 chunks of the origin".into()))?;
            // The measured flight, the unprofiled one and the pop score's after it.
            let frames = args.warmup + 3 * args.frames;
            Some(super::cave::walk(&mut blocks, start, cave_speed, frames))
        }
        _ => None,
    };
    let start = match (still, &cave) {
        (Some(camera), _) => camera,
        (None, Some(walk)) => walk[0],
        (None, None) => {
            let world = &session.world;
            flight(
                &|x, z| if horizon { terrain.surface(x, z) } else { ground_height(world, x, z) },
                radius,
                0.0,
                horizon,
            )
        }
    };
    session.camera = start;
    session.fill()?;
    let Session { renderer, streamer, world, .. } = &mut session;
    renderer.tools().set_front_to_back(args.cull.front_to_back == super::Switch::On);
    let world: &World = world;
    let ground = |x: i32, z: i32| if horizon { terrain.surface(x, z) } else { ground_height(world, x, z) };
    renderer.settle(&start)?;
    renderer.tools().set_profiling(true)?;
    // Streamed worlds keep streaming as the camera moves (the near columns change); the update
    // runs before each frame and is timed apart.
    let mut stream_ms = Vec::new();
    let mut stream = |renderer: &mut Offscreen, camera: &Camera| -> Result<(), CliError> {
        if let Some(streamer) = streamer.as_mut() {
            let started = std::time::Instant::now();
            streamer.update(camera.eye, renderer)?;
            stream_ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
        Ok(())
    };

    let total = args.warmup + args.frames;
    // Radians per frame: `--speed` blocks along the circle, or one lap over all frames.
    let step = args.speed.map_or(std::f32::consts::TAU / total as f32, |speed| speed / radius);
    let mut frames: Vec<FrameTimings> = Vec::new();
    let mut last = FrameStats::default();
    let mut remeshed = Vec::new();
    let mut counted: Vec<FrameStats> = Vec::new();
    let at = |i: u32| {
        still.unwrap_or_else(|| match &cave {
            Some(walk) => walk[(i as usize).min(walk.len() - 1)],
            None => flight(&ground, radius, i as f32 * step, horizon),
        })
    };
    for i in 0..total {
        let camera = at(i);
        stream(renderer, &camera)?;
        // Dig one block under the target every frame, so meshing has real work each frame.
        if still.is_none() {
            renderer.set_block(camera.target.floor().as_ivec3() - IVec3::Y, BlockId::AIR)?;
        }
        last = renderer.render(&camera)?;
        if i >= args.warmup {
            remeshed.push(last.face_jobs / 6);
            counted.push(last);
        }
        // Waiting each frame keeps every frame's timings (none dropped); it idles the GPU between
        // frames, which per-stage GPU times do not include.
        renderer.tools().flush_timings()?;
        frames.extend(renderer.tools().take_timings());
    }
    let frames: Vec<FrameTimings> = frames.into_iter().skip(args.warmup as usize).collect();
    // The same flight again with profiling off: the CPU cost of a frame as the viewer pays it
    // (no timestamp queries to record and resolve), timed around `render` alone.
    renderer.tools().set_profiling(false)?;
    let mut unprofiled = Vec::new();
    for i in 0..args.frames {
        let camera = at(total + i);
        stream(renderer, &camera)?;
        if still.is_none() {
            renderer.set_block(camera.target.floor().as_ivec3() - IVec3::Y, BlockId::AIR)?;
        }
        let started = std::time::Instant::now();
        renderer.render(&camera)?;
        unprofiled.push(started.elapsed().as_secs_f64() * 1e3);
        renderer.tools().flush_timings()?;
    }
    if frames.is_empty() {
        return Err(GpuError::Profiler("no frame timings arrived".into()).into());
    }
    let mut pops = PopScore::default();
    if args.pop_score {
        for i in 0..args.frames {
            let camera = at(total + args.frames + i);
            let frozen = PopScore::frozen(renderer, &camera)?;
            stream(renderer, &camera)?;
            renderer.render(&camera)?;
            pops.add(&frozen, &renderer.read_pixels()?);
        }
    }
    if let Some(path) = &args.trace {
        write(path, chrome_trace(&frames))?;
    }
    remeshed.sort_unstable();
    let remeshed =
        (remeshed.get(remeshed.len() / 2).copied().unwrap_or(0), remeshed.last().copied().unwrap_or(0));
    let median = |f: &dyn Fn(&FrameStats) -> u32| {
        let mut v: Vec<u32> = counted.iter().map(f).collect();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    };
    let occlusion = FrameStats {
        candidates: median(&|s| s.candidates),
        drawn_first: median(&|s| s.drawn_first),
        drawn_second: median(&|s| s.drawn_second),
        occluded: median(&|s| s.occluded),
        quads_culled: {
            let mut v: Vec<u64> = counted.iter().map(|s| s.quads_culled).collect();
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        },
        light_nodes: median(&|s| s.light_nodes),
        light_chunks: median(&|s| s.light_chunks),
        shadow_quads: std::array::from_fn(|c| median(&|s| s.shadow_quads[c])),
        ..FrameStats::default()
    };
    let mut shares: Vec<f64> =
        counted.iter().map(|s| s.occluded as f64 / s.candidates.max(1) as f64).collect();
    shares.sort_by(f64::total_cmp);
    let flown = Flown {
        last,
        occlusion,
        occluded_share: shares.get(shares.len() / 2).copied().unwrap_or(0.0),
        start,
        remeshed,
        speed: if still.is_some() {
            0.0
        } else if cave.is_some() {
            cave_speed
        } else {
            step * radius
        },
        cpu_unprofiled: Summary::of(unprofiled),
        cpu_stream: (!stream_ms.is_empty()).then(|| Summary::of(stream_ms)),
        nodes_per_level: renderer.resident().nodes_per_level(),
        gpu_bytes: renderer.inspect().gpu_bytes(),
        pop_score: pops.summary(),
    };
    Ok(summarise(gpu, args, &frames, &flown))
}

/// What the flight did besides the timings.
struct Flown {
    /// The last frame's counts.
    last: FrameStats,
    /// Per-frame medians of the occlusion and light counts (in `FrameStats` fields), and of the
    /// share occluded.
    occlusion: FrameStats,
    occluded_share: f64,
    start: Camera,
    /// Chunks re-meshed per measured frame: median and max.
    remeshed: (u32, u32),
    speed: f32,
    /// CPU time of `render` with profiling off.
    cpu_unprofiled: Summary,
    /// CPU time of the streamer's update before each frame, when streaming.
    cpu_stream: Option<Summary>,
    nodes_per_level: Vec<u32>,
    gpu_bytes: u64,
    pop_score: Option<PopSummary>,
}

fn summarise(gpu: &GpuContext, args: &ProfileArgs, frames: &[FrameTimings], flown: &Flown) -> ProfileReport {
    let mut names: Vec<(String, u32)> = Vec::new();
    for stage in frames.iter().flat_map(|f| &f.stages) {
        if !names.iter().any(|(n, _)| *n == stage.name) {
            names.push((stage.name.clone(), stage.depth));
        }
    }
    let stages = names
        .into_iter()
        .map(|(name, depth)| {
            let values = frames.iter().filter_map(|f| f.get(&name)).map(|s| s.duration_ms).collect();
            StageSummary { name, depth, summary: Summary::of(values) }
        })
        .collect();
    ProfileReport {
        adapter: gpu.summary.name.clone(),
        backend: format!("{:?}", gpu.summary.backend),
        resolution: format!("{}x{}", args.width, args.height),
        frames: frames.len(),
        world: args.world.world.to_string(),
        view_distance: args.world.distance(),
        lod: args.mesh.lod_settings().is_on(),
        lod_distance: args.mesh.lod_distance,
        cull: args.cull.cull == super::Switch::On,
        occlusion: args.cull.culling().occlusion,
        flight: args.flight,
        start_eye: flown.start.eye.to_array(),
        start_target: flown.start.target.to_array(),
        candidates_median: flown.occlusion.candidates,
        drawn_first_median: flown.occlusion.drawn_first,
        drawn_second_median: flown.occlusion.drawn_second,
        occluded_median: flown.occlusion.occluded,
        occluded_share_median: flown.occluded_share,
        quads_culled_median: flown.occlusion.quads_culled,
        chunks_tested: flown.last.chunks_tested,
        chunks_visible: flown.last.chunks_visible,
        draw_commands: flown.last.draw_commands,
        quads: flown.last.quads,
        skirt_quads: flown.last.skirt_quads,
        lod_levels: flown.last.lod_levels,
        remeshed_median: flown.remeshed.0,
        remeshed_max: flown.remeshed.1,
        light_nodes_median: flown.occlusion.light_nodes,
        light_chunks_median: flown.occlusion.light_chunks,
        shadow_quads_median: flown.occlusion.shadow_quads,
        speed_blocks_per_frame: flown.speed,
        stages,
        gpu_frame: Summary::of(frames.iter().map(FrameTimings::gpu_total_ms).collect()),
        cpu_record: Summary::of(frames.iter().map(|f| f.cpu_record_ms).collect()),
        cpu_submit: Summary::of(frames.iter().map(|f| f.cpu_submit_ms).collect()),
        cpu_frame: Summary::of(frames.iter().map(|f| f.cpu_record_ms + f.cpu_submit_ms).collect()),
        cpu_frame_unprofiled: flown.cpu_unprofiled.clone(),
        cpu_stream: flown.cpu_stream.clone(),
        nodes_per_level: flown.nodes_per_level.clone(),
        gpu_bytes: flown.gpu_bytes,
        gpu_memory_budget_mib: args.world.gpu_memory_budget,
        pop_score: flown.pop_score.clone(),
    }
}

/// Chrome trace JSON: one complete ("X") event per stage per frame, frames laid end to end.
fn chrome_trace(frames: &[FrameTimings]) -> String {
    let mut events = Vec::new();
    let mut frame_start_us = 0.0;
    for (i, frame) in frames.iter().enumerate() {
        for stage in &frame.stages {
            events.push(serde_json::json!({
                "name": stage.name,
                "cat": "gpu",
                "ph": "X",
                "pid": 1,
                "tid": 1,
                "ts": frame_start_us + stage.start_ms * 1e3,
                "dur": stage.duration_ms * 1e3,
                "args": { "frame": i, "depth": stage.depth },
            }));
        }
        frame_start_us += frame.gpu_total_ms() * 1e3 + 10.0;
    }
    serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ms" }).to_string()
}

fn write(path: &Path, contents: String) -> Result<(), CliError> {
    std::fs::write(path, contents)
        .map_err(|e| CliError::Write { path: path.to_path_buf(), reason: e.to_string() })
}

fn print_table(r: &ProfileReport) {
    println!(
        "{} ({}), {}, {} frames, world {} at view distance {}, LOD {}",
        r.adapter,
        r.backend,
        r.resolution,
        r.frames,
        r.world,
        r.view_distance,
        if r.lod { format!("on from {} blocks", r.lod_distance) } else { "off".into() }
    );
    println!(
        "camera {:.2} blocks/frame; culling {}: {} of {} chunks visible, {} draw commands, {} quads drawn ({} skirts); drawn per level of detail {:?}, re-meshed per frame {} (max {}), lit per frame {} nodes ({} chunks), shadow casters per frame {:?} quads",
        r.speed_blocks_per_frame,
        if r.cull { "on" } else { "off" },
        r.chunks_visible,
        r.chunks_tested,
        r.draw_commands,
        r.quads,
        r.skirt_quads,
        super::render::trimmed(&r.lod_levels),
        r.remeshed_median,
        r.remeshed_max,
        r.light_nodes_median,
        r.light_chunks_median,
        r.shadow_quads_median
    );
    println!(
        "start at {:?} looking at {:?}; occlusion culling {} ({} flight): per frame (medians) {} candidates after the frustum, {} drawn by the first phase, {} by the second, {} culled by occlusion ({:.1}%)",
        r.start_eye,
        r.start_target,
        if r.occlusion { "on" } else { "off" },
        match r.flight {
            Flight::Surface => "surface",
            Flight::Cave => "cave",
        },
        r.candidates_median,
        r.drawn_first_median,
        r.drawn_second_median,
        r.occluded_median,
        100.0 * r.occluded_share_median
    );
    println!("quads culled one by one (`--quad-cull`), per frame (median): {}", r.quads_culled_median);
    println!("{:<22} {:>10} {:>10} {:>10}", "stage (GPU ms)", "median", "p95", "max");
    for s in &r.stages {
        let name = format!("{}{}", "  ".repeat(s.depth as usize), s.name);
        println!(
            "{:<22} {:>10.3} {:>10.3} {:>10.3}",
            name, s.summary.median_ms, s.summary.p95_ms, s.summary.max_ms
        );
    }
    for (label, s) in [
        ("GPU frame", &r.gpu_frame),
        ("CPU recording", &r.cpu_record),
        ("CPU encode + submit", &r.cpu_submit),
        ("CPU frame", &r.cpu_frame),
        ("CPU frame, unprofiled", &r.cpu_frame_unprofiled),
    ]
    .into_iter()
    .chain(r.cpu_stream.as_ref().map(|s| ("CPU streaming update", s)))
    {
        println!("{:<22} {:>10.3} {:>10.3} {:>10.3}", label, s.median_ms, s.p95_ms, s.max_ms);
    }
    println!(
        "nodes per node level {:?}; GPU buffers {:.1} MiB of a {} MiB budget",
        r.nodes_per_level,
        r.gpu_bytes as f64 / (1024.0 * 1024.0),
        r.gpu_memory_budget_mib
    );
    if let Some(pop) = &r.pop_score {
        println!("{pop}");
    }
}
