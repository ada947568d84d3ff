//! Sun shadows near the eye: two cascades, each a shadow map of its own (an orthographic depth
//! view from the sun over a sphere around the eye), drawn from the casters the `shadow_cull` pass lists, and
//! read by `sun_visibility` (`shaders/lighting.wgsl`: per pixel for opaque surfaces, per fragment
//! for the forward-shaded ones).
//!
//! - **Cascades**: [`CASCADE_RADII`] blocks around the eye, each in a depth texture of its own,
//!   [`CASCADE_TEXELS`]² texels (one texture each, not layers of one, because a pass clears its
//!   whole attachment: an H100 clears about 50 GB/s, so a 1024² map costs 0.04 ms where a 2048²
//!   layer cost 0.17). A cascade is fitted to a sphere, not to the view frustum,
//!   so turning the camera never changes it; its centre is snapped to whole texels in the sun's
//!   fixed light space, so moving the camera moves the texel grid by whole texels and shadow
//!   edges do not crawl. Its depth reaches [`CASTER_REACH`] blocks past the sphere towards the
//!   sun, where casters outside the sphere still shade it.
//! - **Casters** (`shaders/shadow_cull.wgsl`): every opaque face stream of a drawn node that
//!   faces the sun, whose tight box meets the cascade's box, and whose shadow can fall on what
//!   the eye sees through that cascade: the box swept away from the sun, down to the bottom of
//!   the cascade's sphere (no receiver of the cascade lies lower) and at most by the map's
//!   depth, is cut into [`SWEEP_PIECES`] pieces, and for one piece its bounding box must meet
//!   the cascade's sphere, the piece itself the camera's frustum (both grown by
//!   [`RECEIVER_MARGIN`]) and, in a frame with two phases of occlusion culling, not be hidden in the depth pyramid built from
//!   the first phase (the pass then runs after that pyramid). The map stays sphere-fitted and
//!   stable; only casters whose shadow lies off screen, or only where the eye cannot see (in the
//!   ground, in caves, behind hills), are left out.
//!   One command per page, in one list region per cascade; skirts are dropped by the vertex
//!   shader. The lists take the draw lists' capacity and every draw submission.
//! - **Depth**: standard (0 nearest the sun), tested `Less`, cleared to 1; a receiver is lit
//!   where its depth is at most the map's (`LessEqual` comparison, filtered over 2 × 2 texels).
//! - Only the sun's direct light is shadowed: sky light and block light are the light pool's.

mod casters;

pub use casters::{CasterCommand, CasterList, Rejection, Verdict, commands};

use glam::{DMat3, DVec3, IVec3, Mat4, Vec3, Vec4};
use wgpu_profiler::GpuProfiler;

use crate::bindings::{BindingTable, Resources, Slot};
use crate::draw::{CountingPass, DrawSubmission};
pub use crate::layouts::PyramidTest;
use crate::layouts::{ChunkMeta, FaceMesh, PassParams};
use crate::pipelines::{SharedPipelines, compute_pipeline, dispatch_linear};
use crate::profiling::{compute_pass, render_pass, scope, stage};
use crate::shaders::{CHUNK_DRAW, SHADOW_CULL, shader_source};

