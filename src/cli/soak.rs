//! `voxgpu profile --soak SECONDS`: a long flight out and back across the world, sampling memory
//! and frame time every second, to show that memory stays bounded and comes back to where it
//! started at the starting place.
//!
//! The camera flies along +X at `--soak-speed` blocks per second (wall time, so a lap takes the
//! same time on any GPU) to `--soak-span` blocks out, then back, lap after lap. Each frame
//! streams, renders and waits for the GPU, so a frame's time is its whole latency. Before the
//! flight and after it the world is settled at the start, and those two samples are compared.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use glam::Vec3;
use serde::Serialize;

use super::plot::{self, Panel, Series};
use super::{CliError, WorldArgs};
use crate::session::{Residency, Session};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::CHUNK_SIZE;
use voxgpu_engine::{FrameStats, GpuContext, RendererOptions};
use voxgpu_worlds::worldgen::{self, WorldSource};

/// Bytes of one quad page.
const PAGE_BYTES: u64 = voxgpu_engine::PAGE_QUADS as u64 * voxgpu_core::mesh::QUAD_BYTES as u64;

/// The soak's flags, flattened into `voxgpu profile`'s (`--soak` turns the profile into a soak).
/// `--soak` conflicts with the measured flight's flags, which `profile` defines.
#[derive(Debug, Clone, Args)]
pub struct SoakArgs {
    /// A soak instead of the measured flight: fly out and back along +X for this many seconds,
    /// streaming, and sample resident nodes, GPU buffers, quad pages, host memory and frame time
    /// every second (into `--json`). Needs no timestamp queries.
    #[arg(id = "soak", long = "soak", value_name = "SOAK", value_parser = clap::value_parser!(u32).range(1..=7 * 24 * 3600), conflicts_with_all = ["camera", "trace", "frames", "warmup", "speed"])]
    pub seconds: Option<u32>,
    /// With `--soak`: the camera's speed in blocks per second.
    #[arg(long, default_value_t = 64.0, requires = "soak", value_parser = parse_soak_speed)]
    pub soak_speed: f32,
    /// With `--soak`: how far out the flight goes before it turns back, in blocks (default:
    /// twice the view distance, at most 4096).
    #[arg(long, requires = "soak", value_parser = parse_soak_span)]
    pub soak_span: Option<f32>,
    /// With `--soak`: a PNG plot of the samples over time.
    #[arg(long, requires = "soak")]
    pub plot: Option<PathBuf>,
}

fn parse_soak_speed(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v > 0.0 && v <= 100_000.0 => Ok(v),
        _ => Err(format!("{s:?} is not a speed in blocks per second above 0 and up to 100000")),
    }
}

fn parse_soak_span(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (1.0..=1_000_000.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a distance in blocks between 1 and 1000000")),
    }
}

/// One second of the flight (or the settled start and end).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Sample {
    /// Seconds since the flight began, and the seconds since the sample before (about one;
    /// longer when a frame took longer than that).
    pub t: f64,
    pub window_s: f64,
    /// The camera's distance out along the flight, in blocks.
    pub x: f64,
    /// Resident nodes, all levels, and per level (0: chunks).
    pub nodes: usize,
    pub nodes_per_level: Vec<u32>,
    /// Bytes of the world's GPU buffers (their capacity: pools grow and are reused, not shrunk).
    pub gpu_bytes: u64,
    /// Quad pages holding quads (of 256 quads, 2 KiB each), and the quad buffer's pages.
    pub quad_pages_used: u64,
    pub quad_pages: u64,
    /// The process's resident set, in bytes (`VmRSS`; 0 where the system does not say).
    pub host_rss_bytes: u64,
    /// Frames in the window, and their mean and longest time (stream, render, wait for the
    /// GPU), in ms.
    pub frames: u32,
    pub frame_ms_mean: f64,
    pub frame_ms_max: f64,
    /// GPU time per frame from timestamp queries, mean over the window (none without them).
    pub gpu_ms_mean: Option<f64>,
    /// Columns wanted and not resident yet.
    pub missing_columns: usize,
}

/// What `profile --soak --json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct SoakReport {
    pub adapter: String,
    pub backend: String,
    pub resolution: String,
    pub world: String,
    pub view_distance: u32,
    pub seconds: u32,
    pub speed_blocks_per_second: f32,
    pub span_blocks: f32,
    pub laps: f64,
    /// Settled at the start before the flight, and again after it.
    pub start: Sample,
    pub end: Sample,
    /// The largest value over the flight.
    pub max_nodes: usize,
    pub max_gpu_bytes: u64,
    pub max_host_rss_bytes: u64,
    pub samples: Vec<Sample>,
}

