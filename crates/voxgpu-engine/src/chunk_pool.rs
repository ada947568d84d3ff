//! The GPU chunk pool: one slot per resident node (a chunk, or a level-of-detail node of 32³
//! cells) in the voxel pool, plus the per-slot records (`ChunkMeta` for drawing and level choice,
//! `ChunkLinks` for meshing, six `FaceMesh` for the quads). Nodes link to their same-level face
//! neighbours and to their parent; the CPU also tells each node whether its child columns and its
//! parent's have been generated (`CHILDREN_READY`, `SIBLINGS_READY`), which the LOD pass needs to
//! decide which level draws each place.
//!
//! Only new or changed voxels are uploaded, and uploads are staged: edits between frames queue
//! them, and the frame records them as copies at its start (the "upload" profiling stage). When a
//! chunk leaves, its slot is marked evicted and held back; the next frame's collect pass takes
//! evicted slots before any dirty one, its release pass frees their pages and its mesh pass empties
//! their face records. Only after that frame is the slot handed out again, so a new chunk can
//! never be drawn with the old one's quads. When a node needs a slot before then and none is
//! free (a camera jump: every node removed and as many inserted between two frames), the pool
//! stages a release ([`Staged::Release`]) instead of growing: the frame records, between the
//! writes staged before it and those after, a release-only mesher run over every evicted slot,
//! and the quarantined slots are handed out to the writes after it. So the pools never grow
//! beyond what the larger of the departing and arriving node sets needs.
//!
//! The writes a frame records are kept until its submission is confirmed
//! ([`ChunkPool::confirm`]); when the frame's encoder was dropped instead, [`ChunkPool::replay`]
//! stages them again ahead of any later write, with the request bits they carried, and the
//! eviction bookkeeping waits for a frame that ran.
//!
//! State bits ([`ChunkState`]) are requests from the CPU to the GPU. The CPU copy of a slot's
//! links accumulates the bits asked for since the last frame, so the last staged write of a frame
//! carries all of them; once the frame has recorded its uploads the copy drops them again (the GPU
//! clears them as it acts). The CPU never writes `lod`, which the LOD pass owns, except to reset it
//! for a new chunk.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::GpuError;
use super::buffers::GrowableBuffer;
use super::layouts::{ChunkLinks, ChunkMeta, ChunkState, FaceMesh, LIGHT_WORDS, NO_SLOT, SLOT_WORDS};
use lighting::LightChange;
use voxgpu_core::mesh::{Face, meshes_reading};
use voxgpu_core::voxel::{Chunk, ChunkPos, MAX_NODE_LEVEL, NodeColumn, NodeKey};

mod edits;
mod lighting;
mod release;
mod uploads;
pub use release::Release;
use uploads::{Staged, Target};

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE;

/// Who re-meshes a chunk's neighbours when it arrives or leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remesh {
    /// The pool marks them dirty.
    Neighbours,
    /// The caller does (the streaming manager, which deduplicates and budgets them).
    Caller,
}

/// A resident node: its slot and the CPU copy edits start from.
struct Resident {
    slot: u32,
    chunk: Arc<Chunk>,
}

/// The nodes a place around `key` holds: same-level neighbours of a node.
fn reading(key: NodeKey) -> impl Iterator<Item = NodeKey> {
    meshes_reading(ChunkPos(key.pos)).map(move |p| NodeKey::new(key.level, p.0))
}

