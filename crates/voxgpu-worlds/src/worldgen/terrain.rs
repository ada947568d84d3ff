//! The default seeded terrain: fbm hills, interpolated 3D-noise caves, a sea, beaches, snow caps
//! and trees. Every block is a pure function of (seed, world position), so a chunk comes out the
//! same whichever thread builds it, in whatever order, and whichever neighbours exist.

use glam::{IVec2, IVec3};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};

use super::{WorldParams, builtin, columns_in_view};
use caves::{CAVE_CELL, CaveLattice, carves, cave_value};
use voxgpu_core::voxel::{
    BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, LocalPos, NodeColumn, NodeKey, World, voxel_index,
};

mod caves;
mod coarse;
#[cfg(test)]
mod tests;

/// Terrain occupies world y `0..WORLD_HEIGHT`: 8 chunks, which keeps a column's chunk count
/// fixed and small for streaming.
pub(super) const WORLD_HEIGHT: i32 = 256;
/// Air at or below this y and above the ground is water.
pub(super) const SEA_LEVEL: i32 = 64;
/// Ground at or above this y (give or take two blocks of per-column jitter) is snow.
const SNOW_LINE: i32 = 170;
/// Ground above this y is bare rock: too high for soil, below the snow.
const TREE_LINE: i32 = 150;
/// Layers of dirt (or sand) between the surface block and the stone.
const SOIL_DEPTH: i32 = 3;
/// A tree grows on about one grass column in this many.
const TREE_RARITY: u64 = 90;
/// Horizontal reach of a tree's leaves from its trunk. A chunk checks tree roots this far
/// outside its own columns, which is why trees are never cut at chunk borders.
const LEAF_RADIUS: i32 = 2;
/// The highest leaf sits at most this far above the ground block.
const TREE_HEADROOM: i32 = 8;

const SIZE: i32 = CHUNK_SIZE as i32;

/// The noise fields of one seed. Built once per [`generate`] and shared (read-only) by all
/// threads.
struct Noise {
    seed: u64,
    /// Rolling hills and valleys, the main shape of the height map.
    hills: Fbm<Perlin>,
    /// A slow mask that raises mountain ranges in some regions and keeps others lowland.
    ranges: Perlin,
    caves: Fbm<Perlin>,
}

impl Noise {
    fn new(seed: u64) -> Self {
        let sub_seed = |salt: u64| (mix(seed ^ salt) >> 32) as u32;
        Self {
            seed,
            hills: Fbm::<Perlin>::new(sub_seed(1)).set_octaves(5).set_frequency(1.0 / 220.0),
            ranges: Perlin::new(sub_seed(2)),
            caves: Fbm::<Perlin>::new(sub_seed(3)).set_octaves(2).set_frequency(1.0 / 48.0),
        }
    }

    /// The y of the top solid block of column `(x, z)`, before caves.
    fn height(&self, x: i32, z: i32) -> i32 {
        let (x, z) = (f64::from(x), f64::from(z));
        let hills = self.hills.get([x, z]);
        let range = self.ranges.get([x / 600.0, z / 600.0]);
        // Mountains only where the range mask is high, so lowland and sea stay common.
        let mountain = smoothstep(0.0, 0.6, range) * (1.0 + hills).max(0.0);
        let h = f64::from(SEA_LEVEL) + 6.0 + hills * 55.0 + mountain * 75.0;
        (h as i32).clamp(1, WORLD_HEIGHT - TREE_HEADROOM - 1)
    }

    /// Cave noise at lattice point `cell` (world position `cell * CAVE_CELL`). Vertically
    /// stretched so caves run more sideways than up.
    fn cave_sample(&self, cell: IVec3) -> f64 {
        self.cave_at(cell * CAVE_CELL)
    }

    /// Cave noise at world block `p`, as `cave_sample` takes it at lattice points.
    fn cave_at(&self, p: IVec3) -> f64 {
        let p = p.as_dvec3();
        self.caves.get([p.x, p.y * 1.6, p.z])
    }

    /// Surface height and ground materials of column `(x, z)`, computed from scratch: for
    /// tree roots outside the chunk being built.
    fn column(&self, x: i32, z: i32) -> Column {
        let h = self.height(x, z);
        let neighbours = [(1, 0), (-1, 0), (0, 1), (0, -1)].map(|(dx, dz)| self.height(x + dx, z + dz));
        self.classify(x, z, h, neighbours)
    }

