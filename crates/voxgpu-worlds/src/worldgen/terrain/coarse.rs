//! Terrain at a node's resolution: a level-`L` node's cells, each `2^L` blocks wide, generated
//! without any full-detail chunk (streaming uses it from level 3; below, nodes are the mip of
//! their chunks).
//!
//! Each cell samples the ground at 2×2 block columns spread over its footprint, classified as the full generator does, and counts the blocks each
//! sample column puts in the cell's height range (water, surface, soil, stone), weighted by the
//! columns it stands for. Solid ground is carved where the cave noise says so, tested at up to
//! four heights per sample and cell on a lattice of the cave noise (the full generator's lattice
//! at level 2, one point per cell above). Trees are left out: a leaf blob holds about 75 blocks,
//! short of half of an 8-block cell's 512. The counts stand in for the cell's blocks under the
//! mip rule: the cell is solid when at least half of them are not air, and takes the most frequent
//! block, ties to the lowest id. `tests/nodes.rs` measures the match against the mip of full
//! detail.

use glam::{IVec2, IVec3};

use super::caves::carves;
use super::{CAVE_CELL, Column, Noise, SEA_LEVEL, SIZE, SOIL_DEPTH, WORLD_HEIGHT, builtin};
use voxgpu_core::voxel::{BlockId, Chunk, NodeColumn, NodeKey, voxel_index};

/// Sample columns per cell along each horizontal axis.
const SAMPLES: i32 = 2;
/// Heights per cell at which a sample column is tested for caves, at most.
const CAVE_TESTS: i32 = 4;

/// The non-empty nodes of a level ≥ 1 column, bottom up.
pub(super) fn node_column(noise: &Noise, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
    debug_assert!(column.level > 0);
    let cell = 1i32 << column.level;
    let origin = column.origin();
    let grounds = sample_grounds(noise, origin, cell);
    let highest_ground = grounds.iter().map(|c| c.height).max().unwrap_or(0);
    let node_blocks = SIZE * cell;
    let caves = CaveGrid::new(noise, origin, node_blocks, highest_ground, cell);
    let highest = highest_ground.max(SEA_LEVEL);
    let nodes = (WORLD_HEIGHT + node_blocks - 1) / node_blocks;
    (0..nodes)
        .take_while(|ny| ny * node_blocks <= highest)
        .map(|ny| {
            let key = column.node(ny);
            let base = IVec3::new(origin.x, ny * node_blocks, origin.y);
            (key, fill_node(&grounds, &caves, base, cell))
        })
        .filter(|(_, chunk)| !chunk.is_empty())
        .collect()
}

/// Where sample `(sx, sz)` of cell `(cx, cz)` stands, relative to the node's corner.
fn sample_offset(cx: i32, cz: i32, sx: i32, sz: i32, cell: i32) -> IVec2 {
    let step = (cell / SAMPLES).max(1);
    IVec2::new(cx * cell + sx * step + step / 2, cz * cell + sz * step + step / 2)
}

/// The ground of each sample column, cell by cell (x fastest), `SAMPLES²` per cell.
fn sample_grounds(noise: &Noise, origin: IVec2, cell: i32) -> Vec<Column> {
    let mut out = Vec::with_capacity((SIZE * SIZE * SAMPLES * SAMPLES) as usize);
    for cz in 0..SIZE {
        for cx in 0..SIZE {
            for sz in 0..SAMPLES {
                for sx in 0..SAMPLES {
                    let at = origin + sample_offset(cx, cz, sx, sz, cell);
                    out.push(noise.column(at.x, at.y));
                }
            }
        }
    }
    out
}

/// Cave noise on a lattice over the node column, up to the highest ground: the full generator's
/// lattice (every `CAVE_CELL` blocks) when cells are that small, one point per cell otherwise.
struct CaveGrid {
    origin: IVec3,
    spacing: i32,
    size: IVec3,
    samples: Vec<f64>,
}

impl CaveGrid {
    fn new(noise: &Noise, origin: IVec2, node_blocks: i32, highest: i32, cell: i32) -> Self {
        let spacing = cell.max(CAVE_CELL);
        let origin = IVec3::new(origin.x, 0, origin.y);
        let size = IVec3::new(node_blocks / spacing + 1, highest / spacing + 2, node_blocks / spacing + 1);
        let mut samples = Vec::with_capacity((size.x * size.y * size.z) as usize);
        for z in 0..size.z {
            for y in 0..size.y {
                for x in 0..size.x {
                    let p = origin + IVec3::new(x, y, z) * spacing;
                    // The full generator's sample, in its lattice units when they coincide.
                    samples.push(if spacing == CAVE_CELL {
                        noise.cave_sample(p / CAVE_CELL)
                    } else {
                        noise.cave_at(p)
                    });
                }
            }
        }
        Self { origin, spacing, size, samples }
    }

