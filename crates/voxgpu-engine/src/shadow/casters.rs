//! The CPU twin of `casters` in `shaders/shadow_cull.wgsl`: which opaque face streams each
//! cascade draws, and the commands that draw them. It reads the same records the pass reads (the
//! pool's [`ChunkMeta`] and [`FaceMesh`] by slot, the pass's [`ShadowCull`] uniform and the
//! depth pyramid it tested against) and applies the same tests in the same order, in f32, so the
//! lists are equal as multisets of commands, less the few streams below.
//!
//! The plane and sphere tests are sums of products, which a GPU may fuse or reorder: a stream
//! whose verdict lies within a small distance of flipping (a plane through its box's support
//! point, or a piece of its sweep touching a receiver sphere) is reported apart, by
//! [`Verdict::margin`], so a comparison can leave out the few that legitimately differ. So is
//! a piece whose pyramid test [`voxgpu_core::occlusion::BoxTest::marginal`] calls too close.

use glam::{Mat4, Vec3, Vec4};
use voxgpu_core::mesh::Face;
use voxgpu_core::occlusion::DepthPyramid;

use super::{CASCADES, SWEEP_PIECES, ShadowCull};
use crate::layouts::{ChunkMeta, FaceMesh};
use crate::quad_pool::{PAGE_QUADS, PAGE_QUADS_LOG2};

/// One command of a caster list, as the pass writes it into its `DrawArgs`: six indices per
/// quad of one page (`index_count`) from the page's first quad (`base_vertex` = 4 × quad).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CasterCommand {
    /// Six per quad of the page.
    pub index_count: u32,
    /// Four per quad before the page's first.
    pub base_vertex: i32,
}

/// One cascade's list: its commands in no particular order (the pass appends them atomically)
/// and the quads they draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CasterList {
    /// One command per page of each caster stream.
    pub commands: Vec<CasterCommand>,
    /// The quads of every caster stream.
    pub quads: u32,
}

/// The test of the pass that rejects a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// Not shown, no opaque quads, or its face turned from the sun: decided exactly.
    Exact,
    /// Wholly behind a plane of the cascade's box.
    CascadeBox,
    /// Every piece of its sweep away from the sun that meets the cascade's (grown) sphere of
    /// receivers lies wholly behind a plane of the camera's (grown) frustum.
    ViewFrustum,
    /// No piece of its sweep meets the cascade's (grown) sphere of receivers.
    Receivers,
    /// Every piece of its sweep that meets the sphere and the frustum is hidden in the depth
    /// pyramid: its shadow falls only where the eye cannot see.
    Occluded,
}

/// One stream's verdict for one cascade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The cascade draws the stream.
    pub casts: bool,
    /// How far, in blocks, the verdict lies from flipping: for a caster the smallest distance of
    /// any test from its threshold; for a stream left out the distance of the test that left it
    /// out (the tests before it may round either way without changing the verdict);
    /// `f32::INFINITY` where an exact test decided.
    pub margin: f32,
    /// The test that left the stream out (`None` for a caster).
    pub rejected_by: Option<Rejection>,
}

/// Each test's result: `Ok` with the smallest distance from its threshold when it passes, `Err`
/// with the failing distance when it does not (distances in blocks).
type Test = Result<f32, f32>;

/// [`Test`] that names, when it fails, the test that failed.
type Test2 = Result<f32, (f32, Rejection)>;

/// A conjunction of signed distances (positive inside), evaluated in order as the shader does:
/// it fails at the first negative one.
fn all_inside(distances: impl Iterator<Item = f32>) -> Test {
    let mut margin = f32::INFINITY;
    for distance in distances {
        if distance < 0.0 {
            return Err(-distance);
        }
        margin = margin.min(distance);
    }
    Ok(margin)
}

impl ShadowCull {
    fn plane(&self, cascade: usize, i: usize) -> Vec4 {
        Vec4::from_array(self.planes[6 * cascade + i])
    }

    /// Twin of `box_in_cascade`: not wholly behind one of the cascade's planes (positive vertex).
    fn in_cascade(&self, cascade: usize, low: Vec3, high: Vec3) -> Test {
        all_inside((0..6).map(|i| {
            let plane = self.plane(cascade, i);
            let n = plane.truncate();
            let positive = Vec3::select(n.cmpge(Vec3::ZERO), high, low);
            n.dot(positive) + plane.w
        }))
    }

