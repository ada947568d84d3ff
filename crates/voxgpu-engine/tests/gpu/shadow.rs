//! Sun shadows on every adapter, by its own draw submission and the instanced one: a stone pillar
//! on a stone floor, seen from near (the floor in the inner cascade), from 150 blocks away (the
//! outer one) and, in the morning, from above the far end of its shadow with the pillar's chunk
//! out of view (so the casters' cull must keep a caster whose shadow alone is seen), with
//! shadows on and off. Where the CPU's ray from a floor point towards the sun passes through the
//! pillar (with a margin for the filtered edge), the point is darker with shadows on, by the
//! sun's share of its light and no more; where the ray misses it by the margin, the pixel is
//! the same with shadows on as off, so nothing else is shadowed (no acne, no shadow from the
//! floor itself, nothing cast away from the sun).

use voxgpu_test_kit as kit;

use glam::{IVec3, Vec2, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::blocks as ids;
use voxgpu_core::voxel::{BlockRegistry, World};
use voxgpu_engine::{DrawSubmission, Offscreen, RendererOptions};

const SIZE: u32 = 256;
/// The floor's top face.
const FLOOR: f32 = 11.0;
/// The pillar: x and z in 0..3, y in 11..35 (through two chunks, both at x ≥ 0).
const PILLAR: (Vec3, Vec3) = (Vec3::new(0.0, 11.0, 0.0), Vec3::new(3.0, 35.0, 3.0));
/// Blocks from the pillar's box a ray must stay (in or out) for a point to be compared: the
/// shadow's filtered edge and the receivers' offset along their normal lie within it.
const MARGIN: f32 = 0.6;

fn pillar_world() -> World {
    let mut world = World::new(BlockRegistry::builtin());
    for z in -40..40 {
        for x in -40..40 {
            world.set_block(IVec3::new(x, 10, z), ids::STONE);
        }
    }
    for y in 11..35 {
        for z in 0..3 {
            for x in 0..3 {
                world.set_block(IVec3::new(x, y, z), ids::STONE);
            }
        }
    }
    world
}

/// Whether the ray from `origin` along `dir` meets the box `low..high` at `t > 0`.
fn hits(origin: Vec3, dir: Vec3, (low, high): (Vec3, Vec3)) -> bool {
    let inv = dir.recip();
    let (a, b) = ((low - origin) * inv, (high - origin) * inv);
    let near = a.min(b).max_element();
    let far = a.max(b).min_element();
    far >= near.max(0.0)
}

fn grown((low, high): (Vec3, Vec3), by: f32) -> (Vec3, Vec3) {
    (low - Vec3::splat(by), high + Vec3::splat(by))
}

/// The pixel `p` falls in, if it is inside the frame.
fn pixel(camera: &Camera, p: Vec3) -> Option<(u32, u32)> {
    let clip = camera.view_proj(1.0) * p.extend(1.0);
    if clip.w <= 0.0 {
        return None;
    }
    let ndc = Vec2::new(clip.x, clip.y) / clip.w;
    let at = Vec2::new(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * SIZE as f32;
    let inside = at.cmpge(Vec2::splat(2.0)).all() && at.cmplt(Vec2::splat(SIZE as f32 - 2.0)).all();
    inside.then_some((at.x as u32, at.y as u32))
}

fn frame(r: &mut Offscreen, camera: &Camera, shadows: bool) -> image::RgbaImage {
    r.set_shadows(Some(shadows));
    r.settle(camera).expect("frame");
    kit::ReadImage::read_image(r).expect("readback")
}

/// Linear luminance of an sRGB pixel.
fn luminance(p: &image::Rgba<u8>) -> f32 {
    let linear = |c: u8| (f32::from(c) / 255.0).powf(2.2);
    0.2126 * linear(p[0]) + 0.7152 * linear(p[1]) + 0.0722 * linear(p[2])
}

#[test]
fn the_pillar_shades_the_floor_where_the_sun_is_behind_it_and_nowhere_else() {
    let world = pillar_world();
    for gpu in kit::gpu_contexts() {
        // The adapter's own submission, and the instanced one, whose vertex shader finds its
        // quads through the list.
        for submission in [DrawSubmission::for_caps(gpu.caps), DrawSubmission::Instanced] {
            for hours in [10.0, 15.0] {
                let sun = voxgpu_engine::sun(hours).truncate();
                // The middle of the shadow on the floor, and the way it falls from the pillar.
                let away = -Vec3::new(sun.x, 0.0, sun.z).normalize();
                let centre = Vec3::new(1.5, FLOOR, 1.5) + away * 6.0;
                let side = away.cross(Vec3::Y);
                let views = [
                    ("near", Camera::look_at(centre + side * 12.0 + Vec3::new(0.0, 22.0, 0.0), centre)),
                    ("far", {
                        let mut far =
                            Camera::look_at(centre + side * 120.0 + Vec3::new(0.0, 90.0, 0.0), centre);
                        far.fov_y_degrees = 12.0;
                        far
                    }),
                ];
                // Over the shadow 17 blocks from the pillar: at 10:00 it falls towards −x, out of
                // the pillar's chunk, whose streams all lie at x ≥ 0.
                let below = (hours == 10.0).then(|| {
                    let over = Vec3::new(1.5, FLOOR, 1.5) + away * 17.0;
                    let mut camera =
                        Camera::look_at(over + Vec3::new(0.0, 8.0, 0.0), over + Vec3::new(0.01, 0.0, 0.0));
                    camera.fov_y_degrees = 40.0;
                    let frustum = voxgpu_core::cull::Frustum::from_view_proj(camera.view_proj(1.0));
                    let margin = Vec3::splat(voxgpu_engine::shadow::RECEIVER_MARGIN);
                    let chunk = (Vec3::ZERO - margin, Vec3::new(32.0, 64.0, 32.0) + margin);
                    assert!(
                        !frustum.intersects_box(chunk.0, chunk.1),
                        "the pillar's chunks are out of the view"
                    );
                    ("below", camera)
                });
                let options = RendererOptions {
                    fog: false,
                    time_of_day: hours,
                    draw_submission: Some(submission),
                    lod: voxgpu_core::lod::LodSettings::OFF,
                    ..RendererOptions::new(SIZE, SIZE, 400.0)
                };
                let mut r = kit::renderer(&gpu, &world, options);
                for (name, camera) in views.into_iter().chain(below) {
                    let what = format!("{} {}, {hours} h, {name}", gpu.summary, submission.name());
                    let on = frame(&mut r, &camera, true);
                    let off = frame(&mut r, &camera, false);
                    let dir = kit::output_dir().join("shadow");
                    std::fs::create_dir_all(&dir).expect("output dir");
                    let file = format!("{:?}-{}-{hours}-{name}", gpu.summary.backend, submission.name());
                    on.save(dir.join(format!("{file}-on.png"))).expect("save");
                    let (mut shaded, mut lit) = (0, 0);
                    for z in -160..160 {
                        for x in -160..160 {
                            let p = Vec3::new(x as f32 * 0.25 + 0.125, FLOOR, z as f32 * 0.25 + 0.125);
                            // Seen from the eye past the pillar, and away from the floor's edge.
                            let to_eye = camera.eye - p;
                            if hits(p, to_eye, grown(PILLAR, 0.5)) || p.x.abs().max(p.z.abs()) > 38.0 {
                                continue;
                            }
                            let Some((px, py)) = pixel(&camera, p) else { continue };
                            let (a, b) = (on.get_pixel(px, py), off.get_pixel(px, py));
                            if hits(p, sun, grown(PILLAR, -MARGIN)) {
                                shaded += 1;
                                let ratio = luminance(a) / luminance(b);
                                assert!(
                                    (0.5..0.85).contains(&ratio),
                                    "{what}: ({}, {}) in the shadow at {ratio:.3} of its light",
                                    p.x,
                                    p.z
                                );
                            } else if !hits(p, sun, grown(PILLAR, MARGIN)) {
                                lit += 1;
                                let step = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
                                assert!(step <= 1, "{what}: ({}, {}) in the sun changed by {step}", p.x, p.z);
                            }
                        }
                    }
                    println!("{what}: {shaded} points in the shadow, {lit} in the sun");
                    let (least_shaded, least_lit) = if name == "below" { (150, 30) } else { (200, 2000) };
                    assert!(
                        shaded > least_shaded && lit > least_lit,
                        "{what}: {shaded} shaded and {lit} lit points seen"
                    );
                }
            }
        }
    }
}

/// Cameras over and inside the terrain, looking every way, at hours from morning to evening.
fn caster_views(count: usize) -> Vec<(Camera, f32)> {
    let mut rng = kit::Rng(17);
    let mut coord = |range: u64, offset: f32| rng.below(range) as f32 - offset + 0.25;
    (0..count)
        .map(|i| {
            let eye = Vec3::new(coord(160, 80.0), coord(120, -20.0), coord(160, 80.0));
            let target = Vec3::new(coord(300, 150.0), coord(120, 0.0), coord(300, 150.0));
            let camera = Camera::look_at(eye, if target == eye { eye + Vec3::X } else { target });
            (camera, 7.0 + 10.0 * i as f32 / count as f32)
        })
        .collect()
}

#[test]
fn the_caster_lists_equal_the_cpu_twin() {
    use std::collections::BTreeMap;
    use voxgpu_engine::shadow::{CASCADES, CasterCommand, Rejection};
    // Commands within this many blocks of flipping a test are left out of the comparison: the
    // GPU may fuse the planes' products into other roundings.
    const EPSILON: f32 = 1e-2;
    let world = kit::opaque_terrain(5, 3);
    for gpu in kit::gpu_contexts() {
        let options = RendererOptions { fog: false, ..RendererOptions::new(160, 96, 400.0) };
        let mut r = kit::renderer(&gpu, &world, options);
        r.set_shadows(Some(true));
        let (mut listed, mut uncertain) = ([0usize; CASCADES], 0usize);
        // Streams left out by the cascade's box, the camera's frustum, the receivers' sphere and
        // the depth pyramid; views whose pass tested a pyramid.
        let mut left_out = [[0usize; 4]; CASCADES];
        let mut pyramids = 0;
        for (camera, hours) in caster_views(10) {
            r.set_time_of_day(hours);
            r.settle(&camera).expect("settles");
            let got = r.inspect().shadow_casters().expect("caster lists");
            let pyramid = got.pyramid.as_ref();
            pyramids += usize::from(pyramid.is_some());
            let (twin, near_flip) = got.cull.casters(&got.records, &got.faces, pyramid, EPSILON);
            for cascade in 0..CASCADES {
                let what = format!("{}, {hours:.1} h, cascade {cascade}, from {:?}", gpu.summary, camera.eye);
                let gpu_list = &got.lists[cascade];
                assert_eq!(got.listed[cascade] as usize, gpu_list.commands.len(), "{what}: within capacity");
                let drawn: u32 = gpu_list.commands.iter().map(|c| c.index_count / 6).sum();
                assert_eq!(drawn, gpu_list.quads, "{what}: the quad counter sums the commands");
                // Both as multisets, less the commands whose verdict the CPU calls too close.
                let count = |commands: &[CasterCommand]| {
                    let mut set = BTreeMap::<CasterCommand, i32>::new();
                    for c in commands {
                        *set.entry(*c).or_default() += 1;
                    }
                    for c in &near_flip[cascade] {
                        set.remove(c);
                    }
                    set
                };
                let (a, b) = (count(&gpu_list.commands), count(&twin[cascade].commands));
                assert_eq!(a, b, "{what}: the GPU's casters against the twin's");
                listed[cascade] += b.len();
                uncertain += near_flip[cascade].len();
                // What left out the streams the pass could have listed, each test counted where
                // it decided (and was not too near to call).
                for (slot, record) in got.records.iter().enumerate() {
                    for face in voxgpu_core::mesh::Face::ALL {
                        let mesh = &got.faces[slot * 6 + face as usize];
                        let verdict = got.cull.verdict(cascade, record, face, mesh, pyramid);
                        if verdict.margin > EPSILON {
                            match verdict.rejected_by {
                                Some(Rejection::CascadeBox) => left_out[cascade][0] += 1,
                                Some(Rejection::ViewFrustum) => left_out[cascade][1] += 1,
                                Some(Rejection::Receivers) => left_out[cascade][2] += 1,
                                Some(Rejection::Occluded) => left_out[cascade][3] += 1,
                                Some(Rejection::Exact) | None => {}
                            }
                        }
                    }
                }
            }
        }
        println!(
            "{}: casters listed {listed:?}, left out {left_out:?}, {uncertain} too near to call, {pyramids} views tested a pyramid",
            gpu.summary
        );
        for cascade in 0..CASCADES {
            assert!(listed[cascade] > 50, "{}: cascade {cascade} lists few casters: {listed:?}", gpu.summary);
            // The camera's frustum decides often in both cascades. The terrain (seven chunk
            // columns across) lies inside the outer cascade's box, so only the inner one's box
            // leaves streams out.
            assert!(left_out[cascade][1] > 20, "{}: cascade {cascade} culls few: {left_out:?}", gpu.summary);
        }
        // Every test decides somewhere: the inner box often, the receivers' sphere where a
        // caster's sweep passes it by, the pyramid where the shadow falls only out of sight
        // (views from inside the terrain, and the ground below hills).
        assert!(left_out[0][0] > 20, "{}: the inner box culls few: {left_out:?}", gpu.summary);
        assert!(
            left_out.iter().any(|c| c[2] > 0),
            "{}: the sphere decides nothing: {left_out:?}",
            gpu.summary
        );
        assert!(pyramids > 0, "{}: no view tested the casters against a depth pyramid", gpu.summary);
        assert!(left_out.iter().any(|c| c[3] > 20), "{}: the pyramid culls few: {left_out:?}", gpu.summary);
        assert!(uncertain * 100 < listed.iter().sum::<usize>(), "{uncertain} commands too near to call");
    }
}

/// A roof over the floor's far end, out of the eye's sight: y 30..33, x −35..−25, z −5..5.
const ROOF: (Vec3, Vec3) = (Vec3::new(-35.0, 30.0, -5.0), Vec3::new(-25.0, 33.0, 5.0));

/// The floor of `pillar_world` stretched west, the roof, and a ceiling over the eye's end (y 22,
/// x −10..12, z −15..15) that hides everything above it from an eye just under it.
fn hidden_roof_world() -> World {
    let mut world = World::new(BlockRegistry::builtin());
    for z in -40..40 {
        for x in -70..20 {
            world.set_block(IVec3::new(x, 10, z), ids::STONE);
        }
    }
    for z in -15..15 {
        for x in -10..12 {
            world.set_block(IVec3::new(x, 22, z), ids::STONE);
        }
    }
    let (low, high) = (ROOF.0.as_ivec3(), ROOF.1.as_ivec3());
    for y in low.y..high.y {
        for z in low.z..high.z {
            for x in low.x..high.x {
                world.set_block(IVec3::new(x, y, z), ids::STONE);
            }
        }
    }
    world
}

/// Occlusion culling tests a caster by where its shadow falls, not by where it is: a roof the
/// eye cannot see (a low ceiling over the eye hides it, so the depth pyramid hides its box)
/// shades floor the eye sees. The frame equals the frame without occlusion culling pixel for
/// pixel, and the roof's shadow is in it.
#[test]
fn a_caster_hidden_from_the_eye_still_casts_the_shadow_the_eye_sees() {
    use voxgpu_engine::Culling;
    let world = hidden_roof_world();
    // Two blocks under the ceiling, looking down at the roof's shadow (about x −48..−38, z 8..18
    // at 10:00) with the roof in the frustum, behind the ceiling.
    let mut camera = Camera::look_at(Vec3::new(10.0, 20.0, 0.5), Vec3::new(-43.0, FLOOR, 12.7));
    camera.fov_y_degrees = 60.0;
    let frustum = voxgpu_core::cull::Frustum::from_view_proj(camera.view_proj(1.0));
    assert!(frustum.intersects_box(ROOF.0, ROOF.1), "the roof lies in the view, behind the ceiling");
    let sun = voxgpu_engine::sun(10.0).truncate();
    for gpu in kit::gpu_contexts() {
        let options = |occlusion| RendererOptions {
            fog: false,
            time_of_day: 10.0,
            lod: voxgpu_core::lod::LodSettings::OFF,
            culling: Culling { occlusion, ..Culling::ALL },
            ..RendererOptions::new(SIZE, SIZE, 400.0)
        };
        let (mut on, mut off) =
            (kit::renderer(&gpu, &world, options(true)), kit::renderer(&gpu, &world, options(false)));
        let culled = frame(&mut on, &camera, true);
        let drawn = frame(&mut off, &camera, true);
        let unshaded = frame(&mut off, &camera, false);
        if culled != drawn {
            let dir = kit::output_dir().join("shadow");
            std::fs::create_dir_all(&dir).expect("output dir");
            culled.save(dir.join("hidden-roof-occlusion-on.png")).expect("save");
            drawn.save(dir.join("hidden-roof-occlusion-off.png")).expect("save");
            panic!("{}: occlusion culling changed the picture of the hidden roof's shadow", gpu.summary);
        }
        // The floor points the roof shades, seen from the eye: darker with shadows on. Their rays
        // to the sun pass four of the outer cascade's texels and half a block inside the roof's
        // sides: the receivers read two texels off the floor and filter over two.
        let texel =
            2.0 * voxgpu_engine::shadow::CASCADE_RADII[1] / voxgpu_engine::shadow::CASCADE_TEXELS[1] as f32;
        let margin = Vec3::new(4.0 * texel + 0.5, 0.0, 4.0 * texel + 0.5);
        let inner = (ROOF.0 + margin, ROOF.1 - margin);
        let mut shaded = 0;
        for z in -100..100 {
            for x in -280..-40 {
                let p = Vec3::new(x as f32 * 0.25 + 0.125, FLOOR, z as f32 * 0.25 + 0.125);
                if !hits(p, sun, inner) {
                    continue;
                }
                let Some((px, py)) = pixel(&camera, p) else { continue };
                let ratio = luminance(culled.get_pixel(px, py)) / luminance(unshaded.get_pixel(px, py));
                assert!(
                    ratio < 0.85,
                    "{}: ({}, {}) under the roof at {ratio:.3} of its light",
                    gpu.summary,
                    p.x,
                    p.z
                );
                shaded += 1;
            }
        }
        assert!(shaded > 100, "{}: only {shaded} points of the roof's shadow seen", gpu.summary);
        // The roof itself is hidden in the pyramid the caster pass tested: only its shadow keeps it.
        let casters = on.inspect().shadow_casters().expect("caster lists");
        let pyramid = casters.pyramid.as_ref().expect("the caster pass tested a depth pyramid");
        let anchor = glam::IVec3::from_array(casters.cull.anchor).as_vec3();
        let view_proj = glam::Mat4::from_cols_array_2d(&casters.cull.pyramid.view_proj);
        let hidden = pyramid.test_box(view_proj, ROOF.0 - anchor, ROOF.1 - anchor);
        assert!(hidden.occluded, "{}: the eye sees the roof, so the test proves nothing", gpu.summary);
        println!("{}: {shaded} points of a hidden roof's shadow seen", gpu.summary);
    }
}
