//! Picking: which block a ray hits, through which face, and the empty cell in front of it.
//!
//! A voxel walk (Amanatides and Woo) over unit cells with the `floor()` convention: block `b`
//! occupies `[b, b + 1)` on each axis, as everywhere else (`docs/ARCHITECTURE.md`, conventions). The cell holding the
//! origin is never a hit, so a camera standing in a leaf still picks what it looks at.

use glam::{IVec3, Vec3};

use super::BlockId;
use crate::mesh::Face;

/// A block the ray hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The hit block's world coordinates.
    pub block: IVec3,
    /// The hit block's id; never air.
    pub id: BlockId,
    /// The face the ray entered through (its normal points back towards the ray).
    pub face: Face,
    /// The cell in front of that face, where a placed block goes.
    pub empty: IVec3,
    /// Distance along the ray to the entry point, in blocks.
    pub distance: f32,
}

/// Largest `|coordinate|` of a ray origin [`raycast`] walks from, in blocks: far beyond any world
/// (the CLI caps coordinates at 10⁷), and low enough that no cell the walk reaches overflows an
/// `i32` (`2^30 + 3·(2^24 + 2) < 2^31`).
pub const MAX_RAY_COORDINATE: f32 = (1u32 << 30) as f32;
/// Longest ray [`raycast`] walks, in blocks: where an `f32` distance still resolves one block.
pub const MAX_RAY_DISTANCE: f32 = (1u32 << 24) as f32;

