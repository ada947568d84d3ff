//! `voxgpu stats`: quads and unit-face area per face direction, from the GPU mesher (default) or
//! the CPU reference. Both must print the same numbers.

use std::sync::Arc;

use clap::{Args, ValueEnum};
use glam::Vec3;

use super::{CliError, WorldArgs};
use crate::camera::Camera;
use crate::gpu::{GpuContext, Renderer, RendererOptions};
use crate::mesh::{MeshStats, cpu_threads, mesh_chunks_parallel};
use crate::worldgen;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mesher {
    /// The compute mesher, read back from the GPU.
    Gpu,
    /// The CPU reference mesher, on every core.
    Cpu,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Which mesher produces the quads.
    #[arg(long, value_enum, default_value_t = Mesher::Gpu)]
    pub mesher: Mesher,
    #[command(flatten)]
    pub world: WorldArgs,
}

pub fn run(args: &StatsArgs) -> Result<(), CliError> {
    let world = worldgen::generate(&args.world.world, &args.world.params(Vec3::ZERO))?;
    let positions = world.sorted_positions();
    let mut stats = MeshStats::default();
    match args.mesher {
        Mesher::Cpu => {
            for mesh in mesh_chunks_parallel(&world, &positions, cpu_threads()) {
                stats.add(&mesh);
            }
        }
        Mesher::Gpu => {
            let gpu = GpuContext::new()?;
            let mut renderer = Renderer::new(&gpu, RendererOptions::new(1, 1, 1.0), &world.registry)?;
            for (pos, chunk) in world.chunks() {
                renderer.insert_chunk(pos, Arc::clone(chunk))?;
            }
            renderer.settle(&Camera::look_at(Vec3::ZERO, Vec3::NEG_Z))?;
            for chunk in renderer.read_meshes()? {
                stats.add(&chunk.mesh);
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string(&stats).expect("plain struct serialises"));
    } else {
        print!("{}", stats.table());
    }
    Ok(())
}
