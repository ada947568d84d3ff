//! Occlusion culling on every adapter: the frame with it (and with per-quad culling, where the
//! submission has it) equals the frame without either pixel for pixel along a flight with sun
//! shadows (its first frame, camera cuts, a wall raised in front of the camera and dug away
//! again, other edits, a resize and a lost device), it culls streams, quads and shadow casters,
//! and the depth pyramid, its verdicts and the quads kept equal the CPU twin's.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::occlusion::DepthPyramid;
use voxgpu_core::voxel::{BlockId, World, blocks};
use voxgpu_engine::low_level::vis;
use voxgpu_engine::{Culling, DrawSubmission, GpuContext, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource};

const W: u32 = 160;
const H: u32 = 96;

fn options(culling: Culling) -> RendererOptions {
    RendererOptions { culling, ..RendererOptions::new(W, H, 400.0) }
}

/// Terrain with water, trees and caves, 7 × 7 chunk columns.
fn world() -> World {
    kit::generated(&WorldSource::Terrain, &WorldParams { seed: 11, center: IVec3::ZERO, view_distance: 3 })
}

/// The highest solid block of column (x, z), or 0.
fn ground(world: &World, x: i32, z: i32) -> i32 {
    (0..256).rev().find(|&y| world.block(IVec3::new(x, y, z)) != BlockId::AIR).unwrap_or(0)
}

/// A camera a few blocks above the ground at (x, z), looking along (dx, dz) and a little down:
/// the hills ahead hide what lies behind them.
fn walker(world: &World, x: f32, z: f32, dx: f32, dz: f32) -> Camera {
    let eye = Vec3::new(x, ground(world, x as i32, z as i32) as f32 + 4.5, z);
    Camera::look_at(eye, eye + Vec3::new(dx, -0.15, dz))
}

/// Streams the pyramid hid and no phase drew, from the last frame's verdicts.
fn culled(r: &Offscreen) -> usize {
    let candidates = r.inspect().occlusion_candidates().expect("verdicts");
    candidates.iter().filter(|c| c.bits & vis::OCCLUDED != 0 && c.bits & vis::DRAWN_FIRST == 0).count()
}

/// Shadow caster streams the last frame's caster pass left out because the depth pyramid hid
/// every piece of their shadow (by the pass's CPU twin, over what the pass read).
fn hidden_casters(r: &Offscreen) -> usize {
    use voxgpu_engine::shadow::{CASCADES, Rejection};
    let got = r.inspect().shadow_casters().expect("caster lists");
    let Some(pyramid) = got.pyramid.as_ref() else { return 0 };
    let mut hidden = 0;
    for (slot, record) in got.records.iter().enumerate() {
        for face in voxgpu_core::mesh::Face::ALL {
            let mesh = &got.faces[slot * 6 + face as usize];
            for cascade in 0..CASCADES {
                let verdict = got.cull.verdict(cascade, record, face, mesh, Some(pyramid));
                hidden += usize::from(verdict.rejected_by == Some(Rejection::Occluded));
            }
        }
    }
    hidden
}

#[derive(Clone, Copy, Debug)]
enum Step {
    /// Render from this camera.
    View(Camera),
    /// A wall of stone 4 blocks in front of the eye along the view's main axis in x, 13 wide and
    /// 9 high (or air there).
    Wall(BlockId),
    /// Dig the block under the eye's column, and place a brick pillar beside it.
    Edit,
    Resize(u32, u32),
    /// Destroy the occlusion-culled renderer's device and recover it on a new one.
    LoseDevice,
}

