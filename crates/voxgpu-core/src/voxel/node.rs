//! Level-of-detail nodes: a level-`L` node is a 32³ grid of cells `2^L` blocks wide, so it covers
//! `2^L × 2^L × 2^L` chunks. Level 0 is the chunk itself. Nodes of one level tile the world; a
//! level-`L` node's eight children are the level-`L − 1` nodes inside it.
//!
//! A node's cells follow the mip rule (`voxel::mips`): where its children are known, its cells are
//! their level-1 mips side by side ([`node_from_children`]); far terrain is generated at the node's
//! resolution directly (`worldgen::terrain`).

use glam::{IVec2, IVec3, Vec3};

use super::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, downsample};

/// The coarsest node level: a level-11 node spans 65,536 blocks.
pub const MAX_NODE_LEVEL: u32 = 11;

/// A node: its level and its position in level-`level` node units (`block.div_euclid(32 << level)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeKey {
    /// Cells are `2^level` blocks wide: 0 is a chunk, [`MAX_NODE_LEVEL`] the coarsest.
    pub level: u32,
    /// Position in level-`level` node units, `32 << level` blocks each.
    pub pos: IVec3,
}

/// Ordered by level, then (x, y, z), so node sets and sorted lists are deterministic.
impl Ord for NodeKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.level, self.pos.to_array()).cmp(&(other.level, other.pos.to_array()))
    }
}

impl PartialOrd for NodeKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl NodeKey {
    /// The level-`level` node at `pos`, in that level's node units.
    pub fn new(level: u32, pos: IVec3) -> Self {
        Self { level, pos }
    }

    /// The level-0 node that is chunk `pos`.
    pub fn chunk(pos: ChunkPos) -> Self {
        Self::new(0, pos.0)
    }

    /// The chunk position when this is a level-0 node.
    pub fn as_chunk(self) -> Option<ChunkPos> {
        (self.level == 0).then(|| ChunkPos(self.pos))
    }

    /// Blocks per cell: `2^level`.
    pub fn cell_blocks(self) -> i32 {
        1 << self.level
    }

    /// Blocks per node edge: `32 · 2^level`.
    pub fn size(self) -> i32 {
        CHUNK_SIZE as i32 * self.cell_blocks()
    }

    /// World block coordinates of the node's minimum corner.
    pub fn origin(self) -> IVec3 {
        self.pos * self.size()
    }

    /// The node's box `[origin, origin + size]`: its geometry at every level of detail, and its
    /// culling box.
    pub fn aabb(self) -> (Vec3, Vec3) {
        let min = self.origin().as_vec3();
        (min, min + Vec3::splat(self.size() as f32))
    }

    /// The same-level node `offset` nodes away.
    pub fn neighbour(self, offset: IVec3) -> Self {
        Self::new(self.level, self.pos + offset)
    }

    /// The level-`level + 1` node that contains this one. Nothing caps it at [`MAX_NODE_LEVEL`].
    pub fn parent(self) -> Self {
        Self::new(self.level + 1, self.pos.div_euclid(IVec3::splat(2)))
    }

    /// The eight children, octant `i` at offset `(i & 1, i >> 1 & 1, i >> 2)`. Level 0 has none.
    pub fn children(self) -> [NodeKey; 8] {
        debug_assert!(self.level > 0);
        std::array::from_fn(|i| Self::new(self.level - 1, self.pos * 2 + octant(i)))
    }

    /// The column of nodes this one stands in.
    pub fn column(self) -> NodeColumn {
        NodeColumn { level: self.level, xz: IVec2::new(self.pos.x, self.pos.z) }
    }
}

/// Offset of child octant `i` (x in bit 0, y in bit 1, z in bit 2).
pub fn octant(i: usize) -> IVec3 {
    IVec3::new((i & 1) as i32, (i >> 1 & 1) as i32, (i >> 2 & 1) as i32)
}

/// A vertical column of same-level nodes: the unit of generation and residency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeColumn {
    /// Level of the column's nodes.
    pub level: u32,
    /// Position in level-`level` node units.
    pub xz: IVec2,
}

/// Ordered by level, then (x, z).
impl Ord for NodeColumn {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.level, self.xz.to_array()).cmp(&(other.level, other.xz.to_array()))
    }
}

impl PartialOrd for NodeColumn {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl NodeColumn {
    /// The level-`level` column at `xz`, in that level's node units.
    pub fn new(level: u32, xz: IVec2) -> Self {
        Self { level, xz }
    }

    /// Blocks per node edge.
    pub fn size(self) -> i32 {
        CHUNK_SIZE as i32 * (1 << self.level)
    }

