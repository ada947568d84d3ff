//! Renders a small procedural world offscreen and writes it to a PNG: the smallest complete use
//! of voxgpu, with no window.
//!
//! `cargo run --release -p voxgpu-engine --example headless -- out.png`

use std::error::Error;
use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_engine::{GpuContext, Offscreen, Pixels, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

/// The example's picture on `gpu`: terrain of 7×7 chunk columns, seen from above its corner.
pub fn render(gpu: &GpuContext, width: u32, height: u32) -> Result<Pixels, Box<dyn Error>> {
    // The world: every chunk within 3 chunks of the origin, generated on the CPU.
    let params = WorldParams { seed: 7, center: IVec3::ZERO, view_distance: 3 };
    let world = generate(&WorldSource::Terrain, &params)?;
    // A renderer with its own targets; fog reaches the sky at 160 blocks.
    let mut renderer = Offscreen::new(gpu, RendererOptions::new(width, height, 160.0), &world.registry)?;
    for (pos, chunk) in world.chunks() {
        renderer.insert_chunk(pos, Arc::clone(chunk))?;
    }
    let camera = Camera::look_at(Vec3::new(-70.0, 120.0, -70.0), Vec3::new(16.0, 48.0, 16.0));
    // Frames until every chunk is meshed, then the last one read back.
    renderer.settle(&camera)?;
    Ok(renderer.read_pixels()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { GpuContext::quiet_device_select() };
    let out = std::env::args().nth(1).unwrap_or_else(|| "headless.png".into());
    let gpu = GpuContext::new()?;
    let Pixels { width, height, rgba } = render(&gpu, 640, 360)?;
    image::RgbaImage::from_raw(width, height, rgba).ok_or("short frame")?.save(&out)?;
    println!("{out}: {width}×{height} on {}", gpu.summary);
    Ok(())
}
