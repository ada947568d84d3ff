//! A renderer with its own colour and depth targets: what the CLI, the tests and the viewer's
//! screenshots use, and the easiest way to get a picture without a window.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::{Renderer, RendererOptions, Targets, check_target_size};
use crate::pipelines::{COLOR_FORMAT, depth_target};
use crate::readback::{Pixels, read_rgba8};
use crate::{FrameStats, GpuContext, GpuError};
use voxgpu_core::ChunkSink;
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockRegistry, Chunk, NodeColumn, NodeKey};

/// A [`Renderer`] that draws into textures it owns and can read them back. It dereferences to
/// its renderer, so every chunk, edit and option call works on it directly.
pub struct Offscreen {
    renderer: Renderer,
    color: wgpu::Texture,
    depth: wgpu::TextureView,
    /// Whether the adapter can view a texture in another format (`VIEW_FORMATS`), so the colour
    /// target can be plain RGBA8 the shade pass stores to.
    storable: bool,
}

/// Whether `gpu`'s adapter can view a texture in another format than its own.
fn storable(gpu: &GpuContext) -> bool {
    gpu.adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VIEW_FORMATS)
}

/// The colour target (RGBA8 holding sRGB, read back and presented) and the depth target. Where
/// the adapter can view a texture in another format, the texture is plain `Rgba8Unorm`, drawn
/// through an sRGB view ([`COLOR_FORMAT`]) and stored to as plain RGBA8 by the shade pass, which
/// then writes the shaded surfaces and the sky itself (`deferred::can_shade_into`); elsewhere it
/// is [`COLOR_FORMAT`] itself.
fn target_textures(
    device: &wgpu::Device,
    (width, height): (u32, u32),
    storable: bool,
) -> (wgpu::Texture, wgpu::TextureView) {
    let (format, storage, view_formats): (_, _, &[wgpu::TextureFormat]) = if storable {
        (wgpu::TextureFormat::Rgba8Unorm, wgpu::TextureUsages::STORAGE_BINDING, &[COLOR_FORMAT])
    } else {
        (COLOR_FORMAT, wgpu::TextureUsages::empty(), &[])
    };
    let color = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("voxgpu.target.color"),
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        // TEXTURE_BINDING: the viewer presents the frame by drawing it into the window's surface.
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::TEXTURE_BINDING
            | storage,
        view_formats,
    });
    (color, depth_target(device, width, height))
}

impl Offscreen {
    /// A renderer on `gpu`'s device with `options.width × options.height` targets of its own
    /// (drawn in [`COLOR_FORMAT`]: `options.color_format` is set to it; the texture may be plain
    /// RGBA8 under that view, see `target_textures`). It reports the device's loss through
    /// `gpu`'s flag.
    pub fn new(
        gpu: &GpuContext,
        options: RendererOptions,
        registry: &BlockRegistry,
    ) -> Result<Self, GpuError> {
        let options = RendererOptions { color_format: COLOR_FORMAT, ..options };
        let mut renderer = Renderer::with_pipelines(&gpu.pipelines, &gpu.queue, options, registry)?;
        renderer.watch_device_loss(Arc::clone(&gpu.lost));
        let storable = storable(gpu);
        let (color, depth) = target_textures(&gpu.device, renderer.options().size(), storable);
        Ok(Self { renderer, color, depth, storable })
    }

    fn with_targets<T>(&mut self, f: impl FnOnce(&mut Renderer, &Targets) -> T) -> T {
        let color = self.color_view();
        f(&mut self.renderer, &Targets { color: &color, depth: &self.depth, clear: true })
    }

    /// A view of the colour target in [`COLOR_FORMAT`], the format the renderer draws in: what a
    /// frame recorded into these targets by hand takes as `Targets::color`.
    pub fn color_view(&self) -> wgpu::TextureView {
        self.color.create_view(&wgpu::TextureViewDescriptor {
            format: Some(COLOR_FORMAT),
            // Not the texture's storage usage, which an sRGB view cannot have.
            usage: Some(wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING),
            ..Default::default()
        })
    }

    /// Renders one frame into the targets: [`Renderer::prepare`], [`Renderer::record`], the
    /// submission and [`Renderer::frame_submitted`].
    pub fn render(&mut self, camera: &Camera) -> Result<FrameStats, GpuError> {
        self.with_targets(|r, targets| r.render(camera, targets))
    }

    /// Renders until every chunk is meshed ([`Renderer::settle`]).
    pub fn settle(&mut self, camera: &Camera) -> Result<FrameStats, GpuError> {
        self.with_targets(|r, targets| r.settle(camera, targets))
    }

    /// Reads the last rendered frame back. Blocks; for screenshots and tests, not per frame.
    pub fn read_pixels(&self) -> Result<Pixels, GpuError> {
        let inspect = self.renderer.inspect();
        read_rgba8(inspect.device(), inspect.queue(), &self.color)
    }

    /// Resizes the targets (a window's new size); every chunk stays as it is.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), GpuError> {
        check_target_size(self.renderer.inspect().device(), width, height)?;
        if (width, height) != self.renderer.options().size() {
            self.renderer.resize(width, height)?;
            (self.color, self.depth) =
                target_textures(self.renderer.inspect().device(), (width, height), self.storable);
        }
        Ok(())
    }

    /// Rebuilds the renderer and its targets on `gpu`'s device after the old one was lost
    /// ([`Renderer::recover`]), and reports the new device's loss through `gpu`'s flag.
    pub fn recover(&mut self, gpu: &GpuContext) -> Result<(), GpuError> {
        self.renderer.recover_with_pipelines(&gpu.pipelines, &gpu.queue)?;
        self.renderer.watch_device_loss(Arc::clone(&gpu.lost));
        self.storable = storable(gpu);
        (self.color, self.depth) =
            target_textures(&gpu.device, self.renderer.options().size(), self.storable);
        Ok(())
    }

    /// The colour target (RGBA8 holding sRGB; [`Self::color_view`] draws into it): what
    /// `read_pixels` reads and the viewer presents.
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color
    }

    /// The renderer, and with it the targets given up.
    pub fn into_renderer(self) -> Renderer {
        self.renderer
    }
}

impl Deref for Offscreen {
    type Target = Renderer;
    fn deref(&self) -> &Renderer {
        &self.renderer
    }
}

impl DerefMut for Offscreen {
    fn deref_mut(&mut self) -> &mut Renderer {
        &mut self.renderer
    }
}

/// The streaming manager feeds an offscreen renderer as it feeds a [`Renderer`].
impl ChunkSink for Offscreen {
    type Error = GpuError;
    fn insert(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), GpuError> {
        ChunkSink::insert(&mut self.renderer, key, chunk)
    }
    fn remove(&mut self, key: NodeKey) {
        ChunkSink::remove(&mut self.renderer, key);
    }
    fn mark_dirty(&mut self, key: NodeKey) {
        ChunkSink::mark_dirty(&mut self.renderer, key);
    }
    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        ChunkSink::column_ready(&mut self.renderer, column, ready);
    }
}