#[test]
fn occlusion_never_changes_the_picture_along_a_flight_with_cuts_edits_resizes_and_a_lost_device() {
    let world = world();
    let mut steps: Vec<Step> = (0..6)
        .map(|i| Step::View(walker(&world, -60.0 + 6.0 * i as f32, -50.0 + 4.0 * i as f32, 1.0, 0.7)))
        .collect();
    // A cut to the far side, looking back.
    let back = walker(&world, 70.0, 60.0, -1.0, -0.8);
    steps.extend([Step::View(back), Step::Wall(blocks::STONE), Step::View(back), Step::Wall(BlockId::AIR)]);
    steps.extend([Step::View(back), Step::Edit, Step::View(back), Step::Resize(131, 77), Step::View(back)]);
    steps.extend([Step::View(walker(&world, 0.0, 0.0, 0.3, 1.0)), Step::LoseDevice]);
    steps.extend((0..3).map(|i| Step::View(walker(&world, 10.0 * i as f32, 8.0, 0.3, 1.0))));
    for gpu in kit::gpu_contexts() {
        let doomed = GpuContext::from_adapter(gpu.adapter.clone()).expect("a second device");
        // Per-quad culling forced on, which CPU adapters leave off by default.
        let all = Culling { quads: Some(true), ..Culling::ALL };
        let mut on = Offscreen::new(&doomed, options(all), &world.registry).expect("renderer");
        for (pos, chunk) in world.chunks() {
            on.insert_chunk(pos, std::sync::Arc::clone(chunk)).expect("fits");
        }
        let none = Culling { occlusion: false, quads: Some(false), ..Culling::ALL };
        let mut off = kit::renderer(&gpu, &world, options(none));
        // With sun shadows, whose casters the occlusion-culled renderer also tests against its
        // depth pyramid: a shadow falling where the eye sees must never be lost.
        on.set_shadows(Some(true));
        off.set_shadows(Some(true));
        let (mut camera, mut frames, mut hidden, mut wall_hidden) = (None, 0, 0, 0);
        let (mut wall_at, mut shadows_hidden, mut quads_culled) = (None, 0, 0);
        for (i, &step) in steps.iter().enumerate() {
            match step {
                Step::View(c) => camera = Some(c),
                Step::Wall(block) => {
                    let view = camera.expect("a view first");
                    let ahead = (view.target.x - view.eye.x).signum() as i32;
                    let base = view.eye.floor().as_ivec3() + IVec3::new(4 * ahead, -4, 0);
                    wall_at = Some(base);
                    for dy in 0..9 {
                        for dz in -6..=6 {
                            for r in [&mut on, &mut off] {
                                r.set_block(base + IVec3::new(0, dy, dz), block).expect("edit");
                            }
                        }
                    }
                }
                Step::Edit => {
                    let eye = camera.expect("a view first").eye.floor().as_ivec3();
                    let dug = IVec3::new(eye.x, ground(&world, eye.x, eye.z), eye.z);
                    for r in [&mut on, &mut off] {
                        r.set_block(dug, BlockId::AIR).expect("edit");
                        for y in 1..5 {
                            r.set_block(dug + IVec3::new(-6, y, -6), blocks::BRICK).expect("edit");
                        }
                    }
                }
                Step::Resize(w, h) => {
                    on.resize(w, h).expect("resize");
                    off.resize(w, h).expect("resize");
                }
                Step::LoseDevice => {
                    doomed.device.destroy();
                    let frame = on.render(&camera.expect("a view"));
                    assert!(frame.is_err(), "{}: a frame on a destroyed device", gpu.summary);
                    let fresh = GpuContext::from_adapter(gpu.adapter.clone()).expect("a new device");
                    on.recover(&fresh).expect("recovers");
                    continue;
                }
            }
            let view = camera.expect("the flight starts with a view");
            quads_culled += on.render(&view).expect("frame").quads_culled;
            off.render(&view).expect("frame");
            let (a, b) = (on.read_image().expect("pixels"), off.read_image().expect("pixels"));
            if a != b {
                let dir = kit::output_dir().join("occlusion");
                std::fs::create_dir_all(&dir).expect("output dir");
                a.save(dir.join(format!("step{i}_on.png"))).expect("save");
                b.save(dir.join(format!("step{i}_off.png"))).expect("save");
                panic!("{} step {i} ({step:?}): occlusion culling changed the picture", gpu.summary);
            }
            frames += 1;
            shadows_hidden += hidden_casters(&on);
            let now = culled(&on);
            hidden += now;
            if matches!(step, Step::Wall(b) if b != BlockId::AIR) {
                wall_hidden = now;
            }
        }
        assert!(wall_at.is_some());
        assert!(hidden > 0, "{}: occlusion culled nothing in {frames} frames", gpu.summary);
        assert!(wall_hidden > 0, "{}: the wall in front of the eye hid nothing", gpu.summary);
        assert!(shadows_hidden > 0, "{}: the pyramid hid no shadow caster", gpu.summary);
        let per_quad = on.inspect().submission() == DrawSubmission::IndirectCount;
        assert_eq!(quads_culled > 0, per_quad, "{}: {quads_culled} quads culled one by one", gpu.summary);
        eprintln!(
            "{}: {frames} frames equal with and without occlusion culling; {hidden} streams culled, {wall_hidden} behind the wall, {shadows_hidden} shadow casters whose shadow fell out of sight, {quads_culled} quads culled one by one",
            gpu.summary
        );
    }
}

