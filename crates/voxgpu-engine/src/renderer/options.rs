//! What a renderer is configured with ([`RendererOptions`], [`Culling`]) and what one frame
//! reports ([`FrameStats`]).

use glam::{IVec3, Vec3};

use crate::RenderMode;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;

/// The share of the sky's colour a surface `distance` blocks from the eye takes under haze of
/// `density` reaching the sky at `fog_end` ([`RendererOptions::fog_density`]): `t^(4/ρ)` for
/// `t = distance / fog_end` (clamped to 0..1) and `ρ = max(density, MIN_FOG_DENSITY)`. The
/// draw shader's `haze_amount` computes the same in f32.
pub fn haze_amount(distance: f32, fog_end: f32, density: f32) -> f32 {
    let t = (distance / fog_end.max(1e-3)).clamp(0.0, 1.0);
    t.powf(haze_exponent(density))
}

/// The exponent `4 / ρ` of [`haze_amount`] for `density` ρ (at least [`MIN_FOG_DENSITY`]; not
/// finite counts as it), as the camera uniform carries it.
pub fn haze_exponent(density: f32) -> f32 {
    let density = if density.is_finite() { density.max(MIN_FOG_DENSITY) } else { MIN_FOG_DENSITY };
    4.0 / density
}

/// [`RendererOptions::time_of_day`] by default, in hours: mid-morning.
pub const DEFAULT_TIME_OF_DAY: f32 = 10.0;

/// The sun at `hours` (0..24, wrapped; not finite counts as [`DEFAULT_TIME_OF_DAY`]): the unit
/// direction towards it in xyz and the daylight in w, as the camera uniform carries them.
///
/// The sun rises in the east (+X) at 6:00, stands highest at noon and sets in the west at 18:00,
/// on a path tilted 33.7° towards −Z. At 10:00 it stands 46° up, and the faces it lights (with
/// the sky's light by face, `lighting.wgsl`) take within 0.1 of the fixed shades each face
/// direction had before the renderer had a sun. The daylight is 1 while the sun is more than 14° up, falls
/// through dusk and is 0 once it is 6° below the horizon.
pub fn sun(hours: f32) -> glam::Vec4 {
    let hours = if hours.is_finite() { hours.rem_euclid(24.0) } else { DEFAULT_TIME_OF_DAY };
    let angle = (hours - 6.0) / 12.0 * std::f32::consts::PI;
    let tilt = 0.588_f32;
    let dir = Vec3::new(angle.cos(), angle.sin() * tilt.cos(), -angle.sin() * tilt.sin());
    let t = ((dir.y + 0.1) / 0.35).clamp(0.0, 1.0);
    dir.extend(t * t * (3.0 - 2.0 * t))
}

/// The thinnest haze: [`RendererOptions::fog_density`] below it counts as it.
pub const MIN_FOG_DENSITY: f32 = 0.1;

/// [`RendererOptions::fog_density`] by default.
pub const DEFAULT_FOG_DENSITY: f32 = 1.5;

/// How a [`crate::Renderer`] is set up: frame size, fog and sky, buffer sizes, the re-mesh
/// budget, level of detail and what the frame draws. [`RendererOptions::new`] gives the defaults.
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// Frame width in pixels: 1 up to the device's largest texture side.
    pub width: u32,
    /// Frame height in pixels: 1 up to the device's largest texture side.
    pub height: u32,
    /// Haze reaches the sky's colour at this distance from the eye, in blocks: where the world
    /// ends (the radius everything is loaded within), so the terrain fades into the sky before
    /// it stops.
    pub fog_end: f32,
    /// Whether distant surfaces fade into the sky (haze). Under water (the eye in a transparent
    /// block) a fog of that block's colour applies either way.
    pub fog: bool,
    /// How thick the haze is: the share of the sky's colour at distance `d` is `(d/fog_end)^(4/ρ)`
    /// for density ρ ([`haze_amount`]), so it reaches 1 at `fog_end` whatever ρ, and a larger ρ
    /// brings it nearer (ρ = 4: linear in distance). The default, 1.5, gives 4% at 30% of
    /// `fog_end` (the ground seen straight down from 2,500 blocks at an 8,192-block view), 16%
    /// at half of it and 55% at 80%. Values under [`MIN_FOG_DENSITY`] or not finite count as it.
    pub fog_density: f32,
    /// Linear RGB of the sky at the horizon: the flat background without the procedural sky,
    /// the horizon of the gradient with it, and the colour haze fades to in either case.
    pub sky_color: Vec3,
    /// The time of day in hours (0..24): where the sun stands ([`sun`]), how much light the sky
    /// gives and how the sky looks. Block light is the same at any hour.
    pub time_of_day: f32,
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
    /// Surfaces lit by sky and block light (`voxgpu_core::light`, computed on the GPU as nodes
    /// arrive and change); off, each face has its fixed shade alone, as if all were open sky.
    pub light: bool,
    /// Sun shadows near the eye (`crate::shadow`: two cascades out to 256 blocks, faded beyond);
    /// `None` leaves it to the device: on, except on CPU and GL adapters.
    pub shadows: Option<bool>,
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
    /// Face streams hidden behind what the frame's first phase drew draw nothing: two-phase
    /// occlusion culling against a depth pyramid (never changes the picture). It needs a depth
    /// target with `TEXTURE_BINDING` usage ([`crate::depth_target`] makes one); a frame into
    /// one without it is drawn without occlusion culling.
    pub occlusion: bool,
    /// Each quad of the opaque streams the tests above keep is tested on its own, in compute,
    /// against the frustum and (with `occlusion`, after the first phase) the depth pyramid, and
    /// the kept quads are drawn by a few commands a list (never changes the picture). Only with
    /// [`crate::DrawSubmission::IndirectCount`]; other submissions draw every quad of the kept
    /// streams. `None`: the device's choice, on except on CPU adapters (where testing each quad
    /// in compute costs more than drawing it).
    pub quads: Option<bool>,
    /// Cull from this camera instead of the view's (a debug switch: culling can be inspected
    /// from outside).
    pub frozen: Option<Camera>,
}

