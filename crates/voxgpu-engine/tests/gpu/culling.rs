//! Culling on every adapter: the GPU's visible set against the CPU frustum, culling that never
//! changes the picture, the frozen culling camera, and a frame's render-pass commands that do not
//! depend on the world's size.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::collections::BTreeSet;

use glam::Vec3;
use kit::Rng;
use voxgpu_core::camera::Camera;
use voxgpu_core::cull::Frustum;
use voxgpu_core::voxel::{ChunkPos, World, chunk_aabb};
use voxgpu_engine::{Culling, DrawSubmission, GpuContext, Offscreen, RendererOptions};

const W: u32 = 192;
const H: u32 = 128;

fn renderer(gpu: &GpuContext, world: &World, culling: Culling) -> Offscreen {
    kit::renderer(gpu, world, RendererOptions { culling, ..RendererOptions::new(W, H, 400.0) })
}

/// Cameras over and inside the terrain, looking every way.
fn cameras(count: usize, seed: u64) -> Vec<Camera> {
    let mut rng = Rng(seed);
    let mut coord = |range: u64, offset: f32| rng.below(range) as f32 - offset + 0.25;
    (0..count)
        .map(|_| {
            let eye = Vec3::new(coord(200, 100.0), coord(160, 0.0), coord(200, 100.0));
            let target = Vec3::new(coord(300, 150.0), coord(200, 50.0), coord(300, 150.0));
            Camera::look_at(eye, if target == eye { eye + Vec3::X } else { target })
        })
        .collect()
}

#[test]
fn gpu_visible_set_equals_the_cpu_frustum_on_random_cameras() {
    let world = kit::opaque_terrain(5, 3);
    for gpu in kit::gpu_contexts() {
        let mut r = renderer(&gpu, &world, Culling::ALL);
        r.settle(&cameras(1, 1)[0]).expect("settles");
        let with_quads: Vec<ChunkPos> = r
            .inspect()
            .meshes()
            .expect("meshes")
            .into_iter()
            .filter(|m| m.mesh.quad_count() > 0)
            .map(|m| m.pos)
            .collect();
        let (mut compared, mut borderline, mut culled) = (0, 0, 0);
        for camera in cameras(12, 9) {
            r.render(&camera).expect("frame");
            let gpu_visible: BTreeSet<ChunkPos> =
                r.inspect().visible().expect("visible").into_iter().collect();
            let frustum = Frustum::from_view_proj(camera.view_proj(W as f32 / H as f32));
            for &pos in &with_quads {
                let (min, max) = chunk_aabb(pos);
                if frustum.margin(min, max) < 1e-3 {
                    borderline += 1;
                    continue;
                }
                let cpu = frustum.intersects_box(min, max);
                assert_eq!(gpu_visible.contains(&pos), cpu, "{pos:?} from {camera:?} on {}", gpu.summary);
                compared += 1;
                culled += !cpu as usize;
            }
        }
        assert!(culled > compared / 10, "the cameras should cull many chunks: {culled} of {compared}");
        assert!(borderline * 50 < compared, "{borderline} borderline of {compared}");
    }
}

#[test]
fn culling_never_changes_the_picture_and_draws_fewer_quads() {
    let world = kit::opaque_terrain(5, 3);
    for gpu in kit::gpu_contexts() {
        let mut on = renderer(&gpu, &world, Culling::ALL);
        let mut off = renderer(&gpu, &world, Culling::NONE);
        let mut faces_only = renderer(&gpu, &world, Culling { frustum: false, ..Culling::ALL });
        for (i, camera) in cameras(6, 3).iter().enumerate() {
            let stats_on = on.settle(camera).expect("frame");
            let stats_off = off.settle(camera).expect("frame");
            faces_only.settle(camera).expect("frame");
            let (a, b, c) =
                (on.read_image().unwrap(), off.read_image().unwrap(), faces_only.read_image().unwrap());
            assert!(a == b, "camera {i} on {}: culling changed the picture", gpu.summary);
            assert!(c == b, "camera {i} on {}: face culling alone changed the picture", gpu.summary);
            assert!(
                stats_on.quads < stats_off.quads,
                "camera {i}: {} !< {}",
                stats_on.quads,
                stats_off.quads
            );
            assert_eq!(stats_off.chunks_visible, stats_off.chunks_tested, "no frustum test, all visible");
        }
    }
}

