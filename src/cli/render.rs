//! `voxgpu render`: one headless frame to a PNG.

use std::path::PathBuf;

use clap::Args;
use glam::Vec3;

use super::pop::PopScore;
use super::{CliError, CullArgs, FrameArgs, MeshArgs, SkyArgs, WorldArgs, parse_vec3};
use crate::session::{Residency, Session, SessionPlan};
use voxgpu_core::camera::Camera;
use voxgpu_engine::{Culling, GpuContext, RenderMode, RendererOptions};
use voxgpu_worlds::worldgen::WorldSource;

#[derive(Debug, Clone, Args)]
pub struct RenderArgs {
    /// Output PNG path.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub frame: FrameArgs,
    /// filled | wireframe | filled-wireframe | lod (chunks by level of detail, skirts lighter) |
    /// chunks (each chunk its own colour) | quad-size (quad area, blue 1 to red 1024: greedy
    /// merging at work).
    #[arg(long, default_value = "filled", value_parser = parse_mode)]
    pub mode: RenderMode,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub cull: CullArgs,
    #[command(flatten)]
    pub sky: SkyArgs,
    /// Stream the terrain around a scripted flight of N frames (2 blocks per frame along +X from
    /// the view), then render where it ends. Exercises streaming headless; terrain only.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub flight: Option<u32>,
    /// With `--flight`: draw each frame twice from its camera, first with the last frame's
    /// level-of-detail and residency decisions frozen, then live, and print the share of pixels
    /// whose colour moves by more than CIELAB ΔE 10 (median, p99 and max over the frames): how
    /// much the picture pops where levels change. The extra frame and both read-backs make
    /// the flight's timing and streaming figures those of a measurement, not of a flight.
    #[arg(long, requires = "flight")]
    pub pop_score: bool,
    /// Cull from a camera frozen at `x,y,z` (looking at the target) instead of the view's, to
    /// inspect culling from outside (with `--mode occlusion`, what occlusion culled from there
    /// shows in magenta).
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub freeze_cull_at: Option<Vec3>,
    #[command(flatten)]
    pub world: WorldArgs,
}

/// `--mode`: one of `RenderMode::name`, parsed by the mode itself so the two lists cannot drift.
fn parse_mode(s: &str) -> Result<RenderMode, String> {
    RenderMode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
        let names: Vec<&str> = RenderMode::ALL.iter().map(|m| m.name()).collect();
        format!("{s:?} is not a mode (expected one of: {})", names.join(", "))
    })
}

pub fn run(args: &RenderArgs) -> Result<(), CliError> {
    // Fail before the slow part when the PNG could never be written.
    let parent = args.out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        return Err(CliError::Write { path: args.out.clone(), reason: "its folder does not exist".into() });
    }
    if args.flight.is_some() && args.world.world != WorldSource::Terrain {
        return Err(CliError::Usage(
            "--flight streams procedural terrain: use it with --world terrain".into(),
        ));
    }
    let residency = if args.flight.is_some() { Residency::StreamTerrain } else { Residency::WholeWhereExact };
    let plan = SessionPlan::new(args.world.config(), residency, (args.frame.camera, args.frame.target))?;
    let start = plan.camera;
    let frozen = match args.freeze_cull_at {
        Some(at) if (start.target - at).length_squared() < 1e-6 => {
            return Err(CliError::Usage("--freeze-cull-at must differ from the target".into()));
        }
        at => at.map(|at| Camera::look_at(at, start.target)),
    };
    let gpu = GpuContext::new()?;
    let mut session = plan.open(&gpu, |fog_end| {
        args.sky.apply(RendererOptions {
            lod: args.mesh.lod_settings(),
            ambient_occlusion: args.mesh.ambient_occlusion(),
            mode: args.mode,
            depth_prepass: args.cull.depth_prepass == super::Switch::On,
            culling: Culling { frozen, ..args.cull.culling() },
            draw_submission: args.cull.draw_submission,
            ..RendererOptions::new(args.frame.width, args.frame.height, fog_end)
        })
    })?;
    let camera = match args.flight {
        None => {
            let started = std::time::Instant::now();
            session.fill()?;
            if let Some(streamer) = &session.streamer {
                let capped = if streamer.manager.is_capped() {
                    " (memory-capped: the farthest nodes for their size were left out)"
                } else {
                    ""
                };
                println!("streamed the view in {:.2} s{capped}", started.elapsed().as_secs_f64());
            }
            start
        }
        Some(frames) => fly(&mut session, start, frames, args.pop_score)?,
    };
    let renderer = &mut session.renderer;
    renderer.tools().set_front_to_back(args.cull.front_to_back == super::Switch::On);
    if let Some(at) = frozen {
        // The frozen culling tests against the depth pyramid the frozen camera saw: draw from it
        // first (twice: the second frame's pyramid holds what the first found), then freeze.
        let culling = renderer.options().culling;
        renderer.set_culling(Culling { frozen: None, ..culling });
        renderer.settle(&at)?;
        renderer.settle(&at)?;
        renderer.set_culling(culling);
    }
    let stats = renderer.settle(&camera)?;
    let image = crate::to_image(renderer.read_pixels()?);
    image.save(&args.out).map_err(|e| CliError::Write { path: args.out.clone(), reason: e.to_string() })?;
    println!(
        "wrote {} ({}x{}) on {}: {} nodes (per node level {:?}; drawn per level of detail {:?}), {} of {} with quads visible, {} quads drawn ({} skirts), {} draw commands, {:.1} MiB of GPU buffers (budget {} MiB)",
        args.out.display(),
        args.frame.width,
        args.frame.height,
        gpu.summary,
        stats.chunks_resident,
        renderer.resident().nodes_per_level(),
        trimmed(&stats.lod_levels),
        stats.chunks_visible,
        stats.chunks_tested,
        stats.quads,
        stats.skirt_quads,
        stats.draw_commands,
        stats.gpu_bytes as f64 / (1024.0 * 1024.0),
        args.world.gpu_memory_budget
    );
    Ok(())
}

