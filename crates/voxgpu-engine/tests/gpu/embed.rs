//! The engine as a game embeds it, through its public API only: the test creates its own
//! instance and device (with the limits and features voxgpu states), records voxgpu and a draw
//! of its own into one encoder, and reads the result back. The game's cube is half buried in the
//! ground: its upper half must show over the terrain, its lower half must be hidden by it, so
//! both draws share one reverse-Z depth buffer correctly.
//!
//! Runs on every Vulkan and GL adapter present; with none it fails (`VOXGPU_ALLOW_NO_GPU=1`
//! opts out), and `VOXGPU_REQUIRE_BACKENDS` names backends that must be present.

#[path = "../../examples/support/player_cube.rs"]
mod player_cube;

use std::sync::Arc;

use glam::{IVec3, Vec3};
use player_cube::PlayerCube;
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockRegistry, CHUNK_SIZE, Chunk, ChunkPos, World, blocks};
use voxgpu_engine::{
    COLOR_FORMAT, DEPTH_FORMAT, OPTIONAL_FEATURES, Renderer, RendererOptions, Targets, required_limits,
};

const W: u32 = 160;
const H: u32 = 120;

/// Every Vulkan and GL adapter's device, named, and whether the adapter can view a texture in
/// another format (`VIEW_FORMATS`).
fn devices() -> Vec<(String, wgpu::Device, wgpu::Queue, bool)> {
    // What the `voxgpu` binary does (`GpuContext::quiet_device_select`), so this process prints
    // no Mesa device-select lines: once per process, before any test of this binary makes an
    // instance.
    voxgpu_test_kit::quiet_device_select();
    let backends = wgpu::Backends::VULKAN | wgpu::Backends::GL;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    let mut out = Vec::new();
    for adapter in adapters {
        let info = adapter.get_info();
        let limits = required_limits(&adapter.limits()).expect("a software adapter has what voxgpu needs");
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("game.device"),
            required_features: adapter.features() & OPTIONAL_FEATURES,
            required_limits: limits,
            ..Default::default()
        }))
        .expect("device with voxgpu's limits");
        let view_formats =
            adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VIEW_FORMATS);
        out.push((format!("{} ({:?})", info.name, info.backend), device, queue, view_formats));
    }
    if let Ok(required) = std::env::var("VOXGPU_REQUIRE_BACKENDS") {
        for name in required.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            assert!(
                out.iter().any(|(n, ..)| n.to_lowercase().contains(&format!("({})", name.to_lowercase()))),
                "VOXGPU_REQUIRE_BACKENDS names {name}, but no {name} adapter was found"
            );
        }
    }
    let opted_out = std::env::var("VOXGPU_ALLOW_NO_GPU").as_deref() == Ok("1");
    assert!(!out.is_empty() || opted_out, "no GPU adapter found (VOXGPU_ALLOW_NO_GPU=1 opts out)");
    out
}