    /// Twin of `sweep_length`: how far a box whose top is at `top` is swept away from the sun,
    /// to where its shadow leaves the bottom of `sphere`, at most `sun.w`.
    fn sweep_length(&self, sphere: Vec4, top: f32) -> f32 {
        let sun = Vec4::from_array(self.sun);
        if self.inv_sun_y <= 0.0 {
            return sun.w;
        }
        ((top - (sphere.y - sphere.w)) * self.inv_sun_y).clamp(0.0, sun.w)
    }

    /// Twin of `piece_seen` for the box `[low, high]` moved along from `a` to `b`: the piece's
    /// bounding box meets the cascade's (grown) sphere of receivers, the piece lies wholly behind
    /// no plane of the camera's (grown) frustum and, where the uniform names a pyramid
    /// (`pyramid`, as the pass read it), its bounding box is not hidden in it. Every test is
    /// evaluated (the shader stops at the first that fails): `Ok` with the smallest distance of
    /// any from its threshold, or `Err` with the largest distance of those that fail (all of
    /// them would have to flip for the piece to count); a pyramid verdict is certain (infinitely
    /// far from flipping) unless marginal (0). Also whether the sphere and frustum alone pass.
    fn piece_seen(
        &self,
        sphere: Vec4,
        (low, high): (Vec3, Vec3),
        (a, b): (Vec3, Vec3),
        pyramid: Option<&DepthPyramid>,
    ) -> (Test, bool) {
        let (piece_low, piece_high) = (low + a.min(b), high + a.max(b));
        let centre = sphere.truncate();
        let gap = centre.clamp(piece_low, piece_high) - centre;
        let sphere_distance = if gap.dot(gap) <= sphere.w * sphere.w {
            (sphere.w - gap.dot(gap).sqrt()).abs()
        } else {
            -(sphere.w - gap.dot(gap).sqrt()).abs()
        };
        let planes = self.view.map(|plane| {
            let plane = Vec4::from_array(plane);
            let n = plane.truncate();
            n.dot(Vec3::select(n.cmpge(Vec3::ZERO), high, low)) + n.dot(a).max(n.dot(b)) + plane.w
        });
        let in_view = sphere_distance >= 0.0 && planes.iter().all(|&d| d >= 0.0);
        // The pyramid's verdict as a distance: certain either way unless marginal.
        let hidden = (self.pyramid.levels > 0).then(|| {
            let pyramid = pyramid.expect("the uniform names a pyramid: pass the one the pass read");
            let grow = Vec3::splat(self.margin);
            let view_proj = Mat4::from_cols_array_2d(&self.pyramid.view_proj);
            let test = pyramid.test_box(view_proj, piece_low - grow, piece_high + grow);
            match (test.marginal, test.occluded) {
                (true, _) => 0.0,
                (false, true) => f32::NEG_INFINITY,
                (false, false) => f32::INFINITY,
            }
        });
        let (mut pass, mut fail) = (f32::INFINITY, None::<f32>);
        for d in std::iter::once(sphere_distance).chain(planes).chain(hidden) {
            if d < 0.0 {
                fail = Some(fail.unwrap_or(0.0).max(-d));
            } else {
                pass = pass.min(d);
            }
        }
        (fail.map_or(Ok(pass), Err), in_view)
    }

    /// Twin of `shadow_seen`: whether one piece of the box's sweep is seen. For a stream seen,
    /// the distance is the largest margin of a piece that counts (all of them would have to
    /// flip); for one left out, the smallest of the pieces' (any one flipping counts), with the
    /// test that left it out.
    fn shadow_seen(&self, cascade: usize, low: Vec3, high: Vec3, pyramid: Option<&DepthPyramid>) -> Test2 {
        let sphere = Vec4::from_array(self.receivers[cascade]);
        let sun = Vec4::from_array(self.sun).truncate();
        let step = -sun * (self.sweep_length(sphere, high.y) / SWEEP_PIECES as f32);
        let (mut seen, mut unseen) = (None::<f32>, f32::INFINITY);
        let (mut met_sphere, mut in_view) = (false, false);
        for k in 0..SWEEP_PIECES {
            let (a, b) = (step * k as f32, step * (k + 1) as f32);
            let centre = sphere.truncate();
            let gap = centre.clamp(low + a.min(b), high + a.max(b)) - centre;
            met_sphere |= gap.dot(gap) <= sphere.w * sphere.w;
            let (test, piece_in_view) = self.piece_seen(sphere, (low, high), (a, b), pyramid);
            in_view |= piece_in_view;
            match test {
                Ok(m) => seen = Some(seen.unwrap_or(0.0).max(m)),
                Err(m) => unseen = unseen.min(m),
            }
        }
        let by = match (met_sphere, in_view) {
            (false, _) => Rejection::Receivers,
            (true, false) => Rejection::ViewFrustum,
            (true, true) => Rejection::Occluded,
        };
        seen.ok_or((unseen, by))
    }