/// The process's resident set in bytes, from `/proc/self/status` (0 elsewhere).
fn host_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// What a soak runs over: the world, the soak's flags and the renderer. The command that carries
/// `--soak` implements it (`voxgpu profile`'s flags), so this module needs nothing of it.
pub trait SoakSetup {
    /// The world flown over.
    fn world(&self) -> &WorldArgs;
    /// `--soak-speed`, `--soak-span`, `--plot`.
    fn soak(&self) -> &SoakArgs;
    /// The renderer, fog ending at `fog_end` blocks; its size is the frame's.
    fn renderer_options(&self, fog_end: f32) -> RendererOptions;
}

/// Soaks for `seconds` over `setup`'s world and renderer.
pub fn run(gpu: &GpuContext, setup: &impl SoakSetup, seconds: u32) -> Result<SoakReport, CliError> {
    let (world, args) = (setup.world(), setup.soak());
    let config = world.config();
    let mut session =
        Session::open(gpu, config.clone(), Residency::StreamTerrain, (None, None), |fog_end| {
            setup.renderer_options(fog_end)
        })?;
    let (width, height) = session.renderer.options().size();
    let view_blocks = config.view_distance as f32 * CHUNK_SIZE as f32;
    let span = args.soak_span.unwrap_or((2.0 * view_blocks).min(4096.0));
    let speed = args.soak_speed;
    let terrain = worldgen::TerrainColumns::new(config.seed);
    let origin = session.camera.eye;
    let streamed = config.source == WorldSource::Terrain;
    // Along +X from the world's default view, 40 blocks over the terrain (or at the view's height
    // over a world built whole), looking ahead and down.
    let camera_at = |x: f32| {
        let mut eye = origin + Vec3::X * x;
        if streamed {
            eye.y = terrain.surface(eye.x.floor() as i32, eye.z.floor() as i32) as f32 + 40.0;
        }
        Camera::look_at(eye, eye + Vec3::new(64.0, -24.0, 0.0))
    };
    // Out and back: a triangle wave of period 2·span/speed.
    let out_at = |t: f64| {
        let d = (t * speed as f64) % (2.0 * span as f64);
        span as f64 - (span as f64 - d).abs()
    };
    let timestamps = session.renderer.inspect().caps().timestamps;
    session.renderer.tools().set_profiling(timestamps)?;

    let start = settled(&mut session, camera_at(0.0), 0.0)?;
    let began = Instant::now();
    let mut samples = Vec::new();
    let (mut times, mut gpu_times) = (Vec::new(), Vec::new());
    let (mut next_sample, mut last_sample) = (1.0, 0.0);
    while began.elapsed() < Duration::from_secs(seconds as u64) {
        let frame_began = Instant::now();
        let t = began.elapsed().as_secs_f64();
        let camera = camera_at(out_at(t) as f32);
        session.camera = camera;
        session.update()?;
        let last = session.renderer.render(&camera)?;
        session.renderer.tools().flush_timings()?;
        gpu_times.extend(session.renderer.tools().take_timings().iter().map(|f| f.gpu_total_ms()));
        times.push(frame_began.elapsed().as_secs_f64() * 1e3);
        let now = began.elapsed().as_secs_f64();
        if now >= next_sample {
            let mut sample = measure(&session, &last, now, out_at(now));
            sample.window_s = now - last_sample;
            last_sample = now;
            sample.frames = times.len() as u32;
            sample.frame_ms_mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
            sample.frame_ms_max = times.iter().copied().fold(0.0, f64::max);
            sample.gpu_ms_mean =
                (!gpu_times.is_empty()).then(|| gpu_times.iter().sum::<f64>() / gpu_times.len() as f64);
            samples.push(sample);
            times.clear();
            gpu_times.clear();
            next_sample = now.floor() + 1.0;
        }
    }
    let flown = began.elapsed().as_secs_f64();
    let end = settled(&mut session, camera_at(0.0), flown)?;
    let all = || samples.iter().chain([&start, &end]);
    let report = SoakReport {
        adapter: gpu.summary.name.clone(),
        backend: format!("{:?}", gpu.summary.backend),
        resolution: format!("{width}x{height}"),
        world: world.world.to_string(),
        view_distance: config.view_distance,
        seconds,
        speed_blocks_per_second: speed,
        span_blocks: span,
        laps: flown * speed as f64 / (2.0 * span as f64),
        max_nodes: all().map(|s| s.nodes).max().unwrap_or(0),
        max_gpu_bytes: all().map(|s| s.gpu_bytes).max().unwrap_or(0),
        max_host_rss_bytes: all().map(|s| s.host_rss_bytes).max().unwrap_or(0),
        start,
        end,
        samples,
    };
    print_summary(&report);
    if let Some(path) = &args.plot {
        write_plot(&report, path)?;
    }
    Ok(report)
}