/// Shadow cascades (`SHADOW_CASCADES` in `shaders/common.wgsl`).
pub const CASCADES: usize = 2;
/// The radius in blocks of each cascade's sphere around the eye: fragments nearer than the first
/// read the first, the rest nearer than the second read the second; beyond it the sun is not
/// shadowed (faded out over its last [`FADE_SHARE`]).
pub const CASCADE_RADII: [f32; CASCADES] = [48.0, 256.0];
/// The share of the outer radius over which shadows fade out.
pub const FADE_SHARE: f32 = 0.15;
/// Blocks past a cascade's sphere, towards the sun, whose casters it still draws: terrain is
/// 256 blocks high, so a hill that far away towards a low sun shades the sphere.
pub const CASTER_REACH: f32 = 384.0;
/// Blocks by which a caster's swept box is grown before it is tested against the receivers: a
/// fragment reads the map two texels off its face and filters over 2 × 2 texels, and the caster
/// covers the texels whose centres it covers, so a caster up to 3.5 texels from a fragment's
/// point can shade it: 1.75 blocks in the outer cascade (half-block texels), 0.33 in the inner.
/// A caster whose shadow misses the view by less still counts.
pub const RECEIVER_MARGIN: f32 = 2.0;
/// Pieces a caster's sweep away from the sun is cut into for the receiver tests (`SWEEP_PIECES`
/// in `shaders/shadow_cull.wgsl`, which the caster twin's test holds to this): one bounding box
/// of a long diagonal sweep is far larger than the shadow it bounds, and meets the outer sphere
/// from casters whose shadow falls nowhere near it.
pub const SWEEP_PIECES: u32 = 8;
/// The lowest sun (the y of its unit direction) for which a caster's sweep is cut short at the
/// bottom of the receivers' sphere; lower, the whole sweep is tested (its length over a smaller
/// y would exceed the map's depth anyway).
pub const SWEEP_MIN_SUN_Y: f32 = 1e-3;
/// Texels along each side of each cascade's map: the inner one about 11 texels a block, the outer
/// one 2, where a block covers fewer pixels (at its inner edge, 48 blocks away, a block is about
/// 16 pixels high at 1080p, so a texel spans about 8). The outer map's depth pass is bound by its
/// fill: on an H100, flying over 32,768 blocks at 1080p, it took 0.93 ms at 2048², 0.72 at 1536²
/// and 0.54 at 1024² for the same 92,000 caster quads.
pub const CASCADE_TEXELS: [u32; CASCADES] = [1024, 1024];
/// The shadow maps' format: 16 bits, a step of 1/65,535 of a cascade's depth (under 0.014 blocks
/// in the outer one, 896 blocks deep), far below the receivers' two-texel step off their face.
/// Half the bytes of 32-bit depth for every clear and every transition of a map to sampling.
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth16Unorm;
/// Words per cascade in the counts buffer: the instanced path's indexed draw (index count,
/// instance count = the cascade's commands, first index, base vertex, first instance), then the
/// quads listed.
pub const COUNT_WORDS_PER_CASCADE: u32 = 6;
const ARGS_BYTES: u64 = size_of::<wgpu::util::DrawIndexedIndirectArgs>() as u64;

/// One cascade's light view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    /// Positions measured from the frame's anchor to the cascade's clip space: x and y in −1..1
    /// across the map (y up), depth 0 nearest the sun.
    pub view_proj: Mat4,
    /// The edge of one texel, in blocks.
    pub texel: f32,
}

/// The sun's light space: rows are its x, y (the map's axes) and z (towards the sun). Fixed for
/// a sun direction, whatever the camera does.
fn light_axes(sun: Vec3) -> DMat3 {
    let z = sun.as_dvec3().normalize();
    let up = if z.y.abs() > 0.99 { DVec3::Z } else { DVec3::Y };
    let x = up.cross(z).normalize();
    let y = z.cross(x);
    DMat3::from_cols(x, y, z).transpose()
}

/// The cascades for a sun towards `sun` (unit) and an eye at `eye` (world blocks), for
/// positions measured from `anchor`. Each is centred on the eye snapped to its texel grid in
/// light space (computed in f64, so the snap holds far from the world's origin).
pub fn cascades(sun: Vec3, eye: DVec3, anchor: IVec3) -> [Cascade; CASCADES] {
    let axes = light_axes(sun);
    let eye_light = axes * eye;
    let anchor_light = axes * anchor.as_dvec3();
    std::array::from_fn(|c| {
        let radius = f64::from(CASCADE_RADII[c]);
        let texel = 2.0 * radius / f64::from(CASCADE_TEXELS[c]);
        let centre = (eye_light / texel).floor() * texel;
        // The light camera sits on the far side of the sphere's caster reach, looking down −z.
        let top = centre + DVec3::new(0.0, 0.0, radius + f64::from(CASTER_REACH));
        let offset = (anchor_light - top).as_vec3();
        let view = Mat4::from_cols(
            axes.x_axis.as_vec3().extend(0.0),
            axes.y_axis.as_vec3().extend(0.0),
            axes.z_axis.as_vec3().extend(0.0),
            offset.extend(1.0),
        );
        let (r, depth) = (radius as f32, (2.0 * radius) as f32 + CASTER_REACH);
        let projection = glam::camera::rh::proj::directx::orthographic(-r, r, -r, r, 0.0, depth);
        Cascade { view_proj: projection * view, texel: texel as f32 }
    })
}

