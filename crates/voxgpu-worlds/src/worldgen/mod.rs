//! World sources: turns a `--world` choice into a populated [`World`] plus a camera that frames it.
//! Plain CPU data with no wgpu; every source is deterministic, so golden images and tests can rely
//! on the same seed giving the same blocks.

mod shapes;
mod terrain;
pub mod vox;

use std::path::PathBuf;
use std::str::FromStr;

use glam::{IVec2, IVec3, Vec3};

use voxgpu_core::voxel::blocks as builtin;
use voxgpu_core::voxel::{CHUNK_SIZE, World};

pub use terrain::{ChunkColumnEdit, EXACT_LEVELS, TerrainColumns};
pub use vox::{Exported, export_vox, sample_model, solid_bounds, vox_bytes};

/// Largest extent, per axis and in blocks, of an imported model once placed in the world.
///
/// Why a limit at all: a `.vox` scene graph can translate models arbitrarily far apart, and the
/// world stores every chunk between them that holds a voxel. 1024 blocks is 32 chunks per axis,
/// far beyond any real MagicaVoxel scene (the editor caps a scene at 2048 but models at 256), and
/// it keeps a hostile file from asking for gigabytes.
pub const MAX_MODEL_EXTENT: i32 = 1024;

/// Which world to build, as chosen by `--world`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorldSource {
    /// Seeded hills, caves, water and trees: the default.
    Terrain,
    /// Three flat layers: the simplest world that still has several materials.
    Flat,
    /// A 3D checkerboard: every solid block is isolated, the most quads per chunk of any world
    /// with air in it.
    Checker,
    /// A 3D checkerboard of water and glass filling its box: every face shows as its own quad,
    /// the most quads a face can hold.
    GlassChecker,
    /// A solid layered ball: curved surfaces in every face direction.
    Sphere,
    /// A MagicaVoxel model read from this path, with its own palette.
    Vox(PathBuf),
}

/// The names [`WorldSource::from_str`] accepts, for the error message and `--help`.
const SOURCE_NAMES: &str = "terrain, flat, checker, glass-checker, sphere, vox:PATH";

impl FromStr for WorldSource {
    type Err = WorldError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "terrain" => Ok(Self::Terrain),
            "flat" => Ok(Self::Flat),
            "checker" => Ok(Self::Checker),
            "glass-checker" => Ok(Self::GlassChecker),
            "sphere" => Ok(Self::Sphere),
            _ => match s.strip_prefix("vox:") {
                Some(path) if !path.is_empty() => Ok(Self::Vox(PathBuf::from(path))),
                _ => Err(WorldError::UnknownSource { name: s.to_string(), valid: SOURCE_NAMES }),
            },
        }
    }
}

impl std::fmt::Display for WorldSource {
    /// Writes the same spelling [`FromStr`] reads, so a source can be logged and passed back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Terrain => f.write_str("terrain"),
            Self::Flat => f.write_str("flat"),
            Self::Checker => f.write_str("checker"),
            Self::GlassChecker => f.write_str("glass-checker"),
            Self::Sphere => f.write_str("sphere"),
            Self::Vox(path) => write!(f, "vox:{}", path.display()),
        }
    }
}

/// What every source is generated around. Bounded sources (checker, sphere, vox) ignore
/// `center` and `view_distance`; only terrain reads `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldParams {
    /// Terrain seed. The same seed always gives the same blocks, whatever the thread count.
    pub seed: u64,
    /// The world block the view is centred on. Only `x` and `z` choose which columns exist.
    pub center: IVec3,
    /// Horizontal radius, in chunks, of the circle of chunk columns that terrain and flat
    /// generate. A column is generated when its centre lies inside the circle.
    pub view_distance: u32,
}

/// Why a world could not be built. Every message is one user-facing line, so the CLI can print
/// it as is and exit non-zero.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// `--world` named no known source.
    #[error("unknown world source '{name}' (expected one of: {valid})")]
    UnknownSource { name: String, valid: &'static str },
    /// The `.vox` path does not exist.
    #[error("MagicaVoxel file not found: {}", path.display())]
    VoxNotFound { path: PathBuf },
    /// The `.vox` path exists but could not be read (a directory, no permission, an I/O error).
    #[error("cannot read MagicaVoxel file {}: {source}", path.display())]
    VoxUnreadable { path: PathBuf, source: std::io::Error },
    /// The file is not a valid `.vox`, or its scene graph or models make no sense.
    #[error("malformed MagicaVoxel file {}: {reason}", path.display())]
    VoxMalformed { path: PathBuf, reason: String },
    /// The placed model is wider than [`MAX_MODEL_EXTENT`] on some axis (`size` is in world
    /// axes, Y up).
    #[error(
        "model {} is too large: {}x{}x{} blocks, the limit is {limit} blocks per axis",
        path.display(), size.x, size.y, size.z
    )]
    ModelTooLarge { path: PathBuf, size: IVec3, limit: i32 },
    /// An export box with no volume, or wider than a `.vox` file this importer reads back.
    #[error("export region of {size:?} blocks: each side must be 1 to {max}")]
    ExportRegion { size: [i32; 3], max: i32 },
    /// More distinct blocks in the export box than a palette holds.
    #[error("the export region holds more than {max} distinct blocks, more than a .vox palette holds")]
    ExportColours { max: usize },
    /// Nothing solid in the export box.
    #[error("the export region {min:?}..{max:?} holds no blocks")]
    ExportEmpty { min: [i32; 3], max: [i32; 3] },
    /// Writing the `.vox` file failed.
    #[error("cannot write {path}: {reason}")]
    ExportWrite { path: PathBuf, reason: String },
}

