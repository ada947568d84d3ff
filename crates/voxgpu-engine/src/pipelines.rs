//! The compute pipelines compiled once per device, and the chunk draw pipelines and their bind
//! group layout, declared explicitly like a C header.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::bindings::{BindingTable, Slot};
use super::deferred::SURFACE_KEY_FORMAT;
use super::layouts::ChunkMeta;
use super::render_mode::RasterPass;
use super::shaders::{CHUNK_DRAW, OUTLINE, SKY, ShaderFile, shader_source};

/// The offscreen colour target's format, and the default of [`crate::RendererOptions::color_format`].
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The depth target's format. Depth is reverse-Z with an infinite far plane: 1 at the near plane,
/// falling towards 0 at infinity, cleared to 0 and tested with `Greater`/`GreaterEqual`.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// A depth target of `width × height` in [`DEPTH_FORMAT`], for [`crate::Targets::depth`]: what
/// every embedder draws voxgpu's frame with. A render attachment the passes can also read (the
/// shade pass and the depth pyramid: a depth target without `TEXTURE_BINDING` is drawn with
/// forward shading and no occlusion culling); the view keeps its texture alive. Make a new one
/// when the frame is resized.
pub fn depth_target(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("voxgpu.target.depth"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            // Read by the shade pass and the depth pyramid (occlusion culling); copied out by tests.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// The most workgroups one dimension of a dispatch may have (WebGPU's and Vulkan's minimum).
pub const MAX_DISPATCH_DIMENSION: u32 = 65535;

/// Workgroup counts `(x, y)` for `invocations` of a one-dimensional job in workgroups of
/// `workgroup_size`, spread over rows of at most [`MAX_DISPATCH_DIMENSION`] workgroups so no
/// dimension passes the limit (at least one workgroup). The shader finds its index with
/// `linear_invocation` (`shaders/common.wgsl`): `id.y × x × size + id.x`; the last row's
/// invocations past `invocations` are rejected by its bounds check.
pub fn linear_dispatch(invocations: u32, workgroup_size: u32) -> (u32, u32) {
    let groups = invocations.div_ceil(workgroup_size).max(1);
    let rows = groups.div_ceil(MAX_DISPATCH_DIMENSION);
    (groups.div_ceil(rows), rows)
}

/// Records a one-dimensional job of `invocations` over [`linear_dispatch`]'s grid.
pub fn dispatch_linear(pass: &mut wgpu::ComputePass<'_>, invocations: u32, workgroup_size: u32) {
    let (x, y) = linear_dispatch(invocations, workgroup_size);
    pass.dispatch_workgroups(x, y, 1);
}

/// The compute pipelines compiled on one device, kept for every renderer made on it. A renderer
/// asks here before it compiles one, so a second renderer on the device (an embedder's second
/// view, or the hundreds of renderers a test binary makes on its one shared device) compiles
/// nothing again. Compiling these pipelines is nearly all a renderer's start-up costs on a CPU
/// adapter: about 0.6 s on lavapipe (`docs/PERFORMANCE.md`, "Test time and renderer start-up").
///
/// The set belongs to the device it was made for, which renderers made with it use (wgpu's own
/// comparison of devices cannot tell devices of two instances apart, so the device is not taken
/// separately). A clone is another handle on the same set; it is safe to share across threads.
#[derive(Clone)]
pub struct SharedPipelines {
    device: wgpu::Device,
    compiled: Arc<Mutex<HashMap<PipelineKey, wgpu::ComputePipeline>>>,
}

impl std::fmt::Debug for SharedPipelines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedPipelines({} compiled)", self.len())
    }
}

impl SharedPipelines {
    /// An empty set for the pipelines of `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        Self { device: device.clone(), compiled: Default::default() }
    }

    /// The device the set's pipelines are compiled on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// How many pipelines it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PipelineKey, wgpu::ComputePipeline>> {
        // A thread that panicked while holding the lock left the map whole: each change to it is
        // one insert.
        self.compiled.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What makes two compute pipelines of a device the same: the bind group layout (its table's
/// label and slots), the WGSL source, the entry point and whether wgpu zeroes workgroup memory.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PipelineKey {
    layout: String,
    source: String,
    entry: String,
    zero_workgroup_memory: bool,
}

