//! The GPU chunk pool: one slot per resident chunk in the voxel pool, plus the per-slot records
//! (`ChunkMeta` for drawing, `ChunkLinks` for meshing, six `FaceMesh` for the quads).
//!
//! Only new or changed voxels are uploaded, and uploads are staged: edits between frames queue
//! them, and the frame records them as copies at its start (the "upload" profiling stage). When a
//! chunk leaves, its slot is marked evicted and held back; the next frame's collect pass takes
//! evicted slots before any dirty one, its release pass frees their pages and its mesh pass empties
//! their face records. Only after that frame is the slot handed out again, so a new chunk can
//! never be drawn with the old one's quads.
//!
//! State bits ([`ChunkState`]) are requests from the CPU to the GPU. The CPU copy of a slot's
//! links accumulates the bits asked for since the last frame, so the last staged write of a frame
//! carries all of them; once the frame has recorded its uploads the copy drops them again (the GPU
//! clears them as it acts). The CPU never writes `lod`, which the LOD pass owns, except to reset it
//! for a new chunk.

use std::collections::HashMap;
use std::sync::Arc;

use glam::IVec3;

use super::GpuError;
use super::buffers::GrowableBuffer;
use super::layouts::{ChunkLinks, ChunkMeta, ChunkState, FaceMesh, NO_SLOT, SLOT_WORDS};
use crate::mesh::{Face, meshes_reading, meshes_reading_block};
use crate::voxel::{BlockId, Chunk, ChunkPos, voxel_index};

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE;

/// Which pool buffer a staged write goes to. Resolved when the frame records the copy, so a
/// buffer replaced by growth in between receives it.
#[derive(Clone, Copy, Debug)]
enum Target {
    Voxels,
    Meta,
    Links,
}

/// Who re-meshes a chunk's neighbours when it arrives or leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remesh {
    /// The pool marks them dirty.
    Neighbours,
    /// The caller does (the streaming manager, which deduplicates and budgets them).
    Caller,
}

/// A resident chunk: its slot and the CPU copy edits start from.
struct Resident {
    slot: u32,
    chunk: Arc<Chunk>,
}

pub struct ChunkPool {
    resident: HashMap<ChunkPos, Resident>,
    /// CPU copy of every slot's links, so a record is always written whole.
    links: Vec<ChunkLinks>,
    free_slots: Vec<u32>,
    /// Evicted slots waiting for a frame to free their pages before reuse.
    quarantine: Vec<u32>,
    /// Of the quarantined slots, how many the GPU has not released yet: each frame releases up
    /// to its room for evicted chunks, which it takes before any dirty one.
    unreleased: u32,
    /// Slots whose links were written since the last upload: their request bits are dropped
    /// from the CPU copy once the frame has recorded the writes.
    requested: Vec<u32>,
    staged: Vec<(Target, u64, Vec<u8>)>,
    pub voxels: GrowableBuffer,
    pub meta: GrowableBuffer,
    pub links_buffer: GrowableBuffer,
    pub faces: GrowableBuffer,
    /// Bumped whenever a buffer is replaced, so bind groups know to rebuild.
    pub generation: u64,
}

impl ChunkPool {
    pub fn new(device: &wgpu::Device, initial_slots: u64) -> Self {
        let size = |t: usize| t as u64;
        Self {
            resident: HashMap::new(),
            links: Vec::new(),
            free_slots: Vec::new(),
            quarantine: Vec::new(),
            unreleased: 0,
            requested: Vec::new(),
            staged: Vec::new(),
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

    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.resident.get(&pos).map(|r| &r.chunk)
    }

    /// Every resident chunk's position and slot.
    pub fn slots(&self) -> impl Iterator<Item = (ChunkPos, u32)> + '_ {
        self.resident.iter().map(|(p, r)| (*p, r.slot))
    }

