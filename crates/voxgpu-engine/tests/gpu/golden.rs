//! Golden images: known scenes rendered offscreen on every adapter present and compared with the
//! committed references in `crates/voxgpu-engine/tests/golden/` using NVIDIA's FLIP perceptual metric.
//!
//! - One test per scene (named after it), each on every adapter; a scene's failure names it.
//! - On failure the `-actual` and `-difference` PNGs go to the workspace's `tests/output/`
//!   (ignored by git).
//! - One reference per scene and backend (`<scene>-vulkan.png`, `<scene>-gl.png`): the two
//!   backends draw lines by their own rules and reach the colour target by different paths
//!   (`check` says why).
//! - `VOXGPU_BLESS=1` rewrites the references from every adapter present.
//! - No adapter at all fails the test, unless `VOXGPU_ALLOW_NO_GPU=1` (see README).
//! - Thresholds: `kit::MEAN_FLIP_THRESHOLD` and `kit::MAX_VISIBLE_ERROR_SHARE` (measured:
//!   lavapipe against its own reference 0.0; when the backends shared references, llvmpipe on GL
//!   against the lavapipe reference was at most 0.00001 mean; the margin allows other Mesa
//!   versions' rasterisation at edges, and the visible-error cap catches a small hole such as one
//!   missing chunk, 1–2% of the pixels).

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::path::PathBuf;
use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{World, blocks as ids};
use voxgpu_engine::{GpuContext, Offscreen, RenderMode, RendererOptions};
use voxgpu_worlds::worldgen::{self, WorldParams, WorldSource};

const SIZE: u32 = 256;

/// Edits a scene's world and returns its view (eye, target).
type Setup = fn(&mut World) -> (Vec3, Vec3);

struct Scene {
    name: &'static str,
    source: WorldSource,
    params: WorldParams,
    /// Eye and target; `None` uses the world's default view.
    view: Option<(Vec3, Vec3)>,
    lod: LodSettings,
    mode: RenderMode,
    /// Outline the block the camera looks at.
    pick: bool,
    /// Edits the generated world and returns the view (eye, target), for scenes built by hand.
    setup: Option<Setup>,
    /// The time of day, in hours.
    hours: f32,
    /// Sun shadows (`None`: as the adapter prefers, which is off on the software adapters).
    shadows: Option<bool>,
}

fn sample_vox() -> PathBuf {
    kit::sample_vox()
}

