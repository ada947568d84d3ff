//! The renderer: resident chunks, their quads in the mega quad buffer, and the frame recipe.
//!
//! One frame: re-mesh dirty chunks (CPU reference mesher in this issue; the compute mesher
//! replaces that step), upload their quads into freshly allocated pages, rebuild the indirect draw
//! lists if any mesh changed, write the camera, then one render pass: opaque draws, then
//! transparent draws. The CPU records the same few commands whatever the number of chunks.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use glam::{IVec3, Vec3};
use wgpu::util::DeviceExt;

use super::context::check_device;
use super::draw::{DrawList, DrawSubmission, push_commands, quad_indices};
use super::layouts::{CameraUniform, ChunkMeta};
use super::pipelines::{COLOR_FORMAT, DEPTH_FORMAT, DrawPipelines, draw_bind_group_layout};
use super::quad_pool::QuadPool;
use super::readback::read_rgba8;
use super::{Capabilities, GpuContext, GpuError};
use crate::camera::Camera;
use crate::mesh::{Face, Neighbours, face_range, mesh_chunk};
use crate::voxel::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos};

/// Largest render target side we accept, before the adapter's own limit.
pub const MAX_TARGET_SIDE: u32 = 16384;

#[derive(Clone, Debug)]
pub struct RendererOptions {
    pub width: u32,
    pub height: u32,
    /// Fog reaches the sky colour at this distance in blocks (usually the view distance).
    pub fog_end: f32,
    /// Fog begins at this fraction of `fog_end`.
    pub fog_start_fraction: f32,
    /// Linear RGB background and fog colour.
    pub sky_color: Vec3,
    /// Pages the mega quad buffer starts with; it grows on demand.
    pub initial_quad_pages: u32,
}

impl RendererOptions {
    pub fn new(width: u32, height: u32, fog_end: f32) -> Self {
        Self {
            width,
            height,
            fog_end,
            fog_start_fraction: 0.55,
            sky_color: Vec3::new(0.32, 0.52, 0.82),
            initial_quad_pages: 1024,
        }
    }
}

/// What one frame did, for `stats`, the overlay and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub chunks_resident: u32,
    /// Chunks re-meshed during this frame.
    pub chunks_meshed: u32,
    /// Chunks left undrawn because the mega quad buffer reached the adapter's limit; they are
    /// retried every frame.
    pub chunks_unplaced: u32,
    /// Quads resident in the mega quad buffer, opaque and transparent.
    pub quads: u64,
    pub draw_commands: u32,
    pub quad_buffer_bytes: u64,
}

/// Where one kind of a chunk's quads live: its pages and per-face counts.
#[derive(Default)]
struct MeshAlloc {
    pages: Vec<u32>,
    counts: [u32; 6],
}

struct Resident {
    chunk: Arc<Chunk>,
    slot: u32,
    opaque: MeshAlloc,
    transparent: MeshAlloc,
}

pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    lost: Arc<std::sync::Mutex<Option<String>>>,
    pub caps: Capabilities,
    pub submission: DrawSubmission,
    options: RendererOptions,
    opaque_table: Vec<bool>,

    chunks: HashMap<ChunkPos, Resident>,
    dirty: BTreeSet<ChunkPos>,
    draws_stale: bool,
    /// Quads resident, recounted when the draw lists are rebuilt.
    resident_quads: u64,
    free_slots: Vec<u32>,
    next_slot: u32,

    quad_pool: QuadPool,
    chunk_meta: wgpu::Buffer,
    camera: wgpu::Buffer,
    block_colors: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    opaque_draws: DrawList,
    transparent_draws: DrawList,
    layout: wgpu::BindGroupLayout,
    bind_group: Option<(u64, wgpu::BindGroup)>,
    pipelines: DrawPipelines,

    color: wgpu::Texture,
    depth: wgpu::Texture,
}

