//! Level-of-detail nodes on every adapter, against the CPU twins: which nodes the LOD pass draws
//! (split, shown, mip, cross-fade) along a random flight; every drawn node's mesh; an edit
//! reaching its ancestors; the crack test across node levels (chunk next to a coarse node, node
//! next to a coarser node); the cross-fade's pictures; and, on the CPU, how well coarse terrain
//! matches the mip of full detail.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use glam::{IVec2, IVec3, Vec3};
use kit::Rng;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::{LodSettings, NodeState, Readiness, node_distance, select_nodes};
use voxgpu_core::mesh::{ChunkMesh, mesh_world_chunk_lod};
use voxgpu_core::voxel::{
    BlockId, BlockRegistry, Chunk, ChunkPos, MipPyramid, NodeColumn, NodeKey, World, node_from_children,
};
use voxgpu_engine::low_level::GpuNodeState;
use voxgpu_engine::{Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{TerrainColumns, WorldParams, WorldSource, generate};

/// Node levels of the test world: chunks, and nodes of 2 and 4 blocks per cell.
const TOP: u32 = 2;

/// A node world built bottom up from full-detail terrain: every node's cells are its children's
/// mip, so it is the world the LOD pass and the mesher must draw exactly.
struct Nodes {
    nodes: BTreeMap<NodeKey, Chunk>,
    /// Columns generated (every level's, over the terrain's footprint).
    ready: HashSet<NodeColumn>,
    registry: BlockRegistry,
}

impl Nodes {
    fn terrain(seed: u64, view_distance: u32) -> Self {
        let world =
            generate(&WorldSource::Terrain, &WorldParams { seed, center: IVec3::ZERO, view_distance })
                .expect("terrain");
        let mut nodes: BTreeMap<NodeKey, Chunk> =
            world.chunks().map(|(p, c)| (NodeKey::chunk(p), (**c).clone())).collect();
        let mut ready: HashSet<NodeColumn> =
            world.chunks().map(|(p, _)| NodeKey::chunk(p).column()).collect();
        for level in 1..=TOP {
            let parents: HashSet<NodeKey> =
                nodes.keys().filter(|k| k.level == level - 1).map(|k| k.parent()).collect();
            for parent in parents {
                let children = parent.children().map(|c| nodes.get(&c));
                let node = node_from_children(&children);
                ready.insert(parent.column());
                if !node.is_empty() {
                    nodes.insert(parent, node);
                }
            }
        }
        Self { nodes, ready, registry: world.registry.clone() }
    }

    fn readiness(&self, key: NodeKey) -> Readiness {
        let generated = |c: NodeColumn| c.children().iter().all(|c| self.ready.contains(c));
        Readiness {
            children: key.level > 0 && generated(key.column()),
            siblings: generated(key.column().parent()),
        }
    }

    fn renderer(&self, gpu: &voxgpu_engine::GpuContext, options: RendererOptions) -> Offscreen {
        let mut r = Offscreen::new(gpu, options, &self.registry).expect("renderer");
        for column in &self.ready {
            r.set_column_ready(*column, true);
        }
        for (key, node) in &self.nodes {
            r.insert_node(*key, Arc::new(node.clone())).expect("node fits");
        }
        r
    }

    /// The nodes of one level as a world of chunks at their node positions, keeping only `keep`.
    fn level_world(&self, level: u32, keep: &impl Fn(NodeKey) -> bool) -> World {
        let mut world = World::new(self.registry.clone());
        for (key, node) in self.nodes.iter().filter(|(k, _)| k.level == level && keep(**k)) {
            world.insert(ChunkPos(key.pos), node.clone());
        }
        world
    }
}

fn lod(first_distance: f32) -> LodSettings {
    LodSettings::default().with_first_distance(first_distance).expect("a distance LOD accepts")
}

fn states_of(gpu: &[GpuNodeState]) -> HashMap<NodeKey, NodeState> {
    gpu.iter()
        .map(|n| (n.key, NodeState { split: Some(n.split), mip: n.mip, shown: n.shown, fade: n.fade }))
        .collect()
}

#[test]
fn gpu_node_choices_equal_the_cpu_twin_along_a_random_flight() {
    let nodes = Nodes::terrain(3, 4);
    let settings = lod(24.0);
    let readiness: HashMap<NodeKey, Readiness> =
        nodes.nodes.keys().map(|k| (*k, nodes.readiness(*k))).collect();
    let mut rng = Rng(11);
    let eyes: Vec<Vec3> = (0..24)
        .map(|i| {
            let mut r = |n: u64, off: f32| rng.below(n) as f32 - off + if i % 2 == 0 { 0.0 } else { 0.37 };
            Vec3::new(r(300, 150.0), r(200, 0.0), r(300, 150.0))
        })
        .collect();
    for gpu in kit::gpu_contexts() {
        let mut r =
            nodes.renderer(&gpu, RendererOptions { lod: settings, ..RendererOptions::new(16, 16, 1000.0) });
        let mut states: HashMap<NodeKey, NodeState> = HashMap::new();
        let (mut compared, mut borderline, mut shown_levels) = (0usize, 0usize, HashSet::new());
        for &eye in &eyes {
            // The twin steps from the GPU's state before this frame, so a borderline decision
            // (float rounding either way) never carries into later frames.
            let mut expected = states.clone();
            select_nodes(&settings, eye, &readiness, &mut expected);
            r.render(&Camera::look_at(eye, eye + Vec3::X)).expect("frame");
            let gpu_nodes = r.inspect().nodes().expect("readback");
            let near_edge = |key: NodeKey| settings.is_borderline(node_distance(key, eye), 1e-5);
            for n in &gpu_nodes {
                // A node's shown bit also reads its parent's split.
                if near_edge(n.key) || near_edge(n.key.parent()) {
                    borderline += 1;
                    continue;
                }
                let want = expected[&n.key];
                assert_eq!(
                    (n.split, n.shown, n.mip, n.fade),
                    (want.split == Some(true), want.shown, want.mip, want.fade),
                    "{:?} from {eye} on {}",
                    n.key,
                    gpu.summary
                );
                compared += 1;
                if n.shown {
                    shown_levels.insert(n.key.level);
                }
            }
            states = states_of(&gpu_nodes);
        }
        assert_eq!(shown_levels.len() as u32, TOP + 1, "the flight draws every node level");
        assert!(borderline * 50 < compared, "{borderline} borderline of {compared}");
    }
}

/// Each drawn node's GPU mesh against the twin: the node's level-world of drawn nodes only (an
/// undrawn neighbour counts as absent), meshed at the GPU's mip levels.
fn assert_meshes_match(nodes: &Nodes, r: &Offscreen, what: &str) -> usize {
    let states: HashMap<NodeKey, GpuNodeState> =
        r.inspect().nodes().expect("nodes").into_iter().map(|n| (n.key, n)).collect();
    let mut drawn = 0;
    for level in 0..=TOP {
        let world = nodes.level_world(level, &|k| states[&k].shown);
        let pyramids: HashMap<ChunkPos, MipPyramid> =
            world.chunks().map(|(p, c)| (p, MipPyramid::build(c))).collect();
        let mip = |p: ChunkPos| states[&NodeKey::new(level, p.0)].mip;
        for m in r.inspect().meshes().expect("meshes").into_iter().filter(|m| m.key.level == level) {
            let cpu = if states[&m.key].shown {
                drawn += 1;
                mesh_world_chunk_lod(&world, m.pos, &|p| &pyramids[&p], &mip, true)
            } else {
                ChunkMesh::default()
            };
            assert!(kit::as_set(&m.mesh) == kit::as_set(&cpu), "{what}: {:?}", m.key);
            if states[&m.key].shown {
                assert_eq!(m.level, level + states[&m.key].mip, "{what}: {:?} quads' scale", m.key);
            }
        }
    }
    drawn
}

#[test]
fn drawn_node_meshes_equal_the_cpu_twin_and_an_edit_reaches_every_ancestor() {
    let mut nodes = Nodes::terrain(5, 4);
    let camera = Camera::look_at(Vec3::new(-70.0, 110.0, -20.0), Vec3::new(60.0, 60.0, 40.0));
    for gpu in kit::gpu_contexts() {
        let mut r =
            nodes.renderer(&gpu, RendererOptions { lod: lod(24.0), ..RendererOptions::new(64, 64, 1000.0) });
        r.settle(&camera).expect("settles");
        let drawn = assert_meshes_match(&nodes, &r, "settled");
        let levels: HashSet<u32> =
            r.inspect().nodes().expect("nodes").iter().filter(|n| n.shown).map(|n| n.key.level).collect();
        assert_eq!(levels.len() as u32, TOP + 1, "every node level is drawn ({drawn} nodes)");

        // Dig a 4x4x4 hole at the surface far from the camera, inside a drawn coarse node: every
        // ancestor's cells must follow (the mip rule over the edited children).
        let column = IVec2::new(100, 60);
        let surface = (0..256)
            .rev()
            .find(|&y| !r.resident().block(IVec3::new(column.x, y, column.y)).is_air())
            .expect("ground");
        let mut edited = nodes.nodes.clone();
        for d in 0..64 {
            let p = IVec3::new(column.x + d % 4, surface - 3 + d / 16, column.y + d / 4 % 4);
            r.set_block(p, BlockId::AIR).expect("edit");
            let (pos, local) = ChunkPos::from_block(p);
            if let Some(chunk) = edited.get_mut(&NodeKey::chunk(pos)) {
                chunk.set(local.x as usize, local.y as usize, local.z as usize, BlockId::AIR);
            }
        }
        for level in 1..=TOP {
            let keys: Vec<NodeKey> = edited.keys().filter(|k| k.level == level).copied().collect();
            for key in keys {
                let children = key.children().map(|c| edited.get(&c).cloned());
                let node = node_from_children(&children.each_ref().map(|c| c.as_ref()));
                edited.insert(key, node);
            }
        }
        let before = nodes.nodes.clone();
        nodes.nodes = edited;
        for (key, node) in &nodes.nodes {
            assert_eq!(
                r.resident().node(*key).map(|c| &**c),
                Some(node).filter(|n| !n.is_empty()),
                "{key:?} after the edit"
            );
        }
        let changed = nodes.nodes.iter().filter(|(k, n)| k.level == TOP && before.get(k) != Some(*n)).count();
        assert!(changed > 0, "the edit changed a level-{TOP} node");
        r.settle(&camera).expect("settles");
        assert_meshes_match(&nodes, &r, "after the edit");
        nodes.nodes = before;
    }
}

/// The world as the nodes draw it: a block is solid when the drawn node over it holds a non-air
/// cell there at the mip it is meshed at.
struct NodeShape {
    drawn: HashMap<NodeKey, (MipPyramid, Chunk, u32)>,
}

impl NodeShape {
    fn solid(&self, block: IVec3) -> bool {
        for level in 0..=TOP {
            let cell = block.div_euclid(IVec3::splat(1 << level));
            let key = NodeKey::new(level, cell.div_euclid(IVec3::splat(32)));
            if let Some((pyramid, node, mip)) = self.drawn.get(&key) {
                let local = cell.rem_euclid(IVec3::splat(32)).as_uvec3() >> *mip;
                let [x, y, z] = local.to_array().map(|c| c as usize);
                let id = if *mip == 0 { node.get(x, y, z) } else { pyramid.get(*mip as usize, x, y, z) };
                return !id.is_air();
            }
        }
        false
    }
}

#[test]
fn no_background_shows_through_seams_between_node_levels() {
    let nodes = Nodes::terrain(7, 4);
    let scenes = [
        ("grazing", Vec3::new(-60.0, 95.0, -60.0), Vec3::new(60.0, 70.0, 60.0), 20.0),
        ("seam", Vec3::new(40.0, 120.0, 16.0), Vec3::new(100.0, 60.0, 16.0), 24.0),
        ("above", Vec3::new(-10.0, 150.0, 5.0), Vec3::new(40.0, 60.0, 30.0), 40.0),
    ];
    for gpu in kit::gpu_contexts() {
        for (name, eye, target, first) in scenes {
            let options = |settings| RendererOptions {
                sky_color: kit::crack::SKY,
                procedural_sky: false,
                lod: settings,
                ..RendererOptions::new(256, 256, 1.0e6)
            };
            let camera = Camera::look_at(eye, target);
            let mut r = nodes.renderer(&gpu, options(lod(first)));
            r.settle(&camera).expect("settles");
            let on = r.read_image().expect("pixels");
            let states = r.inspect().nodes().expect("nodes");
            let drawn_levels: HashSet<u32> = states.iter().filter(|n| n.shown).map(|n| n.key.level).collect();
            assert!(
                drawn_levels.len() >= 2,
                "{name}: the scene must straddle node levels, drew {drawn_levels:?}"
            );
            let drawn = states
                .iter()
                .filter(|n| n.shown)
                .map(|n| {
                    let node = nodes.nodes[&n.key].clone();
                    (n.key, (MipPyramid::build(&node), node, n.mip))
                })
                .collect();
            let shape = NodeShape { drawn };
            // Full detail: the chunks alone, LOD off.
            let mut full =
                Offscreen::new(&gpu, options(LodSettings::OFF), &nodes.registry).expect("renderer");
            for (key, node) in nodes.nodes.iter().filter(|(k, _)| k.level == 0) {
                full.insert_node(*key, Arc::new(node.clone())).expect("fits");
            }
            full.settle(&camera).expect("settles");
            let off = full.read_image().expect("pixels");
            let what = format!("{name} on {}", gpu.summary);
            kit::crack::assert_no_cracks(
                &on,
                &off,
                &camera,
                &|p| shape.solid(p),
                &what,
                &format!("node-crack-{name}"),
            );
        }
    }
}

#[test]
fn coarse_terrain_matches_the_mip_of_full_detail() {
    let terrain = TerrainColumns::new(2);
    // Columns over varied ground (sea, hills, mountains): the coarse generator against the mip
    // rule applied level by level to full detail. Streaming uses it from level 3; level 2 shows
    // what it would give there.
    let sets: [(u32, &[IVec2]); 3] = [
        (2, &[IVec2::new(0, 0), IVec2::new(4, 9), IVec2::new(-9, -2)]),
        (3, &[IVec2::new(1, -1), IVec2::new(-3, 2)]),
        (4, &[IVec2::new(0, 1)]),
    ];
    for (level, columns) in sets {
        let (mut same, mut cells, mut solid_same, mut solid_cells) = (0u64, 0u64, 0u64, 0u64);
        for &xz in columns {
            let column = NodeColumn::new(level, xz);
            let coarse: HashMap<NodeKey, Chunk> = terrain.coarse_node_column(column).into_iter().collect();
            let exact: HashMap<NodeKey, Chunk> = terrain.exact_node_column(column).into_iter().collect();
            let empty = Chunk::empty();
            let keys: HashSet<NodeKey> = coarse.keys().chain(exact.keys()).copied().collect();
            for key in keys {
                let (a, b) = (exact.get(&key).unwrap_or(&empty), coarse.get(&key).unwrap_or(&empty));
                for (a, b) in a.voxels().iter().zip(b.voxels().iter()) {
                    cells += 1;
                    same += u64::from(a == b);
                    if !a.is_air() || !b.is_air() {
                        solid_cells += 1;
                        solid_same += u64::from(a == b);
                    }
                }
            }
        }
        let rate = same as f64 / cells as f64;
        let solid_rate = solid_same as f64 / solid_cells as f64;
        println!(
            "coarse level {level}: {:.2}% of cells match, {:.2}% of non-air cells",
            rate * 100.0,
            solid_rate * 100.0
        );
        assert!(rate >= 0.95, "level {level}: {:.2}% of cells match the mip of full detail", rate * 100.0);
    }
}

/// A level change cross-fades. With the camera still, moving where level 1 begins swaps coarse
/// nodes for their children. Over the fade every pixel that changes shows one of the two settled
/// pictures (before or after), the new one on a share that grows by one step a frame, and once
/// the fade has ended the frame is the settled one. Mips stay at 0 so only the swap of nodes is
/// seen; a mip change within a node does not fade. A fade of 0 frames switches at once.
/// A tenth of the changing pixels may show neither picture: the borders of the fading nodes.
#[test]
fn a_level_change_cross_fades_over_its_frames_and_ends_settled() {
    let nodes = Nodes::terrain(7, 4);
    // Over land with trees. Where water shows, or an unchanged neighbour of another level borders
    // the fading nodes, the neighbour's border faces and skirts switch at the start or the end of
    // the fade instead (docs/LOD.md), and the picture in between is neither.
    let camera = Camera::look_at(Vec3::new(-10.0, 150.0, 5.0), Vec3::new(-80.0, 60.0, 40.0));
    let settings = |first: f32, fade: u32| {
        lod(first).with_max_level(0).and_then(|s| s.with_fade_frames(fade)).expect("settings LOD accepts")
    };
    let options = |lod| RendererOptions { lod, ..RendererOptions::new(160, 120, 1.0e6) };
    let same =
        |p: &image::Rgba<u8>, q: &image::Rgba<u8>| p.0.iter().zip(q.0).all(|(a, b)| a.abs_diff(b) <= 2);
    let differs =
        |p: &image::Rgba<u8>, q: &image::Rgba<u8>| p.0.iter().zip(q.0).any(|(a, b)| a.abs_diff(b) > 16);
    for gpu in kit::gpu_contexts() {
        let settled = |lod| {
            let mut r = nodes.renderer(&gpu, options(lod));
            r.settle(&camera).expect("settles");
            r.read_image().expect("pixels")
        };
        let (before, after) = (settled(settings(24.0, 16)), settled(settings(80.0, 16)));
        let changing: Vec<(u32, u32)> = before
            .enumerate_pixels()
            .filter(|(x, y, p)| differs(p, after.get_pixel(*x, *y)))
            .map(|(x, y, _)| (x, y))
            .collect();
        assert!(changing.len() > 500, "the swap must change the picture: {} pixels", changing.len());
        for total in [16u32, 0] {
            let mut r = nodes.renderer(&gpu, options(settings(24.0, total)));
            r.settle(&camera).expect("settles");
            r.set_lod(settings(80.0, total));
            let mut shares = Vec::new();
            for frame in 1..=total.max(1) {
                r.render(&camera).expect("frame");
                let image = r.read_image().expect("pixels");
                let (mut old, mut new) = (0usize, 0usize);
                for &(x, y) in &changing {
                    let p = image.get_pixel(x, y);
                    old += usize::from(same(p, before.get_pixel(x, y)));
                    new += usize::from(same(p, after.get_pixel(x, y)));
                }
                let what = format!("frame {frame} of a {total}-frame fade on {}", gpu.summary);
                assert!(
                    (old + new) * 10 >= changing.len() * 9,
                    "{what}: {old} old and {new} new of {} changing pixels",
                    changing.len()
                );
                let share = new as f64 / (old + new) as f64;
                let expected = if total == 0 { 1.0 } else { frame as f64 / (total + 1) as f64 };
                assert!(
                    (share - expected).abs() <= 0.12,
                    "{what}: the new level shows on {share:.3}, not {expected:.3}"
                );
                shares.push(share);
            }
            assert!(shares.windows(2).all(|w| w[1] >= w[0]), "the new level's share never falls: {shares:?}");
            let stats = r.settle(&camera).expect("settles");
            assert_eq!(stats.fading_nodes, 0);
            let end = r.read_image().expect("pixels");
            let wrong = end.enumerate_pixels().filter(|(x, y, p)| !same(p, after.get_pixel(*x, *y))).count();
            assert_eq!(
                wrong, 0,
                "after a {total}-frame fade on {}: {wrong} pixels differ from the settled picture",
                gpu.summary
            );
        }
    }
}
