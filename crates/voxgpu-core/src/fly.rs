//! The viewer's fly camera as plain data: held movement keys, mouse look and speed in, a
//! [`Camera`] out. No window, so it is unit-tested here and shared by scripted runs.
//!
//! Motion is frame-rate independent by construction: the velocity approaches its target
//! exponentially (`v' = t + (v − t)·e^(−k·dt)`), and the position moves by that curve's exact
//! integral over `dt`, so one step of 1/30 s lands where two steps of 1/60 s do (up to rounding).

use glam::Vec3;

use crate::camera::Camera;

/// What the user is asking for this frame. Movement axes are −1, 0 or 1 (or anything between,
/// from a gamepad); look deltas are in radians.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlyInput {
    /// +1 forward (W), −1 back (S).
    pub forward: f32,
    /// +1 right (D), −1 left (A).
    pub right: f32,
    /// +1 up (Space), −1 down (Shift).
    pub up: f32,
    /// Ctrl: several times faster.
    pub sprint: bool,
    /// Mouse look this frame: yaw to the right, pitch up, in radians.
    pub look: (f32, f32),
}

/// The fly camera's state: position, yaw, pitch and cruising speed, plus its current velocity,
/// which only [`FlyCamera::update`] changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlyCamera {
    /// Eye position in world coordinates (blocks).
    pub position: Vec3,
    /// Radians; 0 looks along −Z, positive turns right (towards +X).
    pub yaw: f32,
    /// Radians, clamped short of straight up and down.
    pub pitch: f32,
    /// Cruising speed in blocks per second; the scroll wheel scales it.
    pub speed: f32,
    velocity: Vec3,
}

/// How fast the velocity closes on its target: 1/e of the gap left after 1/12 s.
const RESPONSE: f32 = 12.0;
const SPRINT: f32 = 4.0;
const MAX_PITCH: f32 = 1.55;
/// Slowest cruising speed [`FlyCamera::scroll`] allows, in blocks per second.
pub const MIN_SPEED: f32 = 1.0;
/// Fastest cruising speed [`FlyCamera::scroll`] allows, in blocks per second (sprint multiplies it
/// by 4).
pub const MAX_SPEED: f32 = 2000.0;

