//! Renderer behaviour on every adapter, checked by pixel-exact comparison with a renderer built
//! fresh from the expected world (same adapter, same camera): edits across chunk borders,
//! removal and re-insertion, growth of the mega quad buffer, and the capped draw submission.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockId, World};
use voxgpu_engine::{GpuContext, GpuError, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

const W: u32 = 160;
const H: u32 = 120;

fn terrain() -> World {
    kit::opaque_terrain(3, 2)
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(-40.0, 130.0, -50.0), Vec3::new(20.0, 60.0, 20.0))
}

fn options() -> RendererOptions {
    RendererOptions::new(W, H, 96.0)
}

fn frame(r: &mut Offscreen) -> image::RgbaImage {
    r.settle(&camera()).expect("frame");
    r.read_image().expect("readback")
}

fn assert_same(name: &str, gpu: &GpuContext, a: &image::RgbaImage, b: &image::RgbaImage) {
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{name} on {}: {differing} pixels differ", gpu.summary);
}

#[test]
fn edits_across_chunk_borders_render_like_a_fresh_world() {
    for gpu in kit::gpu_contexts() {
        // Flat ground (solid up to y = 15). A pit dug only inside chunk (0, 0, 0) exposes the
        // walls of chunks x = -1 and z = -1: those faces appear only if the neighbours are
        // re-meshed. A pillar on x = 31 hides nothing but adds faces in chunk x = 0 only, and
        // glass on the z = 31 border meets chunk z = 1.
        let mut world =
            generate(&WorldSource::Flat, &WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 2 })
                .expect("flat");
        let mut r = kit::renderer(&gpu, &world, options());
        let cam = Camera::look_at(Vec3::new(40.0, 45.0, 45.0), Vec3::new(0.0, 4.0, 0.0));
        r.settle(&cam).expect("first frame");
        let mut edits = Vec::new();
        for x in 0..20 {
            for z in 0..20 {
                for y in 3..16 {
                    edits.push((IVec3::new(x, y, z), BlockId::AIR));
                }
            }
        }
        for y in 16..30 {
            edits.push((IVec3::new(31, y, 25), ids::BRICK));
            edits.push((IVec3::new(25, y, 31), ids::GLASS));
        }
        for &(pos, block) in &edits {
            r.set_block(pos, block).expect("edit");
            world.set_block(pos, block);
        }
        r.settle(&cam).expect("edited frame");
        let edited = r.read_image().expect("readback");
        let mut fresh = kit::renderer(&gpu, &world, options());
        fresh.settle(&cam).expect("fresh frame");
        assert_same("edited vs fresh", &gpu, &edited, &fresh.read_image().expect("readback"));
    }
}

#[test]
fn removing_and_reinserting_chunks_restores_the_picture() {
    for gpu in kit::gpu_contexts() {
        let world = terrain();
        let mut r = kit::renderer(&gpu, &world, options());
        let before = frame(&mut r);
        let positions = world.sorted_positions();
        for pos in positions.iter().step_by(2) {
            r.remove_chunk(*pos);
        }
        let holes = frame(&mut r);
        assert!(holes.pixels().zip(before.pixels()).any(|(p, q)| p != q), "removal must show");
        for pos in positions.iter().step_by(2) {
            r.insert_chunk(*pos, Arc::clone(world.chunk(*pos).expect("listed"))).expect("chunk fits");
        }
        assert_same("reinserted vs original", &gpu, &frame(&mut r), &before);
    }
}

#[test]
fn a_quad_buffer_grown_from_one_page_renders_identically() {
    for gpu in kit::gpu_contexts() {
        let world = terrain();
        let normal = frame(&mut kit::renderer(&gpu, &world, options()));
        let tiny = RendererOptions { initial_quad_pages: 1, ..options() };
        assert_same("grown vs normal", &gpu, &frame(&mut kit::renderer(&gpu, &world, tiny)), &normal);
    }
}

/// A second renderer on a device compiles none of the compute pipelines the first compiled there
/// (`GpuContext::pipelines`, which `Offscreen::new` shares), and draws the same frame with them,
/// made after the first is gone (so the shared pipelines alone keep their bind group layouts,
/// which the second renderer's bind groups must match).
#[test]
fn renderers_on_one_device_compile_their_pipelines_once() {
    let world = terrain();
    for gpu in kit::own_gpu_contexts() {
        let mut first = kit::renderer(&gpu, &world, options());
        let compiled = gpu.pipelines.len();
        assert!(compiled >= 20, "{}: only {compiled} compute pipelines compiled", gpu.summary);
        let want = frame(&mut first);
        drop(first);
        let mut second = kit::renderer(&gpu, &world, options());
        assert_eq!(gpu.pipelines.len(), compiled, "{}: the second renderer compiled again", gpu.summary);
        assert_same("second renderer vs first", &gpu, &frame(&mut second), &want);
    }
}

