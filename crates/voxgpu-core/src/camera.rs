//! The camera as plain data: where it is, where it looks, and the projection it implies.
//!
//! Projection is reverse-Z with an infinite far plane: depth 1 at the near plane falling towards
//! 0 at infinity, in wgpu's `[0, 1]` clip range. Floating-point depth keeps its precision far away
//! this way, which a long view distance needs. The depth buffer clears to 0 and tests `Greater`.

use glam::camera::rh::{proj::directx, view};
use glam::{Mat4, Vec3};

/// A perspective camera as plain data: eye and target in world blocks, the vertical field of view
/// and the near plane. [`Camera::view_proj`] gives the matrix that the draw and the culling use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in world coordinates (blocks).
    pub eye: Vec3,
    /// A point the camera looks at, in world coordinates (blocks); only its direction from `eye`
    /// matters.
    pub target: Vec3,
    /// Vertical field of view in degrees.
    pub fov_y_degrees: f32,
    /// Distance to the near plane in blocks.
    pub near: f32,
}

impl Camera {
    /// A camera at `eye` looking at `target`, with a 70° vertical field of view and the near plane
    /// 0.1 blocks away.
    pub fn look_at(eye: Vec3, target: Vec3) -> Self {
        Self { eye, target, fov_y_degrees: 70.0, near: 0.1 }
    }

    /// Unit view direction. A camera whose target equals its eye looks along −Z.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye).try_normalize().unwrap_or(Vec3::NEG_Z)
    }

    /// World-to-view matrix (right-handed, +Y up). Looking straight up or down uses −Z as "up" on
    /// screen, since +Y is then degenerate.
    pub fn view(&self) -> Mat4 {
        let forward = self.forward();
        let up = if forward.cross(Vec3::Y).length_squared() < 1e-6 { Vec3::NEG_Z } else { Vec3::Y };
        view::look_to_mat4(self.eye, forward, up)
    }

    /// Reverse-Z infinite perspective for a viewport of `aspect` = width / height, in wgpu's
    /// clip convention (glam's `directx` module: depth `[0, 1]`, Y up).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        directx::perspective_infinite_reverse(self.fov_y_degrees.to_radians(), aspect, self.near)
    }

    /// World-to-clip matrix, [`Camera::projection`] × [`Camera::view`], for a viewport of `aspect`
    /// = width / height.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ndc(cam: &Camera, p: Vec3) -> (Vec3, f32) {
        let clip = cam.view_proj(16.0 / 9.0) * p.extend(1.0);
        (clip.truncate() / clip.w, clip.w)
    }

    #[test]
    fn a_point_just_ahead_of_the_camera_is_inside_the_clip_volume() {
        let cam = Camera::look_at(Vec3::new(3.0, 70.0, -5.0), Vec3::new(40.0, 60.0, 20.0));
        let (p, w) = ndc(&cam, cam.eye + cam.forward() * (cam.near * 1.01));
        assert!(w > 0.0);
        assert!(p.x.abs() < 1e-3 && p.y.abs() < 1e-3);
        assert!(p.z > 0.0 && p.z <= 1.0, "depth {}", p.z);
    }

    #[test]
    fn depth_is_reversed_near_is_one_and_far_tends_to_zero() {
        let cam = Camera::look_at(Vec3::ZERO, Vec3::NEG_Z);
        let (near, _) = ndc(&cam, Vec3::new(0.0, 0.0, -cam.near));
        let (far, _) = ndc(&cam, Vec3::new(0.0, 0.0, -1.0e6));
        assert!((near.z - 1.0).abs() < 1e-5);
        assert!(far.z > 0.0 && far.z < 1e-6);
    }

    #[test]
    fn a_point_behind_the_camera_has_negative_w() {
        let cam = Camera::look_at(Vec3::ZERO, Vec3::X);
        let (_, w) = ndc(&cam, Vec3::new(-1.0, 0.0, 0.0));
        assert!(w < 0.0);
    }

    #[test]
    fn looking_straight_down_is_well_defined() {
        let cam = Camera::look_at(Vec3::new(0.0, 100.0, 0.0), Vec3::ZERO);
        assert!(cam.view().is_finite());
        let (p, w) = ndc(&cam, Vec3::new(0.0, 50.0, 0.0));
        assert!(w > 0.0 && p.x.abs() < 1e-4 && p.y.abs() < 1e-4);
    }
}