/// Full-detail scenes pin the base renderer, each render mode, water and glass from above and
/// below the surface, ambient occlusion and textures close up; the last two show levels of
/// detail: every chunk coloured by its level, and a shaded close-up across a seam.
fn scenes() -> Vec<Scene> {
    let terrain = WorldParams { seed: 7, center: IVec3::ZERO, view_distance: 3 };
    let full = |name, source, params, view| Scene {
        name,
        source,
        params,
        view,
        lod: LodSettings::OFF,
        mode: RenderMode::Filled,
        pick: false,
        setup: None,
        hours: voxgpu_engine::DEFAULT_TIME_OF_DAY,
        shadows: None,
    };
    let built = |name, source, setup| Scene { setup: Some(setup), ..full(name, source, terrain, None) };
    let wide = WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 5 };
    let first_distance = |d| LodSettings::default().with_first_distance(d).expect("a distance LOD accepts");
    // Above the terrain at an angle, where every render mode is compared.
    let overview = Some((Vec3::new(-30.0, 110.0, -30.0), Vec3::new(10.0, 70.0, 10.0)));
    let mode = |name, mode, view| Scene { mode, ..full(name, WorldSource::Terrain, terrain, view) };
    vec![
        full(
            "terrain_above",
            WorldSource::Terrain,
            terrain,
            Some((Vec3::new(0.5, 150.0, 0.5), Vec3::new(0.5, 0.0, 0.5))),
        ),
        full("terrain_low_angle", WorldSource::Terrain, terrain, None),
        full(
            "vox_model",
            WorldSource::Vox(sample_vox()),
            WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 },
            None,
        ),
        // Low over the terrain, towards the sun: the gradient, the glow, fog into the horizon.
        full(
            "sky",
            WorldSource::Terrain,
            terrain,
            Some((Vec3::new(0.0, 84.0, 0.0), Vec3::new(45.2, 104.5, -43.5))),
        ),
        // Close over the ground at (0, 0), looking down at its top block (see `render`).
        Scene { pick: true, ..full("selection_outline", WorldSource::Terrain, terrain, None) },
        mode("mode_wireframe", RenderMode::Wireframe, overview),
        mode("mode_filled_wireframe", RenderMode::FilledWireframe, overview),
        mode("mode_chunks", RenderMode::Chunks, None),
        mode("mode_quad_size", RenderMode::QuadSize, None),
        built("water_above", WorldSource::Terrain, |w| lake_with_glass(w).0),
        built("water_below", WorldSource::Terrain, |w| lake_with_glass(w).1),
        built("ao_closeup", WorldSource::Flat, ao_steps),
        built("textured_closeup", WorldSource::Flat, block_row),
        Scene {
            mode: RenderMode::Lod,
            lod: first_distance(40.0),
            ..full(
                "lod_levels",
                WorldSource::Terrain,
                wide,
                Some((Vec3::new(-20.0, 150.0, 20.0), Vec3::new(60.0, 50.0, -40.0))),
            )
        },
        Scene {
            lod: first_distance(40.0),
            ..full(
                "lod_seam",
                WorldSource::Terrain,
                wide,
                Some((Vec3::new(-20.0, 110.0, 20.0), Vec3::new(40.0, 70.0, -30.0))),
            )
        },
        // Light: a cave lit only by its lamps, glowstone and lava; the same cave at noon with the
        // sky's light falling down a shaft; lamps on the terrain at night; a sunset.
        built("light_cave_lamps", WorldSource::Flat, |w| lit_cave(w, true)),
        Scene { hours: 12.0, ..built("light_shaft_noon", WorldSource::Flat, |w| lit_cave(w, false)) },
        Scene { hours: 22.0, ..built("light_night", WorldSource::Terrain, lamps_on_terrain) },
        Scene {
            hours: 17.6,
            ..full(
                "light_sunset",
                WorldSource::Terrain,
                terrain,
                Some((Vec3::new(40.0, 96.0, 20.0), Vec3::new(-40.0, 70.0, -10.0))),
            )
        },
        // Sun shadows in the afternoon: trees shading the hillside below them, in both cascades.
        Scene {
            hours: 15.5,
            shadows: Some(true),
            ..full(
                "shadow_sunset",
                WorldSource::Terrain,
                terrain,
                Some((Vec3::new(-20.0, 100.0, -30.0), Vec3::new(0.0, 70.0, 0.0))),
            )
        },
        // The horizon: 1,200 blocks up over a 5,120-block view streamed as level-of-detail
        // nodes (top level 5), several thousand blocks of terrain in sight.
        Scene {
            lod: LodSettings::default(),
            ..full(
                "horizon",
                WorldSource::Terrain,
                WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 160 },
                Some((Vec3::new(0.0, 1200.0, 0.0), Vec3::new(3000.0, 0.0, 1500.0))),
            )
        },
    ]
}

/// Whether a scene's view is streamed as level-of-detail nodes rather than generated whole.
fn streamed(scene: &Scene) -> bool {
    scene.source == WorldSource::Terrain
        && voxgpu_worlds::stream::plan::top_level(scene.params.view_distance) > 0
}

