//! A sparse map of chunks. All-air chunks are never stored.

use std::collections::HashMap;
use std::sync::Arc;

use glam::IVec3;

use super::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos};

/// Chunks by position, plus the registry that gives their ids meaning.
///
/// Chunks sit behind `Arc` so a mesh or upload job can hold an owned snapshot without copying
/// 64 KiB.
#[derive(Clone, Debug)]
pub struct World {
    /// The registry that gives the chunks' block ids their meaning.
    pub registry: BlockRegistry,
    chunks: HashMap<ChunkPos, Arc<Chunk>>,
}

impl World {
    /// A world with no chunks (all air) over `registry`.
    pub fn new(registry: BlockRegistry) -> Self {
        Self { registry, chunks: HashMap::new() }
    }

    /// Stores `chunk` at `pos`, or removes the entry when the chunk is all air.
    pub fn insert(&mut self, pos: ChunkPos, chunk: Chunk) {
        if chunk.is_empty() {
            self.chunks.remove(&pos);
        } else {
            self.chunks.insert(pos, Arc::new(chunk));
        }
    }

    /// Removes the chunk at `pos`, returning it if one was stored.
    pub fn remove(&mut self, pos: ChunkPos) -> Option<Arc<Chunk>> {
        self.chunks.remove(&pos)
    }

    /// The chunk at `pos`; `None` where none is stored, which means all air.
    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.chunks.get(&pos)
    }

    /// Every stored chunk with its position, in no particular order ([`World::sorted_positions`]
    /// gives a stable one).
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkPos, &Arc<Chunk>)> {
        self.chunks.iter().map(|(p, c)| (*p, c))
    }

    /// Positions in a stable order (x, then y, then z), for deterministic output.
    pub fn sorted_positions(&self) -> Vec<ChunkPos> {
        let mut v: Vec<ChunkPos> = self.chunks.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Number of stored chunks; all-air chunks are never stored.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether no chunk is stored: the world is all air.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The block at world block coordinates `world`; air where no chunk is stored.
    pub fn block(&self, world: IVec3) -> BlockId {
        let (pos, local) = ChunkPos::from_block(world);
        self.chunk(pos)
            .map(|c| c.get(local.x as usize, local.y as usize, local.z as usize))
            .unwrap_or(BlockId::AIR)
    }

    /// Sets one block, creating or dropping the chunk as needed. Returns the chunk position.
    pub fn set_block(&mut self, world: IVec3, block: BlockId) -> ChunkPos {
        let (pos, local) = ChunkPos::from_block(world);
        let mut chunk = self.chunks.remove(&pos).map(Arc::unwrap_or_clone).unwrap_or_default();
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        self.insert(pos, chunk);
        pos
    }

    /// World-space box `[min, max)` in blocks covering every stored chunk, or `None` when empty.
    pub fn chunk_bounds(&self) -> Option<(IVec3, IVec3)> {
        let size = CHUNK_SIZE as i32;
        self.chunks.keys().fold(None, |acc, p| {
            let (lo, hi) = (p.origin(), p.origin() + IVec3::splat(size));
            Some(match acc {
                None => (lo, hi),
                Some((a, b)) => (a.min(lo), b.max(hi)),
            })
        })
    }
}

/// Chunk column `xz`'s generated chunks (non-empty, bottom up) with the `edited` chunks that lie
/// in that column in their place (others are ignored): an edited chunk replaces the generated
/// one, an all-air one removes it. What a world store's, or a page's, edits make of what a
/// generator produces.
pub fn with_edited_chunks<'a>(
    xz: glam::IVec2,
    generated: Vec<(ChunkPos, Chunk)>,
    edited: impl IntoIterator<Item = (ChunkPos, &'a Chunk)>,
) -> Vec<(ChunkPos, Chunk)> {
    let mut by_pos: std::collections::BTreeMap<ChunkPos, Chunk> = generated.into_iter().collect();
    for (pos, chunk) in edited {
        if pos.0.x == xz.x && pos.0.z == xz.y {
            by_pos.insert(pos, chunk.clone());
        }
    }
    by_pos.into_iter().filter(|(_, c)| !c.is_empty()).collect()
}
