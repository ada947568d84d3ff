//! The opaque surfaces are coloured and lit once per pixel, in compute. The opaque passes write
//! each pixel's surface key (the quad drawn there) into the frame's surface key target; `shade`
//! (`shaders/shade.wgsl`) rebuilds the surface from that quad, finds the pixel's position where
//! its ray meets the quad's plane, colours, lights and hazes it as the forward passes would
//! (`shaders/surface.wgsl`, `shaders/lighting.wgsl`) into `lit`, and `compose`
//! (`shaders/compose.wgsl`) copies `lit` into the caller's colour target, leaving every pixel no
//! opaque surface covers as it was. Where the colour target can be stored to
//! ([`can_shade_into`]), `shade` writes it itself instead, the sky between the surfaces
//! (`shaders/shade_color.wgsl`), and there is no compose pass: a full-screen fragment pass costs
//! far more than the shade pass's stores. The transparent passes stay forward-shaded over it.
//!
//! Why: a fragment's colour (its tile, jitter and ambient occlusion), its light (four cells of
//! the light pool, a link walk at node borders) and its shadow lookups cost the rasteriser's
//! shader units once per drawn fragment, overdraw included; in compute they run once per pixel on
//! every unit the adapter has. The opaque pass's fragments only store a key: on an H100 at
//! 1080p, flying over 32,768 blocks, that took the pass from 1.70 to 1.30 ms a frame while the
//! shade pass took on 0.025 ms.
//!
//! Invariants:
//! - the surface key target and `lit` are the frame's size ([`Deferred::ensure`]); a new size
//!   replaces them and bumps `generation`;
//! - the bind groups are remade whenever a buffer or view they bind is replaced: the chunk pool's
//!   quad pool's and shadow pass's generations, this pass's own, and the depth view
//!   (`Deferred::is_bound`);
//!   the one writing the colour target also when that texture changes (`Deferred::is_bound_to`),
//!   and it is dropped with the rest.

use crate::bindings::{BindingTable, Resources, Slot};
use crate::layouts::ChunkMeta;
use crate::pipelines::{SharedPipelines, compute_pipeline, simple_pipeline};
use crate::profiling::{compute_pass, stage};
use crate::shaders::{COMPOSE, SHADE, SHADE_INTO_COLOR, shader_source};
use wgpu_profiler::{GpuProfiler, GpuProfilerQuery};

/// The surface key of a pixel no opaque surface was drawn to (`SURFACE_NONE` in
/// `shaders/common.wgsl`): the surface key target's clear value, in the frames that clear it
/// (those drawn over a caller's depth: [`SurfaceStart::Empty`]). A drawn pixel's key is
/// [`SURFACE_FIRST_QUAD`] plus its quad's index. Small, so every backend's clear (some pass the
/// value as an f32) writes it exactly.
pub const SURFACE_NONE: u32 = 0;
/// The surface key no frame draws, which the shade pass paints plain red (`SURFACE_POISON`):
/// what [`SurfaceStart::Poison`] fills the target with.
pub const SURFACE_POISON: u32 = 1;
/// The surface key of the mega quad buffer's first quad (`SURFACE_FIRST_QUAD`).
pub const SURFACE_FIRST_QUAD: u32 = 2;
/// How an opaque pass starts the surface key target.
///
/// The shade pass reads it only where the frame's depth is not 0 (a surface was drawn there),
/// so a frame that clears its depth need not clear it: a clear would cost a full write (8.3 MB
/// at 1920 × 1080, 0.17 ms on an H100, whose clears write about 50 GB/s). A frame drawn over the
/// caller's depth, which can hold surfaces of the caller's own, must.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceStart {
    /// As earlier passes or frames left them.
    Load,
    /// Cleared to no surface (the key [`SURFACE_NONE`]).
    Empty,
    /// Filled with [`SURFACE_POISON`], which the shade pass paints bright red: what a frame that
    /// clears its depth does in builds with debug assertions (the tests), so that a picture
    /// shows any pixel the shade pass reads without the frame having drawn it.
    Poison,
}

/// The surface key target.
pub const SURFACE_KEY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;
/// The shaded colour: linear, half floats (a storage format every WebGPU adapter writes).
const LIT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

const COMPUTE: wgpu::ShaderStages = wgpu::ShaderStages::COMPUTE;

/// What `shade.wgsl` binds: what lighting reads (three storage buffers), the quads and what
/// colours them (four more), the surface keys and the depth, then `output`, what it writes.
const fn shade_slots(output: Slot) -> [Slot; 15] {
    [
        Slot::uniform("camera", crate::pipelines::CAMERA_BYTES),
        Slot::read("chunks", size_of::<ChunkMeta>() as u64),
        Slot::read("light", 4),
        Slot::read("links", 4),
        Slot::depth("shadow_near").seen_by(COMPUTE),
        Slot::depth("shadow_far").seen_by(COMPUTE),
        Slot::comparison("shadow_sampler").seen_by(COMPUTE),
        Slot::read("quads", voxgpu_core::mesh::QUAD_BYTES as u64),
        Slot::read("page_owner", 4),
        Slot::read("blocks", 8),
        Slot::texture("atlas").seen_by(COMPUTE),
        Slot::read("tile_averages", 4),
        Slot::uint_texture("surface_keys").seen_by(COMPUTE),
        Slot::texture("depth").seen_by(COMPUTE),
        output,
    ]
}

