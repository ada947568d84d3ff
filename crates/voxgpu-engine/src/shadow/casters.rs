//! The CPU twin of `casters` in `shaders/shadow_cull.wgsl`: which opaque face streams each
//! cascade draws, and the commands that draw them. It reads the same records the pass reads (the
//! pool's [`ChunkMeta`] and [`FaceMesh`] by slot, and the pass's [`ShadowCull`] uniform) and
//! applies the same tests in the same order, in f32, so the lists are equal as multisets of
//! commands, less the few streams below.
//!
//! The plane and sphere tests are sums of products, which a GPU may fuse or reorder: a stream
//! whose verdict lies within a small distance of flipping (a plane through its box's support
//! point, or its swept box touching a receiver sphere) is reported apart, by
//! [`Verdict::margin`], so a comparison can leave out the few that legitimately differ.

use glam::{Vec3, Vec4};
use voxgpu_core::mesh::Face;

use super::{CASCADES, ShadowCull};
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
    /// Its box swept away from the sun wholly behind a plane of the camera's (grown) frustum.
    ViewFrustum,
    /// Its swept box's bounds miss the cascade's (grown) sphere of receivers.
    Receivers,
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

    /// Twin of `shadow_seen`'s first half: the box swept away from the sun (by `sweep`) is not
    /// wholly behind one plane of the camera's (grown) frustum.
    fn in_view(&self, sweep: Vec3, low: Vec3, high: Vec3) -> Test {
        all_inside(self.view.map(Vec4::from_array).into_iter().map(|plane| {
            let n = plane.truncate();
            let positive = Vec3::select(n.cmpge(Vec3::ZERO), high, low);
            n.dot(positive) + n.dot(sweep).max(0.0) + plane.w
        }))
    }

    /// Twin of `shadow_seen`'s second half: the swept box's bounds meet the cascade's (grown)
    /// sphere of receivers; the distance is the gap's length against the radius.
    fn meets_receivers(&self, cascade: usize, sweep: Vec3, low: Vec3, high: Vec3) -> Test {
        let sphere = Vec4::from_array(self.receivers[cascade]);
        let centre = sphere.truncate();
        let nearest = centre.clamp(low.min(low + sweep), high.max(high + sweep));
        let gap = nearest - centre;
        let distance = sphere.w - gap.dot(gap).sqrt();
        if gap.dot(gap) <= sphere.w * sphere.w { Ok(distance.abs()) } else { Err(distance.abs()) }
    }

    /// Whether `cascade` draws the opaque stream of face `face` of the node `record`, whose
    /// quads cover `mesh.bounds`: the pass's tests, in its order.
    pub fn verdict(&self, cascade: usize, record: &ChunkMeta, face: Face, mesh: &FaceMesh) -> Verdict {
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
        let sweep = -sun.truncate() * sun.w;
        let tests = [
            (Rejection::CascadeBox, self.in_cascade(cascade, low, high)),
            (Rejection::ViewFrustum, self.in_view(sweep, low, high)),
            (Rejection::Receivers, self.meets_receivers(cascade, sweep, low, high)),
        ];
        let mut margin = f32::INFINITY;
        for (by, test) in tests {
            match test {
                Ok(m) => margin = margin.min(m),
                Err(m) => return out(m, by),
            }
        }
        Verdict { casts: true, margin, rejected_by: None }
    }

    /// Twin of the whole pass over the pool's `records` and `faces` (`slot × 6 + face`): each
    /// cascade's list of the streams it draws whose verdict lies further than `epsilon` blocks
    /// from flipping, and apart, the commands of those within it (drawn or not).
    pub fn casters(
        &self,
        records: &[ChunkMeta],
        faces: &[FaceMesh],
        epsilon: f32,
    ) -> ([CasterList; CASCADES], [Vec<CasterCommand>; CASCADES]) {
        let mut lists: [CasterList; CASCADES] = Default::default();
        let mut uncertain: [Vec<CasterCommand>; CASCADES] = Default::default();
        for (slot, record) in records.iter().enumerate() {
            for face in Face::ALL {
                let mesh = &faces[slot * 6 + face as usize];
                for cascade in 0..CASCADES {
                    let verdict = self.verdict(cascade, record, face, mesh);
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
