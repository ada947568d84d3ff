//! The `voxgpu` command line: argument definitions and the one error type the binary prints.
//! Each subcommand lives in its own file; `main.rs` only parses and reports.

mod bench;
mod cave;
pub mod export;
mod info;
mod mesh_stats;
mod plot;
mod pop;
pub mod profile;
mod render;
pub mod soak;
mod stats;
#[cfg(feature = "viewer")]
pub mod view;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use glam::Vec3;

use crate::session::{SessionError, WorldConfig};
use voxgpu_core::lod::LodSettings;
use voxgpu_engine::{Culling, DrawSubmission, GpuError, RendererOptions};
use voxgpu_worlds::stream::plan::parse_view_distance;
use voxgpu_worlds::worldgen::{WorldError, WorldSource};

/// Largest image side `render` accepts: 8192² RGBA is 256 MiB of readback already.
pub const MAX_IMAGE_SIDE: u32 = 8192;
/// Largest `--view-distance`, in chunks: 65,536 blocks.
pub const MAX_VIEW_DISTANCE: u32 = voxgpu_worlds::stream::plan::MAX_VIEW_CHUNKS;

#[derive(Debug, Parser)]
#[command(
    name = "voxgpu",
    version,
    about = "A GPU-driven voxel renderer (no subcommand: the viewer, with the flags of `voxgpu view`)",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The viewer's flags, without a subcommand.
    #[cfg(feature = "viewer")]
    #[command(flatten)]
    pub view: view::ViewArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the desktop viewer (the default): fly over the world, edit blocks, take screenshots.
    #[cfg(feature = "viewer")]
    View(view::ViewArgs),
    /// Render one frame headless and write it as a PNG.
    Render(render::RenderArgs),
    /// Mesh the world and print quad statistics.
    Stats(stats::StatsArgs),
    /// Meshing throughput: the GPU mesher against the CPU reference on the same chunks.
    Bench(bench::BenchArgs),
    /// GPU time per stage over a fixed camera flight, from timestamp queries.
    Profile(profile::ProfileArgs),
    /// List adapters, the one chosen, and the optional features used or missing.
    Info,
    /// Write a box of a world (a store's, with its edits, or any --world) as a MagicaVoxel .vox.
    Export(export::ExportArgs),
}

/// Which world to build, shared by every subcommand that needs one.
#[derive(Debug, Clone, Args)]
pub struct WorldArgs {
    /// terrain | flat | checker | glass-checker | sphere | vox:PATH
    #[arg(long, default_value = "terrain")]
    pub world: WorldSource,
    /// Seed of the procedural terrain.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Horizontal radius of the world around the camera: `N` or `Nc` in 32-block chunks, `Nb` in
    /// blocks (rounded up to whole chunks), up to 2048 chunks (65536 blocks). Terrain beyond 8
    /// chunks is drawn with coarser level-of-detail nodes farther out. Default: 8 chunks; the
    /// viewer on a discrete GPU: 8192 blocks.
    #[arg(long, value_parser = parse_view_distance)]
    pub view_distance: Option<u32>,
    /// GPU memory for the world's buffers, in MiB: past it the farthest nodes (for their size)
    /// are not loaded. Streamed worlds only.
    #[arg(long, default_value_t = DEFAULT_GPU_BUDGET_MIB, value_parser = clap::value_parser!(u32).range(16..=1 << 20))]
    pub gpu_memory_budget: u32,
    /// A world store (a directory): opened if it exists, created for `--world` and `--seed`
    /// otherwise. Its world and edits are loaded; the viewer commits every edit to it.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

pub use voxgpu_engine::{DEFAULT_GPU_BUDGET_MIB, NODE_BUDGET_BYTES};

/// The view distance, in chunks, where `--view-distance` is not given.
pub const DEFAULT_VIEW_DISTANCE: u32 = 8;

impl WorldArgs {
    /// The view distance in chunks.
    pub fn distance(&self) -> u32 {
        self.view_distance.unwrap_or(DEFAULT_VIEW_DISTANCE)
    }

