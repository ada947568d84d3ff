//! The renderer: the frame recipe over the chunk pool, the compute mesher and the draw lists.
//!
//! One frame, recorded the same way whatever the number of chunks:
//! 1. CPU: take the GPU counters that have arrived (a frame or two old) and grow the quad pool if
//!    the mesher was refused pages; write the pass sizes, the camera, and reset the work list.
//! 2. Upload: the staged voxel and record writes, as copies.
//! 3. Compute: `lod` (each chunk's level), `mips` (pyramids of changed chunks) (`LodPasses`),
//!    then collect → finalize, release, mesh → commit (`Mesher`), then `cull` (frustum and face
//!    directions into the draw lists) and the back-to-front sort of the transparent list.
//! 4. Render: one pass per raster pass of the mode (`draw_passes.rs`); filled is an optional
//!    depth pre-pass, opaque, then transparent (blended, no depth write), one multi-draw each,
//!    with the sky and the selection outline.
//! 5. Copy the counters for a later frame to read.
//!
//! Each stage is a profiling scope (`profiling::stage`), timed when profiling is on.
//!
//! `options.rs` holds what a renderer is configured with and what a frame reports;
//! `draw_passes.rs` records the render passes of the frame's mode and is the streaming manager's
//! sink; `offline.rs` holds what waits for the GPU: `settle`, `read_pixels`, `timed_remesh`, and the
//! profiling controls.
//!
//! Edits between frames (`insert_chunk`, `remove_chunk`, `set_block`) upload only the changed
//! voxels and mark the affected chunks dirty; the GPU finds them in step 2.

mod draw_passes;
mod offline;
mod options;

pub use options::{Culling, FrameStats, RendererOptions};

use std::sync::Arc;
use std::time::Instant;

use glam::IVec3;
use wgpu::util::DeviceExt;

use super::chunk_pool::{ChunkPool, Remesh};
use super::context::check_device;
use super::counters::{CounterReadback, CounterSources, GpuCounters};
use super::draw::{CullBindGroups, DrawLists, DrawSubmission, quad_indices};
use super::layouts::{CameraUniform, CullParams, LodParams, PassParams, WORK_JOBS_OFFSET};
use super::lod::{LodBindGroups, LodBuffers, LodPasses};
use super::materials::Materials;
use super::mesher::{BindGroups, MAX_CHUNKS_PER_FRAME, MeshBuffers, Mesher};
use super::pipelines::{COLOR_FORMAT, DEPTH_FORMAT, DrawPipelines, draw_bind_group, draw_bind_group_layout};
use super::profiling::{Profiling, stage};
use super::quad_pool::QuadPool;
use super::render_mode::RenderMode;
use super::{Capabilities, GpuContext, GpuError};
use crate::camera::Camera;
use crate::cull::Frustum;
use crate::lod::LodSettings;
use crate::voxel::{BlockId, BlockRegistry, Chunk, ChunkPos, NodeColumn, NodeKey};

/// Staging belt chunk size, and the upload size in one frame beyond which the belt is replaced.
const BELT_CHUNK_BYTES: u64 = 1 << 20;
const BELT_KEEP_BYTES: u64 = 16 << 20;

/// Largest render target side we accept, before the adapter's own limit.
pub const MAX_TARGET_SIDE: u32 = 16384;

/// The buffers whose replacement invalidates bind groups, as one comparable key.
type BindKey = (u64, u64, u64, u64, u32);

struct Frame {
    key: BindKey,
    lod: LodBindGroups,
    mesh: BindGroups,
    cull: CullBindGroups,
    draw: wgpu::BindGroup,
}

pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    lost: Arc<std::sync::Mutex<Option<String>>>,
    pub caps: Capabilities,
    pub submission: DrawSubmission,
    options: RendererOptions,

    pool: ChunkPool,
    quad_pool: QuadPool,
    lod: LodPasses,
    mesher: Mesher,
    pub(in crate::gpu) draws: DrawLists,
    pipelines: DrawPipelines,
    draw_layout: wgpu::BindGroupLayout,
    frame: Option<Frame>,

    params: wgpu::Buffer,
    work: wgpu::Buffer,
    work_jobs: u32,
    work_generation: u64,
    camera: wgpu::Buffer,
    opaque_bits: wgpu::Buffer,
    materials: Materials,
    index_buffer: wgpu::Buffer,
    counters: CounterReadback,
    failed_pages_seen: u32,
    /// The frame the counters behind `failed_pages_seen` came from.
    failed_seen_frame: u64,
    /// Frames submitted so far; the frame being recorded has this number.
    frame_index: u64,
    /// The first frame recorded with the quad pool at its current size.
    grown_at_frame: u64,
    /// Evicted chunks this frame's work list has room for (they are collected first).
    evicted_room: u32,
    /// Render-pass commands the last frame recorded.
    render_pass_commands: u32,
    belt: wgpu::util::StagingBelt,
    /// Bytes the frame being recorded uploads through the belt.
    uploaded_bytes: u64,
    profiling: Profiling,
    adapter_name: String,
    device_type: wgpu::DeviceType,

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
    // TEXTURE_BINDING: the viewer presents the frame by drawing it into the window's surface.
    let color_usage = wgpu::TextureUsages::RENDER_ATTACHMENT
        | wgpu::TextureUsages::COPY_SRC
        | wgpu::TextureUsages::TEXTURE_BINDING;
    (
        make("voxgpu.target.color", COLOR_FORMAT, color_usage),
        make("voxgpu.target.depth", DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT),
    )
}

/// Per block id (all 65536, so no id reads out of bounds): an opacity bitset.
fn opaque_bits(registry: &BlockRegistry) -> Vec<u32> {
    let mut opaque = vec![0u32; (1 << 16) / 32];
    for (id, _) in registry.iter().filter(|&(id, _)| registry.is_opaque(id)) {
        opaque[id.0 as usize / 32] |= 1 << (id.0 % 32);
    }
    opaque
}

