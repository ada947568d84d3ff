//! The small analytic worlds: flat layers, the 3D checkerboard and the layered sphere.
//! Each is a pure function of world position, so they double as fixtures for mesher and
//! renderer tests with blocks that can be predicted by hand.

use glam::IVec3;

use super::{WorldParams, builtin, columns_in_view};
use voxgpu_core::voxel::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, LocalPos, World};

/// The y of flat's grass layer, which the default view stands on.
pub(super) const FLAT_SURFACE: i32 = 15;

/// Flat: stone `0..12`, dirt `12..15`, grass at `15`, in every column of the view circle.
///
/// All layers sit in chunk row y = 0, so one template chunk is cloned into each column.
pub(super) fn flat(params: &WorldParams) -> World {
    let template = fill_chunk(ChunkPos::new(0, 0, 0), |p| match p.y {
        0..12 => builtin::STONE,
        12..FLAT_SURFACE => builtin::DIRT,
        FLAT_SURFACE => builtin::GRASS,
        _ => BlockId::AIR,
    });
    let mut world = World::new(BlockRegistry::builtin());
    for column in columns_in_view(params.center, params.view_distance) {
        world.insert(ChunkPos::new(column.x, 0, column.y), template.clone());
    }
    world
}

/// Checker: blocks with `x + y + z` even are solid, in the box x, z in `-64..64`, y in `0..64`.
///
/// No two solid blocks share a face, so every solid block shows all six faces and no quads can
/// merge: the most quads per chunk any world can produce. The material alternates with `x`
/// parity (stone, brick) so merging by colour is impossible too.
pub(super) fn checker() -> World {
    build_box(IVec3::new(-64, 0, -64), IVec3::new(64, 64, 64), |p| {
        match ((p.x + p.y + p.z).rem_euclid(2), p.x.rem_euclid(2)) {
            (0, 0) => builtin::STONE,
            (0, _) => builtin::BRICK,
            _ => BlockId::AIR,
        }
    })
}

/// Glass checker: every cell of the same box filled, water where `x + y + z` is even and glass
/// where it is odd.
///
/// Two different transparent blocks hide nothing of each other, so every face of every cell
/// shows, and no two neighbouring faces share a block: each is its own quad. That is the most
/// quads one face direction of one chunk can hold (32,768, which fill its 128 pages), the
/// mesher's worst face.
pub(super) fn glass_checker() -> World {
    build_box(IVec3::new(-64, 0, -64), IVec3::new(64, 64, 64), |p| {
        if (p.x + p.y + p.z).rem_euclid(2) == 0 { builtin::WATER } else { builtin::GLASS }
    })
}

/// Centre and radius of the sphere world, in blocks.
const SPHERE_CENTER: IVec3 = IVec3::new(0, 48, 0);
const SPHERE_RADIUS: i32 = 40;

/// Sphere: a ball of radius 40 at (0, 48, 0) with a one-block grass shell, four blocks of dirt
/// under it and a stone core.
///
/// The shell is every solid block with an air face-neighbour rather than a distance band: a
/// distance band leaves dirt showing wherever the voxelised surface steps by two blocks.
pub(super) fn sphere() -> World {
    let reach = IVec3::splat(SPHERE_RADIUS + 1);
    build_box(SPHERE_CENTER - reach, SPHERE_CENTER + reach, |p| {
        if !in_sphere(p) {
            return BlockId::AIR;
        }
        let exposed = [IVec3::X, IVec3::NEG_X, IVec3::Y, IVec3::NEG_Y, IVec3::Z, IVec3::NEG_Z]
            .iter()
            .any(|&step| !in_sphere(p + step));
        if exposed {
            builtin::GRASS
        } else if distance_squared(p) > ((SPHERE_RADIUS - 5) * 2).pow(2) {
            builtin::DIRT
        } else {
            builtin::STONE
        }
    })
}

/// Squared distance, in doubled units so it stays integer, from block `p`'s centre to the
/// sphere's centre.
fn distance_squared(p: IVec3) -> i32 {
    let d = (p - SPHERE_CENTER) * 2 + IVec3::ONE;
    d.length_squared()
}

