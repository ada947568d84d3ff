//! Terrain at a node's resolution: a level-`L` node's cells, each `2^L` blocks wide, generated
//! without any full-detail chunk (streaming uses it from level 3; below, nodes are the mip of
//! their chunks).
//!
//! The cells are what the mip rule (`voxgpu_core::voxel::mips`) would make of the terrain, built
//! from far less than the terrain:
//! - Each cell stands on 4×4 **sample columns** (2×2 at level 1), one per square
//!   `2^(L−2)` blocks wide (single block columns at levels 1 and 2). A sample is the full
//!   generator's ground at the square's centre (height, surface and soil by height and by the
//!   slope to the neighbouring samples, water to the sea).
//! - **Cave pits**: where the full generator's cave noise carves the sample's surface block, the
//!   ground drops to the first block the caves leave, which shows dirt or stone from above as
//!   the open pits of full detail do.
//! - A sample is one uniform column of its square at level `L − 2`: a cell there is solid when
//!   any block in its height is, and shows the highest one (what the mip rule gives over a
//!   square of identical columns). The samples then go through the mip rule itself (twice; once
//!   at level 1), which gives the cell's solidity and the block it shows from above.
//! - **Trees**, at levels 3 to `REAL_TREE_LEVEL`: the full generator's own trees, root by root.
//!   A sample square they reach is rebuilt from its blocks (the uniform ground with each tree's
//!   logs and leaves placed block for block) through the mip rule, so a canopy covers the cells
//!   it would cover in the mip. At the other levels, trees stand on grass samples by a hash of
//!   the sample's place, at a measured chance, as a column of leaves from the ground to the
//!   canopy's top. Caves leave a column a tree tops alone, so no canopy floats.
//! - A cell is a function of its place alone: the samples of the margin are decided as the
//!   node next door decides them, so neighbouring nodes agree where they meet.
//! - **Caves** are carved afterwards at the node's resolution: a cell under the ground turns to
//!   air when the cave noise carves at every one of its test points (2×2 positions, up to four
//!   heights, on a lattice of the cave noise).
//!
//! `tests/worlds/levels.rs` measures the top-visible blocks against the mip of full detail.

use glam::{IVec2, IVec3};

use super::caves::carves;
use super::{CAVE_CELL, Column, LEAF_RADIUS, Noise, SEA_LEVEL, SIZE, Tree, WORLD_HEIGHT, builtin, hash};
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, Chunk, NodeColumn, NodeKey, cell_block, voxel_index};

/// Sample columns per cell along each horizontal axis, at most (4: two mip steps).
const SAMPLES: i32 = 4;
/// Heights per cell at which the cave noise is tested, at most.
const CAVE_TESTS: i32 = 4;
/// A tree's canopy top stands 7 to 9 blocks above its ground (trunk 4–6, leaves 3 above).
const CANOPY_ABOVE_GROUND: i32 = 8;
/// The chance that a grass sample stands for a tree. Measured, not derived: at full detail
/// one grass column in 90 roots a tree, but the mip rule lets a canopy show on top of a cell
/// only where it outvotes the ground around it, so leaves top about 18% of level-3 cells, 7% at
/// level 4 and under 3% above (`tests/worlds/levels.rs`); 5% of samples gives about that.
const TREE_SAMPLE_CHANCE: f64 = 0.05;
/// Up to this level (from level 3, where a sample is as wide as a canopy's reach), coarse cells
/// carry the full generator's own trees, found root by root over the node (one hash per block
/// column: 66 thousand for a level-3 node, a quarter of a million at level 4). Above, a tree's
/// canopy tops under 3% of cells and trees stand by chance.
const REAL_TREE_LEVEL: u32 = 4;
/// How far down a cave pit's floor is looked for at a time, in blocks (the interpolated cave
/// grid costs no noise per step).
const PIT_STEP: i32 = 1;