fn work_buffer(device: &wgpu::Device, jobs: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.mesh.work"),
        size: 4 * (WORK_JOBS_OFFSET + jobs) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl Renderer {
    pub fn new(
        gpu: &GpuContext,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        let device = gpu.device.clone();
        let queue = gpu.queue.clone();
        let max = device.limits().max_texture_dimension_2d.min(MAX_TARGET_SIDE);
        let (width, height) = (options.width, options.height);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::TargetSize { width, height, max });
        }
        let (color, depth) = target_textures(&device, width, height);
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let opaque = opaque_bits(registry);
        let storage = wgpu::BufferUsages::STORAGE;
        let draw_layout = draw_bind_group_layout(&device);
        let quad_pool = QuadPool::new(&device, &queue, options.initial_quad_pages);
        Ok(Self {
            caps: gpu.caps,
            submission: DrawSubmission::for_caps(gpu.caps),
            lost: Arc::clone(&gpu.lost),
            pool: ChunkPool::new(&device, 64),
            draws: DrawLists::new(&device, quad_pool.pages()),
            quad_pool,
            lod: LodPasses::new(&device),
            mesher: Mesher::new(&device),
            pipelines: DrawPipelines::new(&device, &draw_layout, gpu.caps.polygon_mode_line),
            draw_layout,
            frame: None,
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.pass_params"),
                size: size_of::<PassParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            work: work_buffer(&device, 6),
            work_jobs: 6,
            work_generation: 0,
            camera: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.camera"),
                size: <CameraUniform as encase::ShaderType>::min_size().get(),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            opaque_bits: init("voxgpu.opaque_bits", bytemuck::cast_slice(&opaque), storage),
            materials: Materials::new(&device, &queue, registry),
            index_buffer: init(
                "voxgpu.quad_indices",
                bytemuck::cast_slice(&quad_indices()),
                wgpu::BufferUsages::INDEX,
            ),
            counters: CounterReadback::new(&device),
            failed_pages_seen: 0,
            failed_seen_frame: 0,
            frame_index: 0,
            grown_at_frame: 0,
            evicted_room: 0,
            render_pass_commands: 0,
            belt: wgpu::util::StagingBelt::new(device.clone(), BELT_CHUNK_BYTES),
            uploaded_bytes: 0,
            profiling: Profiling::new(&device),
            adapter_name: gpu.summary.to_string(),
            device_type: gpu.summary.device_type,
            color,
            depth,
            device,
            queue,
            options,
        })
    }

    /// Makes `chunk` resident at `pos` (uploading its voxels), replacing what was there. It and
    /// its six neighbours are re-meshed on the next frame. An all-air chunk is a removal.
    pub fn insert_chunk(&mut self, pos: ChunkPos, chunk: Arc<Chunk>) -> Result<(), GpuError> {
        self.insert_node(NodeKey::chunk(pos), chunk)
    }

    /// Makes a level-of-detail node resident (level 0 is a chunk), as [`Self::insert_chunk`].
    /// Which level draws a place is decided on the GPU each frame; a coarse node is drawn where
    /// its children are not all generated ([`Self::set_column_ready`]) or the camera is far.
    pub fn insert_node(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), GpuError> {
        self.pool.insert(&self.device, &self.queue, key, chunk, Remesh::Neighbours)
    }

    /// Drops the chunk at `pos`; its slot and pages are recycled and its neighbours re-meshed.
    pub fn remove_chunk(&mut self, pos: ChunkPos) {
        self.pool.remove(NodeKey::chunk(pos), Remesh::Neighbours);
    }

    /// Records that a column of nodes has been generated in full (its non-empty nodes inserted),
    /// or has left. Children replace their parent only once all four of its child columns are
    /// ready, so a half-generated place never shows a hole.
    pub fn set_column_ready(&mut self, column: NodeColumn, ready: bool) {
        self.pool.set_column_ready(column, ready);
    }

    /// Sets one block. Its chunk is re-meshed, and so is each neighbour whose border layer
    /// touches the voxel; the change shows in the next frame.
    pub fn set_block(&mut self, world: IVec3, block: BlockId) -> Result<(), GpuError> {
        self.pool.set_block(&self.device, &self.queue, world, block)
    }

    /// Changes how levels of detail are chosen from the next frame on; chunks whose level changes
    /// are re-meshed then (turning LOD off re-meshes every coarse chunk at full detail).
    /// Resizes the frame (a window's new size); every chunk stays as it is.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), GpuError> {
        let max = self.device.limits().max_texture_dimension_2d.min(MAX_TARGET_SIDE);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::TargetSize { width, height, max });
        }
        if (width, height) != self.size() {
            (self.color, self.depth) = target_textures(&self.device, width, height);
            self.options.width = width;
            self.options.height = height;
        }
        Ok(())
    }

    /// The frame's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.color.width(), self.color.height())
    }

    /// The frame's colour target (sRGB RGBA8), what `read_pixels` reads and the viewer presents.
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color
    }

    pub fn set_lod(&mut self, lod: LodSettings) {
        self.options.lod = lod;
    }

    pub fn lod(&self) -> LodSettings {
        self.options.lod
    }

    /// Render-pass commands (pipelines, bind groups, index buffer, multi-draws) the last frame
    /// recorded: the same for ten chunks or ten thousand.
    pub fn render_pass_commands(&self) -> u32 {
        self.render_pass_commands
    }

    pub fn set_culling(&mut self, culling: Culling) {
        self.options.culling = culling;
    }

    pub fn culling(&self) -> Culling {
        self.options.culling
    }

    pub fn mode(&self) -> RenderMode {
        self.options.mode
    }

    pub fn set_mode(&mut self, mode: RenderMode) {
        self.options.mode = mode;
    }

    /// Outlines `block` (or nothing) from the next frame on.
    pub fn set_selection(&mut self, block: Option<IVec3>) {
        self.options.selection = block;
    }

    pub fn set_depth_prepass(&mut self, on: bool) {
        self.options.depth_prepass = on;
    }

    /// The block at world coordinates `world` as the renderer holds it (air where no chunk is).
    pub fn block(&self, world: IVec3) -> BlockId {
        let (pos, local) = ChunkPos::from_block(world);
        self.pool
            .chunk(pos)
            .map_or(BlockId::AIR, |c| c.get(local.x as usize, local.y as usize, local.z as usize))
    }

    /// The first block the camera's view ray hits within `max_distance` blocks (picking).
    pub fn pick(&self, camera: &Camera, max_distance: f32) -> Option<crate::voxel::RayHit> {
        crate::voxel::raycast(camera.eye, camera.forward(), max_distance, |p| self.block(p))
    }

    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.pool.chunk(pos)
    }

    pub fn node(&self, key: NodeKey) -> Option<&Arc<Chunk>> {
        self.pool.node(key)
    }

    /// The most nodes the voxel pool can hold on this adapter (one storage binding).
    pub fn max_nodes(&self) -> u64 {
        self.pool.voxels.max_capacity(&self.device)
    }

    /// Resident nodes per level (index 0: chunks).
    pub fn nodes_per_level(&self) -> Vec<u32> {
        self.pool.nodes_per_level()
    }

    pub fn chunk_count(&self) -> usize {
        self.pool.len()
    }

    /// Grows the quad pool when the mesher of frame `frame` reported pages it could not get.
    /// Refusals from frames recorded before the last growth are counted but do not grow it
    /// again: they were answered already, and counters arrive a few frames late.
    fn handle_counters(&mut self, counters: GpuCounters, frame: u64) -> Result<(), GpuError> {
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
            self.quad_pool.grow(&self.device, &self.queue, refused)?;
            self.grown_at_frame = self.frame_index;
        }
        Ok(())
    }

    /// Sizes the work list and draw lists for this frame and rebuilds bind groups if any buffer
    /// was replaced.
    fn prepare(&mut self) -> PassParams {
        // Evicted chunks are collected first and do not count against the re-mesh budget.
        let budget = self.options.max_meshes_per_frame + self.pool.evictions_pending();
        let chunks = self.pool.slot_count().min(budget).min(MAX_CHUNKS_PER_FRAME);
        self.evicted_room = chunks;
        let max_jobs = 6 * chunks.max(1);
        if max_jobs > self.work_jobs {
            self.work_jobs = max_jobs.next_multiple_of(6 * 64).min(6 * MAX_CHUNKS_PER_FRAME);
            self.work = work_buffer(&self.device, self.work_jobs);
            self.work_generation += 1;
        }
        // A list never holds more commands than there are pages.
        self.draws.ensure(&self.device, self.quad_pool.pages(), self.pool.slot_count());
        self.lod.ensure(&self.device, self.pool.slot_count());
        let key = (
            self.pool.generation,
            self.quad_pool.generation,
            self.draws.generation,
            self.work_generation,
            self.lod.mip_capacity,
        );
        if self.frame.as_ref().is_none_or(|f| f.key != key) {
            self.frame = Some(self.bind_groups(key));
        }
        PassParams {
            slot_count: self.pool.slot_count(),
            max_jobs,
            draw_capacity: self.draws.capacity,
            chunk_size: crate::voxel::CHUNK_SIZE as u32,
            ambient_occlusion: self.options.ambient_occlusion as u32,
        }
    }

    fn bind_groups(&self, key: BindKey) -> Frame {
        let (pool, quads) = (&self.pool, &self.quad_pool);
        let mesh = self.mesher.bind_groups(
            &self.device,
            &MeshBuffers {
                params: &self.params,
                work: &self.work,
                voxels: &pool.voxels.buffer,
                links: &pool.links_buffer.buffer,
                opaque_bits: &self.opaque_bits,
                quads: &quads.quads.buffer,
                page_owner: &quads.page_owner.buffer,
                allocator: &quads.allocator.buffer,
                faces: &pool.faces.buffer,
                meta: &pool.meta.buffer,
            },
        );
        let lod = self.lod.bind_groups(
            &self.device,
            &LodBuffers {
                params: &self.params,
                meta: &pool.meta.buffer,
                links: &pool.links_buffer.buffer,
                voxels: &pool.voxels.buffer,
            },
        );
        let cull = self.draws.bind_group(&self.device, &self.params, &pool.faces.buffer, &pool.meta.buffer);
        let draw = draw_bind_group(
            &self.device,
            &self.draw_layout,
            &[&self.camera, &quads.quads.buffer, &quads.page_owner.buffer, &pool.meta.buffer],
            &self.materials,
        );
        Frame { key, lod, mesh, cull, draw }
    }

    fn counter_sources(&self) -> CounterSources<'_> {
        CounterSources {
            work: &self.work,
            allocator: &self.quad_pool.allocator.buffer,
            draw_counts: &self.draws.counts,
            lod_counts: &self.lod.counts,
        }
    }

    /// Renders one frame into the target: uploads what changed, meshes it, then draws everything.
    pub fn render(&mut self, camera: &Camera) -> Result<FrameStats, GpuError> {
        check_device(&self.lost)?;
        let started = Instant::now();
        if self.counters.poll(&self.device) {
            self.handle_counters(self.counters.latest, self.counters.latest_frame)?;
        }
        let params = self.prepare();
        let (width, height) = (self.color.width(), self.color.height());
        let view_proj = camera.view_proj(width as f32 / height as f32);
        let uniform = CameraUniform {
            view_proj,
            inv_view_proj: view_proj.inverse(),
            selection: self.options.selection.map_or(glam::Vec4::ZERO, |b| b.as_vec3().extend(1.0)),
            eye: camera.eye,
            fog_start: self.options.fog_end * self.options.fog_start_fraction,
            sky_color: self.options.sky_color,
            fog_end: self.options.fog_end,
        };
        self.queue.write_buffer(&self.camera, 0, &uniform.to_bytes());
        let culling = self.options.culling;
        let cull_camera = culling.frozen.unwrap_or(*camera);
        let frustum = Frustum::from_view_proj(cull_camera.view_proj(width as f32 / height as f32));
        let flags =
            (CullParams::FRUSTUM * culling.frustum as u32) | (CullParams::FACES * culling.faces as u32);
        let cull = CullParams::new(&frustum, cull_camera.eye, flags, camera.eye);
        self.queue.write_buffer(&self.draws.cull_params, 0, bytemuck::bytes_of(&cull));
        self.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(&self.work, 0, bytemuck::cast_slice(&[0u32, 1, 1, 0]));

        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.frame") });
        self.record_uploads(&mut encoder);
        self.draws.reset(&mut encoder, self.submission);
        self.lod.prepare(
            &self.queue,
            &mut encoder,
            &LodParams::new(&self.options.lod, camera.eye, self.pool.top_level()),
        );
        let frame = self.frame.as_ref().expect("prepared");
        let profiler = &self.profiling.profiler;
        self.lod.record(&mut encoder, profiler, &frame.lod, params.slot_count);
        self.mesher.record(&mut encoder, profiler, &frame.mesh, &self.work, params.slot_count);
        self.draws.record(&mut encoder, profiler, &frame.cull, params.slot_count);
        self.render_pass_commands = self.record_draw(&mut encoder, &frame.draw);
        let sources = CounterSources {
            work: &self.work,
            allocator: &self.quad_pool.allocator.buffer,
            draw_counts: &self.draws.counts,
            lod_counts: &self.lod.counts,
        };
        let pending = self.counters.copy(&mut encoder, &sources, self.frame_index);
        self.submit(encoder, started)?;
        if let Some(index) = pending {
            self.counters.request(index);
        }
        Ok(self.stats(self.counters.latest))
    }

    /// Records the staged voxel and record writes as the frame's first commands.
    fn record_uploads(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let mut scope = self.profiling.profiler.scope(stage::UPLOAD, encoder);
        self.uploaded_bytes = self.pool.record_uploads(&mut scope, &mut self.belt);
    }

    /// Resolves the profiler's queries, submits, and closes the profiled frame.
    fn submit(&mut self, mut encoder: wgpu::CommandEncoder, started: Instant) -> Result<(), GpuError> {
        self.profiling.profiler.resolve_queries(&mut encoder);
        self.belt.finish();
        let recorded = Instant::now();
        // wgpu validates and translates the passes in `finish`.
        self.queue.submit([encoder.finish()]);
        let cpu_ms =
            (recorded.duration_since(started).as_secs_f64() * 1e3, recorded.elapsed().as_secs_f64() * 1e3);
        self.belt.recall();
        // The belt keeps every staging chunk it ever needed: after a burst (a world loaded at
        // once is gigabytes) start a fresh one, so the burst's staging memory is freed.
        if self.uploaded_bytes > BELT_KEEP_BYTES {
            self.belt = wgpu::util::StagingBelt::new(self.device.clone(), BELT_CHUNK_BYTES);
        }
        self.pool.frame_submitted(self.evicted_room);
        self.frame_index += 1;
        self.profiling.end_frame(cpu_ms)?;
        self.profiling.collect(self.queue.get_timestamp_period());
        Ok(())
    }

    fn stats(&self, c: GpuCounters) -> FrameStats {
        FrameStats {
            chunks_resident: self.pool.len() as u32,
            face_jobs: c.jobs_asked,
            quads: c.quads.iter().map(|&q| q as u64).sum(),
            draw_commands: c.draw_commands.iter().sum(),
            skirt_quads: c.skirt_quads as u64,
            chunks_tested: c.chunks_tested,
            chunks_visible: c.chunks_visible,
            lod_levels: c.lod_levels,
            quad_buffer_bytes: self.quad_pool.bytes(),
            free_pages: c.free_pages,
            slots: self.pool.slot_count(),
            gpu_bytes: self.gpu_bytes(),
            uploaded_bytes: self.uploaded_bytes,
        }
    }

    /// Bytes of every buffer that grows with the world: the voxel pool and its per-slot records,
    /// the mega quad buffer with its page table and free stack, and the draw lists.
    pub fn gpu_bytes(&self) -> u64 {
        let pool = &self.pool;
        [&pool.voxels, &pool.meta, &pool.links_buffer, &pool.faces]
            .iter()
            .map(|b| b.buffer.size())
            .sum::<u64>()
            + self.quad_pool.total_bytes()
            + self.draws.bytes()
    }

    pub(in crate::gpu) fn inspect_parts(&self) -> (&wgpu::Device, &wgpu::Queue, &ChunkPool, &QuadPool) {
        (&self.device, &self.queue, &self.pool, &self.quad_pool)
    }
}