/// The deepest water column within 48 blocks of the origin: its (x, z) and surface y.
fn deepest_water(world: &World) -> (i32, i32, i32) {
    let mut best = (0, 0, 0, 0);
    for z in -48..48 {
        for x in -48..48 {
            let top = (0..160).rev().find(|&y| !world.block(IVec3::new(x, y, z)).is_air()).unwrap_or(0);
            let depth =
                (0..top).rev().take_while(|&y| world.block(IVec3::new(x, y, z)) == ids::WATER).count();
            if world.block(IVec3::new(x, top, z)) == ids::WATER && depth as i32 + 1 > best.3 {
                best = (x, z, top, depth as i32 + 1);
            }
        }
    }
    assert!(best.3 >= 4, "the golden terrain needs a lake at least 4 deep, found {}", best.3);
    (best.0, best.1, best.2)
}

/// A glass wall standing in the deepest lake, half above the water and half below; views from
/// above the surface and from under it, looking at the wall through the water.
fn lake_with_glass(world: &mut World) -> ((Vec3, Vec3), (Vec3, Vec3)) {
    let (x, z, surface) = deepest_water(world);
    for y in surface - 2..=surface + 3 {
        for dx in -4..=4 {
            world.set_block(IVec3::new(x + dx, y, z + 3), ids::GLASS);
        }
    }
    let centre = Vec3::new(x as f32 + 0.5, surface as f32 + 0.5, z as f32 + 0.5);
    let above = (centre + Vec3::new(5.0, 6.0, -6.0), centre + Vec3::new(0.0, -1.0, 3.0));
    let below = (centre + Vec3::new(0.3, -2.0, -1.2), centre + Vec3::new(0.0, 2.5, 4.0));
    (above, below)
}

/// Stone steps, a brick wall and a brick pillar with a lintel on the flat grass: ambient
/// occlusion in inner corners, along walls and under the overhang.
fn ao_steps(world: &mut World) -> (Vec3, Vec3) {
    let ground = 16;
    for x in 0..6 {
        for y in 0..=x.min(3) {
            for z in 0..3 {
                world.set_block(IVec3::new(x, ground + y, z), ids::STONE);
            }
        }
    }
    for y in 0..4 {
        world.set_block(IVec3::new(2, ground + y, 6), ids::BRICK);
        for x in 5..8 {
            world.set_block(IVec3::new(x, ground + y, 5), ids::BRICK);
        }
    }
    world.set_block(IVec3::new(3, ground + 3, 6), ids::BRICK);
    world.set_block(IVec3::new(4, ground + 3, 6), ids::BRICK);
    (Vec3::new(-2.5, ground as f32 + 4.5, 9.5), Vec3::new(3.0, ground as f32 + 0.5, 2.5))
}

/// One column of each built-in block, two high, on the flat grass, seen close: every tile, the
/// grass and snow sides, log tops, and one tile per block on the merged faces.
fn block_row(world: &mut World) -> (Vec3, Vec3) {
    let ground = 16;
    let blocks = [
        ids::GRASS,
        ids::DIRT,
        ids::STONE,
        ids::SAND,
        ids::SNOW,
        ids::GRAVEL,
        ids::LOG,
        ids::BRICK,
        ids::LEAVES,
    ];
    for (i, &block) in blocks.iter().enumerate() {
        for y in 0..2 {
            for z in 0..2 {
                world.set_block(IVec3::new(2 * i as i32, ground + y, z), block);
                world.set_block(IVec3::new(2 * i as i32 + 1, ground + y, z), block);
            }
        }
    }
    (Vec3::new(8.5, ground as f32 + 5.5, -10.0), Vec3::new(8.5, ground as f32 + 0.5, 1.0))
}