    /// Whether `cascade` draws the opaque stream of face `face` of the node `record`, whose
    /// quads cover `mesh.bounds`: the pass's tests, in its order. `pyramid` is the depth pyramid
    /// the pass read, needed where [`ShadowCull::pyramid`] has levels.
    pub fn verdict(
        &self,
        cascade: usize,
        record: &ChunkMeta,
        face: Face,
        mesh: &FaceMesh,
        pyramid: Option<&DepthPyramid>,
    ) -> Verdict {
        let out = |margin, by| Verdict { casts: false, margin, rejected_by: Some(by) };
        let sun = Vec4::from_array(self.sun);
        if cascade as u32 >= self.cascades
            || record.shown == 0
            || mesh.opaque == 0
            || face.normal().as_vec3().dot(sun.truncate()) <= 0.0
        {
            return out(f32::INFINITY, Rejection::Exact);
        }
        let Some([low, high]) = mesh.bounds() else { return out(f32::INFINITY, Rejection::Exact) };
        // `stream_box` in common.wgsl: whole cells of the meshed level from the node's corner.
        let cell = (1u32 << record.lod) as f32;
        let origin =
            (glam::IVec3::from_array(record.origin) - glam::IVec3::from_array(self.anchor)).as_vec3();
        let (low, high) = (origin + low.as_vec3() * cell, origin + (high + 1).as_vec3() * cell);
        let in_box = match self.in_cascade(cascade, low, high) {
            Ok(m) => m,
            Err(m) => return out(m, Rejection::CascadeBox),
        };
        let margin = match self.shadow_seen(cascade, low, high, pyramid) {
            Ok(m) => in_box.min(m),
            Err((m, by)) => return out(m, by),
        };
        Verdict { casts: true, margin, rejected_by: None }
    }

    /// Twin of the whole pass over the pool's `records` and `faces` (`slot × 6 + face`) and the
    /// depth `pyramid` it read: each cascade's list of the streams it draws whose verdict lies
    /// further than `epsilon` blocks from flipping, and apart, the commands of those within it
    /// (drawn or not).
    pub fn casters(
        &self,
        records: &[ChunkMeta],
        faces: &[FaceMesh],
        pyramid: Option<&DepthPyramid>,
        epsilon: f32,
    ) -> ([CasterList; CASCADES], [Vec<CasterCommand>; CASCADES]) {
        let mut lists: [CasterList; CASCADES] = Default::default();
        let mut uncertain: [Vec<CasterCommand>; CASCADES] = Default::default();
        for (slot, record) in records.iter().enumerate() {
            for face in Face::ALL {
                let mesh = &faces[slot * 6 + face as usize];
                for cascade in 0..CASCADES {
                    let verdict = self.verdict(cascade, record, face, mesh, pyramid);
                    if verdict.margin <= epsilon {
                        uncertain[cascade].extend(commands(mesh));
                    } else if verdict.casts {
                        lists[cascade].commands.extend(commands(mesh));
                        lists[cascade].quads += mesh.opaque;
                    }
                }
            }
        }
        (lists, uncertain)
    }
}

