//! Showing frames in a window: the surface, its configuration, and the copy of the renderer's
//! frame into it (`shaders/present.wgsl`). No window system here: the viewer hands over a
//! surface made from its window.

use super::bindings::{BindingTable, Resources, Slot};
use super::shaders::{PRESENT, shader_source};
use super::{GpuContext, GpuError};

/// What happened to one frame's presentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presented {
    /// On screen.
    Shown,
    /// Nothing shown this time: the window is minimised (0×0) or occluded, or acquiring timed
    /// out. The next frame tries again.
    Skipped,
    /// The surface was configured anew: after showing a suboptimal frame, or instead of showing
    /// the frame when the surface was outdated or lost.
    Reconfigured,
}

/// `present.wgsl`: the frame drawn into the window.
pub const PRESENT_BINDINGS: BindingTable = BindingTable {
    label: "voxgpu.present",
    shaders: &[PRESENT],
    partial_shaders: &[],
    slots: &[Slot::texture("frame")],
};

/// A window's surface and the pipeline that copies the renderer's colour target into it: one
/// full-screen triangle per frame into the surface texture viewed as sRGB, then the caller's
/// overlay passes, then presentation. Configured for FIFO (vsync) where the surface offers it.
pub struct Presenter {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The format the pipeline writes: the surface's format viewed as sRGB.
    view_format: wgpu::TextureFormat,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// The bind group of the frame texture last presented: made again only when the renderer's
    /// target is replaced (a resize), not every frame.
    source: Option<(wgpu::Texture, wgpu::BindGroup)>,
    device: wgpu::Device,
    queue: wgpu::Queue,
}

impl Presenter {
    /// Configures `surface` at `width`×`height` (0×0 allowed: nothing is shown until a resize).
    pub fn new(
        gpu: &GpuContext,
        surface: wgpu::Surface<'static>,
        width: u32,
        height: u32,
    ) -> Result<Self, GpuError> {
        let caps = surface.get_capabilities(&gpu.adapter);
        // Prefer an sRGB format; otherwise view the first one as sRGB, so the frame's bytes land
        // unchanged either way.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| GpuError::Surface(format!("{} cannot present to this window", gpu.summary)))?;
        let view_format = format.add_srgb_suffix();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: width.max(1),
            height: height.max(1),
            present_mode: if caps.present_modes.contains(&wgpu::PresentMode::Fifo) {
                wgpu::PresentMode::Fifo
            } else {
                caps.present_modes[0]
            },
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: if view_format == format { vec![] } else { vec![view_format] },
        };
        let device = gpu.device.clone();
        let layout = PRESENT_BINDINGS.layout(&device);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("voxgpu.present"),
            source: wgpu::ShaderSource::Wgsl(shader_source(PRESENT).into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("voxgpu.present"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("voxgpu.present"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_present"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_present"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: view_format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let presenter = Self {
            surface,
            config,
            view_format,
            pipeline,
            layout,
            source: None,
            device,
            queue: gpu.queue.clone(),
        };
        if width > 0 && height > 0 {
            presenter.surface.configure(&presenter.device, &presenter.config);
        }
        Ok(presenter)
    }

    /// The window's new size in pixels. A zero side (minimised) leaves the surface as it was;
    /// frames are skipped until a real size arrives.
    pub fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.device, &self.config);
    }

    /// The format passes into the surface must use (the surface's, viewed as sRGB).
    pub fn format(&self) -> wgpu::TextureFormat {
        self.view_format
    }

    /// The surface's configured size.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Copies `frame` (the renderer's colour target, the surface's size) into the window, then
    /// lets `overlay` record its own passes over it (the frame's last pass: the overlay hook).
    pub fn present(
        &mut self,
        frame: &wgpu::Texture,
        overlay: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::TextureView, (u32, u32)),
    ) -> Presented {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => t,
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                // Show this one; configure for the next.
                self.present_into(frame, t, overlay);
                self.surface.configure(&self.device, &self.config);
                return Presented::Reconfigured;
            }
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Presented::Reconfigured;
            }
            _ => return Presented::Skipped,
        };
        self.present_into(frame, texture, overlay);
        Presented::Shown
    }

    fn present_into(
        &mut self,
        frame: &wgpu::Texture,
        target: wgpu::SurfaceTexture,
        overlay: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::TextureView, (u32, u32)),
    ) {
        let view = target.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        if self.source.as_ref().is_none_or(|(texture, _)| texture != frame) {
            // Read through an sRGB view, so the shader sees linear colour whichever of the two
            // RGBA8 formats the frame's texture has (`Offscreen`'s is stored to as plain RGBA8).
            let source = frame.create_view(&wgpu::TextureViewDescriptor {
                format: Some(frame.format().add_srgb_suffix()),
                usage: Some(wgpu::TextureUsages::TEXTURE_BINDING),
                ..Default::default()
            });
            let resources = Resources::new().texture("frame", &source);
            let group = PRESENT_BINDINGS.bind_group(&self.device, &self.layout, &resources);
            self.source = Some((frame.clone(), group));
        }
        let group = &self.source.as_ref().expect("made above").1;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.present") });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("voxgpu.present"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..3, 0..1);
        }
        overlay(&mut encoder, &view, (target.texture.width(), target.texture.height()));
        self.queue.submit([encoder.finish()]);
        self.queue.present(target);
    }
}
