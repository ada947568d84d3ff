//! The interface between a streaming manager and what makes its nodes resident.

use std::sync::Arc;

use crate::voxel::{Chunk, NodeColumn, NodeKey};

/// Where the manager's decisions go. The engine's renderer implements it; tests use a recording fake.
pub trait ChunkSink {
    /// Why [`ChunkSink::insert`] could not make a node resident.
    type Error;
    /// Makes `chunk` resident as node `key`. Neighbours are not re-meshed by this: the manager
    /// asks for that itself, deduplicated and within its budget.
    fn insert(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), Self::Error>;
    /// Drops the node `key` (neighbours again left to the manager).
    fn remove(&mut self, key: NodeKey);
    /// Re-meshes the node `key` (a neighbour arrived or left).
    fn mark_dirty(&mut self, key: NodeKey);
    /// A column's nodes are all in (`true`, after its inserts) or it has left (`false`, after its
    /// removals).
    fn column_ready(&mut self, column: NodeColumn, ready: bool);
}
