//! The CPU twin of `casters` in `shaders/shadow_cull.wgsl`: which opaque face streams each
//! cascade draws, and the commands that draw them. It reads the same records the pass reads (the
//! pool's [`ChunkMeta`] and [`FaceMesh`] by slot, and the pass's [`ShadowCull`] uniform) and
//! applies the same tests in the same order, in f32, so the lists are equal as sets of commands.
//!
//! The plane and sphere tests are sums of products, which a GPU may fuse or reorder: a stream
//! whose verdict lies within a small distance of flipping (a plane through its box's support
//! point, or its swept box touching a receiver sphere) is reported apart, as [`Verdict::margin`],
//! so a comparison can leave out the few that legitimately differ.

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

/// One stream's verdict for one cascade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The cascade draws the stream.
    pub casts: bool,
    /// How far, in blocks, the nearest test that decided it lies from flipping (`f32::INFINITY`
    /// where only exact tests decided: no quads, not shown, facing away from the sun).
    pub margin: f32,
}

impl ShadowCull {
    fn plane(&self, cascade: usize, i: usize) -> Vec4 {
        Vec4::from_array(self.planes[6 * cascade + i])
    }

    /// Twin of `box_in_cascade`: not wholly behind one of the cascade's planes (positive vertex),
    /// and the smallest distance of the positive vertex from a plane.
    fn in_cascade(&self, cascade: usize, low: Vec3, high: Vec3) -> (bool, f32) {
        let mut margin = f32::INFINITY;
        for i in 0..6 {
            let plane = self.plane(cascade, i);
            let n = plane.truncate();
            let positive = Vec3::select(n.cmpge(Vec3::ZERO), high, low);
            let distance = n.dot(positive) + plane.w;
            margin = margin.min(distance.abs());
            if distance < 0.0 {
                return (false, margin);
            }
        }
        (true, margin)
    }

    /// Twin of `shadow_seen`: the box swept away from the sun meets the camera's (grown)
    /// frustum, and its bounding box the cascade's (grown) sphere of receivers.
    fn shadow_seen(&self, cascade: usize, low: Vec3, high: Vec3) -> (bool, f32) {
        let sun = Vec4::from_array(self.sun);
        let sweep = -sun.truncate() * sun.w;
        let mut margin = f32::INFINITY;
        for plane in self.view.map(Vec4::from_array) {
            let n = plane.truncate();
            let positive = Vec3::select(n.cmpge(Vec3::ZERO), high, low);
            let support = n.dot(positive) + n.dot(sweep).max(0.0);
            let distance = support + plane.w;
            margin = margin.min(distance.abs());
            if distance < 0.0 {
                return (false, margin);
            }
        }
        let sphere = Vec4::from_array(self.receivers[cascade]);
        let centre = sphere.truncate();
        let nearest = centre.clamp(low.min(low + sweep), high.max(high + sweep));
        let gap = nearest - centre;
        // The gap's length against the radius, as a distance in blocks.
        let length = gap.dot(gap).sqrt();
        (gap.dot(gap) <= sphere.w * sphere.w, margin.min((length - sphere.w).abs()))
    }

    /// Whether `cascade` draws the opaque stream of face `face` of the node `record`, whose
    /// quads cover `mesh.bounds`: the pass's tests, in its order.
    pub fn verdict(&self, cascade: usize, record: &ChunkMeta, face: Face, mesh: &FaceMesh) -> Verdict {
        let exact = |casts| Verdict { casts, margin: f32::INFINITY };
        let sun = Vec4::from_array(self.sun).truncate();
        if cascade as u32 >= self.cascades
            || record.shown == 0
            || mesh.opaque == 0
            || face.normal().as_vec3().dot(sun) <= 0.0
        {
            return exact(false);
        }
        let Some([low, high]) = mesh.bounds() else { return exact(false) };
        // `stream_box` in common.wgsl: whole cells of the meshed level from the node's corner.
        let cell = (1u32 << record.lod) as f32;
        let origin =
            (glam::IVec3::from_array(record.origin) - glam::IVec3::from_array(self.anchor)).as_vec3();
        let (low, high) = (origin + low.as_vec3() * cell, origin + (high + 1).as_vec3() * cell);
        let (inside, a) = self.in_cascade(cascade, low, high);
        if !inside {
            return Verdict { casts: false, margin: a };
        }
        let (seen, b) = self.shadow_seen(cascade, low, high);
        Verdict { casts: seen, margin: a.min(b) }
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