    /// Ground materials of column `(x, z)` at height `h`, given its four neighbours' heights
    /// (which put bare stone on cliffs). Shared by the chunk's height map and [`Self::column`],
    /// so both always agree.
    fn classify(&self, x: i32, z: i32, h: i32, neighbours: [i32; 4]) -> Column {
        let slope = neighbours.iter().map(|n| (n - h).abs()).max().unwrap_or(0);
        let jitter = (hash(self.seed, x, z, 7) % 5) as i32 - 2;
        let (top, under) = match h {
            _ if h <= SEA_LEVEL - 6 => (builtin::GRAVEL, builtin::GRAVEL),
            _ if h <= SEA_LEVEL + 2 => (builtin::SAND, builtin::SAND),
            _ if h >= SNOW_LINE + jitter => (builtin::SNOW, builtin::STONE),
            _ if h >= TREE_LINE + jitter || slope >= 4 => (builtin::STONE, builtin::STONE),
            _ => (builtin::GRASS, builtin::DIRT),
        };
        Column { height: h, top, under }
    }

    /// The tree rooted in column `(x, z)`, if one grows there.
    fn tree(&self, x: i32, z: i32) -> Option<Tree> {
        let trunk = self.tree_trunk(x, z)?;
        let column = self.column(x, z);
        let ground = IVec3::new(x, column.height, z);
        let ground_carved = carves(cave_value(|c| self.cave_sample(c), ground), column.height, column.height);
        if column.top != builtin::GRASS || ground_carved {
            return None;
        }
        Some(Tree { root: ground + IVec3::Y, trunk })
    }

    /// The trunk height of the tree column `(x, z)`'s hash roots, if it roots one: where a tree
    /// grows when its ground is grass and no cave opens it ([`Self::tree`]).
    fn tree_trunk(&self, x: i32, z: i32) -> Option<i32> {
        let roll = hash(self.seed, x, z, 11);
        roll.is_multiple_of(TREE_RARITY).then(|| 4 + ((roll / TREE_RARITY) % 3) as i32)
    }
}

/// What the ground of one column is made of.
#[derive(Clone, Copy)]
struct Column {
    height: i32,
    top: BlockId,
    under: BlockId,
}

impl Column {
    /// The block at `y`, before caves and trees.
    fn block(&self, y: i32) -> BlockId {
        let depth = self.height - y;
        match depth {
            ..0 if y <= SEA_LEVEL => builtin::WATER,
            ..0 => BlockId::AIR,
            0 => self.top,
            1..=SOIL_DEPTH => self.under,
            _ => builtin::STONE,
        }
    }
}

/// A log trunk from `root` up `trunk` blocks, with a leaf blob around its top.
struct Tree {
    root: IVec3,
    trunk: i32,
}

impl Tree {
    fn top(&self) -> IVec3 {
        self.root + IVec3::Y * (self.trunk - 1)
    }

    /// Leaf cells: a rounded 5x5 skirt for two layers under the trunk top, 5x5 at the top,
    /// 3x3 above it and a single cap block.
    fn leaves(&self) -> impl Iterator<Item = IVec3> + '_ {
        let r = LEAF_RADIUS;
        (-2..=2).flat_map(move |dy| {
            let reach2 = match dy {
                ..=0 => 5,
                1 => 2,
                _ => 0,
            };
            (-r..=r).flat_map(move |dz| {
                (-r..=r)
                    .filter(move |dx| dx * dx + dz * dz <= reach2)
                    .map(move |dx| self.top() + IVec3::new(dx, dy + 1, dz))
            })
        })
    }

    fn logs(&self) -> impl Iterator<Item = IVec3> + '_ {
        (0..self.trunk).map(|dy| self.root + IVec3::Y * dy)
    }
}

