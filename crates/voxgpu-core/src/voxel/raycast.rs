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

/// Walks the cells along `dir` from `origin` up to `max_distance` blocks and returns the first
/// whose block is not air. `block_at` gives the block of a cell (air outside the world).
pub fn raycast(
    origin: Vec3,
    dir: Vec3,
    max_distance: f32,
    block_at: impl Fn(IVec3) -> BlockId,
) -> Option<RayHit> {
    let dir = dir.try_normalize()?;
    let mut cell = origin.floor().as_ivec3();
    let step = IVec3::new(dir.x.signum() as i32, dir.y.signum() as i32, dir.z.signum() as i32);
    // Distance along the ray to the next cell edge on each axis, and between edges; an axis the
    // ray does not move along is never crossed.
    let mut t_max = Vec3::INFINITY;
    let mut t_delta = Vec3::INFINITY;
    for axis in 0..3 {
        if dir[axis] != 0.0 {
            let o = origin[axis];
            let edge = if dir[axis] > 0.0 { (cell[axis] + 1) as f32 - o } else { o - cell[axis] as f32 };
            t_delta[axis] = 1.0 / dir[axis].abs();
            t_max[axis] = edge * t_delta[axis];
        }
    }
    loop {
        let axis = if t_max.x <= t_max.y && t_max.x <= t_max.z {
            0
        } else if t_max.y <= t_max.z {
            1
        } else {
            2
        };
        let distance = t_max[axis];
        if distance > max_distance {
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
}
