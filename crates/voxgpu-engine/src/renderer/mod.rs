//! The renderer: the frame recipe over four parts, each in its own file with its invariants:
//!
//! - **device** (`device.rs`): the device and queue, the loss flag, the capabilities and the
//!   draw submission;
//! - **residency** (`residency.rs`): the chunk pool (every node's cells, CPU and GPU) and the
//!   quad pool, and how the quad pool grows;
//! - **passes** (`passes.rs`, `mesh_runs.rs`, `draw_passes.rs`): every pipeline, the per-frame
//!   uniforms, the work and draw lists, and the bind groups over the residency's pools;
//! - **frame loop** (`frame_loop.rs`): the frame index, the prepared and the unsubmitted frame,
//!   the staging belt, the counter read-back and the profiler.
//!
//! One frame, recorded the same way whatever the number of chunks (`frame.rs`):
//! 1. `prepare`, CPU: take the GPU counters that have arrived (a frame or two old) and grow the
//!    quad pool if the mesher was refused pages; size the lists; write the camera, the pass
//!    parameters and the work list header.
//! 2. `record`, upload: the staged voxel and record writes, as copies, with any release-only
//!    mesher runs between them.
//! 3. Compute: `lod` (each node's level), `mips` (pyramids of changed chunks), then collect →
//!    release, mesh → commit, then `cull` (frustum and face directions into the draw
//!    lists) and the back-to-front sort of the transparent list.
//! 4. Render: one pass per raster pass of the mode (`draw_passes.rs`); filled is an optional
//!    depth pre-pass, opaque (each pixel's surface key: its quad), `shade` (compute: colour,
//!    light, shadow and haze once per pixel), `compose` with the sky, then transparent (blended, no depth write),
//!    one multi-draw each, with the selection outline.
//! 5. Copy the counters for a later frame to read; after the caller's submission,
//!    `frame_submitted` applies the frame's evictions and asks for its counters and timings.
//!
//! Each stage is a profiling scope (`profiling::stage`), timed when profiling is on.
//! `offline.rs` holds what waits for the GPU (`settle`) and the tools' handle
//! ([`crate::low_level::Tools`]); `offscreen.rs` is a renderer with its own targets and
//! `read_pixels`; `options.rs` holds what a renderer is configured with and what a frame
//! reports.
//!
//! Edits between frames (`insert_chunk`, `remove_chunk`, `set_block`) upload only the changed
//! voxels and mark the affected chunks dirty; the GPU finds them in step 2.

mod device;
mod draw_passes;
mod frame;
mod frame_loop;
mod mesh_runs;
mod offline;
mod offscreen;
mod options;
mod passes;
mod residency;

pub(crate) use device::check_target_size;
pub use offline::Tools;
pub use offscreen::Offscreen;
pub use options::{
    Culling, DEFAULT_FOG_DENSITY, DEFAULT_TIME_OF_DAY, FrameStats, MIN_FOG_DENSITY, RendererOptions,
    haze_amount, haze_exponent, sun,
};
pub use residency::{DEFAULT_GPU_BUDGET_MIB, NODE_BUDGET_BYTES, Residency};

use std::sync::Arc;

use glam::IVec3;

use crate::GpuError;
use crate::chunk_pool::Remesh;
use crate::pipelines::SharedPipelines;
use device::Gpu;
use frame_loop::FrameLoop;
use passes::Passes;
use voxgpu_core::ChunkSink;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, BlockRegistry, Chunk, ChunkPos, NodeColumn, NodeKey, RayHit};

use crate::render_mode::RenderMode;

/// The voxel renderer on a caller's device: its chunk and node pool, compute mesher, level of
/// detail and culling passes, and draw pipelines. A frame is [`Renderer::prepare`] (CPU work and
/// uploads) then [`Renderer::record`] into the caller's encoder and targets; the caller submits,
/// then calls [`Renderer::frame_submitted`]. [`crate::Offscreen`] adds its own targets,
/// submission and read-back. What the GPU holds can be read back through
/// [`Renderer::inspect`]; tools' controls (profiling, timed re-meshes) are on
/// [`Renderer::tools`].
pub struct Renderer {
    gpu: Gpu,
    resident: Residency,
    passes: Passes,
    frames: FrameLoop,
    options: RendererOptions,
    /// The blocks the materials were made from, kept to make them again on a new device.
    registry: BlockRegistry,
}

