//! Culling, the CPU twin of `shaders/cull.wgsl`: which chunks are in the view frustum, and which
//! of a chunk's six face directions can face the camera at all.
//!
//! **Frustum.** The Gribb–Hartmann planes of a view-projection matrix in wgpu's clip space
//! (`-w ≤ x, y ≤ w`, `0 ≤ z ≤ w`), each normalised so that evaluating it gives a signed distance
//! in blocks (positive inside). With the renderer's reverse-Z projection the `z ≥ 0` row is the
//! *far* plane and `z ≤ w` the *near* one (the roles swap against a standard projection); the far
//! plane of an infinite projection is degenerate (no normal) and is kept as "always inside".
//!
//! **Boxes** are tested with the positive vertex: the corner furthest along each plane's normal.
//! A box is outside only when that corner is outside some plane, so the test is conservative: a
//! box outside the frustum but straddling two planes near a corner can pass (allowed), a visible
//! box never fails.
//!
//! **Face directions.** A chunk lying entirely on the positive side of the camera along an axis
//! (its box's minimum ≥ the eye's coordinate) shows none of its faces that point along +axis:
//! every such face lies at or beyond the box's minimum plus one voxel and points away from the eye.
//! Likewise for the negative directions. This holds at every level of detail (coarse voxels and
//! skirts stay inside the same box, [`chunk_aabb`]).

use glam::{Mat4, Vec3, Vec4};

use crate::mesh::Face;
use crate::voxel::{ChunkPos, chunk_aabb};

/// The six planes `(normal, d)` with `normal · p + d ≥ 0` inside, in [`Frustum::NAMES`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    /// Each plane as `(n.x, n.y, n.z, d)` with `n` a unit vector, so `n · p + d` is a distance in
    /// blocks.
    pub planes: [Vec4; 6],
}