/// Counts per level without the empty coarse levels at the end.
pub fn trimmed(levels: &[u32]) -> &[u32] {
    let used = levels.iter().rposition(|&n| n > 0).map_or(1, |i| i + 1);
    &levels[..used]
}

/// Blocks per frame of `--flight`, along +X.
const FLIGHT_SPEED: f32 = 2.0;

/// Streams terrain in around `start`, then along `frames` frames of a straight flight from it,
/// rendering each, then waits for the last position's columns. Returns the camera where the
/// flight ends.
fn fly(session: &mut Session, start: Camera, frames: u32, pop_score: bool) -> Result<Camera, CliError> {
    let Session { renderer, streamer, .. } = session;
    let streamer = streamer.as_mut().expect("a flight streams its terrain");
    let at = |frame: u32| {
        let offset = Vec3::X * FLIGHT_SPEED * frame as f32;
        Camera::look_at(start.eye + offset, start.target + offset)
    };
    // The start streams in whole first, as after a jump; the flight then has to keep up.
    let cold = std::time::Instant::now();
    streamer.settle(start.eye, renderer)?;
    println!("streamed the start in {:.2} s", cold.elapsed().as_secs_f64());
    let began = std::time::Instant::now();
    let generated_before = streamer.generated;
    let (mut uploaded, mut peak_gpu_bytes) = (0u64, 0u64);
    // Frames with a hole near the camera: a column within two chunks of it with no resident
    // node at any level.
    let mut near_holes = 0u32;
    let mut pops = pop_score.then(PopScore::default);
    if pop_score {
        // Decisions for the nodes the settling inserted last: the first frozen frame starts
        // from a decided view, as every later one does.
        renderer.render(&at(0))?;
    }
    for frame in 0..frames {
        let camera = at(frame);
        // The last frame's decisions from this camera: residency is still as it left it.
        let frozen = if pops.is_some() { Some(PopScore::frozen(renderer, &camera)?) } else { None };
        streamer.update(camera.eye, renderer)?;
        near_holes += u32::from(streamer.manager.near_holes(camera.eye) > 0);
        let stats = renderer.render(&camera)?;
        if let (Some(pops), Some(frozen)) = (pops.as_mut(), frozen) {
            pops.add(&frozen, &renderer.read_pixels()?);
        }
        uploaded += stats.uploaded_bytes;
        peak_gpu_bytes = peak_gpu_bytes.max(stats.gpu_bytes);
    }
    if let Some(summary) = pops.and_then(|p| p.summary()) {
        println!("{summary}");
    }
    let end = at(frames);
    let settling = std::time::Instant::now();
    streamer.settle(end.eye, renderer)?;
    let settle_seconds = settling.elapsed().as_secs_f64();
    let seconds = began.elapsed().as_secs_f64();
    println!(
        "flew {frames} frames ({:.0} blocks) in {seconds:.1} s: {} columns generated ({:.0} per second), \
         {:.1} KiB uploaded per frame, GPU pools at most {:.1} MiB, {} nodes resident; \
         {near_holes} frames with a hole within two chunks of the camera; the view completed {settle_seconds:.2} s after the last frame",
        FLIGHT_SPEED * frames as f32,
        streamer.generated - generated_before,
        (streamer.generated - generated_before) as f64 / seconds,
        uploaded as f64 / frames as f64 / 1024.0,
        peak_gpu_bytes as f64 / (1024.0 * 1024.0),
        streamer.manager.resident_chunks().len()
    );
    Ok(end)
}