/// The caster pass's uniform: each cascade's box as six planes, the camera's frustum, each
/// cascade's sphere of receivers, the sun and the anchor (positions measured from the anchor).
/// Rust twin of `ShadowCull` in `shaders/shadow_cull.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ShadowCull {
    /// Six planes per cascade, `n · p + d ≥ 0` inside ([`voxgpu_core::cull::Frustum`]).
    pub planes: [[f32; 4]; 6 * CASCADES],
    /// The camera's frustum, the same way, each plane moved out by [`RECEIVER_MARGIN`]: only
    /// shadows inside it are seen.
    pub view: [[f32; 4]; 6],
    /// Per cascade, the eye (xyz) and the radius within which fragments read that cascade, plus
    /// [`RECEIVER_MARGIN`] (w).
    pub receivers: [[f32; 4]; CASCADES],
    /// Towards the sun (unit) in xyz; in w, the longest a caster's shadow is followed away from
    /// the sun, in blocks (the deepest cascade's depth: no map holds a longer one).
    pub sun: [f32; 4],
    /// The block positions are measured from.
    pub anchor: [i32; 3],
    /// Cascades drawn this frame.
    pub cascades: u32,
    /// The frame's depth pyramid, when the pass runs after it is built: a piece of a caster's
    /// sweep hidden from the eye in it casts no shadow the eye sees. No test where its levels
    /// are 0.
    pub pyramid: PyramidTest,
    /// Blocks by which a piece of a sweep is grown before the pyramid tests it
    /// ([`RECEIVER_MARGIN`]).
    pub margin: f32,
    /// 1 / `sun.y` where the sun stands at least [`SWEEP_MIN_SUN_Y`] high, else 0 (the whole
    /// sweep): the sweep's length is a product, which rounds the same on every GPU and in the
    /// twin (WGSL allows a quotient 2.5 ULP).
    pub inv_sun_y: f32,
    /// Pads the uniform to 16 bytes; zero.
    pub _pad: [f32; 2],
}

impl ShadowCull {
    /// The uniform for `cascades` of a sun towards `sun` seen by a camera whose anchored
    /// `view_proj` puts its eye at `eye` (anchored), positions measured from `anchor`.
    pub fn new(cascades: &[Cascade; CASCADES], sun: Vec3, view_proj: Mat4, eye: Vec3, anchor: IVec3) -> Self {
        let mut planes = [[0.0; 4]; 6 * CASCADES];
        for (c, cascade) in cascades.iter().enumerate() {
            let frustum = voxgpu_core::cull::Frustum::from_view_proj(cascade.view_proj);
            for (i, plane) in frustum.planes.iter().enumerate() {
                planes[6 * c + i] = plane.to_array();
            }
        }
        let view = voxgpu_core::cull::Frustum::from_view_proj(view_proj)
            .planes
            .map(|p| (p + Vec4::W * RECEIVER_MARGIN).to_array());
        let receivers = CASCADE_RADII.map(|radius| eye.extend(radius + RECEIVER_MARGIN).to_array());
        let sweep = 2.0 * CASCADE_RADII[CASCADES - 1] + CASTER_REACH;
        Self {
            planes,
            view,
            receivers,
            sun: sun.extend(sweep).to_array(),
            anchor: anchor.to_array(),
            cascades: CASCADES as u32,
            pyramid: PyramidTest::default(),
            margin: RECEIVER_MARGIN,
            inv_sun_y: if sun.y >= SWEEP_MIN_SUN_Y { 1.0 / sun.y } else { 0.0 },
            _pad: [0.0; 2],
        }
    }
}

/// `shadow_cull.wgsl`: the casters of each cascade into its list.
pub const SHADOW_CULL_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.shadow_cull",
    shaders: &[SHADOW_CULL],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("params", size_of::<PassParams>() as u64),
        Slot::read("faces", size_of::<FaceMesh>() as u64),
        Slot::read("chunks", size_of::<ChunkMeta>() as u64),
        Slot::uniform("shadow", size_of::<ShadowCull>() as u64),
        Slot::read_write("shadow_args", ARGS_BYTES),
        Slot::read_write("shadow_counts", 4 * (COUNT_WORDS_PER_CASCADE as u64) * CASCADES as u64),
        Slot::read("pyramid", 4),
    ],
};

