//! How frames reach the canvas.
//!
//! - [`Present::Canvas`], the default: the canvas's WebGPU context; frames are drawn straight
//!   into its texture through an sRGB view.
//! - [`Present::Copy`] (`?present=copy`): frames are drawn into a texture of the renderer's
//!   own, copied to a buffer, mapped, and put into the canvas's 2D context. One frame's copy is
//!   in flight at a time; the canvas shows the newest that has arrived. It costs a read-back per
//!   frame, and exists for headless Chromium on SwiftShader (Chromium 156), where taking a
//!   WebGPU canvas texture breaks every later `mapAsync` of the device ("A valid external
//!   Instance reference no longer exists") and the canvas composites as blank, so that neither
//!   the renderer's counters nor a screenshot work there.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use voxgpu_engine::COLOR_FORMAT;

const IDLE: u8 = 0;
const PENDING: u8 = 1;
const MAPPED: u8 = 2;

pub enum Present {
    Canvas {
        surface: wgpu::Surface<'static>,
        config: wgpu::SurfaceConfiguration,
        /// The sRGB view of the canvas's format (the shaders write linear colour).
        view_format: wgpu::TextureFormat,
    },
    Copy(Box<CopyTarget>),
}

/// The copy path's texture, read-back buffer and 2D context.
pub struct CopyTarget {
    context: CanvasRenderingContext2d,
    view: wgpu::TextureView,
    texture: wgpu::Texture,
    readback: wgpu::Buffer,
    /// IDLE, PENDING (mapping) or MAPPED, set by the map callback.
    state: Arc<AtomicU8>,
    width: u32,
    height: u32,
    /// Bytes per row in `readback`: the width's, padded to the copy alignment.
    padded: u32,
}

/// What a frame draws into.
pub enum Frame {
    Canvas(wgpu::SurfaceTexture, wgpu::TextureView),
    Copy,
}

impl CopyTarget {
    fn new(device: &wgpu::Device, context: CanvasRenderingContext2d, width: u32, height: u32) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("voxgpu.web.frame"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("voxgpu.web.frame.readback"),
            size: padded as u64 * height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            context,
            view: texture.create_view(&Default::default()),
            texture,
            readback,
            state: Arc::new(AtomicU8::new(IDLE)),
            width,
            height,
            padded,
        }
    }

    /// Puts the frame that arrived, if one did, into the canvas.
    fn show_arrived(&self) -> Result<(), String> {
        if self.state.load(Ordering::Acquire) != MAPPED {
            return Ok(());
        }
        let rows = self.readback.get_mapped_range(..).map_err(|e| format!("reading a frame back: {e:?}"))?;
        let unpadded = (self.width * 4) as usize;
        let mut pixels = Vec::with_capacity(unpadded * self.height as usize);
        for row in rows.chunks(self.padded as usize) {
            pixels.extend_from_slice(&row[..unpadded]);
        }
        // The frame is opaque: what transparent faces leave in alpha is not coverage, and the
        // page must not show through.
        pixels.iter_mut().skip(3).step_by(4).for_each(|a| *a = 255);
        drop(rows);
        self.readback.unmap();
        self.state.store(IDLE, Ordering::Release);
        let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&pixels), self.width, self.height)
            .map_err(crate::page::js_message)?;
        self.context.put_image_data(&image, 0.0, 0.0).map_err(crate::page::js_message)
    }
}

impl Present {
    /// The canvas's WebGPU context.
    pub fn canvas(
        surface: wgpu::Surface<'static>,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        size: (u32, u32),
    ) -> Result<Self, String> {
        let caps = surface.get_capabilities(adapter);
        let format = *caps.formats.first().ok_or("the canvas offers no format")?;
        let view_format = format.add_srgb_suffix();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.0,
            height: size.1,
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            // The frame is opaque: what transparent faces leave in alpha is not coverage.
            alpha_mode: if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
                wgpu::CompositeAlphaMode::Opaque
            } else {
                caps.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto)
            },
            view_formats: vec![view_format],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(device, &config);
        Ok(Present::Canvas { surface, config, view_format })
    }

    /// The copy path, into the canvas's 2D context.
    pub fn copy(canvas: &HtmlCanvasElement, device: &wgpu::Device, size: (u32, u32)) -> Result<Self, String> {
        let context: CanvasRenderingContext2d = canvas
            .get_context("2d")
            .map_err(crate::page::js_message)?
            .ok_or("the canvas has no 2D context")?
            .dyn_into()
            .map_err(|_| "not a 2D context")?;
        Ok(Present::Copy(Box::new(CopyTarget::new(device, context, size.0, size.1))))
    }

    /// The colour format frames are drawn in.
    pub fn format(&self) -> wgpu::TextureFormat {
        match self {
            Present::Canvas { view_format, .. } => *view_format,
            Present::Copy(_) => COLOR_FORMAT,
        }
    }

    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        match self {
            Present::Canvas { surface, config, .. } => {
                config.width = width;
                config.height = height;
                surface.configure(device, config);
            }
            Present::Copy(target) => {
                let context = target.context.clone();
                **target = CopyTarget::new(device, context, width, height);
            }
        }
    }

    /// The frame to draw into, or `None` to skip this one (the canvas is hidden, or was
    /// reconfigured). The copy path first shows the frame that arrived.
    pub fn begin(&mut self, device: &wgpu::Device) -> Result<Option<Frame>, String> {
        match self {
            Present::Canvas { surface, config, view_format } => {
                let texture = match surface.get_current_texture() {
                    wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
                    wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                        surface.configure(device, config);
                        return Ok(None);
                    }
                    // Hidden or slow: try again next frame.
                    _ => return Ok(None),
                };
                let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
                    format: Some(*view_format),
                    ..Default::default()
                });
                Ok(Some(Frame::Canvas(texture, view)))
            }
            Present::Copy(target) => {
                target.show_arrived()?;
                Ok(Some(Frame::Copy))
            }
        }
    }

    /// The view a frame is drawn into.
    pub fn view<'a>(&'a self, frame: &'a Frame) -> &'a wgpu::TextureView {
        match (self, frame) {
            (_, Frame::Canvas(_, view)) => view,
            (Present::Copy(target), Frame::Copy) => &target.view,
            (Present::Canvas { .. }, Frame::Copy) => unreachable!("a copy frame comes from the copy path"),
        }
    }

    /// Before submitting: the copy path copies the frame out when no copy is in flight.
    /// Returns whether it did.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> bool {
        let Present::Copy(target) = self else { return false };
        if target.state.load(Ordering::Acquire) != IDLE {
            return false;
        }
        encoder.copy_texture_to_buffer(
            target.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &target.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(target.padded),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d { width: target.width, height: target.height, depth_or_array_layers: 1 },
        );
        true
    }

    /// After submitting: presents the canvas texture, or maps the copy that `record` made.
    pub fn finish(&self, queue: &wgpu::Queue, frame: Frame, copied: bool) {
        match (self, frame) {
            (_, Frame::Canvas(texture, _)) => queue.present(texture),
            (Present::Copy(target), Frame::Copy) if copied => {
                let state = Arc::clone(&target.state);
                state.store(PENDING, Ordering::Release);
                target.readback.map_async(wgpu::MapMode::Read, .., move |result| {
                    state.store(if result.is_ok() { MAPPED } else { IDLE }, Ordering::Release);
                });
            }
            _ => {}
        }
    }
}