#[test]
fn capped_indirect_submission_renders_like_indirect_count() {
    for gpu in kit::gpu_contexts() {
        if !gpu.caps.multi_draw_indirect_count {
            continue; // this adapter already runs the capped path in every other test
        }
        let world = terrain();
        let with_count = frame(&mut kit::renderer(&gpu, &world, options()));
        let capped_gpu = GpuContext::with_caps(gpu.adapter.clone(), |mut caps| {
            caps.multi_draw_indirect_count = false;
            caps
        })
        .expect("device without the feature");
        let capped = frame(&mut kit::renderer(&capped_gpu, &world, options()));
        assert_same("capped vs count", &gpu, &capped, &with_count);
    }
}

#[test]
fn zero_and_oversized_targets_are_errors_not_panics() {
    for gpu in kit::gpu_contexts() {
        let registry = voxgpu_core::voxel::BlockRegistry::builtin();
        for (w, h) in [(0, 0), (0, 64), (64, 0), (1 << 20, 64)] {
            let err = Offscreen::new(&gpu, RendererOptions::new(w, h, 64.0), &registry).err();
            assert!(matches!(err, Some(GpuError::TargetSize { .. })), "{w}x{h}: {err:?}");
        }
    }
}

/// Without `POLYGON_MODE_LINE` (GLES), the wireframe pass draws quad edges from filled triangles:
/// thin dark lines over the sky, not filled faces, and not nothing.
#[test]
fn wireframe_without_line_polygon_mode_draws_edges_from_triangles() {
    let world = terrain();
    for gpu in kit::gpu_contexts() {
        let no_lines = GpuContext::with_caps(gpu.adapter.clone(), |mut caps| {
            caps.polygon_mode_line = false;
            caps
        })
        .expect("device without line mode");
        assert!(!no_lines.caps.polygon_mode_line);
        let options = RendererOptions {
            mode: voxgpu_engine::RenderMode::Wireframe,
            procedural_sky: false,
            ..options()
        };
        let mut r = kit::renderer(&no_lines, &world, options);
        let image = frame(&mut r);
        let sky = *image.get_pixel(0, 0);
        let dark = image.pixels().filter(|p| p[0] < 60 && p[1] < 60 && p[2] < 60).count();
        let other = image.pixels().filter(|p| **p != sky && !(p[0] < 60 && p[1] < 60 && p[2] < 60)).count();
        let total = image.pixels().len();
        assert!(dark > total / 50, "{}: edges drawn ({dark} of {total})", gpu.summary);
        assert!(dark < total * 3 / 4, "{}: not filled faces ({dark} of {total})", gpu.summary);
        assert!(other < total / 20, "{}: only sky and edges ({other} other pixels)", gpu.summary);
    }
}

/// The depth pre-pass (depth of the opaque quads first, then shading at equal depth) draws the
/// same picture, pixel for pixel, with and without wireframe over it.
#[test]
fn the_depth_prepass_draws_the_same_picture() {
    let world = terrain();
    for gpu in kit::gpu_contexts() {
        for mode in [voxgpu_engine::RenderMode::Filled, voxgpu_engine::RenderMode::FilledWireframe] {
            let plain = frame(&mut kit::renderer(&gpu, &world, RendererOptions { mode, ..options() }));
            let with_prepass = RendererOptions { mode, depth_prepass: true, ..options() };
            let prepassed = frame(&mut kit::renderer(&gpu, &world, with_prepass));
            assert_same(&format!("depth pre-pass, {}", mode.name()), &gpu, &plain, &prepassed);
        }
    }
}

/// The same chunks, seen from the same place relative to them, at the origin and far from it:
/// positions reach the GPU measured from the camera's block, so the frames are identical pixel for
/// pixel 4,194,304 (2^22) and 9,961,472 blocks out (multiples of the 65,536-block period of the
/// per-block brightness jitter, the one thing on screen that depends on the world position;
/// 10,000,000 is as far as the camera flags allow, and f32 has the same one-block step there).
#[test]
fn the_same_chunks_far_from_the_origin_render_the_same_frame() {
    let world = terrain();
    for gpu in kit::gpu_contexts() {
        let render_at = |shift_blocks: i32| {
            let mut r = Offscreen::new(&gpu, options(), &world.registry).expect("renderer");
            let shift = IVec3::new(shift_blocks, 0, -shift_blocks);
            for (pos, chunk) in world.chunks() {
                let moved = voxgpu_core::voxel::ChunkPos(pos.0 + shift / 32);
                r.insert_chunk(moved, Arc::clone(chunk)).expect("fits");
            }
            let offset = shift.as_vec3();
            let c = camera();
            r.settle(&Camera::look_at(c.eye + offset, c.target + offset)).expect("frame");
            r.read_image().expect("readback")
        };
        let origin = render_at(0);
        for blocks in [4_194_304, 9_961_472] {
            let far = render_at(blocks);
            assert_same(&format!("{blocks} blocks out"), &gpu, &origin, &far);
        }
    }
}