    /// World x and z of the column's minimum corner.
    pub fn origin(self) -> IVec2 {
        self.xz * self.size()
    }

    /// The node at height `y` (in node units) of this column.
    pub fn node(self, y: i32) -> NodeKey {
        NodeKey::new(self.level, IVec3::new(self.xz.x, y, self.xz.y))
    }

    /// The level-`level + 1` column that contains this one.
    pub fn parent(self) -> NodeColumn {
        NodeColumn::new(self.level + 1, self.xz.div_euclid(IVec2::splat(2)))
    }

    /// The four child columns (x in bit 0, z in bit 1). Level 0 has none.
    pub fn children(self) -> [NodeColumn; 4] {
        debug_assert!(self.level > 0);
        std::array::from_fn(|i| {
            NodeColumn::new(self.level - 1, self.xz * 2 + IVec2::new((i & 1) as i32, (i >> 1) as i32))
        })
    }

    /// Whether chunk column `xz` (in chunks) lies under this column's footprint.
    pub fn covers_chunk_column(self, xz: IVec2) -> bool {
        xz.div_euclid(IVec2::splat(1 << self.level)) == self.xz
    }

    /// Horizontal distance from `(x, z)` to the column's footprint (0 inside it).
    pub fn distance(self, point: glam::Vec2) -> f32 {
        let min = self.origin().as_vec2();
        let max = min + glam::Vec2::splat(self.size() as f32);
        (min - point).max(point - max).max(glam::Vec2::ZERO).length()
    }
}

/// A node's cells from its eight children (`None`: all air): each child's level-1 mip fills the
/// child's octant. This is the mip rule one level up, so a node built this way holds exactly what
/// its children's mips say (the CPU twin of the GPU's build from children).
pub fn node_from_children(children: &[Option<&Chunk>; 8]) -> Chunk {
    let half = CHUNK_SIZE / 2;
    let mut node = Chunk::empty();
    for (i, child) in children.iter().enumerate() {
        let Some(child) = child else { continue };
        let mip = downsample(child.voxels(), CHUNK_SIZE);
        let at = octant(i).as_uvec3() * half as u32;
        for z in 0..half {
            for y in 0..half {
                for x in 0..half {
                    let block: BlockId = mip[x + half * (y + half * z)];
                    node.set(at.x as usize + x, at.y as usize + y, at.z as usize + z, block);
                }
            }
        }
    }
    node
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_column_covers_the_chunk_columns_its_children_do() {
        for column in [NodeColumn::new(0, IVec2::new(-3, 5)), NodeColumn::new(2, IVec2::new(-1, 0))] {
            let mut under: Vec<IVec2> = vec![column.xz];
            for _ in 0..column.level {
                under =
                    under.iter().flat_map(|&xz| NodeColumn::new(1, xz).children().map(|c| c.xz)).collect();
            }
            for z in -12..12 {
                for x in -12..12 {
                    let xz = IVec2::new(x, z);
                    assert_eq!(column.covers_chunk_column(xz), under.contains(&xz), "{column:?} {xz}");
                }
            }
        }
    }

    use super::*;

    #[test]
    fn nodes_nest_and_tile() {
        let n = NodeKey::new(2, IVec3::new(-1, 0, 3));
        assert_eq!(n.size(), 128);
        assert_eq!(n.origin(), IVec3::new(-128, 0, 384));
        assert_eq!(n.parent(), NodeKey::new(3, IVec3::new(-1, 0, 1)));
        for child in n.children() {
            assert_eq!(child.parent(), n);
            let (min, max) = child.aabb();
            let (pmin, pmax) = n.aabb();
            assert!(min.cmpge(pmin).all() && max.cmple(pmax).all());
        }
        assert_eq!(n.column().children().map(|c| c.parent()), [n.column(); 4]);
        assert_eq!(NodeKey::chunk(ChunkPos::new(1, 2, 3)).origin(), IVec3::new(32, 64, 96));
    }

    #[test]
    fn a_node_from_children_is_their_mip() {
        let stone = BlockId(1);
        let full = Chunk::filled(stone);
        let mut children: [Option<&Chunk>; 8] = [None; 8];
        children[5] = Some(&full);
        let node = node_from_children(&children);
        let at = octant(5) * 16;
        assert_eq!(node.get(at.x as usize, at.y as usize, at.z as usize), stone);
        assert_eq!(node.get(31, 15, 31), stone);
        assert_eq!(node.get(0, 0, 0), BlockId::AIR);
        assert_eq!(node.voxels().iter().filter(|b| **b == stone).count(), 16 * 16 * 16);
    }
}