/// Largest view distance, in chunks, of a world generated whole at full detail: every source but
/// terrain, which streams level-of-detail nodes beyond 8 chunks.
pub const MAX_FULL_DETAIL_VIEW: u32 = 64;

/// Builds the world for `source`.
///
/// Terrain uses every available core; all other sources are small enough to build on one.
pub fn generate(source: &WorldSource, params: &WorldParams) -> Result<World, WorldError> {
    match source {
        WorldSource::Terrain => Ok(terrain::generate(params, available_threads())),
        WorldSource::Flat => Ok(shapes::flat(params)),
        WorldSource::Checker => Ok(shapes::checker()),
        WorldSource::GlassChecker => Ok(shapes::glass_checker()),
        WorldSource::Sphere => Ok(shapes::sphere()),
        WorldSource::Vox(path) => vox::load(path),
    }
}

/// A camera `(eye, target)` that frames `world` nicely for `source`.
///
/// Terrain is unbounded, so the camera stands about 40 blocks above the ground at `center` and
/// looks 100 blocks ahead and down, towards the horizon. Flat is the same idea closer to the
/// ground. Bounded worlds are viewed from a diagonal above, at 1.6 times the radius of their
/// tight voxel bounds, which fits the whole object in a 60-90 degree field of view.
pub fn default_view(source: &WorldSource, world: &World, params: &WorldParams) -> (Vec3, Vec3) {
    let column = IVec2::new(params.center.x, params.center.z);
    let ground = |fallback: i32| surface_height(world, column).unwrap_or(fallback) as f32 + 1.0;
    let at = |y: f32| Vec3::new(column.x as f32 + 0.5, y, column.y as f32 + 0.5);
    // Looking along +x/-z puts the low sun of the viewer's lighting to the side, not behind.
    let ahead = Vec3::new(1.0, 0.0, -1.0).normalize();
    match source {
        WorldSource::Terrain => {
            let eye = at(ground(terrain::SEA_LEVEL) + 40.0);
            (eye, eye + ahead * 100.0 - Vec3::Y * 40.0)
        }
        WorldSource::Flat => {
            let eye = at(ground(shapes::FLAT_SURFACE) + 20.0);
            (eye, eye + ahead * 60.0 - Vec3::Y * 20.0)
        }
        WorldSource::Checker | WorldSource::GlassChecker | WorldSource::Sphere | WorldSource::Vox(_) => {
            let Some((min, max)) = voxel_bounds(world) else {
                return (Vec3::new(32.0, 32.0, 32.0), Vec3::ZERO);
            };
            let (min, max) = (min.as_vec3(), max.as_vec3());
            let center = (min + max) * 0.5;
            let radius = ((max - min).length() * 0.5).max(1.0);
            let diagonal = Vec3::new(1.0, 0.8, 1.0).normalize();
            (center + diagonal * radius * 1.6, center)
        }
    }
}

/// Threads for terrain: one per core, as reported by the OS, and at least one.
fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Chunk columns `(cx, cz)` whose centre lies within `view_distance` chunks of `center`
/// (horizontally), sorted for deterministic iteration. The column holding `center` is always
/// included, so a view distance of 0 still shows the ground under the camera. Streaming uses the
/// same rule, so a streamed world holds what a generated one would.
pub fn columns_in_view(center: IVec3, view_distance: u32) -> Vec<IVec2> {
    let size = CHUNK_SIZE as i64;
    let home = IVec2::new(center.x, center.z).div_euclid(IVec2::splat(size as i32));
    let reach = i32::try_from(view_distance).unwrap_or(i32::MAX / 2).saturating_add(1);
    let radius = i64::from(view_distance) * size;
    let mut columns = Vec::new();
    for cz in home.y.saturating_sub(reach)..=home.y.saturating_add(reach) {
        for cx in home.x.saturating_sub(reach)..=home.x.saturating_add(reach) {
            let dx = i64::from(cx) * size + size / 2 - i64::from(center.x);
            let dz = i64::from(cz) * size + size / 2 - i64::from(center.z);
            if dx * dx + dz * dz <= radius * radius || IVec2::new(cx, cz) == home {
                columns.push(IVec2::new(cx, cz));
            }
        }
    }
    columns
}

