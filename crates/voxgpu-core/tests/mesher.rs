//! Properties of the CPU reference greedy mesher, on named cases and many random seeds.

use voxgpu_test_kit as kit;

use glam::IVec3;
use kit::{Rng, mesh_faces, naive_faces};
use voxgpu_core::mesh::{Face, Grid, Neighbours, Surroundings, around_index, mesh_chunk, mesh_grid};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, MipPyramid};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

const N: usize = CHUNK_SIZE;

fn opaque() -> Vec<bool> {
    BlockRegistry::builtin().opaque_table()
}

/// Meshes `chunk` against `neighbours` and checks it covers exactly the naive face set.
fn assert_exact_cover(chunk: &Chunk, neighbours: [Option<&Chunk>; 6]) -> voxgpu_core::mesh::ChunkMesh {
    let opaque = opaque();
    let mesh = mesh_chunk(chunk, &Neighbours::faces(neighbours), &opaque);
    let expected = naive_faces(chunk, &neighbours, &opaque);
    let got = mesh_faces(&mesh);
    assert_eq!(got.len(), expected.len(), "covered area differs from the naive count");
    assert_eq!(got, expected, "covered faces differ from the naive set");
    for face in Face::ALL {
        let area =
            |set: &std::collections::BTreeSet<kit::UnitFace>| set.iter().filter(|f| f.0 == face).count();
        assert_eq!(area(&got), area(&expected), "area of {face:?}");
    }
    mesh
}

fn from_fn(f: impl Fn(usize, usize, usize) -> BlockId) -> Chunk {
    let mut c = Chunk::empty();
    for z in 0..N {
        for y in 0..N {
            for x in 0..N {
                c.set(x, y, z, f(x, y, z));
            }
        }
    }
    c
}

fn random_chunk(rng: &mut Rng, density_percent: u64, ids: &[BlockId]) -> Chunk {
    let mut c = Chunk::empty();
    for v in c.voxels_mut() {
        if rng.below(100) < density_percent {
            *v = ids[rng.below(ids.len() as u64) as usize];
        }
    }
    c
}

#[test]
fn empty_chunk_has_no_quads() {
    let mesh = assert_exact_cover(&Chunk::empty(), [None; 6]);
    assert_eq!(mesh.quad_count(), 0);
}

#[test]
fn full_chunk_with_absent_neighbours_is_six_full_quads() {
    let mesh = assert_exact_cover(&Chunk::filled(ids::STONE), [None; 6]);
    assert_eq!(mesh.opaque.counts, [1; 6]);
    assert!(mesh.all_quads().all(|q| q.unpack().size == [32, 32]));
}

#[test]
fn border_against_solid_neighbours_emits_nothing() {
    let full = Chunk::filled(ids::STONE);
    let mesh = assert_exact_cover(&full, [Some(&full); 6]);
    assert_eq!(mesh.quad_count(), 0);
}

#[test]
fn border_against_an_absent_neighbour_emits_its_faces() {
    let full = Chunk::filled(ids::STONE);
    for open in Face::ALL {
        let mut nb = [Some(&full); 6];
        nb[open as usize] = None;
        let mesh = assert_exact_cover(&full, nb);
        let mut expected = [0; 6];
        expected[open as usize] = 1;
        assert_eq!(mesh.opaque.counts, expected, "only the {open:?} border is exposed");
    }
}

#[test]
fn border_against_an_air_neighbour_emits_its_faces() {
    let full = Chunk::filled(ids::STONE);
    let air = Chunk::empty();
    let mesh = assert_exact_cover(&full, [Some(&air); 6]);
    assert_eq!(mesh.opaque.counts, [1; 6]);
}

#[test]
fn single_voxel_is_six_unit_quads() {
    let mut c = Chunk::empty();
    c.set(7, 30, 0, ids::DIRT);
    let mesh = assert_exact_cover(&c, [None; 6]);
    assert_eq!(mesh.opaque.counts, [1; 6]);
    assert!(mesh.all_quads().all(|q| q.unpack().area() == 1));
}

#[test]
fn checkerboard_merges_nothing() {
    let c = from_fn(|x, y, z| if (x + y + z) % 2 == 0 { ids::STONE } else { BlockId::AIR });
    let mesh = assert_exact_cover(&c, [None; 6]);
    assert_eq!(mesh.quad_count(), 6 * N * N * N / 2);
}

