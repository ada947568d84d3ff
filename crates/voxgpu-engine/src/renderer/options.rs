//! What a renderer is configured with ([`RendererOptions`], [`Culling`]) and what one frame
//! reports ([`FrameStats`]).

use glam::{IVec3, Vec3};

use crate::RenderMode;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;

/// How a [`crate::Renderer`] is set up: frame size, fog and sky, buffer sizes, the re-mesh
/// budget, level of detail and what the frame draws. [`RendererOptions::new`] gives the defaults.
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// Frame width in pixels: 1 up to the device's largest texture side.
    pub width: u32,
    /// Frame height in pixels: 1 up to the device's largest texture side.
    pub height: u32,
    /// Fog reaches the sky colour at this horizontal distance in blocks (usually the view
    /// distance).
    pub fog_end: f32,
    /// Fog begins at this fraction of `fog_end`.
    pub fog_start_fraction: f32,
    /// Linear RGB background and fog colour.
    pub sky_color: Vec3,
    /// Pages (256 quads each) the mega quad buffer starts with; it grows on demand.
    pub initial_quad_pages: u32,
    /// Chunks re-meshed per frame at most; the rest wait for the next frame.
    pub max_meshes_per_frame: u32,
    /// How levels of detail are chosen ([`LodSettings::OFF`]: everything at full detail).
    pub lod: LodSettings,
    /// The mesher bakes per-vertex ambient occlusion into the quads.
    pub ambient_occlusion: bool,
    /// What the frame draws: shaded, or a debug view.
    pub mode: RenderMode,
    /// Draw the opaque quads' depth first, then shade them at equal depth (filled modes).
    pub depth_prepass: bool,
    /// A gradient sky with a sun; off, the background is `sky_color` flat (tests that detect
    /// background pixels use that).
    pub procedural_sky: bool,
    /// The block outlined as selected (the viewer sets it from `Renderer::pick`).
    pub selection: Option<IVec3>,
    /// Which culling tests run.
    pub culling: Culling,
    /// The format of the colour targets frames are recorded into: an sRGB format (the shaders
    /// write linear colour). [`crate::COLOR_FORMAT`] by default; a window's surface format
    /// (`Bgra8UnormSrgb` is common) to draw into it directly.
    pub color_format: wgpu::TextureFormat,
    /// How the draw lists are submitted; `None` takes [`crate::DrawSubmission::for_caps`].
    /// [`crate::Renderer::new`] refuses one the device cannot do.
    pub draw_submission: Option<crate::DrawSubmission>,
}

/// Which culling tests run, and from which camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Culling {
    /// Chunks outside the view frustum draw nothing.
    pub frustum: bool,
    /// Face directions pointing away from the eye for a whole chunk draw nothing.
    pub faces: bool,
    /// Cull from this camera instead of the view's (a debug switch: culling can be inspected
    /// from outside).
    pub frozen: Option<Camera>,
}

impl Culling {
    /// Both tests, from the view's camera (the default).
    pub const ALL: Culling = Culling { frustum: true, faces: true, frozen: None };
    /// No tests: every drawn node's every face is drawn.
    pub const NONE: Culling = Culling { frustum: false, faces: false, frozen: None };
}

impl RendererOptions {
    /// A `width × height` frame with fog ending at `fog_end` blocks, and defaults for the rest:
    /// fog from 55 % of `fog_end`, a blue sky, 4096 quad pages (1 Mi quads, 8 MiB) to start,
    /// 4096 re-meshed chunks per frame, LOD and ambient occlusion on, the filled mode without
    /// depth pre-pass, the procedural sky, no selection, all culling, [`crate::COLOR_FORMAT`],
    /// the device's preferred draw submission.
    pub fn new(width: u32, height: u32, fog_end: f32) -> Self {
        Self {
            width,
            height,
            fog_end,
            fog_start_fraction: 0.55,
            sky_color: Vec3::new(0.32, 0.52, 0.82),
            initial_quad_pages: 4096,
            max_meshes_per_frame: 4096,
            lod: LodSettings::default(),
            ambient_occlusion: true,
            mode: RenderMode::Filled,
            depth_prepass: false,
            procedural_sky: true,
            selection: None,
            culling: Culling::ALL,
            color_format: crate::COLOR_FORMAT,
            draw_submission: None,
        }
    }

    /// The frame's size in pixels, `(width, height)`.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The frame's width over its height.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }
}

/// What one frame did. GPU-counted fields come from a frame or two earlier (read back without
/// stalling); [`crate::Renderer::settle`] returns exact ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Resident nodes (chunks and coarser level-of-detail nodes), one pool slot each.
    pub chunks_resident: u32,
    /// Face jobs the mesher was asked for (six per re-meshed chunk).
    pub face_jobs: u32,
    /// Quads drawn, opaque and transparent.
    pub quads: u64,
    /// Indirect draw commands the cull pass wrote, opaque and transparent.
    pub draw_commands: u32,
    /// Of `quads`, the LOD skirts.
    pub skirt_quads: u64,
    /// Slots with quads, each tested by the cull pass.
    pub chunks_tested: u32,
    /// Of those, the slots the cull pass found in view: drawn by the LOD pass and, with frustum
    /// culling on, inside the frustum.
    pub chunks_visible: u32,
    /// Drawn nodes per absolute level of detail (cells 2^level blocks wide).
    pub lod_levels: [u32; voxgpu_core::lod::LEVELS],
    /// Bytes of the mega quad buffer (its quads only: pages × 256 quads × 8 bytes).
    pub quad_buffer_bytes: u64,
    /// Pages of 256 quads on the free stack after meshing.
    pub free_pages: u32,
    /// Voxel pool slots in use: the highest slot + 1 (freed slots below it are reused first).
    pub slots: u32,
    /// Bytes of every buffer that grows with the world: the voxel pool and its per-slot records,
    /// the mega quad buffer with its page table and free stack, and the draw lists.
    pub gpu_bytes: u64,
    /// Bytes this frame uploaded (voxels and records).
    pub uploaded_bytes: u64,
}

impl FrameStats {
    /// Quad pages holding some chunk's quads.
    pub fn pages_in_use(&self) -> u64 {
        self.quad_buffer_bytes / (crate::PAGE_QUADS as u64 * voxgpu_core::mesh::QUAD_BYTES as u64)
            - self.free_pages as u64
    }
}