/// The non-empty nodes of a level ≥ 1 column, bottom up.
pub(super) fn node_column(noise: &Noise, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
    debug_assert!(column.level > 0);
    let cells = Cells::generate(noise, column.level, column.origin(), SIZE);
    let node_rows = SIZE as usize;
    let nodes = cells.rows.div_ceil(node_rows);
    (0..nodes)
        .map(|ny| {
            let mut chunk = Chunk::empty();
            let voxels = chunk.voxels_mut();
            for cz in 0..CHUNK_SIZE {
                for cx in 0..CHUNK_SIZE {
                    let cells = cells.column(cx, cz);
                    for y in 0..node_rows.min(cells.len().saturating_sub(ny * node_rows)) {
                        voxels[voxel_index(cx, y, cz)] = cells[ny * node_rows + y];
                    }
                }
            }
            (column.node(ny as i32), chunk)
        })
        .filter(|(_, chunk)| !chunk.is_empty())
        .collect()
}

/// The cells of one column of level-`level` cells at cell coordinates `cell`, bottom up.
pub(super) fn cell_column(noise: &Noise, level: u32, cell: IVec2) -> Vec<BlockId> {
    Cells::generate(noise, level, cell * (1 << level), 1).column(0, 0).to_vec()
}

/// A square of `width` × `width` cell columns, each `rows` cells from y 0 up.
#[derive(Default)]
struct Cells {
    width: usize,
    rows: usize,
    cells: Vec<BlockId>,
    /// Per column, how many rows from the bottom may be solid (all above are air).
    tops: Vec<usize>,
}

impl Cells {
    fn column(&self, x: usize, z: usize) -> &[BlockId] {
        &self.cells[(x + self.width * z) * self.rows..][..self.rows]
    }

    /// One mip step: the square half as wide and half as tall, by the mip rule over each
    /// 2×2×2 group of cells.
    fn halve(&self) -> Self {
        let mut out = Self::default();
        self.halve_into(&mut out);
        out
    }

    /// [`Self::halve`] into `out`, reusing its buffers.
    fn halve_into(&self, out: &mut Self) {
        let (width, rows) = (self.width / 2, (self.rows / 2).max(1));
        out.cells.clear();
        out.cells.resize(width * width * rows, BlockId::AIR);
        out.tops.clear();
        out.tops.resize(width * width, 0);
        (out.width, out.rows) = (width, rows);
        let at = |column: &[BlockId], y: usize| column.get(y).copied().unwrap_or(BlockId::AIR);
        for z in 0..width {
            for x in 0..width {
                let below =
                    (0..4).map(|c| self.tops[2 * x + (c & 1) + self.width * (2 * z + (c >> 1))]).max();
                let top = below.unwrap_or(0).div_ceil(2).min(rows);
                out.tops[x + width * z] = top;
                let (c00, c10) = (self.column(2 * x, 2 * z), self.column(2 * x + 1, 2 * z));
                let (c01, c11) = (self.column(2 * x, 2 * z + 1), self.column(2 * x + 1, 2 * z + 1));
                let cells = &mut out.cells[(x + width * z) * rows..][..top];
                for (y, cell) in cells.iter_mut().enumerate() {
                    let (lo, hi) = (2 * y, 2 * y + 1);
                    // Children `x | y << 1 | z << 2`, as the mip rule takes them.
                    *cell = cell_block(&[
                        at(c00, lo),
                        at(c10, lo),
                        at(c00, hi),
                        at(c10, hi),
                        at(c01, lo),
                        at(c11, lo),
                        at(c01, hi),
                        at(c11, hi),
                    ]);
                }
            }
        }
    }