/// The counts of a settled frame add up: each candidate is drawn by one phase or occluded, and
/// they match the verdicts read back.
#[test]
fn every_candidate_is_drawn_once_or_occluded_and_the_counts_match_the_verdicts() {
    let world = world();
    let camera = walker(&world, -40.0, -30.0, 1.0, 0.7);
    for gpu in kit::gpu_contexts() {
        let mut r = kit::renderer(&gpu, &world, options(Culling::ALL));
        r.settle(&camera).expect("settles");
        let stats = r.settle(&camera).expect("settles");
        assert!(stats.occlusion_tested);
        assert_eq!(stats.candidates, stats.drawn_first + stats.drawn_second + stats.occluded, "{stats:?}");
        let verdicts = r.inspect().occlusion_candidates().expect("verdicts");
        assert_eq!(verdicts.len() as u32, stats.candidates);
        let first = verdicts.iter().filter(|v| v.bits & vis::DRAWN_FIRST != 0).count() as u32;
        assert_eq!(first, stats.drawn_first);
        // A still camera: the first phase draws what the frame before saw, which is nearly all
        // that is seen.
        assert!(stats.drawn_first > 0 && stats.occluded > 0, "{}: {stats:?}", gpu.summary);
        let mut off = kit::renderer(&gpu, &world, options(Culling { occlusion: false, ..Culling::ALL }));
        let off_stats = off.settle(&camera).expect("settles");
        assert!(!off_stats.occlusion_tested && off_stats.occluded == 0 && off_stats.drawn_first == 0);
        assert_eq!(off_stats.candidates, stats.candidates, "occlusion comes after the frustum");
        assert!(stats.quads < off_stats.quads, "{} !< {}", stats.quads, off_stats.quads);
        eprintln!(
            "{}: {} candidates, {} drawn first, {} second, {} occluded; quads {} against {}",
            gpu.summary,
            stats.candidates,
            stats.drawn_first,
            stats.drawn_second,
            stats.occluded,
            stats.quads,
            off_stats.quads
        );
    }
}

/// The CPU twin reads back the depth the GPU built its pyramid from: the pyramids are equal bit
/// for bit, and the verdicts equal except where rounding could tip them (`BoxTest::marginal`),
/// which are counted.
#[test]
fn the_depth_pyramid_and_its_verdicts_equal_the_cpu_twin() {
    let world = world();
    let cameras = [
        walker(&world, -40.0, -30.0, 1.0, 0.7),
        walker(&world, 60.0, 50.0, -1.0, -0.9),
        Camera::look_at(Vec3::new(0.0, 140.0, 0.0), Vec3::new(80.0, 40.0, 70.0)),
    ];
    for gpu in kit::gpu_contexts() {
        let mut r = kit::renderer(&gpu, &world, options(Culling::ALL));
        r.tools().set_depth_capture(true);
        let (mut compared, mut occluded, mut marginal, mut tipped) = (0, 0, 0, 0);
        for camera in &cameras {
            r.settle(camera).expect("settles");
            r.render(camera).expect("frame");
            let (width, height, depth) = r.inspect().first_phase_depth().expect("depth");
            let cpu = DepthPyramid::from_depth(width, height, &depth);
            let gpu_pyramid = r.inspect().pyramid().expect("pyramid");
            assert_eq!((gpu_pyramid.width, gpu_pyramid.height), (W, H));
            let bits = |p: &DepthPyramid| p.texels.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
            assert!(bits(&cpu) == bits(&gpu_pyramid), "{}: the pyramids differ", gpu.summary);
            assert!(cpu.texels.iter().any(|&t| t > 0.0), "the first phase drew something");
            let anchor = camera.anchor();
            let view_proj = camera.view_proj_from(W as f32 / H as f32, anchor);
            for v in r.inspect().occlusion_candidates().expect("verdicts") {
                let test = cpu.test_box(view_proj, (v.low - anchor).as_vec3(), (v.high - anchor).as_vec3());
                let on_gpu = v.bits & vis::OCCLUDED != 0;
                compared += 1;
                occluded += on_gpu as u32;
                marginal += test.marginal as u32;
                if test.occluded != on_gpu {
                    assert!(test.marginal, "{}: {v:?} CPU {test:?}", gpu.summary);
                    tipped += 1;
                }
            }
        }
        assert!(occluded > 0, "{}: nothing occluded in {compared}", gpu.summary);
        eprintln!(
            "{}: {compared} verdicts, {occluded} occluded, equal to the twin but {tipped} of {marginal} marginal",
            gpu.summary
        );
    }
}

