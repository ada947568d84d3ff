//! The pop score: how much of the picture changes in one frame because level-of-detail and
//! residency decisions changed. Each measured frame is drawn twice from its camera, first with
//! the previous frame's decisions frozen, then live; the score is the share of pixels whose
//! colour moves by more than CIELAB ΔE*76 10 between the two.

use voxgpu_core::camera::Camera;
use voxgpu_core::color::{delta_e, srgb_to_lab};
use voxgpu_engine::{Offscreen, Pixels};

use super::CliError;

/// A colour difference a viewer sees at a glance: well above the ΔE 2 of a just-noticeable one.
const POPPED_DELTA_E: f64 = 10.0;

/// The shares of popped pixels over the frames measured so far.
#[derive(Default)]
pub struct PopScore {
    shares: Vec<f64>,
}

/// Median, 99th percentile and maximum share of popped pixels per frame, in percent.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct PopSummary {
    pub frames: usize,
    pub median_percent: f64,
    pub p99_percent: f64,
    pub max_percent: f64,
}

impl PopScore {
    /// Draws `camera` with the last frame's decisions frozen and returns the picture, to be
    /// compared with the live frame the caller renders next from the same camera.
    pub fn frozen(renderer: &mut Offscreen, camera: &Camera) -> Result<Pixels, CliError> {
        renderer.tools().set_lod_frozen(true);
        let drawn = renderer.render(camera);
        renderer.tools().set_lod_frozen(false);
        drawn?;
        Ok(renderer.read_pixels()?)
    }

    /// Counts one frame: the frozen picture against the live one.
    pub fn add(&mut self, frozen: &Pixels, live: &Pixels) {
        self.shares.push(popped_share(frozen, live));
    }

    /// The figures over every frame added, or `None` before the first.
    pub fn summary(&self) -> Option<PopSummary> {
        let mut shares = self.shares.clone();
        if shares.is_empty() {
            return None;
        }
        shares.sort_by(f64::total_cmp);
        let at = |q: f64| shares[((shares.len() - 1) as f64 * q).round() as usize] * 100.0;
        Some(PopSummary {
            frames: shares.len(),
            median_percent: at(0.5),
            p99_percent: at(0.99),
            max_percent: at(1.0),
        })
    }
}

impl std::fmt::Display for PopSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pop score over {} frames: pixels moving by more than ΔE {POPPED_DELTA_E} between the frozen and the live decisions: median {:.3}%, p99 {:.3}%, max {:.3}%",
            self.frames, self.median_percent, self.p99_percent, self.max_percent
        )
    }
}

/// The share of pixels whose colour differs by more than [`POPPED_DELTA_E`] between two frames
/// of the same size.
fn popped_share(a: &Pixels, b: &Pixels) -> f64 {
    let popped = a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).filter(|(p, q)| {
        delta_e(srgb_to_lab([p[0], p[1], p[2]]), srgb_to_lab([q[0], q[1], q[2]])) > POPPED_DELTA_E
    });
    popped.count() as f64 / (a.rgba.len() / 4).max(1) as f64
}