/// Walks the cells along `dir` from `origin` up to `max_distance` blocks and returns the first
/// whose block is not air. `block_at` gives the block of a cell (air outside the world).
///
/// A ray it cannot walk is no hit, and `block_at` is never called for it: a non-finite origin or
/// one beyond [`MAX_RAY_COORDINATE`], a direction that is zero, not finite or too small to
/// normalise, a negative, NaN or infinite `max_distance`, or one beyond [`MAX_RAY_DISTANCE`].
/// Otherwise the walk visits at most `3·(max_distance + 2)` cells (a ray of length `d` crosses at
/// most `d + 1` cell edges on each axis), so it always ends.
pub fn raycast(
    origin: Vec3,
    dir: Vec3,
    max_distance: f32,
    block_at: impl Fn(IVec3) -> BlockId,
) -> Option<RayHit> {
    // `contains` is false for NaN, so these also refuse NaN.
    let origin_ok = origin.is_finite() && origin.abs().max_element() <= MAX_RAY_COORDINATE;
    if !origin_ok || !(0.0..=MAX_RAY_DISTANCE).contains(&max_distance) || !dir.is_finite() {
        return None;
    }
    let dir = dir.try_normalize()?;
    let mut cell = origin.floor().as_ivec3();
    let step = IVec3::new(dir.x.signum() as i32, dir.y.signum() as i32, dir.z.signum() as i32);
    // Distance along the ray to the next cell edge on each axis, and between edges; an axis the
    // ray does not move along, or moves along too little for `1 / dir` to be finite, is never
    // crossed (so no `0 × ∞` NaN enters the comparisons below).
    let mut t_max = Vec3::INFINITY;
    let mut t_delta = Vec3::INFINITY;
    for axis in 0..3 {
        let delta = 1.0 / dir[axis].abs();
        if dir[axis] != 0.0 && delta.is_finite() {
            let o = origin[axis];
            let edge = if dir[axis] > 0.0 { (cell[axis] + 1) as f32 - o } else { o - cell[axis] as f32 };
            t_delta[axis] = delta;
            t_max[axis] = edge * delta;
        }
    }
    // The distance test ends the walk first; this bound holds whatever the rounding does.
    let max_steps = 3 * (max_distance as u32 + 2);
    for _ in 0..max_steps {
        let axis = if t_max.x <= t_max.y && t_max.x <= t_max.z {
            0
        } else if t_max.y <= t_max.z {
            1
        } else {
            2
        };
        let distance = t_max[axis];
        if !(distance <= max_distance) {
            return None;
        }
        let previous = cell;
        cell[axis] += step[axis];
        t_max[axis] += t_delta[axis];
        let id = block_at(cell);
        if !id.is_air() {
            // Entered moving along +axis: through the block's negative face, and vice versa.
            let face = Face::ALL[2 * axis + usize::from(step[axis] > 0)];
            return Some(RayHit { block: cell, id, face, empty: previous, distance });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::blocks::STONE;

    fn one_block(at: IVec3) -> impl Fn(IVec3) -> BlockId {
        move |p| if p == at { STONE } else { BlockId::AIR }
    }

    #[test]
    fn hits_along_each_axis_through_the_facing_face() {
        let o = Vec3::new(0.5, 0.5, 0.5);
        for (dir, at, face) in [
            (Vec3::X, IVec3::new(5, 0, 0), Face::NegX),
            (Vec3::NEG_X, IVec3::new(-5, 0, 0), Face::PosX),
            (Vec3::Y, IVec3::new(0, 5, 0), Face::NegY),
            (Vec3::NEG_Y, IVec3::new(0, -5, 0), Face::PosY),
            (Vec3::Z, IVec3::new(0, 0, 5), Face::NegZ),
            (Vec3::NEG_Z, IVec3::new(0, 0, -5), Face::PosZ),
        ] {
            let hit = raycast(o, dir, 100.0, one_block(at)).expect("a hit");
            assert_eq!((hit.block, hit.face), (at, face), "{dir}");
            assert_eq!(hit.empty, at + face.normal(), "the cell in front of the face");
            assert!((hit.distance - 4.5).abs() < 1e-5, "{dir}: {}", hit.distance);
        }
    }

    #[test]
    fn negative_coordinates_use_the_floor_convention() {
        // The block at -1 spans [-1, 0): a ray from x = 0.5 going -X enters it at x = 0.
        let hit =
            raycast(Vec3::new(0.5, 0.5, 0.5), Vec3::NEG_X, 10.0, one_block(IVec3::new(-1, 0, 0))).unwrap();
        assert_eq!((hit.block, hit.empty), (IVec3::new(-1, 0, 0), IVec3::ZERO));
        assert!((hit.distance - 0.5).abs() < 1e-6);
        // A diagonal ray into negative space.
        let target = IVec3::new(-3, -2, -4);
        let origin = Vec3::new(0.3, 0.6, 0.2);
        let dir = target.as_vec3() + Vec3::splat(0.5) - origin;
        let hit = raycast(origin, dir, 100.0, one_block(target)).unwrap();
        assert_eq!(hit.block, target);
        assert_eq!(hit.empty - hit.block, hit.face.normal());
    }

    #[test]
    fn misses_beyond_the_range_and_ignores_the_starting_cell() {
        assert!(raycast(Vec3::splat(0.5), Vec3::X, 3.0, one_block(IVec3::new(5, 0, 0))).is_none());
        assert!(raycast(Vec3::splat(0.5), Vec3::Y, 100.0, one_block(IVec3::new(5, 0, 0))).is_none());
        assert!(raycast(Vec3::splat(0.5), Vec3::X, 100.0, one_block(IVec3::ZERO)).is_none(), "own cell");
        assert!(raycast(Vec3::splat(0.5), Vec3::ZERO, 100.0, one_block(IVec3::X)).is_none(), "no direction");
    }

    /// `block_at` for a ray that must not be walked: any call fails the test.
    fn never(p: IVec3) -> BlockId {
        panic!("walked cell {p} of a ray that cannot be walked")
    }

    #[test]
    fn rays_that_cannot_be_walked_are_no_hit_and_touch_nothing() {
        let o = Vec3::splat(0.5);
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        for (origin, dir, max) in [
            (Vec3::new(nan, 0.5, 0.5), Vec3::X, 10.0),
            (Vec3::new(0.5, inf, 0.5), Vec3::X, 10.0),
            (Vec3::new(3.0e9, 0.5, 0.5), Vec3::X, 10.0),
            (Vec3::new(0.5, 0.5, -f32::MAX), Vec3::X, 10.0),
            (o, Vec3::new(nan, 1.0, 0.0), 10.0),
            (o, Vec3::new(inf, 1.0, 0.0), 10.0),
            (o, Vec3::ZERO, 10.0),
            (o, Vec3::splat(1.0e-30), 10.0),
            (o, Vec3::X, inf),
            (o, Vec3::X, nan),
            (o, Vec3::X, -1.0),
            (o, Vec3::X, 1.0e30),
        ] {
            assert_eq!(raycast(origin, dir, max, never), None, "{origin} {dir} {max}");
        }
    }

    #[test]
    fn an_infinite_reach_over_empty_space_is_refused_and_a_long_one_ends() {
        // Without the bounds on the reach and on the steps, these would loop forever (or
        // overflow `cell + 1`).
        assert_eq!(raycast(Vec3::splat(0.5), Vec3::X, f32::INFINITY, |_| BlockId::AIR), None);
        let walked = std::cell::Cell::new(0u32);
        let air = |_| {
            walked.set(walked.get() + 1);
            BlockId::AIR
        };
        assert_eq!(raycast(Vec3::new(2.0e9 / 2.0, 0.5, 0.5), Vec3::X, 1000.0, air), None);
        assert!(walked.get() <= 3 * 1002, "{} cells", walked.get());
        // A direction whose normalised components underflow on two axes still walks the third.
        let hit =
            raycast(Vec3::splat(0.5), Vec3::new(1.0, 1.0e-30, 0.0), 10.0, one_block(IVec3::new(3, 0, 0)));
        assert_eq!(hit.map(|h| h.block), Some(IVec3::new(3, 0, 0)));
    }

    /// A fixed scatter of stone: about one cell in eight.
    fn scattered(p: IVec3) -> BlockId {
        let h = (p.x as u32).wrapping_mul(0x9e37_79b1)
            ^ (p.y as u32).wrapping_mul(0x85eb_ca77)
            ^ (p.z as u32).wrapping_mul(0xc2b2_ae3d);
        if h.wrapping_mul(0x2545_f491) >> 29 == 0 { STONE } else { BlockId::AIR }
    }

    /// Checks what holds for every walked ray: the cells walked are bounded by the distance, and a
    /// hit is a face-adjacent step within reach.
    fn check(origin: Vec3, dir: Vec3, max: f32) -> Option<RayHit> {
        let walked = std::cell::Cell::new(0u64);
        let hit = raycast(origin, dir, max, |p| {
            walked.set(walked.get() + 1);
            scattered(p)
        });
        if max.is_finite() && max >= 0.0 {
            let bound = (max as u64).saturating_add(2).saturating_mul(3);
            assert!(walked.get() <= bound, "{} cells for {max}", walked.get());
        }
        if let Some(hit) = hit {
            assert!(hit.distance >= 0.0 && hit.distance <= max, "{hit:?}");
            assert_eq!(hit.empty - hit.block, hit.face.normal(), "{hit:?}");
            assert!(!hit.id.is_air());
        }
        hit
    }

    fn bits() -> impl proptest::strategy::Strategy<Value = f32> {
        proptest::prelude::any::<u32>().prop_map(f32::from_bits)
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_bit_pattern_returns(
            o in [bits(), bits(), bits()],
            d in [bits(), bits(), bits()],
            max in prop_oneof![bits(), -10.0f32..200.0],
        ) {
            check(Vec3::from_array(o), Vec3::from_array(d), max);
        }

        #[test]
        fn a_sane_hit_is_the_cell_around_the_hit_point(
            o in [-1.0e3f32..1.0e3, -1.0e3f32..1.0e3, -1.0e3f32..1.0e3],
            d in [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0],
            max in 0.0f32..100.0,
        ) {
            let (origin, dir) = (Vec3::from_array(o), Vec3::from_array(d));
            prop_assume!(dir.length() > 1e-3);
            if let Some(hit) = check(origin, dir, max) {
                // The entry point lies on the hit cell's face: floor of the point, up to the
                // rounding that puts it on either side of that face.
                let point = origin + dir.normalize() * hit.distance;
                let tolerance = 1e-3;
                let low = hit.block.as_vec3() - tolerance;
                let high = hit.block.as_vec3() + 1.0 + tolerance;
                prop_assert!(point.cmpge(low).all() && point.cmple(high).all(), "{hit:?} at {point}");
                // On the entry axis it is on the face the hit names.
                let axis = hit.face.axis();
                let face = hit.block[axis] as f32 + if hit.face.is_positive() { 1.0 } else { 0.0 };
                prop_assert!((point[axis] - face).abs() <= tolerance, "{hit:?} at {point}");
            }
        }
    }
}