/// Per-quad culling keeps exactly the quads its CPU twin keeps (`cull::quad_box` against the
/// frustum grown by `QUAD_MARGIN` and, after the first phase, the depth pyramid), except where
/// rounding could tip a verdict, which are counted: in frames without occlusion culling (the
/// frustum alone), and in frames cut to from another view (whose second phase draws most of the
/// frame, tested against the pyramid). Where the submission has no GPU-written draw count (GL)
/// it is never used.
#[test]
fn the_quads_kept_one_by_one_equal_the_cpu_twin() {
    use voxgpu_core::cull::{Frustum, QUAD_MARGIN, quad_box};
    let world = world();
    let cameras = [
        walker(&world, -40.0, -30.0, 1.0, 0.7),
        walker(&world, 60.0, 50.0, -1.0, -0.9),
        Camera::look_at(Vec3::new(0.0, 140.0, 0.0), Vec3::new(80.0, 40.0, 70.0)),
    ];
    for gpu in kit::gpu_contexts() {
        let quads = Culling { quads: Some(true), ..Culling::ALL };
        let mut frustum_only = kit::renderer(&gpu, &world, options(Culling { occlusion: false, ..quads }));
        let mut two_phase = kit::renderer(&gpu, &world, options(quads));
        two_phase.tools().set_depth_capture(true);
        let per_quad = two_phase.inspect().submission() == DrawSubmission::IndirectCount;
        let (mut listed, mut kept, mut culled, mut occluded, mut marginal) = (0, 0, 0, 0, 0);
        let mut frustum_culled = 0;
        for (i, camera) in cameras.iter().enumerate() {
            frustum_only.settle(camera).expect("settles");
            // A cut from the view before, so the second phase draws most of the frame.
            two_phase.settle(&cameras[(i + cameras.len() - 1) % cameras.len()]).expect("settles");
            two_phase.render(camera).expect("frame");
            for (r, occlusion) in [(&frustum_only, false), (&two_phase, true)] {
                let got = r.inspect().quad_cull().expect("quad lists");
                assert_eq!(got.used, per_quad, "{}", gpu.summary);
                if !per_quad {
                    continue;
                }
                let pyramid = if occlusion {
                    let (width, height, depth) = r.inspect().first_phase_depth().expect("depth");
                    Some(DepthPyramid::from_depth(width, height, &depth))
                } else {
                    None
                };
                let anchor = camera.anchor();
                let view_proj = camera.view_proj_from(W as f32 / H as f32, anchor);
                let frustum = Frustum::from_view_proj(view_proj);
                for list in 0..got.kept.len() as u32 {
                    let mut twin = Vec::new();
                    let mut tipping = std::collections::HashSet::new();
                    for q in got.listed.iter().filter(|q| q.list == list) {
                        listed += 1;
                        let [low, high] = quad_box(&q.quad, q.origin, q.lod, anchor);
                        let (grown_low, grown_high) = (low - QUAD_MARGIN, high + QUAD_MARGIN);
                        let in_view = frustum.intersects_box(grown_low, grown_high);
                        // The second phase tests the pyramid, except in the debug view's list.
                        let test = pyramid.as_ref().map(|p| p.test_box(view_proj, low, high));
                        let hidden = in_view && list != 3 && test.is_some_and(|t| t.occluded);
                        occluded += u32::from(hidden);
                        if frustum.margin(grown_low, grown_high) < 1e-3
                            || (in_view && test.is_some_and(|t| t.marginal))
                        {
                            tipping.insert(q.index);
                        }
                        if in_view && !hidden {
                            twin.push(q.index);
                        }
                    }
                    let mut on_gpu = got.kept[list as usize].clone();
                    on_gpu.sort_unstable();
                    let entries = on_gpu.len();
                    on_gpu.dedup();
                    assert_eq!(on_gpu.len(), entries, "{} list {list}: a quad kept twice", gpu.summary);
                    twin.sort_unstable();
                    let differ: Vec<u32> = on_gpu
                        .iter()
                        .filter(|i| twin.binary_search(i).is_err())
                        .chain(twin.iter().filter(|i| on_gpu.binary_search(i).is_err()))
                        .copied()
                        .collect();
                    assert!(
                        differ.iter().all(|i| tipping.contains(i)),
                        "{} list {list}: GPU and twin differ on quads {differ:?}",
                        gpu.summary
                    );
                    marginal += tipping.len();
                    kept += on_gpu.len();
                    let dropped = got.listed.iter().filter(|q| q.list == list).count() - on_gpu.len();
                    culled += dropped;
                    frustum_culled += if occlusion { 0 } else { dropped };
                }
            }
        }
        if per_quad {
            assert!(
                frustum_culled > 0 && culled > frustum_culled && occluded > 0,
                "{}: {culled} culled ({frustum_culled} without a pyramid), {occluded} occluded",
                gpu.summary
            );
        }
        eprintln!(
            "{}: per-quad culling {}; {listed} quads listed, {kept} kept, {culled} culled ({occluded} by the pyramid), equal to the twin but {marginal} marginal",
            gpu.summary,
            if per_quad { "on" } else { "not used (no GPU-written draw count)" }
        );
    }
}
