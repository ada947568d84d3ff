//! The camera as plain data: where it is, where it looks, and the projection it implies.
//!
//! Projection is reverse-Z with an infinite far plane: depth 1 at the near plane falling towards
//! 0 at infinity, in wgpu's `[0, 1]` clip range. Floating-point depth keeps its precision far away
//! this way, which a long view distance needs. The depth buffer clears to 0 and tests `Greater`.
//!
//! Positions reach the GPU relative to the camera. An f32 world position 4,000,000 blocks out
//! has a step of half a block, so a world-space matrix smears and sparkles there. Instead the
//! renderer takes an integer *anchor*, the block the eye is in ([`Camera::anchor`]); a chunk's
//! integer origin minus the anchor is exact, and only that small difference becomes f32. The
//! matrices here ([`Camera::view_proj_from`]) measure from the anchor, so the same chunks at the
//! origin and 10,000,000 blocks away, seen from the same offset, give the same frame.

use glam::camera::rh::{proj::directx, view};
use glam::{IVec3, Mat4, Vec3};

/// The farthest an eye may be from the world's origin along any axis, in blocks: positions are
/// measured from the eye's block in i32 on the GPU, and this keeps every difference between a
/// drawn node and the anchor far inside the i32 range.
pub const MAX_EYE_COORDINATE: f32 = (1u32 << 30) as f32;

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
    /// = width / height. Its precision is that of the world position in f32: the renderer uses
    /// [`Camera::view_proj_from`].
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Whether this camera can be drawn at `aspect`: a finite eye within [`MAX_EYE_COORDINATE`]
    /// of the origin, a finite target, field of view and near plane, and a finite view-projection
    /// with a finite inverse (a zero field of view or near plane has none).
    pub fn is_drawable(&self, aspect: f32) -> bool {
        let view_proj = self.view_proj(aspect);
        self.fov_y_degrees.is_finite()
            && self.near.is_finite()
            && self.eye.is_finite()
            && self.eye.abs().max_element() <= MAX_EYE_COORDINATE
            && self.target.is_finite()
            && view_proj.is_finite()
            && view_proj.inverse().is_finite()
    }

    /// The integer block the renderer measures positions from: the block the eye is in, `floor(eye)`
    /// (saturated to the i32 range for eyes beyond it).
    pub fn anchor(&self) -> IVec3 {
        self.eye.floor().as_ivec3()
    }

    /// The eye measured from `anchor`, in blocks (in `[0, 1)` on each axis for
    /// `anchor = self.anchor()`). Computed in f64, so it is the f32 nearest the exact difference.
    pub fn eye_from(&self, anchor: IVec3) -> Vec3 {
        (self.eye.as_dvec3() - anchor.as_dvec3()).as_vec3()
    }

    /// The view's rotation alone: world directions to view directions. Looking straight up or
    /// down uses −Z as "up" on screen, as [`Camera::view`] does.
    pub fn rotation(&self) -> Mat4 {
        let forward = self.forward();
        let up = if forward.cross(Vec3::Y).length_squared() < 1e-6 { Vec3::NEG_Z } else { Vec3::Y };
        view::look_to_mat4(Vec3::ZERO, forward, up)
    }

    /// Clip matrix of points measured from `anchor` (world block `anchor` at the matrix's origin):
    /// [`Camera::projection`] × the view with the eye at [`Camera::eye_from`]. A point `p` blocks
    /// from the anchor lands where world point `anchor + p` lands under [`Camera::view_proj`], with
    /// the precision of `p` rather than of the world position.
    pub fn view_proj_from(&self, aspect: f32, anchor: IVec3) -> Mat4 {
        self.projection(aspect) * self.rotation() * Mat4::from_translation(-self.eye_from(anchor))
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
    fn anchored_matrices_place_points_as_the_world_matrix_does() {
        let cam = Camera::look_at(Vec3::new(3.25, 70.5, -5.75), Vec3::new(40.0, 60.0, 20.0));
        let anchor = cam.anchor();
        assert_eq!(anchor, IVec3::new(3, 70, -6));
        assert_eq!(cam.eye_from(anchor), Vec3::new(0.25, 0.5, 0.25));
        for p in [Vec3::new(10.0, 65.0, 4.0), Vec3::new(35.0, 61.0, 18.0)] {
            let world = cam.view_proj(1.5) * p.extend(1.0);
            let anchored = cam.view_proj_from(1.5, anchor) * (p - anchor.as_vec3()).extend(1.0);
            assert!((world - anchored).abs().max_element() < 1e-4, "{world} against {anchored}");
        }
    }

    #[test]
    fn far_from_the_origin_the_anchored_matrix_equals_the_one_at_the_origin() {
        // The same view 10,000,000 blocks out, measured from its anchor, is the same matrix.
        let near = Camera::look_at(Vec3::new(16.0, 80.0, 16.0), Vec3::new(100.0, 40.0, 70.0));
        let shift = Vec3::splat(10_000_000.0);
        let far = Camera::look_at(near.eye + shift, near.target + shift);
        assert_eq!(far.anchor() - near.anchor(), IVec3::splat(10_000_000));
        let (a, b) = (near.view_proj_from(1.5, near.anchor()), far.view_proj_from(1.5, far.anchor()));
        assert_eq!(a, b);
    }

    #[test]
    fn cameras_that_cannot_be_drawn_are_told_apart() {
        let good = Camera::look_at(Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 0.0, 3.0));
        assert!(good.is_drawable(1.5));
        let far = Vec3::splat(MAX_EYE_COORDINATE);
        assert!(Camera::look_at(far, far + Vec3::X).is_drawable(1.5));
        let bad = [
            Camera::look_at(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X),
            Camera::look_at(Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0)),
            Camera::look_at(Vec3::new(2.0 * MAX_EYE_COORDINATE, 0.0, 0.0), Vec3::ZERO),
            Camera { fov_y_degrees: 0.0, ..good },
            Camera { near: 0.0, ..good },
            Camera { near: f32::NAN, ..good },
        ];
        for camera in bad {
            assert!(!camera.is_drawable(1.5), "{camera:?}");
        }
    }

    #[test]
    fn looking_straight_down_is_well_defined() {
        let cam = Camera::look_at(Vec3::new(0.0, 100.0, 0.0), Vec3::ZERO);
        assert!(cam.view().is_finite());
        let (p, w) = ndc(&cam, Vec3::new(0.0, 50.0, 0.0));
        assert!(w > 0.0 && p.x.abs() < 1e-4 && p.y.abs() < 1e-4);
    }
}
