//! `voxgpu export`: a box of a world (a store's, with its edits, or any `--world`) written as a
//! MagicaVoxel `.vox` file with its palette.

use std::path::PathBuf;

use clap::Args;
use glam::{IVec3, Vec3, Vec3Swizzles};

use super::{CliError, WorldArgs, parse_vec3};
use crate::session::{Residency, SessionPlan, WorldConfig};
use voxgpu_core::voxel::CHUNK_SIZE;
use voxgpu_worlds::worldgen::{WorldSource, export_vox, solid_bounds};

/// Half the width of the box a terrain export takes by default: 3×3 chunk columns.
const TERRAIN_HALF_WIDTH: i32 = 48;
/// The largest terrain box, in chunks from its centre: terrain is generated whole up to this.
const MAX_TERRAIN_EXPORT_CHUNKS: u32 = 8;

/// The export's flags.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// Output `.vox` path.
    #[arg(long)]
    pub out: PathBuf,
    /// The box to write, `X0,Y0,Z0:X1,Y1,Z1` in blocks (the second corner exclusive), at most
    /// 1024 a side. Default: every block of a bounded world; 3×3 chunk columns around the
    /// origin of terrain.
    #[arg(long, value_parser = parse_region, allow_hyphen_values = true)]
    pub region: Option<(IVec3, IVec3)>,
    #[command(flatten)]
    pub world: WorldArgs,
}

/// `X0,Y0,Z0:X1,Y1,Z1` into its two corners.
fn parse_region(s: &str) -> Result<(IVec3, IVec3), String> {
    let (a, b) = s.split_once(':').ok_or_else(|| format!("{s:?} is not a region X0,Y0,Z0:X1,Y1,Z1"))?;
    let (a, b) = (parse_vec3(a)?, parse_vec3(b)?);
    let (a, b) = (a.floor().as_ivec3(), b.floor().as_ivec3());
    if a.cmpge(b).any() {
        return Err(format!("{s:?}: the second corner must be greater on every axis"));
    }
    Ok((a, b))
}

pub fn run(args: &ExportArgs) -> Result<(), CliError> {
    // Export reads a store; it never creates one.
    if let Some(path) = &args.world.store
        && !voxgpu_store::Store::exists_at(path)?
    {
        return Err(CliError::Usage(format!("{}: no world store there", path.display())));
    }
    // Terrain is generated whole around the box's centre, in a circle of chunk columns that
    // must reach the box's corners.
    let half = args.region.map_or(TERRAIN_HALF_WIDTH, |(a, b)| ((b - a) / 2).xz().max_element() + 1);
    let chunks = (half as f32 * std::f32::consts::SQRT_2 / CHUNK_SIZE as f32).ceil() as u32 + 1;
    let config = WorldConfig { view_distance: chunks.min(MAX_TERRAIN_EXPORT_CHUNKS), ..args.world.config() };
    let centre = args.region.map_or(Vec3::ZERO, |(a, b)| ((a + b) / 2).as_vec3());
    let plan = SessionPlan::new(config, Residency::WholeWhereExact, (Some(centre + Vec3::Y), None))?;
    let terrain = plan.config().source == WorldSource::Terrain;
    if terrain && chunks > MAX_TERRAIN_EXPORT_CHUNKS {
        return Err(CliError::Usage(format!(
            "--region: a terrain export reaches at most {} blocks from its centre along x and z",
            ((MAX_TERRAIN_EXPORT_CHUNKS - 1) as f32 * CHUNK_SIZE as f32 / std::f32::consts::SQRT_2) as u32
        )));
    }
    let world = plan.world();
    let (min, max) = match args.region {
        Some(region) => region,
        None => {
            let (lo, hi) =
                solid_bounds(world).ok_or_else(|| CliError::Usage("the world holds no blocks".into()))?;
            if terrain {
                let h = IVec3::new(TERRAIN_HALF_WIDTH, 0, TERRAIN_HALF_WIDTH);
                ((-h).with_y(lo.y), h.with_y(hi.y))
            } else {
                (lo, hi)
            }
        }
    };
    let exported = export_vox(world, min, max, &args.out)?;
    println!(
        "wrote {}: {} voxels in {} colours, {} model(s), the box {:?}..{:?}",
        args.out.display(),
        exported.voxels,
        exported.colours,
        exported.models,
        min.to_array(),
        max.to_array()
    );
    Ok(())
}