/// Flies back to `camera`, streams and meshes until everything is in, and samples.
fn settled(session: &mut Session, camera: Camera, t: f64) -> Result<Sample, CliError> {
    session.camera = camera;
    session.fill()?;
    let stats = session.renderer.settle(&camera)?;
    session.renderer.tools().flush_timings()?;
    session.renderer.tools().take_timings();
    Ok(measure(session, &stats, t, 0.0))
}

fn measure(session: &Session, stats: &FrameStats, t: f64, x: f64) -> Sample {
    let renderer = &session.renderer;
    let page_bytes = PAGE_BYTES;
    Sample {
        t,
        x,
        nodes: renderer.resident().len(),
        nodes_per_level: renderer.resident().nodes_per_level(),
        gpu_bytes: renderer.inspect().gpu_bytes(),
        quad_pages_used: stats.pages_in_use(),
        quad_pages: stats.quad_buffer_bytes / page_bytes,
        host_rss_bytes: host_rss(),
        missing_columns: session
            .streamer
            .as_ref()
            .map_or(0, |s| s.manager.wanted_columns().iter().filter(|c| !s.manager.is_resident(**c)).count()),
        ..Sample::default()
    }
}

fn print_summary(r: &SoakReport) {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    println!(
        "soak on {} ({}), {}, world {} at view distance {}: {} s, {:.1} laps of {:.0} blocks out and back at {:.0} blocks/s",
        r.adapter,
        r.backend,
        r.resolution,
        r.world,
        r.view_distance,
        r.seconds,
        r.laps,
        r.span_blocks,
        r.speed_blocks_per_second
    );
    for (label, s) in [("start", &r.start), ("end", &r.end)] {
        println!(
            "{label:<6} {} nodes {:?}, {} of {} quad pages, GPU buffers {:.1} MiB, host RSS {:.1} MiB",
            s.nodes,
            s.nodes_per_level,
            s.quad_pages_used,
            s.quad_pages,
            mib(s.gpu_bytes),
            mib(s.host_rss_bytes)
        );
    }
    let frames: Vec<f64> = r.samples.iter().map(|s| s.frame_ms_mean).collect();
    let worst = r.samples.iter().map(|s| s.frame_ms_max).fold(0.0, f64::max);
    println!(
        "max    {} nodes, GPU buffers {:.1} MiB, host RSS {:.1} MiB; frame mean {:.2} ms over the samples, longest {:.2} ms",
        r.max_nodes,
        mib(r.max_gpu_bytes),
        mib(r.max_host_rss_bytes),
        frames.iter().sum::<f64>() / frames.len().max(1) as f64,
        worst
    );
}

fn write_plot(r: &SoakReport, path: &PathBuf) -> Result<(), CliError> {
    let series = |name: &str, color: [u8; 3], f: &dyn Fn(&Sample) -> f64| Series {
        name: name.into(),
        color,
        points: r.samples.iter().map(|s| (s.t, f(s))).collect(),
    };
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let mut frame = vec![
        series("mean", [40, 90, 200], &|s| s.frame_ms_mean),
        series("longest", [220, 120, 40], &|s| s.frame_ms_max),
    ];
    // Only the samples that have GPU times (the first frames' arrive late).
    let gpu: Vec<(f64, f64)> = r.samples.iter().filter_map(|s| s.gpu_ms_mean.map(|g| (s.t, g))).collect();
    if !gpu.is_empty() {
        frame.push(Series { name: "GPU".into(), color: [40, 160, 80], points: gpu });
    }
    let panels = [
        Panel {
            title: "resident nodes".into(),
            series: vec![
                series("all levels", [200, 40, 40], &|s| s.nodes as f64),
                series("chunks", [120, 60, 160], &|s| s.nodes_per_level.first().copied().unwrap_or(0) as f64),
            ],
        },
        Panel {
            title: "memory, MiB".into(),
            series: vec![
                series("GPU buffers", [40, 160, 80], &|s| mib(s.gpu_bytes)),
                series("quad pages used", [220, 120, 40], &|s| mib(s.quad_pages_used * PAGE_BYTES)),
                series("host RSS", [40, 90, 200], &|s| mib(s.host_rss_bytes)),
            ],
        },
        Panel { title: "frame time, ms".into(), series: frame },
        Panel { title: "camera, blocks out".into(), series: vec![series("x", [90, 90, 90], &|s| s.x)] },
    ];
    let title = format!(
        "voxgpu soak: {} ({}), {} at {} chunks, {} s",
        r.adapter, r.backend, r.world, r.view_distance, r.seconds
    );
    let image = plot::render(&title, "seconds", &panels);
    image.save(path).map_err(|e| CliError::Write { path: path.clone(), reason: e.to_string() })
}
