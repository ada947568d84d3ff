//! The passes part: every pipeline of the frame, the buffers only the passes use (the per-frame
//! uniforms, the mesher's work lists, the draw lists, materials and the index buffer), and the
//! bind groups that tie them to the residency part's pools.
//!
//! Each pass declares its bindings once, in a [`crate::bindings::BindingTable`]; its bind
//! groups take their buffers by name from the frame's [`Resources`] ([`Passes::resources`]),
//! so adding a pass is: a shader, a table, its pipelines and `record`, and the names of the
//! buffers it shares.
//!
//! Invariants:
//! - the bind groups are rebuilt whenever a buffer they bind is replaced: [`BindKey`] holds
//!   each growable owner's generation, and `size` compares it every frame;
//! - the work list and draw lists are sized before the uniforms that state their sizes are
//!   written, in the same `prepare`.

use super::mesh_runs::{ReleaseRun, WorkList};
use super::residency::Residency;
use super::{Culling, RendererOptions, Targets};
use crate::Capabilities;
use crate::bindings::Resources;
use crate::counters::CounterSources;
use crate::deferred::Deferred;
use crate::draw::{CullBindGroups, DrawLists, DrawSubmission, quad_indices};
use crate::hiz::Pyramid;
use crate::layouts::{CameraUniform, CullParams, LodParams, PassParams};
use crate::light::{LightJob, LightPass};
use crate::lod::{LodBindGroups, LodPasses};
use crate::materials::Materials;
use crate::mesher::{BindGroups, MAX_CHUNKS_PER_FRAME, Mesher};
use crate::pipelines::{DRAW_BINDINGS, DrawPipelines, SharedPipelines};
use crate::shadow::{PyramidTest, ShadowCull, ShadowPass};
use voxgpu_core::camera::Camera;
use voxgpu_core::light::LightRules;
use voxgpu_core::voxel::BlockRegistry;

/// The buffers whose replacement invalidates bind groups, as one comparable key: the chunk
/// pool's, the quad pool's, the draw lists', the depth pyramid's and the shadow pass's
/// generations, the work list's, and the mip list's capacity.
type BindKey = (u64, u64, u64, u64, u64, u64, u32);

/// How one frame culls by occlusion ([`Passes::occlusion_frame`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OcclusionFrame {
    /// The frame draws the streams seen last frame first, builds the pyramid from their depth
    /// and tests the rest against it.
    pub two_phase: bool,
    /// The cull pass tests streams against the pyramid (this frame's, or with culling frozen
    /// the last one built).
    pub test: bool,
}

/// The frame's bind groups, and the buffers they were made over.
pub(super) struct Bound {
    key: BindKey,
    lod: LodBindGroups,
    pub(super) mesh: BindGroups,
    cull: CullBindGroups,
    pub draw: wgpu::BindGroup,
    shadow_cull: wgpu::BindGroup,
    /// The draw bindings with the shadow pass's lists as `args` and no shadow maps.
    shadow_draw: wgpu::BindGroup,
}

