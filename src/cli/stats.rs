//! `voxgpu stats`: quads and unit-face area per face direction, from the CPU reference mesher.

use clap::Args;
use glam::Vec3;

use super::{CliError, WorldArgs};
use crate::mesh::{MeshStats, mesh_world_chunk};
use crate::worldgen;

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub world: WorldArgs,
}

pub fn run(args: &StatsArgs) -> Result<(), CliError> {
    let world = worldgen::generate(&args.world.world, &args.world.params(Vec3::ZERO))?;
    let mut stats = MeshStats::default();
    for pos in world.sorted_positions() {
        stats.add(&mesh_world_chunk(&world, pos));
    }
    if args.json {
        println!("{}", serde_json::to_string(&stats).expect("plain struct serialises"));
    } else {
        print!("{}", stats.table());
    }
    Ok(())
}
