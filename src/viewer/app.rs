//! The viewer's window and frame loop: a winit `ApplicationHandler` around an [`Offscreen`] that
//! draws offscreen and a [`Presenter`] that copies each frame into the window.

use std::sync::Arc;
use std::time::Duration;

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{DeviceEvent, DeviceId, ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{CursorGrabMode, Window, WindowId};

use super::overlay::{Overlay, OverlayData};
use super::script::{Action, Key, Script};
use super::{ViewerConfig, ViewerError};
use crate::session::{Persistence, Residency, Session, SessionPlan};
use voxgpu_core::fly::FlyInput;
use voxgpu_core::voxel::CHUNK_SIZE;
use voxgpu_engine::{FrameStats, GpuContext, Offscreen, Presented, Presenter, RendererOptions};
use voxgpu_play::{Button, Click, Edit, Play, Request, now_ms};
use voxgpu_worlds::stream::Streamer;
use voxgpu_worlds::worldgen::WorldSource;

mod persist;
mod recover;

/// Frame time of a scripted run, so it is repeatable.
const SCRIPT_DT: f32 = 1.0 / 60.0;
/// The viewer's view distance on a discrete GPU, in chunks: 8192 blocks.
const DISCRETE_VIEW_DISTANCE: u32 = 256;

pub fn run(args: ViewerConfig, script: Option<Script>) -> Result<(), ViewerError> {
    let event_loop = EventLoop::new().map_err(|e| ViewerError::Window(e.to_string()))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App { args, script, state: None, error: None };
    event_loop.run_app(&mut app).map_err(|e| ViewerError::Window(e.to_string()))?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct App {
    args: ViewerConfig,
    script: Option<Script>,
    state: Option<Viewer>,
    /// The error that ended the run, reported once the event loop returns.
    error: Option<ViewerError>,
}

struct Viewer {
    window: Arc<Window>,
    gpu: GpuContext,
    presenter: Presenter,
    renderer: Offscreen,
    streamer: Option<Streamer>,
    /// The world store edits are committed to, once per frame.
    persistence: Option<Persistence>,
    /// Whether the last commit failed (reported once until one succeeds again).
    commit_failed: bool,
    /// Camera, keys, look, pointer capture, selected block, frame clock: what input does.
    play: Play,
    /// Scripted movement, held from its frame on.
    scripted_move: FlyInput,
    frame: u64,
    overlay: Overlay,
    /// The world's blocks, for exports.
    registry: voxgpu_core::voxel::BlockRegistry,
    /// Whether the world is the unbounded terrain (exports take the columns around the camera).
    terrain: bool,
    /// The backend's name, lower case, for the overlay.
    backend: String,
    /// The view distance in chunks and what chose it, for the overlay.
    view_distance: (u32, &'static str),
    /// `--gpu-memory-budget`, for the overlay.
    budget_mib: u32,
    /// The window has a zero side (minimised): frames go on, nothing is drawn.
    minimised: bool,
    /// Device losses survived, one line each, for the overlay.
    recoveries: Vec<String>,
    stats: Option<FrameStats>,
}

impl ApplicationHandler for App {
    /// However the loop ends (closed, an error, the frame limit), edits not yet committed are
    /// committed before the store closes.
    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(viewer) = self.state.as_mut() {
            viewer.commit_edits();
        }
    }

    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match Viewer::open(event_loop, &self.args) {
            Ok(viewer) => self.state = Some(viewer),
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(viewer) = self.state.as_mut() else { return };
        viewer.overlay.on_window_event(&viewer.window, &event);
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => viewer.resize(size.width, size.height),
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    viewer.key(code, event.state == ElementState::Pressed, event.repeat)
                } else {
                    Ok(())
                }
            }
            WindowEvent::MouseInput { state: ElementState::Pressed, button, .. } => viewer.click(button),
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                viewer.play.scroll(notches);
                Ok(())
            }
            WindowEvent::Focused(false) => {
                viewer.play.release_keys();
                Ok(())
            }
            WindowEvent::RedrawRequested => match viewer.frame(&self.args, self.script.as_ref()) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    event_loop.exit();
                    Ok(())
                }
                Err(e) => Err(e),
            },
            _ => Ok(()),
        };
        let Err(error) = result else { return };
        match viewer.lost_device(&error) {
            // What the event was doing is dropped; the next frame draws on the new device.
            Some(reason) => {
                // Saved first: if recovery fails, the viewer is gone and its edits with it.
                viewer.commit_edits();
                let viewer = self.state.take().expect("the viewer is open");
                match viewer.recover(&reason) {
                    Ok(viewer) => self.state = Some(viewer),
                    Err(e) => self.fail(event_loop, e),
                }
            }
            None => self.fail(event_loop, error),
        }
    }

    fn device_event(&mut self, _event_loop: &ActiveEventLoop, _id: DeviceId, event: DeviceEvent) {
        if let (Some(viewer), DeviceEvent::MouseMotion { delta }) = (self.state.as_mut(), event) {
            viewer.play.mouse_moved(delta.0, delta.1);
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(viewer) = &self.state {
            viewer.window.request_redraw();
        }
    }
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: ViewerError) {
        self.error.get_or_insert(error);
        event_loop.exit();
    }
}