    /// Uploads `chunk` into its slot (a new one when it was not resident), asks for its mips to
    /// be rebuilt, and marks it dirty, and its six neighbours too when `neighbours` says so (the
    /// streaming manager re-meshes them itself, deduplicated). An all-air chunk is a removal.
    pub fn insert(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pos: ChunkPos,
        chunk: Arc<Chunk>,
        neighbours: Remesh,
    ) -> Result<(), GpuError> {
        if chunk.is_empty() {
            self.remove(pos, neighbours);
            return Ok(());
        }
        let slot = match self.resident.get(&pos) {
            Some(r) => r.slot,
            None => self.new_slot(device, queue, pos)?,
        };
        let bytes: &[u8] = bytemuck::cast_slice(chunk.voxels().as_slice());
        self.stage(Target::Voxels, self.voxels.offset(slot as u64), bytes);
        self.resident.insert(pos, Resident { slot, chunk });
        self.request(slot, ChunkState::DIRTY | ChunkState::VOXELS);
        match neighbours {
            Remesh::Neighbours => meshes_reading(pos).for_each(|p| self.mark_dirty(p)),
            // The face neighbours' links to the new slot still have to reach the GPU.
            Remesh::Caller => Face::ALL.iter().for_each(|f| self.write_links_of(pos.neighbour(f.normal()))),
        }
        Ok(())
    }

