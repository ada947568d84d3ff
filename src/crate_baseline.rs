//! The off-the-shelf CPU mesher a user would pick, the `binary-greedy-meshing` crate (0.5), run on
//! voxgpu's chunks, so `voxgpu bench` holds the GPU mesher against it as well as against the twin.
//!
//! The crate's 0.5 API is `Mesher::<CS>::fast_mesh(voxels, opaque_mask, trans_mask)`, here with
//! `CS = 32` (one voxgpu chunk):
//!
//! - `voxels`: `u16` ids of a `34³` grid, the chunk plus one padding layer on each side, indexed
//!   `z + 34 * (x + 34 * y)` in padded coordinates (`pad_linearize::<32>(x, y, z)` is the chunk's
//!   voxel `(x, y, z)`). voxgpu's x, y and z are the crate's x, y and z. The padding holds the
//!   facing layer of each resident face neighbour and air where a neighbour is absent, as voxgpu's
//!   own meshers treat an absent neighbour; the edge and corner cells of the padding are never
//!   read.
//! - `opaque_mask`: one `u64` per padded `(x, y)` column, index `x + 34 * y`, bit `z` set where the
//!   voxel is opaque (`compute_opaque_mask`).
//! - `trans_mask`: the same for transparent voxels. The crate's transparency rule is not voxgpu's
//!   and the twin is compared with every block opaque, so every non-air block is opaque here and
//!   this mask is all zero.
//!
//! Its output is `quads: [Vec<Quad>; 6]`, one group per direction in the crate's order Up, Down,
//! Right, Left, Front, Back, which on these axes is +Y, −Y, +X, −X, +Z, −Z ([`CRATE_FACES`]).
//! Each quad packs its id and a `width × height` in unit faces. The crate has no levels of detail
//! and no ambient occlusion, so it always meshes full detail.

use std::cell::RefCell;
use std::collections::BTreeSet;

use binary_greedy_meshing as bgm;

use voxgpu_core::mesh::{Face, Neighbours, Surroundings};
use voxgpu_core::mesh::{Grid, mesh_grid};
use voxgpu_core::voxel::{CHUNK_SIZE, Chunk, ChunkPos, World};

/// The crate's name and version, as the bench reports it. A unit test checks the version against
/// `Cargo.lock`.
pub const CRATE_NAME: &str = "binary-greedy-meshing 0.5.2";

const CS: usize = CHUNK_SIZE;
type Mesher = bgm::Mesher<CS>;
/// Side of the padded grid.
const CS_P: usize = Mesher::CS_P;

/// The voxgpu face of each of the crate's face groups (Up, Down, Right, Left, Front, Back).
pub const CRATE_FACES: [Face; 6] = [Face::PosY, Face::NegY, Face::PosX, Face::NegX, Face::PosZ, Face::NegZ];

/// The crate's transparency mask for a chunk with no transparent voxel.
static NO_TRANSPARENT: [u64; Mesher::CS_P2] = [0; Mesher::CS_P2];

thread_local! {
    /// One mesher per thread, reused from chunk to chunk within a run as the crate intends (its
    /// buffers are cleared, not reallocated; `map_parallel` starts fresh threads each run, so
    /// each run builds one per thread); [`voxgpu_core::mesh::map_parallel`] takes a shared closure, so
    /// the mesher cannot be an argument.
    static MESHER: RefCell<Mesher> = RefCell::new(Mesher::new());
}

/// A chunk as the crate reads it: the padded ids and their opacity columns (see the module doc).
pub struct CrateInput {
    voxels: Box<[u16]>,
    opaque: Box<[u64]>,
}

/// Index of padded cell `p` (each coordinate `0..34`) in the crate's voxel grid.
fn padded_index(p: [usize; 3]) -> usize {
    p[2] + CS_P * (p[0] + CS_P * p[1])
}

