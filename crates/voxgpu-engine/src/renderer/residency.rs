//! The residency part: which nodes are resident and where their voxels and quads live. It owns
//! the chunk pool (every node's cells on the CPU and in the voxel pool, their per-slot records,
//! the staged uploads and the eviction quarantine) and the quad pool (the mega quad buffer, its
//! page table and free stack), and the policy by which the quad pool grows.
//!
//! Invariants:
//! - the CPU copy of every node (edits included) is the truth: the GPU pools can be rebuilt from
//!   it on a new device ([`super::Renderer::recover`]);
//! - the quad pool only grows, and it grows only on page refusals the mesher counted in frames
//!   recorded at its current size: counters arrive a few frames late, and refusals from before
//!   a growth were answered by it already.

use std::sync::Arc;

use glam::IVec3;

use crate::GpuError;
use crate::chunk_pool::ChunkPool;
use crate::counters::GpuCounters;
use crate::pipelines::SharedPipelines;
use crate::quad_pool::QuadPool;
use voxgpu_core::voxel::{BlockId, Chunk, ChunkPos, NodeKey};

/// GPU bytes one resident node is budgeted at: its voxel slot (75,008 bytes), its light slot
/// (37,584: every level, the open-column mask and the spread stamp), its records (3,232) and
/// 12 KiB of quad pages (six faces' last pages partly filled; terrain nodes average under 2 KiB
/// of quads).
pub const NODE_BUDGET_BYTES: u64 =
    (crate::layouts::SLOT_WORDS as u64 + crate::layouts::LIGHT_WORDS as u64) * 4 + 3_232 + 12 * 1024;

/// The GPU memory budget for streamed nodes when none is given, in MiB: what the horizon needs
/// with room to spare (wgpu does not report an adapter's memory size).
pub const DEFAULT_GPU_BUDGET_MIB: u32 = 2048;

/// The renderer's resident nodes as it holds them (edits included), with the pools that hold
/// them on the GPU. [`super::Renderer::resident`] reads it.
pub struct Residency {
    pub(crate) pool: ChunkPool,
    pub(crate) quads: QuadPool,
    /// The most nodes the voxel pool can hold on this device (one storage binding).
    max_nodes: u64,
    /// Pages the mesher was refused, as the counters seen last reported them.
    failed_pages_seen: u32,
    /// The frame the counters behind `failed_pages_seen` came from.
    failed_seen_frame: u64,
    /// The first frame recorded with the quad pool at its current size.
    grown_at_frame: u64,
}

impl Residency {
    pub(crate) fn new(shared: &SharedPipelines, queue: &wgpu::Queue, quad_pages: u32) -> Self {
        let device = shared.device();
        let pool = ChunkPool::new(device, 64);
        let max_nodes = pool.voxels.max_capacity(device);
        Self {
            pool,
            quads: QuadPool::new(shared, queue, quad_pages),
            max_nodes,
            failed_pages_seen: 0,
            failed_seen_frame: 0,
            grown_at_frame: 0,
        }
    }

    /// Grows the quad pool when the mesher of frame `frame` reported pages it could not get;
    /// `frame_index` is the frame being recorded next. Refusals from frames recorded before the
    /// last growth are counted but do not grow it again: they were answered already.
    pub(crate) fn handle_counters(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        counters: GpuCounters,
        frame: u64,
        frame_index: u64,
    ) -> Result<(), GpuError> {
        // The pages refused since the counters seen last, in the frames after `failed_seen_frame`
        // up to `frame`. When some of those frames were recorded before the last growth (the
        // first frame with the grown pool is `grown_at_frame`), they were refused by the smaller
        // pool (and a face refused again every frame it retried), so they do not say how much
        // more is needed: wait for counters wholly after the growth.
        let refused = counters.failed_pages.saturating_sub(self.failed_pages_seen);
        let after_growth = self.failed_seen_frame + 1 >= self.grown_at_frame;
        self.failed_pages_seen = self.failed_pages_seen.max(counters.failed_pages);
        self.failed_seen_frame = self.failed_seen_frame.max(frame);
        if refused > 0 && after_growth {
            self.quads.grow(device, queue, refused)?;
            self.grown_at_frame = frame_index;
        }
        Ok(())
    }

    /// Whether `counters` report page refusals the counters seen so far did not.
    pub(crate) fn refused_since_seen(&self, counters: &GpuCounters) -> bool {
        counters.failed_pages > self.failed_pages_seen
    }

    /// The block at world coordinates `world` (air where no chunk is).
    pub fn block(&self, world: IVec3) -> BlockId {
        let (pos, local) = ChunkPos::from_block(world);
        self.pool
            .chunk(pos)
            .map_or(BlockId::AIR, |c| c.get(local.x as usize, local.y as usize, local.z as usize))
    }

    /// The resident chunk at `pos`.
    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.pool.chunk(pos)
    }

    /// Every resident chunk (level 0), in no particular order: what a game saves or exports.
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkPos, &Arc<Chunk>)> {
        self.pool.chunks()
    }

    /// The resident node `key` (level 0: a chunk).
    pub fn node(&self, key: NodeKey) -> Option<&Arc<Chunk>> {
        self.pool.node(key)
    }

    /// Every resident node of every level with its cells, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = (NodeKey, &Arc<Chunk>)> {
        self.pool.nodes()
    }

    /// Resident nodes per level (index 0: chunks).
    pub fn nodes_per_level(&self) -> Vec<u32> {
        self.pool.nodes_per_level()
    }

    /// Resident nodes of every level.
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// No node is resident.
    pub fn is_empty(&self) -> bool {
        self.pool.len() == 0
    }

    /// The most nodes the voxel pool can hold on this device (one storage binding).
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
    }

    /// The most nodes a streamer may keep resident within `budget_mib` MiB of GPU memory
    /// ([`NODE_BUDGET_BYTES`] each), and within the voxel pool with a tenth to spare for the
    /// estimate.
    pub fn node_budget(&self, budget_mib: u32) -> usize {
        let budget = u64::from(budget_mib) * 1024 * 1024 / NODE_BUDGET_BYTES;
        budget.min(self.max_nodes * 9 / 10) as usize
    }

    /// Bytes of the voxel pool, its per-slot records and the mega quad buffer with its page
    /// table and free stack.
    pub fn gpu_bytes(&self) -> u64 {
        let pool = &self.pool;
        [&pool.voxels, &pool.meta, &pool.links_buffer, &pool.faces, &pool.light]
            .iter()
            .map(|b| b.buffer.size())
            .sum::<u64>()
            + self.quads.total_bytes()
    }
}
