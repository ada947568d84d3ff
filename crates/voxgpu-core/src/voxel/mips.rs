//! A chunk's mip pyramid, 32³ → 16³ → 8³ → 4³ → 2³ → 1³: the voxels a coarser level of detail
//! meshes. This is the CPU reference the GPU mip pass (`shaders/mips.wgsl`, `mips_build.wgsl`) must match exactly.
//!
//! The rule, for each 2×2×2 cell of the level below:
//! - the cell is solid when at least 4 of its 8 voxels are not air (water and glass count);
//! - its block is the most frequent non-air block among them, ties going to the lowest id.
//!
//! Trade-offs of this rule: a full axis-aligned one-voxel plane (a floor, a wall) survives every
//! level (each cell it crosses holds 4 of 8), thickening to the cell size; a one-voxel line (2 of
//! 8, a fence or a tree trunk's edge) or a lone voxel (1 of 8) vanishes at the first level. Coarse
//! levels are drawn far away, where a lost line is a pixel or less.

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

/// The block a 2×2×2 cell becomes.
pub fn cell_block(cell: &[BlockId; 8]) -> BlockId {
    let solid = cell.iter().filter(|b| !b.is_air()).count();
    if solid < 4 {
        return BlockId::AIR;
    }
    // At most 8 distinct ids: count each, keep the most frequent, the lowest on a tie.
    let mut best = (0usize, BlockId::AIR);
    for &candidate in cell.iter().filter(|b| !b.is_air()) {
        let count = cell.iter().filter(|&&b| b == candidate).count();
        if count > best.0 || (count == best.0 && candidate < best.1) {
            best = (count, candidate);
        }
    }
    best.1
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
    use crate::voxel::blocks::{DIRT, GRASS, STONE, WATER};

    fn cell(ids: &[BlockId]) -> [BlockId; 8] {
        let mut c = [BlockId::AIR; 8];
        c[..ids.len()].copy_from_slice(ids);
        c
    }

    #[test]
    fn a_cell_is_solid_from_half_its_voxels() {
        assert_eq!(cell_block(&cell(&[STONE; 4])), STONE);
        assert_eq!(cell_block(&cell(&[STONE; 3])), BlockId::AIR);
        assert_eq!(cell_block(&cell(&[WATER; 4])), WATER, "transparent blocks count as solid");
    }

    #[test]
    fn the_most_frequent_block_wins_and_ties_go_to_the_lowest_id() {
        assert_eq!(cell_block(&cell(&[DIRT, DIRT, DIRT, STONE])), DIRT);
        assert_eq!(cell_block(&cell(&[GRASS, GRASS, DIRT, DIRT])), GRASS, "tie: grass (1) < dirt (5)");
        assert_eq!(cell_block(&cell(&[GRASS, STONE, DIRT, WATER, WATER])), WATER);
        assert_eq!(cell_block(&cell(&[WATER, STONE, DIRT, GRASS])), GRASS, "four-way tie: lowest id");
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
