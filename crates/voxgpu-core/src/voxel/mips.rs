//! A chunk's mip pyramid, 32³ → 16³ → 8³ → 4³ → 2³ → 1³: the voxels a coarser level of detail
//! meshes. This is the CPU reference the GPU mip pass (`shaders/mips.wgsl`, `mips_build.wgsl`) must match exactly.
//!
//! The rule is surface-true: a coarse cell shows the block its 2×2×2 children show from above,
//! and keeps what stands on the ground standing. For each cell of the level below:
//! - the cell is solid when at least 4 of its 8 children are not air (water and glass count), or
//!   when one of its four vertical pairs (the two children sharing an x and z) is solid top and
//!   bottom;
//! - its block is read from above: each vertical pair offers its upper child when that is not air
//!   and its lower child otherwise, and the cell takes the most frequent non-air offer; ties go to
//!   the id some pair offered from its upper child, then to the lowest id.
//!
//! What it keeps and loses: a full axis-aligned one-voxel plane (a floor, a wall) survives every
//! level, thickening to the cell size; a vertical line two children tall (a trunk, a pillar, a
//! wall's edge) survives as a column one cell wide, so nothing that stands on the ground comes
//! loose from it; a horizontal line or a lone voxel vanishes at the first level. Silhouettes
//! thicken by up to a cell where pairs survive. The block of a one-voxel surface layer shows as
//! long as its pair's upper child is that layer; where the layer lies in the lower half of a cell
//! that goes to air (fewer than 4 children, no full pair), the cell below shows what lies under
//! it. Coarse levels are drawn far away, where a lost line is a pixel or less.

use super::{BlockId, CHUNK_SIZE, Chunk};

/// Levels above LOD 0: 16³, 8³, 4³, 2³, 1³.
pub const MIP_LEVELS: usize = 5;

/// Levels 1..=5 of a chunk, each `(32 >> level)³` ids in x-fastest order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MipPyramid {
    levels: [Vec<BlockId>; MIP_LEVELS],
}

/// Halves a cube of edge `size` (x fastest) by the rule above.
pub fn downsample(source: &[BlockId], size: usize) -> Vec<BlockId> {
    debug_assert_eq!(source.len(), size * size * size);
    let half = size / 2;
    let at = |x: usize, y: usize, z: usize| source[x + size * (y + size * z)];
    let mut out = vec![BlockId::AIR; half * half * half];
    for z in 0..half {
        for y in 0..half {
            for x in 0..half {
                let mut cell = [BlockId::AIR; 8];
                for (i, c) in cell.iter_mut().enumerate() {
                    *c = at(2 * x + (i & 1), 2 * y + (i >> 1 & 1), 2 * z + (i >> 2));
                }
                out[x + half * (y + half * z)] = cell_block(&cell);
            }
        }
    }
    out
}

/// The block a 2×2×2 cell becomes, its children indexed `x | y << 1 | z << 2`.
pub fn cell_block(cell: &[BlockId; 8]) -> BlockId {
    // Eight equal children (most cells, in the bulk of the ground and in the sky) give that
    // block, air included: the rule below gives the same, at several times the cost.
    if cell.iter().all(|&b| b == cell[0]) {
        return cell[0];
    }
    // The four vertical pairs: (lower, upper) children of one x and z.
    let pairs: [(BlockId, BlockId); 4] = std::array::from_fn(|p| {
        let lower = (p & 1) | (p >> 1) << 2;
        (cell[lower], cell[lower | 2])
    });
    let solid = cell.iter().filter(|b| !b.is_air()).count();
    let pair_solid = pairs.iter().any(|(lower, upper)| !lower.is_air() && !upper.is_air());
    if solid < 4 && !pair_solid {
        return BlockId::AIR;
    }
    // What each pair shows from above, and whether it is its upper child.
    let offers = pairs.map(|(lower, upper)| if upper.is_air() { (lower, false) } else { (upper, true) });
    // Most frequent, then offered from an upper child, then the lowest id.
    let mut best = (0usize, false, BlockId::AIR);
    for &(candidate, _) in offers.iter().filter(|(b, _)| !b.is_air()) {
        let same = offers.iter().filter(|(b, _)| *b == candidate);
        let count = same.clone().count();
        let from_upper = same.clone().any(|(_, upper)| *upper);
        let better = (count, from_upper) > (best.0, best.1)
            || ((count, from_upper) == (best.0, best.1) && candidate < best.2);
        if better {
            best = (count, from_upper, candidate);
        }
    }
    best.2
}

