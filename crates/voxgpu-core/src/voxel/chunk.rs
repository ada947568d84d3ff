//! The 32³ chunk and its position in the world.

use glam::{IVec3, Vec3};

use super::BlockId;

/// Edge length of a chunk in voxels. The mesher's column bitmasks are `u32`, one bit per voxel,
/// so this cannot change without changing the mesher on both sides.
pub const CHUNK_SIZE: usize = 32;
/// Voxels in a chunk: 32³ = 32,768.
pub const CHUNK_VOLUME: usize = CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE;

/// Index of local voxel `(x, y, z)` in [`Chunk::voxels`]: x fastest, then y, then z.
/// The GPU voxel pool uses the same order.
#[inline]
pub fn voxel_index(x: usize, y: usize, z: usize) -> usize {
    debug_assert!(x < CHUNK_SIZE && y < CHUNK_SIZE && z < CHUNK_SIZE);
    x + CHUNK_SIZE * (y + CHUNK_SIZE * z)
}

/// A chunk's position in chunk units: `world_block.div_euclid(32)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkPos(pub IVec3);

/// Ordered by (x, y, z), so sets and sorted lists of positions are deterministic.
impl Ord for ChunkPos {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.to_array().cmp(&other.0.to_array())
    }
}

impl PartialOrd for ChunkPos {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl ChunkPos {
    /// The chunk at chunk coordinates `(x, y, z)`, one unit per 32 blocks.
    pub fn new(x: i32, y: i32, z: i32) -> Self {
        Self(IVec3::new(x, y, z))
    }

    /// The chunk holding world block `block`, and the block's local coordinates in it.
    pub fn from_block(block: IVec3) -> (Self, IVec3) {
        let size = CHUNK_SIZE as i32;
        (Self(block.div_euclid(IVec3::splat(size))), block.rem_euclid(IVec3::splat(size)))
    }

    /// World coordinates of the chunk's minimum corner.
    pub fn origin(self) -> IVec3 {
        self.0 * CHUNK_SIZE as i32
    }

    /// The chunk `offset` chunks away (a face normal gives the face-adjacent chunk).
    pub fn neighbour(self, offset: IVec3) -> Self {
        Self(self.0 + offset)
    }
}

/// The world-space box `[min, max]` that a chunk's geometry occupies.
///
/// The mesher places block `i` on `[i, i + 1)`, so a chunk spans `[32·pos, 32·pos + 32]`. This is
/// the one definition of that extent: the mesher's tests check every quad lies inside it, and the
/// culling stage builds its AABB from it, so the two cannot drift apart.
pub fn chunk_aabb(pos: ChunkPos) -> (Vec3, Vec3) {
    let min = pos.origin().as_vec3();
    (min, min + Vec3::splat(CHUNK_SIZE as f32))
}

/// 32³ block ids. Boxed so moving a chunk moves a pointer, not 64 KiB.
#[derive(Clone, PartialEq, Eq)]
pub struct Chunk {
    voxels: Box<[BlockId; CHUNK_VOLUME]>,
}

impl Default for Chunk {
    fn default() -> Self {
        Self::empty()
    }
}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let solid = self.voxels.iter().filter(|b| !b.is_air()).count();
        write!(f, "Chunk {{ solid voxels: {solid} }}")
    }
}

impl Chunk {
    /// A chunk of air: every voxel [`BlockId::AIR`], allocated zeroed on the heap.
    pub fn empty() -> Self {
        Self { voxels: bytemuck::zeroed_box() }
    }

    /// A chunk with every voxel `block`.
    pub fn filled(block: BlockId) -> Self {
        let mut chunk = Self::empty();
        chunk.voxels.fill(block);
        chunk
    }

    /// The block at local voxel `(x, y, z)`, each coordinate in `0..32`. Only debug builds check
    /// the coordinates; in release an out-of-range `x` or `y` reads another voxel of the chunk, and
    /// the call panics only when the index runs past the end.
    #[inline]
    pub fn get(&self, x: usize, y: usize, z: usize) -> BlockId {
        self.voxels[voxel_index(x, y, z)]
    }

    /// [`Chunk::get`] taking `[x, y, z]`.
    #[inline]
    pub fn get_at(&self, [x, y, z]: [usize; 3]) -> BlockId {
        self.get(x, y, z)
    }

    /// Sets the block at local voxel `(x, y, z)`, with the same bounds as [`Chunk::get`].
    #[inline]
    pub fn set(&mut self, x: usize, y: usize, z: usize, block: BlockId) {
        self.voxels[voxel_index(x, y, z)] = block;
    }

    /// All voxels in [`voxel_index`] order.
    pub fn voxels(&self) -> &[BlockId; CHUNK_VOLUME] {
        &self.voxels
    }

    /// All voxels in [`voxel_index`] order, writable.
    pub fn voxels_mut(&mut self) -> &mut [BlockId; CHUNK_VOLUME] {
        &mut self.voxels
    }

    /// Whether every voxel is air (a scan of all 32,768).
    pub fn is_empty(&self) -> bool {
        self.voxels.iter().all(|b| b.is_air())
    }
}

/// A 64-bit FNV-1a hash of the chunk's voxels in [`voxel_index`] order: equal chunks hash
/// equally on every platform, so two builds of a world can be compared by their hashes.
pub fn digest(chunk: &Chunk) -> u64 {
    chunk.voxels.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        let h = (h ^ u64::from(b.0 & 0xff)).wrapping_mul(0x0100_0000_01b3);
        (h ^ u64::from(b.0 >> 8)).wrapping_mul(0x0100_0000_01b3)
    })
}
