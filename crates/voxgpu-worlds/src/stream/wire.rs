//! A generated column as bytes, for generation in another memory (a browser's web worker) whose
//! result crosses as one transferable buffer.
//!
//! Layout, little-endian: the node count (`u32`), then per node its level (`u32`), its position
//! (three `i32`, in level units) and its 32³ block ids (`u16`, in the chunk's own order: x
//! fastest, then y, then z). Uncompressed: a transfer moves the buffer without copying it, and
//! decoding copies each chunk once after the buffer is in this memory.

use glam::IVec3;

use voxgpu_core::voxel::{BlockId, CHUNK_VOLUME, Chunk, MAX_NODE_LEVEL, NodeColumn, NodeKey};

/// Bytes of one node's header: level and position.
const HEADER: usize = 16;
/// Bytes of one chunk's ids.
const IDS: usize = CHUNK_VOLUME * 2;

/// The bytes of `nodes`.
pub fn encode_column(nodes: &[(NodeKey, Chunk)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + nodes.len() * (HEADER + IDS));
    out.extend_from_slice(&(nodes.len() as u32).to_le_bytes());
    for (key, chunk) in nodes {
        out.extend_from_slice(&key.level.to_le_bytes());
        for c in key.pos.to_array() {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend(chunk.voxels().iter().flat_map(|b| b.0.to_le_bytes()));
    }
    out
}

/// The nodes of `column` from their bytes; `Err` says why the bytes are not that column's nodes
/// (a wrong length, a node of another column, a level out of range). Never panics.
pub fn decode_column(column: NodeColumn, bytes: &[u8]) -> Result<Vec<(NodeKey, Chunk)>, String> {
    decode(bytes, Some(column))
}

/// Nodes of any columns from [`encode_column`]'s bytes (edited chunks handed to a worker);
/// `Err` says why they are not. Never panics.
pub fn decode_nodes(bytes: &[u8]) -> Result<Vec<(NodeKey, Chunk)>, String> {
    decode(bytes, None)
}

fn decode(bytes: &[u8], column: Option<NodeColumn>) -> Result<Vec<(NodeKey, Chunk)>, String> {
    let Some((count, mut rest)) = bytes.split_first_chunk::<4>() else {
        return Err(format!("a column of {} bytes, too short for its node count", bytes.len()));
    };
    let count = u32::from_le_bytes(*count) as usize;
    if count.checked_mul(HEADER + IDS) != Some(rest.len()) {
        return Err(format!("a column of {} bytes declares {count} nodes", bytes.len()));
    }
    let word = |b: &[u8], i: usize| [b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]];
    let mut nodes = Vec::with_capacity(count);
    while let Some((header, after)) = rest.split_first_chunk::<HEADER>() {
        let level = u32::from_le_bytes(word(header, 0));
        let pos = IVec3::from_array(std::array::from_fn(|i| i32::from_le_bytes(word(header, i + 1))));
        let key = NodeKey { level, pos };
        if level > MAX_NODE_LEVEL {
            return Err(format!("node {level} {pos}: no such level"));
        }
        if let Some(column) = column
            && key.column() != column
        {
            return Err(format!("node {level} {pos} is not in column {} {}", column.level, column.xz));
        }
        let (ids, after) = after.split_at(IDS);
        let mut chunk = Chunk::empty();
        for (voxel, pair) in chunk.voxels_mut().iter_mut().zip(ids.chunks_exact(2)) {
            *voxel = BlockId(u16::from_le_bytes([pair[0], pair[1]]));
        }
        nodes.push((key, chunk));
        rest = after;
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::TerrainColumns;
    use glam::IVec2;

    #[test]
    fn a_generated_column_comes_back_from_its_bytes_the_same() {
        let terrain = TerrainColumns::new(7);
        for column in
            [NodeColumn { level: 0, xz: IVec2::new(3, -2) }, NodeColumn { level: 4, xz: IVec2::new(-1, 5) }]
        {
            let nodes = terrain.node_column(column);
            assert!(!nodes.is_empty());
            let back = decode_column(column, &encode_column(&nodes)).expect("decodes");
            assert_eq!(back.len(), nodes.len());
            for ((k, c), (bk, bc)) in nodes.iter().zip(&back) {
                assert_eq!((k, c.voxels()), (bk, bc.voxels()));
            }
        }
        let empty = NodeColumn { level: 2, xz: IVec2::ZERO };
        assert!(decode_column(empty, &encode_column(&[])).expect("decodes").is_empty());
    }

    #[test]
    fn damaged_bytes_give_an_error_not_a_panic() {
        let column = NodeColumn { level: 0, xz: IVec2::new(1, 1) };
        let nodes = vec![(column.node(2), Chunk::filled(BlockId(3)))];
        let bytes = encode_column(&nodes);
        assert!(decode_column(column, &bytes[..3]).is_err(), "no count");
        assert!(decode_column(column, &bytes[..bytes.len() - 1]).is_err(), "short");
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_column(column, &longer).is_err(), "long");
        let mut many = bytes.clone();
        many[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_column(column, &many).is_err(), "a count whose size overflows");
        let other = NodeColumn { level: 0, xz: IVec2::new(1, 2) };
        assert!(decode_column(other, &bytes).unwrap_err().contains("not in column"), "another column's node");
        let mut level = bytes.clone();
        level[4..8].copy_from_slice(&99u32.to_le_bytes());
        assert!(decode_column(column, &level).is_err(), "a level out of range");
    }
}