pub struct ChunkPool {
    resident: HashMap<NodeKey, Resident>,
    /// Resident node heights per column, to find a column's nodes.
    by_column: HashMap<NodeColumn, BTreeSet<i32>>,
    /// Resident nodes per level.
    per_level: [u32; MAX_NODE_LEVEL as usize + 1],
    /// Columns whose generation has finished (their non-empty nodes are resident). Worlds
    /// inserted chunk by chunk mark none: their chunks have no parents or children to wait for.
    ready_columns: HashSet<NodeColumn>,
    /// CPU copy of every slot's links, so a record is always written whole.
    links: Vec<ChunkLinks>,
    free_slots: Vec<u32>,
    /// Evicted slots waiting for a frame to free their pages before reuse.
    quarantine: Vec<u32>,
    /// Of the quarantined slots, how many the GPU has not released yet: each frame releases up
    /// to its room for evicted chunks, which it takes before any dirty one.
    unreleased: u32,
    /// What the last recorded frame's stream evicted: the evictions unreleased when it recorded
    /// (those staged after it are not in its stream), and how many of the first quarantined
    /// slots they cover. [`Self::confirm`] frees only those.
    recorded_evictions: (u32, usize),
    /// Slots whose links were written since the last upload: their request bits are dropped
    /// from the CPU copy once the frame has recorded the writes.
    requested: Vec<u32>,
    staged: Vec<Staged>,
    /// What the last recorded frame uploaded, until its submission is confirmed: the entries,
    /// and the request bits each written slot carried.
    unconfirmed: Vec<Staged>,
    unconfirmed_requests: Vec<(u32, u32)>,
    pub voxels: GrowableBuffer,
    pub meta: GrowableBuffer,
    pub links_buffer: GrowableBuffer,
    pub faces: GrowableBuffer,
    /// Every slot's light ([`LIGHT_WORDS`] u32), written by the light pass only.
    pub light: GrowableBuffer,
    /// Nodes whose cells or residency changed, and full-detail cells set in place, since the
    /// last recorded frame: where its light jobs start (`lighting.rs`).
    light_changes: HashSet<LightChange>,
    /// The changes the last recorded frame lit, until its submission is confirmed.
    light_unconfirmed: Vec<LightChange>,
    /// Bumped whenever a buffer is replaced, so bind groups know to rebuild.
    pub generation: u64,
}

impl ChunkPool {
    pub fn new(device: &wgpu::Device, initial_slots: u64) -> Self {
        let size = |t: usize| t as u64;
        Self {
            resident: HashMap::new(),
            by_column: HashMap::new(),
            per_level: [0; MAX_NODE_LEVEL as usize + 1],
            ready_columns: HashSet::new(),
            links: Vec::new(),
            free_slots: Vec::new(),
            quarantine: Vec::new(),
            unreleased: 0,
            recorded_evictions: (0, 0),
            requested: Vec::new(),
            staged: Vec::new(),
            unconfirmed: Vec::new(),
            unconfirmed_requests: Vec::new(),
            voxels: GrowableBuffer::new(
                device,
                "voxgpu.voxel_pool",
                STORAGE,
                0,
                SLOT_WORDS as u64 * 4,
                initial_slots,
            ),
            meta: GrowableBuffer::new(
                device,
                "voxgpu.chunk_meta",
                STORAGE,
                0,
                size(size_of::<ChunkMeta>()),
                initial_slots,
            ),
            links_buffer: GrowableBuffer::new(
                device,
                "voxgpu.chunk_links",
                STORAGE,
                0,
                size(size_of::<ChunkLinks>()),
                initial_slots,
            ),
            faces: GrowableBuffer::new(
                device,
                "voxgpu.face_meshes",
                STORAGE,
                0,
                6 * size(size_of::<FaceMesh>()),
                initial_slots,
            ),
            light: GrowableBuffer::new(
                device,
                "voxgpu.light_pool",
                STORAGE,
                0,
                LIGHT_WORDS as u64 * 4,
                initial_slots,
            ),
            light_changes: HashSet::new(),
            light_unconfirmed: Vec::new(),
            generation: 0,
        }
    }

    /// Slots in use, counting freed ones below the highest: the range the passes walk.
    pub fn slot_count(&self) -> u32 {
        self.links.len() as u32
    }

    pub fn len(&self) -> usize {
        self.resident.len()
    }