impl Culling {
    /// Every test, from the view's camera (the default).
    pub const ALL: Culling =
        Culling { frustum: true, faces: true, occlusion: true, quads: None, frozen: None };
    /// No tests: every drawn node's every face is drawn.
    pub const NONE: Culling =
        Culling { frustum: false, faces: false, occlusion: false, quads: Some(false), frozen: None };
}

impl RendererOptions {
    /// A `width × height` frame with haze reaching the sky at `fog_end` blocks, and defaults for
    /// the rest: haze on at density 1.5, a blue sky, 4096 quad pages (1 Mi quads, 8 MiB) to start,
    /// 4096 re-meshed chunks per frame, LOD and ambient occlusion on, the filled mode without
    /// depth pre-pass, the procedural sky, no selection, all culling, [`crate::COLOR_FORMAT`],
    /// the device's preferred draw submission, light on at 10:00, shadows as the device prefers.
    pub fn new(width: u32, height: u32, fog_end: f32) -> Self {
        Self {
            width,
            height,
            fog_end,
            fog: true,
            fog_density: DEFAULT_FOG_DENSITY,
            sky_color: Vec3::new(0.32, 0.52, 0.82),
            time_of_day: DEFAULT_TIME_OF_DAY,
            initial_quad_pages: 4096,
            max_meshes_per_frame: 4096,
            lod: LodSettings::default(),
            ambient_occlusion: true,
            mode: RenderMode::Filled,
            depth_prepass: false,
            procedural_sky: true,
            light: true,
            shadows: None,
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
    /// Of `quads`, those per-quad culling left out (`Culling::quads`): opaque quads of the drawn
    /// streams outside the frustum or hidden in the depth pyramid; 0 without it.
    pub quads_culled: u64,
    /// Of `quads`, the LOD skirts.
    pub skirt_quads: u64,
    /// Slots with quads, each tested by the cull pass.
    pub chunks_tested: u32,
    /// Of those, the slots the cull pass found in view: drawn by the LOD pass and, with frustum
    /// culling on, inside the frustum.
    pub chunks_visible: u32,
    /// Face streams (one per face direction and kind, opaque or transparent, of each node) left
    /// by the frustum and face-direction tests, each drawn by one phase or occluded.
    pub candidates: u32,
    /// Of those, drawn by the first phase (seen last frame; 0 without occlusion culling).
    pub drawn_first: u32,
    /// Drawn by the second phase (or the only one): not occluded and not drawn before.
    pub drawn_second: u32,
    /// Culled by occlusion: hidden behind the first phase's depth.
    pub occluded: u32,
    /// Whether this frame tested occlusion (culling asked for it and the depth target can be
    /// read); exact, unlike the counts.
    pub occlusion_tested: bool,
    /// Drawn nodes per absolute level of detail (cells 2^level blocks wide).
    pub lod_levels: [u32; voxgpu_core::lod::LEVELS],
    /// Nodes cross-fading between levels (fading in, or fading out and still drawn).
    pub fading_nodes: u32,
    /// Quads each sun shadow cascade draws (inner, outer); zero in a frame without shadows.
    pub shadow_quads: [u32; crate::shadow::CASCADES],
    /// Bytes of the mega quad buffer (its quads only: pages × 256 quads × 8 bytes).
    pub quad_buffer_bytes: u64,
    /// Pages of 256 quads on the free stack after meshing.
    pub free_pages: u32,
    /// Voxel pool slots in use: the highest slot + 1 (freed slots below it are reused first).
    pub slots: u32,
    /// Bytes of every buffer that grows with the world: the voxel pool and its per-slot records,
    /// the mega quad buffer with its page table and free stack, and the draw lists.
    pub gpu_bytes: u64,
    /// Nodes this frame's light pass lit; 0 with light off or nothing changed. Exact, this
    /// frame's.
    pub light_nodes: u32,
    /// Of `light_nodes`, full-detail chunks: the ones the spread runs over.
    pub light_chunks: u32,
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
