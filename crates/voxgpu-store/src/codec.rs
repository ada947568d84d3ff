//! A chunk's bytes in the store: its 32³ block ids as little-endian `u16`s in the chunk's own
//! order (x fastest, then y, then z), LZ4-compressed with the uncompressed size in front
//! (`lz4_flex`'s size-prepended block format). Terrain chunks, mostly long runs of one block,
//! shrink 10–100×.

use voxgpu_core::voxel::{BlockId, CHUNK_VOLUME, Chunk};

/// The stored bytes of `chunk`.
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let ids: Vec<u8> = chunk.voxels().iter().flat_map(|b| b.0.to_le_bytes()).collect();
    lz4_flex::compress_prepend_size(&ids)
}

/// A chunk from its stored bytes; `Err` says why they are not one.
pub fn decode_chunk(bytes: &[u8]) -> Result<Chunk, String> {
    let ids = lz4_flex::decompress_size_prepended(bytes).map_err(|e| format!("undecodable chunk ({e})"))?;
    if ids.len() != CHUNK_VOLUME * 2 {
        return Err(format!("a chunk of {} bytes, not {}", ids.len(), CHUNK_VOLUME * 2));
    }
    let mut chunk = Chunk::empty();
    for (voxel, pair) in chunk.voxels_mut().iter_mut().zip(ids.chunks_exact(2)) {
        *voxel = BlockId(u16::from_le_bytes([pair[0], pair[1]]));
    }
    Ok(chunk)
}