#[test]
fn a_flat_one_material_plane_becomes_one_quad_per_face() {
    let c = from_fn(|_, y, _| if y == 9 { ids::GRASS } else { BlockId::AIR });
    let mesh = assert_exact_cover(&c, [None; 6]);
    assert_eq!(mesh.opaque.counts, [1; 6]);
    let top = mesh.opaque.quads[mesh.opaque.range(Face::PosY)][0].unpack();
    assert_eq!((top.min.y, top.size), (9, [32, 32]));
}

#[test]
fn opposing_coplanar_faces_never_merge() {
    // A staircase: block (x, x) has a top face at y = x + 1 and block (x + 1, x + 1) has its bottom
    // face on the same plane, side by side. Merging them would fuse +Y with -Y.
    let c = from_fn(|x, y, _| if x == y { ids::STONE } else { BlockId::AIR });
    let mesh = assert_exact_cover(&c, [None; 6]);
    for q in mesh.all_quads().map(|q| q.unpack()) {
        if q.face.axis() == 1 {
            // Each step's top and bottom stay one block wide along x (the quad's v). Along z
            // they split only where ambient occlusion differs: at z = 0 and z = 31 the corner
            // samples fall outside the chunk, which has no neighbours here.
            assert_eq!(q.size[1], 1, "{q:?}");
            let expected = if q.min.z == 0 || q.min.z == 31 { 1 } else { 30 };
            assert!(q.size[0] == expected || q.size[0] == 32, "{q:?}");
        }
    }
}

#[test]
fn different_blocks_never_merge() {
    let c = from_fn(|x, y, _| match (y, x % 2) {
        (0, 0) => ids::STONE,
        (0, _) => ids::SAND,
        _ => BlockId::AIR,
    });
    let mesh = assert_exact_cover(&c, [None; 6]);
    let tops: Vec<_> = mesh.opaque.quads[mesh.opaque.range(Face::PosY)].iter().map(|q| q.unpack()).collect();
    assert_eq!(tops.len(), 32, "one strip per x column");
    assert!(tops.iter().all(|q| q.block == if q.min.x % 2 == 0 { ids::STONE } else { ids::SAND }));
}

#[test]
fn transparent_rule_water_against_water_is_hidden_and_against_stone_only_stone_shows() {
    let mut c = Chunk::empty();
    c.set(4, 4, 4, ids::WATER);
    c.set(5, 4, 4, ids::WATER);
    c.set(6, 4, 4, ids::STONE);
    c.set(4, 4, 5, ids::GLASS);
    let mesh = assert_exact_cover(&c, [None; 6]);
    let faces = mesh_faces(&mesh);
    // Water/water between x = 4 and 5: neither face.
    assert!(!faces.contains(&(Face::PosX, [4, 4, 4], ids::WATER)));
    assert!(!faces.contains(&(Face::NegX, [5, 4, 4], ids::WATER)));
    // Stone against water: the stone face is drawn, the water face is not.
    assert!(faces.contains(&(Face::NegX, [6, 4, 4], ids::STONE)));
    assert!(!faces.contains(&(Face::PosX, [5, 4, 4], ids::WATER)));
    // Water against glass: both drawn.
    assert!(faces.contains(&(Face::PosZ, [4, 4, 4], ids::WATER)));
    assert!(faces.contains(&(Face::NegZ, [4, 4, 5], ids::GLASS)));
    // Transparent quads are kept apart from opaque ones.
    assert!(mesh.opaque.quads.iter().all(|q| q.unpack().block == ids::STONE));
    assert!(mesh.transparent.quads.iter().all(|q| q.unpack().block != ids::STONE));
}

#[test]
fn water_against_water_across_a_chunk_border_is_hidden() {
    let water = Chunk::filled(ids::WATER);
    let mesh = assert_exact_cover(&water, [Some(&water); 6]);
    assert_eq!(mesh.quad_count(), 0);
}