/// The radius in blocks around the eye within which everything is loaded at a view distance of
/// `view_distance` chunks, generated ([`columns_in_view`]) or streamed
/// ([`crate::stream::plan::wanted_columns`]). Streaming keeps a column of the top level when its
/// centre lies within the view distance of the centre of the eye's chunk column, so what is
/// certainly loaded is the view distance less half a top-level column's diagonal and less the
/// eye's distance from its column's centre (up to half a chunk column's diagonal, 23 blocks):
/// 211 blocks at 8 chunks, 7,423 at 8,192 blocks, 29,827 at 32,768. At least 8 blocks. Haze
/// reaches the sky here, so the world never ends in view.
pub fn loaded_radius(view_distance: u32) -> f32 {
    let view = view_distance as f32 * CHUNK_SIZE as f32;
    let top = (CHUNK_SIZE << crate::stream::plan::top_level(view_distance)) as f32;
    let half_diagonal = |side: f32| side / std::f32::consts::SQRT_2;
    (view - half_diagonal(top) - half_diagonal(CHUNK_SIZE as f32)).max(8.0)
}

/// The y of the highest non-air block in a world column, if any.
fn surface_height(world: &World, column: IVec2) -> Option<i32> {
    let (min, max) = world.chunk_bounds()?;
    (min.y..max.y).rev().find(|&y| !world.block(IVec3::new(column.x, y, column.y)).is_air())
}

/// The tight box `[min, max)` around every non-air voxel, or `None` for an empty world.
/// Chunk bounds would be up to 31 blocks too loose per side and shift the framing.
fn voxel_bounds(world: &World) -> Option<(IVec3, IVec3)> {
    let size = CHUNK_SIZE;
    let mut bounds: Option<(IVec3, IVec3)> = None;
    for (pos, chunk) in world.chunks() {
        for (index, block) in chunk.voxels().iter().enumerate() {
            if block.is_air() {
                continue;
            }
            let local = IVec3::new(
                (index % size) as i32,
                (index / size % size) as i32,
                (index / (size * size)) as i32,
            );
            let p = pos.origin() + local;
            bounds = Some(match bounds {
                None => (p, p + IVec3::ONE),
                Some((lo, hi)) => (lo.min(p), hi.max(p + IVec3::ONE)),
            });
        }
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_names_round_trip_through_display() {
        let sources = [
            WorldSource::Terrain,
            WorldSource::Flat,
            WorldSource::Checker,
            WorldSource::GlassChecker,
            WorldSource::Sphere,
            WorldSource::Vox(PathBuf::from("assets/sample.vox")),
        ];
        for source in sources {
            let parsed: WorldSource = source.to_string().parse().expect("display output parses");
            assert_eq!(parsed, source);
        }
    }

    #[test]
    fn unknown_source_error_lists_the_valid_names() {
        for bad in ["hills", "vox:", "Terrain", ""] {
            let err = bad.parse::<WorldSource>().expect_err("not a source");
            assert!(matches!(&err, WorldError::UnknownSource { name, .. } if name == bad));
            let message = err.to_string();
            assert!(!message.contains('\n'));
            for name in ["terrain", "flat", "checker", "sphere", "vox:PATH"] {
                assert!(message.contains(name), "{message}");
            }
        }
    }

    #[test]
    fn view_circle_has_about_pi_r_squared_columns_and_always_the_home_column() {
        let columns = columns_in_view(IVec3::new(5, 70, -3), 4);
        assert!((44..=60).contains(&columns.len()), "{}", columns.len());
        let home = columns_in_view(IVec3::new(-40, 0, 100), 0);
        assert_eq!(home, vec![IVec2::new(-2, 3)]);
    }

    #[test]
    fn bounded_worlds_are_viewed_from_above_looking_at_their_centre() {
        let params = WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 };
        let world = generate(&WorldSource::Sphere, &params).expect("sphere builds");
        let (eye, target) = default_view(&WorldSource::Sphere, &world, &params);
        assert!((target - Vec3::new(0.0, 48.0, 0.0)).length() < 1.5, "{target}");
        assert!(eye.y > target.y && (eye - target).length() > 40.0 * 1.5);
    }

    #[test]
    fn terrain_view_stands_above_the_ground_and_looks_down() {
        let params = WorldParams { seed: 7, center: IVec3::new(10, 0, 10), view_distance: 1 };
        let world = generate(&WorldSource::Terrain, &params).expect("terrain builds");
        let (eye, target) = default_view(&WorldSource::Terrain, &world, &params);
        let ground = surface_height(&world, IVec2::new(10, 10)).expect("terrain has ground");
        assert!(eye.y > ground as f32 + 30.0);
        assert!(target.y < eye.y);
        let horizontal = Vec3::new(target.x - eye.x, 0.0, target.z - eye.z).length();
        assert!((90.0..=110.0).contains(&horizontal));
    }
}