/// Builds every chunk of every column in the view circle on `threads` threads.
///
/// Columns are dealt round-robin, so near and far columns (which differ in cost) spread evenly.
/// The result does not depend on `threads`: a test compares 1 against several.
pub(super) fn generate(params: &WorldParams, threads: usize) -> World {
    let noise = Noise::new(params.seed);
    let columns = columns_in_view(params.center, params.view_distance);
    let threads = threads.clamp(1, columns.len().max(1));
    let mut world = World::new(BlockRegistry::builtin());
    if threads == 1 {
        // On this thread: where threads cannot be spawned (the browser) and where one would idle.
        for &c in &columns {
            generate_column(&noise, c).into_iter().for_each(|(pos, chunk)| world.insert(pos, chunk));
        }
        return world;
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (noise, columns) = (&noise, &columns);
                scope.spawn(move || {
                    let mine = columns.iter().skip(t).step_by(threads);
                    mine.flat_map(|&c| generate_column(noise, c)).collect::<Vec<_>>()
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(chunks) => chunks.into_iter().for_each(|(pos, chunk)| world.insert(pos, chunk)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    world
}

/// A change applied to each generated chunk column (its position, its chunks bottom up) before
/// nodes are built from it.
pub type ChunkColumnEdit = dyn Fn(IVec2, Vec<(ChunkPos, Chunk)>) -> Vec<(ChunkPos, Chunk)> + Sync;

/// Terrain generated one chunk column at a time, for streaming: the same blocks as
/// [`crate::worldgen::generate`] gives, column for column. Cheap to share between threads.
pub struct TerrainColumns {
    noise: Noise,
}

impl TerrainColumns {
    pub fn new(seed: u64) -> Self {
        Self { noise: Noise::new(seed) }
    }

    /// All non-empty chunks of chunk column `column` (x, z), bottom up.
    pub fn column(&self, column: IVec2) -> Vec<(ChunkPos, Chunk)> {
        generate_column(&self.noise, column)
    }

    /// The y above the top of the ground or the sea in column `(x, z)`, trees and caves aside.
    pub fn surface(&self, x: i32, z: i32) -> i32 {
        self.noise.height(x, z).max(SEA_LEVEL) + 1
    }

    /// All non-empty nodes of a node column, bottom up: chunks at level 0; up to
    /// `EXACT_LEVELS` (2) the mip of the chunk columns under it (generated and dropped: exact, and
    /// no slower than sampling coarsely at those levels); above, cells generated at the node's
    /// resolution (`coarse.rs`).
    pub fn node_column(&self, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
        self.node_column_with(column, &|_, generated| generated)
    }

    /// [`Self::node_column`] with each chunk column passed through `edit` (its position and
    /// generated chunks in, the chunks to use out) before anything is built from it: how a
    /// world store's edits reach the chunks and the exact levels above them. Levels above
    /// `EXACT_LEVELS` are sampled from the noise and do not see the edits.
    pub fn node_column_with(&self, column: NodeColumn, edit: &ChunkColumnEdit) -> Vec<(NodeKey, Chunk)> {
        if column.level <= EXACT_LEVELS {
            self.exact_node_column_with(column, edit)
        } else {
            self.coarse_node_column(column)
        }
    }

    /// A node column by the mip rule over full detail, level by level: 4^level chunk columns'
    /// work, so only for the first levels (and as the reference coarse generation is measured
    /// against).
    pub fn exact_node_column(&self, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
        self.exact_node_column_with(column, &|_, generated| generated)
    }

    fn exact_node_column_with(&self, column: NodeColumn, edit: &ChunkColumnEdit) -> Vec<(NodeKey, Chunk)> {
        if column.level == 0 {
            let chunks = edit(column.xz, self.column(column.xz));
            return chunks.into_iter().map(|(p, c)| (NodeKey::chunk(p), c)).collect();
        }
        let below: std::collections::HashMap<NodeKey, Chunk> =
            column.children().iter().flat_map(|c| self.exact_node_column_with(*c, edit)).collect();
        let mut parents: Vec<NodeKey> = below.keys().map(|k| k.parent()).collect();
        parents.sort();
        parents.dedup();
        parents
            .into_iter()
            .map(|p| (p, voxgpu_core::voxel::node_from_children(&p.children().map(|c| below.get(&c)))))
            .filter(|(_, node)| !node.is_empty())
            .collect()
    }

    /// A node column (level ≥ 1) generated at its own resolution, without full detail.
    pub fn coarse_node_column(&self, column: NodeColumn) -> Vec<(NodeKey, Chunk)> {
        coarse::node_column(&self.noise, column)
    }

    /// The cells of one column of level-`level` cells (`2^level` blocks wide, at cell
    /// coordinates `cell`) as coarse generation gives them, bottom up from y 0 to the top of the
    /// terrain: `256 >> level` ids (at least one). The same cells as that column of
    /// [`Self::coarse_node_column`], for a measure that samples cells rather than whole nodes.
    pub fn coarse_cells(&self, level: u32, cell: IVec2) -> Vec<BlockId> {
        coarse::cell_column(&self.noise, level, cell)
    }
}

/// Node levels built from full detail rather than generated coarsely: a level-2 column is 16
/// chunk columns, which costs about as much as sampling it coarsely (`docs/PERFORMANCE.md`).
pub const EXACT_LEVELS: u32 = 2;

/// All non-empty chunks of chunk column `(cx, cz)`, bottom up.
fn generate_column(noise: &Noise, column: IVec2) -> Vec<(ChunkPos, Chunk)> {
    let origin = column * SIZE;
    // Heights with a one-block margin, so every column's slope reads cached neighbours: five
    // times fewer height-noise calls than asking `Noise::column` per block.
    let span = SIZE + 2;
    let mut heights = Vec::with_capacity((span * span) as usize);
    for z in -1..=SIZE {
        for x in -1..=SIZE {
            heights.push(noise.height(origin.x + x, origin.y + z));
        }
    }
    let h = |x: i32, z: i32| heights[((x + 1) + (z + 1) * span) as usize];
    let mut ground = Vec::with_capacity(CHUNK_SIZE * CHUNK_SIZE);
    for z in 0..SIZE {
        for x in 0..SIZE {
            let neighbours = [h(x + 1, z), h(x - 1, z), h(x, z + 1), h(x, z - 1)];
            ground.push(noise.classify(origin.x + x, origin.y + z, h(x, z), neighbours));
        }
    }
    let r = LEAF_RADIUS;
    let mut trees = Vec::new();
    for z in origin.y - r..origin.y + SIZE + r {
        for x in origin.x - r..origin.x + SIZE + r {
            trees.extend(noise.tree(x, z));
        }
    }
    let highest_ground = ground.iter().map(|c| c.height).max().unwrap_or(0);
    let highest_tree = trees.iter().map(|t| t.top().y + 3).max().unwrap_or(0);
    let highest = highest_ground.max(highest_tree).max(SEA_LEVEL);
    (0..WORLD_HEIGHT / SIZE)
        .take_while(|cy| cy * SIZE <= highest)
        .map(|cy| {
            let pos = ChunkPos::new(column.x, cy, column.y);
            (pos, generate_chunk(noise, pos, &ground, highest_ground, &trees))
        })
        .collect()
}

/// One chunk: ground layers, water, caves, then trees. `ground` holds the chunk column's
/// 32x32 [`Column`]s (x fastest) and `trees` every tree that may reach into it.
fn generate_chunk(
    noise: &Noise,
    pos: ChunkPos,
    ground: &[Column],
    highest_ground: i32,
    trees: &[Tree],
) -> Chunk {
    let origin = pos.origin();
    let caves = (origin.y <= highest_ground).then(|| CaveLattice::new(noise, origin));
    let mut chunk = Chunk::empty();
    let voxels = chunk.voxels_mut();
    for z in 0..SIZE {
        for x in 0..SIZE {
            let column = ground[(x + z * SIZE) as usize];
            let cave = caves.as_ref().map(|c| c.column(x, z));
            for y in 0..SIZE {
                let world_y = origin.y + y;
                let mut block = column.block(world_y);
                if let Some(cave) = &cave
                    && world_y <= column.height
                    && carves(cave.value(y), world_y, column.height)
                {
                    block = BlockId::AIR;
                }
                voxels[voxel_index(x as usize, y as usize, z as usize)] = block;
            }
        }
    }
    // Leaves first, only into air; then logs over anything. Either way round the overlap of
    // two trees resolves the same, so tree order does not matter.
    let local = |p: IVec3| LocalPos::from_ivec3(p - origin).map(LocalPos::index);
    for leaf in trees.iter().flat_map(Tree::leaves).filter_map(local) {
        if voxels[leaf].is_air() {
            voxels[leaf] = builtin::LEAVES;
        }
    }
    for log in trees.iter().flat_map(Tree::logs).filter_map(local) {
        voxels[log] = builtin::LOG;
    }
    chunk
}

fn smoothstep(edge0: f64, edge1: f64, x: f64) -> f64 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// SplitMix64's finaliser: a cheap, well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A per-column random number: the same for the same `(seed, x, z, salt)` on every run and
/// every thread, which is what lets each chunk decide its neighbours' trees on its own.
fn hash(seed: u64, x: i32, z: i32, salt: u64) -> u64 {
    let xz = u64::from(x as u32) | (u64::from(z as u32) << 32);
    mix(mix(seed ^ salt.wrapping_mul(0x9E37_79B9)) ^ xz)
}
