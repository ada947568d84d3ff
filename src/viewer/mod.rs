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

use glam::Vec3;

use crate::session::{SessionError, WorldConfig};
use voxgpu_core::lod::LodSettings;
use voxgpu_engine::GpuError;

/// What the viewer opens, and how it is driven.
#[derive(Clone, Debug)]
pub struct ViewerConfig {
    /// The world. Where its view distance was not chosen by the user, a discrete GPU gets the
    /// horizon over terrain instead.
    pub world: WorldConfig,
    /// Whether the user gave the view distance.
    pub view_distance_given: bool,
    /// The window's first size in pixels.
    pub width: u32,
    /// The window's first height in pixels.
    pub height: u32,
    /// Camera position in blocks (the world's default view where `None`).
    pub camera: Option<Vec3>,
    /// The point the camera looks at.
    pub target: Option<Vec3>,
    /// Levels of detail.
    pub lod: LodSettings,
    /// Ambient occlusion baked by the mesher.
    pub ambient_occlusion: bool,
    /// Haze into the sky, and its density ([`voxgpu_engine::RendererOptions::fog_density`]).
    pub fog: bool,
    pub fog_density: f32,
    /// Sky and block light ([`voxgpu_engine::RendererOptions::light`]).
    pub light: bool,
    /// The time of day at the start, in hours ([`voxgpu_engine::RendererOptions::time_of_day`]).
    pub time_of_day: f32,
    /// Sun shadows ([`voxgpu_engine::RendererOptions::shadows`]; `None`: the adapter decides).
    pub shadows: Option<bool>,
    /// Quit after this many frames.
    pub exit_after_frames: Option<u64>,
    /// Save the last frame here as a PNG.
    pub screenshot: Option<PathBuf>,
    /// A script of timed inputs ([`script`]).
    pub script: Option<PathBuf>,
}

/// Everything the viewer can fail with; each prints as one line.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// Opening the world failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The GPU failed (device lost, surface).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// Started where there is no display to open a window on.
    #[error(
        "no display (DISPLAY and WAYLAND_DISPLAY are unset): the viewer needs a window; `voxgpu render --out frame.png` renders headless"
    )]
    NoDisplay,
    /// The window system failed (no event loop, the window could not be created).
    #[error("window: {0}")]
    Window(String),
    /// Writing the screenshot failed.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The `--script` file could not be read or parsed.
    #[error("{0}")]
    Script(String),
}

/// Opens the window and runs until it is closed or `--exit-after-frames` is reached.
pub fn run(args: &ViewerConfig) -> Result<(), ViewerError> {
    if cfg!(target_os = "linux")
        && ["DISPLAY", "WAYLAND_DISPLAY"].iter().all(|v| std::env::var_os(v).is_none())
    {
        return Err(ViewerError::NoDisplay);
    }
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| ViewerError::Script(format!("cannot read --script {}: {e}", path.display())))?;
            Some(script::Script::parse(&text).map_err(ViewerError::Script)?)
        }
        None => None,
    };
    if let Some(path) = &args.screenshot {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            return Err(ViewerError::Write {
                path: path.clone(),
                reason: "its folder does not exist".into(),
            });
        }
    }
    app::run(args.clone(), script)
}

#[cfg(test)]
mod tests {
    use winit::keyboard::KeyCode;

    /// The shared key map reads physical key codes by name; the viewer passes winit's `Debug`
    /// spelling, which must stay the DOM's (`KeyboardEvent.code`), as the browser viewer passes.
    #[test]
    fn winit_key_names_are_the_dom_codes_the_key_map_reads() {
        use KeyCode::*;
        for (code, dom) in [
            (KeyW, "KeyW"),
            (KeyA, "KeyA"),
            (KeyS, "KeyS"),
            (KeyD, "KeyD"),
            (KeyL, "KeyL"),
            (KeyC, "KeyC"),
            (Space, "Space"),
            (ShiftLeft, "ShiftLeft"),
            (ShiftRight, "ShiftRight"),
            (ControlLeft, "ControlLeft"),
            (ControlRight, "ControlRight"),
            (Escape, "Escape"),
            (F1, "F1"),
            (F2, "F2"),
            (F3, "F3"),
            (F5, "F5"),
            (Digit0, "Digit0"),
            (Digit9, "Digit9"),
        ] {
            assert_eq!(format!("{code:?}"), dom);
        }
    }
}