impl Viewer {
    fn open(event_loop: &ActiveEventLoop, args: &ViewerConfig) -> Result<Self, ViewerError> {
        let attributes = Window::default_attributes()
            .with_title("voxgpu")
            .with_inner_size(PhysicalSize::new(args.width, args.height));
        let window =
            Arc::new(event_loop.create_window(attributes).map_err(|e| ViewerError::Window(e.to_string()))?);
        let (gpu, surface) = GpuContext::with_surface(Arc::clone(&window), |instance| {
            instance.create_surface(Arc::clone(&window))
        })?;
        let size = window.inner_size();
        let presenter = Presenter::new(&gpu, surface, size.width, size.height)?;

        // The view distance: as given, or the horizon on a discrete GPU and a small default on
        // others (software adapters draw every quad on the CPU).
        let mut world = args.world.clone();
        // The world an existing store holds decides, not the flags. The store opened here is
        // the session's: opened, and its integrity checked, once.
        let store = world.open_store()?;
        let source = world.source.clone();
        let chosen_by = if args.view_distance_given {
            "--view-distance"
        } else if gpu.summary.device_type == wgpu::DeviceType::DiscreteGpu && source == WorldSource::Terrain {
            world.view_distance = DISCRETE_VIEW_DISTANCE;
            "discrete GPU"
        } else {
            "default"
        };
        let lod = args.lod;
        // Terrain streams around the camera; the other sources are small and loaded whole.
        let plan =
            SessionPlan::with_store(world, store, Residency::StreamTerrain, (args.camera, args.target))?;
        let mut session = plan.open(&gpu, |fog_end| RendererOptions {
            lod,
            ambient_occlusion: args.ambient_occlusion,
            fog: args.fog,
            fog_density: args.fog_density,
            light: args.light,
            time_of_day: args.time_of_day,
            shadows: args.shadows,
            ..RendererOptions::new(size.width.max(1), size.height.max(1), fog_end)
        })?;
        // GPU time per stage for the overlay; adapters without timestamp queries (GL) go without.
        let _ = session.renderer.tools().set_profiling(true);
        session.update()?;
        let Session { renderer, streamer, camera, world, config, persistence, .. } = session;
        if let Some(p) = &persistence {
            println!(
                "store {}: world {} (seed {}), {} edited chunks",
                p.store().path().display(),
                config.source,
                config.seed,
                p.store().len().map_err(crate::session::SessionError::from)?
            );
        }
        let (eye, target) = (camera.eye, camera.target);
        let view_distance = (config.view_distance, chosen_by);
        let overlay = Overlay::new(&window, &gpu.device, presenter.format());
        println!(
            "voxgpu viewer on {} ({})",
            gpu.summary.name,
            format!("{:?}", gpu.summary.backend).to_lowercase()
        );
        let block_names = world.registry.iter().map(|(_, info)| info.name.clone()).collect();
        Ok(Self {
            window,
            presenter,
            renderer,
            streamer,
            persistence,
            commit_failed: false,
            play: Play::new(eye, target, block_names, lod, now_ms()),
            scripted_move: FlyInput::default(),
            frame: 0,
            overlay,
            registry: world.registry.clone(),
            terrain: config.source == WorldSource::Terrain,
            backend: format!("{:?}", gpu.summary.backend).to_lowercase(),
            view_distance,
            budget_mib: config.gpu_memory_budget_mib,
            minimised: size.width == 0 || size.height == 0,
            recoveries: Vec::new(),
            stats: None,
            gpu,
        })
    }

