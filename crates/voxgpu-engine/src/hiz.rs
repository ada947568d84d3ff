//! The depth pyramid occlusion culling tests against (`shaders/hiz.wgsl`; layout and twin in
//! `voxgpu_core::occlusion`): built from the frame's depth after its first phase, one dispatch
//! per level, read by the cull pass's second phase.
//!
//! Tests can have each build's depth copied out (`set_capture`): GL cannot copy a depth texture
//! into a buffer, so a compute pass does.
//!
//! The pyramid remembers the camera its depth was drawn with, so a frozen culling camera keeps
//! testing against the depth of the frame it froze on; a new frame size discards it.

use wgpu_profiler::GpuProfiler;

use super::bindings::{BindingTable, Resources, Slot};
use super::pipelines::{ComputeShader, SharedPipelines};
use super::profiling::{compute_pass, stage};
use super::shaders::{HIZ, shader_source};
use voxgpu_core::camera::Camera;
use voxgpu_core::occlusion::{base_size, level_count, level_offset, level_size, texel_count};

/// One level's dispatch, a uniform. Twin of `HizLevel` in `shaders/hiz.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HizLevel {
    /// The level read: its size (the depth target's pixels for level 0) and where it starts.
    pub src_size: [u32; 2],
    pub src_offset: u32,
    /// Where the level written starts, and its size.
    pub dst_offset: u32,
    pub dst_size: [u32; 2],
}

/// `hiz.wgsl`: one pyramid level from the depth target or the level below.
pub const HIZ_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.hiz",
    shaders: &[HIZ],
    partial_shaders: &[],
    slots: &[
        Slot::uniform("level", size_of::<HizLevel>() as u64),
        Slot::texture("depth").seen_by(wgpu::ShaderStages::COMPUTE),
        Slot::read_write("pyramid", 4),
    ],
};

/// The pyramid's texels and what they were built from.
pub struct Pyramid {
    /// Every level's texels (f32), level 0 first; the cull pass binds it.
    pub buffer: wgpu::Buffer,
    /// The frame size the buffer is laid out for.
    pub frame: (u32, u32),
    /// One uniform per level.
    levels: Vec<wgpu::Buffer>,
    /// Bumped whenever `buffer` is replaced.
    pub generation: u64,
    /// The camera the texels' depth was drawn with; `None` until built at this size.
    pub built_with: Option<Camera>,
    from_depth: wgpu::ComputePipeline,
    reduce: wgpu::ComputePipeline,
    copy_depth: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    /// The bind groups of each level, over the depth view they were made for.
    groups: Option<(wgpu::TextureView, Vec<wgpu::BindGroup>)>,
    /// For tests: each build's depth copied here too ([`Pyramid::set_capture`]).
    capture: Option<Capture>,
}

/// A copy of the depth each build reads, f32 pixels in rows of x, and the level uniform and
/// bind group of `copy_depth` that writes it (over the depth view they were made for).
struct Capture {
    buffer: wgpu::Buffer,
    level: wgpu::Buffer,
    group: Option<(wgpu::TextureView, wgpu::BindGroup)>,
}

fn texel_buffer(device: &wgpu::Device, (width, height): (u32, u32)) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.hiz.pyramid"),
        size: 4 * texel_count(width, height) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// Whether `depth` can be read by the pyramid pass: a single-sampled [`crate::DEPTH_FORMAT`]
/// texture with `TEXTURE_BINDING` usage, the frame's size.
pub fn readable_depth(depth: &wgpu::TextureView, (width, height): (u32, u32)) -> bool {
    let texture = depth.texture();
    texture.usage().contains(wgpu::TextureUsages::TEXTURE_BINDING)
        && texture.sample_count() == 1
        && texture.format() == crate::DEPTH_FORMAT
        && (texture.width(), texture.height()) == (width, height)
}

impl Pyramid {
    pub fn new(shared: &SharedPipelines, queue: &wgpu::Queue, frame: (u32, u32)) -> Self {
        let device = shared.device();
        let layout = HIZ_BINDINGS.layout(device);
        let shader = ComputeShader::new(shared, &HIZ_BINDINGS, "voxgpu.hiz", shader_source(HIZ));
        let mut pyramid = Self {
            buffer: texel_buffer(device, frame),
            frame,
            levels: Vec::new(),
            generation: 0,
            built_with: None,
            from_depth: shader.pipeline("voxgpu.hiz.from_depth", "from_depth"),
            reduce: shader.pipeline("voxgpu.hiz.reduce", "reduce"),
            copy_depth: shader.pipeline("voxgpu.hiz.copy_depth", "copy_depth"),
            layout,
            groups: None,
            capture: None,
        };
        pyramid.levels = pyramid.level_uniforms(device, queue);
        pyramid
    }