impl Frustum {
    /// The name of each plane, by index into [`Frustum::planes`].
    pub const NAMES: [&'static str; 6] = ["left", "right", "bottom", "top", "far", "near"];

    /// The planes of `view_proj` (clip = `view_proj × world`), normalised.
    pub fn from_view_proj(view_proj: Mat4) -> Self {
        let row = |i: usize| view_proj.row(i);
        let (x, y, z, w) = (row(0), row(1), row(2), row(3));
        // Reverse-Z: depth 0 is infinitely far, so `z ≥ 0` bounds the far side, `z ≤ w` the near.
        let raw = [w + x, w - x, w + y, w - y, z, w - z];
        Self { planes: raw.map(normalise) }
    }

    /// Signed distance of `p` to plane `i` (positive inside).
    pub fn distance(&self, i: usize, p: Vec3) -> f32 {
        self.planes[i].truncate().dot(p) + self.planes[i].w
    }

    /// Whether `p` is inside or on every plane. The far plane of an infinite projection excludes
    /// nothing.
    pub fn contains_point(&self, p: Vec3) -> bool {
        (0..6).all(|i| self.distance(i, p) >= 0.0)
    }

    /// Whether the box `[min, max]` may be visible: false only when it is wholly outside one
    /// plane. Twin of `box_in_frustum` in `shaders/cull.wgsl`.
    pub fn intersects_box(&self, min: Vec3, max: Vec3) -> bool {
        self.planes.iter().all(|plane| {
            let n = plane.truncate();
            let positive = Vec3::select(n.cmpge(Vec3::ZERO), max, min);
            n.dot(positive) + plane.w >= 0.0
        })
    }

    /// The smallest distance, over all planes, between the plane and the box's positive vertex:
    /// how close the box is to flipping between inside and outside. Tests skip boxes within a
    /// small epsilon, where float rounding may legitimately differ between the CPU and the GPU.
    pub fn margin(&self, min: Vec3, max: Vec3) -> f32 {
        self.planes
            .iter()
            .map(|plane| {
                let n = plane.truncate();
                let positive = Vec3::select(n.cmpge(Vec3::ZERO), max, min);
                (n.dot(positive) + plane.w).abs()
            })
            .fold(f32::INFINITY, f32::min)
    }
}

/// How much larger than a quad its box is for the per-quad frustum test, in blocks: far more than
/// f32 rounding of a plane's distance (blocks from the anchor times 2^-24) anywhere a renderer
/// draws, so a quad that may cover a pixel centre is never left out. Twin of `QUAD_MARGIN` in
/// the engine's `shaders/quad_cull.wgsl`.
pub const QUAD_MARGIN: f32 = 0.0625;

/// The box of `quad`, of a node whose minimum corner is `origin` meshed in cells of `2^lod`
/// blocks, measured from `anchor`: what the per-quad culling pass tests (its frustum test on the
/// box grown by [`QUAD_MARGIN`]).
pub fn quad_box(quad: &crate::mesh::Quad, origin: glam::IVec3, lod: u32, anchor: glam::IVec3) -> [Vec3; 2] {
    let origin = (origin - anchor).as_vec3();
    let scale = (1u32 << lod) as f32;
    quad.plane_box().map(|corner| origin + corner.as_vec3() * scale)
}

/// Normalises a plane so it measures distance in world units; a plane with no normal (the far
/// plane of an infinite projection) becomes "always inside".
fn normalise(plane: Vec4) -> Vec4 {
    let length = plane.truncate().length();
    if length < 1e-6 { Vec4::new(0.0, 0.0, 0.0, 1.0) } else { plane / length }
}

/// Keys of the transparent sort (`shaders/transparent_sort.wgsl`): distance keys × face slots.
pub const SORT_BUCKETS: u32 = 4096;
/// Keys per distance key, one for each of a chunk's six face directions (a power of two).
pub const SORT_FACE_SLOTS: u32 = 8;
/// Distance keys: [`SORT_BUCKETS`] / [`SORT_FACE_SLOTS`].
pub const SORT_DISTANCES: u32 = SORT_BUCKETS / SORT_FACE_SLOTS;
/// Distance keys per square root of a block: the key is `SORT_SCALE·√distance`, so the 512 keys
/// reach 65,536 blocks and neighbouring keys are √distance blocks apart (4 at 16 blocks, 32 at
/// 1,024, the width of a node there). A finer, linear key over more buckets would make the
/// single-workgroup scan slower (16,384 buckets took 50 µs on the H200).
pub const SORT_SCALE: f32 = 2.0;

/// The distance from the eye to a chunk's centre as a fractional distance key (before it is
/// floored and turned far first); [`transparent_sort_key`] is built on it.
pub fn sort_distance(distance: f32) -> f32 {
    distance.sqrt() * SORT_SCALE
}

/// The key the transparent draw list is sorted by, ascending, so that it draws back to front:
/// the chunks far first by [`sort_distance`] of their centre, then within a chunk its face
/// directions in [`face_draw_slot`] order. Every face direction of a chunk has its own key;
/// groups of different nodes with equal keys are drawn in [`transparent_tie_order`], so the
/// order of the list, and with it the blended picture, does not depend on the order the GPU's
/// atomics happened to run in. Twin of the cull shader's `sort_key`.
pub fn transparent_sort_key(pos: ChunkPos, face: Face, eye: Vec3) -> u32 {
    let (low, high) = chunk_aabb(pos);
    let bucket = (sort_distance((0.5 * (low + high)).distance(eye)) as u32).min(SORT_DISTANCES - 1);
    (SORT_DISTANCES - 1 - bucket) * SORT_FACE_SLOTS + face_draw_slot(face, low, high, eye)
}

/// The order in which the transparent commands of two nodes with equal keys are drawn: by the
/// node's origin (x, then y, then z), then by level. Distinct nodes never share both, so with
/// the key this orders the transparent list totally. Twin of `drawn_before` in
/// `shaders/transparent_sort.wgsl`.
pub fn transparent_tie_order(a: crate::voxel::NodeKey, b: crate::voxel::NodeKey) -> std::cmp::Ordering {
    let (p, q) = (a.origin(), b.origin());
    (p.x, p.y, p.z, a.level).cmp(&(q.x, q.y, q.z, b.level))
}

/// Where a face direction of the box `[low, high]` is drawn among the box's six, 0 first. Faces
/// pointing away from the eye for the whole box come first, then those the eye's plane cuts, then
/// those facing it, each group in [`Face`] order. For a convex transparent shape this is back to
/// front: from outside, every face pointing away lies behind the faces pointing at the eye.
pub fn face_draw_slot(face: Face, low: Vec3, high: Vec3, eye: Vec3) -> u32 {
    let rank = |f: Face| {
        let a = f.axis();
        let (toward, away) = if f.is_positive() {
            (eye[a] > high[a], eye[a] < low[a])
        } else {
            (eye[a] < low[a], eye[a] > high[a])
        };
        if away {
            0
        } else if toward {
            2
        } else {
            1
        }
    };
    Face::ALL.iter().filter(|&&g| (rank(g), g) < (rank(face), face)).count() as u32
}

/// Whether a chunk's faces pointing along `face` can face a camera at `eye`. Twin of
/// `face_may_show` in `shaders/cull.wgsl`.
pub fn face_may_show(pos: ChunkPos, face: Face, eye: Vec3) -> bool {
    let (min, max) = chunk_aabb(pos);
    let axis = face.axis();
    if face.is_positive() { min[axis] < eye[axis] } else { max[axis] > eye[axis] }
}

/// Whether a chunk's box may be visible from `frustum`.
pub fn chunk_in_frustum(frustum: &Frustum, pos: ChunkPos) -> bool {
    let (min, max) = chunk_aabb(pos);
    frustum.intersects_box(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::Camera;

    fn camera() -> Camera {
        Camera::look_at(Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 0.0, -10.0))
    }

    fn frustum() -> Frustum {
        Frustum::from_view_proj(camera().view_proj(1.0))
    }

    #[test]
    fn planes_of_a_known_matrix() {
        // 90° vertical field of view, aspect 1: the side planes are at 45° and pass through the
        // eye; the near plane faces forward (-Z) at the near distance; the far plane is infinite.
        let camera = Camera { fov_y_degrees: 90.0, near: 0.5, ..camera() };
        let f = Frustum::from_view_proj(camera.view_proj(1.0));
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let close = |a: Vec4, b: Vec4| (a - b).abs().max_element() < 1e-5;
        assert!(close(f.planes[0], Vec4::new(s, 0.0, -s, 0.0)), "left {}", f.planes[0]);
        assert!(close(f.planes[1], Vec4::new(-s, 0.0, -s, 0.0)), "right {}", f.planes[1]);
        assert!(close(f.planes[2], Vec4::new(0.0, s, -s, 0.0)), "bottom {}", f.planes[2]);
        assert!(close(f.planes[3], Vec4::new(0.0, -s, -s, 0.0)), "top {}", f.planes[3]);
        assert_eq!(f.planes[4], Vec4::new(0.0, 0.0, 0.0, 1.0), "far: infinite, always inside");
        assert!(close(f.planes[5], Vec4::new(0.0, 0.0, -1.0, -0.5)), "near {}", f.planes[5]);
    }

    #[test]
    fn a_point_just_ahead_is_inside_and_one_behind_is_outside() {
        let f = frustum();
        let near = camera().near;
        assert!(f.contains_point(Vec3::new(0.0, 0.0, -near - 0.01)));
        assert!(f.contains_point(Vec3::new(0.0, 0.0, -1.0e6)), "no far limit");
        assert!(!f.contains_point(Vec3::new(0.0, 0.0, 0.5)), "behind the eye");
        assert!(!f.contains_point(Vec3::new(0.0, 0.0, -near * 0.5)), "closer than the near plane");
        assert!((f.distance(5, Vec3::new(0.0, 0.0, -near - 2.0)) - 2.0).abs() < 1e-4, "distances in blocks");
    }

    #[test]
    fn boxes_inside_outside_and_straddling() {
        let f = frustum();
        let unit = Vec3::splat(1.0);
        assert!(f.intersects_box(Vec3::new(-0.5, -0.5, -20.0), Vec3::new(0.5, 0.5, -19.0)), "inside");
        assert!(!f.intersects_box(Vec3::new(-0.5, -0.5, 5.0), Vec3::new(0.5, 0.5, 6.0)), "behind");
        assert!(!f.intersects_box(Vec3::new(100.0, -0.5, -20.0), Vec3::new(101.0, 0.5, -19.0)), "far right");
        // Straddling one plane: half in view.
        let straddle = Vec3::new(-5.0, -0.5, -5.0);
        assert!(
            f.intersects_box(straddle, straddle + Vec3::new(20.0, 1.0, 1.0)),
            "straddles the right plane"
        );
        // Around the eye: straddles the near plane.
        assert!(f.intersects_box(-unit, unit), "contains the eye");
    }

    #[test]
    fn a_box_outside_near_a_corner_may_pass_but_never_a_visible_one_fails() {
        // Found by a search over random boxes: outside this turned frustum, beyond its top-right
        // edge, yet straddling both the right and the top plane, so the positive-vertex test
        // passes it. No point of a fine grid over the box is in view.
        let f =
            Frustum::from_view_proj(Camera::look_at(Vec3::ZERO, Vec3::new(10.0, 3.0, -10.0)).view_proj(1.0));
        let (min, max) = (Vec3::new(20.0, 20.0, -2.0), Vec3::new(25.0, 21.0, 2.0));
        let n = 40;
        let any_point_in_view = (0..=n * n * n).any(|i| {
            let t = Vec3::new(
                (i % (n + 1)) as f32,
                (i / (n + 1) % (n + 1)) as f32,
                (i / ((n + 1) * (n + 1))) as f32,
            );
            f.contains_point(min + (max - min) * t / n as f32)
        });
        assert!(!any_point_in_view, "the box is outside");
        assert!(f.intersects_box(min, max), "but the conservative test lets it pass");
        // A sweep of small boxes: any box with a point in view is kept.
        let f = frustum();
        for i in 0..400 {
            let p = Vec3::new((i % 20) as f32 * 3.0 - 30.0, (i / 20) as f32 * 3.0 - 30.0, -25.0);
            if f.contains_point(p) {
                assert!(f.intersects_box(p - 0.1, p + 0.1), "a visible box at {p} was culled");
            }
        }
    }

    #[test]
    fn faces_pointing_away_are_culled_per_axis() {
        let pos = ChunkPos::new(1, 0, 0); // x in [32, 64]
        let eye = Vec3::new(10.0, 16.0, 16.0);
        assert!(!face_may_show(pos, Face::PosX, eye), "the whole chunk is at greater x");
        assert!(face_may_show(pos, Face::NegX, eye));
        // The eye inside the chunk's slab: both directions may show.
        let inside = Vec3::new(40.0, 16.0, 16.0);
        assert!(face_may_show(pos, Face::PosX, inside) && face_may_show(pos, Face::NegX, inside));
        assert!(face_may_show(pos, Face::PosY, eye) && face_may_show(pos, Face::NegY, eye));
    }
}