/// The shadow maps, their caster lists and the pipelines that fill them.
pub(crate) struct ShadowPass {
    /// Each cascade's depth; made the first frame that draws shadows.
    maps: Option<[wgpu::TextureView; CASCADES]>,
    /// A 1 × 1 map that is never drawn: bound where no shadow maps are (shadows off, and the
    /// shadow pass itself, which cannot read what it draws).
    empty: wgpu::TextureView,
    pub sampler: wgpu::Sampler,
    /// [`CASCADES`] regions of `capacity` commands.
    pub args: wgpu::Buffer,
    /// [`COUNT_WORDS_PER_CASCADE`] words per cascade.
    pub counts: wgpu::Buffer,
    pub capacity: u32,
    pub uniform: wgpu::Buffer,
    /// Bumped whenever `args` is replaced.
    pub generation: u64,
    cull: wgpu::ComputePipeline,
    cull_layout: wgpu::BindGroupLayout,
    draw: [wgpu::RenderPipeline; CASCADES],
}

/// A `side`² shadow map, sampled, and drawn to where `usage` says so.
fn depth_map(device: &wgpu::Device, side: u32, usage: wgpu::TextureUsages) -> wgpu::TextureView {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("voxgpu.shadow.map"),
        size: wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: SHADOW_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | usage,
        view_formats: &[],
    });
    texture.create_view(&Default::default())
}

