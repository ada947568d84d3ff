//! Light on every adapter: the GPU's light of every resident node, every level, equals the CPU
//! twin's computed from scratch (`voxgpu_core::light::light_nodes`), after the first frame and
//! after every frame of a random sequence of edits (lamps placed and broken, shafts dug to the
//! sky, water poured, chunks removed and put back), with coarse nodes above the chunks. The GPU
//! lights only what each change reaches, so this is the incremental update against a full
//! recompute.

use voxgpu_test_kit as kit;

use std::collections::HashMap;
use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::light::{LightRules, light_nodes};
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, Chunk, ChunkPos, NodeKey, World, node_from_children};
use voxgpu_engine::{Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource};

fn camera() -> Camera {
    Camera::look_at(Vec3::new(-30.0, 110.0, -40.0), Vec3::new(32.0, 40.0, 32.0))
}

/// Every resident node's GPU light against the twin's; the number of nodes compared.
fn assert_light_equals_twin(r: &Offscreen, rules: &LightRules, what: &str) -> usize {
    let nodes: Vec<(NodeKey, Arc<Chunk>)> = r.resident().nodes().map(|(k, c)| (k, Arc::clone(c))).collect();
    let want = light_nodes(nodes.iter().map(|(k, c)| (*k, c.as_ref())), rules);
    let got = r.inspect().light().expect("light read back");
    assert_eq!(got.len(), want.len(), "{what}: nodes");
    for (key, light) in &want {
        let gpu = &got[key];
        if gpu != light {
            let (i, a, b) = gpu
                .bytes()
                .iter()
                .zip(light.bytes())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| (i, *a, *b))
                .expect("a differing byte");
            panic!("{what}: node {key:?} differs first at byte {i}: GPU {a:#04x}, twin {b:#04x}");
        }
    }
    want.len()
}

/// The level-1 parents of every chunk of `world`, built from their children.
fn parents(world: &World) -> HashMap<NodeKey, Chunk> {
    let mut keys: Vec<NodeKey> = world.chunks().map(|(p, _)| NodeKey::chunk(p).parent()).collect();
    keys.sort_by_key(|k| k.pos.to_array());
    keys.dedup();
    keys.into_iter()
        .map(|key| {
            let children = key.children().map(|c| world.chunk(ChunkPos(c.pos)).map(|c| c.as_ref()));
            (key, node_from_children(&children))
        })
        .collect()
}

#[test]
fn gpu_light_equals_a_full_recompute_after_every_random_edit() {
    let world = kit::generated(
        &WorldSource::Terrain,
        &WorldParams { seed: 7, center: IVec3::ZERO, view_distance: 2 },
    );
    let rules = LightRules::new(&world.registry);
    let surface =
        |world: &World, x: i32, z: i32| (0..160).rev().find(|&y| !world.block(IVec3::new(x, y, z)).is_air());
    for gpu in kit::gpu_contexts() {
        let mut world = world.clone();
        let mut r = kit::renderer(&gpu, &world, RendererOptions::new(64, 48, 96.0));
        // Coarse nodes over the chunks: their light comes from their children's.
        for (key, node) in parents(&world) {
            if !node.is_empty() {
                r.insert_node(key, Arc::new(node)).expect("node fits");
            }
        }
        r.render(&camera()).expect("first frame");
        let compared = assert_light_equals_twin(&r, &rules, &format!("{}: first frame", gpu.summary));
        assert!(compared > 40, "{compared} nodes");

        let mut rng = kit::Rng(0x119e);
        let (low, high) = (-64, 96);
        for round in 0..12 {
            let mut edits: Vec<(IVec3, BlockId)> = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let x = low + rng.below((high - low) as u64) as i32;
                let z = low + rng.below((high - low) as u64) as i32;
                let Some(top) = surface(&world, x, z) else { continue };
                match rng.below(6) {
                    // A lamp on the ground, or buried a few blocks down (a cave's lamp).
                    0 => edits.push((IVec3::new(x, top + 1, z), ids::LAMP)),
                    1 => edits.push((IVec3::new(x, top - rng.below(12) as i32, z), ids::GLOWSTONE)),
                    // A shaft to the sky, three wide.
                    2 => {
                        for y in top - 20..=top {
                            for dx in -1..=1 {
                                edits.push((IVec3::new(x + dx, y, z), BlockId::AIR));
                            }
                        }
                    }
                    // A roof over the place, casting the ground below into shade.
                    3 => {
                        for dz in -3..=3 {
                            for dx in -3..=3 {
                                edits.push((IVec3::new(x + dx, top + 6, z + dz), ids::STONE));
                            }
                        }
                    }
                    4 => edits.push((IVec3::new(x, top + 1, z), ids::WATER)),
                    // Break whatever lamp or block is on top.
                    _ => edits.push((IVec3::new(x, top, z), BlockId::AIR)),
                }
                // Each edit lands before the next is chosen, so the next sees the surface it left.
                for (at, block) in edits.drain(..) {
                    world.set_block(at, block);
                    r.set_block(at, block).expect("edit");
                }
            }
            // Now and then a chunk leaves and, a frame later, comes back.
            let leaving =
                (round % 4 == 3).then(|| ChunkPos::new(rng.below(3) as i32, 1, rng.below(3) as i32));
            if let Some(pos) = leaving {
                r.remove_chunk(pos);
            }
            r.render(&camera()).expect("edited frame");
            assert_light_equals_twin(&r, &rules, &format!("{}: round {round}", gpu.summary));
            if let Some(chunk) = leaving.and_then(|pos| world.chunk(pos).map(|c| (pos, Arc::clone(c)))) {
                r.insert_chunk(chunk.0, chunk.1).expect("chunk fits");
                r.render(&camera()).expect("frame");
                assert_light_equals_twin(&r, &rules, &format!("{}: round {round}, back", gpu.summary));
            }
        }
    }
}
