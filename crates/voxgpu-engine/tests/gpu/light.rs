//! Light on every adapter: the GPU's light of every resident node, every level, equals the CPU
//! twin's computed from scratch (`voxgpu_core::light::light_nodes`), after the first frame and
//! after every frame of a random sequence of edits (lamps placed and broken, shafts dug to the
//! sky, water poured, chunks removed and put back), with two levels of coarse nodes above the
//! chunks, by both forms of the spread's rounds (sweeps along lines, and an invocation per
//! word). The GPU lights only what each change reaches, so this is the incremental update against
//! a full recompute.

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

/// The level-1 parents of every chunk of `world`, built from their children, and their level-2
/// parents, built from those: the GPU pulls a level-2 node's light from level-1 nodes it pulled
/// the dispatch before.
fn ancestors(world: &World) -> Vec<(NodeKey, Chunk)> {
    let parents = parents(world);
    let mut keys: Vec<NodeKey> = parents.keys().map(|k| k.parent()).collect();
    keys.sort_by_key(|k| k.pos.to_array());
    keys.dedup();
    let grandparents: Vec<(NodeKey, Chunk)> = keys
        .into_iter()
        .map(|key| (key, node_from_children(&key.children().map(|c| parents.get(&c)))))
        .collect();
    parents.into_iter().chain(grandparents).filter(|(_, node)| !node.is_empty()).collect()
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
    // Both forms of the spread's rounds, on every adapter (each adapter picks one by default).
    for gpu in kit::gpu_contexts() {
        for lines in [false, true] {
            let what = format!("{} (spread {})", gpu.summary, if lines { "in lines" } else { "by words" });
            let mut world = world.clone();
            let mut r = kit::renderer(&gpu, &world, RendererOptions::new(64, 48, 96.0));
            r.tools().set_light_spread_in_lines(lines);
            // Coarse nodes over the chunks, two levels: their light comes from their children's.
            for (key, node) in ancestors(&world) {
                r.insert_node(key, Arc::new(node)).expect("node fits");
            }
            r.render(&camera()).expect("first frame");
            let compared = assert_light_equals_twin(&r, &rules, &format!("{}: first frame", what));
            assert!(compared > 40, "{compared} nodes");
            let level_2 = r.resident().nodes().filter(|(key, _)| key.level == 2).count();
            assert!(level_2 > 0, "level-2 nodes over level-1 nodes are lit and compared");

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
                assert_light_equals_twin(&r, &rules, &format!("{}: round {round}", what));
                if let Some(chunk) = leaving.and_then(|pos| world.chunk(pos).map(|c| (pos, Arc::clone(c)))) {
                    r.insert_chunk(chunk.0, chunk.1).expect("chunk fits");
                    r.render(&camera()).expect("frame");
                    assert_light_equals_twin(&r, &rules, &format!("{}: round {round}, back", what));
                }
            }

            // A tall hollow under the ground, then one column of its roof dug out in one frame: sky
            // light falls through the hole to the hollow's floor, more than 14 blocks below every dug
            // cell and in a lower chunk, so only the reach of the fall through the clear cells below a
            // dug cell lights the floor. Then the hole's top is closed again: the light it let in
            // must leave the same way.
            let (x, z) = (20, 12);
            let top = surface(&world, x, z).expect("ground at the hollow");
            let floor = (top - 48).max(1);
            let lowest_dug = top - 8;
            assert!(
                floor.div_euclid(32) < (lowest_dug - 14).div_euclid(32),
                "the hollow's floor {floor} lies in a chunk below any within 14 blocks of the roof {lowest_dug}..={top}"
            );
            let set = |world: &mut World, r: &mut Offscreen, at: IVec3, block: BlockId| {
                world.set_block(at, block);
                r.set_block(at, block).expect("edit");
            };
            for y in floor..lowest_dug {
                for dz in -2..=2 {
                    for dx in -2..=2 {
                        set(&mut world, &mut r, IVec3::new(x + dx, y, z + dz), BlockId::AIR);
                    }
                }
            }
            r.render(&camera()).expect("hollow frame");
            assert_light_equals_twin(&r, &rules, &format!("{}: a hollow", what));
            for y in lowest_dug..=top {
                set(&mut world, &mut r, IVec3::new(x, y, z), BlockId::AIR);
            }
            r.render(&camera()).expect("shaft frame");
            assert_light_equals_twin(&r, &rules, &format!("{}: the hollow's roof opened", what));
            set(&mut world, &mut r, IVec3::new(x, top, z), ids::STONE);
            r.render(&camera()).expect("closed frame");
            assert_light_equals_twin(&r, &rules, &format!("{}: the hollow's roof closed", what));
        }
    }
}