    /// The cells of level `level` over `width` × `width` cell columns from block `origin`.
    fn generate(noise: &Noise, level: u32, origin: IVec2, width: i32) -> Self {
        let cell = 1i32 << level;
        let per_cell = SAMPLES.min(cell);
        let step = cell / per_cell;
        // Real trees need a sample at least a canopy's reach wide: then the one-sample margin
        // holds every root whose leaves reach the node (levels 3 and up).
        let real_trees = level <= REAL_TREE_LEVEL && step >= LEAF_RADIUS;
        let samples = Samples::new(noise, origin, step, width * per_cell, cell, real_trees);
        // The samples' level: each is one uniform column of cells `step` blocks tall.
        let sample_level = level - per_cell.trailing_zeros();
        // One flat buffer per level (each worker allocates a handful, not one per column: the
        // generation pool's threads share two malloc arenas).
        let sample_rows = (WORLD_HEIGHT / step) as usize;
        let side = samples.width;
        let mut columns = Self {
            width: side,
            rows: sample_rows,
            cells: vec![BlockId::AIR; side * side * sample_rows],
            tops: vec![0; side * side],
        };
        let mut scratch = TreeScratch::default();
        for z in 0..side {
            for x in 0..side {
                let at = (x + side * z) * sample_rows;
                columns.tops[x + side * z] =
                    samples.profile(x, z, &mut columns.cells[at..at + sample_rows], &mut scratch);
            }
        }
        for _ in sample_level..level {
            columns = columns.halve();
        }
        let mut out = columns;
        out.carve_caves(&samples, cell, per_cell);
        out
    }

    /// Turns cells under the ground to air where the cave noise carves at every test point.
    fn carve_caves(&mut self, samples: &Samples, cell: i32, per_cell: i32) {
        let caves = &samples.caves;
        let tests = CAVE_TESTS.min(cell);
        let half = (per_cell / 2).max(1);
        for cz in 0..self.width {
            for cx in 0..self.width {
                // The 2×2 test columns: one sample of each quarter of the cell.
                let quarters: [(IVec2, &Column); 4] = std::array::from_fn(|q| {
                    let sx = cx * per_cell as usize + (q & 1) * half as usize;
                    let sz = cz * per_cell as usize + (q >> 1) * half as usize;
                    (samples.position(sx, sz), samples.ground(sx, sz))
                });
                let base = (cx + self.width * cz) * self.rows;
                // A column a tree tops keeps its ground: its leaves stand on it.
                let top = (0..self.rows).rev().find(|&y| !self.cells[base + y].is_air());
                if top.is_some_and(|y| self.cells[base + y] == builtin::LEAVES) {
                    continue;
                }
                for y in 0..self.rows {
                    let low = y as i32 * cell;
                    if self.cells[base + y].is_air() || quarters.iter().all(|(_, g)| low > g.height) {
                        continue;
                    }
                    let carved = quarters.iter().all(|(xz, ground)| {
                        (0..tests).all(|t| {
                            let at = low + t * (cell / tests) + cell / tests / 2;
                            at > ground.height
                                || carves(caves.value(IVec3::new(xz.x, at, xz.y)), at, ground.height)
                        })
                    });
                    if carved {
                        self.cells[base + y] = BlockId::AIR;
                    }
                }
            }
        }
    }
}

/// The ground of sample columns on a square grid, with a one-sample margin for slopes.
struct Samples {
    origin: IVec2,
    step: i32,
    /// Samples per side, margin excluded.
    width: usize,
    /// `(width + 2)²`, margin included, x fastest.
    grounds: Vec<Column>,
    /// Each sample's canopy top (y of its highest leaf), where a tree stands by chance: the
    /// levels too coarse to look for the real ones.
    trees: Vec<Option<i32>>,
    /// The full generator's trees that reach into the samples, at the levels that look for them.
    real: Vec<Tree>,
    /// Indices into `real` of the trees that may reach each sample, sample by sample: those of
    /// sample `i` are `reaching[starts[i]..starts[i + 1]]` (no samples: no real trees).
    reaching: Vec<u32>,
    starts: Vec<u32>,
    /// The cave noise over the node column, for the pits at the samples' surface and the caves
    /// carved in the cells.
    caves: CaveGrid,
}