    fn new_slot(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pos: ChunkPos,
    ) -> Result<u32, GpuError> {
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                let slot = self.links.len() as u32;
                self.grow(device, queue, slot as u64 + 1)?;
                self.links.push(ChunkLinks::EMPTY);
                slot
            }
        };
        let meta = ChunkMeta { origin: pos.origin().to_array(), lod: 0 };
        self.stage(Target::Meta, self.meta.offset(slot as u64), bytemuck::bytes_of(&meta));
        // Link both ways with the resident neighbours.
        let mut neighbours = [NO_SLOT; 6];
        for face in Face::ALL {
            if let Some(other) = self.resident.get(&pos.neighbour(face.normal())) {
                neighbours[face as usize] = other.slot;
                self.links[other.slot as usize].neighbours[face.opposite() as usize] = slot;
            }
        }
        // The whole record once, to reset the level; later writes leave `lod` to the GPU.
        self.links[slot as usize] =
            ChunkLinks { neighbours, state: ChunkState::RESIDENT, ..ChunkLinks::EMPTY };
        let record = self.links[slot as usize];
        self.stage(Target::Links, self.links_buffer.offset(slot as u64), bytemuck::bytes_of(&record));
        Ok(slot)
    }

    fn grow(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, slots: u64) -> Result<(), GpuError> {
        let mut grown = false;
        for buffer in [&mut self.voxels, &mut self.meta, &mut self.links_buffer, &mut self.faces] {
            let limit = buffer.max_capacity(device);
            grown |= buffer.ensure(device, queue, slots).ok_or(GpuError::ChunkPoolFull { slots, limit })?;
        }
        if grown {
            self.generation += 1;
        }
        Ok(())
    }

    /// Drops the chunk: its slot is marked evicted (the release pass frees its pages), its
    /// neighbours lose the link (and are re-meshed when `neighbours` says so).
    pub fn remove(&mut self, pos: ChunkPos, neighbours: Remesh) {
        let Some(resident) = self.resident.remove(&pos) else { return };
        let slot = resident.slot;
        for face in Face::ALL {
            let neighbour = pos.neighbour(face.normal());
            if let Some(other) = self.resident.get(&neighbour) {
                self.links[other.slot as usize].neighbours[face.opposite() as usize] = NO_SLOT;
                self.write_links_of(neighbour);
            }
        }
        if neighbours == Remesh::Neighbours {
            meshes_reading(pos).for_each(|p| self.mark_dirty(p));
        }
        self.links[slot as usize] = ChunkLinks { state: ChunkState::EVICTED, ..ChunkLinks::EMPTY };
        self.write_links(slot);
        self.quarantine.push(slot);
        self.unreleased += 1;
    }

    /// Sets one block: uploads the one changed word, asks for the chunk's mips to be rebuilt, and
    /// marks every chunk whose full-detail mesh reads the voxel dirty ([`meshes_reading_block`]).
    /// (Neighbours meshed at a coarser level read the rebuilt mips: the mip pass marks those
    /// dirty itself.)
    pub fn set_block(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: IVec3,
        block: BlockId,
    ) -> Result<(), GpuError> {
        let (pos, local) = ChunkPos::from_block(world);
        let Some(resident) = self.resident.get_mut(&pos) else {
            if block.is_air() {
                return Ok(());
            }
            let mut chunk = Chunk::empty();
            chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
            return self.insert(device, queue, pos, Arc::new(chunk), Remesh::Neighbours);
        };
        let chunk = Arc::make_mut(&mut resident.chunk);
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        if chunk.is_empty() {
            self.remove(pos, Remesh::Neighbours);
            return Ok(());
        }
        // The u32 holding this voxel and its pair.
        let index = voxel_index(local.x as usize, local.y as usize, local.z as usize) & !1;
        let pair = [chunk.voxels()[index], chunk.voxels()[index + 1]];
        let offset = self.voxels.offset(resident.slot as u64) + index as u64 * 2;
        let slot = resident.slot;
        self.stage(Target::Voxels, offset, bytemuck::cast_slice(&pair));
        self.request(slot, ChunkState::DIRTY | ChunkState::VOXELS);
        meshes_reading_block(world).for_each(|p| self.mark_dirty(p));
        Ok(())
    }

    /// Slots evicted and not yet released by a frame.
    pub fn evictions_pending(&self) -> u32 {
        self.unreleased
    }

    /// Called after a frame is submitted whose work list had room for `evicted_room` evicted
    /// chunks. Evicted slots are collected before dirty ones, so that frame released
    /// `min(unreleased, evicted_room)` of them, in an order the CPU does not know; once none is
    /// left unreleased, every quarantined slot can be reused.
    pub fn frame_submitted(&mut self, evicted_room: u32) {
        self.unreleased -= self.unreleased.min(evicted_room);
        if self.unreleased == 0 {
            self.free_slots.append(&mut self.quarantine);
        }
    }

    /// Marks every resident chunk dirty (benchmarks re-mesh the same chunks repeatedly).
    pub fn mark_all_dirty(&mut self) {
        let positions: Vec<ChunkPos> = self.resident.keys().copied().collect();
        for pos in positions {
            self.mark_dirty(pos);
        }
    }

    /// Re-meshes the chunk at `pos`, if resident.
    pub fn mark_dirty(&mut self, pos: ChunkPos) {
        if let Some(slot) = self.resident.get(&pos).map(|r| r.slot) {
            self.request(slot, ChunkState::DIRTY);
        }
    }

    /// Stages the neighbour slots of the chunk at `pos`, if resident, and nothing else: its
    /// state on the GPU may hold bits the GPU set (a retry after refused pages) that a whole
    /// record would overwrite.
    fn write_links_of(&mut self, pos: ChunkPos) {
        if let Some(slot) = self.resident.get(&pos).map(|r| r.slot) {
            let record = self.links[slot as usize];
            let bytes = bytemuck::bytes_of(&record.neighbours).to_vec();
            self.stage(Target::Links, self.links_buffer.offset(slot as u64), &bytes);
        }
    }

    /// Adds request bits to a resident slot's state and stages the write.
    fn request(&mut self, slot: u32, bits: u32) {
        self.links[slot as usize].state |= bits;
        self.write_links(slot);
    }

    /// Stages the CPU's part of a slot's links: neighbours and state, not `lod`.
    fn write_links(&mut self, slot: u32) {
        let record = self.links[slot as usize];
        let bytes = &bytemuck::bytes_of(&record)[..ChunkLinks::CPU_BYTES];
        self.stage(Target::Links, self.links_buffer.offset(slot as u64), bytes);
        self.requested.push(slot);
    }

    fn stage(&mut self, target: Target, offset: u64, bytes: &[u8]) {
        self.staged.push((target, offset, bytes.to_vec()));
    }

    /// Records every staged write as a copy through `belt`, in the order they were made.
    /// Returns the bytes uploaded.
    pub fn record_uploads(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        belt: &mut wgpu::util::StagingBelt,
    ) -> u64 {
        let mut uploaded = 0;
        for (target, offset, bytes) in self.staged.drain(..) {
            uploaded += bytes.len() as u64;
            let buffer = match target {
                Target::Voxels => &self.voxels.buffer,
                Target::Meta => &self.meta.buffer,
                Target::Links => &self.links_buffer.buffer,
            };
            let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else { continue };
            belt.write_buffer(encoder, buffer, offset, size).copy_from_slice(&bytes);
        }
        // The GPU has the requests now; keep only what the slot is.
        for slot in self.requested.drain(..) {
            self.links[slot as usize].state &= ChunkState::RESIDENT;
        }
        uploaded
    }
}