/// `shade.wgsl` writing `lit` (`shade_lit.wgsl`).
pub const SHADE_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.shade",
    shaders: &[SHADE],
    partial_shaders: &[],
    slots: &shade_slots(Slot::write_texture("lit")),
};

/// `shade.wgsl` writing the colour target (`shade_color.wgsl`).
pub const SHADE_INTO_COLOR_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.shade_into_color",
    shaders: &[SHADE_INTO_COLOR],
    partial_shaders: &[],
    slots: &shade_slots(Slot::write_color("color_target")),
};

/// `compose.wgsl`: the shaded colour.
pub const COMPOSE_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.compose",
    shaders: &[COMPOSE],
    partial_shaders: &[],
    slots: &[Slot::texture("lit")],
};

/// Whether the shade pass can write a frame's colour target itself: a texture it can store to
/// as RGBA8 (`Rgba8Unorm` with `STORAGE_BINDING`), drawn through an sRGB view (`color_format`
/// `Rgba8UnormSrgb`, which needs the adapter's view formats), of one mip level and one layer
/// (so the caller's view is the whole of it) and the depth target's size, in a frame that clears
/// it and has the procedural sky (the shade pass writes every pixel, the sky between the
/// surfaces; a flat clear colour is the rasteriser's to write, exactly). Otherwise it writes
/// `lit` and compose draws that in.
pub fn can_shade_into(
    color: &wgpu::Texture,
    depth: &wgpu::Texture,
    color_format: wgpu::TextureFormat,
    (clear, sky): (bool, bool),
) -> bool {
    clear
        && sky
        && color_format == wgpu::TextureFormat::Rgba8UnormSrgb
        && color.format() == wgpu::TextureFormat::Rgba8Unorm
        && color.usage().contains(wgpu::TextureUsages::STORAGE_BINDING)
        && color.mip_level_count() == 1
        && color.size() == depth.size()
}

/// What the bind groups were made over: the chunk pool's, the quad pool's and the shadow pass's
/// generations.
pub type DeferredKey = (u64, u64, u64);

/// The surface key target, `lit`, and the two passes over them.
pub struct Deferred {
    /// The frame size the targets have.
    frame: (u32, u32),
    surface_key: wgpu::TextureView,
    lit: wgpu::TextureView,
    /// Bumped whenever the targets are replaced.
    generation: u64,
    shade: wgpu::ComputePipeline,
    shade_layout: wgpu::BindGroupLayout,
    shade_into_color: wgpu::ComputePipeline,
    shade_into_color_layout: wgpu::BindGroupLayout,
    pub compose: wgpu::RenderPipeline,
    compose_layout: wgpu::BindGroupLayout,
    groups: Option<Groups>,
}

/// The bind groups, and what they were made over.
pub struct Groups {
    depth: wgpu::TextureView,
    key: (DeferredKey, u64),
    shade: wgpu::BindGroup,
    compose: wgpu::BindGroup,
    /// The shade pass into the colour target, and that target's texture: made for the first
    /// frame into a colour target it can store to, remade when the texture changes.
    into_color: Option<(wgpu::Texture, wgpu::BindGroup)>,
}