#[test]
fn random_fills_are_covered_exactly_once() {
    let mixed = [ids::STONE, ids::DIRT, ids::WATER, ids::GLASS, ids::LEAVES];
    for seed in 0..24u64 {
        let mut rng = Rng(seed);
        let density = [5, 30, 50, 70, 95][seed as usize % 5];
        let ids: &[BlockId] = if seed % 3 == 0 { &[ids::STONE] } else { &mixed };
        let chunk = random_chunk(&mut rng, density, ids);
        let nb: Vec<Chunk> = (0..6).map(|_| random_chunk(&mut rng, density, ids)).collect();
        // Some neighbours present, some absent.
        let neighbours: [Option<&Chunk>; 6] = std::array::from_fn(|i| (rng.below(3) != 0).then(|| &nb[i]));
        assert_exact_cover(&chunk, neighbours);
    }
}

#[test]
fn terrain_chunks_are_covered_exactly_once() {
    for seed in [1, 7, 42] {
        let params = WorldParams { seed, center: IVec3::ZERO, view_distance: 1 };
        let world = generate(&WorldSource::Terrain, &params).expect("terrain generates");
        assert!(world.len() > 4);
        for pos in world.sorted_positions() {
            let chunk = world.chunk(pos).expect("listed");
            let neighbours = Face::ALL.map(|f| world.chunk(ChunkPos(pos.0 + f.normal())).map(|c| &**c));
            assert_exact_cover(chunk, neighbours);
        }
    }
}

/// Unit faces of a grid by the face rule, every border exposed: the naive reference at any size.
fn naive_grid_faces(grid: &Grid, opaque: &[bool]) -> std::collections::BTreeSet<(Face, [u32; 3], BlockId)> {
    let n = grid.size as i32;
    let at = |p: IVec3| grid.ids[(p.x + n * (p.y + n * p.z)) as usize];
    let mut out = std::collections::BTreeSet::new();
    for i in 0..grid.ids.len() as i32 {
        let p = IVec3::new(i % n, i / n % n, i / (n * n));
        let b = at(p);
        if b.is_air() {
            continue;
        }
        for face in Face::ALL {
            let q = p + face.normal();
            let inside = q.cmpge(IVec3::ZERO).all() && q.cmplt(IVec3::splat(n)).all();
            let next = if inside { at(q) } else { BlockId::AIR };
            if !opaque.get(next.0 as usize).copied().unwrap_or(false) && next != b {
                out.insert((face, p.as_uvec3().to_array(), b));
            }
        }
    }
    out
}

#[test]
fn every_mip_level_is_covered_exactly_once() {
    let opaque = opaque();
    let mut rng = Rng(77);
    for seed in 0..6 {
        let chunk = random_chunk(&mut rng, 30 + 10 * seed, &[ids::STONE, ids::DIRT, ids::WATER, ids::GLASS]);
        let mips = MipPyramid::build(&chunk);
        for level in 1..=5 {
            let grid = Grid::level(&chunk, &mips, level);
            let mesh = mesh_grid(grid, &Surroundings::none(), &opaque);
            let mut got = std::collections::BTreeSet::new();
            for q in mesh.all_quads().map(|q| q.unpack()) {
                assert!(!q.skirt, "no neighbours, no skirts");
                for p in q.unit_faces() {
                    assert!(p.max_element() < grid.size as u32, "level {level}: {q:?} leaves the grid");
                    assert!(
                        got.insert((q.face, p.to_array(), q.block)),
                        "level {level}: a face covered twice"
                    );
                }
            }
            assert_eq!(got, naive_grid_faces(&grid, &opaque), "seed {seed} level {level}");
        }
    }
}