/// A cave under the flat world's ground (its roof 7 blocks of dirt and grass): with `lamps`, lit
/// by two lamps, glowstone in its roof and a pool of lava and closed to the sky; without, dark but
/// for a 3 × 3 shaft up to the open sky.
fn lit_cave(world: &mut World, lamps: bool) -> (Vec3, Vec3) {
    for z in -12..14 {
        for y in 2..9 {
            for x in -12..14 {
                world.set_block(IVec3::new(x, y, z), voxgpu_core::voxel::BlockId::AIR);
            }
        }
    }
    for y in 2..9 {
        world.set_block(IVec3::new(-2, y, -2), ids::STONE);
        world.set_block(IVec3::new(6, y, 3), ids::BRICK);
    }
    if lamps {
        world.set_block(IVec3::new(-9, 2, -8), ids::LAMP);
        world.set_block(IVec3::new(11, 4, -11), ids::LAMP);
        world.set_block(IVec3::new(1, 9, 4), ids::GLOWSTONE);
        for z in 6..10 {
            for x in 3..8 {
                world.set_block(IVec3::new(x, 1, z), ids::LAVA);
            }
        }
    } else {
        for z in 0..3 {
            for y in 9..16 {
                for x in 0..3 {
                    world.set_block(IVec3::new(x, y, z), voxgpu_core::voxel::BlockId::AIR);
                }
            }
        }
    }
    (Vec3::new(-10.5, 6.5, 12.5), Vec3::new(5.0, 3.0, -5.0))
}

/// Lamps on the terrain every 9 blocks around the origin, glowstone on a tree or two, and a
/// small pool of lava; the view from above, as at night.
fn lamps_on_terrain(world: &mut World) -> (Vec3, Vec3) {
    let top = |world: &World, x: i32, z: i32| {
        (0..160).rev().find(|&y| !world.block(IVec3::new(x, y, z)).is_air()).unwrap_or(0)
    };
    for z in (-27..=27).step_by(9) {
        for x in (-27..=27).step_by(9) {
            let y = top(world, x, z);
            world.set_block(IVec3::new(x, y + 1, z), ids::LAMP);
        }
    }
    for z in 4..8 {
        for x in 10..15 {
            let y = top(world, x, z);
            world.set_block(IVec3::new(x, y, z), ids::LAVA);
        }
    }
    let centre = top(world, 0, 0) as f32;
    (Vec3::new(-28.0, centre + 30.0, -30.0), Vec3::new(4.0, centre, 4.0))
}