impl CrateInput {
    /// `chunk` padded with the facing layers of `faces` ([`Face`] order; `None` is air), every
    /// non-air block opaque.
    pub fn new(chunk: &Chunk, faces: [Option<&Chunk>; 6]) -> Self {
        let mut voxels = vec![0u16; Mesher::CS_P3].into_boxed_slice();
        for z in 0..CS {
            for y in 0..CS {
                for x in 0..CS {
                    voxels[bgm::pad_linearize::<CS>(x, y, z)] = chunk.get(x, y, z).0;
                }
            }
        }
        for face in Face::ALL {
            let Some(neighbour) = faces[face as usize] else { continue };
            let n = face.axis();
            let (ua, va) = ((n + 1) % 3, (n + 2) % 3);
            let (padded, local) = if face.is_positive() { (CS + 1, 0) } else { (0, CS - 1) };
            for v in 0..CS {
                for u in 0..CS {
                    let (mut p, mut q) = ([0; 3], [0; 3]);
                    (p[n], p[ua], p[va]) = (padded, u + 1, v + 1);
                    (q[n], q[ua], q[va]) = (local, u, v);
                    voxels[padded_index(p)] = neighbour.get_at(q).0;
                }
            }
        }
        let opaque = bgm::compute_opaque_mask::<CS>(&voxels, &BTreeSet::new());
        Self { voxels, opaque }
    }

    /// The chunk at `pos` of `world` against its resident face neighbours; `None` when `pos` is
    /// not resident.
    pub fn of(world: &World, pos: ChunkPos) -> Option<Self> {
        let chunk = world.chunk(pos)?;
        let faces = Face::ALL.map(|f| world.chunk(pos.neighbour(f.normal())).map(|c| &**c));
        Some(Self::new(chunk, faces))
    }
}

/// One chunk's quads from the crate, in the crate's face order; `counts[i]` quads of group `i`.
#[derive(Clone, Debug, Default)]
pub struct CrateMesh {
    pub quads: Vec<bgm::Quad>,
    pub counts: [u32; 6],
}

impl CrateMesh {
    /// Unit faces covered per direction, in [`Face`] order.
    pub fn face_areas(&self) -> [u64; 6] {
        let mut areas = [0; 6];
        let mut quads = self.quads.iter();
        for (group, &count) in self.counts.iter().enumerate() {
            let area: u64 = quads.by_ref().take(count as usize).map(|q| q.width() * q.height()).sum();
            areas[CRATE_FACES[group] as usize] += area;
        }
        areas
    }
}

/// Meshes one padded chunk with the crate's `fast_mesh` on this thread's mesher. The quads are
/// copied out into one vector, as a caller keeping the mesh would, so the output is owned like
/// the twin's.
pub fn crate_mesh(input: &CrateInput) -> CrateMesh {
    MESHER.with_borrow_mut(|mesher| {
        mesher.clear();
        mesher.fast_mesh(&input.voxels, &input.opaque, &NO_TRANSPARENT);
        CrateMesh { quads: mesher.quads.concat(), counts: mesher.quads.each_ref().map(|g| g.len() as u32) }
    })
}

/// An opacity table for the twin in which every non-air id is opaque, as the crate sees blocks.
pub fn all_opaque_table() -> Vec<bool> {
    let mut table = vec![true; u16::MAX as usize + 1];
    table[0] = false;
    table
}