/// One WGSL source with its pipeline layout of one bind group, for the compute pipelines of its
/// entry points. A pipeline [`SharedPipelines`] holds is taken from there; otherwise the source
/// is parsed and validated, once for all its entry points (a large part of making a pipeline),
/// and the pipeline compiled and kept.
pub struct ComputeShader {
    shared: SharedPipelines,
    label: String,
    layout: wgpu::BindGroupLayout,
    layout_key: String,
    source: String,
    /// wgpu zeroes the workgroup memory before the shader runs, as WGSL promises.
    zero_workgroup_memory: bool,
    /// The module and pipeline layout, made when the first pipeline is compiled.
    compiled: std::sync::OnceLock<(wgpu::ShaderModule, wgpu::PipelineLayout)>,
}

impl ComputeShader {
    /// `source` over bind group 0 of `table`. Bind groups made with the table's layout
    /// ([`BindingTable::layout`]) match its pipelines: wgpu-core makes equal layouts one object,
    /// and WebGPU counts equal layouts as the same.
    pub fn new(shared: &SharedPipelines, table: &BindingTable, label: &str, source: String) -> Self {
        Self {
            shared: shared.clone(),
            label: label.to_owned(),
            layout: table.layout(shared.device()),
            layout_key: format!("{} {:?}", table.label, table.slots),
            source,
            zero_workgroup_memory: true,
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// For a source whose entry points write every workgroup variable before any invocation
    /// reads it: its pipelines skip wgpu's zeroing. Where the backend has no zeroing of its own
    /// (GL), naga zeroes every variable from one invocation of each workgroup; for the mesher's
    /// 14 KiB on llvmpipe that made `mesh.build` about 35 times slower than the same work on
    /// lavapipe.
    pub fn writes_its_workgroup_memory(self) -> Self {
        Self { zero_workgroup_memory: false, ..self }
    }

    /// The pipeline of entry point `entry`, labelled `label` when it is compiled here.
    pub fn pipeline(&self, label: &str, entry: &str) -> wgpu::ComputePipeline {
        let device = self.shared.device();
        let key = PipelineKey {
            layout: self.layout_key.clone(),
            source: self.source.clone(),
            entry: entry.to_owned(),
            zero_workgroup_memory: self.zero_workgroup_memory,
        };
        if let Some(pipeline) = self.shared.lock().get(&key) {
            return pipeline.clone();
        }
        // Compiled without holding the lock: renderers made at once on other threads wait for
        // nothing (two of them may compile the same pipeline; one copy is kept).
        let (module, layout) = self.compiled.get_or_init(|| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&self.label),
                source: wgpu::ShaderSource::Wgsl(self.source.as_str().into()),
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&self.label),
                bind_group_layouts: &[Some(&self.layout)],
                immediate_size: 0,
            });
            (module, layout)
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(layout),
            module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                zero_initialize_workgroup_memory: self.zero_workgroup_memory,
                ..Default::default()
            },
            cache: None,
        });
        self.shared.lock().entry(key).or_insert(pipeline).clone()
    }
}

/// The compute pipeline of a source's one entry point `entry` used here.
pub fn compute_pipeline(
    shared: &SharedPipelines,
    table: &BindingTable,
    label: &str,
    source: String,
    entry: &str,
) -> wgpu::ComputePipeline {
    ComputeShader::new(shared, table, label, source).pipeline(label, entry)
}

const VERTEX_FRAGMENT: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX_FRAGMENT;
/// `CameraUniform`'s size in the uniform layout (checked against encase's in a test below).
pub(crate) const CAMERA_BYTES: u64 = 384;

/// Group 0 of `chunk_draw.wgsl`, shared by the sky and the outline (which read the camera only):
/// camera, quads, page owners, chunk records, blocks (colour and tiles), the atlas, the tiles'
/// averages, the draw lists (vertex stage only: the instanced path reads its commands there), and
/// the light pool and neighbour links (fragment stage only: each fragment's light), the shadow
/// cascades' maps and their comparison sampler (fragment stage only: the sun's shadows), and the
/// quad list of per-quad culling (vertex stage only). Seven storage buffers in each of the
/// fragment and the vertex stage: within WebGPU's default of 8.
pub const DRAW_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.draw",
    shaders: &[CHUNK_DRAW],
    partial_shaders: &[SKY, OUTLINE],
    slots: &[
        Slot::uniform("camera", CAMERA_BYTES).seen_by(VERTEX_FRAGMENT),
        Slot::read("quads", voxgpu_core::mesh::QUAD_BYTES as u64).seen_by(VERTEX_FRAGMENT),
        Slot::read("page_owner", 4).seen_by(VERTEX_FRAGMENT),
        Slot::read("chunks", size_of::<ChunkMeta>() as u64).seen_by(VERTEX_FRAGMENT),
        Slot::read("blocks", 8).seen_by(VERTEX_FRAGMENT),
        Slot::texture("atlas"),
        Slot::read("tile_averages", 4).seen_by(VERTEX_FRAGMENT),
        Slot::read("args", 20).seen_by(wgpu::ShaderStages::VERTEX),
        Slot::read("light", 4).seen_by(wgpu::ShaderStages::FRAGMENT),
        Slot::read("links", 4).seen_by(wgpu::ShaderStages::FRAGMENT),
        Slot::depth("shadow_near"),
        Slot::depth("shadow_far"),
        Slot::comparison("shadow_sampler"),
        Slot::read("quad_list", 4).seen_by(wgpu::ShaderStages::VERTEX),
    ],
};