/// The largest jump in `image`'s grey (its red channel, 0..255) between neighbouring pixels
/// along rows and columns beyond what the gradient around them explains: the step from pixel
/// `i` to `i + 1` against the slope over the four pixels before it and the four after, whichever
/// is nearer (where the light turns, at a lamp's row, the step follows one side). A smooth field
/// (light interpolated between cells) keeps it within the 8-bit rounding; a seam, where one side
/// reads the wrong cell, is a jump of about a light level: a read one cell off across the +X
/// border of a chunk measured 10.5 of 255 here.
fn largest_jump(image: &image::RgbaImage) -> (f32, (u32, u32)) {
    let (w, h) = image.dimensions();
    let at = |x: u32, y: u32| image.get_pixel(x, y)[0] as f32;
    let mut worst = (0.0, (0, 0));
    for y in 5..h - 6 {
        for x in 5..w - 6 {
            for (dx, dy) in [(1, 0), (0, 1)] {
                let l = |k: i32| at((x as i32 + k * dx) as u32, (y as i32 + k * dy) as u32);
                let step = l(1) - l(0);
                let before = (l(0) - l(-4)) / 4.0;
                let after = (l(5) - l(1)) / 4.0;
                let jump = (step - before).abs().min((step - after).abs());
                if jump > worst.0 {
                    worst = (jump, (x, y));
                }
            }
        }
    }
    worst
}

/// A dark hall (stone all round, a roof 50 blocks up) whose floor is lit by lamps set into it,
/// seen from above in the light view: the floor crosses chunk borders at x = 0, 32 and z = 0,
/// and every place of it lies within a lamp's reach.
fn lamp_hall() -> World {
    let mut world = World::new(voxgpu_core::voxel::BlockRegistry::builtin());
    for z in -48..48 {
        for x in -32..96 {
            world.set_block(IVec3::new(x, 10, z), ids::STONE);
            world.set_block(IVec3::new(x, 60, z), ids::STONE);
            let wall = x == -32 || x == 95 || z == -48 || z == 47;
            if wall {
                for y in 11..60 {
                    world.set_block(IVec3::new(x, y, z), ids::STONE);
                }
            }
        }
    }
    for z in (-40..48).step_by(11) {
        for x in (-24..96).step_by(11) {
            world.set_block(IVec3::new(x, 10, z), ids::LAMP);
        }
    }
    world
}

#[test]
fn light_has_no_seam_at_chunk_borders() {
    let world = lamp_hall();
    let size = 256;
    for gpu in kit::gpu_contexts() {
        let options = RendererOptions {
            mode: voxgpu_engine::RenderMode::Light,
            lod: voxgpu_core::lod::LodSettings::OFF,
            fog: false,
            ..RendererOptions::new(size, size, 500.0)
        };
        let mut r = kit::renderer(&gpu, &world, options);
        // Over the corner where chunks (0, 0), (1, 0), (0, -1) and (1, -1) meet, high enough
        // that the view holds floor only.
        let camera = Camera::look_at(Vec3::new(32.0, 21.0, 2.0), Vec3::new(32.0, 10.0, 0.0));
        r.settle(&camera).expect("frame");
        let image = kit::ReadImage::read_image(&r).expect("readback");
        let (jump, at) = largest_jump(&image);
        let dir = kit::output_dir().join("light");
        std::fs::create_dir_all(&dir).expect("output dir");
        image.save(dir.join(format!("hall-{:?}.png", gpu.summary.backend))).expect("save");
        println!("{}: largest jump {jump:.2} of 255 at {at:?}", gpu.summary);
        assert!(jump <= 2.0, "{}: a jump of {jump:.2}/255 at {at:?}", gpu.summary);
    }
}