fn args_buffer(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.shadow.commands"),
        size: CASCADES as u64 * capacity as u64 * ARGS_BYTES,
        usage: wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl ShadowPass {
    /// `draw_layout`: the chunk draw pipelines' layout, whose vertex shader the casters share.
    pub fn new(shared: &SharedPipelines, draw_layout: &wgpu::BindGroupLayout, capacity: u32) -> Self {
        let device = shared.device();
        let cull_layout = SHADOW_CULL_BINDINGS.layout(device);
        let cull = compute_pipeline(
            shared,
            &SHADOW_CULL_BINDINGS,
            "voxgpu.shadow.cull",
            shader_source(SHADOW_CULL),
            "casters",
        );
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("voxgpu.shadow.draw"),
            source: wgpu::ShaderSource::Wgsl(shader_source(CHUNK_DRAW).into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("voxgpu.shadow.draw"),
            bind_group_layouts: &[Some(draw_layout)],
            immediate_size: 0,
        });
        let draw = [0u8, 1].map(|cascade| {
            let constants = [("SHADOW_CASCADE", f64::from(cascade))];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("voxgpu.shadow.draw"),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_shadow"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: SHADOW_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    // Pushed away from the sun by its slope, so a lit face does not shadow itself
                    // (the receivers also step off their face, `sun_visibility`), and by two steps
                    // of the 16-bit depth against its rounding: 0.015 blocks in the inner cascade
                    // (480 deep), 0.027 in the outer (896).
                    bias: wgpu::DepthBiasState { constant: 2, slope_scale: 1.5, clamp: 0.0 },
                }),
                multisample: Default::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            })
        });
        let empty = depth_map(device, 1, wgpu::TextureUsages::empty());
        let capacity = capacity.max(1);
        Self {
            maps: None,
            empty,
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("voxgpu.shadow.sampler"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                compare: Some(wgpu::CompareFunction::LessEqual),
                ..Default::default()
            }),
            args: args_buffer(device, capacity),
            counts: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.shadow.counts"),
                size: 4 * (COUNT_WORDS_PER_CASCADE * CASCADES as u32) as u64,
                usage: wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            capacity,
            uniform: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("voxgpu.shadow.cull"),
                size: size_of::<ShadowCull>() as u64,
                // Read back by the inspector, for the caster twin.
                usage: wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            generation: 0,
            cull,
            cull_layout,
            draw,
        }
    }

    /// Makes each list hold the draw lists' `capacity` commands (the shaders stride the regions
    /// by it), and the map exist when `on`; bumps [`Self::generation`] when either is replaced.
    pub fn ensure(&mut self, device: &wgpu::Device, capacity: u32, on: bool) {
        let capacity = capacity.max(1);
        if capacity != self.capacity {
            self.capacity = capacity;
            self.args = args_buffer(device, capacity);
            self.generation += 1;
        }
        if on && self.maps.is_none() {
            let target = wgpu::TextureUsages::RENDER_ATTACHMENT;
            self.maps = Some(CASCADE_TEXELS.map(|side| depth_map(device, side, target)));
            self.generation += 1;
        }
    }

    /// The maps the frame's shaded passes read, inner cascade first: the shadow maps once made,
    /// else the empty one twice.
    pub fn map_views(&self) -> [&wgpu::TextureView; CASCADES] {
        self.maps.as_ref().map_or([&self.empty; CASCADES], |maps| maps.each_ref())
    }

    /// Binds the maps the shaded passes read as `shadow_near` and `shadow_far`.
    pub fn maps_as<'a>(maps: [&'a wgpu::TextureView; CASCADES], resources: Resources<'a>) -> Resources<'a> {
        resources.texture("shadow_near", maps[0]).texture("shadow_far", maps[1])
    }

    /// The shadow pass's own resources over the frame's: its lists as `args` and the empty maps.
    pub fn draw_resources<'a>(&'a self, resources: Resources<'a>) -> Resources<'a> {
        Self::maps_as([&self.empty; CASCADES], resources.buffer("args", &self.args))
    }

    /// The caster pass's bind group over the frame's resources.
    pub fn cull_bind_group(&self, device: &wgpu::Device, resources: &Resources) -> wgpu::BindGroup {
        let resources = resources
            .clone()
            .buffer("shadow", &self.uniform)
            .buffer("shadow_args", &self.args)
            .buffer("shadow_counts", &self.counts);
        SHADOW_CULL_BINDINGS.bind_group(device, &self.cull_layout, &resources)
    }

    /// Writes the pyramid the caster pass tests against this frame (levels 0: none), over what
    /// [`Self::write`] wrote.
    pub fn write_pyramid(&self, queue: &wgpu::Queue, pyramid: &PyramidTest) {
        let offset = std::mem::offset_of!(ShadowCull, pyramid) as u64;
        queue.write_buffer(&self.uniform, offset, bytemuck::bytes_of(pyramid));
    }

    /// Writes the caster pass's uniform and starts the counts again (each cascade's instanced
    /// draw with no instances).
    pub fn write(&self, queue: &wgpu::Queue, cull: &ShadowCull) {
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(cull));
        let page = 6 * crate::quad_pool::PAGE_QUADS;
        let counts = [page, 0, 0, 0, 0, 0, page, 0, 0, 0, 0, 0];
        queue.write_buffer(&self.counts, 0, bytemuck::cast_slice(&counts));
    }

    /// Records the caster pass (one invocation per face of each slot and cascade), then each
    /// cascade's depth from its list. Does nothing before [`Self::ensure`] made the map.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        (cull_group, draw_group): (&wgpu::BindGroup, &wgpu::BindGroup),
        index_buffer: &wgpu::Buffer,
        submission: DrawSubmission,
        slot_count: u32,
    ) {
        let Some(maps) = &self.maps else { return };
        if submission == DrawSubmission::CappedIndirect {
            encoder.clear_buffer(&self.args, 0, None);
        }
        scope(profiler, encoder, stage::SHADOW, |encoder, parent| {
            compute_pass(profiler, encoder, Some(parent), stage::SHADOW_CULL, |pass| {
                pass.set_pipeline(&self.cull);
                pass.set_bind_group(0, cull_group, &[]);
                dispatch_linear(pass, slot_count.saturating_mul(6 * CASCADES as u32), 64);
            });
            for (cascade, name) in [stage::SHADOW_NEAR, stage::SHADOW_FAR].into_iter().enumerate() {
                let descriptor = wgpu::RenderPassDescriptor {
                    label: Some(name),
                    color_attachments: &[],
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: &maps[cascade],
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                };
                render_pass(profiler, encoder, Some(parent), name, descriptor, |pass| {
                    let mut pass = CountingPass::new(pass);
                    pass.set_bind_group(0, draw_group);
                    pass.set_index_buffer(index_buffer);
                    pass.set_pipeline(&self.draw[cascade]);
                    self.draw_list(pass.draw_command(), submission, cascade as u64);
                });
            }
        });
    }

    /// The draw of cascade `cascade`'s list: one command whatever the number of casters.
    fn draw_list(&self, pass: &mut wgpu::RenderPass<'_>, submission: DrawSubmission, cascade: u64) {
        let offset = cascade * self.capacity as u64 * ARGS_BYTES;
        let counts = cascade * 4 * COUNT_WORDS_PER_CASCADE as u64;
        match submission {
            DrawSubmission::IndirectCount => pass.multi_draw_indexed_indirect_count(
                &self.args,
                offset,
                &self.counts,
                counts + 4,
                self.capacity,
            ),
            DrawSubmission::CappedIndirect => {
                pass.multi_draw_indexed_indirect(&self.args, offset, self.capacity)
            }
            DrawSubmission::Instanced => pass.draw_indexed_indirect(&self.counts, counts),
        }
    }

    /// Bytes of the lists, and of the maps once made.
    pub fn bytes(&self) -> u64 {
        let map = if self.maps.is_some() {
            let texel = SHADOW_FORMAT.block_copy_size(Some(wgpu::TextureAspect::DepthOnly)).unwrap_or(4);
            CASCADE_TEXELS.iter().map(|&side| u64::from(texel) * u64::from(side) * u64::from(side)).sum()
        } else {
            0
        };
        self.args.size() + self.counts.size() + map
    }
}

