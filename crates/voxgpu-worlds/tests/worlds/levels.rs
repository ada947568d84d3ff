//! How far the levels of detail look like the world, measured on the real terrain generator
//! (trees and caves included) with full detail as the reference:
//!
//! - *the rule*: at levels 1–4, each cell column's top-visible block of the mip against the most
//!   common top-visible block of full detail over the cell's footprint;
//! - *the generator*: at levels 3–7, the top-visible block of each coarse cell column against the
//!   mip of full detail at the same level;
//! - *nothing floats*: at each level, no solid component hangs free of the ground where its full
//!   detail stands on it.
//!
//! Agreement is the share of cell columns whose two blocks are the same; ΔE is CIELAB ΔE*76
//! between the two blocks' top-face tile averages (what a far pixel shows). `docs/LOD.md` keeps
//! the figures.

use std::collections::HashMap;

use glam::IVec2;
use voxgpu_core::color::{delta_e, srgb_to_lab};
use voxgpu_core::voxel::{Atlas, BlockId, BlockRegistry, CHUNK_SIZE, Chunk, cell_block};
use voxgpu_worlds::worldgen::TerrainColumns;

/// Terrain's height in blocks (y `0..256`).
const HEIGHT: usize = 256;
const SEEDS: [u64; 3] = [1, 2, 3];
/// Random chunk columns per seed for the rule (each holds every level 1–4 cell column above it).
const RULE_COLUMNS: usize = 16;
/// Random cell columns per level and seed for the generator: 384 per level over the seeds, so
/// one standard error of a share near 85% is under 2 points.
const GENERATOR_CELLS: usize = 128;
/// Sampled places lie within this many blocks of the origin on each axis.
const SPREAD: i32 = 12_000;

/// A box of blocks `width` × 256 × `width`, x fastest, then y, then z.
struct Volume {
    width: usize,
    height: usize,
    cells: Vec<BlockId>,
}

impl Volume {
    fn at(&self, x: usize, y: usize, z: usize) -> BlockId {
        self.cells[x + self.width * (y + self.height * z)]
    }

    /// Full detail over `width` × `width` block columns from block `(x0, z0)` (chunk-aligned
    /// when `width` is 32 or more), from chunk columns kept in `cache`.
    fn full_detail(
        terrain: &TerrainColumns,
        cache: &mut ChunkColumns,
        x0: i32,
        z0: i32,
        width: usize,
    ) -> Self {
        let mut cells = vec![BlockId::AIR; width * HEIGHT * width];
        let size = CHUNK_SIZE as i32;
        for z in 0..width as i32 {
            for x in 0..width as i32 {
                let (bx, bz) = (x0 + x, z0 + z);
                let column = cache.get(terrain, IVec2::new(bx, bz).div_euclid(IVec2::splat(size)));
                let (lx, lz) = (bx.rem_euclid(size) as usize, bz.rem_euclid(size) as usize);
                for (cy, chunk) in column.iter().enumerate() {
                    let Some(chunk) = chunk else { continue };
                    for ly in 0..CHUNK_SIZE {
                        let y = cy * CHUNK_SIZE + ly;
                        cells[x as usize + width * (y + HEIGHT * z as usize)] = chunk.get(lx, ly, lz);
                    }
                }
            }
        }
        Self { width, height: HEIGHT, cells }
    }

    /// The next level up, by the engine's mip rule over each 2×2×2 cell.
    fn mip(&self) -> Self {
        self.mip_by(cell_block)
    }

    /// The next level up by `rule` over each 2×2×2 cell (children `x | y << 1 | z << 2`).
    fn mip_by(&self, rule: fn(&[BlockId; 8]) -> BlockId) -> Self {
        let (width, height) = (self.width / 2, self.height / 2);
        let mut cells = vec![BlockId::AIR; width * height * width];
        for z in 0..width {
            for y in 0..height {
                for x in 0..width {
                    let below: [BlockId; 8] = std::array::from_fn(|i| {
                        self.at(2 * x + (i & 1), 2 * y + (i >> 1 & 1), 2 * z + (i >> 2))
                    });
                    cells[x + width * (y + height * z)] = rule(&below);
                }
            }
        }
        Self { width, height, cells }
    }

    /// The highest non-air block of column `(x, z)`, or air.
    fn top(&self, x: usize, z: usize) -> BlockId {
        (0..self.height).rev().map(|y| self.at(x, y, z)).find(|b| !b.is_air()).unwrap_or(BlockId::AIR)
    }
}

/// Generated chunk columns by position, each as its 8 chunks bottom up (`None`: all air).
#[derive(Default)]
struct ChunkColumns(HashMap<IVec2, Vec<Option<Chunk>>>);