    /// The session's world configuration these flags give.
    pub fn config(&self) -> WorldConfig {
        WorldConfig {
            source: self.world.clone(),
            seed: self.seed,
            view_distance: self.distance(),
            gpu_memory_budget_mib: self.gpu_memory_budget,
            store: self.store.clone(),
        }
    }
}

/// The picture's size and viewpoint, shared by `render` and the viewer.
#[derive(Debug, Clone, Args)]
pub struct FrameArgs {
    /// Width in pixels (the viewer: its window's, at first).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(1..=MAX_IMAGE_SIDE as i64))]
    pub width: u32,
    /// Height in pixels.
    #[arg(long, allow_negative_numbers = true, default_value_t = 720, value_parser = clap::value_parser!(u32).range(1..=MAX_IMAGE_SIDE as i64))]
    pub height: u32,
    /// Camera position `x,y,z` in blocks (default: a view chosen for the world).
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub camera: Option<Vec3>,
    /// Point the camera looks at, `x,y,z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub target: Option<Vec3>,
}

impl FrameArgs {
    /// Eye and target: the flags where given, `default` (the world's view) otherwise.
    pub fn view(&self, default: (Vec3, Vec3)) -> Result<(Vec3, Vec3), CliError> {
        let eye = self.camera.unwrap_or(default.0);
        let target = self.target.unwrap_or(default.1);
        if (target - eye).length_squared() < 1e-6 {
            return Err(CliError::Usage("--target must differ from --camera".into()));
        }
        Ok((eye, target))
    }
}

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// How chunks are meshed (levels of detail, ambient occlusion), shared by every subcommand that
/// meshes.
#[derive(Debug, Clone, Args)]
pub struct MeshArgs {
    /// Levels of detail: distant chunks are meshed from their mip levels, with skirts at seams.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub lod: Switch,
    /// Distance in blocks from the camera where level 1 begins; level L begins at twice the
    /// distance of level L-1.
    #[arg(long, default_value_t = LodSettings::default().first_distance(), value_parser = parse_lod_distance)]
    pub lod_distance: f32,
    /// Frames a change of level cross-fades over (a screen-space dither between the two levels);
    /// 0 switches in one frame.
    #[arg(long, default_value_t = voxgpu_core::lod::DEFAULT_FADE_FRAMES, value_parser = parse_lod_fade)]
    pub lod_fade: u32,
    /// Ambient occlusion baked into the quads by the mesher.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub ao: Switch,
}

impl MeshArgs {
    pub fn ambient_occlusion(&self) -> bool {
        self.ao == Switch::On
    }

    /// The settings the flags ask for. `--lod-distance` went through [`parse_lod_distance`],
    /// which accepts only distances `LodSettings` accepts.
    pub fn lod_settings(&self) -> LodSettings {
        let max_level = match self.lod {
            Switch::On => LodSettings::default().max_level(),
            Switch::Off => 0,
        };
        LodSettings::new(self.lod_distance, LodSettings::default().hysteresis(), max_level)
            .and_then(|s| s.with_fade_frames(self.lod_fade))
            .expect("--lod-distance and --lod-fade are checked by their parsers")
    }
}

/// `--lod-distance`: a distance between 8 and 10⁶ blocks, which [`LodSettings::new`] accepts.
fn parse_lod_distance(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(d) if (8.0..=1.0e6).contains(&d) => LodSettings::default()
            .with_first_distance(d)
            .map(|l| l.first_distance())
            .map_err(|e| e.to_string()),
        _ => Err(format!("{s:?} is not a distance in blocks between 8 and 1000000")),
    }
}

/// `--lod-fade`: a whole number of frames from 0 to [`voxgpu_core::lod::MAX_FADE_FRAMES`].
fn parse_lod_fade(s: &str) -> Result<u32, String> {
    let max = voxgpu_core::lod::MAX_FADE_FRAMES;
    match s.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("{s:?} is not a number of frames from 0 to {max}")),
    }
}

/// The sky: haze, light and the time of day, shared by the viewer, `render` and `profile`.
#[derive(Debug, Clone, Args)]
pub struct SkyArgs {
    /// Distant surfaces fade into the sky, reaching it where the loaded world ends.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub fog: Switch,
    /// How thick the haze is (0.1 to 8): the sky's share at distance d is (d / view)^(4 /
    /// density), so a larger density brings it nearer; it reaches the sky at the view distance
    /// whatever the density.
    #[arg(long, default_value_t = voxgpu_engine::DEFAULT_FOG_DENSITY, value_parser = parse_fog_density)]
    pub fog_density: f32,
    /// Sky light and block light (flood-filled on the GPU); off, every face is lit as in the
    /// open.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub light: Switch,
    /// The time of day in hours, 0 to 24 (the sun rises at 6 and sets at 18).
    #[arg(long, default_value_t = voxgpu_engine::DEFAULT_TIME_OF_DAY, value_parser = parse_hours)]
    pub time: f32,
    /// Sun shadows out to 256 blocks around the eye. By default on, except on CPU and GL
    /// adapters (where they cost more than the rest of the frame).
    #[arg(long, value_enum)]
    pub shadows: Option<Switch>,
}

impl SkyArgs {
    /// `--shadows` as [`RendererOptions::shadows`] takes it (`None`: the adapter decides).
    pub fn shadows(&self) -> Option<bool> {
        self.shadows.map(|s| s == Switch::On)
    }

    /// Sets the haze, light, time of day and shadows `options` asks for from these flags.
    pub fn apply(&self, options: RendererOptions) -> RendererOptions {
        RendererOptions {
            fog: self.fog == Switch::On,
            fog_density: self.fog_density,
            light: self.light == Switch::On,
            time_of_day: self.time,
            shadows: self.shadows(),
            ..options
        }
    }
}

