//! Blocking reads of GPU data: screenshots, tests, `stats`. Never on the frame's critical path.

use super::GpuError;

/// Maps `buffer` (MAP_READ), waits for the GPU and returns a copy of its bytes.
pub fn map_blocking(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| GpuError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    let bytes = buffer.get_mapped_range(..).map_err(|e| GpuError::Readback(e.to_string()))?.to_vec();
    buffer.unmap();
    Ok(bytes)
}

/// Copies `size` bytes of `source` from `offset` and returns them.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.readback"),
        size: size.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.readback") });
    if size > 0 {
        encoder.copy_buffer_to_buffer(source, offset, &staging, 0, size);
    }
    queue.submit([encoder.finish()]);
    let mut bytes = map_blocking(device, &staging)?;
    bytes.truncate(size as usize);
    Ok(bytes)
}

/// An image read back from the GPU: 8-bit sRGB RGBA, rows top to bottom, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, row-major from the top-left pixel.
    pub rgba: Vec<u8>,
}

/// Reads an RGBA8 texture (`Rgba8UnormSrgb`, or `Rgba8Unorm` holding sRGB as `Offscreen`'s does)
/// byte for byte.
pub fn read_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<Pixels, GpuError> {
    let (width, height) = (texture.width(), texture.height());
    let unpadded = width * 4;
    let padded = unpadded.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.readback.texture"),
        size: padded as u64 * height as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.readback") });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let bytes = map_blocking(device, &buffer)?;
    let mut pixels = Vec::with_capacity((unpadded * height) as usize);
    for row in bytes.chunks_exact(padded as usize) {
        pixels.extend_from_slice(&row[..unpadded as usize]);
    }
    Ok(Pixels { width, height, rgba: pixels })
}