impl ChunkColumns {
    fn get(&mut self, terrain: &TerrainColumns, column: IVec2) -> &[Option<Chunk>] {
        self.0.entry(column).or_insert_with(|| {
            let mut chunks = vec![None; HEIGHT / CHUNK_SIZE];
            for (pos, chunk) in terrain.column(column) {
                chunks[pos.0.y as usize] = Some(chunk);
            }
            chunks
        })
    }
}

/// The most common of `blocks`, ties to the lowest id.
fn most_common(blocks: impl Iterator<Item = BlockId>) -> BlockId {
    let mut counts: HashMap<BlockId, usize> = HashMap::new();
    for b in blocks {
        *counts.entry(b).or_default() += 1;
    }
    counts.into_iter().max_by(|(a, n), (b, m)| n.cmp(m).then(b.cmp(a))).map_or(BlockId::AIR, |(b, _)| b)
}

/// ΔE between two blocks' top faces as a far pixel shows them: each block's top tile average.
struct TopColours(Vec<[f64; 3]>);

impl TopColours {
    fn new() -> Self {
        let registry = BlockRegistry::builtin();
        let averages = Atlas::builtin().averages();
        Self(
            registry
                .iter()
                .map(|(_, info)| {
                    let [r, g, b, _] = averages[info.tiles.top as usize];
                    srgb_to_lab([r, g, b])
                })
                .collect(),
        )
    }

    /// ΔE*76 between the top faces of `a` and `b`. Air (a column with nothing in it) counts as
    /// 100 against any block: as far as a colour can be.
    fn delta_e(&self, a: BlockId, b: BlockId) -> f64 {
        if a == b {
            return 0.0;
        }
        if a.is_air() || b.is_air() {
            return 100.0;
        }
        delta_e(self.0[a.0 as usize], self.0[b.0 as usize])
    }
}

/// Agreement and colour distance over one level's compared pairs.
#[derive(Default)]
struct Tally {
    cells: usize,
    agree: usize,
    delta_e: f64,
}

impl Tally {
    fn add(&mut self, colours: &TopColours, got: BlockId, reference: BlockId) {
        self.cells += 1;
        self.agree += usize::from(got == reference);
        self.delta_e += colours.delta_e(got, reference);
    }

    fn share(&self) -> f64 {
        self.agree as f64 / self.cells.max(1) as f64
    }

    fn mean_delta_e(&self) -> f64 {
        self.delta_e / self.cells.max(1) as f64
    }
}

/// A reproducible place: splitmix64 of `(seed, salt, i)`, spread over ±`SPREAD` blocks.
fn place(seed: u64, salt: u64, i: usize) -> IVec2 {
    let mut z =
        seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut next = || {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut v = z;
        v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        v ^ (v >> 31)
    };
    let mut coordinate = || (next() % (2 * SPREAD as u64)) as i32 - SPREAD;
    IVec2::new(coordinate(), coordinate())
}

/// `rule` against full detail at levels 1–4 over `RULE_COLUMNS` chunk columns of `seed`.
fn rule_tallies(seed: u64, colours: &TopColours, rule: fn(&[BlockId; 8]) -> BlockId) -> [Tally; 4] {
    let terrain = TerrainColumns::new(seed);
    let mut tallies: [Tally; 4] = Default::default();
    for i in 0..RULE_COLUMNS {
        let column = place(seed, 1, i).div_euclid(IVec2::splat(CHUNK_SIZE as i32));
        let mut cache = ChunkColumns::default();
        let origin = column * CHUNK_SIZE as i32;
        let full = Volume::full_detail(&terrain, &mut cache, origin.x, origin.y, CHUNK_SIZE);
        let mut level = full.mip_by(rule);
        for tally in &mut tallies {
            let cell = CHUNK_SIZE / level.width;
            for z in 0..level.width {
                for x in 0..level.width {
                    let footprint =
                        (0..cell * cell).map(|j| full.top(x * cell + j % cell, z * cell + j / cell));
                    tally.add(colours, level.top(x, z), most_common(footprint));
                }
            }
            level = level.mip_by(rule);
        }
    }
    tallies
}

