//! Terrain at a node's resolution: a level-`L` node's cells, each `2^L` blocks wide, generated
//! without any full-detail block.
//!
//! Each cell samples the height map at 2×2 block columns spread over its footprint (for level 1
//! that is every column, exactly), classifies each sample's ground as the full generator does,
//! and counts the blocks each sample column puts in the cell's height range: water, surface,
//! soil, stone. The counts stand in for the cell's `2^3L` blocks under the mip rule: the cell is
//! solid when at least half of them are not air, and takes the most frequent block, ties to the
//! lowest id. Caves and trees are left out: caves are underground and carve too little to survive
//! coarse cells, and a tree's leaf blob fills at most a few level-1 cells. `tests.rs` measures the
//! match against the mip of full detail.

use glam::IVec2;

use super::{Column, Noise, SEA_LEVEL, SIZE, SOIL_DEPTH, WORLD_HEIGHT};
use crate::voxel::{BlockId, Chunk, NodeColumn, NodeKey, voxel_index};

/// Sample columns per cell along each horizontal axis.
const SAMPLES: i32 = 2;

/// The non-empty nodes of a level ≥ 1 column, bottom up.
pub(super) fn node_column(noise: &Noise, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
    debug_assert!(column.level > 0);
    let cell = 1i32 << column.level;
    let origin = column.origin();
    let grounds = sample_grounds(noise, origin, cell);
    let highest = grounds.iter().map(|c| c.height).max().unwrap_or(0).max(SEA_LEVEL);
    let node_blocks = SIZE * cell;
    let nodes = (WORLD_HEIGHT + node_blocks - 1) / node_blocks;
    (0..nodes)
        .take_while(|ny| ny * node_blocks <= highest)
        .map(|ny| {
            let key = column.node(ny);
            (key, fill_node(&grounds, ny * node_blocks, cell))
        })
        .filter(|(_, chunk)| !chunk.is_empty())
        .collect()
}

/// The ground of each sample column, cell by cell (x fastest), `SAMPLES²` per cell.
fn sample_grounds(noise: &Noise, origin: IVec2, cell: i32) -> Vec<Column> {
    let step = (cell / SAMPLES).max(1);
    let offset = step / 2;
    let mut out = Vec::with_capacity((SIZE * SIZE * SAMPLES * SAMPLES) as usize);
    for cz in 0..SIZE {
        for cx in 0..SIZE {
            for sz in 0..SAMPLES {
                for sx in 0..SAMPLES {
                    let x = origin.x + cx * cell + sx * step + offset;
                    let z = origin.y + cz * cell + sz * step + offset;
                    out.push(noise.column(x, z));
                }
            }
        }
    }
    out
}

/// Blocks of each kind that `column` puts in `[low, low + span)`, added to `counts`.
fn count_blocks(column: &Column, low: i32, span: i32, counts: &mut Vec<(BlockId, i32)>) {
    let h = column.height;
    let mut add = |block: BlockId, from: i32, to: i32| {
        let n = (to.min(low + span) - from.max(low)).max(0);
        if n > 0 {
            match counts.iter_mut().find(|(b, _)| *b == block) {
                Some((_, c)) => *c += n,
                None => counts.push((block, n)),
            }
        }
    };
    // Water above the ground up to the sea; the surface block; the soil under it; stone to y = 0.
    add(super::builtin::WATER, h + 1, SEA_LEVEL + 1);
    add(column.top, h, h + 1);
    add(column.under, h - SOIL_DEPTH, h);
    add(super::builtin::STONE, 0, h - SOIL_DEPTH);
}

/// One node starting at world y `base`: each cell from its sample columns' counts.
fn fill_node(grounds: &[Column], base: i32, cell: i32) -> Chunk {
    let mut chunk = Chunk::empty();
    let voxels = chunk.voxels_mut();
    let per_cell = (SAMPLES * SAMPLES) as usize;
    let mut counts = Vec::with_capacity(8);
    for cz in 0..SIZE as usize {
        for cx in 0..SIZE as usize {
            let samples = &grounds[(cx + cz * SIZE as usize) * per_cell..][..per_cell];
            let top = samples.iter().map(|c| c.height.max(SEA_LEVEL)).max().unwrap_or(0);
            for cy in 0..SIZE {
                let low = base + cy * cell;
                if low > top {
                    break;
                }
                counts.clear();
                for sample in samples {
                    count_blocks(sample, low, cell, &mut counts);
                }
                let solid: i32 = counts.iter().map(|(_, n)| n).sum();
                // Solid when at least half the sampled blocks are not air.
                if 2 * solid < cell * SAMPLES * SAMPLES {
                    continue;
                }
                let best = counts.iter().max_by_key(|(b, n)| (*n, std::cmp::Reverse(*b))).map(|(b, _)| *b);
                voxels[voxel_index(cx, cy as usize, cz)] = best.unwrap_or(BlockId::AIR);
            }
        }
    }
    chunk
}