/// Unit faces per direction ([`Face`] order) of the twin's mesh of the chunk at `pos`, and its
/// quad count, on the crate's terms: full detail, ambient occlusion off (it would split quads,
/// not change the area) and `opaque` from [`all_opaque_table`]. Zero when `pos` is not resident.
pub fn twin_face_areas(world: &World, pos: ChunkPos, opaque: &[bool]) -> ([u64; 6], usize) {
    let mut areas = [0; 6];
    let Some(chunk) = world.chunk(pos) else { return (areas, 0) };
    let neighbours = Neighbours::of(world, pos);
    let around = Surroundings { ambient_occlusion: false, ..Surroundings::chunks(&neighbours) };
    let mesh = mesh_grid(Grid::chunk(chunk), &around, opaque);
    for quad in mesh.all_quads() {
        let quad = quad.unpack();
        areas[quad.face as usize] += u64::from(quad.area());
    }
    (areas, mesh.quad_count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use voxgpu_core::voxel::blocks as ids;
    use voxgpu_core::voxel::{BlockId, BlockRegistry};

    /// Per-direction areas of the centre chunk at the origin from the crate and from the twin,
    /// and the crate's quad count.
    fn both(world: &World) -> ([u64; 6], [u64; 6], usize) {
        let pos = ChunkPos::new(0, 0, 0);
        let mesh = crate_mesh(&CrateInput::of(world, pos).expect("centre chunk is resident"));
        let (twin, _) = twin_face_areas(world, pos, &all_opaque_table());
        (mesh.face_areas(), twin, mesh.quads.len())
    }

    fn world_of(chunks: impl IntoIterator<Item = (ChunkPos, Chunk)>) -> World {
        let mut world = World::new(BlockRegistry::builtin());
        for (pos, chunk) in chunks {
            world.insert(pos, chunk);
        }
        world
    }

    fn chunk_with(blocks: &[([usize; 3], BlockId)]) -> Chunk {
        let mut chunk = Chunk::empty();
        for &([x, y, z], b) in blocks {
            chunk.set(x, y, z, b);
        }
        chunk
    }

    #[test]
    fn single_block_has_one_face_each_way() {
        let world = world_of([(ChunkPos::new(0, 0, 0), chunk_with(&[([5, 6, 7], ids::STONE)]))]);
        let (crate_areas, twin, quads) = both(&world);
        assert_eq!(crate_areas, [1; 6]);
        assert_eq!(twin, [1; 6]);
        assert_eq!(quads, 6);
    }

    /// An L of three blocks in the XY plane against the +X border, one block of the +X neighbour
    /// touching its foot: +X 1 (the foot and corner are hidden), −X 2, +Y 2, −Y 2, ±Z 3.
    #[test]
    fn l_shape_next_to_a_neighbour() {
        let l = chunk_with(&[([30, 0, 0], ids::STONE), ([31, 0, 0], ids::DIRT), ([31, 1, 0], ids::STONE)]);
        let neighbour = chunk_with(&[([0, 0, 0], ids::STONE)]);
        let world = world_of([(ChunkPos::new(0, 0, 0), l), (ChunkPos::new(1, 0, 0), neighbour)]);
        let (crate_areas, twin, _) = both(&world);
        assert_eq!(twin, [1, 2, 2, 2, 3, 3]);
        assert_eq!(crate_areas, twin);
    }

    /// A 1×2×4 box in the (+X, −Y, +Z) corner with neighbours covering part of three of its sides,
    /// so all six directions have different areas and any mix-up of the crate's face groups
    /// shows. The neighbours hold water, transparent in voxgpu's registry: on the crate's terms
    /// it is opaque and hides the faces it touches.
    #[test]
    fn face_groups_map_onto_voxgpu_faces() {
        let mut cells = Vec::new();
        for y in 0..2 {
            for z in 28..32 {
                cells.push(([31, y, z], if z % 2 == 0 { ids::STONE } else { ids::DIRT }));
            }
        }
        let water = ids::WATER;
        let world = world_of([
            (ChunkPos::new(0, 0, 0), chunk_with(&cells)),
            (
                ChunkPos::new(1, 0, 0),
                chunk_with(&[([0, 0, 28], water), ([0, 0, 29], water), ([0, 1, 28], water)]),
            ),
            (ChunkPos::new(0, -1, 0), chunk_with(&[([31, 31, 28], water)])),
            (ChunkPos::new(0, 0, 1), chunk_with(&[([31, 0, 0], water)])),
        ]);
        let expected = [5, 8, 4, 3, 1, 2];
        let (crate_areas, twin, _) = both(&world);
        assert_eq!(twin, expected);
        assert_eq!(crate_areas, expected);
    }

    #[test]
    fn full_chunk_and_checkerboard() {
        let full = world_of([(ChunkPos::new(0, 0, 0), Chunk::filled(ids::STONE))]);
        let (crate_areas, twin, quads) = both(&full);
        assert_eq!((crate_areas, twin, quads), ([1024; 6], [1024; 6], 6));

        let mut checker = Chunk::empty();
        for (i, v) in checker.voxels_mut().iter_mut().enumerate() {
            if (i % CS + i / CS % CS + i / (CS * CS)).is_multiple_of(2) {
                *v = ids::STONE;
            }
        }
        let world = world_of([(ChunkPos::new(0, 0, 0), checker)]);
        let (crate_areas, twin, quads) = both(&world);
        assert_eq!((crate_areas, twin, quads), ([16384; 6], [16384; 6], 6 * 16384));
    }

    #[test]
    fn reported_version_is_the_locked_one() {
        let lock = include_str!("../Cargo.lock");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"binary-greedy-meshing\""))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .and_then(|v| v.strip_suffix('"'))
            .expect("Cargo.lock locks binary-greedy-meshing");
        assert_eq!(CRATE_NAME, format!("binary-greedy-meshing {version}"));
    }
}