impl Samples {
    /// The samples `step` blocks apart over `width` × `width` squares from block `origin`, for
    /// cells `cell` blocks wide; with the full generator's trees when `real_trees`.
    ///
    /// Every sample, margin included, is decided from its own place alone (its slope from a
    /// second ring of heights, its pit and its trees from a cave grid that covers every point
    /// asked of it), so a cell comes out the same whatever area is generated around it.
    fn new(noise: &Noise, origin: IVec2, step: i32, width: i32, cell: i32, real_trees: bool) -> Self {
        let centre = |i: i32| i * step + step / 2;
        // Heights of the samples and of a second ring around them, for the margin's slopes.
        let ring = width + 4;
        let mut heights = Vec::with_capacity((ring * ring) as usize);
        for z in -2..=width + 1 {
            for x in -2..=width + 1 {
                heights.push(noise.height(origin.x + centre(x), origin.y + centre(z)));
            }
        }
        let h = |x: i32, z: i32| heights[((x + 2) + (z + 2) * ring) as usize];
        // The roots whose leaves may reach the samples inside the margin.
        let roots = if real_trees { tree_roots(noise, origin, width * step) } else { Vec::new() };
        let highest = heights.iter().chain(roots.iter().map(|r| &r.2)).copied().max().unwrap_or(0);
        let reach = IVec2::splat(step + LEAF_RADIUS);
        let caves =
            CaveGrid::new(noise, origin - reach, origin + IVec2::splat(width * step) + reach, highest, cell);
        let samples = ((width + 2) * (width + 2)) as usize;
        let mut grounds = Vec::with_capacity(samples);
        let mut trees = Vec::with_capacity(samples);
        for z in -1..=width {
            for x in -1..=width {
                let neighbours = [h(x + 1, z), h(x - 1, z), h(x, z + 1), h(x, z - 1)];
                let here = h(x, z);
                // The per-block slope the full generator would see, for the materials.
                let per_block =
                    neighbours.map(|n| here + ((n - here) as f32 / step.max(1) as f32).round() as i32);
                let at = origin + IVec2::new(centre(x), centre(z));
                let ground = pit_floor(&caves, at, noise.classify(at.x, at.y, here, per_block));
                let roll = hash(noise.seed, at.x, at.y, 13);
                let tree = (!real_trees
                    && ground.top == builtin::GRASS
                    && ((roll >> 11) as f64 / (1u64 << 53) as f64) < TREE_SAMPLE_CHANCE)
                    .then(|| ground.height + CANOPY_ABOVE_GROUND - 1 + (roll % 3) as i32);
                grounds.push(ground);
                trees.push(tree);
            }
        }
        let mut samples = Self {
            origin,
            step,
            width: width as usize,
            grounds,
            trees,
            real: Vec::new(),
            reaching: Vec::new(),
            starts: Vec::new(),
            caves,
        };
        samples.plant(&roots);
        samples
    }

    /// Which of the full generator's `roots` grow, and the samples each one's leaves may reach.
    /// Whether a tree grows is read more cheaply than the full generator does (five height and
    /// eight cave noise samples per rooted column): the sample it stands in must show grass (so
    /// not a cliff, a beach, the heights or an open pit), and the cave grid must leave its ground.
    fn plant(&mut self, roots: &[(i32, i32, i32, i32)]) {
        let span = self.width as i32 + 2;
        let to_sample = |b: i32| (b + self.step).div_euclid(self.step);
        let mut touching = Vec::new();
        for &(x, z, trunk, height) in roots {
            let at = IVec2::new(x, z) - self.origin;
            let ground = &self.grounds[(to_sample(at.x) + to_sample(at.y) * span) as usize];
            if ground.top != builtin::GRASS
                || carves(self.caves.value(IVec3::new(x, height, z)), height, height)
            {
                continue;
            }
            let t = self.real.len() as u32;
            let reach = |d: i32| to_sample(d - LEAF_RADIUS).max(0)..=to_sample(d + LEAF_RADIUS).min(span - 1);
            for sz in reach(at.y) {
                for sx in reach(at.x) {
                    touching.push(((sx + sz * span) as u32, t));
                }
            }
            self.real.push(Tree { root: IVec3::new(x, height + 1, z), trunk });
        }
        touching.sort_unstable();
        self.reaching = touching.iter().map(|&(_, t)| t).collect();
        self.starts = (0..=self.grounds.len() as u32)
            .map(|i| touching.partition_point(|&(s, _)| s < i) as u32)
            .collect();
    }