/// The colour and depth views a frame is drawn into, both `width × height` of the renderer's
/// options. Colour is [`RendererOptions::color_format`]; depth is [`crate::DEPTH_FORMAT`]
/// ([`crate::depth_target`] makes one), reverse-Z (1 near, 0 at infinity, `GreaterEqual`
/// passes), so geometry of the caller's drawn into the same depth view before or after voxgpu
/// is hidden by the terrain and hides it correctly.
pub struct Targets<'a> {
    /// The colour target.
    pub color: &'a wgpu::TextureView,
    /// The depth target.
    pub depth: &'a wgpu::TextureView,
    /// Clear both first (colour to the sky colour, depth to 0). Off, the frame draws over what
    /// the targets hold, and the sky fills only pixels whose depth is still 0. A cleared colour
    /// target that is plain `Rgba8Unorm` with `STORAGE_BINDING` (one mip, one layer, the depth's
    /// size) seen through an `Rgba8UnormSrgb` view, under the procedural sky, is written whole by
    /// the compute shade pass, surfaces and sky, rather than by a render pass.
    pub clear: bool,
}

impl Renderer {
    /// A renderer on the caller's device and queue (kept as cloned handles). The device must
    /// have been created with at least [`crate::required_limits`] and the
    /// [`crate::REQUIRED_DOWNLEVEL`] abilities; the [`crate::OPTIONAL_FEATURES`] it has are used
    /// (see [`crate::Capabilities`]). Block colours and opacity come from `registry`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        Self::with_pipelines(&SharedPipelines::new(device), queue, options, registry)
    }

    /// [`Self::new`] on the device of `pipelines`, taking from there the compute pipelines
    /// compiled already and keeping there the ones it compiles: the renderers made with one
    /// [`SharedPipelines`] compile each pipeline once. `queue` is that device's.
    pub fn with_pipelines(
        pipelines: &SharedPipelines,
        queue: &wgpu::Queue,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        let device = pipelines.device();
        let gpu = Gpu::new(device, queue, &options)?;
        let resident = Residency::new(pipelines, queue, options.initial_quad_pages);
        let passes = Passes::new(
            pipelines,
            queue,
            &options,
            gpu.caps,
            gpu.device_type,
            registry,
            resident.quads.pages(),
        );
        Ok(Self {
            frames: FrameLoop::new(device),
            gpu,
            resident,
            passes,
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
        self.recover_with_pipelines(&SharedPipelines::new(device), queue)
    }

    /// [`Self::recover`] onto the device of `pipelines`, sharing its compiled compute pipelines
    /// as [`Self::with_pipelines`] does.
    pub fn recover_with_pipelines(
        &mut self,
        pipelines: &SharedPipelines,
        queue: &wgpu::Queue,
    ) -> Result<(), GpuError> {
        let device = pipelines.device();
        let mut options = self.options.clone();
        // The pools start at the size they had grown to, so the rebuild is not refused pages.
        options.initial_quad_pages = options.initial_quad_pages.max(self.resident.quads.pages());
        // A submission chosen for the old device may not exist on the new one.
        options.draw_submission =
            options.draw_submission.filter(|s| s.is_supported(crate::Capabilities::of(device.features())));
        let mut fresh = Renderer::with_pipelines(pipelines, queue, options, &self.registry)?;
        if self.frames.profiling.enabled() {
            // The new adapter may lack timestamps; frames go on unprofiled then.
            let _ = fresh.tools().set_profiling(true);
        }
        let (old, new) = (&self.resident.pool, &mut fresh.resident.pool);
        new.reserve(device, queue, old.slot_count() as u64)?;
        // Readiness first, so each node's readiness bits are right when its slot is made.
        for &column in old.ready_columns() {
            new.set_column_ready(column, true);
        }
        // Coarse levels first, so children find their parent's slot when theirs is made.
        let mut nodes: Vec<(NodeKey, &Arc<Chunk>)> = old.nodes().collect();
        nodes.sort_by_key(|(key, _)| (std::cmp::Reverse(key.level), key.pos.to_array()));
        for (key, chunk) in nodes {
            new.insert(device, queue, key, Arc::clone(chunk), Remesh::Caller)?;
        }
        *self = fresh;
        Ok(())
    }

    /// Reports [`GpuError::DeviceLost`] from each frame's `prepare` once `lost` holds a message:
    /// the flag a device-lost callback of the device's owner sets.
    pub fn watch_device_loss(&mut self, lost: Arc<std::sync::Mutex<Option<String>>>) {
        self.gpu.watch(lost);
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
        self.resident.pool.insert(&self.gpu.device, &self.gpu.queue, key, chunk, Remesh::Neighbours)
    }

    /// Drops the chunk at `pos`; its slot and pages are recycled and its neighbours re-meshed.
    pub fn remove_chunk(&mut self, pos: ChunkPos) {
        self.resident.pool.remove(NodeKey::chunk(pos), Remesh::Neighbours);
    }

    /// Records that a column of nodes has been generated in full (its non-empty nodes inserted),
    /// or has left. Children replace their parent only once all four of its child columns are
    /// ready, so a half-generated place never shows a hole.
    pub fn set_column_ready(&mut self, column: NodeColumn, ready: bool) {
        self.resident.pool.set_column_ready(column, ready);
    }

    /// Sets one block. Its chunk is re-meshed, and so is each neighbour whose border layer
    /// touches the voxel; the change shows in the next frame.
    pub fn set_block(&mut self, world: IVec3, block: BlockId) -> Result<(), GpuError> {
        self.resident.pool.set_block(&self.gpu.device, &self.gpu.queue, world, block)
    }

    /// The resident nodes as the renderer holds them (edits included): blocks, chunks, nodes
    /// and counts.
    pub fn resident(&self) -> &Residency {
        &self.resident
    }

    /// The first block the camera's view ray hits within `max_distance` blocks (picking). A
    /// camera [`Self::prepare`] would refuse ([`Camera::is_drawable`]) picks nothing.
    pub fn pick(&self, camera: &Camera, max_distance: f32) -> Option<RayHit> {
        if !camera.is_drawable(self.options.aspect()) {
            return None;
        }
        voxgpu_core::voxel::raycast(camera.eye, camera.forward(), max_distance, |p| self.resident.block(p))
    }

    /// What the renderer is configured with now: size, mode, levels of detail, culling,
    /// selection and the rest.
    pub fn options(&self) -> &RendererOptions {
        &self.options
    }

    /// Resizes the frame (a window's new size): the targets of later frames are this size.
    /// Every chunk stays as it is.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), GpuError> {
        self.gpu.check_target_size(width, height)?;
        self.options.width = width;
        self.options.height = height;
        Ok(())
    }

    /// Changes how levels of detail are chosen from the next frame on; chunks whose level changes
    /// are re-meshed then (turning LOD off re-meshes every coarse chunk at full detail).
    pub fn set_lod(&mut self, lod: LodSettings) {
        self.options.lod = lod;
    }

    /// Changes which culling tests run, from the next frame on.
    pub fn set_culling(&mut self, culling: Culling) {
        self.options.culling = culling;
    }

    /// Changes what frames draw, from the next frame on.
    pub fn set_mode(&mut self, mode: RenderMode) {
        self.options.mode = mode;
    }

    /// Lights frames at `hours` (0..24, wrapped) from the next frame on: the sun, the sky's light
    /// and the sky ([`RendererOptions::time_of_day`]).
    pub fn set_time_of_day(&mut self, hours: f32) {
        self.options.time_of_day =
            if hours.is_finite() { hours.rem_euclid(24.0) } else { crate::DEFAULT_TIME_OF_DAY };
    }

    /// Draws sun shadows or not from the next frame on ([`RendererOptions::shadows`]; `None`: as
    /// the device prefers). [`Self::shadows`] says which a frame gets.
    pub fn set_shadows(&mut self, shadows: Option<bool>) {
        self.options.shadows = shadows;
    }

    /// Outlines `block` (or nothing) from the next frame on.
    pub fn set_selection(&mut self, block: Option<IVec3>) {
        self.options.selection = block;
    }
}

/// The streaming manager's view of the renderer: neighbours are re-meshed only when the manager
/// asks (it deduplicates and budgets those requests).
impl ChunkSink for Renderer {
    type Error = GpuError;

    fn insert(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), GpuError> {
        self.resident.pool.insert(&self.gpu.device, &self.gpu.queue, key, chunk, Remesh::Caller)
    }

    fn remove(&mut self, key: NodeKey) {
        self.resident.pool.remove(key, Remesh::Caller);
    }

    fn mark_dirty(&mut self, key: NodeKey) {
        self.resident.pool.mark_dirty(key);
    }

    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        self.resident.pool.set_column_ready(column, ready);
    }
}
