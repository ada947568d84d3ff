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
//! `frame.rs` is that recipe (`prepare`, `record`, `render`, `frame_submitted`);
//! `options.rs` holds what a renderer is configured with and what a frame reports;
//! `draw_passes.rs` records the render passes of the frame's mode and is the streaming manager's
//! sink; `offline.rs` holds what waits for the GPU (`settle`, `timed_remesh`) and the profiling
//! controls; `offscreen.rs` is a renderer with its own targets and `read_pixels`.
//!
//! Edits between frames (`insert_chunk`, `remove_chunk`, `set_block`) upload only the changed
//! voxels and mark the affected chunks dirty; the GPU finds them in step 2.

mod draw_passes;
mod frame;
mod offline;
mod offscreen;
mod options;

pub use offscreen::Offscreen;
pub use options::{Culling, FrameStats, RendererOptions};

use std::sync::Arc;
use web_time::Instant;

use glam::IVec3;

use super::chunk_pool::{ChunkPool, Remesh};
use super::counters::CounterReadback;
use super::draw::{CullBindGroups, DrawLists, DrawSubmission, quad_indices};
use super::layouts::{CameraUniform, LodParams, PassParams, WORK_JOBS_OFFSET};
use super::lod::{LodBindGroups, LodPasses};
use super::materials::Materials;
use super::mesher::{BindGroups, Mesher};
use super::pipelines::{DrawPipelines, draw_bind_group_layout};
use super::profiling::Profiling;
use super::quad_pool::QuadPool;
use super::render_mode::RenderMode;
use super::{Capabilities, GpuError};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, BlockRegistry, Chunk, ChunkPos, NodeColumn, NodeKey};

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

/// The voxel renderer on a caller's device: its chunk and node pool, compute mesher, level of
/// detail and culling passes, and draw pipelines. A frame is [`Renderer::prepare`] (CPU work and
/// uploads) then [`Renderer::record`] into the caller's encoder and targets; the caller submits.
/// [`crate::Offscreen`] adds its own targets, submission and read-back.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Set by a device-lost callback the owner of the device installed ([`crate::GpuContext`]).
    lost: Option<Arc<std::sync::Mutex<Option<String>>>>,
    caps: Capabilities,
    submission: DrawSubmission,
    options: RendererOptions,
    /// The blocks the materials were made from, kept to make them again on a new device.
    registry: BlockRegistry,

    pool: ChunkPool,
    quad_pool: QuadPool,
    lod: LodPasses,
    mesher: Mesher,
    pub(crate) draws: DrawLists,
    pipelines: DrawPipelines,
    draw_layout: wgpu::BindGroupLayout,
    frame: Option<Frame>,

    params: wgpu::Buffer,
    work: wgpu::Buffer,
    work_jobs: u32,
    work_generation: u64,
    /// The pass parameters and work list of the release-only mesher runs recorded between a
    /// frame's uploads (`ChunkPool`'s staged releases), apart from the frame's own, which they
    /// would overwrite; written by copies in the encoder, so each run sees its own.
    release_params: wgpu::Buffer,
    release_work: wgpu::Buffer,
    release_jobs: u32,
    /// Scopes of the release runs: never timed (a frame's profile names each stage once), and,
    /// as every profiler's, without debug groups (`profiling::SETTINGS`).
    release_profiler: wgpu_profiler::GpuProfiler,
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
    /// What `prepare` computed for the frame `record` records next.
    prepared: Option<Prepared>,
    /// A recorded frame whose after-submission work (counter read-back, profiler frame end,
    /// staging belt recall) has not run yet.
    unsubmitted: Option<Recorded>,
}

/// The frame `prepare` set up, for `record`.
struct Prepared {
    params: PassParams,
    lod: LodParams,
    started: Instant,
}

/// A recorded frame, until the caller has submitted it.
struct Recorded {
    /// The counter read-back slot the frame copied into, if one was free.
    counters: Option<usize>,
    /// Milliseconds from `prepare` to the end of `record`.
    cpu_ms: f64,
    /// Evicted chunks its work list had room for: how many it released.
    evicted_room: u32,
}