/// The coarse generator against the mip of full detail at levels 3–7, `GENERATOR_CELLS` random
/// cell columns per level of `seed`.
fn generator_tallies(seed: u64, colours: &TopColours) -> [Tally; 5] {
    let terrain = TerrainColumns::new(seed);
    std::array::from_fn(|l| {
        let level = l as u32 + 3;
        let cell = 1i32 << level;
        let mut cache = ChunkColumns::default();
        let mut tally = Tally::default();
        for i in 0..GENERATOR_CELLS {
            let at = place(seed, 2 + u64::from(level), i).div_euclid(IVec2::splat(cell));
            let origin = at * cell;
            let mut mip = Volume::full_detail(&terrain, &mut cache, origin.x, origin.y, cell as usize);
            for _ in 0..level {
                mip = mip.mip();
            }
            let coarse = terrain.coarse_cells(level, at);
            let top = coarse.iter().rev().copied().find(|b| !b.is_air()).unwrap_or(BlockId::AIR);
            tally.add(colours, top, mip.top(0, 0));
            if cache.0.len() > 256 {
                cache.0.clear();
            }
        }
        tally
    })
}

/// Runs `f` for each seed on its own thread, in seed order.
fn per_seed<T: Send>(f: impl Fn(u64) -> T + Sync) -> Vec<T> {
    std::thread::scope(|scope| {
        let f = &f;
        let runs: Vec<_> = SEEDS.iter().map(|&seed| scope.spawn(move || f(seed))).collect();
        runs.into_iter().map(|r| r.join().expect("a seed's measure panicked")).collect()
    })
}

fn report(what: &str, first_level: u32, per_seed: &[Vec<Tally>]) -> Vec<(f64, f64)> {
    let levels = per_seed[0].len();
    (0..levels)
        .map(|l| {
            let mut all = Tally::default();
            let mut line = format!("{what} level {}:", first_level + l as u32);
            for (seed, tallies) in SEEDS.iter().zip(per_seed) {
                let t = &tallies[l];
                line += &format!(
                    "  seed {seed} {:.1}% ΔE {:.2} ({} cells)",
                    100.0 * t.share(),
                    t.mean_delta_e(),
                    t.cells
                );
                all.cells += t.cells;
                all.agree += t.agree;
                all.delta_e += t.delta_e;
            }
            line += &format!("  | all {:.1}% ΔE {:.2}", 100.0 * all.share(), all.mean_delta_e());
            println!("{line}");
            (all.share(), all.mean_delta_e())
        })
        .collect()
}

// The aim is 90% agreement and a mean ΔE of at most 5 at every level; neither the rule nor the
// generator reaches it yet (`docs/LOD.md` says where they fall short and why). The floors below
// are regression guards under today's figures, not the aim: a change that drops a level below its
// floor has made the far view look less like the world.

#[test]
fn a_coarse_cell_shows_the_block_full_detail_shows_from_above() {
    let colours = TopColours::new();
    let tallies = per_seed(|seed| {
        let new = rule_tallies(seed, &colours, cell_block);
        let old = rule_tallies(seed, &colours, half_rule);
        new.into_iter().chain(old).collect::<Vec<_>>()
    });
    let (new, old): (Vec<Vec<Tally>>, Vec<Vec<Tally>>) = tallies
        .into_iter()
        .map(|mut t| {
            let old = t.split_off(4);
            (t, old)
        })
        .unzip();
    let new = report("rule", 1, &new);
    let old = report("rule before (4 of 8, most frequent)", 1, &old);
    // Today's figures: 87.5, 84.1, 75.5, 81.8% and ΔE 4.6, 7.1, 10.2, 10.0.
    let floors = [(0.85, 5.5), (0.80, 8.5), (0.70, 12.0), (0.75, 12.0)];
    for (l, ((&(share, delta_e), &(old_share, old_delta_e)), (floor, ceiling))) in
        new.iter().zip(&old).zip(floors).enumerate()
    {
        let level = l + 1;
        assert!(
            share >= old_share + 0.10 && delta_e < old_delta_e,
            "level {level}: the rule agrees on {:.1}% (ΔE {delta_e:.2}), the old one on {:.1}% (ΔE {old_delta_e:.2})",
            100.0 * share,
            100.0 * old_share
        );
        assert!(
            share >= floor && delta_e <= ceiling,
            "level {level}: {:.1}% agree, ΔE {delta_e:.2}: under the floor",
            100.0 * share
        );
    }
}

#[test]
fn coarse_generation_matches_the_mip_of_full_detail() {
    let colours = TopColours::new();
    let tallies = per_seed(|seed| generator_tallies(seed, &colours).into_iter().collect::<Vec<_>>());
    // Today's figures: 88.5, 83.6, 81.0, 78.1, 82.8% and ΔE 5.2, 7.6, 11.3, 13.9, 14.4.
    let floors = [(0.85, 6.0), (0.80, 9.0), (0.78, 12.5), (0.74, 15.5), (0.78, 17.0)];
    for (l, ((share, delta_e), (floor, ceiling))) in
        report("generator", 3, &tallies).into_iter().zip(floors).enumerate()
    {
        assert!(
            share >= floor && delta_e <= ceiling,
            "level {}: {:.1}% agree, ΔE {delta_e:.2}: under the floor",
            l + 3,
            100.0 * share
        );
    }
}