/// `--time`: hours from 0 to 24.
fn parse_hours(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(h) if (0.0..=24.0).contains(&h) => Ok(h),
        _ => Err(format!("{s:?} is not a time of day in hours from 0 to 24")),
    }
}

/// `--fog-density`: a number from 0.1 to 8.
fn parse_fog_density(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(d) if (voxgpu_engine::MIN_FOG_DENSITY..=8.0).contains(&d) => Ok(d),
        _ => Err(format!("{s:?} is not a fog density from 0.1 to 8")),
    }
}

/// Which culling tests run, and the depth pre-pass, shared by `render` and `profile`.
#[derive(Debug, Clone, Args)]
pub struct CullArgs {
    /// Frustum and face-direction culling on the GPU (off turns occlusion culling off too).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub cull: Switch,
    /// Two-phase occlusion culling against a depth pyramid on the GPU (never changes the
    /// picture; the wireframe modes draw without it).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub occlusion: Switch,
    /// Each opaque quad of the streams that pass tested on its own in compute (the frustum, and
    /// the depth pyramid after the first phase), each list drawn by a few commands (never changes
    /// the picture; only with the `count` draw submission). By default on, except on CPU
    /// adapters.
    #[arg(long, value_enum)]
    pub quad_cull: Option<Switch>,
    /// Opaque draws in distance bands, nearest first, so early depth testing rejects what they
    /// hide (`off`: in the order the cull pass wrote them, for comparison).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub front_to_back: Switch,
    /// Draw the opaque quads' depth first, then shade each pixel once at equal depth.
    #[arg(long, value_enum, default_value_t = Switch::Off)]
    pub depth_prepass: Switch,
    /// How the draw lists are submitted: `count` (multi-draw bounded by the GPU's count),
    /// `capped` (multi-draw over the whole list) or `instanced` (one draw per list, an instance
    /// per page). By default the adapter's best (see `voxgpu info`).
    #[arg(long, value_parser = parse_draw_submission)]
    pub draw_submission: Option<DrawSubmission>,
}

fn parse_draw_submission(s: &str) -> Result<DrawSubmission, String> {
    DrawSubmission::ALL
        .into_iter()
        .find(|d| d.name() == s)
        .ok_or_else(|| format!("{s:?} is not a draw submission (count, capped or instanced)"))
}

impl CullArgs {
    pub fn culling(&self) -> Culling {
        match self.cull {
            Switch::On => Culling {
                occlusion: self.occlusion == Switch::On,
                quads: self.quad_cull.map(|s| s == Switch::On),
                ..Culling::ALL
            },
            Switch::Off => Culling::NONE,
        }
    }
}

/// Parses `x,y,z` into a vector.
pub fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [x, y, z] = parts.as_slice() else {
        return Err(format!("expected x,y,z, got {s:?}"));
    };
    let num = |v: &str| match v.parse::<f32>() {
        Ok(f) if f.is_finite() && f.abs() <= 1.0e7 => Ok(f),
        _ => Err(format!("{v:?} is not a coordinate (finite, |v| <= 1e7)")),
    };
    Ok(Vec3::new(num(x)?, num(y)?, num(z)?))
}

/// Everything a subcommand can fail with; each prints as one line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Building the world failed (unknown source, bad `.vox`, model too large).
    #[error(transparent)]
    World(#[from] WorldError),
    /// The GPU side failed (no adapter, bad image size, device lost).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The world store failed.
    #[error(transparent)]
    Store(#[from] voxgpu_store::StoreError),
    /// Opening the world's session failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Writing an output file failed.
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    /// Arguments that parse but do not make sense together.
    #[error("{0}")]
    Usage(String),
    /// `voxgpu bench`'s comparison crate and the CPU twin disagree on the chunks they both mesh,
    /// so their timings would not compare the same work.
    #[error("bench check failed: {0}")]
    BenchCheck(String),
    /// The viewer failed.
    #[cfg(feature = "viewer")]
    #[error(transparent)]
    Viewer(#[from] crate::viewer::ViewerError),
}

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        #[cfg(feature = "viewer")]
        None => Ok(crate::viewer::run(&cli.view.config()?)?),
        #[cfg(not(feature = "viewer"))]
        None => {
            Err(CliError::Usage("this build has no viewer (feature `viewer`); try `voxgpu render`".into()))
        }
        #[cfg(feature = "viewer")]
        Some(Command::View(args)) => Ok(crate::viewer::run(&args.config()?)?),
        Some(Command::Render(args)) => render::run(&args),
        Some(Command::Stats(args)) => stats::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Profile(args)) => profile::run(&args),
        Some(Command::Info) => info::run(),
        Some(Command::Export(args)) => export::run(&args),
    }
}
