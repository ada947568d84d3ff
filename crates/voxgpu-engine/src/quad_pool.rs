//! The mega quad buffer: one storage buffer of packed quads cut into fixed pages, with a page
//! table and a free page stack that live on the GPU.
//!
//! Each page holds quads of one face stream of one chunk, and `page_owner[page]` names the
//! chunk's slot: that is how the vertex shader finds a quad's chunk origin and LOD without
//! per-draw instance data (GL has no `first_instance` in indirect draws).
//!
//! Properties:
//! - no worst-case reservation: a face stream takes `ceil(quads / PAGE_QUADS)` pages;
//! - re-meshing a chunk frees and re-allocates only its own pages;
//! - pages are never shared, so live quads are never overwritten;
//! - when pages run out the mesher leaves the face empty and the chunk dirty, counts the pages it
//!   was refused, and the CPU (reading that count a frame or two later, without stalling) grows
//!   the buffer; past the adapter's binding limit it reports [`GpuError::QuadBufferFull`]. Nothing
//!   unwritten is ever drawn;
//! - nothing is read back on the frame's critical path.

use super::GpuError;
use super::bindings::{BindingTable, Resources, Slot};
use super::buffers::GrowableBuffer;
use super::layouts::AllocatorHeader;
use super::pipelines::SharedPipelines;
use super::shaders::{QUAD_POOL_GROW, shader_source};
use voxgpu_core::mesh::QUAD_BYTES;

/// log2 of [`PAGE_QUADS`]: quad `q` of the buffer lies in page `q >> PAGE_QUADS_LOG2`, and index
/// `i` of a face stream in page `FaceMesh::pages[i >> PAGE_QUADS_LOG2]` at offset
/// `i & (PAGE_QUADS - 1)`. Twin of `QUAD_PAGE_LOG2` in `shaders/common.wgsl`.
pub const PAGE_QUADS_LOG2: u32 = 8;
/// Quads per page (2 KiB of quads).
pub const PAGE_QUADS: u32 = 1 << PAGE_QUADS_LOG2;

/// The most quads the pool holds (2 GiB of quads): every vertex index a command over the pool
/// draws stays below `quad_cull::QUAD_LIST_VERTEX` (2^30), from where vertex indices name quad
/// list entries instead.
pub const MAX_POOL_QUADS: u32 = (1 << 28) - crate::draw::MAX_DRAW_QUADS;

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE;

pub struct QuadPool {
    pub quads: GrowableBuffer,
    pub page_owner: GrowableBuffer,
    /// [`AllocatorHeader`] then the free page stack.
    pub allocator: GrowableBuffer,
    pages: u32,
    grow_pipeline: wgpu::ComputePipeline,
    grow_layout: wgpu::BindGroupLayout,
    /// Bumped whenever a buffer is replaced, so bind groups know to rebuild.
    pub generation: u64,
}

impl QuadPool {
    pub fn new(shared: &SharedPipelines, queue: &wgpu::Queue, initial_pages: u32) -> Self {
        let device = shared.device();
        let pages = initial_pages.clamp(1, MAX_POOL_QUADS / PAGE_QUADS);
        let page_bytes = PAGE_QUADS as u64 * QUAD_BYTES as u64;
        let quads =
            GrowableBuffer::new(device, "voxgpu.quad_pool.quads", STORAGE, 0, page_bytes, pages as u64);
        let page_owner =
            GrowableBuffer::new(device, "voxgpu.quad_pool.page_owner", STORAGE, 0, 4, pages as u64);
        let header = size_of::<AllocatorHeader>() as u64;
        let allocator =
            GrowableBuffer::new(device, "voxgpu.quad_pool.allocator", STORAGE, header, 4, pages as u64);
        // Every page starts free, lowest on top so early allocations are contiguous.
        let head = AllocatorHeader { free_count: pages, ..Default::default() };
        queue.write_buffer(&allocator.buffer, 0, bytemuck::bytes_of(&head));
        let stack: Vec<u32> = (0..pages).rev().collect();
        queue.write_buffer(&allocator.buffer, header, bytemuck::cast_slice(&stack));

        let (grow_pipeline, grow_layout) = grow_pipeline(shared);
        Self { quads, page_owner, allocator, pages, grow_pipeline, grow_layout, generation: 0 }
    }

    pub fn pages(&self) -> u32 {
        self.pages
    }

    pub fn bytes(&self) -> u64 {
        self.quads.buffer.size()
    }

    /// Bytes of the quad buffer, the page table and the free stack together.
    pub fn total_bytes(&self) -> u64 {
        self.quads.buffer.size() + self.page_owner.buffer.size() + self.allocator.buffer.size()
    }

    /// Grows to hold at least `more` extra pages (at least doubling, up to the adapter's binding
    /// limit and [`MAX_POOL_QUADS`]) and pushes the new pages onto the GPU free stack.
    pub fn grow(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, more: u32) -> Result<(), GpuError> {
        let page_bytes = self.quads.offset(1);
        let limit = self
            .quads
            .max_capacity(device)
            .min(self.allocator.max_capacity(device))
            .min((MAX_POOL_QUADS / PAGE_QUADS) as u64);
        let wanted = self.pages as u64 + more as u64;
        let full = GpuError::QuadBufferFull { needed: wanted * page_bytes, limit: limit * page_bytes };
        if self.pages as u64 >= limit {
            return Err(full);
        }
        for buffer in [&mut self.quads, &mut self.page_owner, &mut self.allocator] {
            buffer.ensure(device, queue, wanted.min(limit)).ok_or_else(|| full.clone())?;
        }
        let pages = [&self.quads, &self.page_owner, &self.allocator].map(|b| b.capacity()).into_iter().min();
        let pages = pages.unwrap_or(0).min(limit) as u32;
        self.push_range(device, queue, self.pages, pages - self.pages);
        log::info!("quad pool grew from {} to {} pages", self.pages, pages);
        self.pages = pages;
        self.generation += 1;
        Ok(())
    }

    fn push_range(&self, device: &wgpu::Device, queue: &wgpu::Queue, first: u32, count: u32) {
        let range = crate::buffers::buffer_with(
            device,
            queue,
            "voxgpu.quad_pool.grow_range",
            bytemuck::cast_slice(&[first, count]),
            wgpu::BufferUsages::UNIFORM,
        );
        let resources = Resources::new().buffer("range", &range).buffer("allocator", &self.allocator.buffer);
        let bind_group = GROW_BINDINGS.bind_group(device, &self.grow_layout, &resources);
        let mut encoder = device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.quad_pool.grow") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("voxgpu.quad_pool.grow"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.grow_pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([encoder.finish()]);
    }
}

/// `quad_pool_grow.wgsl`: pushes a range of new pages onto the free stack.
pub const GROW_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.quad_pool.grow",
    shaders: &[QUAD_POOL_GROW],
    partial_shaders: &[],
    slots: &[
        // The first page and the count.
        Slot::uniform("range", 8),
        // The header and at least one stack entry.
        Slot::read_write("allocator", size_of::<AllocatorHeader>() as u64 + 4),
    ],
};

fn grow_pipeline(shared: &SharedPipelines) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
    let layout = GROW_BINDINGS.layout(shared.device());
    let pipeline = super::pipelines::compute_pipeline(
        shared,
        &GROW_BINDINGS,
        "voxgpu.quad_pool.grow",
        shader_source(QUAD_POOL_GROW),
        "main",
    );
    (pipeline, layout)
}