/// One chunk draw pipeline per [`RasterPass`], indexed by [`RasterPass::index`], its dithering
/// variant for cross-fading nodes where the pass draws them, and the sky. The shaded opaque
/// passes write the surface key target; their forward-shaded variants (for a depth target the shade
/// pass cannot read) are made the first time a frame asks for them.
///
/// Every chunk pipeline is made the first time a frame draws its pass: a renderer that never
/// shows a debug mode or the depth pre-pass compiles neither (half of the draw pipelines, a
/// tenth of a renderer's creation on lavapipe).
pub struct DrawPipelines {
    maker: Maker,
    passes: Vec<std::sync::OnceLock<wgpu::RenderPipeline>>,
    fading: Vec<std::sync::OnceLock<wgpu::RenderPipeline>>,
    /// `[Opaque, OpaqueAfterPrepass]`, each plain and dithering, forward-shaded.
    forward: std::sync::OnceLock<[[wgpu::RenderPipeline; 2]; 2]>,
    pub sky: wgpu::RenderPipeline,
    pub outline: wgpu::RenderPipeline,
}

/// What every chunk draw pipeline is made from.
struct Maker {
    device: wgpu::Device,
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    lines: bool,
    color_format: wgpu::TextureFormat,
}

impl Maker {
    /// `pass`'s pipeline; `fading`: its dithering variant; `forward`: a shaded opaque pass's
    /// variant that shades each fragment into the colour target itself.
    fn make(&self, pass: RasterPass, fading: bool, forward: bool) -> wgpu::RenderPipeline {
        let target = |format| {
            Some(wgpu::ColorTargetState {
                format,
                blend: pass.blends().then_some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })
        };
        let shaded = [target(self.color_format)];
        let surfaces = [target(SURFACE_KEY_FORMAT)];
        let overlay = pass.is_overlay();
        let polygon_mode =
            if overlay && self.lines { wgpu::PolygonMode::Line } else { wgpu::PolygonMode::Fill };
        let dither = [("FADE_DITHER", f64::from(u8::from(fading || pass.dithers())))];
        let compilation_options =
            wgpu::PipelineCompilationOptions { constants: &dither, ..Default::default() };
        let entry = if forward {
            Some("fs_opaque_forward")
        } else if fading {
            Some(pass.fading_fragment(self.lines))
        } else {
            pass.fragment(self.lines)
        };
        // The pre-pass's fading variant has a fragment stage (it discards) but no colour.
        let keyed = pass.shades_later() && !forward;
        let targets: &[Option<wgpu::ColorTargetState>] = if pass.fragment(self.lines).is_none() {
            &[]
        } else if keyed {
            &surfaces
        } else {
            &shaded
        };
        self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(pass.label()),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.module,
                // The pass into the surface key target passes on only what its fragment reads.
                entry_point: Some(if keyed { "vs_surface" } else { "vs_main" }),
                compilation_options: compilation_options.clone(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState {
                cull_mode: pass.cull_mode(),
                polygon_mode,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(pass.writes_depth()),
                depth_compare: Some(pass.depth_compare()),
                stencil: Default::default(),
                // Pulled towards the eye (reverse-Z: a positive bias), so edges win over the
                // filled faces they lie on.
                bias: if overlay {
                    wgpu::DepthBiasState { constant: 2, slope_scale: 1.0, clamp: 0.0 }
                } else {
                    Default::default()
                },
            }),
            multisample: Default::default(),
            fragment: entry.map(|entry| wgpu::FragmentState {
                module: &self.module,
                entry_point: Some(entry),
                compilation_options,
                targets,
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

impl DrawPipelines {
    /// `lines`: the device has `POLYGON_MODE_LINE`; without it the wireframe pass draws quad
    /// edges from filled triangles.
    /// `color_format`: the colour target's format (an sRGB format, as the shaders write linear
    /// colour).
    pub fn new(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        lines: bool,
        color_format: wgpu::TextureFormat,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("voxgpu.chunk_draw"),
            source: wgpu::ShaderSource::Wgsl(shader_source(CHUNK_DRAW).into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("voxgpu.draw.pipeline_layout"),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        });
        let simple = |file: ShaderFile, topology, depth_compare| {
            simple_pipeline(device, &pipeline_layout, file, topology, depth_compare, color_format)
        };
        // Only where nothing was drawn: depth still at its clear value (0, reverse-Z).
        let sky = simple(SKY, wgpu::PrimitiveTopology::TriangleList, wgpu::CompareFunction::Equal);
        // Reverse-Z; the box is inflated, so its edges lie just in front of the faces.
        let outline = simple(OUTLINE, wgpu::PrimitiveTopology::LineList, wgpu::CompareFunction::GreaterEqual);
        let maker = Maker { device: device.clone(), module, layout: pipeline_layout, lines, color_format };
        Self {
            passes: RasterPass::ALL.map(|_| std::sync::OnceLock::new()).into(),
            fading: RasterPass::ALL.map(|_| std::sync::OnceLock::new()).into(),
            forward: std::sync::OnceLock::new(),
            maker,
            sky,
            outline,
        }
    }

    /// `pass`'s pipeline and, where the pass draws cross-fading nodes, its dithering variant
    /// ([`RasterPass::draws_fading`]); for a shaded opaque pass with `forward`, the variants that
    /// shade into the colour target rather than the surface key target.
    pub fn get(
        &self,
        pass: RasterPass,
        forward: bool,
    ) -> (&wgpu::RenderPipeline, Option<&wgpu::RenderPipeline>) {
        if forward && pass.shades_later() {
            let forward = self.forward.get_or_init(|| {
                [RasterPass::Opaque, RasterPass::OpaqueAfterPrepass]
                    .map(|pass| [false, true].map(|fading| self.maker.make(pass, fading, true)))
            });
            let [plain, fading] = &forward[usize::from(pass == RasterPass::OpaqueAfterPrepass)];
            return (plain, Some(fading));
        }
        let plain = self.passes[pass.index()].get_or_init(|| self.maker.make(pass, false, false));
        let fading = pass
            .draws_fading()
            .then(|| self.fading[pass.index()].get_or_init(|| self.maker.make(pass, true, false)));
        (plain, fading)
    }
}

/// A pipeline of one shader file with entry points `vs_<name>` and `fs_<name>` (the file's stem),
/// no vertex buffers, depth tested with `depth_compare` and never written, colour unblended: the
/// sky and the selection outline.
pub(crate) fn simple_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    file: ShaderFile,
    topology: wgpu::PrimitiveTopology,
    depth_compare: wgpu::CompareFunction,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let stem = file.name.trim_end_matches(".wgsl");
    let label = format!("voxgpu.{stem}");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl(shader_source(file).into()),
    });
    let (vs, fs) = (format!("vs_{stem}"), format!("fs_{stem}"));
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(&label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some(&vs),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState { topology, ..Default::default() },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(false),
            depth_compare: Some(depth_compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(&fs),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: color_format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_table_takes_the_camera_uniforms_size() {
        let size = <crate::layouts::CameraUniform as encase::ShaderType>::min_size().get();
        assert_eq!(CAMERA_BYTES, size);
    }

    #[test]
    fn a_linear_dispatch_covers_every_invocation_within_the_dimension_limit() {
        // 349,525 slots of 12 invocations (the cull pass) need 65,536 workgroups of 64: one past
        // what one dimension holds.
        for invocations in [0, 1, 64, 65, 64 * 65535, 64 * 65535 + 1, 349_525 * 12, 4_000_000 * 12, u32::MAX]
        {
            let (x, y) = linear_dispatch(invocations, 64);
            assert!(x >= 1 && y >= 1 && x <= MAX_DISPATCH_DIMENSION && y <= MAX_DISPATCH_DIMENSION);
            let covered = x as u64 * y as u64 * 64;
            assert!(covered >= invocations as u64, "{invocations}: {x} x {y}");
            // Less than one row of workgroups to spare.
            assert!(covered < invocations as u64 + 64 * x as u64 + 64, "{invocations}: {x} x {y}");
        }
    }
}
