//! A game's own window, device and frame loop with voxgpu inside it: the game creates the
//! instance, adapter, device and surface, voxgpu records its passes into the game's encoder and
//! the game's colour and depth targets, and the game then draws its own geometry (a player cube
//! bobbing over the terrain) depth-tested against the voxels, in the same frame.
//!
//! `cargo run --release -p voxgpu-engine --example winit_game`. Esc quits.

#[path = "../support/player_cube.rs"]
mod player_cube;

use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

use glam::{IVec3, Vec3};
use player_cube::PlayerCube;
use voxgpu_core::camera::Camera;
use voxgpu_engine::{OPTIONAL_FEATURES, Renderer, RendererOptions, Targets, depth_target, required_limits};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// Everything the game owns once its window exists.
struct Game {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    depth: wgpu::TextureView,
    voxels: Renderer,
    cube: PlayerCube,
    started: Instant,
}

impl Game {
    fn new(event_loop: &ActiveEventLoop) -> Result<Self, Box<dyn Error>> {
        let window =
            Arc::new(event_loop.create_window(Window::default_attributes().with_title("voxgpu in a game"))?);
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()))
                .with_env(),
        );
        let surface = instance.create_surface(Arc::clone(&window))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))?;
        // voxgpu states what it needs: these limits, and it uses the optional features present.
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("game.device"),
            required_features: adapter.features() & OPTIONAL_FEATURES,
            required_limits: required_limits(&adapter.limits())?,
            ..Default::default()
        }))?;
        let size = window.inner_size();
        let caps = surface.get_capabilities(&adapter);
        let format = caps.formats.iter().copied().find(|f| f.is_srgb()).ok_or("no sRGB surface format")?;
        let config = wgpu::SurfaceConfiguration {
            format,
            ..surface.get_default_config(&adapter, size.width.max(1), size.height.max(1)).ok_or("surface")?
        };
        surface.configure(&device, &config);

        let world =
            generate(&WorldSource::Terrain, &WorldParams { seed: 7, center: IVec3::ZERO, view_distance: 4 })?;
        let options = RendererOptions {
            color_format: format,
            ..RendererOptions::new(config.width, config.height, 5.0 * 32.0)
        };
        let mut voxels = Renderer::new(&device, &queue, options, &world.registry)?;
        for (pos, chunk) in world.chunks() {
            voxels.insert_chunk(pos, Arc::clone(chunk))?;
        }
        Ok(Self {
            depth: depth_target(&device, config.width, config.height),
            cube: PlayerCube::new(&device, format),
            window,
            surface,
            device,
            queue,
            config,
            voxels,
            started: Instant::now(),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return; // minimised: keep the old targets until the window has a size again
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.device, &self.config);
        self.depth = depth_target(&self.device, width, height);
        self.voxels.resize(width, height).expect("a window-sized frame");
    }

    fn frame(&mut self) -> Result<(), Box<dyn Error>> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            _ => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
        };
        let view = texture.texture.create_view(&Default::default());
        let t = self.started.elapsed().as_secs_f32();
        let eye = Vec3::new(16.0 + 90.0 * (0.2 * t).cos(), 110.0, 16.0 + 90.0 * (0.2 * t).sin());
        let camera = Camera::look_at(eye, Vec3::new(16.0, 48.0, 16.0));
        let aspect = self.config.width as f32 / self.config.height as f32;

        // CPU work and uploads, then both renderers' passes into one encoder.
        self.voxels.prepare(&camera)?;
        let player = Vec3::new(16.0, 58.0 + 8.0 * (1.5 * t).sin(), 16.0);
        self.cube.prepare(&self.queue, &camera, aspect, player, 3.0, Vec3::new(0.9, 0.2, 0.6));
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.voxels.record(&mut encoder, &Targets { color: &view, depth: &self.depth, clear: true })?;
        self.cube.draw(&mut encoder, &view, &self.depth);
        self.queue.submit([encoder.finish()]);
        self.voxels.frame_submitted();
        self.queue.present(texture);
        self.window.request_redraw();
        Ok(())
    }
}

#[derive(Default)]
struct App {
    game: Option<Game>,
    error: Option<Box<dyn Error>>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.game.is_none() {
            match Game::new(event_loop) {
                Ok(game) => self.game = Some(game),
                Err(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(game) = self.game.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested
            | WindowEvent::KeyboardInput {
                event:
                    KeyEvent { logical_key: Key::Named(NamedKey::Escape), state: ElementState::Pressed, .. },
                ..
            } => event_loop.exit(),
            WindowEvent::Resized(size) => game.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = game.frame() {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { voxgpu_engine::GpuContext::quiet_device_select() };
    let event_loop = EventLoop::new()?;
    let mut app = App::default();
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
