//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

pub mod browser;
pub mod crack;
pub mod xvfb;

use std::collections::BTreeSet;

use glam::{IVec3, Vec3};
use voxgpu::gpu::GpuContext;
use voxgpu::mesh::{ChunkMesh, Face, PackedQuad, Quad};
use voxgpu::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, World, chunk_aabb};

/// A small deterministic PRNG (splitmix64), so tests need no extra crate and are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One visible unit face: direction, block position in the chunk, block.
pub type UnitFace = (Face, [u32; 3], BlockId);

/// The naive reference: for every voxel and direction, apply the face rule directly.
/// `neighbours[f]` is the chunk across face `f`, or `None` (exposed).
pub fn naive_faces(chunk: &Chunk, neighbours: &[Option<&Chunk>; 6], opaque: &[bool]) -> BTreeSet<UnitFace> {
    let n = CHUNK_SIZE as i32;
    let is_opaque = |b: BlockId| opaque.get(b.0 as usize).copied().unwrap_or(false);
    let mut out = BTreeSet::new();
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let b = chunk.get(x as usize, y as usize, z as usize);
                if b.is_air() {
                    continue;
                }
                for face in Face::ALL {
                    let p = IVec3::new(x, y, z) + face.normal();
                    let inside = p.cmpge(IVec3::ZERO).all() && p.cmplt(IVec3::splat(n)).all();
                    let next = if inside {
                        chunk.get(p.x as usize, p.y as usize, p.z as usize)
                    } else {
                        let q = p.rem_euclid(IVec3::splat(n));
                        neighbours[face as usize]
                            .map(|c| c.get(q.x as usize, q.y as usize, q.z as usize))
                            .unwrap_or(BlockId::AIR)
                    };
                    if !is_opaque(next) && next != b {
                        out.insert((face, [x as u32, y as u32, z as u32], b));
                    }
                }
            }
        }
    }
    out
}

/// The world-space box a quad of the chunk at `pos` covers (flat along its normal).
pub fn quad_world_box(pos: ChunkPos, q: &Quad) -> (Vec3, Vec3) {
    let n = q.face.axis();
    let mut lo = q.min.as_vec3();
    lo[n] += q.face.is_positive() as u32 as f32;
    let mut hi = lo;
    hi[(n + 1) % 3] += q.size[0] as f32;
    hi[(n + 2) % 3] += q.size[1] as f32;
    let origin = pos.origin().as_vec3();
    (origin + lo, origin + hi)
}

/// Expands a mesh back into unit faces, failing on any face covered twice or any quad outside
/// the chunk's AABB (`chunk_aabb`, the one extent function culling uses).
pub fn mesh_faces(mesh: &ChunkMesh) -> BTreeSet<UnitFace> {
    let pos = ChunkPos::new(-3, 2, 5);
    let (min, max) = chunk_aabb(pos);
    let mut out = BTreeSet::new();
    for groups in [&mesh.opaque, &mesh.transparent] {
        for face in Face::ALL {
            for q in &groups.quads[groups.range(face)] {
                let q = q.unpack();
                assert_eq!(q.face, face, "quad stored in the wrong face group");
                let (lo, hi) = quad_world_box(pos, &q);
                assert!(lo.cmpge(min).all() && hi.cmple(max).all(), "quad leaves the chunk AABB: {q:?}");
                for p in q.unit_faces() {
                    assert!(out.insert((q.face, p.to_array(), q.block)), "unit face covered twice: {q:?}");
                }
            }
        }
    }
    out
}

/// Counts visible unit faces per direction over a whole world, naively.
pub fn naive_world_areas(world: &World) -> [u64; 6] {
    let opaque = world.registry.opaque_table();
    let mut areas = [0u64; 6];
    for pos in world.sorted_positions() {
        let chunk = world.chunk(pos).expect("listed");
        let neighbours = Face::ALL.map(|f| world.chunk(ChunkPos(pos.0 + f.normal())).map(|c| &**c));
        for (face, _, _) in naive_faces(chunk, &neighbours, &opaque) {
            areas[face as usize] += 1;
        }
    }
    areas
}