    /// A new window size; 0×0 (minimised) keeps everything and skips drawing.
    fn resize(&mut self, width: u32, height: u32) -> Result<(), ViewerError> {
        self.minimised = width == 0 || height == 0;
        if self.minimised {
            return Ok(());
        }
        self.presenter.resize(width, height);
        self.renderer.resize(width, height)?;
        Ok(())
    }

    fn key(&mut self, code: KeyCode, pressed: bool, repeat: bool) -> Result<(), ViewerError> {
        // winit's key code names are the physical codes the shared key map reads.
        match self.play.key(&format!("{code:?}"), pressed, repeat, &mut *self.renderer) {
            Some(request) => self.request(request),
            None => Ok(()),
        }
    }

    /// A command key pressed (a script's `key`): the play layer's reaction, then the viewer's.
    fn press(&mut self, key: Key) -> Result<(), ViewerError> {
        match self.play.press(key, &mut *self.renderer) {
            Some(request) => self.request(request),
            None => Ok(()),
        }
    }

    /// What a key asks of the viewer itself.
    fn request(&mut self, request: Request) -> Result<(), ViewerError> {
        match request {
            Request::ReleaseCursor => self.grab(false),
            Request::Screenshot => {
                let path = std::path::PathBuf::from(format!("voxgpu-{}.png", self.frame));
                self.save(&path)?;
                println!("screenshot saved to {}", path.display());
            }
            Request::ToggleOverlay => self.overlay.visible = !self.overlay.visible,
            Request::Export => {
                let path = std::path::PathBuf::from(format!("voxgpu-{}.vox", self.frame));
                match self.export(&path) {
                    Ok(exported) => println!(
                        "exported {} voxels in {} colours to {}",
                        exported.voxels,
                        exported.colours,
                        path.display()
                    ),
                    // A failed export (nothing solid, too wide) is reported and the session goes on.
                    Err(e) => eprintln!("error: {e}"),
                }
            }
        }
        Ok(())
    }

    fn grab(&mut self, on: bool) {
        if on {
            let grabbed = self
                .window
                .set_cursor_grab(CursorGrabMode::Locked)
                .or_else(|_| self.window.set_cursor_grab(CursorGrabMode::Confined));
            self.play.grabbed = grabbed.is_ok();
        } else {
            let _ = self.window.set_cursor_grab(CursorGrabMode::None);
            self.play.grabbed = false;
        }
        self.window.set_cursor_visible(!self.play.grabbed);
    }

    fn click(&mut self, button: MouseButton) -> Result<(), ViewerError> {
        let button = match button {
            MouseButton::Left => Button::Left,
            MouseButton::Right => Button::Right,
            _ => Button::Other,
        };
        match self.play.click(button, &mut *self.renderer, self.streamer.as_ref())? {
            // The first click only takes the cursor.
            Click::Grab => self.grab(true),
            Click::Edited(edit) => self.edited(edit),
            Click::Nothing => {}
        }
        Ok(())
    }

    /// Removes the targeted block, or places the selected one in front of it (a script's
    /// `click`, which needs no captured cursor).
    fn edit(&mut self, place: bool) -> Result<(), ViewerError> {
        if let Some(edit) = self.play.edit(place, &mut *self.renderer, self.streamer.as_ref())? {
            self.edited(edit);
        }
        Ok(())
    }

    /// An edit the renderer took, into the store's pending batch.
    fn edited(&mut self, edit: Edit) {
        if let Some(p) = self.persistence.as_mut() {
            p.edited(&self.renderer, edit.at, edit.block);
        }
    }

    fn apply(&mut self, action: &Action) -> Result<(), ViewerError> {
        match *action {
            Action::Move { forward, right, up } => {
                self.scripted_move = FlyInput { forward, right, up, ..FlyInput::default() };
            }
            Action::Look { yaw, pitch } => self.play.turn(yaw, pitch),
            Action::Key(key) => self.press(key)?,
            Action::Click { place } => self.edit(place)?,
            Action::Resize { width, height } => {
                if width == 0 || height == 0 {
                    // What a minimise delivers; windows cannot be asked for 0×0.
                    self.resize(width, height)?;
                } else {
                    self.minimised = false;
                    if let Some(size) = self.window.request_inner_size(PhysicalSize::new(width, height)) {
                        self.resize(size.width, size.height)?;
                    }
                }
            }
            Action::LoseDevice => {
                self.gpu.device.destroy();
                // The loss is reported once the device's queue is empty; wait for that, so the
                // check after the actions finds it.
                let _ = self.gpu.device.poll(wgpu::PollType::wait_indefinitely());
            }
        }
        Ok(())
    }