    /// The real trees whose leaves may reach into sample `index`.
    fn trees_at(&self, index: usize) -> impl Iterator<Item = &Tree> {
        let range = match self.starts.get(index..=index + 1) {
            Some(&[start, end]) => start as usize..end as usize,
            _ => 0..0,
        };
        self.reaching[range].iter().map(|&t| &self.real[t as usize])
    }

    fn index(&self, x: usize, z: usize) -> usize {
        (x + 1) + (z + 1) * (self.width + 2)
    }

    fn ground(&self, x: usize, z: usize) -> &Column {
        &self.grounds[self.index(x, z)]
    }

    /// The block position of sample `(x, z)`'s centre.
    fn position(&self, x: usize, z: usize) -> IVec2 {
        self.origin + IVec2::new(x as i32, z as i32) * self.step + IVec2::splat(self.step / 2)
    }

    /// Sample `(x, z)` as a uniform column of cells `step` blocks tall, bottom up, into `out`
    /// (all air on entry). Returns how many rows from the bottom may be solid.
    fn profile(&self, x: usize, z: usize, out: &mut [BlockId], scratch: &mut TreeScratch) -> usize {
        let (ground, step) = (self.ground(x, z), self.step);
        let canopy = self.trees[self.index(x, z)];
        let highest = ground.height.max(SEA_LEVEL).max(canopy.unwrap_or(0));
        let mut top = ((highest / step + 1) as usize).min(out.len());
        for (r, cell) in out[..top].iter_mut().enumerate() {
            *cell = highest_block(ground, canopy, r as i32 * step, r as i32 * step + step - 1);
        }
        if self.trees_at(self.index(x, z)).next().is_some() {
            top = top.max(self.grow_real_trees(x, z, out, scratch));
        }
        top
    }

    /// Rebuilds the rows of sample `(x, z)` that real trees reach as the mip of the square's
    /// blocks: its ground as one uniform column, the trees' leaves and logs block for block
    /// (leaves only into air, logs over anything, as the full generator places them). Returns
    /// how many rows from the bottom may be solid.
    fn grow_real_trees(&self, x: usize, z: usize, out: &mut [BlockId], scratch: &mut TreeScratch) -> usize {
        let (ground, step) = (self.ground(x, z), self.step);
        let square = self.position(x, z) - IVec2::splat(step / 2);
        let (mut lowest, mut highest) = (i32::MAX, i32::MIN);
        for tree in self.trees_at(self.index(x, z)) {
            lowest = lowest.min(tree.root.y);
            highest = highest.max(tree.top().y + 3);
        }
        let (first, last) = ((lowest / step) as usize, ((highest / step) as usize).min(out.len() - 1));
        let side = step as usize;
        let rows = (last + 1 - first) * side;
        let low = (first * side) as i32;
        let square_blocks = &mut scratch.blocks;
        (square_blocks.width, square_blocks.rows) = (side, rows);
        square_blocks.tops.clear();
        square_blocks.tops.resize(side * side, rows);
        let blocks = &mut square_blocks.cells;
        blocks.clear();
        blocks.resize(side * side * rows, BlockId::AIR);
        // The uniform ground, one row of it computed and copied into every column.
        let (first_column, rest) = blocks.split_at_mut(rows);
        for (r, block) in first_column.iter_mut().enumerate() {
            *block = ground.block(low + r as i32);
        }
        for column in rest.chunks_exact_mut(rows) {
            column.copy_from_slice(first_column);
        }
        let corner = IVec3::new(square.x, low, square.y);
        let index = |p: IVec3| {
            let local = p - corner;
            let inside = (0..step).contains(&local.x)
                && (0..step).contains(&local.z)
                && (0..rows as i32).contains(&local.y);
            inside.then(|| (local.x as usize + side * local.z as usize) * rows + local.y as usize)
        };
        if scratch.canopy.is_empty() {
            let tree = Tree { root: IVec3::ZERO, trunk: 1 };
            scratch.canopy = tree.leaves().collect();
        }
        for tree in self.trees_at(self.index(x, z)) {
            for &leaf in &scratch.canopy {
                if let Some(i) = index(tree.top() + leaf)
                    && blocks[i].is_air()
                {
                    blocks[i] = builtin::LEAVES;
                }
            }
        }
        for tree in self.trees_at(self.index(x, z)) {
            for i in tree.logs().filter_map(index) {
                blocks[i] = builtin::LOG;
            }
        }
        // The square through the mip rule down to one column, `step` blocks a cell.
        while scratch.blocks.width > 1 {
            scratch.blocks.halve_into(&mut scratch.next);
            std::mem::swap(&mut scratch.blocks, &mut scratch.next);
        }
        out[first..=last].copy_from_slice(scratch.blocks.column(0, 0));
        last + 1
    }
}