#[test]
fn skirts_fill_exactly_what_a_neighbour_drawn_at_another_level_leaves_open() {
    let opaque = opaque();
    // A: stone up to y = 12 (exclusive). B, across +X: stone up to y = 9, and one dirt voxel.
    let a = from_fn(|_, y, _| if y < 12 { ids::STONE } else { BlockId::AIR });
    let b = from_fn(|x, y, z| match (x, y, z) {
        (_, y, _) if y < 9 => ids::STONE,
        (0, 9, 3) => ids::DIRT,
        _ => BlockId::AIR,
    });
    let (mips_a, mips_b) = (MipPyramid::build(&a), MipPyramid::build(&b));
    let a1 = Grid::level(&a, &mips_a, 1);
    let border = |drawn: Option<u32>| {
        let mut around = Surroundings::none();
        around.grids[around_index(Face::PosX.normal())] = Some(Grid::level(&b, &mips_b, 1));
        around.drawn[Face::PosX as usize] = drawn.map(|l| Grid::level(&b, &mips_b, l));
        around
    };
    let skirts = |drawn| {
        let mesh = mesh_grid(a1, &border(drawn), &opaque);
        let mut cells = Vec::new();
        for q in mesh.all_quads().map(|q| q.unpack()).filter(|q| q.skirt) {
            assert_eq!(q.face, Face::PosX, "skirts face the neighbour");
            cells.extend(q.unit_faces().map(|p| {
                assert_eq!(p.x, 15, "skirts lie in the border slice");
                (p.y, p.z)
            }));
        }
        cells.sort_unstable();
        cells
    };
    // Same level: nothing to fill.
    assert!(skirts(None).is_empty());
    // At level 1, B is stone in cells y <= 4 (cell 4 holds blocks 8..9: one stone layer of two,
    // half solid, so solid), which hides A's faces in cells y <= 4. Drawn at level 0, B is open
    // at block y = 9 everywhere (the one dirt voxel covers a quarter of one cell's face), so A's
    // cell y = 4 needs a skirt in all 16 columns, and no other cell does.
    assert_eq!(skirts(Some(0)), (0..16).map(|z| (4, z)).collect::<Vec<_>>());
    // Drawn at level 2 (8³), B's cell y = 2 (blocks 8..11) is half stone, so solid: it covers A's
    // cell y = 4 and no skirt is needed.
    assert!(skirts(Some(2)).is_empty());
}

/// Ambient occlusion written out cell by cell from world lookups, for the face towards `face` of
/// world block `block`: corner k (+u side when k & 1, +v side when k & 2) from the two side
/// cells and the diagonal cell touching it in the layer in front of the face. Cells in a chunk
/// diagonal to `centre` on all three axes count as open, as the mesher defines.
fn naive_ao(world: &voxgpu_core::voxel::World, centre: ChunkPos, block: IVec3, face: Face) -> u8 {
    let n = face.axis();
    let unit = |axis: usize| {
        let mut v = IVec3::ZERO;
        v[axis] = 1;
        v
    };
    let (eu, ev) = (unit((n + 1) % 3), unit((n + 2) % 3));
    let front = block + face.normal();
    let closed = |cell: IVec3| {
        let (pos, _) = ChunkPos::from_block(cell);
        let corner_chunk = (pos.0 - centre.0).abs().cmpeq(IVec3::ONE).all();
        !corner_chunk && world.registry.is_opaque(world.block(cell))
    };
    let mut ao = 0;
    for k in 0..4 {
        let du = if k & 1 != 0 { eu } else { -eu };
        let dv = if k & 2 != 0 { ev } else { -ev };
        let (a, b, c) = (closed(front + du), closed(front + dv), closed(front + du + dv));
        let value = if a && b { 0 } else { 3 - a as u8 - b as u8 - c as u8 };
        ao |= value << (2 * k);
    }
    ao
}

#[test]
fn every_merged_face_has_the_ambient_occlusion_of_its_own_corners() {
    // A centre chunk and all 26 around it, random opaque and transparent blocks, so that every
    // border, edge and corner sample is exercised.
    let mut rng = Rng(4242);
    let mut world = voxgpu_core::voxel::World::new(BlockRegistry::builtin());
    for z in -1..=1 {
        for y in -1..=1 {
            for x in -1..=1 {
                let chunk = random_chunk(&mut rng, 35, &[ids::STONE, ids::DIRT, ids::WATER, ids::GLASS]);
                world.insert(ChunkPos::new(x, y, z), chunk);
            }
        }
    }
    let centre = ChunkPos::new(0, 0, 0);
    let mesh = voxgpu_core::mesh::mesh_world_chunk(&world, centre);
    let (mut faces, mut merged, mut occluded) = (0, 0, 0);
    for q in mesh.all_quads().map(|q| q.unpack()) {
        merged += (q.area() > 1) as usize;
        occluded += (q.ao != 0xff) as usize;
        for p in q.unit_faces() {
            let block = centre.origin() + p.as_ivec3();
            assert_eq!(q.ao, naive_ao(&world, centre, block, q.face), "{q:?}: the face at {block}");
            faces += 1;
        }
    }
    assert!(faces > 10_000 && merged > 100 && occluded > 1_000, "{faces} faces, {merged} merged, {occluded}");
}