    /// The chunk at `pos` (a level-0 node), if resident.
    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.node(NodeKey::chunk(pos))
    }

    /// Every resident chunk (level 0) with its position, in no particular order.
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkPos, &Arc<Chunk>)> {
        self.resident.iter().filter(|(k, _)| k.level == 0).map(|(k, r)| (ChunkPos(k.pos), &r.chunk))
    }

    pub fn node(&self, key: NodeKey) -> Option<&Arc<Chunk>> {
        self.resident.get(&key).map(|r| &r.chunk)
    }

    /// Every resident node with its cells, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = (NodeKey, &Arc<Chunk>)> {
        self.resident.iter().map(|(k, r)| (*k, &r.chunk))
    }

    /// The columns marked complete.
    pub fn ready_columns(&self) -> &HashSet<NodeColumn> {
        &self.ready_columns
    }

    /// Every resident chunk's (level-0 node's) position and slot.
    pub fn slots(&self) -> impl Iterator<Item = (ChunkPos, u32)> + '_ {
        self.resident.iter().filter_map(|(k, r)| k.as_chunk().map(|p| (p, r.slot)))
    }

    /// Every resident node and its slot.
    pub fn node_slots(&self) -> impl Iterator<Item = (NodeKey, u32)> + '_ {
        self.resident.iter().map(|(k, r)| (*k, r.slot))
    }

    /// Resident nodes per level, up to the highest level resident.
    pub fn nodes_per_level(&self) -> Vec<u32> {
        self.per_level[..=self.top_level() as usize].to_vec()
    }

    /// The highest node level resident (0 when none is).
    pub fn top_level(&self) -> u32 {
        self.per_level.iter().rposition(|&n| n > 0).unwrap_or(0) as u32
    }

    /// Uploads `chunk` into the node's slot (a new one when it was not resident), asks for its
    /// mips to be rebuilt, and marks it dirty, and its neighbours too when `neighbours` says so
    /// (the streaming manager re-meshes them itself, deduplicated). An all-air node is a removal.
    pub fn insert(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        key: NodeKey,
        chunk: Arc<Chunk>,
        neighbours: Remesh,
    ) -> Result<(), GpuError> {
        if chunk.is_empty() {
            self.remove(key, neighbours);
            return Ok(());
        }
        let slot = match self.resident.get(&key) {
            Some(r) => r.slot,
            None => self.new_slot(device, queue, key)?,
        };
        let bytes: &[u8] = bytemuck::cast_slice(chunk.voxels().as_slice());
        self.stage(Target::Voxels, self.voxels.offset(slot as u64), bytes);
        self.resident.insert(key, Resident { slot, chunk });
        self.light_changed(key);
        self.request(slot, ChunkState::DIRTY | ChunkState::VOXELS);
        match neighbours {
            Remesh::Neighbours => reading(key).for_each(|n| self.mark_dirty(n)),
            // The face neighbours' links to the new slot still have to reach the GPU.
            Remesh::Caller => Face::ALL.iter().for_each(|f| self.write_links_of(key.neighbour(f.normal()))),
        }
        Ok(())
    }

    fn new_slot(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        key: NodeKey,
    ) -> Result<u32, GpuError> {
        if self.free_slots.is_empty() {
            self.release_quarantine();
        }
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                let slot = self.links.len() as u32;
                self.grow(device, queue, slot as u64 + 1)?;
                self.links.push(ChunkLinks::EMPTY);
                slot
            }
        };
        let parent = self.resident.get(&key.parent()).map_or(NO_SLOT, |r| r.slot);
        let meta = ChunkMeta {
            origin: key.origin().to_array(),
            lod: key.level,
            node_level: key.level,
            parent,
            flags: 0,
            shown: 0,
        };
        self.stage(Target::Meta, self.meta.offset(slot as u64), bytemuck::bytes_of(&meta));
        if key.level > 0 {
            for child in key.children() {
                self.write_parent(child, slot);
            }
        }
        // Link both ways with the resident neighbours.
        let mut neighbours = [NO_SLOT; 6];
        for face in Face::ALL {
            if let Some(other) = self.resident.get(&key.neighbour(face.normal())) {
                neighbours[face as usize] = other.slot;
                self.links[other.slot as usize].neighbours[face.opposite() as usize] = slot;
            }
        }
        self.by_column.entry(key.column()).or_default().insert(key.pos.y);
        self.per_level[key.level as usize] += 1;
        // The whole record once, to reset the level; later writes leave `lod` to the GPU.
        let state = ChunkState::RESIDENT | self.readiness(key);
        self.links[slot as usize] = ChunkLinks { neighbours, state, ..ChunkLinks::EMPTY };
        let record = self.links[slot as usize];
        self.stage(Target::Links, self.links_buffer.offset(slot as u64), bytemuck::bytes_of(&record));
        Ok(slot)
    }

    /// Points a resident node's parent field at `parent`.
    fn write_parent(&mut self, key: NodeKey, parent: u32) {
        if let Some(slot) = self.resident.get(&key).map(|r| r.slot) {
            let offset = self.meta.offset(slot as u64) + ChunkMeta::PARENT_OFFSET;
            self.stage(Target::Meta, offset, bytemuck::bytes_of(&parent));
        }
    }

    /// The readiness bits of a node: whether its child columns, and its parent's, are generated.
    fn readiness(&self, key: NodeKey) -> u32 {
        let generated = |column: NodeColumn| column.children().iter().all(|c| self.ready_columns.contains(c));
        let mut bits = 0;
        if key.level > 0 && generated(key.column()) {
            bits |= ChunkState::CHILDREN_READY;
        }
        if generated(key.column().parent()) {
            bits |= ChunkState::SIBLINGS_READY;
        }
        bits
    }

    /// Records that `column` has been generated (its non-empty nodes inserted) or has left (any
    /// node still in it goes too), and updates the readiness bits of the nodes that depend on it:
    /// those of its parent column and of its parent's four child columns.
    pub fn set_column_ready(&mut self, column: NodeColumn, ready: bool) {
        let changed =
            if ready { self.ready_columns.insert(column) } else { self.ready_columns.remove(&column) };
        if !changed {
            return;
        }
        if !ready {
            // Nodes the streamer does not know of leave with the column too: those an edit
            // created (`set_block` into an all-air place).
            let heights: Vec<i32> =
                self.by_column.get(&column).map(|h| h.iter().copied().collect()).unwrap_or_default();
            for y in heights {
                self.remove(column.node(y), Remesh::Neighbours);
            }
        }
        let parent = column.parent();
        let mut affected = vec![parent];
        affected.extend(parent.children());
        for col in affected {
            let heights: Vec<i32> =
                self.by_column.get(&col).map(|h| h.iter().copied().collect()).unwrap_or_default();
            for y in heights {
                let key = col.node(y);
                let Some(slot) = self.resident.get(&key).map(|r| r.slot) else { continue };
                let bits = self.readiness(key);
                let state = &mut self.links[slot as usize].state;
                if *state & ChunkState::STANDING != ChunkState::RESIDENT | bits {
                    *state = (*state & !ChunkState::STANDING) | ChunkState::RESIDENT | bits;
                    // DIRTY too: the write replaces the whole state word, and a DIRTY the GPU set
                    // (pages refused) must not be lost. The LOD pass re-meshes the node anyway
                    // if this changes whether it is drawn.
                    self.request(slot, ChunkState::DIRTY);
                }
            }
        }
    }

    /// Makes room for `slots` slots in every per-slot buffer up front.
    pub fn reserve(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: u64,
    ) -> Result<(), GpuError> {
        self.grow(device, queue, slots)
    }

    fn grow(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, slots: u64) -> Result<(), GpuError> {
        let mut grown = false;
        for buffer in
            [&mut self.voxels, &mut self.meta, &mut self.links_buffer, &mut self.faces, &mut self.light]
        {
            let limit = buffer.max_capacity(device);
            grown |= buffer.ensure(device, queue, slots).ok_or(GpuError::ChunkPoolFull { slots, limit })?;
        }
        if grown {
            self.generation += 1;
        }
        Ok(())
    }

    /// Drops the node: its slot is marked evicted (the release pass frees its pages), its
    /// neighbours lose the link (and are re-meshed when `neighbours` says so), its children their
    /// parent.
    pub fn remove(&mut self, key: NodeKey, neighbours: Remesh) {
        let Some(resident) = self.resident.remove(&key) else { return };
        let slot = resident.slot;
        self.light_changed(key);
        self.per_level[key.level as usize] -= 1;
        if let Some(heights) = self.by_column.get_mut(&key.column()) {
            heights.remove(&key.pos.y);
            if heights.is_empty() {
                self.by_column.remove(&key.column());
            }
        }
        for face in Face::ALL {
            let neighbour = key.neighbour(face.normal());
            if let Some(other) = self.resident.get(&neighbour) {
                self.links[other.slot as usize].neighbours[face.opposite() as usize] = NO_SLOT;
                self.write_links_of(neighbour);
            }
        }
        if key.level > 0 {
            for child in key.children() {
                self.write_parent(child, NO_SLOT);
            }
        }
        if neighbours == Remesh::Neighbours {
            reading(key).for_each(|n| self.mark_dirty(n));
        }
        self.links[slot as usize] = ChunkLinks { state: ChunkState::EVICTED, ..ChunkLinks::EMPTY };
        self.write_links(slot);
        self.quarantine.push(slot);
        self.unreleased += 1;
    }

    /// Marks every resident node dirty (benchmarks re-mesh the same chunks repeatedly).
    pub fn mark_all_dirty(&mut self) {
        let keys: Vec<NodeKey> = self.resident.keys().copied().collect();
        for key in keys {
            self.mark_dirty(key);
        }
    }

    /// Re-meshes the node `key`, if resident.
    pub fn mark_dirty(&mut self, key: NodeKey) {
        if let Some(slot) = self.resident.get(&key).map(|r| r.slot) {
            self.request(slot, ChunkState::DIRTY);
        }
    }
}