/// Buffers one worker reuses for every sample a real tree reaches (the generation pool's
/// threads share two malloc arenas).
#[derive(Default)]
struct TreeScratch {
    blocks: Cells,
    next: Cells,
    /// A canopy's leaves relative to its tree's top (`Tree::leaves`), listed once.
    canopy: Vec<IVec3>,
}

/// The full generator's tree roots whose leaves reach `width` × `width` blocks from `origin`:
/// `(x, z, trunk, ground height)` of each column its hash roots a tree in (one hash per column;
/// whether the tree grows is decided from the samples).
fn tree_roots(noise: &Noise, origin: IVec2, width: i32) -> Vec<(i32, i32, i32, i32)> {
    let mut roots = Vec::new();
    for z in origin.y - LEAF_RADIUS..origin.y + width + LEAF_RADIUS {
        for x in origin.x - LEAF_RADIUS..origin.x + width + LEAF_RADIUS {
            if let Some(trunk) = noise.tree_trunk(x, z) {
                roots.push((x, z, trunk, noise.height(x, z)));
            }
        }
    }
    roots
}

/// `ground` with the full generator's caves opened where they reach its surface: the ground
/// drops to the first block under it that the cave noise leaves, but not below the sea: a
/// `Column` under the sea level is under water, and a pit on high ground is dry, so its floor
/// stops just above the sea.
fn pit_floor(caves: &CaveGrid, at: IVec2, ground: Column) -> Column {
    let mut y = ground.height;
    while y > SEA_LEVEL + 1 && carves(caves.value(IVec3::new(at.x, y, at.y)), y, ground.height) {
        y -= PIT_STEP;
    }
    if y == ground.height {
        return ground;
    }
    Column { height: y, top: ground.block(y), under: ground.block(y - 1) }
}

/// The highest solid block of a sample column in heights `low..=high`: leaves over water over
/// the ground (`canopy`: the y of the highest leaf of a tree standing there).
fn highest_block(ground: &Column, canopy: Option<i32>, low: i32, high: i32) -> BlockId {
    let above_ground = high > ground.height;
    if above_ground && canopy.is_some_and(|top| low <= top) {
        return builtin::LEAVES;
    }
    if above_ground && ground.height < SEA_LEVEL && low <= SEA_LEVEL {
        return builtin::WATER;
    }
    if low > ground.height {
        return BlockId::AIR;
    }
    ground.block(high.min(ground.height))
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
    /// The grid over blocks `low..high` (x and z) and heights up to `highest`.
    fn new(noise: &Noise, low: IVec2, high: IVec2, highest: i32, cell: i32) -> Self {
        let spacing = cell.max(CAVE_CELL);
        // On the lattice of that spacing, so one cell column alone samples the same points as
        // its whole node column.
        let first = low.div_euclid(IVec2::splat(spacing));
        let points = (high - IVec2::ONE).div_euclid(IVec2::splat(spacing)) - first + 2;
        let origin = IVec3::new(first.x * spacing, 0, first.y * spacing);
        let size = IVec3::new(points.x, highest / spacing + 2, points.y);
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
        let t = ((local - cell * self.spacing).as_dvec3() / f64::from(self.spacing))
            .clamp(glam::DVec3::ZERO, glam::DVec3::ONE);
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
