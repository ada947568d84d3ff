//! The desktop viewer (`voxgpu`, `voxgpu view`): a winit window over the chosen world, a fly
//! camera, debug keys, block editing and screenshots. Feature `viewer` (on by default).
//!
//! Keys: WASD move, Space/Shift up/down, Ctrl sprint, mouse look (click to grab the cursor, Esc
//! releases it), scroll wheel speed; F1 + 1..6 render mode; L levels of detail; C freeze
//! culling; F2 screenshot; F3 the stats overlay (egui); left click removes the targeted
//! block, right click places the selected one, 1..9 and 0 select it.
//!
//! For tests and automation: `--exit-after-frames N`, `--screenshot PATH` (taken on the last
//! frame, after streaming and meshing have caught up with the camera) and `--script FILE`
//! ([`script`]), which also fixes the frame time at 1/60 s.

mod app;
mod overlay;
pub mod script;

use std::path::PathBuf;

use crate::cli::{CliError, FrameArgs, MeshArgs, WorldArgs};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct ViewArgs {
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Quit after this many frames (with `--screenshot`, the last one is saved).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub exit_after_frames: Option<u64>,
    /// Save the last frame here as a PNG (needs `--exit-after-frames`).
    #[arg(long, requires = "exit_after_frames")]
    pub screenshot: Option<PathBuf>,
    /// Drive the viewer from a script of timed inputs (see `voxgpu::viewer::script`).
    #[arg(long)]
    pub script: Option<PathBuf>,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub world: WorldArgs,
}

impl ViewArgs {
    /// The defaults of `voxgpu` with no subcommand.
    pub fn defaults() -> Self {
        use clap::FromArgMatches;
        let command = <Self as clap::Args>::augment_args(clap::Command::new("view"));
        let matches = command.get_matches_from(["view"]);
        Self::from_arg_matches(&matches).expect("the defaults parse")
    }
}

/// Opens the window and runs until it is closed or `--exit-after-frames` is reached.
pub fn run(args: &ViewArgs) -> Result<(), CliError> {
    if cfg!(target_os = "linux")
        && ["DISPLAY", "WAYLAND_DISPLAY"].iter().all(|v| std::env::var_os(v).is_none())
    {
        return Err(CliError::NoDisplay);
    }
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::Usage(format!("cannot read --script {}: {e}", path.display())))?;
            Some(script::Script::parse(&text).map_err(CliError::Usage)?)
        }
        None => None,
    };
    if let Some(path) = &args.screenshot {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            return Err(CliError::Write { path: path.clone(), reason: "its folder does not exist".into() });
        }
    }
    app::run(args.clone(), script)
}
