//! What a renderer is configured with ([`RendererOptions`], [`Culling`]) and what one frame
//! reports ([`FrameStats`]).

use glam::{IVec3, Vec3};

use voxgpu_core::camera::Camera;
use crate::RenderMode;
use voxgpu_core::lod::LodSettings;

#[derive(Clone, Debug)]
pub struct RendererOptions {
    pub width: u32,
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
    pub const ALL: Culling = Culling { frustum: true, faces: true, frozen: None };
    pub const NONE: Culling = Culling { frustum: false, faces: false, frozen: None };
}

impl RendererOptions {
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
        }
    }
}

/// What one frame did. GPU-counted fields come from a frame or two earlier (read back without
/// stalling); [`Renderer::settle`] returns exact ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub chunks_resident: u32,
    /// Face jobs the mesher was asked for (six per re-meshed chunk).
    pub face_jobs: u32,
    /// Quads drawn, opaque and transparent.
    pub quads: u64,
    pub draw_commands: u32,
    /// Of `quads`, the LOD skirts.
    pub skirt_quads: u64,
    /// Chunks with quads, all tested by the cull pass, and those in the frustum.
    pub chunks_tested: u32,
    pub chunks_visible: u32,
    /// Drawn nodes per absolute level of detail (cells 2^level blocks wide).
    pub lod_levels: [u32; voxgpu_core::lod::LEVELS],
    pub quad_buffer_bytes: u64,
    pub free_pages: u32,
    /// Voxel pool slots in use: the highest slot + 1 (freed slots below it are reused first).
    pub slots: u32,
    /// Bytes of the voxel pool and the mega quad buffer together.
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