/// Every adapter to run GPU tests on: Vulkan and GL (or what `WGPU_BACKEND` names), Vulkan first.
///
/// Never skips silently: with no adapter it panics unless `VOXGPU_ALLOW_NO_GPU=1`, and with
/// `VOXGPU_REQUIRE_BACKENDS=vulkan,gl` (set by `.ci/run` once lavapipe is installed) each named
/// backend must be present.
pub fn gpu_contexts() -> Vec<GpuContext> {
    quiet_device_select();
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::GL);
    let mut contexts: Vec<GpuContext> = GpuContext::all(backends)
        .into_iter()
        .map(|c| c.expect("an adapter that exists opens a device"))
        .collect();
    contexts.sort_by_key(|c| c.summary.backend != wgpu::Backend::Vulkan);
    if let Ok(required) = std::env::var("VOXGPU_REQUIRE_BACKENDS") {
        for name in required.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let present =
                contexts.iter().any(|c| format!("{:?}", c.summary.backend).eq_ignore_ascii_case(name));
            assert!(present, "VOXGPU_REQUIRE_BACKENDS names {name}, but no {name} adapter was found");
        }
    }
    if contexts.is_empty() && !gpu_opt_out() {
        panic!("no GPU adapter found: install mesa-vulkan-drivers, or set VOXGPU_ALLOW_NO_GPU=1 to opt out");
    }
    if contexts.is_empty() {
        eprintln!("no adapter found; GPU checks NOT run (VOXGPU_ALLOW_NO_GPU=1)");
    }
    contexts
}

/// What the `voxgpu` binary does at start, so that the tests' own processes print no Mesa
/// device-select lines either: called before any test creates a wgpu instance.
pub fn quiet_device_select() {
    // SAFETY: every test makes its instances after this (through `gpu_contexts`), and the first
    // call sets the variable before any of them; other threads use the environment only through
    // `std::env`.
    unsafe { GpuContext::quiet_device_select() };
}

/// The documented opt-out for machines with no adapter at all.
pub fn gpu_opt_out() -> bool {
    std::env::var("VOXGPU_ALLOW_NO_GPU").as_deref() == Ok("1")
}

/// (face, kind, quad) triples: a mesh as a set, with each quad's face group and kind.
pub fn as_set(mesh: &ChunkMesh) -> BTreeSet<(usize, u8, PackedQuad)> {
    let mut set = BTreeSet::new();
    for (kind, groups) in [(0u8, &mesh.opaque), (1u8, &mesh.transparent)] {
        for face in Face::ALL {
            for q in &groups.quads[groups.range(face)] {
                assert!(set.insert((face as usize, kind, *q)), "duplicate quad {:?}", q.unpack());
            }
        }
    }
    set
}

/// Terrain with its water turned to sand. Transparent command groups of different chunks with
/// the same sort key (the same distance key and face slot) keep no defined order, so where two
/// of them overlap the blend can vary between runs; pixel-exact comparisons need an opaque world.
pub fn opaque_terrain(seed: u64, view_distance: u32) -> World {
    use voxgpu::worldgen::{WorldParams, WorldSource, generate};
    let world = generate(&WorldSource::Terrain, &WorldParams { seed, center: IVec3::ZERO, view_distance })
        .expect("terrain");
    let mut opaque = World::new(world.registry.clone());
    for (pos, chunk) in world.chunks() {
        let mut chunk = Chunk::clone(chunk);
        for v in chunk.voxels_mut() {
            if !v.is_air() && !world.registry.is_opaque(*v) {
                *v = voxgpu::voxel::blocks::SAND;
            }
        }
        opaque.insert(pos, chunk);
    }
    opaque
}

/// A FLIP error above this is a clearly visible difference at that pixel.
pub const VISIBLE_ERROR: f32 = 0.3;
/// The largest mean FLIP error (0 = identical, 1 = maximal) a picture may have against its
/// reference: rasterisation and interpolation differ slightly between adapters.
pub const MEAN_FLIP_THRESHOLD: f32 = 0.01;
/// However small the mean, the share of pixels with a clearly visible error is capped too.
pub const MAX_VISIBLE_ERROR_SHARE: f32 = 0.002;

/// A FLIP comparison of two same-sized pictures.
pub struct Flip {
    /// Mean FLIP error.
    pub mean: f32,
    /// Share of pixels above [`VISIBLE_ERROR`].
    pub visible: f32,
    /// The error, colour-mapped, for a person to look at.
    pub difference: image::RgbImage,
}

impl Flip {
    /// Within [`MEAN_FLIP_THRESHOLD`] and [`MAX_VISIBLE_ERROR_SHARE`].
    pub fn passes(&self) -> bool {
        self.mean <= MEAN_FLIP_THRESHOLD && self.visible <= MAX_VISIBLE_ERROR_SHARE
    }
}

impl std::fmt::Display for Flip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mean FLIP {:.5} (max {MEAN_FLIP_THRESHOLD}), visible errors {:.3}% (max {:.3}%)",
            self.mean,
            self.visible * 100.0,
            MAX_VISIBLE_ERROR_SHARE * 100.0
        )
    }
}