fn target_textures(device: &wgpu::Device, width: u32, height: u32) -> (wgpu::Texture, wgpu::Texture) {
    let make = |label, format, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let color_usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    (
        make("voxgpu.target.color", COLOR_FORMAT, color_usage),
        make("voxgpu.target.depth", DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT),
    )
}

/// Block colours as packed RGBA8, indexed by block id (the draw shader's `block_colors`).
fn packed_colors(registry: &BlockRegistry) -> Vec<u32> {
    registry.iter().map(|(_, b)| u32::from_le_bytes(b.color)).collect()
}

impl Renderer {
    pub fn new(
        gpu: &GpuContext,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        let device = gpu.device.clone();
        let max = device.limits().max_texture_dimension_2d.min(MAX_TARGET_SIDE);
        let (width, height) = (options.width, options.height);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::TargetSize { width, height, max });
        }
        let (color, depth) = target_textures(&device, width, height);
        let layout = draw_bind_group_layout(&device);
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let block_colors = init(
            "voxgpu.block_colors",
            bytemuck::cast_slice(&packed_colors(registry)),
            wgpu::BufferUsages::STORAGE,
        );
        let index_buffer =
            init("voxgpu.quad_indices", bytemuck::cast_slice(&quad_indices()), wgpu::BufferUsages::INDEX);
        let camera = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("voxgpu.camera"),
            size: <CameraUniform as encase::ShaderType>::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Self {
            caps: gpu.caps,
            submission: DrawSubmission::for_caps(gpu.caps),
            opaque_table: registry.opaque_table(),
            chunks: HashMap::new(),
            dirty: BTreeSet::new(),
            draws_stale: true,
            resident_quads: 0,
            free_slots: Vec::new(),
            next_slot: 0,
            quad_pool: QuadPool::new(&device, options.initial_quad_pages),
            chunk_meta: chunk_meta_buffer(&device, 256),
            camera,
            block_colors,
            index_buffer,
            opaque_draws: DrawList::new(&device, "voxgpu.draws.opaque"),
            transparent_draws: DrawList::new(&device, "voxgpu.draws.transparent"),
            pipelines: DrawPipelines::new(&device, &layout),
            layout,
            bind_group: None,
            color,
            depth,
            queue: gpu.queue.clone(),
            lost: Arc::clone(&gpu.lost),
            device,
            options,
        })
    }

    /// Makes `chunk` resident at `pos`, replacing what was there. All six neighbours are re-meshed
    /// too, because their border faces depend on it. An all-air chunk is the same as a removal.
    pub fn insert_chunk(&mut self, pos: ChunkPos, chunk: Arc<Chunk>) {
        if self.store_chunk(pos, chunk) {
            self.mark_neighbours_dirty(pos);
        }
    }

    /// Stores the chunk and marks it dirty; returns false when it was all air (and so removed).
    fn store_chunk(&mut self, pos: ChunkPos, chunk: Arc<Chunk>) -> bool {
        if chunk.is_empty() {
            self.remove_chunk(pos);
            return false;
        }
        if let Some(resident) = self.chunks.get_mut(&pos) {
            resident.chunk = chunk;
        } else {
            let slot = self.free_slots.pop().unwrap_or_else(|| {
                self.next_slot += 1;
                self.next_slot - 1
            });
            self.write_chunk_meta(slot, pos);
            let resident =
                Resident { chunk, slot, opaque: MeshAlloc::default(), transparent: MeshAlloc::default() };
            self.chunks.insert(pos, resident);
        }
        self.dirty.insert(pos);
        true
    }

    /// Drops the chunk at `pos`, recycling its slot and pages, and re-meshes its neighbours.
    pub fn remove_chunk(&mut self, pos: ChunkPos) {
        if let Some(resident) = self.chunks.remove(&pos) {
            self.quad_pool.free(&resident.opaque.pages);
            self.quad_pool.free(&resident.transparent.pages);
            self.free_slots.push(resident.slot);
            self.dirty.remove(&pos);
            self.mark_neighbours_dirty(pos);
            self.draws_stale = true;
        }
    }

    /// Sets one block. Its chunk is re-meshed, and so is each neighbour whose border layer
    /// touches the voxel (at most three, for a corner voxel).
    pub fn set_block(&mut self, world: IVec3, block: BlockId) {
        let (pos, local) = ChunkPos::from_block(world);
        let mut chunk = self.chunks.get(&pos).map(|r| Chunk::clone(&r.chunk)).unwrap_or_default();
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        self.store_chunk(pos, Arc::new(chunk));
        let last = CHUNK_SIZE as i32 - 1;
        for face in Face::ALL {
            let coord = local[face.axis()];
            let touches = if face.is_positive() { coord == last } else { coord == 0 };
            let neighbour = pos.neighbour(face.normal());
            if touches && self.chunks.contains_key(&neighbour) {
                self.dirty.insert(neighbour);
            }
        }
    }

    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.chunks.get(&pos).map(|r| &r.chunk)
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    fn mark_neighbours_dirty(&mut self, pos: ChunkPos) {
        for neighbour in Face::ALL.map(|f| pos.neighbour(f.normal())) {
            if self.chunks.contains_key(&neighbour) {
                self.dirty.insert(neighbour);
            }
        }
    }

    fn write_chunk_meta(&mut self, slot: u32, pos: ChunkPos) {
        let size = std::mem::size_of::<ChunkMeta>() as u64;
        if (slot as u64 + 1) * size > self.chunk_meta.size() {
            let bigger = chunk_meta_buffer(&self.device, (slot + 1).next_power_of_two().max(256));
            let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("voxgpu.chunk_meta.grow"),
            });
            encoder.copy_buffer_to_buffer(&self.chunk_meta, 0, &bigger, 0, self.chunk_meta.size());
            self.queue.submit([encoder.finish()]);
            self.chunk_meta = bigger;
            self.bind_group = None;
        }
        let meta = ChunkMeta { origin: pos.origin().to_array(), lod: 0 };
        self.queue.write_buffer(&self.chunk_meta, slot as u64 * size, bytemuck::bytes_of(&meta));
    }

    /// Re-meshes every dirty chunk and uploads its quads. Returns (chunks meshed, chunks left
    /// undrawn because the quad buffer cannot grow further). Those stay dirty, so they are
    /// retried on the next frame; every other chunk is meshed and drawn as usual.
    fn flush_dirty(&mut self) -> (u32, u32) {
        let (mut meshed, mut unplaced) = (0, Vec::new());
        while let Some(pos) = self.dirty.pop_first() {
            let Some(resident) = self.chunks.get(&pos) else { continue };
            let neighbours =
                Neighbours(Face::ALL.map(|f| self.chunks.get(&pos.neighbour(f.normal())).map(|r| &*r.chunk)));
            let mesh = mesh_chunk(&resident.chunk, &neighbours, &self.opaque_table);
            let slot = resident.slot;
            let resident = self.chunks.get_mut(&pos).expect("checked above");
            self.draws_stale = true;
            for (alloc, groups) in
                [(&mut resident.opaque, &mesh.opaque), (&mut resident.transparent, &mesh.transparent)]
            {
                self.quad_pool.free(&alloc.pages);
                *alloc = MeshAlloc::default();
                match self.quad_pool.alloc(&self.device, &self.queue, groups.len(), slot) {
                    Ok(pages) => {
                        self.quad_pool.write(&self.queue, &pages, &groups.quads);
                        *alloc = MeshAlloc { pages, counts: groups.counts };
                    }
                    Err(e) => {
                        log::error!("chunk {:?} left undrawn: {e}", pos.0);
                        unplaced.push(pos);
                        break;
                    }
                }
            }
            meshed += 1;
        }
        let left = unplaced.len() as u32;
        self.dirty.extend(unplaced);
        (meshed - left, left)
    }

    fn rebuild_draws(&mut self) {
        let mut positions: Vec<&ChunkPos> = self.chunks.keys().collect();
        positions.sort_unstable();
        let (mut opaque, mut transparent) = (Vec::new(), Vec::new());
        for pos in positions {
            let r = &self.chunks[pos];
            for (alloc, out) in [(&r.opaque, &mut opaque), (&r.transparent, &mut transparent)] {
                for face in Face::ALL {
                    push_commands(out, &alloc.pages, face_range(&alloc.counts, face));
                }
            }
        }
        self.resident_quads = self
            .chunks
            .values()
            .flat_map(|r| r.opaque.counts.iter().chain(&r.transparent.counts))
            .map(|&c| c as u64)
            .sum();
        self.opaque_draws.upload(&self.device, &self.queue, &opaque);
        self.transparent_draws.upload(&self.device, &self.queue, &transparent);
        self.draws_stale = false;
    }

    fn bind_group(&mut self) -> wgpu::BindGroup {
        let key = self.quad_pool.generation;
        if let Some((k, group)) = &self.bind_group
            && *k == key
        {
            return group.clone();
        }
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("voxgpu.draw.bind_group"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: self.camera.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: self.quad_pool.quads.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: self.quad_pool.page_owner.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: self.chunk_meta.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: self.block_colors.as_entire_binding() },
            ],
        });
        self.bind_group = Some((key, group.clone()));
        group
    }

    /// Renders one frame into the target.
    pub fn render(&mut self, camera: &Camera) -> Result<FrameStats, GpuError> {
        check_device(&self.lost)?;
        let (meshed, unplaced) = self.flush_dirty();
        if self.draws_stale {
            self.rebuild_draws();
        }
        let (width, height) = (self.color.width(), self.color.height());
        let uniform = CameraUniform {
            view_proj: camera.view_proj(width as f32 / height as f32),
            eye: camera.eye,
            fog_start: self.options.fog_end * self.options.fog_start_fraction,
            sky_color: self.options.sky_color,
            fog_end: self.options.fog_end,
        };
        self.queue.write_buffer(&self.camera, 0, &uniform.to_bytes());
        let bind_group = self.bind_group();

        let color_view = self.color.create_view(&Default::default());
        let depth_view = self.depth.create_view(&Default::default());
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.frame") });
        {
            let sky = self.options.sky_color.as_dvec3();
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("voxgpu.draw"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r: sky.x, g: sky.y, b: sky.z, a: 1.0 }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    // Reverse-Z: 0 is infinitely far.
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            pass.push_debug_group("voxgpu.opaque");
            pass.set_pipeline(&self.pipelines.opaque);
            self.opaque_draws.draw(&mut pass, self.submission);
            pass.pop_debug_group();
            pass.push_debug_group("voxgpu.transparent");
            pass.set_pipeline(&self.pipelines.transparent);
            self.transparent_draws.draw(&mut pass, self.submission);
            pass.pop_debug_group();
        }
        self.queue.submit([encoder.finish()]);

        Ok(FrameStats {
            chunks_resident: self.chunks.len() as u32,
            chunks_meshed: meshed,
            chunks_unplaced: unplaced,
            quads: self.resident_quads,
            draw_commands: self.opaque_draws.len + self.transparent_draws.len,
            quad_buffer_bytes: self.quad_pool.quads.size(),
        })
    }

    /// Reads the last rendered frame back. Blocks; for screenshots and tests, not per frame.
    pub fn read_pixels(&self) -> Result<image::RgbaImage, GpuError> {
        read_rgba8(&self.device, &self.queue, &self.color)
    }
}

fn chunk_meta_buffer(device: &wgpu::Device, slots: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.chunk_meta"),
        size: slots as u64 * std::mem::size_of::<ChunkMeta>() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

const _: () = assert!(CHUNK_SIZE == 32, "quad coordinates are 5 bits");