impl MipPyramid {
    /// Levels 1 to 5 of `chunk`, each downsampled from the one below it by the rule above.
    pub fn build(chunk: &Chunk) -> Self {
        let mut size = CHUNK_SIZE;
        let mut below: Vec<BlockId> = chunk.voxels().to_vec();
        let levels = std::array::from_fn(|_| {
            let level = downsample(&below, size);
            size /= 2;
            below = level.clone();
            level
        });
        Self { levels }
    }

    /// Level `level` (1..=5) as `(32 >> level)³` ids, x fastest.
    ///
    /// # Panics
    /// When `level` is 0 or above [`MIP_LEVELS`] (a programming error).
    pub fn level(&self, level: usize) -> &[BlockId] {
        &self.levels[level - 1]
    }

    /// The block at `(x, y, z)` of `level`.
    ///
    /// # Panics
    /// When a coordinate is `32 >> level` or more, in every build: it would otherwise name
    /// another cell of the level.
    #[track_caller]
    pub fn get(&self, level: usize, x: usize, y: usize, z: usize) -> BlockId {
        let size = CHUNK_SIZE >> level;
        assert!(
            x < size && y < size && z < size,
            "cell ({x}, {y}, {z}) is outside mip level {level}: each coordinate must be in 0..{size}"
        );
        self.level(level)[x + size * (y + size * z)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::blocks::{DIRT, GRASS, SAND, STONE, WATER};

    /// A cell from its lower layer (y = 0) and upper layer (y = 1), each in `x | z << 1` order.
    fn layers(lower: [BlockId; 4], upper: [BlockId; 4]) -> [BlockId; 8] {
        std::array::from_fn(|i| {
            let at = (i & 1) | (i >> 2) << 1;
            if i & 2 == 0 { lower[at] } else { upper[at] }
        })
    }

    const A: BlockId = BlockId::AIR;

    #[test]
    fn a_cell_is_solid_from_half_its_children_or_one_full_pair() {
        assert_eq!(cell_block(&layers([STONE; 4], [A; 4])), STONE, "a one-voxel floor");
        assert_eq!(cell_block(&layers([STONE, STONE, STONE, A], [A; 4])), A, "3 of 8, no full pair");
        assert_eq!(cell_block(&layers([STONE, A, A, A], [STONE, A, A, A])), STONE, "a trunk: one full pair");
        assert_eq!(
            cell_block(&layers([A, STONE, A, A], [STONE, A, A, A])),
            A,
            "a diagonal pair is no column"
        );
        assert_eq!(cell_block(&layers([WATER; 4], [A; 4])), WATER, "transparent blocks count as solid");
    }

    #[test]
    fn the_block_is_the_one_seen_from_above() {
        // Grass over dirt: the bulk below loses to the surface layer.
        assert_eq!(cell_block(&layers([DIRT; 4], [GRASS; 4])), GRASS);
        // A slope: two columns end in grass on the lower layer, two in grass on the upper one.
        assert_eq!(cell_block(&layers([GRASS, GRASS, DIRT, DIRT], [A, A, GRASS, GRASS])), GRASS);
        // Water over sand shows water; sand where the water is not.
        assert_eq!(cell_block(&layers([SAND; 4], [WATER, WATER, WATER, A])), WATER);
        assert_eq!(cell_block(&layers([SAND; 4], [WATER, A, A, A])), SAND);
    }

    #[test]
    fn ties_go_to_the_upper_layer_then_to_the_lowest_id() {
        // Stone offered from above, grass (id 1 < 7) only from below: the upper layer wins.
        assert_eq!(cell_block(&layers([GRASS, GRASS, STONE, STONE], [A, A, STONE, STONE])), STONE);
        // Both from above: the lowest id.
        assert_eq!(cell_block(&layers([DIRT; 4], [STONE, STONE, GRASS, GRASS])), GRASS);
        // Both from below only.
        assert_eq!(cell_block(&layers([WATER, WATER, DIRT, DIRT], [A; 4])), DIRT, "dirt (5) < water (10)");
    }

    #[test]
    fn a_trunk_stands_at_every_level_and_stays_on_the_ground() {
        let mut tree = Chunk::empty();
        for x in 0..CHUNK_SIZE {
            for z in 0..CHUNK_SIZE {
                tree.set(x, 0, z, GRASS);
            }
        }
        for y in 1..CHUNK_SIZE {
            tree.set(9, y, 9, STONE);
        }
        let mips = MipPyramid::build(&tree);
        for level in 1..=MIP_LEVELS {
            let size = CHUNK_SIZE >> level;
            let column = 9 >> level;
            for y in 0..size {
                assert!(!mips.get(level, column, y, column).is_air(), "level {level}: gap at cell y {y}");
            }
        }
    }

    #[test]
    fn empty_and_full_chunks_keep_their_block_at_every_level() {
        let empty = MipPyramid::build(&Chunk::empty());
        let full = MipPyramid::build(&Chunk::filled(STONE));
        for level in 1..=MIP_LEVELS {
            let voxels = (CHUNK_SIZE >> level).pow(3);
            assert_eq!(empty.level(level), vec![BlockId::AIR; voxels].as_slice());
            assert_eq!(full.level(level), vec![STONE; voxels].as_slice());
        }
    }

    #[test]
    fn a_plane_survives_every_level_and_a_line_vanishes_at_the_first() {
        let mut plane = Chunk::empty();
        let mut line = Chunk::empty();
        for x in 0..CHUNK_SIZE {
            line.set(x, 9, 9, STONE);
            for z in 0..CHUNK_SIZE {
                plane.set(x, 0, z, GRASS);
            }
        }
        let plane = MipPyramid::build(&plane);
        for level in 1..=MIP_LEVELS {
            assert_eq!(plane.get(level, 0, 0, 0), GRASS, "level {level}");
        }
        assert!(MipPyramid::build(&line).level(1).iter().all(|b| b.is_air()));
    }

    #[test]
    fn a_cell_outside_its_level_is_refused_not_aliased() {
        let mut chunk = Chunk::empty();
        // Level 1 is 16³: (16, 0, 0) would be cell (0, 1, 0), which is stone.
        for x in 0..2 {
            chunk.set(x, 2, 0, STONE);
            chunk.set(x, 3, 0, STONE);
        }
        let pyramid = MipPyramid::build(&chunk);
        assert_eq!(pyramid.get(1, 0, 1, 0), STONE);
        let result = std::panic::catch_unwind(|| pyramid.get(1, 16, 0, 0));
        assert!(result.is_err(), "read {:?} from outside level 1", result.ok());
    }

    #[test]
    fn a_checkerboard_becomes_solid() {
        let mut checker = Chunk::empty();
        for (i, v) in checker.voxels_mut().iter_mut().enumerate() {
            let (x, y, z) = (i % 32, i / 32 % 32, i / 1024);
            if (x + y + z) % 2 == 0 {
                *v = STONE;
            }
        }
        let mips = MipPyramid::build(&checker);
        assert!(mips.level(1).iter().all(|&b| b == STONE), "every cell holds exactly 4 of 8");
        assert_eq!(mips.level(5), &[STONE]);
    }
}