/// The commands that draw a stream's opaque quads, a page each.
pub fn commands(mesh: &FaceMesh) -> impl Iterator<Item = CasterCommand> + '_ {
    let pages = mesh.opaque.div_ceil(PAGE_QUADS);
    (0..pages).map(move |k| CasterCommand {
        index_count: (mesh.opaque - k * PAGE_QUADS).min(PAGE_QUADS) * 6,
        base_vertex: ((mesh.pages[k as usize] << PAGE_QUADS_LOG2) * 4) as i32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shadow::{CASCADE_RADII, cascades};
    use voxgpu_core::camera::Camera;
    use voxgpu_core::cull::Frustum;

    /// Xorshift: boxes spread around the eye, the same every run.
    struct Rng(u64);

    impl Rng {
        /// A value in 0..1.
        fn unit(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// The pieces bound the sweep: a box with a point of its exact sweep (sampled at its corners,
    /// edge middles and centre, every block along the sun's ray) inside a cascade's sphere and
    /// the camera's frustum (neither grown) is seen by that cascade. And they are tighter than
    /// one bounding box of the whole sweep, which is what they are for.
    #[test]
    fn a_caster_whose_shadow_the_eye_sees_is_never_left_out() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let views = [
            (7.5, Vec3::new(10.3, 140.2, -20.7), Vec3::new(300.0, 90.0, 100.0)),
            (10.0, Vec3::new(-5000.6, 95.5, 3000.2), Vec3::new(-5400.0, 60.0, 2900.0)),
            (12.0, Vec3::new(800.1, 230.0, 800.9), Vec3::new(801.0, 0.0, 830.0)),
            (16.5, Vec3::new(-70.0, 64.7, -70.0), Vec3::new(100.0, 70.0, -300.0)),
        ];
        let (mut seen, mut left_out, mut tighter, mut sampled_seen) = (0, 0, 0, 0);
        for (hours, eye, target) in views {
            let sun = crate::sun(hours).truncate();
            let camera = Camera::look_at(eye, target);
            let anchor = eye.floor().as_ivec3();
            let view_proj = camera.view_proj_from(16.0 / 9.0, anchor);
            let eye = camera.eye_from(anchor);
            let cull =
                ShadowCull::new(&cascades(sun, camera.eye.as_dvec3(), anchor), sun, view_proj, eye, anchor);
            let frustum = Frustum::from_view_proj(view_proj);
            let full = -sun * cull.sun[3];
            // Around a point ahead of the eye, so that many shadows fall in view.
            let ahead = eye + (target - camera.eye).normalize() * 120.0;
            for _ in 0..200 {
                let size =
                    Vec3::new(1.0 + 31.0 * rng.unit(), 1.0 + 31.0 * rng.unit(), 1.0 + 31.0 * rng.unit());
                let low = Vec3::new(
                    ahead.x + 800.0 * rng.unit() - 400.0,
                    256.0 * rng.unit() - anchor.y as f32,
                    ahead.z + 800.0 * rng.unit() - 400.0,
                );
                let high = low + size;
                for (c, radius) in CASCADE_RADII.into_iter().enumerate() {
                    let sampled = (0..27).any(|i| {
                        let corner = Vec3::new((i % 3) as f32, (i / 3 % 3) as f32, (i / 9) as f32) * 0.5;
                        let b = low + size * corner;
                        (0..=cull.sun[3] as i32).any(|t| {
                            let q = b - sun * t as f32;
                            q.distance(eye) <= radius && frustum.contains_point(q)
                        })
                    });
                    let test = cull.shadow_seen(c, low, high, None);
                    sampled_seen += usize::from(sampled);
                    assert!(
                        !sampled || test.is_ok(),
                        "{hours} h, cascade {c}: the box {low}..{high} casts a shadow the eye sees but is left out"
                    );
                    if test.is_ok() {
                        seen += 1;
                        continue;
                    }
                    left_out += 1;
                    // One bounding box of the whole sweep, against the grown sphere and frustum.
                    let sphere = Vec4::from_array(cull.receivers[c]);
                    let (swept_low, swept_high) = (low.min(low + full), high.max(high + full));
                    let gap = sphere.truncate().clamp(swept_low, swept_high) - sphere.truncate();
                    let in_view = cull.view.iter().all(|&plane| {
                        let (n, d) = (Vec4::from_array(plane).truncate(), plane[3]);
                        n.dot(Vec3::select(n.cmpge(Vec3::ZERO), swept_high, swept_low)) + d >= 0.0
                    });
                    tighter += usize::from(gap.length() <= sphere.w && in_view);
                }
            }
        }
        println!(
            "{seen} seen ({sampled_seen} with a sampled point in view), {left_out} left out, {tighter} of them kept by one box around the sweep"
        );
        assert!(seen > 100 && left_out > 100, "{seen} seen, {left_out} left out: the boxes test little");
        assert!(
            sampled_seen > 50,
            "only {sampled_seen} boxes with a sampled shadow point in view: the check is weak"
        );
        assert!(tighter > 50, "only {tighter} boxes left out that one box around the sweep keeps");
    }
}
