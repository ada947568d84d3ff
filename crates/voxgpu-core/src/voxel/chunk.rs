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
///
/// # Panics
/// When a coordinate is 32 or more, in every build: such a coordinate would otherwise name
/// another voxel of the chunk. Where the loop bounds already prove the range the compiler drops
/// the check; code that cannot show it cheaply indexes through [`LocalPos`].
#[inline]
#[track_caller]
pub fn voxel_index(x: usize, y: usize, z: usize) -> usize {
    match LocalPos::new(x, y, z) {
        Some(p) => p.index(),
        None => out_of_chunk(x, y, z),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_chunk(x: usize, y: usize, z: usize) -> ! {
    panic!("voxel ({x}, {y}, {z}) is outside the chunk: each coordinate must be in 0..{CHUNK_SIZE}")
}

/// A voxel's position inside a chunk, each coordinate in `0..32`, kept as its [`voxel_index`].
/// Only the checked constructors make one, so indexing a chunk with it needs no further check
/// and cannot reach another voxel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalPos(u16);

impl LocalPos {
    /// The voxel at `(x, y, z)`; `None` when a coordinate is 32 or more.
    #[inline]
    pub const fn new(x: usize, y: usize, z: usize) -> Option<Self> {
        if x < CHUNK_SIZE && y < CHUNK_SIZE && z < CHUNK_SIZE {
            Some(Self((x + CHUNK_SIZE * (y + CHUNK_SIZE * z)) as u16))
        } else {
            None
        }
    }

    /// The voxel at local coordinates `p`; `None` when a coordinate is negative or 32 or more.
    #[inline]
    pub fn from_ivec3(p: IVec3) -> Option<Self> {
        let size = CHUNK_SIZE as i32;
        (p.cmpge(IVec3::ZERO).all() && p.cmplt(IVec3::splat(size)).all())
            .then(|| Self::new(p.x as usize, p.y as usize, p.z as usize))
            .flatten()
    }

    /// The voxel at [`voxel_index`] `index`; `None` when it is [`CHUNK_VOLUME`] or more.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Self> {
        if index < CHUNK_VOLUME { Some(Self(index as u16)) } else { None }
    }

    /// Every voxel of a chunk, in [`voxel_index`] order.
    pub fn all() -> impl Iterator<Item = Self> {
        (0..CHUNK_VOLUME as u16).map(Self)
    }

    /// Its index in [`Chunk::voxels`], always below [`CHUNK_VOLUME`].
    #[inline]
    pub const fn index(self) -> usize {
        // The constructors keep the index below CHUNK_VOLUME (a power of two); the mask states
        // that to the compiler, which then drops the slice bounds check.
        self.0 as usize & (CHUNK_VOLUME - 1)
    }

    /// Its coordinates `[x, y, z]`, each in `0..32`.
    #[inline]
    pub const fn coords(self) -> [usize; 3] {
        let i = self.index();
        [i % CHUNK_SIZE, i / CHUNK_SIZE % CHUNK_SIZE, i / (CHUNK_SIZE * CHUNK_SIZE)]
    }

    /// Its coordinates as a vector.
    #[inline]
    pub fn ivec3(self) -> IVec3 {
        let [x, y, z] = self.coords();
        IVec3::new(x as i32, y as i32, z as i32)
    }
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

    /// The block at local voxel `(x, y, z)`, each coordinate in `0..32`.
    ///
    /// # Panics
    /// When a coordinate is 32 or more, in every build (see [`voxel_index`]); never reads
    /// another voxel instead. [`Chunk::try_get`] returns `None` there.
    #[inline]
    #[track_caller]
    pub fn get(&self, x: usize, y: usize, z: usize) -> BlockId {
        self.voxels[voxel_index(x, y, z)]
    }

    /// The block at local voxel `(x, y, z)`; `None` when a coordinate is 32 or more.
    #[inline]
    pub fn try_get(&self, x: usize, y: usize, z: usize) -> Option<BlockId> {
        LocalPos::new(x, y, z).map(|p| self.get_local(p))
    }

    /// The block at `pos`: no check beyond the one that made `pos`.
    #[inline]
    pub fn get_local(&self, pos: LocalPos) -> BlockId {
        self.voxels[pos.index()]
    }

    /// Sets the block at `pos`: no check beyond the one that made `pos`.
    #[inline]
    pub fn set_local(&mut self, pos: LocalPos, block: BlockId) {
        self.voxels[pos.index()] = block;
    }

    /// [`Chunk::get`] taking `[x, y, z]`.
    #[inline]
    #[track_caller]
    pub fn get_at(&self, [x, y, z]: [usize; 3]) -> BlockId {
        self.get(x, y, z)
    }

    /// Sets the block at local voxel `(x, y, z)`, with the same bounds as [`Chunk::get`]: panics
    /// when a coordinate is 32 or more, never writing another voxel instead.
    #[inline]
    #[track_caller]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::blocks::{DIRT, STONE};

    fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = std::panic::catch_unwind(f).expect_err("out of range must panic");
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    }

    // Not a debug_assert: these hold under `cargo test --release` too.
    #[test]
    fn out_of_range_coordinates_never_alias_another_voxel() {
        // (32, 0, 0) would be voxel (0, 1, 0) and (0, 32, 0) voxel (0, 0, 1) if unchecked.
        for (x, y, z) in [(32, 0, 0), (0, 32, 0), (0, 0, 32), (31, 40, 0), (usize::MAX, 0, 0)] {
            let mut chunk = Chunk::empty();
            chunk.set(0, 1, 0, STONE);
            chunk.set(0, 0, 1, STONE);
            let read = panic_message(|| {
                chunk.get(x, y, z);
            });
            assert!(read.contains("outside the chunk"), "({x}, {y}, {z}): {read}");
            assert_eq!(chunk.try_get(x, y, z), None);
            assert_eq!(LocalPos::new(x, y, z), None);
            let write = panic_message(move || {
                let mut c = Chunk::empty();
                c.set(x, y, z, DIRT);
            });
            assert!(write.contains("outside the chunk"), "({x}, {y}, {z}): {write}");
            assert!(!chunk.voxels().contains(&DIRT));
        }
    }

    #[test]
    fn local_positions_are_the_voxel_index() {
        assert!(LocalPos::all().enumerate().all(|(i, p)| p.index() == i));
        assert_eq!(LocalPos::all().count(), CHUNK_VOLUME);
        let p = LocalPos::new(3, 31, 7).expect("in range");
        assert_eq!(p.coords(), [3, 31, 7]);
        assert_eq!(p.index(), voxel_index(3, 31, 7));
        assert_eq!(LocalPos::from_ivec3(IVec3::new(3, 31, 7)), Some(p));
        assert_eq!(LocalPos::from_ivec3(IVec3::new(-1, 0, 0)), None);
        assert_eq!(LocalPos::from_ivec3(IVec3::new(0, 32, 0)), None);
        assert_eq!(LocalPos::from_index(CHUNK_VOLUME), None);
        let mut chunk = Chunk::empty();
        chunk.set_local(p, STONE);
        assert_eq!((chunk.get(3, 31, 7), chunk.try_get(3, 31, 7)), (STONE, Some(STONE)));
        assert_eq!(chunk.get_local(p), STONE);
    }
}