    /// One frame. Returns false when the run is over.
    fn frame(&mut self, args: &ViewerConfig, script: Option<&Script>) -> Result<bool, ViewerError> {
        let step = self.play.clock.begin(now_ms());
        let dt = match script {
            Some(_) => SCRIPT_DT,
            None => step.dt,
        };
        self.gpu.check_device()?;
        if let Some(script) = script {
            for action in script.at(self.frame).to_vec() {
                self.apply(&action)?;
            }
        }
        // Counted from here on: a frame dropped after its actions (a lost device) is not
        // replayed.
        self.frame += 1;
        self.gpu.check_device()?;
        let camera = self.play.step(dt, self.scripted_move);
        if let Some(streamer) = self.streamer.as_mut() {
            // A frame on a software adapter can take a second: the streamer's budgets follow
            // time, except in a script, whose frames stand for `SCRIPT_DT` each.
            let elapsed = match script {
                Some(_) => Duration::from_secs_f32(SCRIPT_DT),
                None => Duration::try_from_secs_f64(step.interval_ms / 1000.0).unwrap_or_default(),
            };
            streamer.update_over(camera.eye, &mut self.renderer, elapsed)?;
        }
        self.play.select(&mut *self.renderer, &camera, true);

        let last = args.exit_after_frames.is_some_and(|n| self.frame >= n);
        if last && let Some(path) = &args.screenshot {
            // The last frame, once streaming and meshing have caught up with the camera.
            if let Some(streamer) = self.streamer.as_mut() {
                streamer.settle(camera.eye, &mut self.renderer)?;
            }
            self.renderer.settle(&camera)?;
            self.save(path)?;
            println!("screenshot saved to {}", path.display());
        }
        if !self.minimised {
            self.stats = Some(self.renderer.render(&camera)?);
            self.build_overlay();
            let (overlay, gpu) = (&mut self.overlay, &self.gpu);
            let presented = self.presenter.present(self.renderer.color_texture(), |encoder, view, size| {
                overlay.paint(&gpu.device, &gpu.queue, encoder, view, size)
            });
            if presented == Presented::Reconfigured {
                log::info!("surface reconfigured at frame {}", self.frame);
            }
        }
        self.commit_edits();
        self.play.clock.count(now_ms());
        Ok(!last)
    }

    fn save(&self, path: &std::path::Path) -> Result<(), ViewerError> {
        let image = crate::to_image(self.renderer.read_pixels()?);
        image.save(path).map_err(|e| ViewerError::Write { path: path.to_path_buf(), reason: e.to_string() })
    }

    /// Lays out the overlay for this frame.
    fn build_overlay(&mut self) {
        let p = self.play.fly.position;
        let summary = &self.gpu.summary;
        let data = OverlayData {
            fps: self.play.clock.fps() as f32,
            frame_ms: self.play.clock.frame_ms() as f32,
            stats: self.stats.unwrap_or_default(),
            timings: self.renderer.inspect().latest_timings(),
            position: p,
            chunk: p.floor().as_ivec3().div_euclid(glam::IVec3::splat(CHUNK_SIZE as i32)),
            adapter: &summary.name,
            backend: &self.backend,
            mode: self.renderer.options().mode.name(),
            lod_on: self.renderer.options().lod.is_on(),
            lod_fade_frames: self.renderer.options().lod.fade_frames(),
            fog: {
                let o = self.renderer.options();
                (o.fog, o.fog_density, o.fog_end)
            },
            view_distance: self.view_distance,
            nodes_per_level: self.renderer.resident().nodes_per_level(),
            budget_mib: self.budget_mib,
            culling_frozen: self.renderer.options().culling.frozen.is_some(),
            speed: self.play.fly.speed,
            selected_block: self.play.selected_name(),
            faults: self.faults(),
        };
        self.overlay.build(&self.window, &data);
    }
}
