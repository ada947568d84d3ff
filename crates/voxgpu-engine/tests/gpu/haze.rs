//! Haze on every adapter: the draw shader fades a surface into the sky by the share
//! `voxgpu_engine::haze_amount` gives for its distance, and the world's edge is hazed into the
//! sky, so no hard line divides ground and sky where the loaded world ends.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, World, blocks as ids};
use voxgpu_engine::{DEFAULT_FOG_DENSITY, RendererOptions, haze_amount};
use voxgpu_worlds::worldgen::{self, WorldParams, WorldSource, loaded_radius};

fn linear(byte: u8) -> f64 {
    (f64::from(byte) / 255.0).powf(2.2)
}

#[test]
fn the_shader_hazes_a_surface_by_the_twins_share_of_its_distance() {
    // A flat stone floor seen straight down from `height` blocks, haze reaching the sky at 100
    // blocks; the flat sky (no gradient) is the colour haze fades to. The share is read back per
    // channel from the frames with and without haze, in linear light.
    let mut world = World::new(BlockRegistry::builtin());
    let mut floor = Chunk::empty();
    for x in 0..CHUNK_SIZE {
        for z in 0..CHUNK_SIZE {
            floor.set(x, 0, z, ids::STONE);
        }
    }
    world.insert(ChunkPos::new(0, 0, 0), floor);
    for gpu in kit::gpu_contexts() {
        for (height, density) in
            [(31.0, DEFAULT_FOG_DENSITY), (61.0, DEFAULT_FOG_DENSITY), (61.0, 4.0), (81.0, 0.5)]
        {
            let camera = Camera::look_at(Vec3::new(16.0, height, 16.0), Vec3::new(16.01, 0.0, 16.0));
            let frame = |fog| {
                let options = RendererOptions {
                    lod: LodSettings::OFF,
                    procedural_sky: false,
                    fog,
                    fog_density: density,
                    ..RendererOptions::new(32, 32, 100.0)
                };
                let mut r = kit::renderer(&gpu, &world, options);
                r.settle(&camera).expect("frame");
                r.read_image().expect("readback")
            };
            let (clear, hazed) = (frame(false), frame(true));
            let sky = RendererOptions::new(1, 1, 1.0).sky_color.as_dvec3();
            let (c, h) = (clear.get_pixel(16, 16), hazed.get_pixel(16, 16));
            // The centre pixel's surface point lies straight under the eye, `height - 1` away;
            // the hazed byte the twin predicts from the clear one, within the bytes' rounding.
            let share = f64::from(haze_amount(height - 1.0, 100.0, density));
            for (channel, s) in sky.to_array().iter().enumerate() {
                let mixed = linear(c[channel]) * (1.0 - share) + s * share;
                let expected = (mixed.powf(1.0 / 2.2) * 255.0).round();
                assert!(
                    (f64::from(h[channel]) - expected).abs() <= 2.0,
                    "{}: channel {channel} at {height} blocks, density {density} (share {share:.3}): {} where the twin gives {expected}",
                    gpu.summary,
                    h[channel]
                );
            }
        }
    }
}

#[test]
fn straight_down_from_2500_blocks_at_an_8192_block_view_is_at_most_a_fifth_hazed() {
    // Terrain's ground lies at most 256 blocks up, so the ground is at least 2,244 blocks away.
    let share = haze_amount(2500.0, loaded_radius(8192 / CHUNK_SIZE as u32), DEFAULT_FOG_DENSITY);
    assert!(share <= 0.2, "{share}");
}

/// Pixels where two frames differ by more than one level in some channel.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 1)).count()
}

#[test]
fn the_world_ends_in_the_sky_at_a_four_chunk_view() {
    // Seed 1 at a view of 4 chunks around the eye, 480 × 270, from the viewer's default view:
    // the frame where sky once showed under the ground at the left. The same terrain loaded to 6
    // chunks adds only what lies past the view's end, so with haze reaching the sky there the
    // two frames are the same: where the world ends cannot be seen. Without haze they differ.
    let around = |center| WorldParams { seed: 1, center, view_distance: 4 };
    let start = kit::generated(&WorldSource::Terrain, &around(IVec3::ZERO));
    let (eye, target) = worldgen::default_view(&WorldSource::Terrain, &start, &around(IVec3::ZERO));
    let near = around(eye.floor().as_ivec3());
    let far = WorldParams { view_distance: 6, ..near };
    let (near_world, far_world) =
        (kit::generated(&WorldSource::Terrain, &near), kit::generated(&WorldSource::Terrain, &far));
    let camera = Camera::look_at(eye, target);
    for gpu in kit::gpu_contexts() {
        let frame = |world: &World, fog| {
            let options =
                RendererOptions { fog, ..RendererOptions::new(480, 270, loaded_radius(near.view_distance)) };
            let mut r = kit::renderer(&gpu, world, options);
            r.settle(&camera).expect("frame");
            r.read_image().expect("readback")
        };
        let near_hazed = frame(&near_world, true);
        // The ground still shows: most of the frame is not the sky's colour at its corner.
        let sky = *near_hazed.get_pixel(0, 0);
        let ground = near_hazed.pixels().filter(|p| (0..3).any(|c| p[c].abs_diff(sky[c]) > 24)).count();
        assert!(
            ground > 480 * 270 / 3,
            "{}: only {ground} pixels show ground: the haze hides the world",
            gpu.summary
        );
        let hazed = differing(&near_hazed, &frame(&far_world, true));
        let clear = differing(&frame(&near_world, false), &frame(&far_world, false));
        println!("{}: {hazed} pixels show where the world ends with haze, {clear} without", gpu.summary);
        assert!(
            clear > 480 * 270 / 100,
            "without haze only {clear} pixels show the end: the measure proves nothing"
        );
        assert_eq!(hazed, 0, "{}: {hazed} pixels show where the world ends", gpu.summary);
    }
}