    fn level_uniforms(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Vec<wgpu::Buffer> {
        let (width, height) = self.frame;
        let base = base_size(width, height);
        (0..level_count(base))
            .map(|k| {
                let (src_size, src_offset) = match k {
                    0 => ([width, height], 0),
                    _ => (level_size(base, k - 1).to_array(), level_offset(base, k - 1)),
                };
                let level = HizLevel {
                    src_size,
                    src_offset,
                    dst_offset: level_offset(base, k),
                    dst_size: level_size(base, k).to_array(),
                };
                crate::buffers::buffer_with(
                    device,
                    queue,
                    "voxgpu.hiz.level",
                    bytemuck::bytes_of(&level),
                    wgpu::BufferUsages::UNIFORM,
                )
            })
            .collect()
    }

    /// Lays the pyramid out for a `frame` of pixels; a new size discards what was built.
    pub fn ensure(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, frame: (u32, u32)) {
        if frame != self.frame {
            self.frame = frame;
            self.buffer = texel_buffer(device, frame);
            self.levels = self.level_uniforms(device, queue);
            self.groups = None;
            self.built_with = None;
            self.generation += 1;
            if self.capture.is_some() {
                self.set_capture(device, queue, true);
            }
        }
    }

    /// Copies the depth each build reads (the first phase's) where [`Pyramid::captured`]
    /// finds it; off, nothing is copied. For tests of the pyramid against its CPU twin.
    pub fn set_capture(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, on: bool) {
        let (width, height) = self.frame;
        self.capture = on.then(|| {
            let whole =
                HizLevel { src_size: [width, height], dst_size: [width, height], ..Default::default() };
            Capture {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("voxgpu.hiz.depth_capture"),
                    size: 4 * (width * height) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                level: crate::buffers::buffer_with(
                    device,
                    queue,
                    "voxgpu.hiz.copy",
                    bytemuck::bytes_of(&whole),
                    wgpu::BufferUsages::UNIFORM,
                ),
                group: None,
            }
        });
    }

    /// The captured depth's buffer, if capturing.
    pub fn captured(&self) -> Option<&wgpu::Buffer> {
        self.capture.as_ref().map(|c| &c.buffer)
    }

    /// Levels of the pyramid.
    pub fn level_count(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Records the build from `depth` (checked by [`readable_depth`]), drawn with `camera`: one
    /// compute pass, a dispatch per level (and with a capture on, the depth's copy first).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &GpuProfiler,
        depth: &wgpu::TextureView,
        camera: Camera,
    ) {
        if self.groups.as_ref().is_none_or(|(view, _)| view != depth) {
            let groups = self
                .levels
                .iter()
                .map(|level| {
                    let resources = Resources::new()
                        .buffer("level", level)
                        .texture("depth", depth)
                        .buffer("pyramid", &self.buffer);
                    HIZ_BINDINGS.bind_group(device, &self.layout, &resources)
                })
                .collect();
            self.groups = Some((depth.clone(), groups));
        }
        if let Some(capture) =
            self.capture.as_mut().filter(|c| c.group.as_ref().is_none_or(|(v, _)| v != depth))
        {
            let resources = Resources::new()
                .buffer("level", &capture.level)
                .texture("depth", depth)
                .buffer("pyramid", &capture.buffer);
            capture.group = Some((depth.clone(), HIZ_BINDINGS.bind_group(device, &self.layout, &resources)));
        }
        let (_, groups) = self.groups.as_ref().expect("made above");
        let base = base_size(self.frame.0, self.frame.1);
        compute_pass(profiler, encoder, None, stage::HIZ, |pass| {
            if let Some((_, group)) = self.capture.as_ref().and_then(|c| c.group.as_ref()) {
                let (width, height) = self.frame;
                pass.set_pipeline(&self.copy_depth);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(width.div_ceil(8), height.div_ceil(8), 1);
            }
            for (k, group) in groups.iter().enumerate() {
                let size = level_size(base, k as u32);
                pass.set_pipeline(if k == 0 { &self.from_depth } else { &self.reduce });
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(size.x.div_ceil(8), size.y.div_ceil(8), 1);
            }
        });
        self.built_with = Some(camera);
    }
}
