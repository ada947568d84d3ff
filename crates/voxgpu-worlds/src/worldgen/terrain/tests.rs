//! Properties of the terrain: determinism, thread independence, materials and whole trees.

use super::*;
use voxgpu_core::voxel::ChunkPos;

fn params(seed: u64, center: IVec3, view_distance: u32) -> WorldParams {
    WorldParams { seed, center, view_distance }
}

fn same_world(a: &World, b: &World) -> bool {
    a.sorted_positions() == b.sorted_positions()
        && a.sorted_positions().iter().all(|&p| a.chunk(p) == b.chunk(p))
}

#[test]
fn terrain_is_deterministic_for_a_seed_and_differs_between_seeds() {
    let p = params(1, IVec3::ZERO, 1);
    assert!(same_world(&generate(&p, 2), &generate(&p, 2)));
    assert!(!same_world(&generate(&p, 2), &generate(&params(2, IVec3::ZERO, 1), 2)));
}

#[test]
fn generation_is_independent_of_thread_count() {
    let p = params(99, IVec3::new(-300, 0, 77), 2);
    assert!(same_world(&generate(&p, 1), &generate(&p, 3)));
}

#[test]
fn chunks_depend_only_on_seed_and_position() {
    // Two overlapping view circles: the chunks they share must be identical, whichever
    // neighbours each run happened to build.
    let a = generate(&params(5, IVec3::ZERO, 2), 2);
    let b = generate(&params(5, IVec3::new(40, 0, -20), 2), 1);
    let shared: Vec<_> = a.sorted_positions().into_iter().filter(|&p| b.chunk(p).is_some()).collect();
    assert!(shared.len() >= 4);
    assert!(shared.iter().all(|&p| a.chunk(p) == b.chunk(p)));
}

#[test]
fn terrain_has_six_materials_and_water_only_up_to_sea_level() {
    let world = generate(&params(1, IVec3::ZERO, 2), 2);
    let mut used = std::collections::BTreeSet::new();
    for (pos, chunk) in world.chunks() {
        assert!((0..WORLD_HEIGHT / SIZE).contains(&pos.0.y), "chunk {pos:?} outside y 0..256");
        for (i, &block) in chunk.voxels().iter().enumerate() {
            used.insert(block);
            let y = pos.origin().y + (i / CHUNK_SIZE % CHUNK_SIZE) as i32;
            assert!(block != builtin::WATER || y <= SEA_LEVEL, "water at y {y}");
        }
    }
    used.remove(&BlockId::AIR);
    assert!(used.len() >= 6, "{used:?}");
    for needed in [builtin::WATER, builtin::SAND, builtin::GRASS, builtin::LOG, builtin::LEAVES] {
        assert!(used.contains(&needed), "{needed:?} missing from {used:?}");
    }
}

#[test]
fn trees_are_whole_across_chunk_borders() {
    let p = params(1, IVec3::ZERO, 2);
    let world = generate(&p, 2);
    let built: Vec<IVec2> = columns_in_view(p.center, p.view_distance);
    let inside = |q: IVec3| built.contains(&IVec2::new(q.x, q.z).div_euclid(IVec2::splat(SIZE)));
    let mut straddling = 0;
    for (pos, chunk) in world.chunks() {
        for (i, &block) in chunk.voxels().iter().enumerate() {
            let s = CHUNK_SIZE;
            let q = pos.origin() + IVec3::new((i % s) as i32, (i / s % s) as i32, (i / (s * s)) as i32);
            let is_root = block == builtin::LOG && world.block(q - IVec3::Y) != builtin::LOG;
            if !is_root {
                continue;
            }
            let trunk = (0..).take_while(|&d| world.block(q + IVec3::Y * d) == builtin::LOG).count();
            let tree = Tree { root: q, trunk: trunk as i32 };
            let leaves: Vec<IVec3> = tree.leaves().collect();
            if !leaves.iter().all(|&l| inside(l)) {
                continue;
            }
            let chunks_touched = |l: &IVec3| ChunkPos::from_block(*l).0;
            if leaves.iter().map(chunks_touched).any(|c| c != chunks_touched(&leaves[0])) {
                straddling += 1;
            }
            for leaf in leaves {
                assert!(!world.block(leaf).is_air(), "tree at {q} lost its leaf at {leaf}");
            }
        }
    }
    assert!(straddling > 0, "no tree crosses a chunk border; the test proves nothing");
}

#[test]
fn chunk_cave_cache_agrees_bit_for_bit_with_direct_sampling() {
    // Tree roots outside a chunk are checked with `cave_value`, blocks inside with the cache;
    // a disagreement would let a tree float over a cave in one chunk and not the other.
    let noise = Noise::new(3);
    let origin = IVec3::new(-64, 32, 96);
    let lattice = CaveLattice::new(&noise, origin);
    for (x, y, z) in [(0, 0, 0), (31, 31, 31), (5, 17, 30), (12, 3, 9), (4, 8, 28)] {
        let cached = lattice.column(x, z).value(y);
        let direct = cave_value(|c| noise.cave_sample(c), origin + IVec3::new(x, y, z));
        assert_eq!(cached.to_bits(), direct.to_bits(), "at local ({x}, {y}, {z})");
    }
}

#[test]
fn a_coarse_cell_is_the_same_generated_alone_or_with_its_node() {
    // Every cell of a coarse node column, generated as one cell column, equals that column of
    // the whole node: so neighbouring nodes agree where they
    // meet (a tree on the border, a pit at the edge) and the fidelity measure, which samples
    // single cells, measures what streaming draws. Levels 3 and 4 carry the real trees, 2 and 5 trees
    // by chance; the places hold forest, mountains and coast.
    let places = [
        (1, 3, IVec2::new(0, 0)),
        (1, 4, IVec2::new(0, 0)),
        (2, 4, IVec2::new(4, -4)),
        (3, 5, IVec2::new(1, -1)),
    ];
    for (seed, level, xz) in places {
        let terrain = TerrainColumns::new(seed);
        let column = NodeColumn::new(level, xz);
        let node = terrain.coarse_node_column(column).into_iter().find(|(key, _)| *key == column.node(0));
        let node = node.map(|(_, chunk)| chunk).unwrap_or_else(Chunk::empty);
        let first = column.origin() / (1 << level);
        let cells = (0..SIZE * SIZE).map(|i| (i % SIZE, i / SIZE));
        let mut solid = 0;
        for (cx, cz) in cells {
            let alone = terrain.coarse_cells(level, first + IVec2::new(cx, cz));
            let (x, z) = (cx as usize, cz as usize);
            let in_node: Vec<BlockId> = (0..alone.len()).map(|y| node.get(x, y, z)).collect();
            assert_eq!(alone, in_node, "seed {seed}, level {level}, node column {xz}, cell ({cx}, {cz})");
            solid += alone.iter().filter(|b| !b.is_air()).count();
        }
        assert!(solid > 0, "seed {seed}, level {level}: the compared cells are all air");
    }
}