fn render(gpu: &GpuContext, scene: &Scene) -> image::RgbaImage {
    let whole = if streamed(scene) { WorldParams { view_distance: 1, ..scene.params } } else { scene.params };
    // Generated once per world in this binary (several scenes and both adapters share one).
    let mut world = kit::generated(&scene.source, &whole);
    let setup_view = scene.setup.map(|setup| setup(&mut world));
    let (eye, target) = if let Some(view) = setup_view {
        view
    } else if scene.pick {
        let ground =
            (0..256).rev().find(|&y| !world.block(IVec3::new(0, y, 0)).is_air()).expect("ground") as f32;
        (Vec3::new(3.5, ground + 4.0, 2.5), Vec3::new(0.5, ground + 0.5, 0.5))
    } else {
        scene.view.unwrap_or_else(|| worldgen::default_view(&scene.source, &world, &scene.params))
    };
    // The scenes pin what the renderer draws, so haze ends past the small worlds' edge (as in
    // the viewer at a 5-chunk view) instead of at it: at their 3 chunks it would hide most of
    // each frame. `haze.rs` tests the haze itself, ending where the world does.
    let fog_end = worldgen::loaded_radius(scene.params.view_distance.max(5));
    let options = RendererOptions {
        lod: scene.lod,
        mode: scene.mode,
        time_of_day: scene.hours,
        shadows: scene.shadows,
        ..RendererOptions::new(SIZE, SIZE, fog_end)
    };
    let mut renderer = Offscreen::new(gpu, options, &world.registry).expect("renderer");
    if streamed(scene) {
        let columns = worldgen::TerrainColumns::new(scene.params.seed);
        let settings = voxgpu_worlds::stream::StreamSettings {
            lod: scene.lod,
            ..voxgpu_worlds::stream::StreamSettings::new(scene.params.view_distance)
        };
        let mut streamer =
            voxgpu_worlds::stream::Streamer::new(settings, 2, Arc::new(move |c| Ok(columns.node_column(c))));
        streamer.settle(eye, &mut renderer).expect("the view streams in");
    } else {
        for (pos, chunk) in world.chunks() {
            renderer.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
    }
    let camera = Camera::look_at(eye, target);
    if scene.pick {
        let hit = renderer.pick(&camera, 200.0).expect("the camera looks at a block");
        renderer.set_selection(Some(hit.block));
    }
    renderer.settle(&camera).expect("frame renders");
    let image = renderer.read_image().expect("readback");
    // Occlusion culling (on by default) never changes the picture: the scene without it is the
    // same, pixel for pixel.
    let tested = renderer.settle(&camera).expect("frame renders").occlusion_tested;
    assert_eq!(tested, scene.mode.allows_occlusion(), "{}", scene.name);
    let culling = renderer.options().culling;
    renderer.set_culling(voxgpu_engine::Culling { occlusion: false, ..culling });
    assert!(!renderer.settle(&camera).expect("frame renders").occlusion_tested);
    let unculled = renderer.read_image().expect("readback");
    if image != unculled {
        let dir = kit::output_dir().join("occlusion");
        std::fs::create_dir_all(&dir).expect("output dir");
        image.save(dir.join(format!("{}_on.png", scene.name))).expect("save");
        unculled.save(dir.join(format!("{}_off.png", scene.name))).expect("save");
        panic!("{}: occlusion culling changed the picture ({})", scene.name, kit::output_dir().display());
    }
    image
}

/// A frame that is mostly one colour (sky only, or nothing drawn) cannot be a valid scene.
fn assert_not_blank(name: &str, image: &image::RgbaImage) {
    let sky = image.get_pixel(0, 0);
    let other = image.pixels().filter(|p| *p != sky).count();
    let share = other as f32 / image.pixels().len() as f32;
    assert!(share > 0.2, "{name}: only {:.0}% of pixels differ from the corner colour", share * 100.0);
}

/// Renders the scene `name` on every adapter and compares each picture with its reference.
fn check(name: &str) {
    let scene = scenes().into_iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no scene {name}"));
    let contexts = kit::gpu_contexts();
    let mut failures = Vec::new();
    for gpu in &contexts {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let actual = render(gpu, &scene);
        assert_not_blank(scene.name, &actual);
        // One reference per backend: line rasterisation (and its depth bias) follows each
        // API's own rules, and where the adapter can view a texture in another format (Vulkan,
        // not GL) the shade pass writes the shaded surfaces and the sky into the colour target,
        // sRGB-encoded exactly, where the rasteriser's encoding may round a step apart
        // (`embed.rs` holds the two paths within two steps).
        let file = format!("{}-{backend}", scene.name);
        if let Err(failure) = kit::compare_golden(&crate::golden_dir(), &file, &file, &actual, true) {
            failures.push(format!("{failure} ({})", gpu.summary));
        }
    }
    assert!(failures.is_empty(), "golden images differ:\n{}", failures.join("\n"));
}

/// One test per scene, named after it, and a test that every scene of [`scenes`] has one.
macro_rules! golden_scenes {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*

        #[test]
        fn every_scene_has_its_own_test() {
            let tested = [$(stringify!($name)),*];
            let scenes: Vec<&str> = scenes().iter().map(|s| s.name).collect();
            assert_eq!(scenes, tested, "a scene without its test (or a test without its scene)");
        }
    };
}

golden_scenes!(
    terrain_above,
    terrain_low_angle,
    vox_model,
    sky,
    selection_outline,
    mode_wireframe,
    mode_filled_wireframe,
    mode_chunks,
    mode_quad_size,
    water_above,
    water_below,
    ao_closeup,
    textured_closeup,
    lod_levels,
    lod_seam,
    light_cave_lamps,
    light_shaft_noon,
    light_night,
    light_sunset,
    shadow_sunset,
    horizon,
);