fn target(
    device: &wgpu::Device,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

impl Deferred {
    /// The passes, and targets for a `frame` of pixels; `color_format` is the colour target's.
    pub fn new(shared: &SharedPipelines, frame: (u32, u32), color_format: wgpu::TextureFormat) -> Self {
        let device = shared.device();
        let shade_layout = SHADE_BINDINGS.layout(device);
        let shade_into_color_layout = SHADE_INTO_COLOR_BINDINGS.layout(device);
        let compose_layout = COMPOSE_BINDINGS.layout(device);
        let compose_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("voxgpu.compose"),
            bind_group_layouts: &[Some(&compose_layout)],
            immediate_size: 0,
        });
        let (surface_key, lit) = Self::targets(device, frame);
        Self {
            frame,
            surface_key,
            lit,
            generation: 0,
            shade: compute_pipeline(shared, &SHADE_BINDINGS, "voxgpu.shade", shader_source(SHADE), "shade"),
            shade_layout,
            shade_into_color: compute_pipeline(
                shared,
                &SHADE_INTO_COLOR_BINDINGS,
                "voxgpu.shade_into_color",
                shader_source(SHADE_INTO_COLOR),
                "shade",
            ),
            shade_into_color_layout,
            // Every pixel is written where the shaded colour has one; depth is neither tested
            // nor written.
            compose: simple_pipeline(
                device,
                &compose_pipeline_layout,
                COMPOSE,
                wgpu::PrimitiveTopology::TriangleList,
                wgpu::CompareFunction::Always,
                color_format,
            ),
            compose_layout,
            groups: None,
        }
    }

    fn targets(device: &wgpu::Device, frame: (u32, u32)) -> (wgpu::TextureView, wgpu::TextureView) {
        let drawn = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
        let stored = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING;
        (
            target(device, "voxgpu.surface.key", frame, SURFACE_KEY_FORMAT, drawn),
            target(device, "voxgpu.surface.lit", frame, LIT_FORMAT, stored),
        )
    }

    /// Makes the targets a `frame` of pixels.
    pub fn ensure(&mut self, device: &wgpu::Device, frame: (u32, u32)) {
        if frame != self.frame {
            (self.surface_key, self.lit) = Self::targets(device, frame);
            self.frame = frame;
            self.generation += 1;
        }
    }

    /// Whether the bind groups are those for `key` and `depth`.
    pub fn is_bound(&self, key: DeferredKey, depth: &wgpu::TextureView) -> bool {
        self.groups.as_ref().is_some_and(|g| g.key == (key, self.generation) && &g.depth == depth)
    }

    /// The bind groups over `resources` (the frame's, which name the shade pass's buffers and
    /// the shadow maps) and `depth`, made for `key`; [`Deferred::set_groups`] keeps them.
    pub fn make_groups(
        &self,
        device: &wgpu::Device,
        resources: Resources,
        key: DeferredKey,
        depth: &wgpu::TextureView,
    ) -> Groups {
        let resources = resources
            .texture("surface_keys", &self.surface_key)
            .texture("depth", depth)
            .texture("lit", &self.lit);
        let shade = SHADE_BINDINGS.bind_group(device, &self.shade_layout, &resources);
        let compose = COMPOSE_BINDINGS.bind_group(device, &self.compose_layout, &resources);
        Groups { depth: depth.clone(), key: (key, self.generation), shade, compose, into_color: None }
    }

    pub fn set_groups(&mut self, groups: Groups) {
        self.groups = Some(groups);
    }

    /// Whether the shade pass is bound to write `color`.
    pub fn is_bound_to(&self, color: &wgpu::Texture) -> bool {
        self.groups.as_ref().and_then(|g| g.into_color.as_ref()).is_some_and(|(t, _)| t == color)
    }

    /// The shade pass's bind group writing `color` (a texture [`can_shade_into`] accepts) over
    /// `resources`, the frame's; [`Deferred::set_color_group`] keeps it. Needs
    /// [`Deferred::set_groups`] first.
    pub fn color_group(
        &self,
        device: &wgpu::Device,
        resources: Resources,
        color: &wgpu::Texture,
    ) -> wgpu::BindGroup {
        let groups = self.groups.as_ref().expect("bound before the colour target");
        let view = color.create_view(&wgpu::TextureViewDescriptor {
            label: Some("voxgpu.target.color.storage"),
            format: Some(wgpu::TextureFormat::Rgba8Unorm),
            usage: Some(wgpu::TextureUsages::STORAGE_BINDING),
            ..Default::default()
        });
        let resources = resources
            .texture("surface_keys", &self.surface_key)
            .texture("depth", &groups.depth)
            .texture("color_target", &view);
        SHADE_INTO_COLOR_BINDINGS.bind_group(device, &self.shade_into_color_layout, &resources)
    }

    pub fn set_color_group(&mut self, color: &wgpu::Texture, group: wgpu::BindGroup) {
        let groups = self.groups.as_mut().expect("bound before the colour target");
        groups.into_color = Some((color.clone(), group));
    }

    /// The colour attachment of an opaque pass: the surface key target, started as `start` says.
    pub fn attachment(&self, start: SurfaceStart) -> wgpu::RenderPassColorAttachment<'_> {
        let clear = match start {
            SurfaceStart::Load => None,
            SurfaceStart::Empty => Some(SURFACE_NONE),
            SurfaceStart::Poison => Some(SURFACE_POISON),
        };
        wgpu::RenderPassColorAttachment {
            view: &self.surface_key,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: clear.map_or(wgpu::LoadOp::Load, |key| {
                    wgpu::LoadOp::Clear(wgpu::Color { r: f64::from(key), g: 0.0, b: 0.0, a: 0.0 })
                }),
                store: wgpu::StoreOp::Store,
            },
        }
    }

    /// Records the shade pass under `parent`: into the colour target when `into_color` (after
    /// [`Deferred::set_color_group`]), else into `lit`. Needs [`Deferred::set_groups`] for this
    /// frame's depth.
    pub fn record_shade(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        parent: &GpuProfilerQuery,
        into_color: bool,
    ) {
        let groups = self.groups.as_ref().expect("bound before the frame's draws");
        let (pipeline, group) = if into_color {
            let (_, group) = groups.into_color.as_ref().expect("bound to the colour target");
            (&self.shade_into_color, group)
        } else {
            (&self.shade, &groups.shade)
        };
        compute_pass(profiler, encoder, Some(parent), stage::DRAW_SHADE, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(self.frame.0.div_ceil(8), self.frame.1.div_ceil(8), 1);
        });
    }

    /// The compose pass's bind group.
    pub fn compose_group(&self) -> &wgpu::BindGroup {
        &self.groups.as_ref().expect("bound before the frame's draws").compose
    }
}