fn uniform_buffer(device: &wgpu::Device, label: &'static str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Per block id (all 65536, so no id reads out of bounds): an opacity bitset.
fn opaque_bits(registry: &BlockRegistry) -> Vec<u32> {
    let mut opaque = vec![0u32; (1 << 16) / 32];
    for (id, _) in registry.iter().filter(|&(id, _)| registry.is_opaque(id)) {
        opaque[id.0 as usize / 32] |= 1 << (id.0 % 32);
    }
    opaque
}

pub(crate) struct Passes {
    lod: LodPasses,
    /// Skip the LOD pass: drawn nodes and their mips stay as the last frame decided
    /// (`Tools::set_lod_frozen`).
    pub(crate) lod_frozen: bool,
    /// Opaque commands in distance bands drawn near first (`Tools::set_front_to_back`).
    pub(crate) front_to_back: bool,
    /// `PassParams::split_pairs` (`Tools::set_mesh_split_pairs`).
    pub(crate) split_pairs: u32,
    /// `Culling::quads` left to the device: on except on CPU adapters.
    quads_by_default: bool,
    pub(super) mesher: Mesher,
    pub draws: DrawLists,
    /// The depth pyramid occlusion culling tests against.
    pub pyramid: Pyramid,
    /// The opaque surfaces' targets and their shading once per pixel.
    pub deferred: Deferred,
    /// This frame's opaque surfaces are shaded once per pixel (its depth target can be read);
    /// otherwise forward, each fragment as it is drawn.
    pub shade_per_pixel: bool,
    /// Whether this frame's shade pass writes the colour target itself, so no compose pass
    /// draws it in (set with `shade_per_pixel`).
    pub shade_into_color: bool,
    pub(super) light: LightPass,
    pub(crate) shadow: ShadowPass,
    pipelines: DrawPipelines,
    draw_layout: wgpu::BindGroupLayout,
    bound: Option<Bound>,
    /// [`PassParams`], written each frame.
    pub(super) params: wgpu::Buffer,
    /// [`CameraUniform`], written each frame.
    camera: wgpu::Buffer,
    pub(super) work: WorkList,
    pub(super) release: ReleaseRun,
    opaque_bits: wgpu::Buffer,
    materials: Materials,
    index_buffer: wgpu::Buffer,
}

impl Passes {
    pub fn new(
        shared: &SharedPipelines,
        queue: &wgpu::Queue,
        options: &RendererOptions,
        caps: Capabilities,
        device_type: wgpu::DeviceType,
        registry: &BlockRegistry,
        quad_pages: u32,
    ) -> Self {
        let device = shared.device();
        let init = |label, contents: &[u8], usage| {
            crate::buffers::buffer_with(device, queue, label, contents, usage)
        };
        let draw_layout = DRAW_BINDINGS.layout(device);
        let draws = DrawLists::new(shared, quad_pages);
        Self {
            lod: LodPasses::new(shared),
            lod_frozen: false,
            front_to_back: true,
            quads_by_default: device_type != wgpu::DeviceType::Cpu,
            split_pairs: if device_type == wgpu::DeviceType::Cpu { 0 } else { crate::MESH_SPLIT_PAIRS },
            mesher: Mesher::new(shared, caps.subgroups),
            pyramid: Pyramid::new(shared, queue, options.size()),
            deferred: Deferred::new(shared, options.size(), options.color_format),
            shade_per_pixel: false,
            shade_into_color: false,
            light: LightPass::new(shared, queue, registry, device_type),
            shadow: ShadowPass::new(shared, &draw_layout, draws.capacity),
            draws,
            pipelines: DrawPipelines::new(device, &draw_layout, caps.polygon_mode_line, options.color_format),
            draw_layout,
            bound: None,
            params: uniform_buffer(device, "voxgpu.pass_params", size_of::<PassParams>() as u64),
            camera: uniform_buffer(
                device,
                "voxgpu.camera",
                <CameraUniform as encase::ShaderType>::min_size().get(),
            ),
            work: WorkList::new(device, "voxgpu.mesh.work", 6),
            release: ReleaseRun {
                params: uniform_buffer(device, "voxgpu.release.pass_params", size_of::<PassParams>() as u64),
                work: WorkList::new(device, "voxgpu.release.work", 6),
                profiler: wgpu_profiler::GpuProfiler::new(device, crate::profiling::SETTINGS)
                    .expect("default settings are valid"),
            },
            opaque_bits: init(
                "voxgpu.opaque_bits",
                bytemuck::cast_slice(&opaque_bits(registry)),
                wgpu::BufferUsages::UNIFORM,
            ),
            materials: Materials::new(device, queue, registry),
            index_buffer: init(
                "voxgpu.quad_indices",
                bytemuck::cast_slice(&quad_indices()),
                wgpu::BufferUsages::INDEX,
            ),
        }
    }

    /// Sizes the work list, draw lists, mip list and shadow lists for this frame (and makes the
    /// shadow maps the first frame that draws `shadows`), and rebuilds the bind groups if a
    /// buffer was replaced. Returns the frame's pass parameters and how many evicted
    /// chunks its work list has room for (they are collected first, outside the re-mesh budget).
    pub fn size(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        resident: &Residency,
        options: &RendererOptions,
        shadows: bool,
        submission: DrawSubmission,
    ) -> (PassParams, u32) {
        let pool = &resident.pool;
        let budget = options.max_meshes_per_frame + pool.evictions_pending();
        let chunks = pool.slot_count().min(budget).min(MAX_CHUNKS_PER_FRAME);
        let max_jobs = 6 * chunks.max(1);
        self.work.ensure(device, "voxgpu.mesh.work", max_jobs, 6 * MAX_CHUNKS_PER_FRAME);
        // A list never holds more commands than there are pages.
        let quads = resident.quads.pages().saturating_mul(crate::PAGE_QUADS);
        let per_quad = crate::quad_cull::used(options.culling.quads, self.quads_by_default, submission);
        self.draws.ensure(device, resident.quads.pages(), pool.slot_count(), quads, per_quad);
        self.lod.ensure(device, pool.slot_count());
        self.pyramid.ensure(device, queue, options.size());
        self.shadow.ensure(device, self.draws.capacity, shadows);
        let key = (
            pool.generation,
            resident.quads.generation,
            self.draws.generation,
            self.pyramid.generation,
            self.shadow.generation,
            self.work.generation,
            self.lod.mip_capacity,
        );
        if self.bound.as_ref().is_none_or(|b| b.key != key) {
            self.bound = Some(self.bind(device, resident, key));
        }
        let params = PassParams {
            slot_count: pool.slot_count(),
            max_jobs,
            draw_capacity: self.draws.capacity,
            chunk_size: voxgpu_core::voxel::CHUNK_SIZE as u32,
            ambient_occlusion: options.ambient_occlusion as u32,
            split_pairs: self.split_pairs,
        };
        (params, chunks)
    }

    /// Every buffer a pass binds, by the name its shaders give it, with the frame's own pass
    /// parameters and work list.
    pub(super) fn resources<'a>(&'a self, resident: &'a Residency) -> Resources<'a> {
        let (pool, quads) = (&resident.pool, &resident.quads);
        let resources = Resources::new()
            .buffer("params", &self.params)
            .buffer("work", &self.work.buffer)
            .buffer("camera", &self.camera)
            .buffer("voxels", &pool.voxels.buffer)
            .buffer("chunks", &pool.meta.buffer)
            .buffer("links", &pool.links_buffer.buffer)
            .buffer("light", &pool.light.buffer)
            .buffer("faces", &pool.faces.buffer)
            .buffer("quads", &quads.quads.buffer)
            .buffer("page_owner", &quads.page_owner.buffer)
            .buffer("allocator", &quads.allocator.buffer)
            .buffer("opaque_bits", &self.opaque_bits)
            .buffer("blocks", &self.materials.blocks)
            .texture("atlas", &self.materials.atlas)
            .buffer("tile_averages", &self.materials.tile_averages)
            .buffer("pyramid", &self.pyramid.buffer)
            .sampler("shadow_sampler", &self.shadow.sampler);
        let resources = ShadowPass::maps_as(self.shadow.map_views(), resources);
        self.draws.resources(self.lod.resources(resources))
    }

    /// Readies the shade pass for this frame's `targets`: the surface key target the depth's size,
    /// the shade and compose bind groups made over it, unless they are. A depth target without
    /// `TEXTURE_BINDING` usage cannot be read: that frame's opaque surfaces are shaded forward.
    /// Where the shade pass can write the colour target itself (`deferred::can_shade_into`), its
    /// bind group for that target too.
    pub fn bind_deferred(
        &mut self,
        device: &wgpu::Device,
        resident: &Residency,
        targets: &Targets,
        options: &RendererOptions,
    ) {
        let depth = targets.depth;
        let texture = depth.texture();
        self.shade_per_pixel = texture.usage().contains(wgpu::TextureUsages::TEXTURE_BINDING)
            && texture.sample_count() == 1
            && texture.format() == crate::DEPTH_FORMAT;
        self.shade_into_color = false;
        if !self.shade_per_pixel {
            return;
        }
        self.deferred.ensure(device, (texture.width(), texture.height()));
        let key = (resident.pool.generation, resident.quads.generation, self.shadow.generation);
        if !self.deferred.is_bound(key, depth) {
            let groups = self.deferred.make_groups(device, self.resources(resident), key, depth);
            self.deferred.set_groups(groups);
        }
        let color = targets.color.texture();
        let frame = (targets.clear, options.procedural_sky);
        self.shade_into_color = crate::deferred::can_shade_into(color, texture, options.color_format, frame);
        if self.shade_into_color && !self.deferred.is_bound_to(color) {
            let group = self.deferred.color_group(device, self.resources(resident), color);
            self.deferred.set_color_group(color, group);
        }
    }

    fn bind(&self, device: &wgpu::Device, resident: &Residency, key: BindKey) -> Bound {
        let resources = self.resources(resident);
        Bound {
            key,
            lod: self.lod.bind_groups(device, &resources),
            mesh: self.mesher.bind_groups(device, &resources),
            cull: self.draws.bind_groups(device, &resources),
            draw: DRAW_BINDINGS.bind_group(device, &self.draw_layout, &resources),
            shadow_cull: self.shadow.cull_bind_group(device, &resources),
            shadow_draw: DRAW_BINDINGS.bind_group(
                device,
                &self.draw_layout,
                &self.shadow.draw_resources(resources.clone()),
            ),
        }
    }

    /// Writes the frame's uniforms: the camera (with the shadow cascades when `shadows`), the
    /// pass parameters, the work list header and, with `shadows`, the caster pass's. Returns the
    /// LOD parameters, which `record` writes; the cull parameters follow in `record`
    /// ([`Self::write_cull`]), once the depth target is known.
    #[expect(
        clippy::too_many_arguments,
        reason = "each is one of the frame's inputs, computed by the caller from a different owner"
    )]
    pub fn write_frame(
        &self,
        queue: &wgpu::Queue,
        camera: &Camera,
        options: &RendererOptions,
        submission: DrawSubmission,
        params: &PassParams,
        top_level: u32,
        medium: glam::Vec4,
        shadows: bool,
    ) -> LodParams {
        let aspect = options.width as f32 / options.height as f32;
        // Every position the GPU sees is measured from the block the eye is in (`Camera::anchor`).
        let anchor = camera.anchor();
        let selection = options
            .selection
            .map_or(glam::Vec4::ZERO, |b| (b.as_i64vec3() - anchor.as_i64vec3()).as_vec3().extend(1.0));
        let sun = crate::sun(options.time_of_day);
        let view_proj = camera.view_proj_from(aspect, anchor);
        let (shadow_view_proj, shadow_radii) = if shadows {
            let cascades = crate::shadow::cascades(sun.truncate(), camera.eye.as_dvec3(), anchor);
            let cull = ShadowCull::new(&cascades, sun.truncate(), view_proj, camera.eye_from(anchor), anchor);
            self.shadow.write(queue, &cull);
            crate::shadow::camera_fields(&cascades)
        } else {
            Default::default()
        };
        let uniform = CameraUniform {
            view_proj,
            inv_rotation_proj: (camera.projection(aspect) * camera.rotation()).inverse(),
            selection,
            anchor,
            eye: camera.eye_from(anchor),
            fog_exponent: crate::haze_exponent(options.fog_density),
            haze_clear2: (-20.0 / crate::haze_exponent(options.fog_density)).exp2(),
            sun,
            shadow_view_proj,
            shadow_radii,
            sky_color: options.sky_color,
            fog_end: options.fog_end,
            page_list_capacity: match submission {
                DrawSubmission::Instanced => self.draws.capacity,
                _ => 0,
            },
            medium,
            sky_flags: (CameraUniform::HAZE * options.fog as u32)
                | (CameraUniform::PROCEDURAL_SKY * options.procedural_sky as u32)
                | (CameraUniform::LIGHT * options.light as u32)
                | (CameraUniform::SHADOWS * shadows as u32),
        };
        queue.write_buffer(&self.camera, 0, &uniform.to_bytes());
        self.write_mesh_run(queue, params);
        LodParams::new(&options.lod, camera, anchor, top_level)
    }

    /// Writes the cull parameters of a frame seen from `camera` at `frame` pixels with `culling`
    /// (both as `prepare` saw them, which wrote the camera uniform with that aspect and checked
    /// the frozen camera): the frustum of the culling camera (the view's, or a frozen one), and
    /// the pyramid to test against when `occlusion` says so.
    #[allow(clippy::too_many_arguments)]
    pub fn write_cull(
        &self,
        queue: &wgpu::Queue,
        camera: &Camera,
        (frame, culling): ((u32, u32), Culling),
        options: &RendererOptions,
        submission: DrawSubmission,
        occlusion: OcclusionFrame,
    ) {
        let aspect = frame.0 as f32 / frame.1 as f32;
        let anchor = camera.anchor();
        let cull_camera = culling.frozen.unwrap_or(*camera);
        let flags = (CullParams::FRUSTUM * culling.frustum as u32)
            | (CullParams::FACES * culling.faces as u32)
            | (CullParams::PAGES * (submission == DrawSubmission::Instanced) as u32)
            | (CullParams::TWO_PHASE * occlusion.two_phase as u32)
            | (CullParams::LIST_OCCLUDED * (options.mode == crate::RenderMode::Occlusion) as u32)
            | (CullParams::FRONT_TO_BACK * self.front_to_back as u32);
        let mut cull = CullParams::new(&cull_camera, aspect, flags, camera, anchor);
        // The camera the pyramid's depth is drawn with: this frame's, or with culling frozen the
        // one it was last built with.
        let drawn_with = if occlusion.two_phase { Some(*camera) } else { self.pyramid.built_with };
        if let (true, Some(drawn_with)) = (occlusion.test, drawn_with) {
            cull.flags |= CullParams::OCCLUSION;
            cull.pyramid = self.pyramid_test(&drawn_with, aspect, anchor);
        }
        queue.write_buffer(&self.draws.cull_params, 0, bytemuck::bytes_of(&cull));
    }

    /// The depth pyramid the shadow caster pass tests against in a frame of `camera` at `frame`
    /// pixels culled as `occlusion` (levels 0: none): this frame's own, built from its first
    /// phase, when the frame has two phases and that phase shades no colour (so nothing drawn
    /// before the shadow maps read it; the pass then runs after the pyramid is built).
    pub fn shadow_pyramid(
        &self,
        camera: &Camera,
        frame: (u32, u32),
        options: &RendererOptions,
        occlusion: OcclusionFrame,
    ) -> PyramidTest {
        let first_phase_shades = options
            .mode
            .passes(options.depth_prepass)
            .iter()
            .filter(|r| r.draws_fading())
            .any(|r| r.fragment(false).is_some() && !(r.shades_later() && self.shade_per_pixel));
        if !occlusion.two_phase || first_phase_shades {
            return PyramidTest::default();
        }
        self.pyramid_test(camera, frame.0 as f32 / frame.1 as f32, camera.anchor())
    }

    /// A test against the depth pyramid as it is laid out now, whose depth `drawn_with` drew at
    /// `aspect`, for positions measured from `anchor`.
    fn pyramid_test(&self, drawn_with: &Camera, aspect: f32, anchor: glam::IVec3) -> PyramidTest {
        PyramidTest {
            view_proj: drawn_with.view_proj_from(aspect, anchor).to_cols_array_2d(),
            frame: [self.pyramid.frame.0, self.pyramid.frame.1],
            levels: self.pyramid.level_count(),
            depth_margin: voxgpu_core::occlusion::DEPTH_MARGIN,
        }
    }

    /// How a frame into `depth` culls by occlusion, prepared at `frame` pixels with `culling`:
    /// two phases when occlusion culling is on, the mode allows it, the depth can be read and is
    /// the size the pyramid was laid out for (a resize between `prepare` and `record` skips it for
    /// that frame) and culling is not frozen; with it frozen, a test against the pyramid built
    /// before, if there is one.
    pub fn occlusion_frame(
        &self,
        (frame, culling): ((u32, u32), Culling),
        options: &RendererOptions,
        depth: &wgpu::TextureView,
    ) -> OcclusionFrame {
        let on = culling.occlusion
            && options.mode.allows_occlusion()
            && self.pyramid.frame == frame
            && crate::hiz::readable_depth(depth, frame);
        let two_phase = on && culling.frozen.is_none();
        OcclusionFrame { two_phase, test: two_phase || (on && self.pyramid.built_with.is_some()) }
    }

    /// Records the frame's compute passes after its uploads and before culling: LOD and mips,
    /// the mesher.
    pub fn record_compute(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        submission: DrawSubmission,
        params: &PassParams,
        lod: &LodParams,
    ) {
        let bound = self.bound();
        self.draws.reset(encoder, submission);
        self.lod.prepare(queue, encoder, lod);
        self.lod.record(encoder, profiler, &bound.lod, params.slot_count, self.lod_frozen);
        self.record_mesh(encoder, profiler, params);
    }

    /// The blocks' light opacity and emission, as the light pass applies them.
    pub fn light_rules(&self) -> &LightRules {
        self.light.rules()
    }

    /// Records the light of `jobs` (the pool's [`crate::chunk_pool::ChunkPool::light_jobs`]),
    /// after the frame's uploads and before anything is drawn.
    pub fn record_light(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        resident: &Residency,
        jobs: &[LightJob],
    ) {
        let pool = &resident.pool;
        let resources = Resources::new()
            .buffer("voxels", &pool.voxels.buffer)
            .buffer("links", &pool.links_buffer.buffer)
            .buffer("light", &pool.light.buffer);
        self.light.record(device, queue, encoder, profiler, (&resources, pool.generation), jobs);
    }

    /// Records the shadow casters' lists and each cascade's depth, after the LOD pass and the
    /// mesher (it reads which nodes are shown and their streams) and before anything is shaded.
    pub fn record_shadows(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        (submission, params): (DrawSubmission, &PassParams),
        pyramid: &PyramidTest,
    ) {
        self.shadow.write_pyramid(queue, pyramid);
        let bound = self.bound();
        let groups = (&bound.shadow_cull, &bound.shadow_draw);
        self.shadow.record(encoder, profiler, groups, &self.index_buffer, submission, params.slot_count);
    }

    /// Records the cull pass's first phase (the streams seen last frame).
    pub fn record_cull_first(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        submission: DrawSubmission,
        params: &PassParams,
    ) {
        self.draws.record_first(encoder, profiler, &self.bound().cull, params.slot_count, submission);
    }

    /// Records the cull pass (its second phase with occlusion culling) and the transparent sort.
    pub fn record_cull(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        params: &PassParams,
    ) {
        self.draws.record(encoder, profiler, &self.bound().cull, params.slot_count);
    }

    /// The buffers the counters are copied from, in a frame that draws `shadows` or not.
    pub fn counter_sources<'a>(&'a self, resident: &'a Residency, shadows: bool) -> CounterSources<'a> {
        CounterSources {
            work: &self.work.buffer,
            allocator: &resident.quads.allocator.buffer,
            draw_counts: &self.draws.counts,
            lod_counts: &self.lod.counts,
            shadow_counts: shadows.then_some(&self.shadow.counts),
            quads_kept: self.draws.quad_lists.frame_kept(),
        }
    }

    pub(super) fn bound(&self) -> &Bound {
        self.bound.as_ref().expect("sized by prepare")
    }

    pub(super) fn index_buffer(&self) -> &wgpu::Buffer {
        &self.index_buffer
    }

    pub(super) fn pipelines(&self) -> &DrawPipelines {
        &self.pipelines
    }

    /// Bytes of the draw lists and the shadow pass's lists and map (the depth pyramid grows with
    /// the frame, not the world).
    pub fn bytes(&self) -> u64 {
        self.draws.bytes() + self.shadow.bytes()
    }
}