/// Per-quad culling (forced on: CPU adapters leave it off by default) draws the same picture as
/// drawing every quad of the kept streams, in every render mode, with the depth pre-pass too;
/// where the submission has no GPU-written count (GL) it is never used.
#[test]
fn culling_quads_one_by_one_never_changes_the_picture_in_any_mode() {
    let world = kit::opaque_terrain(5, 3);
    let camera = cameras(1, 7)[0];
    for gpu in kit::gpu_contexts() {
        let mut on = renderer(&gpu, &world, Culling { quads: Some(true), ..Culling::ALL });
        let mut off = renderer(&gpu, &world, Culling { quads: Some(false), ..Culling::ALL });
        let mut culled = 0;
        for mode in voxgpu_engine::RenderMode::ALL {
            for prepass in [false, true] {
                for r in [&mut on, &mut off] {
                    r.set_mode(mode);
                    r.tools().set_depth_prepass(prepass);
                }
                on.settle(&camera).expect("frame");
                culled += on.settle(&camera).expect("frame").quads_culled;
                off.settle(&camera).expect("frame");
                let (a, b) = (on.read_image().unwrap(), off.read_image().unwrap());
                assert!(
                    a == b,
                    "{mode:?}, pre-pass {prepass} on {}: per-quad culling changed the picture",
                    gpu.summary
                );
            }
        }
        let per_quad = on.inspect().submission() == DrawSubmission::IndirectCount;
        assert_eq!(culled > 0, per_quad, "{}: {culled} quads culled one by one", gpu.summary);
    }
}

#[test]
fn a_frozen_culling_camera_keeps_culling_while_the_view_moves() {
    let world = kit::opaque_terrain(5, 3);
    let view = Camera::look_at(Vec3::new(-120.0, 200.0, -120.0), Vec3::new(0.0, 60.0, 0.0));
    // Frozen at the world's centre, looking +X: only chunks ahead of it in +X are drawn.
    let frozen = Camera::look_at(Vec3::new(0.0, 90.0, 0.0), Vec3::new(100.0, 90.0, 0.0));
    for gpu in kit::gpu_contexts() {
        let mut r = renderer(&gpu, &world, Culling { frozen: Some(frozen), ..Culling::ALL });
        let stats = r.settle(&view).expect("frame");
        let visible = r.inspect().visible().expect("visible");
        assert!(!visible.is_empty() && stats.chunks_visible < stats.chunks_tested);
        assert!(visible.iter().all(|p| chunk_aabb(*p).1.x > 0.0), "all visible chunks lie ahead (+X)");
        let frozen_image = r.read_image().unwrap();
        r.set_culling(Culling::ALL);
        r.settle(&view).expect("frame");
        assert!(r.read_image().unwrap() != frozen_image, "the frozen frustum hides part of the view");
    }
}