/// The one picture comparison of the tests: NVIDIA's FLIP between `reference` and `actual`.
pub fn flip(reference: &image::RgbaImage, actual: &image::RgbaImage) -> Flip {
    let (w, h) = reference.dimensions();
    let rgb = |img: &image::RgbaImage| img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<u8>>();
    let r = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(reference));
    let a = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(actual));
    let error = nv_flip::flip(r, a, nv_flip::DEFAULT_PIXELS_PER_DEGREE);
    let mean = nv_flip::FlipPool::from_image(&error).mean();
    let values = error.to_vec();
    let visible = values.iter().filter(|&&e| e > VISIBLE_ERROR).count() as f32 / values.len() as f32;
    let colored = error.apply_color_lut(&nv_flip::magma_lut());
    let difference = image::RgbImage::from_raw(w, h, colored.to_vec()).expect("sized");
    Flip { mean, visible, difference }
}

/// Compares `actual` with the reference `tests/golden/<file>.png`; on a difference beyond the
/// thresholds writes `tests/output/<label>-actual.png` and `-difference.png` and returns the
/// failure's line. With `VOXGPU_BLESS=1` and `bless_this` it rewrites the reference instead.
pub fn compare_golden(
    file: &str,
    label: &str,
    actual: &image::RgbaImage,
    bless_this: bool,
) -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference_path = root.join(format!("tests/golden/{file}.png"));
    if bless_this && std::env::var("VOXGPU_BLESS").as_deref() == Ok("1") {
        actual.save(&reference_path).expect("write reference");
        eprintln!("blessed {}", reference_path.display());
        return Ok(());
    }
    let reference = image::open(&reference_path)
        .unwrap_or_else(|e| {
            panic!("{}: {e} (run with VOXGPU_BLESS=1 to create it)", reference_path.display())
        })
        .to_rgba8();
    let result = flip(&reference, actual);
    eprintln!("{label:<28} {result}");
    if result.passes() {
        return Ok(());
    }
    let out = root.join("tests/output");
    std::fs::create_dir_all(&out).expect("create tests/output");
    actual.save(out.join(format!("{label}-actual.png"))).expect("write actual");
    result.difference.save(out.join(format!("{label}-difference.png"))).expect("write difference");
    Err(format!("{label}: {result}; see {}/{label}-actual.png and -difference.png", out.display()))
}

/// The last frame of an offscreen renderer as an `image` buffer.
pub trait ReadImage {
    fn read_image(&self) -> Result<image::RgbaImage, voxgpu::gpu::GpuError>;
}

impl ReadImage for voxgpu::gpu::Offscreen {
    fn read_image(&self) -> Result<image::RgbaImage, voxgpu::gpu::GpuError> {
        self.read_pixels().map(voxgpu::to_image)
    }
}

/// The one renderer builder of the tests: an offscreen renderer on `gpu` with every chunk of
/// `world` resident.
pub fn renderer(
    gpu: &GpuContext,
    world: &World,
    options: voxgpu::gpu::RendererOptions,
) -> voxgpu::gpu::Offscreen {
    let mut r = voxgpu::gpu::Offscreen::new(gpu, options, &world.registry).expect("renderer");
    for (pos, chunk) in world.chunks() {
        r.insert_chunk(pos, std::sync::Arc::clone(chunk)).expect("chunk fits");
    }
    r
}

/// `voxgpu profile`'s flags (`flags`, split at whitespace) parsed as its command line parses them,
/// defaults and checks included.
pub fn profile_args(flags: &str) -> voxgpu::cli::profile::ProfileArgs {
    #[derive(clap::Parser)]
    struct Profile {
        #[command(flatten)]
        args: voxgpu::cli::profile::ProfileArgs,
    }
    let line = std::iter::once("profile").chain(flags.split_whitespace());
    <Profile as clap::Parser>::try_parse_from(line).expect("valid profile flags").args
}

/// The wgpu errors a device reports, collected instead of wgpu's panic: a test making many calls
/// checks after each and fails with the call that caused one.
#[derive(Clone, Default)]
pub struct WgpuErrors(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl WgpuErrors {
    /// Sends `device`'s uncaptured errors (validation, out of memory, internal) here, replacing
    /// its handler.
    pub fn watch(&self, device: &wgpu::Device) {
        let errors = std::sync::Arc::clone(&self.0);
        device.on_uncaptured_error(std::sync::Arc::new(move |error: wgpu::Error| {
            errors.lock().unwrap_or_else(|e| e.into_inner()).push(error.to_string());
        }));
    }

    /// The errors reported since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
