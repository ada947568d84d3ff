//! Transparency on every adapter: the transparent draw list is sorted back to front by chunk
//! distance and face direction on the GPU (equal to the CPU twin's keys), two coloured glass
//! panes blend in the order of their distance from the eye, and the picture does not depend on
//! the order the GPU's atomics ran in.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::collections::BTreeSet;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::cull::{Frustum, sort_distance, transparent_sort_key, transparent_tie_order};
use voxgpu_core::lod::LodSettings;
use voxgpu_core::mesh::Face;
use voxgpu_core::voxel::{
    BlockInfo, BlockRegistry, ChunkPos, FaceTiles, NodeKey, Opacity, Tile, World, chunk_aabb,
};
use voxgpu_engine::RendererOptions;
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

const W: u32 = 160;
const H: u32 = 120;

#[test]
fn the_transparent_list_is_sorted_back_to_front_by_chunk_distance() {
    // Terrain with lakes; cameras above and beside them, looking across.
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 3, center: IVec3::ZERO, view_distance: 3 })
            .expect("terrain");
    let cameras = [
        Camera::look_at(Vec3::new(-70.0, 90.0, -60.0), Vec3::new(20.0, 40.0, 30.0)),
        Camera::look_at(Vec3::new(80.0, 70.0, 10.0), Vec3::new(-40.0, 45.0, -20.0)),
        Camera::look_at(Vec3::new(5.3, 120.0, 7.1), Vec3::new(6.0, 0.0, 8.0)),
    ];
    for gpu in kit::gpu_contexts() {
        // Full detail, so the chunks with water stay the same from every camera.
        let options = RendererOptions { lod: LodSettings::OFF, ..RendererOptions::new(W, H, 400.0) };
        let mut r = kit::renderer(&gpu, &world, options);
        r.settle(&cameras[0]).expect("settles");
        // Each chunk with water, and its face directions that have transparent quads.
        let with_water: Vec<(ChunkPos, Vec<Face>)> = r
            .inspect()
            .meshes()
            .expect("meshes")
            .into_iter()
            .filter(|m| !m.mesh.transparent.is_empty())
            .map(|m| {
                let counts = m.mesh.transparent.counts;
                (m.pos, Face::ALL.into_iter().filter(|&f| counts[f as usize] > 0).collect())
            })
            .collect();
        assert!(with_water.len() >= 4, "the scene needs several chunks with water: {}", with_water.len());
        let mut compared = 0;
        let mut tied_keys = 0;
        for camera in &cameras {
            r.render(camera).expect("frame");
            let order = r.inspect().transparent_order().expect("order");
            // Back to front by key, and equal keys in the CPU twin's order of their nodes: a
            // total order, whatever order the GPU's atomics ran in.
            let in_order = |a: &(u32, NodeKey), b: &(u32, NodeKey)| {
                a.0.cmp(&b.0).then(transparent_tie_order(a.1, b.1)) != std::cmp::Ordering::Greater
            };
            assert!(order.windows(2).all(|w| in_order(&w[0], &w[1])), "not in draw order: {order:?}");
            let ties = order.windows(2).filter(|w| w[0].0 == w[1].0 && w[0].1 != w[1].1).count();
            tied_keys += ties;
            let order: Vec<u32> = order.iter().map(|e| e.0).collect();
            // The CPU twin: every face direction with transparent quads of every chunk in the
            // frustum, keyed by distance and face slot (chunks on a frustum plane or a distance
            // key boundary are left out, and counted).
            let frustum = Frustum::from_view_proj(camera.view_proj(W as f32 / H as f32));
            let gpu_keys: BTreeSet<u32> = order.iter().copied().collect();
            let mut cpu_keys = BTreeSet::new();
            let mut borderline = BTreeSet::new();
            let mut borderline_chunks = 0;
            for (pos, faces) in &with_water {
                let (min, max) = chunk_aabb(*pos);
                let scaled = sort_distance((0.5 * (min + max)).distance(camera.eye));
                let keys = faces.iter().map(|&f| transparent_sort_key(*pos, f, camera.eye));
                if frustum.margin(min, max) < 1e-3 || (scaled - scaled.round()).abs() < 1e-3 {
                    borderline.extend(keys);
                    borderline_chunks += 1;
                } else if frustum.intersects_box(min, max) {
                    cpu_keys.extend(keys);
                }
            }
            let gpu_sure: BTreeSet<u32> = gpu_keys.difference(&borderline).copied().collect();
            assert_eq!(gpu_sure, cpu_keys, "from {camera:?} on {}", gpu.summary);
            assert!(borderline_chunks * 10 <= with_water.len(), "{borderline_chunks} borderline");
            compared += cpu_keys.len();
        }
        assert!(compared >= 6, "only {compared} transparent chunks in view");
        assert!(tied_keys > 0, "the scene should hold groups of different chunks with equal keys");
    }
}

#[test]
fn two_glass_panes_blend_in_the_order_of_their_distance() {
    let mut registry = BlockRegistry::builtin();
    let glass = |name: &str, color: [u8; 4]| {
        BlockInfo::new(name, Opacity::Transparent, color, FaceTiles::all(Tile::Plain))
    };
    let red = registry.register(glass("red glass", [230, 20, 20, 150]));
    let blue = registry.register(glass("blue glass", [20, 20, 230, 150]));
    // Two 24×24 panes facing the Z axis, in different chunks: red at z = 40, blue at z = 72.
    let mut world = World::new(registry);
    for (block, z) in [(red, 40), (blue, 72)] {
        for y in 4..28 {
            for x in 4..28 {
                world.set_block(IVec3::new(x, y, z), block);
            }
        }
    }
    let centre = Vec3::new(16.0, 16.0, 56.5);
    let options = RendererOptions { procedural_sky: false, ..RendererOptions::new(W, H, 1000.0) };
    for gpu in kit::gpu_contexts() {
        let mut r = kit::renderer(&gpu, &world, options.clone());
        // From -Z the red pane is nearer, from +Z the blue one; the pixel at the centre sees
        // both, and the nearer pane's colour must dominate it.
        for (eye_z, near_is_red) in [(-10.0, true), (123.0, false)] {
            let camera = Camera::look_at(Vec3::new(16.0, 16.0, eye_z), centre);
            r.settle(&camera).expect("settles");
            let image = r.read_image().expect("pixels");
            let [red_channel, _, blue_channel, _] = image.get_pixel(W / 2, H / 2).0;
            let (near, far) =
                if near_is_red { (red_channel, blue_channel) } else { (blue_channel, red_channel) };
            assert!(
                near as u32 > far as u32 + 40,
                "eye at z = {eye_z} on {}: the nearer pane should dominate, got rgb {:?}",
                gpu.summary,
                image.get_pixel(W / 2, H / 2).0
            );
        }
    }
}
