//! A world source written by the game: rolling hills from a height function, streamed around a
//! camera that flies across them, at every level of detail. Headless; writes the last frame.
//!
//! `cargo run --release -p voxgpu-engine --example custom_source -- out.png`
//!
//! A source is a function from a node column to its non-empty nodes. A level-`L` node is a 32³
//! grid of cells `2^L` blocks wide, so the same function serves full-detail chunks (level 0)
//! and the far field: here each cell samples the height function at its centre.

use std::error::Error;
use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockRegistry, CHUNK_SIZE, Chunk, NodeColumn, NodeKey, blocks};
use voxgpu_engine::{GpuContext, Offscreen, Pixels, RendererOptions};
use voxgpu_worlds::stream::{StreamSettings, Streamer};

/// Ground height in blocks at world column (x, z); always below `MAX_HEIGHT`.
fn height(x: f32, z: f32) -> f32 {
    40.0 + 14.0 * (x / 37.0).sin() * (z / 53.0).cos() + 6.0 * ((x + z) / 19.0).sin()
}
const MAX_HEIGHT: i32 = 64;

/// The nodes of one column: cells below the height are stone, the top cell grass.
fn column(c: NodeColumn) -> Vec<(NodeKey, Chunk)> {
    let size = CHUNK_SIZE as i32;
    let cell = 1i32 << c.level;
    let node_blocks = size * cell;
    let mut out = Vec::new();
    for ny in 0..(MAX_HEIGHT + node_blocks - 1) / node_blocks {
        let key = NodeKey::new(c.level, IVec3::new(c.xz.x, ny, c.xz.y));
        let origin = key.pos * node_blocks;
        let mut chunk = Chunk::empty();
        for x in 0..size {
            for z in 0..size {
                let centre = |i: i32, o: i32| (o + i * cell) as f32 + 0.5 * cell as f32;
                let h = height(centre(x, origin.x), centre(z, origin.z));
                for y in 0..size {
                    let cy = centre(y, origin.y);
                    if cy < h {
                        let block = if cy + cell as f32 >= h { blocks::GRASS } else { blocks::STONE };
                        chunk.set(x as usize, y as usize, z as usize, block);
                    }
                }
            }
        }
        if !chunk.is_empty() {
            out.push((key, chunk));
        }
    }
    out
}

/// Flies `frames` frames along +x at `speed` blocks per frame over the hills, streaming all the
/// way, then settles and returns the last frame.
pub fn fly(
    gpu: &GpuContext,
    width: u32,
    height_px: u32,
    frames: u32,
    speed: f32,
) -> Result<Pixels, Box<dyn Error>> {
    let view_chunks = 24;
    let fog_end = (view_chunks + 1) as f32 * CHUNK_SIZE as f32;
    let registry = BlockRegistry::builtin();
    let mut renderer = Offscreen::new(gpu, RendererOptions::new(width, height_px, fog_end), &registry)?;
    let settings = StreamSettings { lod: renderer.options().lod, ..StreamSettings::new(view_chunks) };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut streamer = Streamer::new(settings, threads, Arc::new(|c| Ok(column(c))));
    let camera_at = |frame: u32| {
        let eye = Vec3::new(frame as f32 * speed, 95.0, 20.0);
        Camera::look_at(eye, eye + Vec3::new(60.0, -35.0, 25.0))
    };
    for frame in 0..frames {
        let camera = camera_at(frame);
        streamer.update(camera.eye, &mut renderer)?;
        renderer.render(&camera)?;
    }
    let camera = camera_at(frames);
    streamer.settle(camera.eye, &mut renderer)?;
    renderer.settle(&camera)?;
    Ok(renderer.read_pixels()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { GpuContext::quiet_device_select() };
    let out = std::env::args().nth(1).unwrap_or_else(|| "custom_source.png".into());
    let gpu = GpuContext::new()?;
    let Pixels { width, height, rgba } = fly(&gpu, 640, 360, 240, 2.0)?;
    image::RgbaImage::from_raw(width, height, rgba).ok_or("short frame")?.save(&out)?;
    println!("{out}: {width}×{height} on {}", gpu.summary);
    Ok(())
}
