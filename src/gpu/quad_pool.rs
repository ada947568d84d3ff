//! The mega quad buffer: one storage buffer of packed quads, split into fixed pages.
//!
//! Each page holds quads of one chunk, and the page table (`page_owner`, one `u32` per page)
//! names that chunk's slot, which is how the vertex shader finds a quad's chunk origin and LOD
//! without per-draw instance data (GL has no `first_instance` in indirect draws).
//!
//! Properties (DESIGN.md §3.4):
//! - no worst-case reservation: a chunk takes `ceil(quads / PAGE_QUADS)` pages;
//! - re-meshing a chunk frees and re-allocates only its own pages;
//! - pages are never shared, so live quads are never overwritten;
//! - when pages run out the buffer grows (old contents copied on the GPU), and when the adapter's
//!   binding limit is reached `alloc` fails with [`GpuError::QuadBufferFull`] and the caller keeps
//!   the chunk undrawn instead of drawing garbage.
//!
//! In this issue the CPU allocates pages; the compute mesher replaces this with a GPU free list.

use std::collections::BTreeSet;

use super::GpuError;
use crate::mesh::{PackedQuad, QUAD_BYTES};

pub const PAGE_QUADS_LOG2: u32 = 8;
/// Quads per page (2 KiB of quads).
pub const PAGE_QUADS: u32 = 1 << PAGE_QUADS_LOG2;
const PAGE_BYTES: u64 = PAGE_QUADS as u64 * QUAD_BYTES as u64;

pub struct QuadPool {
    pub quads: wgpu::Buffer,
    pub page_owner: wgpu::Buffer,
    pages: u32,
    free: BTreeSet<u32>,
    max_pages: u32,
    /// Bumped whenever the buffers are replaced, so bind groups know to rebuild.
    pub generation: u64,
}

fn create_buffers(device: &wgpu::Device, pages: u32) -> (wgpu::Buffer, wgpu::Buffer) {
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let quads = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.quad_pool.quads"),
        size: pages as u64 * PAGE_BYTES,
        usage,
        mapped_at_creation: false,
    });
    let page_owner = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.quad_pool.page_owner"),
        size: pages as u64 * 4,
        usage,
        mapped_at_creation: false,
    });
    (quads, page_owner)
}

impl QuadPool {
    pub fn new(device: &wgpu::Device, initial_pages: u32) -> Self {
        let limit = device.limits().max_storage_buffer_binding_size.min(device.limits().max_buffer_size);
        let max_pages = (limit / PAGE_BYTES).min(u32::MAX as u64) as u32;
        let pages = initial_pages.clamp(1, max_pages);
        let (quads, page_owner) = create_buffers(device, pages);
        Self { quads, page_owner, pages, free: (0..pages).collect(), max_pages, generation: 0 }
    }

    /// Pages for `quads` quads owned by chunk slot `owner`. Grows the buffer when needed.
    pub fn alloc(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        quads: usize,
        owner: u32,
    ) -> Result<Vec<u32>, GpuError> {
        let needed = quads.div_ceil(PAGE_QUADS as usize) as u32;
        if needed as usize > self.free.len() {
            self.grow(device, queue, self.pages - self.free.len() as u32 + needed)?;
        }
        let pages: Vec<u32> = (0..needed).filter_map(|_| self.free.pop_first()).collect();
        for run in contiguous_runs(&pages) {
            let owners = vec![owner; run.len()];
            queue.write_buffer(&self.page_owner, run[0] as u64 * 4, bytemuck::cast_slice(&owners));
        }
        Ok(pages)
    }

    pub fn free(&mut self, pages: &[u32]) {
        self.free.extend(pages.iter().copied());
    }

    /// Writes a chunk's quad stream into its pages.
    pub fn write(&self, queue: &wgpu::Queue, pages: &[u32], quads: &[PackedQuad]) {
        let mut start = 0usize;
        for run in contiguous_runs(pages) {
            let end = (start + run.len() * PAGE_QUADS as usize).min(quads.len());
            let offset = run[0] as u64 * PAGE_BYTES;
            queue.write_buffer(&self.quads, offset, bytemuck::cast_slice(&quads[start..end]));
            start = end;
        }
    }

    /// Replaces the buffers with ones of at least `min_pages` pages, copying the old contents.
    fn grow(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, min_pages: u32) -> Result<(), GpuError> {
        if min_pages > self.max_pages {
            return Err(GpuError::QuadBufferFull {
                needed: min_pages as u64 * PAGE_BYTES,
                limit: self.max_pages as u64 * PAGE_BYTES,
            });
        }
        let pages = min_pages.max(self.pages.saturating_mul(2)).min(self.max_pages);
        let (quads, page_owner) = create_buffers(device, pages);
        let mut encoder = device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.quad_pool.grow") });
        encoder.copy_buffer_to_buffer(&self.quads, 0, &quads, 0, self.quads.size());
        encoder.copy_buffer_to_buffer(&self.page_owner, 0, &page_owner, 0, self.page_owner.size());
        // Submitting now also flushes writes queued for the old buffers before they are copied.
        queue.submit([encoder.finish()]);
        log::info!("quad pool grew from {} to {} pages", self.pages, pages);
        self.free.extend(self.pages..pages);
        self.pages = pages;
        self.quads = quads;
        self.page_owner = page_owner;
        self.generation += 1;
        Ok(())
    }
}

/// Splits a page list into runs of consecutive page numbers.
pub fn contiguous_runs(pages: &[u32]) -> impl Iterator<Item = &[u32]> {
    pages.chunk_by(|a, b| *b == *a + 1)
}
