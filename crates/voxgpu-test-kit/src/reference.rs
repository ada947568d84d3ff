//! The references tests compare against: a small deterministic PRNG, the naive face rule, quad
//! sets, and the test worlds and renderers built from them.

use std::collections::BTreeSet;

use glam::{IVec3, Vec3};
use voxgpu_core::mesh::{ChunkMesh, Face, PackedQuad, Quad};
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, World, chunk_aabb};
use voxgpu_engine::{GpuContext, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

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

/// Whether a GPU mesh is the twin's: the same quads as sets, and for every face the same bounds
/// (the cells its quads cover, which occlusion culling tests against).
pub fn same_mesh(gpu: &voxgpu_engine::low_level::GpuChunkMesh, twin: &ChunkMesh) -> bool {
    as_set(&gpu.mesh) == as_set(twin)
        && Face::ALL.iter().all(|&f| gpu.bounds[f as usize] == twin.face_bounds(f))
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
///
/// Built once per (seed, view distance) in a test binary and handed out as clones (a world's
/// chunks are shared, so a clone is cheap and editing it copies only the chunks edited).
pub fn opaque_terrain(seed: u64, view_distance: u32) -> World {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Built = Arc<OnceLock<World>>;
    static BUILT: OnceLock<Mutex<HashMap<(u64, u32), Built>>> = OnceLock::new();
    let slot = Arc::clone(
        BUILT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((seed, view_distance))
            .or_default(),
    );
    slot.get_or_init(|| build_opaque_terrain(seed, view_distance)).clone()
}

fn build_opaque_terrain(seed: u64, view_distance: u32) -> World {
    let world = generated(&WorldSource::Terrain, &WorldParams { seed, center: IVec3::ZERO, view_distance });
    let mut opaque = World::new(world.registry.clone());
    for (pos, chunk) in world.chunks() {
        let mut chunk = Chunk::clone(chunk);
        for v in chunk.voxels_mut() {
            if !v.is_air() && !world.registry.is_opaque(*v) {
                *v = voxgpu_core::voxel::blocks::SAND;
            }
        }
        opaque.insert(pos, chunk);
    }
    opaque
}

/// The one renderer builder of the tests: an offscreen renderer on `gpu` with every chunk of
/// `world` resident.
pub fn renderer(gpu: &GpuContext, world: &World, options: RendererOptions) -> Offscreen {
    let mut r = Offscreen::new(gpu, options, &world.registry).expect("renderer");
    for (pos, chunk) in world.chunks() {
        r.insert_chunk(pos, std::sync::Arc::clone(chunk)).expect("chunk fits");
    }
    r
}

/// `worldgen::generate(source, params)`, generated once per (source, params) in a test binary and
/// handed out as clones (cheap: the chunks are shared, and editing a clone copies only the chunks
/// it edits). Panics where the world does not generate.
pub fn generated(source: &WorldSource, params: &WorldParams) -> World {
    use std::sync::{Arc, Mutex, OnceLock};
    type Built = Vec<((WorldSource, WorldParams), Arc<OnceLock<World>>)>;
    static BUILT: Mutex<Built> = Mutex::new(Vec::new());
    let slot = {
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        let key = (source.clone(), *params);
        match built.iter().find(|(k, _)| *k == key) {
            Some((_, slot)) => Arc::clone(slot),
            None => {
                let slot = Arc::new(OnceLock::new());
                built.push((key, Arc::clone(&slot)));
                slot
            }
        }
    };
    slot.get_or_init(|| generate(source, params).expect("the world generates")).clone()
}