#[test]
fn a_frame_records_the_same_render_pass_commands_for_ten_chunks_or_fifteen_hundred() {
    let big = kit::opaque_terrain(2, 12);
    let mut small = World::new(big.registry.clone());
    for pos in big.sorted_positions().into_iter().take(10) {
        small.insert(pos, voxgpu_core::voxel::Chunk::clone(big.chunk(pos).unwrap()));
    }
    let mut big_part = World::new(big.registry.clone());
    for pos in big.sorted_positions().into_iter().take(1600) {
        big_part.insert(pos, voxgpu_core::voxel::Chunk::clone(big.chunk(pos).unwrap()));
    }
    let camera = Camera::look_at(Vec3::new(0.0, 150.0, 0.0), Vec3::new(100.0, 60.0, 100.0));
    for gpu in kit::gpu_contexts() {
        // Every draw submission the adapter can do, each drawing the same frame: one renderer
        // per world, switched from one way to the next; the count submission also with per-quad
        // culling forced on (each list then drawn from its quad list), which CPU adapters leave
        // off by default.
        let supported = DrawSubmission::ALL.into_iter().filter(|s| s.is_supported(gpu.caps));
        let mut submissions: Vec<(DrawSubmission, bool)> = supported.map(|s| (s, false)).collect();
        if gpu.caps.multi_draw_indirect_count {
            submissions.push((DrawSubmission::IndirectCount, true));
        }
        assert!(submissions.len() >= 2, "at least two submissions on {}", gpu.summary);
        let mut frames = Vec::new();
        let mut counts = vec![Vec::new(); submissions.len()];
        for world in [&small, &big_part] {
            let mut r = kit::renderer(&gpu, world, RendererOptions::new(W, H, 400.0));
            for (&(submission, per_quad), counts) in submissions.iter().zip(&mut counts) {
                r.tools().set_draw_submission(submission).expect("a submission the adapter has");
                r.set_culling(Culling { quads: Some(per_quad), ..Culling::ALL });
                assert_eq!(r.inspect().submission(), submission);
                r.settle(&camera).expect("frame");
                // The counters of a frame that culled quads one by one, read after the next.
                let culled = r.settle(&camera).expect("frame").quads_culled;
                assert!(per_quad || culled == 0, "{culled} quads culled one by one, asked for none");
                assert!(!per_quad || world.len() <= 10 || culled > 0, "{submission:?}: nothing culled");
                counts.push((world.len(), r.inspect().render_pass_commands()));
                if world.len() == big_part.len() {
                    frames.push((submission, r.read_image().expect("read back")));
                }
            }
        }
        let submissions: Vec<DrawSubmission> = submissions.iter().map(|&(s, _)| s).collect();
        for (submission, counts) in submissions.iter().zip(&counts) {
            assert_eq!(counts[0].1, counts[1].1, "{submission:?}: {counts:?} on {}", gpu.summary);
            eprintln!("{submission:?}: (chunks, render-pass commands) {counts:?} on {}", gpu.summary);
            assert!(counts[0].1 > 0 && counts[1].0 > 100 * counts[0].0, "{counts:?}");
        }
        // The transparent list too (its sorted region, the instanced path's second draw): glass
        // and water filling a box of chunks, seen from outside. Equal keys of different chunks
        // are drawn in a defined order, so every submission blends the same frame.
        let glass = voxgpu_worlds::worldgen::generate(
            &voxgpu_worlds::worldgen::WorldSource::GlassChecker,
            &voxgpu_worlds::worldgen::WorldParams { seed: 1, center: glam::IVec3::ZERO, view_distance: 1 },
        )
        .expect("glass checker");
        assert!(glass.len() > 1, "several transparent chunks: {}", glass.len());
        let glass_camera = Camera::look_at(Vec3::new(90.0, 70.0, 110.0), Vec3::new(16.0, 16.0, 16.0));
        let mut r = kit::renderer(&gpu, &glass, RendererOptions::new(W, H, 400.0));
        // A way the device cannot submit is refused and changes nothing (GL has no indirect count).
        let before = r.inspect().submission();
        for missing in DrawSubmission::ALL.into_iter().filter(|s| !submissions.contains(s)) {
            assert!(r.tools().set_draw_submission(missing).is_err(), "{missing:?} on {}", gpu.summary);
            assert_eq!(r.inspect().submission(), before);
        }
        for &submission in &submissions {
            r.tools().set_draw_submission(submission).expect("a submission the adapter has");
            let stats = r.settle(&glass_camera).expect("frame");
            assert!(stats.quads > 0, "the glass is drawn");
            frames.push((submission, r.read_image().expect("read back")));
        }
        let opaque = frames.len() / 2;
        for (group, frames) in [&frames[..opaque], &frames[opaque..]].into_iter().enumerate() {
            for (submission, frame) in &frames[1..] {
                assert!(
                    frame == &frames[0].1,
                    "{submission:?} draws another frame than {:?} on {} ({})",
                    frames[0].0,
                    gpu.summary,
                    ["terrain", "glass"][group]
                );
            }
        }
    }
}
