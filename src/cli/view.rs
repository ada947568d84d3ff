//! `voxgpu` with no subcommand, or `voxgpu view`: the viewer's flags, turned into its
//! [`ViewerConfig`].

use std::path::PathBuf;

use clap::Args;

use super::{CliError, FrameArgs, MeshArgs, SkyArgs, Switch, WorldArgs};
use crate::viewer::ViewerConfig;
use voxgpu_worlds::worldgen::WorldSource;

/// The viewer's flags.
#[derive(Debug, Clone, Args)]
pub struct ViewArgs {
    /// A MagicaVoxel model to open (the same as `--world vox:MODEL`).
    #[arg(value_name = "MODEL.vox")]
    pub model: Option<PathBuf>,
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
    pub sky: SkyArgs,
    #[command(flatten)]
    pub world: WorldArgs,
}

impl ViewArgs {
    /// The viewer's configuration. A model path and a `--world` other than the default terrain
    /// contradict each other.
    pub fn config(&self) -> Result<ViewerConfig, CliError> {
        let mut world = self.world.config();
        if let Some(model) = &self.model {
            // A word that is not a model is most likely a mistyped subcommand (or a subcommand
            // after the viewer's flags): say so before any window or GPU is opened.
            let is_vox = model.extension().is_some_and(|e| e.eq_ignore_ascii_case("vox"));
            if !is_vox {
                return Err(CliError::Usage(format!(
                    "{:?} is neither a command (view, render, stats, bench, profile, info; flags go after the command) nor a .vox model",
                    model.display().to_string()
                )));
            }
            if !model.is_file() {
                return Err(CliError::Usage(format!("{}: no such .vox file", model.display())));
            }
            if world.source != WorldSource::Terrain {
                return Err(CliError::Usage(format!(
                    "{} and --world {} both name the world: give one",
                    model.display(),
                    world.source
                )));
            }
            world.source = WorldSource::Vox(model.clone());
        }
        Ok(ViewerConfig {
            world,
            view_distance_given: self.world.view_distance.is_some(),
            width: self.frame.width,
            height: self.frame.height,
            camera: self.frame.camera,
            target: self.frame.target,
            lod: self.mesh.lod_settings(),
            ambient_occlusion: self.mesh.ambient_occlusion(),
            fog: self.sky.fog == Switch::On,
            fog_density: self.sky.fog_density,
            light: self.sky.light == Switch::On,
            time_of_day: self.sky.time,
            shadows: self.sky.shadows(),
            exit_after_frames: self.exit_after_frames,
            screenshot: self.screenshot.clone(),
            script: self.script.clone(),
        })
    }
}