fn in_sphere(p: IVec3) -> bool {
    distance_squared(p) <= (SPHERE_RADIUS * 2).pow(2)
}

/// Builds a builtin-registry world from `block(p)` for every block in `[min, max)`.
fn build_box(min: IVec3, max: IVec3, block: impl Fn(IVec3) -> BlockId) -> World {
    let size = IVec3::splat(CHUNK_SIZE as i32);
    let (first, last) = (min.div_euclid(size), (max - IVec3::ONE).div_euclid(size));
    let mut world = World::new(BlockRegistry::builtin());
    for cz in first.z..=last.z {
        for cy in first.y..=last.y {
            for cx in first.x..=last.x {
                let pos = ChunkPos::new(cx, cy, cz);
                let inside = |p: IVec3| p.cmpge(min).all() && p.cmplt(max).all();
                let chunk = fill_chunk(pos, |p| if inside(p) { block(p) } else { BlockId::AIR });
                world.insert(pos, chunk);
            }
        }
    }
    world
}

/// One chunk with `block(world position)` in every voxel.
fn fill_chunk(pos: ChunkPos, block: impl Fn(IVec3) -> BlockId) -> Chunk {
    let mut chunk = Chunk::empty();
    let origin = pos.origin();
    for local in LocalPos::all() {
        chunk.set_local(local, block(origin + local.ivec3()));
    }
    chunk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_has_grass_on_dirt_on_stone() {
        let params = WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 };
        let world = flat(&params);
        assert_eq!(world.len(), columns_in_view(params.center, 2).len());
        let at = |y| world.block(IVec3::new(3, y, -7));
        assert_eq!(at(0), builtin::STONE);
        assert_eq!(at(11), builtin::STONE);
        assert_eq!(at(12), builtin::DIRT);
        assert_eq!(at(14), builtin::DIRT);
        assert_eq!(at(15), builtin::GRASS);
        assert_eq!(at(16), BlockId::AIR);
    }

    #[test]
    fn checker_solid_blocks_never_share_a_face() {
        let world = checker();
        assert_eq!(world.len(), 4 * 2 * 4);
        assert_eq!(world.chunk_bounds(), Some((IVec3::new(-64, 0, -64), IVec3::new(64, 64, 64))));
        for p in [IVec3::new(0, 0, 0), IVec3::new(-64, 2, 0), IVec3::new(63, 63, 0)] {
            assert!(!world.block(p).is_air());
            for step in [IVec3::X, IVec3::Y, IVec3::Z] {
                assert!(world.block(p + step).is_air());
            }
        }
        assert_eq!(world.block(IVec3::new(0, 0, 0)), builtin::STONE);
        assert_eq!(world.block(IVec3::new(1, 1, 0)), builtin::BRICK);
    }

    #[test]
    fn sphere_shows_only_grass_from_outside() {
        let world = sphere();
        let top = SPHERE_CENTER + IVec3::Y * (SPHERE_RADIUS - 1);
        assert_eq!(world.block(top), builtin::GRASS);
        assert!(world.block(top + IVec3::Y).is_air());
        assert_eq!(world.block(top - IVec3::Y * 2), builtin::DIRT);
        assert_eq!(world.block(SPHERE_CENTER), builtin::STONE);
        // Walk every block: any solid block with an air neighbour must be grass.
        for (pos, chunk) in world.chunks() {
            for (i, block) in chunk.voxels().iter().enumerate() {
                let s = CHUNK_SIZE;
                let p = pos.origin() + IVec3::new((i % s) as i32, (i / s % s) as i32, (i / (s * s)) as i32);
                let open = [IVec3::X, IVec3::NEG_X, IVec3::Y, IVec3::NEG_Y, IVec3::Z, IVec3::NEG_Z]
                    .iter()
                    .any(|&d| world.block(p + d).is_air());
                if !block.is_air() && open {
                    assert_eq!(*block, builtin::GRASS, "at {p}");
                }
            }
        }
    }
}
