//! The frame clock: each frame's time step for the fly camera, and the frame rate the overlays
//! show. Times are milliseconds on one monotonic timeline of the caller's choosing ([`now_ms`],
//! or the browser's animation-frame timestamps, which are on `performance.now()`'s).

use std::sync::OnceLock;

use web_time::Instant;

/// The longest time step a frame takes, in seconds: after a stall (a breakpoint, a hidden tab)
/// the camera moves as if a tenth of a second had passed, not the whole gap.
pub const MAX_FRAME_DT: f32 = 0.1;
/// The frame rate is measured over windows at least this long, in milliseconds.
const RATE_WINDOW_MS: f64 = 500.0;

/// Milliseconds since the first call, on a monotonic clock (`performance.now()` in the browser).
pub fn now_ms() -> f64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// One frame's time, from [`FrameClock::begin`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameStep {
    /// Seconds since the previous frame began, in `0..=MAX_FRAME_DT`.
    pub dt: f32,
    /// Milliseconds since the previous frame began, unclamped.
    pub interval_ms: f64,
}

/// When the last frame began, and the frame rate: frames counted over windows of at least half a
/// second, the rate measured anew at the end of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameClock {
    last_ms: f64,
    fps: f64,
    frames: u32,
    since_ms: f64,
}

impl FrameClock {
    /// A clock whose first frame and first rate window start at `now_ms`; the rate reads 0
    /// until the first window ends.
    pub fn new(now_ms: f64) -> Self {
        Self { last_ms: now_ms, fps: 0.0, frames: 0, since_ms: now_ms }
    }

    /// A frame begins at `now_ms`: its time step since the previous one began.
    pub fn begin(&mut self, now_ms: f64) -> FrameStep {
        let interval_ms = now_ms - self.last_ms;
        self.last_ms = now_ms;
        FrameStep { dt: ((interval_ms / 1000.0) as f32).clamp(0.0, MAX_FRAME_DT), interval_ms }
    }

    /// Counts a frame at `now_ms`. Returns whether that ended a window and the rate was measured
    /// anew.
    pub fn count(&mut self, now_ms: f64) -> bool {
        self.frames += 1;
        let elapsed = now_ms - self.since_ms;
        if elapsed < RATE_WINDOW_MS {
            return false;
        }
        self.fps = self.frames as f64 * 1000.0 / elapsed;
        (self.frames, self.since_ms) = (0, now_ms);
        true
    }

    /// Frames per second over the last window (0 before the first ended).
    pub fn fps(&self) -> f64 {
        self.fps
    }

    /// Milliseconds per frame over the last window (a large number before the first ended).
    pub fn frame_ms(&self) -> f64 {
        1000.0 / self.fps.max(1e-3)
    }
}