    /// Interpolated cave noise at world block `p` (x, then z, then y, as the full generator).
    fn value(&self, p: IVec3) -> f64 {
        let local = p - self.origin;
        let cell = local.div_euclid(IVec3::splat(self.spacing)).clamp(IVec3::ZERO, self.size - 2);
        let t = (local - cell * self.spacing).as_dvec3() / f64::from(self.spacing);
        let at = |d: IVec3| {
            let c = cell + d;
            self.samples[(c.x + self.size.x * (c.y + self.size.y * c.z)) as usize]
        };
        let level = |dy: i32| {
            let x0 = lerp(at(IVec3::new(0, dy, 0)), at(IVec3::new(1, dy, 0)), t.x);
            let x1 = lerp(at(IVec3::new(0, dy, 1)), at(IVec3::new(1, dy, 1)), t.x);
            lerp(x0, x1, t.z)
        };
        lerp(level(0), level(1), t.y)
    }
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

/// Adds `n` blocks of `block` to `counts`.
fn add(counts: &mut Vec<(BlockId, f64)>, block: BlockId, n: f64) {
    if n <= 0.0 {
        return;
    }
    match counts.iter_mut().find(|(b, _)| *b == block) {
        Some((_, c)) => *c += n,
        None => counts.push((block, n)),
    }
}

/// Blocks of each kind that the sample column at `(x, z)` puts in `[low, low + span)`, each
/// standing for `weight` block columns, after carving caves.
fn count_column(
    column: &Column,
    caves: &CaveGrid,
    xz: IVec2,
    low: i32,
    span: i32,
    weight: f64,
    counts: &mut Vec<(BlockId, f64)>,
) {
    let h = column.height;
    let overlap = |from: i32, to: i32| (to.min(low + span) - from.max(low)).max(0);
    // Water above the ground up to the sea.
    add(counts, builtin::WATER, f64::from(overlap(h + 1, SEA_LEVEL + 1)) * weight);
    // The ground, carved: the share of tested heights a cave leaves solid.
    let ground_top = (h + 1).min(low + span);
    if ground_top <= low {
        return;
    }
    let tests = CAVE_TESTS.min(span);
    let step = span / tests;
    let kept = (0..tests)
        .map(|i| low + i * step + step / 2)
        .filter(|&y| y >= ground_top || !carves(caves.value(IVec3::new(xz.x, y, xz.y)), y, h))
        .count();
    let keep = kept as f64 / f64::from(tests) * weight;
    add(counts, column.top, f64::from(overlap(h, h + 1)) * keep);
    add(counts, column.under, f64::from(overlap(h - SOIL_DEPTH, h)) * keep);
    add(counts, builtin::STONE, f64::from(overlap(0, h - SOIL_DEPTH)) * keep);
}

/// One node with its minimum corner at world `base`: each cell from its sample columns' counts.
fn fill_node(grounds: &[Column], caves: &CaveGrid, base: IVec3, cell: i32) -> Chunk {
    let mut chunk = Chunk::empty();
    let voxels = chunk.voxels_mut();
    let per_cell = (SAMPLES * SAMPLES) as usize;
    let weight = f64::from(cell * cell) / per_cell as f64;
    let volume = f64::from(cell).powi(3);
    let mut counts = Vec::with_capacity(8);
    for cz in 0..SIZE {
        for cx in 0..SIZE {
            let samples = &grounds[(cx + cz * SIZE) as usize * per_cell..][..per_cell];
            let top = samples.iter().map(|c| c.height.max(SEA_LEVEL)).max().unwrap_or(0);
            for cy in 0..SIZE {
                let low = base.y + cy * cell;
                if low > top {
                    break;
                }
                counts.clear();
                for (i, sample) in samples.iter().enumerate() {
                    let (sx, sz) = (i as i32 % SAMPLES, i as i32 / SAMPLES);
                    let xz = IVec2::new(base.x, base.z) + sample_offset(cx, cz, sx, sz, cell);
                    count_column(sample, caves, xz, low, cell, weight, &mut counts);
                }
                let solid: f64 = counts.iter().map(|(_, n)| n).sum();
                if 2.0 * solid < volume {
                    continue;
                }
                let best =
                    counts.iter().max_by(|(a, n), (b, m)| n.total_cmp(m).then(b.cmp(a))).map(|(b, _)| *b);
                voxels[voxel_index(cx as usize, cy as usize, cz as usize)] = best.unwrap_or(BlockId::AIR);
            }
        }
    }
    chunk
}