fn texture(device: &wgpu::Device, format: wgpu::TextureFormat, usage: wgpu::TextureUsages) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("game.target"),
        size: wgpu::Extent3d { width: W, height: H, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// RGBA bytes of `texture` (W×H, 4 bytes a pixel).
fn read(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Vec<u8> {
    let row = (W * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("game.readback"),
        size: (row * H) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(H),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    buffer.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let mapped = buffer.get_mapped_range(..).expect("mapped");
    mapped.chunks_exact(row as usize).flat_map(|r| r[..(W * 4) as usize].to_vec()).collect()
}

/// The pixel `point` projects to.
fn pixel_of(camera: &Camera, point: Vec3) -> (u32, u32) {
    let clip = camera.view_proj(W as f32 / H as f32) * point.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    (((ndc.x * 0.5 + 0.5) * W as f32) as u32, ((0.5 - ndc.y * 0.5) * H as f32) as u32)
}

#[test]
fn a_game_records_voxgpu_and_its_own_draw_into_one_encoder_sharing_depth() {
    // Stone ground, its top at y = 16, over 3×3 chunks around the origin.
    let mut ground = Chunk::empty();
    for x in 0..CHUNK_SIZE {
        for z in 0..CHUNK_SIZE {
            for y in 0..16 {
                ground.set(x, y, z, blocks::STONE);
            }
        }
    }
    let ground = Arc::new(ground);
    let camera = Camera::look_at(Vec3::new(-30.0, 45.0, -30.0), Vec3::new(16.0, 16.0, 16.0));
    let (centre, half) = (Vec3::new(16.0, 16.0, 16.0), 5.0);
    let magenta = Vec3::new(1.0, 0.0, 1.0);
    for (name, device, queue, _) in devices() {
        let options = RendererOptions { procedural_sky: false, ..RendererOptions::new(W, H, 400.0) };
        let mut voxels =
            Renderer::new(&device, &queue, options, &BlockRegistry::builtin()).expect("renderer");
        for x in -1..=1 {
            for z in -1..=1 {
                voxels.insert_chunk(ChunkPos(IVec3::new(x, 0, z)), Arc::clone(&ground)).expect("chunk");
            }
        }
        let color = texture(
            &device,
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture(&device, DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT);
        let (color_view, depth_view) =
            (color.create_view(&Default::default()), depth.create_view(&Default::default()));
        let targets = Targets { color: &color_view, depth: &depth_view, clear: true };
        voxels.settle(&camera, &targets).expect("the ground meshes");

        // One frame: voxgpu, then the game's cube, in one encoder and one submission.
        let cube = PlayerCube::new(&device, COLOR_FORMAT);
        cube.prepare(&queue, &camera, W as f32 / H as f32, centre, half, magenta);
        voxels.prepare(&camera).expect("prepare");
        let mut encoder = device.create_command_encoder(&Default::default());
        voxels.record(&mut encoder, &targets).expect("record");
        cube.draw(&mut encoder, &color_view, &depth_view);
        queue.submit([encoder.finish()]);
        voxels.frame_submitted();
        let rgba = read(&device, &queue, &color);

        let at = |p: Vec3| {
            let (x, y) = pixel_of(&camera, p);
            let i = ((y * W + x) * 4) as usize;
            [rgba[i], rgba[i + 1], rgba[i + 2]]
        };
        let is_cube = |c: [u8; 3]| c[0] > 120 && c[2] > 120 && c[1] < 60;
        let sky = (options_sky() * 255.0).round();
        let is_sky = |c: [u8; 3]| (0..3).all(|i| (c[i] as f32 - sky[i]).abs() <= 40.0);
        // The top of the cube, above the ground: the game's draw shows.
        let top = centre + Vec3::new(0.0, half, 0.0);
        assert!(is_cube(at(top)), "{name}: the cube's top should show, got {:?}", at(top));
        // The cube's face towards the camera, below the ground's surface: hidden by voxels.
        let buried = centre + Vec3::new(-half, -0.6 * half, 0.0);
        assert!(!is_cube(at(buried)), "{name}: the buried part should be hidden, got {:?}", at(buried));
        // Ground away from the cube: voxgpu drew it (not the background).
        let ground_point = Vec3::new(0.0, 16.0, 8.0);
        assert!(
            !is_sky(at(ground_point)) && !is_cube(at(ground_point)),
            "{name}: ground {:?}",
            at(ground_point)
        );
    }
}

/// Seed 1's terrain at a 3-chunk view, with water and trees: the world the shading tests draw.
fn terrain() -> World {
    voxgpu_test_kit::generated(
        &voxgpu_worlds::worldgen::WorldSource::Terrain,
        &voxgpu_worlds::worldgen::WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 3 },
    )
}

/// The camera the shading tests look at [`terrain`] through: mostly terrain, some sky.
fn terrain_camera() -> Camera {
    Camera::look_at(Vec3::new(-20.0, 100.0, -30.0), Vec3::new(40.0, 70.0, 30.0))
}

/// A renderer on `device` holding every chunk of `world`.
fn renderer_of(
    world: &World,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    options: RendererOptions,
) -> Renderer {
    let mut voxels = Renderer::new(device, queue, options, &world.registry).expect("renderer");
    for pos in world.sorted_positions() {
        voxels.insert_chunk(pos, Arc::clone(world.chunk(pos).expect("listed"))).expect("chunk");
    }
    voxels
}

/// The background colour a frame without the procedural sky is cleared to, as sRGB in 0..1.
fn options_sky() -> Vec3 {
    let linear = RendererOptions::new(1, 1, 1.0).sky_color;
    let encode = |c: f32| if c <= 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    Vec3::new(encode(linear.x), encode(linear.y), encode(linear.z))
}

/// The opaque surfaces shaded once per pixel (the frame's depth target can be read) and shaded
/// forward, each fragment as it is drawn (a render-attachment-only depth target, as a game may
/// make), are the same frame: terrain with water and trees at sunset, light and shadows on.
/// - The per-pixel path keeps the shaded colour in half floats until the compose pass draws it,
///   so a channel may differ by one step.
/// - It finds a pixel's point where the ray through the pixel's centre meets its quad's plane,
///   where the rasteriser interpolates it from the corners; the two differ in f32 rounding
///   (about 1e-5 blocks at this distance), so a pixel whose centre lies that close to a texel's
///   edge may show the neighbouring texel on one path: a few pixels in 10,000.
/// - A wrong position, face, quad, colour or light read differs by more, at far more pixels: at
///   most 0.1% of the pixels may differ by more than one step.
#[test]
fn a_depth_target_that_cannot_be_read_shades_forward_to_the_same_frame() {
    let (world, camera) = (terrain(), terrain_camera());
    for (name, device, queue, _) in devices() {
        let options = RendererOptions {
            shadows: Some(true),
            time_of_day: 17.2,
            procedural_sky: false,
            ..RendererOptions::new(W, H, 400.0)
        };
        let mut frames = Vec::new();
        for depth_usage in [wgpu::TextureUsages::TEXTURE_BINDING, wgpu::TextureUsages::empty()] {
            let mut voxels = renderer_of(&world, &device, &queue, options.clone());
            let color = texture(
                &device,
                COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            );
            let depth = texture(&device, DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT | depth_usage);
            let (color_view, depth_view) =
                (color.create_view(&Default::default()), depth.create_view(&Default::default()));
            let targets = Targets { color: &color_view, depth: &depth_view, clear: true };
            voxels.settle(&camera, &targets).expect("the terrain meshes");
            frames.push(read(&device, &queue, &color));
        }
        let (per_pixel, forward) = (&frames[0], &frames[1]);
        let differences: Vec<u8> = per_pixel.iter().zip(forward).map(|(a, b)| a.abs_diff(*b)).collect();
        let largest = differences.iter().copied().max().unwrap_or(0);
        let off = differences.iter().filter(|&&d| d > 0).count();
        let pixels_off = differences.chunks_exact(4).filter(|p| p.iter().any(|&d| d > 1)).count();
        let allowed = (W * H / 1000) as usize;
        eprintln!(
            "{name}: channels differing {off} of {} (largest {largest}); pixels differing by more than a step {pixels_off} (at most {allowed})",
            differences.len()
        );
        if pixels_off > allowed {
            let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/output");
            std::fs::create_dir_all(&out).expect("tests/output");
            for (frame, which) in [(per_pixel, "per-pixel"), (forward, "forward")] {
                let image = image::RgbaImage::from_raw(W, H, frame.clone()).expect("W × H × 4 bytes");
                image.save(out.join(format!("shading-{which}.png"))).expect("saved");
            }
        }
        assert!(
            pixels_off <= allowed,
            "{name}: {pixels_off} pixels differ by more than a step (largest {largest}); see tests/output/shading-*.png"
        );
        // The frame is mostly terrain (not only sky), so the comparison covers shading.
        let sky = (options_sky() * 255.0).round();
        let ground =
            per_pixel.chunks_exact(4).filter(|c| (0..3).any(|i| (c[i] as f32 - sky[i]).abs() > 40.0)).count();
        assert!(ground > (W * H / 2) as usize, "{name}: only {ground} pixels of terrain");
    }
}

/// The shade pass writing a colour target it can store to (plain RGBA8 drawn through an sRGB
/// view, as `Offscreen`'s is) makes the frame the compose pass makes in a plain sRGB target: the
/// same surfaces and the procedural sky between them, each channel within two steps (the
/// shader's exact sRGB encoding against the adapter's), with fewer render-pass commands (no
/// compose pass). An adapter that cannot view a texture in another format (GL) has only the
/// compose path; a Vulkan adapter can, so where `VOXGPU_REQUIRE_BACKENDS` names Vulkan one must
/// compare both, and elsewhere the test says when none did.
#[test]
fn a_colour_target_the_shade_pass_stores_to_holds_the_composed_frame() {
    let (world, camera) = (terrain(), terrain_camera());
    let mut compared = 0;
    let devices = devices();
    for (name, device, queue, view_formats) in &devices {
        if !view_formats {
            eprintln!("{name}: cannot view a texture in another format, so it composes only");
            continue;
        }
        let options =
            RendererOptions { shadows: Some(true), time_of_day: 17.2, ..RendererOptions::new(W, H, 400.0) };
        let (mut frames, mut commands) = (Vec::new(), Vec::new());
        for storable in [false, true] {
            let mut voxels = renderer_of(&world, device, queue, options.clone());
            let drawn = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
            let color = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("game.target"),
                size: wgpu::Extent3d { width: W, height: H, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: if storable { wgpu::TextureFormat::Rgba8Unorm } else { COLOR_FORMAT },
                usage: if storable { drawn | wgpu::TextureUsages::STORAGE_BINDING } else { drawn },
                view_formats: if storable { &[COLOR_FORMAT] } else { &[] },
            });
            let color_view = color.create_view(&wgpu::TextureViewDescriptor {
                format: Some(COLOR_FORMAT),
                usage: Some(wgpu::TextureUsages::RENDER_ATTACHMENT),
                ..Default::default()
            });
            let depth = texture(
                device,
                DEPTH_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            );
            let depth_view = depth.create_view(&Default::default());
            let targets = Targets { color: &color_view, depth: &depth_view, clear: true };
            voxels.settle(&camera, &targets).expect("the terrain meshes");
            frames.push(read(device, queue, &color));
            commands.push(voxels.inspect().render_pass_commands());
        }
        assert!(commands[1] < commands[0], "{name}: no compose pass left out: commands {commands:?}");
        let largest = frames[0].iter().zip(&frames[1]).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        eprintln!(
            "{name}: stored against composed, largest channel difference {largest}, commands {commands:?}"
        );
        assert!(largest <= 2, "{name}: a channel differs by {largest}");
        compared += 1;
    }
    let vulkan_required = std::env::var("VOXGPU_REQUIRE_BACKENDS")
        .is_ok_and(|names| names.split(',').any(|n| n.trim().eq_ignore_ascii_case("vulkan")));
    if compared == 0 {
        assert!(!vulkan_required, "the Vulkan adapter could not store to a colour target");
        eprintln!("no adapter here can view a texture in another format: the two paths were not compared");
    }
}

/// A frame drawn over the caller's targets (`Targets::clear` off) shows none of what an earlier
/// frame drew. A frame that clears its depth leaves the surface key target uncleared and tells
/// empty pixels by their depth; over the caller's depth, which holds surfaces of the caller's
/// own, the surface key target must be cleared instead. Here the caller's depth is a wall nearer
/// than all the terrain and its colour magenta: nothing of voxgpu's may show, and with the
/// surface key target left as the earlier frame left it, its terrain would.
#[test]
fn a_frame_over_the_callers_depth_shows_nothing_an_earlier_frame_drew() {
    let (world, camera) = (terrain(), terrain_camera());
    for (name, device, queue, _) in devices() {
        let options = RendererOptions { procedural_sky: false, ..RendererOptions::new(W, H, 400.0) };
        let mut voxels = renderer_of(&world, &device, &queue, options);
        let color = texture(
            &device,
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture(
            &device,
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let (color_view, depth_view) =
            (color.create_view(&Default::default()), depth.create_view(&Default::default()));
        let cleared = Targets { color: &color_view, depth: &depth_view, clear: true };
        voxels.settle(&camera, &cleared).expect("the terrain meshes");
        let terrain = read(&device, &queue, &color);
        let magenta = [255, 0, 255, 255];
        assert!(
            terrain.chunks_exact(4).filter(|p| *p != magenta).count() > (W * H / 2) as usize,
            "{name}: the earlier frame should show terrain"
        );

        // The caller's own frame: magenta, and a depth (reverse-Z) nearer than every surface.
        let mut encoder = device.create_command_encoder(&Default::default());
        drop(encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("game.wall"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r: 1.0, g: 0.0, b: 1.0, a: 1.0 }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0.99),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        }));
        voxels.prepare(&camera).expect("prepare");
        voxels
            .record(&mut encoder, &Targets { color: &color_view, depth: &depth_view, clear: false })
            .expect("record");
        queue.submit([encoder.finish()]);
        voxels.frame_submitted();
        let over = read(&device, &queue, &color);
        let shown = over.chunks_exact(4).filter(|p| *p != magenta).count();
        assert_eq!(shown, 0, "{name}: {shown} pixels show something other than the caller's wall");
    }
}