impl FlyCamera {
    /// At `eye`, looking towards `target`.
    pub fn looking_at(eye: Vec3, target: Vec3) -> Self {
        let d = (target - eye).try_normalize().unwrap_or(Vec3::NEG_Z);
        Self {
            position: eye,
            yaw: d.x.atan2(-d.z),
            pitch: d.y.clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH),
            speed: 20.0,
            velocity: Vec3::ZERO,
        }
    }

    /// Unit view direction.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(sy * cp, sp, -cy * cp)
    }

    /// The [`Camera`] at this position looking along [`FlyCamera::forward`], with
    /// [`Camera::look_at`]'s field of view and near plane.
    pub fn camera(&self) -> Camera {
        Camera::look_at(self.position, self.position + self.forward())
    }

    /// Scroll: each notch multiplies the speed by 1.25 (negative notches divide).
    pub fn scroll(&mut self, notches: f32) {
        self.speed = (self.speed * 1.25f32.powf(notches)).clamp(MIN_SPEED, MAX_SPEED);
    }

    /// Advances by `dt` seconds of `input`.
    pub fn update(&mut self, input: &FlyInput, dt: f32) {
        self.yaw = (self.yaw + input.look.0).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + input.look.1).clamp(-MAX_PITCH, MAX_PITCH);
        // Walk in the horizontal plane (looking down does not slow you), rise along +Y.
        let (sy, cy) = self.yaw.sin_cos();
        let ahead = Vec3::new(sy, 0.0, -cy);
        let right = Vec3::new(cy, 0.0, sy);
        let wish = ahead * input.forward + right * input.right + Vec3::Y * input.up;
        let speed = self.speed * if input.sprint { SPRINT } else { 1.0 };
        let target = wish.clamp_length_max(1.0) * speed;
        let decay = (-RESPONSE * dt).exp();
        // x(dt) = t·dt + (v − t)(1 − e^(−k·dt))/k, the integral of the velocity curve.
        self.position += target * dt + (self.velocity - target) * (1.0 - decay) / RESPONSE;
        self.velocity = target + (self.velocity - target) * decay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(forward: f32) -> FlyInput {
        FlyInput { forward, ..FlyInput::default() }
    }

    #[test]
    fn looking_at_a_target_faces_it() {
        let eye = Vec3::new(1.0, 2.0, 3.0);
        let target = Vec3::new(11.0, 7.0, -4.0);
        let fly = FlyCamera::looking_at(eye, target);
        assert!(fly.forward().distance((target - eye).normalize()) < 1e-5);
        assert!(fly.camera().forward().distance(fly.forward()) < 1e-5);
    }

    #[test]
    fn w_moves_forward_along_the_ground_and_space_rises() {
        let mut fly = FlyCamera::looking_at(Vec3::ZERO, Vec3::new(0.0, -1.0, -1.0));
        for _ in 0..120 {
            fly.update(&held(1.0), 1.0 / 60.0);
        }
        assert!(fly.position.z < -30.0, "{:?}", fly.position);
        assert!(fly.position.y.abs() < 1e-4 && fly.position.x.abs() < 1e-4, "{:?}", fly.position);
        let mut rise = FlyCamera::looking_at(Vec3::ZERO, Vec3::X);
        rise.update(&FlyInput { up: 1.0, ..FlyInput::default() }, 1.0);
        assert!(rise.position.y > 15.0 && rise.position.x.abs() < 1e-4);
    }

    #[test]
    fn motion_does_not_depend_on_the_frame_rate() {
        let input = FlyInput { forward: 1.0, right: -0.5, up: 0.3, ..FlyInput::default() };
        let mut rates = Vec::new();
        for fps in [20, 60, 144, 240] {
            let mut fly = FlyCamera::looking_at(Vec3::ZERO, Vec3::new(1.0, 0.0, -1.0));
            for _ in 0..fps {
                fly.update(&input, 1.0 / fps as f32);
            }
            // Then let go for half a second: it glides to a stop the same way.
            for _ in 0..fps / 2 {
                fly.update(&FlyInput::default(), 1.0 / fps as f32);
            }
            rates.push(fly.position);
        }
        for p in &rates[1..] {
            assert!(p.distance(rates[0]) < 1e-3, "{p:?} vs {:?}", rates[0]);
        }
        assert!(rates[0].length() > 10.0);
    }

    #[test]
    fn sprint_is_faster_and_scroll_changes_speed_within_bounds() {
        let mut walk = FlyCamera::looking_at(Vec3::ZERO, Vec3::NEG_Z);
        let mut run = walk;
        walk.update(&held(1.0), 2.0);
        run.update(&FlyInput { sprint: true, ..held(1.0) }, 2.0);
        assert!(run.position.length() > 3.5 * walk.position.length());
        let mut fly = walk;
        fly.scroll(1.0);
        assert!((fly.speed - walk.speed * 1.25).abs() < 1e-4);
        fly.scroll(-1000.0);
        assert_eq!(fly.speed, MIN_SPEED);
        fly.scroll(1000.0);
        assert_eq!(fly.speed, MAX_SPEED);
    }

    #[test]
    fn pitch_stops_short_of_the_poles_and_yaw_wraps() {
        let mut fly = FlyCamera::looking_at(Vec3::ZERO, Vec3::NEG_Z);
        fly.update(&FlyInput { look: (7.0, 5.0), ..FlyInput::default() }, 0.016);
        assert_eq!(fly.pitch, MAX_PITCH);
        assert!((0.0..std::f32::consts::TAU).contains(&fly.yaw));
        assert!(fly.camera().view().is_finite());
    }
}
