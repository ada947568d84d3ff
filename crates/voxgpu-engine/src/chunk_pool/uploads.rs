//! The upload stream: writes to the pool's buffers staged as nodes arrive, change and leave (voxels,
//! records, links with their request bits), with the releases staged between them, and their
//! recording by the frame as copies through the staging belt (`queue.write_buffer` in the
//! browser), in the order they were made.

use glam::IVec3;

use super::{ChunkLinks, ChunkPool, ChunkState, Release};
use voxgpu_core::voxel::{NodeKey, voxel_index};

/// Which pool buffer a staged write goes to. Resolved when the frame records the copy, so a
/// buffer replaced by growth in between receives it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Voxels,
    Meta,
    Links,
}

/// One entry of the upload stream, in the order made.
#[derive(Clone, Debug)]
pub(super) enum Staged {
    Write(Target, u64, Vec<u8>),
    Release(Release),
}

impl ChunkPool {
    /// Stages the u32 of the node's level 0 holding `local` and its pair.
    pub(super) fn stage_cell(&mut self, key: NodeKey, local: IVec3) {
        let Some(resident) = self.resident.get(&key) else { return };
        let index = voxel_index(local.x as usize, local.y as usize, local.z as usize) & !1;
        let pair = [resident.chunk.voxels()[index], resident.chunk.voxels()[index + 1]];
        let offset = self.voxels.offset(resident.slot as u64) + index as u64 * 2;
        self.stage(Target::Voxels, offset, bytemuck::cast_slice(&pair));
    }

    /// Stages the neighbour slots of the node `key`, if resident, and nothing else: its state on
    /// the GPU may hold bits the GPU set (a retry after refused pages) that a whole record would
    /// overwrite.
    pub(super) fn write_links_of(&mut self, key: NodeKey) {
        if let Some(slot) = self.resident.get(&key).map(|r| r.slot) {
            let record = self.links[slot as usize];
            let bytes = bytemuck::bytes_of(&record.neighbours).to_vec();
            self.stage(Target::Links, self.links_buffer.offset(slot as u64), &bytes);
        }
    }

    /// Adds request bits to a resident slot's state and stages the write.
    pub(super) fn request(&mut self, slot: u32, bits: u32) {
        self.links[slot as usize].state |= bits;
        self.write_links(slot);
    }

    /// Stages the CPU's part of a slot's links: neighbours and state, not `lod`.
    pub(super) fn write_links(&mut self, slot: u32) {
        let record = self.links[slot as usize];
        let bytes = &bytemuck::bytes_of(&record)[..ChunkLinks::CPU_BYTES];
        self.stage(Target::Links, self.links_buffer.offset(slot as u64), bytes);
        self.requested.push(slot);
    }

    pub(super) fn stage(&mut self, target: Target, offset: u64, bytes: &[u8]) {
        self.staged.push(Staged::Write(target, offset, bytes.to_vec()));
    }

    /// Records every staged write as a copy through `belt`, in the order they were made, and
    /// each staged release where it stands with `release` (which records the release-only run).
    /// Returns the bytes uploaded. The entries are kept until [`Self::confirm`] or
    /// [`Self::replay`].
    ///
    /// In the browser the writes go through `queue.write_buffer` instead, which runs before the
    /// encoder's commands as these copies would: a staging belt there maps and copies each
    /// chunk through JavaScript twice, where `writeBuffer` copies once from wasm memory. No
    /// release is staged there.
    pub fn record_uploads(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        belt: &mut wgpu::util::StagingBelt,
        queue: &wgpu::Queue,
        mut release: impl FnMut(&mut wgpu::CommandEncoder, &mut wgpu::util::StagingBelt, Release),
    ) -> u64 {
        let mut uploaded = 0;
        // Every recording follows `Renderer::check_submitted` (in `prepare`, or `timed_remesh`'s
        // own call), which replays a frame that `frame_submitted` did not confirm.
        debug_assert!(self.unconfirmed.is_empty(), "a frame recorded over an unconfirmed one");
        let staged = std::mem::take(&mut self.staged);
        for entry in &staged {
            let (target, offset, bytes) = match entry {
                Staged::Write(target, offset, bytes) => (*target, *offset, bytes),
                Staged::Release(r) => {
                    release(encoder, belt, *r);
                    continue;
                }
            };
            uploaded += bytes.len() as u64;
            let buffer = match target {
                Target::Voxels => &self.voxels.buffer,
                Target::Meta => &self.meta.buffer,
                Target::Links => &self.links_buffer.buffer,
            };
            if cfg!(target_arch = "wasm32") {
                queue.write_buffer(buffer, offset, bytes);
                continue;
            }
            let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else { continue };
            belt.write_buffer(encoder, buffer, offset, size).copy_from_slice(bytes);
        }
        self.unconfirmed.extend(staged);
        // Every eviction staged so far is in this stream.
        self.recorded_evictions = (self.unreleased, self.quarantine.len());
        // The GPU has the requests now; keep only what the slot is (and, until the frame is
        // confirmed, what it asked for).
        for slot in self.requested.drain(..) {
            let state = &mut self.links[slot as usize].state;
            self.unconfirmed_requests.push((slot, *state & !ChunkState::STANDING));
            *state &= ChunkState::STANDING;
        }
        uploaded
    }
}