/// The colour and depth views a frame is drawn into, both `width × height` of the renderer's
/// options. Colour is [`RendererOptions::color_format`]; depth is [`crate::DEPTH_FORMAT`],
/// reverse-Z (1 near, 0 at infinity, `GreaterEqual` passes), so geometry of the caller's drawn into
/// the same depth view before or after voxgpu is hidden by the terrain and hides it correctly.
pub struct Targets<'a> {
    /// The colour target.
    pub color: &'a wgpu::TextureView,
    /// The depth target.
    pub depth: &'a wgpu::TextureView,
    /// Clear both first (colour to the sky colour, depth to 0). Off, the frame draws over what
    /// the targets hold, and the sky fills only pixels whose depth is still 0.
    pub clear: bool,
}

/// `Err(TargetSize)` unless `width × height` is a frame this device can draw.
fn check_target_size(device: &wgpu::Device, width: u32, height: u32) -> Result<(), GpuError> {
    let max = device.limits().max_texture_dimension_2d.min(MAX_TARGET_SIDE);
    if width == 0 || height == 0 || width > max || height > max {
        return Err(GpuError::TargetSize { width, height, max });
    }
    Ok(())
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
    /// A renderer on the caller's device and queue (kept as cloned handles). The device must
    /// have been created with at least [`crate::required_limits`] and the
    /// [`crate::REQUIRED_DOWNLEVEL`] abilities; the [`crate::OPTIONAL_FEATURES`] it has are used
    /// (see [`Capabilities`]). Block colours and opacity come from `registry`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        let device = device.clone();
        let queue = queue.clone();
        check_target_size(&device, options.width, options.height)?;
        let caps = Capabilities::of(device.features());
        let info = device.adapter_info();
        let submission = options.draw_submission.unwrap_or(DrawSubmission::for_caps(caps));
        if !submission.is_supported(caps) {
            return Err(GpuError::Unsupported {
                adapter: info.name.clone(),
                missing: format!("MULTI_DRAW_INDIRECT_COUNT for the {} draw submission", submission.name()),
            });
        }
        let init = |label, contents: &[u8], usage| {
            super::buffers::buffer_with(&device, &queue, label, contents, usage)
        };
        let opaque = opaque_bits(registry);
        let storage = wgpu::BufferUsages::STORAGE;
        let draw_layout = draw_bind_group_layout(&device);
        let quad_pool = QuadPool::new(&device, &queue, options.initial_quad_pages);
        Ok(Self {
            caps,
            submission,
            lost: None,
            pool: ChunkPool::new(&device, 64),
            draws: DrawLists::new(&device, quad_pool.pages()),
            quad_pool,
            lod: LodPasses::new(&device),
            mesher: Mesher::new(&device),
            pipelines: DrawPipelines::new(
                &device,
                &draw_layout,
                caps.polygon_mode_line,
                options.color_format,
            ),
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
            release_params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.release.pass_params"),
                size: size_of::<PassParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            release_work: work_buffer(&device, 6),
            release_jobs: 6,
            release_profiler: wgpu_profiler::GpuProfiler::new(&device, crate::profiling::SETTINGS)
                .expect("default settings are valid"),
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
            adapter_name: format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type),
            device_type: info.device_type,
            prepared: None,
            unsubmitted: None,
            device,
            queue,
            options,
            registry: registry.clone(),
        })
    }

    /// Rebuilds the renderer on a new `device` and `queue` after its own was lost (or for any
    /// other reason), from what it keeps on the CPU: every node's cells as they are now (edits
    /// included, and the nodes edits created), which columns are complete, and its options
    /// (size, mode, levels of detail, culling, selection, draw submission, profiling). Nothing
    /// is read from the old device. Every GPU resource is made again, the voxel pool and the
    /// quad pool at the sizes they had grown to, and every node is re-meshed over the next frames
    /// (`max_meshes_per_frame` a frame); [`Self::settle`] waits for that. Frame numbers start
    /// again. A device-loss flag watched before is dropped: watch the new device's with
    /// [`Self::watch_device_loss`].
    pub fn recover(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), GpuError> {
        let mut options = self.options.clone();
        // The pools start at the size they had grown to, so the rebuild is not refused pages.
        options.initial_quad_pages = options.initial_quad_pages.max(self.quad_pool.pages());
        // A submission chosen for the old device may not exist on the new one.
        options.draw_submission =
            options.draw_submission.filter(|s| s.is_supported(Capabilities::of(device.features())));
        let mut fresh = Renderer::new(device, queue, options, &self.registry)?;
        if self.profiling.enabled() {
            // The new adapter may lack timestamps; frames go on unprofiled then.
            let _ = fresh.set_profiling(true);
        }
        fresh.pool.reserve(device, queue, self.pool.slot_count() as u64)?;
        // Readiness first, so each node's readiness bits are right when its slot is made.
        for &column in self.pool.ready_columns() {
            fresh.pool.set_column_ready(column, true);
        }
        // Coarse levels first, so children find their parent's slot when theirs is made.
        let mut nodes: Vec<(NodeKey, &Arc<Chunk>)> = self.pool.nodes().collect();
        nodes.sort_by_key(|(key, _)| (std::cmp::Reverse(key.level), key.pos.to_array()));
        for (key, chunk) in nodes {
            fresh.pool.insert(device, queue, key, Arc::clone(chunk), Remesh::Caller)?;
        }
        *self = fresh;
        Ok(())
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

    /// Resizes the frame (a window's new size): the targets of later frames are this size.
    /// Every chunk stays as it is.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), GpuError> {
        check_target_size(&self.device, width, height)?;
        self.options.width = width;
        self.options.height = height;
        Ok(())
    }

    /// The frame's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.options.width, self.options.height)
    }

    /// The optional features this renderer uses on its device.
    pub fn caps(&self) -> Capabilities {
        self.caps
    }

    /// How draws are submitted on this device (with a GPU-side count, or a capped list).
    pub fn submission(&self) -> DrawSubmission {
        self.submission
    }

    /// The device the renderer records for.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue the renderer uploads through.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Reports [`GpuError::DeviceLost`] from each frame's `prepare` once `lost` holds a message:
    /// the flag a device-lost callback of the device's owner sets.
    pub fn watch_device_loss(&mut self, lost: Arc<std::sync::Mutex<Option<String>>>) {
        self.lost = Some(lost);
    }

    /// Changes how levels of detail are chosen from the next frame on; chunks whose level changes
    /// are re-meshed then (turning LOD off re-meshes every coarse chunk at full detail).
    pub fn set_lod(&mut self, lod: LodSettings) {
        self.options.lod = lod;
    }

    /// How levels of detail are chosen.
    pub fn lod(&self) -> LodSettings {
        self.options.lod
    }

    /// Render-pass commands (pipelines, bind groups, index buffer, multi-draws) the last frame
    /// recorded: the same for ten chunks or ten thousand.
    pub fn render_pass_commands(&self) -> u32 {
        self.render_pass_commands
    }

    /// Changes which culling tests run, from the next frame on.
    pub fn set_culling(&mut self, culling: Culling) {
        self.options.culling = culling;
    }

    /// Which culling tests run.
    pub fn culling(&self) -> Culling {
        self.options.culling
    }

    /// What frames draw: shaded, or a debug view.
    pub fn mode(&self) -> RenderMode {
        self.options.mode
    }

    /// Changes what frames draw, from the next frame on.
    pub fn set_mode(&mut self, mode: RenderMode) {
        self.options.mode = mode;
    }

    /// Outlines `block` (or nothing) from the next frame on.
    pub fn set_selection(&mut self, block: Option<IVec3>) {
        self.options.selection = block;
    }

    /// Turns the opaque depth pre-pass on or off (filled modes), from the next frame on.
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

    /// The first block the camera's view ray hits within `max_distance` blocks (picking). A
    /// camera [`Self::prepare`] would refuse ([`Camera::is_drawable`]) picks nothing.
    pub fn pick(&self, camera: &Camera, max_distance: f32) -> Option<voxgpu_core::voxel::RayHit> {
        let (width, height) = self.size();
        if !camera.is_drawable(width as f32 / height.max(1) as f32) {
            return None;
        }
        voxgpu_core::voxel::raycast(camera.eye, camera.forward(), max_distance, |p| self.block(p))
    }

    /// The resident chunk at `pos`, as the renderer holds it (edits included).
    pub fn chunk(&self, pos: ChunkPos) -> Option<&Arc<Chunk>> {
        self.pool.chunk(pos)
    }

    /// Every resident chunk (level 0) as the renderer holds it (edits included), in no
    /// particular order: what a game saves or exports.
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkPos, &Arc<Chunk>)> {
        self.pool.chunks()
    }

    /// The resident node `key` (level 0: a chunk), its cells as the renderer holds them.
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

    /// Resident nodes of every level.
    pub fn chunk_count(&self) -> usize {
        self.pool.len()
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

    pub(crate) fn inspect_parts(&self) -> (&wgpu::Device, &wgpu::Queue, &ChunkPool, &QuadPool) {
        (&self.device, &self.queue, &self.pool, &self.quad_pool)
    }
}
