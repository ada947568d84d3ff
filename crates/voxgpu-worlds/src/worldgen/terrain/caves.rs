//! Caves: 3D noise sampled on a coarse lattice and interpolated, so carving costs a few noise
//! calls per chunk instead of one per block.

use glam::IVec3;

use super::{Noise, SEA_LEVEL};
use voxgpu_core::voxel::CHUNK_SIZE;

/// The 3D cave noise is sampled every `CAVE_CELL` blocks and trilinearly interpolated in
/// between: 64 times fewer noise calls than sampling every block, which is what makes a
/// view distance of 4 take milliseconds instead of seconds on two cores.
pub(super) const CAVE_CELL: i32 = 4;
/// Cave noise above this carves air. Tuned so caves hollow out about a tenth of the underground.
const CAVE_THRESHOLD: f64 = 0.3;

/// Whether cave noise `value` carves the solid block at `y` in a column whose ground is at
/// `height`. Never the bottom layer, and never the top five blocks under water or beach, so a
/// cave cannot open a hole under the sea.
pub(super) fn carves(value: f64, y: i32, height: i32) -> bool {
    let shore = height <= SEA_LEVEL + 3 && y > height - 5;
    y > 0 && !shore && value > CAVE_THRESHOLD
}

/// Cave noise at one chunk's lattice points: 9x9x9 samples covering the chunk and its far
/// faces, the only noise calls a chunk makes for caves.
pub(super) struct CaveLattice {
    samples: [f64; LATTICE * LATTICE * LATTICE],
}

const LATTICE: usize = CHUNK_SIZE / CAVE_CELL as usize + 1;

impl CaveLattice {
    pub(super) fn new(noise: &Noise, origin: IVec3) -> Self {
        let base = origin.div_euclid(IVec3::splat(CAVE_CELL));
        let mut samples = [0.0; LATTICE * LATTICE * LATTICE];
        for (i, sample) in samples.iter_mut().enumerate() {
            let l = IVec3::new(
                (i % LATTICE) as i32,
                (i / LATTICE % LATTICE) as i32,
                (i / (LATTICE * LATTICE)) as i32,
            );
            *sample = noise.cave_sample(base + l);
        }
        Self { samples }
    }

    /// The cave noise down the chunk-local column `(x, z)`, interpolated in x and z once per
    /// lattice level so each voxel costs one more lerp.
    pub(super) fn column(&self, x: i32, z: i32) -> CaveColumn {
        let (cx, cz) = ((x / CAVE_CELL) as usize, (z / CAVE_CELL) as usize);
        let (tx, tz) = (fraction(x), fraction(z));
        let at = |x: usize, y: usize, z: usize| self.samples[x + LATTICE * (y + LATTICE * z)];
        let levels = std::array::from_fn(|y| {
            let corners = [at(cx, y, cz), at(cx + 1, y, cz), at(cx, y, cz + 1), at(cx + 1, y, cz + 1)];
            bilinear(corners, tx, tz)
        });
        CaveColumn { levels }
    }
}

/// Cave noise at every lattice level of one voxel column of a chunk.
pub(super) struct CaveColumn {
    levels: [f64; LATTICE],
}

impl CaveColumn {
    /// Interpolated cave noise at chunk-local height `y`.
    pub(super) fn value(&self, y: i32) -> f64 {
        let level = (y / CAVE_CELL) as usize;
        lerp(self.levels[level], self.levels[level + 1], fraction(y))
    }
}

/// Trilinear interpolation of the lattice `sample(cell)` at world block `p`, without a chunk's
/// cache: for the odd block outside the chunk being built (a neighbour's tree root).
///
/// It performs the same operations in the same order as [`CaveLattice::column`] followed by
/// [`CaveColumn::value`], on the same lattice values, so both agree bit for bit on whether a
/// block is carved. A test pins that.
pub(super) fn cave_value(sample: impl Fn(IVec3) -> f64, p: IVec3) -> f64 {
    let cell = p.div_euclid(IVec3::splat(CAVE_CELL));
    let level = |dy| {
        let corner = |dx, dz| sample(cell + IVec3::new(dx, dy, dz));
        let corners = [corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1)];
        bilinear(corners, fraction(p.x), fraction(p.z))
    };
    lerp(level(0), level(1), fraction(p.y))
}

/// Position of `i` inside its lattice cell, in `[0, 1)`.
fn fraction(i: i32) -> f64 {
    f64::from(i.rem_euclid(CAVE_CELL)) / f64::from(CAVE_CELL)
}

/// Interpolates corners `[(0,0), (1,0), (0,1), (1,1)]` along x, then along z.
fn bilinear([c00, c10, c01, c11]: [f64; 4], tx: f64, tz: f64) -> f64 {
    lerp(lerp(c00, c10, tx), lerp(c01, c11, tx), tz)
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}