/// What the draw shader reads of the cascades (`CameraUniform::shadow_view_proj`,
/// `shadow_radii`): each cascade's matrix, and its radius and texel edge.
pub fn camera_fields(cascades: &[Cascade; CASCADES]) -> ([Mat4; CASCADES], Vec4) {
    (
        cascades.map(|c| c.view_proj),
        Vec4::new(CASCADE_RADII[0], CASCADE_RADII[1], cascades[0].texel, cascades[1].texel),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texel of cascade `c` a world position falls in, fractionally, for cascades made with
    /// `anchor`.
    fn texel(cascades: &[Cascade; CASCADES], c: usize, world: DVec3, anchor: IVec3) -> glam::DVec2 {
        let p = (world - anchor.as_dvec3()).as_vec3();
        let clip = cascades[c].view_proj * p.extend(1.0);
        glam::DVec2::new(f64::from(clip.x) * 0.5 + 0.5, f64::from(clip.y) * 0.5 + 0.5)
            * f64::from(CASCADE_TEXELS[c])
    }

    #[test]
    fn moving_the_eye_moves_the_texel_grid_by_whole_texels() {
        let sun = crate::sun(10.0).truncate();
        let world = DVec3::new(1003.25, 71.5, -2211.75);
        let start = DVec3::new(1000.3, 80.7, -2200.1);
        let base = cascades(sun, start, start.floor().as_ivec3());
        let mut shifted_somewhere = false;
        for step in [0.01, 0.37, 1.0, 2.6, 13.9, 40.0] {
            let eye = start + DVec3::new(step, 0.3 * step, -0.7 * step);
            let anchor = eye.floor().as_ivec3();
            let moved = cascades(sun, eye, anchor);
            for c in 0..CASCADES {
                let d = texel(&moved, c, world, anchor) - texel(&base, c, world, start.floor().as_ivec3());
                let off = (d - d.round()).abs().max_element();
                assert!(off < 2e-3, "cascade {c}, step {step}: the grid moved by {d} texels");
                shifted_somewhere |= d.round() != glam::DVec2::ZERO;
            }
        }
        assert!(shifted_somewhere, "the eye moved far enough to shift the grid");
    }

    #[test]
    fn each_cascade_holds_its_sphere_and_the_casters_towards_the_sun() {
        for hours in [7.0, 10.0, 12.0, 17.5] {
            let sun = crate::sun(hours).truncate();
            let eye = DVec3::new(-51.6, 120.2, 9000.9);
            let anchor = eye.floor().as_ivec3();
            for (c, cascade) in cascades(sun, eye, anchor).iter().enumerate() {
                let radius = CASCADE_RADII[c];
                let inside = |p: Vec3| {
                    let clip = cascade.view_proj * (p - anchor.as_vec3()).extend(1.0);
                    clip.x.abs() <= 1.0 && clip.y.abs() <= 1.0 && (0.0..=1.0).contains(&clip.z)
                };
                let e = eye.as_vec3();
                for dir in [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::ONE.normalize()] {
                    assert!(inside(e + dir * (radius - 1.0)), "{hours} h cascade {c}: {dir}");
                }
                assert!(inside(e + sun * (radius + CASTER_REACH - 1.0)), "{hours} h cascade {c}: a caster");
                assert!(!inside(e + sun * (radius + CASTER_REACH + 4.0)), "{hours} h cascade {c}: beyond");
                // Nearer the sun is less deep.
                let depth = |p: Vec3| (cascade.view_proj * (p - anchor.as_vec3()).extend(1.0)).z;
                assert!(depth(e + sun) < depth(e));
            }
        }
    }
}
