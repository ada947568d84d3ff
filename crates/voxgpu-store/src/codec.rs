//! A chunk's bytes in the store: its 32³ block ids as little-endian `u16`s in the chunk's own
//! order (x fastest, then y, then z), LZ4-compressed with the uncompressed size in front
//! (`lz4_flex`'s size-prepended block format). Terrain chunks, mostly long runs of one block,
//! shrink 10–100×.

use voxgpu_core::voxel::{BlockId, BlockRegistry, CHUNK_VOLUME, Chunk};

/// Bytes of a chunk's ids, uncompressed: the only size a stored chunk may declare.
const CHUNK_BYTES: usize = CHUNK_VOLUME * 2;

/// The stored bytes of `chunk`.
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let ids: Vec<u8> = chunk.voxels().iter().flat_map(|b| b.0.to_le_bytes()).collect();
    lz4_flex::compress_prepend_size(&ids)
}

/// A chunk from its stored bytes; `Err` says why they are not one. The declared size is checked
/// before anything is decompressed, and the ids are decompressed into one chunk's buffer, so a
/// damaged size field never allocates what it declares.
pub fn decode_chunk(bytes: &[u8]) -> Result<Chunk, String> {
    let Some((size, compressed)) = bytes.split_first_chunk::<4>() else {
        return Err(format!("a chunk of {} bytes, too short for its size field", bytes.len()));
    };
    let declared = u32::from_le_bytes(*size) as usize;
    if declared != CHUNK_BYTES {
        return Err(format!("a chunk of {declared} bytes, not {CHUNK_BYTES}"));
    }
    let mut ids = vec![0u8; CHUNK_BYTES];
    let written = lz4_flex::block::decompress_into(compressed, &mut ids)
        .map_err(|e| format!("undecodable chunk ({e})"))?;
    if written != CHUNK_BYTES {
        return Err(format!("a chunk of {written} bytes, not {CHUNK_BYTES}"));
    }
    let mut chunk = Chunk::empty();
    for (voxel, pair) in chunk.voxels_mut().iter_mut().zip(ids.chunks_exact(2)) {
        *voxel = BlockId(u16::from_le_bytes([pair[0], pair[1]]));
    }
    Ok(chunk)
}

/// The first block of `chunk` that `registry` does not have, as (x, y, z) within the chunk and
/// the id, or `None` when the registry has every block.
pub fn unknown_block(chunk: &Chunk, registry: &BlockRegistry) -> Option<([usize; 3], BlockId)> {
    let size = voxgpu_core::voxel::CHUNK_SIZE;
    chunk
        .voxels()
        .iter()
        .position(|b| registry.get(*b).is_none())
        .map(|i| ([i % size, i / size % size, i / (size * size)], chunk.voxels()[i]))
}