/// For each solid cell, whether a chain of solid cells touching at faces, edges or corners joins
/// it to the bottom layer (the ground).
fn grounded(volume: &Volume) -> Vec<bool> {
    let (w, h) = (volume.width as i32, volume.height as i32);
    let index = |x: i32, y: i32, z: i32| (x + w * (y + h * z)) as usize;
    let mut seen = vec![false; volume.cells.len()];
    let mut stack = Vec::new();
    for z in 0..w {
        for x in 0..w {
            if !volume.at(x as usize, 0, z as usize).is_air() {
                seen[index(x, 0, z)] = true;
                stack.push((x, 0, z));
            }
        }
    }
    while let Some((x, y, z)) = stack.pop() {
        for d in 0..27 {
            let (nx, ny, nz) = (x + d % 3 - 1, y + d / 3 % 3 - 1, z + d / 9 - 1);
            if (0..w).contains(&nx) && (0..h).contains(&ny) && (0..w).contains(&nz) {
                let i = index(nx, ny, nz);
                if !seen[i] && !volume.cells[i].is_air() {
                    seen[i] = true;
                    stack.push((nx, ny, nz));
                }
            }
        }
    }
    seen
}

/// Solid components of `level` that do not reach the ground while a block of full detail inside
/// them does: what a viewer sees hanging in the air at that level and standing at full detail.
fn floating(full: &Volume, full_grounded: &[bool], level: &Volume) -> usize {
    let cell = full.width / level.width;
    let level_grounded = grounded(level);
    let (w, h) = (level.width, level.height);
    // Each loose component is walked once; it counts when a cell of it holds grounded full detail.
    let mut seen = level_grounded.clone();
    let mut count = 0;
    for start in 0..level.cells.len() {
        if seen[start] || level.cells[start].is_air() {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![start];
        let mut stands = false;
        while let Some(i) = stack.pop() {
            let (x, y, z) = (i % w, i / w % h, i / (w * h));
            stands |= (0..cell * cell * cell).any(|j| {
                let (fx, fy, fz) =
                    (x * cell + j % cell, y * cell + j / cell % cell, z * cell + j / (cell * cell));
                full_grounded[fx + full.width * (fy + full.height * fz)]
            });
            for d in 0..27 {
                let n = [x as i32 + d % 3 - 1, y as i32 + d / 3 % 3 - 1, z as i32 + d / 9 - 1];
                if n.iter().zip([w, h, w]).all(|(&c, size)| (0..size as i32).contains(&c)) {
                    let j = n[0] as usize + w * (n[1] as usize + h * n[2] as usize);
                    if !seen[j] && !level.cells[j].is_air() {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        count += usize::from(stands);
    }
    count
}

/// The mip rule before it was surface-true: solid from 4 of 8 children, the most frequent block.
fn half_rule(cell: &[BlockId; 8]) -> BlockId {
    if cell.iter().filter(|b| !b.is_air()).count() < 4 {
        return BlockId::AIR;
    }
    most_common(cell.iter().copied().filter(|b| !b.is_air()))
}

#[test]
fn nothing_floats_at_any_level() {
    use voxgpu_core::voxel::blocks::LOG;
    // 128 × 256 × 128 blocks in three places of forest (grass lowland), levels 1–5.
    const WIDTH: usize = 128;
    let places = [(1, IVec2::new(0, 0)), (2, IVec2::new(-512, 384)), (3, IVec2::new(1024, -256))];
    let (mut logs, mut loose_before) = (0, 0);
    for (seed, origin) in places {
        let terrain = TerrainColumns::new(seed);
        let full = Volume::full_detail(&terrain, &mut ChunkColumns::default(), origin.x, origin.y, WIDTH);
        logs += full.cells.iter().filter(|&&b| b == LOG).count();
        let full_grounded = grounded(&full);
        let (mut level, mut before) = (full.mip(), full.mip_by(half_rule));
        for l in 1..=5 {
            let loose = floating(&full, &full_grounded, &level);
            assert_eq!(loose, 0, "seed {seed} at {origin}: {loose} components float at level {l}");
            loose_before += floating(&full, &full_grounded, &before);
            (level, before) = (level.mip(), before.mip_by(half_rule));
        }
    }
    assert!(logs > 100, "only {logs} log blocks: these places hold too few trees to test");
    println!("{logs} log blocks; components floating under the 4-of-8 rule alone: {loose_before}");
    assert!(loose_before > 0, "the old rule floats nothing here either: the measure proves nothing");
}
