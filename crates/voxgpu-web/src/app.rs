//! The browser viewer's state and frame: a [`Renderer`] drawing straight into the canvas's
//! texture, the fly camera, streaming, editing, the overlay and the status a test reads.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use glam::{IVec2, IVec3};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::page::{self, Params, SAMPLES, STATUS};
use crate::present::Present;
use voxgpu_core::fly::{FlyCamera, FlyInput};
use voxgpu_core::keys::{HeldKeys, Key, KeyEvent};
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, ChunkPos, NodeColumn, NodeKey, World};
use voxgpu_engine::{
    Culling, DEPTH_FORMAT, FrameStats, OPTIONAL_FEATURES, RenderMode, Renderer, RendererOptions, Targets,
    required_limits,
};
use voxgpu_worlds::stream::{StreamSettings, Streamer};
use voxgpu_worlds::worldgen::{self, TerrainColumns, WorldParams, WorldSource};

/// Farthest block the cursor picks, in blocks (as the desktop viewer).
const REACH: f32 = 8.0;
/// Mouse look in radians per pixel of motion (as the desktop viewer).
pub const LOOK_PER_PIXEL: f32 = 0.0025;
/// Frames with nothing meshed, after streaming is complete, before the world counts as settled.
/// GPU counters arrive a frame or two late.
const QUIET_FRAMES: u32 = 8;
/// Frames submitted and not yet finished by the GPU at most. The browser calls for animation
/// frames at the display's rate whether or not the GPU keeps up (a software adapter does not), so
/// without this bound the GPU's queue, and the latency of every read-back, grows without end.
const MAX_FRAMES_IN_FLIGHT: u32 = 2;
/// Frames submitted whose work the GPU has not finished (the queue's callbacks count down).
static IN_FLIGHT: AtomicU32 = AtomicU32::new(0);

pub struct App {
    canvas: HtmlCanvasElement,
    present: Present,
    /// The frame's size in pixels.
    size: (u32, u32),
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    depth: wgpu::TextureView,
    streamer: Option<Streamer>,
    params: Params,
    world_name: String,
    pub fly: FlyCamera,
    pub held: HeldKeys,
    /// Mouse look gathered since the last frame, radians (yaw right, pitch up).
    pub look: (f32, f32),
    /// The pointer is locked to the canvas.
    pub grabbed: bool,
    /// The canvas's size in device pixels, when it changed since the last frame.
    pub resized: Option<(u32, u32)>,
    selected: BlockId,
    block_names: Vec<String>,
    lod: LodSettings,
    overlay: bool,
    last_ms: f64,
    quiet_frames: u32,
    stats: FrameStats,
    /// Columns wanted and not yet resident, after the last streaming update.
    missing: usize,
    /// Frames per second, and the frames and time (ms) since it was last measured.
    fps: (f64, u32, f64),
    /// F2 was pressed: save the next frame.
    screenshot_next: bool,
    /// The last thing to tell the user (a file opened or refused, a screenshot saved).
    message: String,
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("voxgpu.web.depth"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// The canvas's size in device pixels: its CSS size times `devicePixelRatio`, at least 1.
pub fn canvas_pixels(canvas: &HtmlCanvasElement) -> (u32, u32) {
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let side = |css: i32| ((css.max(1) as f64) * ratio).round().max(1.0) as u32;
    (side(canvas.client_width()), side(canvas.client_height()))
}

impl App {
    pub async fn open() -> Result<Self, String> {
        let params = Params::from_url()?;
        let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
        let canvas: HtmlCanvasElement = document
            .get_element_by_id("voxgpu")
            .ok_or("the page has no <canvas id=\"voxgpu\">")?
            .dyn_into()
            .map_err(|_| "#voxgpu is not a canvas")?;
        let (width, height) = canvas_pixels(&canvas);
        canvas.set_width(width);
        canvas.set_height(height);

        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        // The copy path must never take the canvas's WebGPU context (see present.rs).
        let surface = match params.present_copy {
            true => None,
            false => Some(
                instance
                    .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
                    .map_err(|e| format!("cannot draw into the canvas with WebGPU: {e}"))?,
            ),
        };
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: surface.as_ref(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no WebGPU adapter ({e}): this browser lacks WebGPU or has it disabled"))?;
        let info = adapter.get_info();
        // Browsers report little about the adapter; wgpu leaves the name empty there.
        let name = if info.name.is_empty() { "WebGPU adapter".to_string() } else { info.name.clone() };
        // WebGPU's defaults are not enough for the mesher (storage buffers per stage, workgroup
        // memory): ask for what it needs, and say so when the adapter offers less.
        let limits = required_limits(&adapter.limits())
            .map_err(|missing| format!("{name} cannot run voxgpu: it lacks {missing}"))?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("voxgpu.web"),
                required_features: adapter.features() & OPTIONAL_FEATURES,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| {
                format!(
                    "the browser refused a device with {} storage buffers per stage and {} bytes of workgroup memory: {e}",
                    limits.max_storage_buffers_per_shader_stage, limits.max_compute_workgroup_storage_size
                )
            })?;
        device.on_uncaptured_error(Arc::new(|error| page::fail(&format!("WebGPU error: {error}"))));
        // A lost device ends the page's rendering; it says so rather than freezing.
        device.set_device_lost_callback(|reason, message| {
            page::fail(&format!("the WebGPU device was lost ({reason:?}): {message}; reload the page"))
        });
        let present = match surface {
            Some(surface) => Present::canvas(surface, &adapter, &device, (width, height))?,
            None => Present::copy(&canvas, &device, (width, height))?,
        };

        let source: WorldSource =
            params.world.parse().map_err(|e: worldgen::WorldError| format!("URL parameter world: {e}"))?;
        if matches!(source, WorldSource::Vox(_)) {
            return Err(
                "URL parameter world: open a .vox file with the file picker or drop it on the page".into()
            );
        }
        let world_params =
            WorldParams { seed: params.seed, center: IVec3::ZERO, view_distance: params.view_distance };
        // Terrain streams; the other sources are small and built whole. Of streamed terrain only
        // the ground under the camera is built here, to place the camera.
        let streamed = source == WorldSource::Terrain;
        let built = if streamed { WorldParams { view_distance: 1, ..world_params } } else { world_params };
        let world = worldgen::generate(&source, &built).map_err(|e| e.to_string())?;
        let (eye, target) = worldgen::default_view(&source, &world, &world_params);
        let (eye, target) = (params.camera.unwrap_or(eye), params.target.unwrap_or(target));
        if (target - eye).length_squared() < 1e-6 {
            return Err("URL parameters: target must differ from camera".into());
        }
        let options = Self::options(&params, width, height, present.format());
        let renderer = Renderer::new(&device, &queue, options, &world.registry).map_err(|e| e.to_string())?;
        STATUS.with(|s| {
            let mut s = s.borrow_mut();
            s.adapter = name;
            s.draw_submission = renderer.submission().name().into();
        });
        let mut app = Self {
            depth: depth_view(&device, width, height),
            canvas,
            present,
            size: (width, height),
            device,
            queue,
            block_names: Vec::new(),
            lod: renderer.lod(),
            renderer,
            streamer: None,
            world_name: source.to_string(),
            fly: FlyCamera::looking_at(eye, target),
            held: HeldKeys::default(),
            look: (0.0, 0.0),
            grabbed: false,
            resized: None,
            selected: BlockId(9),
            overlay: false,
            last_ms: page::now_ms(),
            quiet_frames: 0,
            stats: FrameStats::default(),
            missing: 0,
            fps: (0.0, 0, page::now_ms()),
            screenshot_next: false,
            message: String::new(),
            params,
        };
        if streamed {
            app.stream_terrain();
        } else {
            app.show_world(world)?;
        }
        // GPU time per stage for the overlay, where the browser has timestamp queries.
        let _ = app.renderer.set_profiling(true);
        Ok(app)
    }

    fn options(params: &Params, width: u32, height: u32, format: wgpu::TextureFormat) -> RendererOptions {
        RendererOptions {
            color_format: format,
            draw_submission: params.draw,
            mode: params.mode,
            ..RendererOptions::new(width, height, (params.view_distance as f32 + 1.0) * CHUNK_SIZE as f32)
        }
    }

    /// Streams terrain around the camera, generated on this thread for up to the page's budget
    /// per frame.
    fn stream_terrain(&mut self) {
        let columns = TerrainColumns::new(self.params.seed);
        let settings = StreamSettings {
            lod: self.renderer.lod(),
            // The adapter's voxel pool bounds the nodes, with a tenth to spare for the estimate.
            max_nodes: Some((self.renderer.max_nodes() * 9 / 10) as usize),
            ..StreamSettings::new(self.params.view_distance)
        };
        let budget = Duration::from_secs_f64(self.params.budget_ms / 1000.0);
        self.streamer =
            Some(Streamer::inline(settings, Arc::new(move |c| Ok(columns.node_column(c))), budget));
        self.block_names =
            voxgpu_core::voxel::BlockRegistry::builtin().iter().map(|(_, b)| b.name.clone()).collect();
    }

    /// Replaces what is shown with `world`, whole, on a renderer with its blocks.
    fn show_world(&mut self, world: World) -> Result<(), String> {
        let options = Self::options(&self.params, self.size.0, self.size.1, self.present.format());
        let mut renderer =
            Renderer::new(&self.device, &self.queue, options, &world.registry).map_err(|e| e.to_string())?;
        for (pos, chunk) in world.chunks() {
            renderer.insert_chunk(pos, Arc::clone(chunk)).map_err(|e| e.to_string())?;
        }
        let _ = renderer.set_profiling(true);
        renderer.set_mode(self.renderer.mode());
        self.renderer = renderer;
        self.streamer = None;
        self.block_names = world.registry.iter().map(|(_, b)| b.name.clone()).collect();
        self.quiet_frames = 0;
        STATUS.with(|s| s.borrow_mut().settled = None);
        Ok(())
    }

    /// Opens the `.vox` file `name` with contents `bytes`, viewed from its default camera.
    pub fn open_vox(&mut self, name: &str, bytes: &[u8]) {
        match worldgen::vox::from_bytes(bytes, Path::new(name)) {
            Ok(world) => {
                let source = WorldSource::Vox(name.into());
                let params = WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 0 };
                let (eye, target) = worldgen::default_view(&source, &world, &params);
                if let Err(e) = self.show_world(world) {
                    page::fail(&e);
                    return;
                }
                self.fly = FlyCamera::looking_at(eye, target);
                self.world_name = name.to_string();
                self.message = format!("opened {name}");
            }
            // A bad file is reported and the current world stays.
            Err(e) => self.message = e.to_string(),
        }
    }

    /// The resident nodes, sorted, each with a hash of its voxels: `[[level, x, y, z, hash], …]`
    /// as JSON, so a test can check that the browser built the world native code builds.
    pub fn world_digest(&self) -> String {
        let mut nodes: Vec<NodeKey> = match &self.streamer {
            Some(streamer) => streamer.manager.resident_chunks().iter().copied().collect(),
            None => self.renderer.chunks().map(|(pos, _)| NodeKey::chunk(pos)).collect(),
        };
        nodes.sort();
        let entries: Vec<String> = nodes
            .iter()
            .filter_map(|&key| {
                let chunk = self.renderer.node(key)?;
                let p = key.pos;
                Some(format!("[{},{},{},{},{}]", key.level, p.x, p.y, p.z, voxgpu_core::voxel::digest(chunk)))
            })
            .collect();
        format!("[{}]", entries.join(","))
    }

    /// Starts the animation-frame loop.
    pub fn run(app: Rc<RefCell<App>>) {
        let callback: Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>> = Rc::new(RefCell::new(None));
        let again = Rc::clone(&callback);
        *callback.borrow_mut() = Some(Closure::new(move |now: f64| {
            let result = app.borrow_mut().frame(now);
            match result {
                Ok(()) => request_frame(again.borrow().as_ref().expect("set")),
                // The loop stops on an error, which stays on the page.
                Err(e) => page::fail(&e),
            }
        }));
        request_frame(callback.borrow().as_ref().expect("set"));
    }

    pub fn key(&mut self, code: &str, pressed: bool, repeat: bool) {
        match self.held.key(code, pressed, repeat) {
            Some(KeyEvent::Key(key)) => self.press(key),
            // The browser lets the pointer go on Escape itself.
            Some(KeyEvent::ReleaseCursor) | None => {}
        }
    }

    fn press(&mut self, key: Key) {
        match key {
            Key::Mode(n) => {
                if let Some(&mode) = (n as usize).checked_sub(1).and_then(|i| RenderMode::ALL.get(i)) {
                    self.renderer.set_mode(mode);
                }
            }
            Key::Block(d) => {
                let id = if d == 0 { 10 } else { d as u16 };
                if (id as usize) < self.block_names.len() {
                    self.selected = BlockId(id);
                }
            }
            Key::ToggleLod => {
                let next = if self.renderer.lod().is_on() { LodSettings::OFF } else { self.lod };
                self.renderer.set_lod(next);
            }
            Key::FreezeCulling => {
                let culling = self.renderer.culling();
                let frozen = match culling.frozen {
                    Some(_) => None,
                    None => Some(self.fly.camera()),
                };
                self.renderer.set_culling(Culling { frozen, ..culling });
            }
            Key::Screenshot => self.screenshot_next = true,
            Key::ToggleOverlay => self.overlay = !self.overlay,
            Key::Export => self.message = "F5 (.vox export) is in the desktop viewer only".into(),
        }
    }

    /// Removes the targeted block, or places the selected one in front of it.
    pub fn edit(&mut self, place: bool) {
        let Some(hit) = self.renderer.pick(&self.fly.camera(), REACH) else { return };
        let (at, block) = if place { (hit.empty, self.selected) } else { (hit.block, BlockId::AIR) };
        // A streamed column that has not arrived reads as air; an edit there would be lost when
        // it arrives, so it waits (as in the desktop viewer).
        let chunk = ChunkPos::from_block(at).0.0;
        let column = NodeColumn { level: 0, xz: IVec2::new(chunk.x, chunk.z) };
        if self.streamer.as_ref().is_some_and(|s| !s.manager.is_resident(column)) {
            return;
        }
        if let Err(e) = self.renderer.set_block(at, block) {
            page::fail(&e.to_string());
        }
    }

    fn resize(&mut self, width: u32, height: u32) -> Result<(), String> {
        let max = self.device.limits().max_texture_dimension_2d;
        let (width, height) = (width.clamp(1, max), height.clamp(1, max));
        self.canvas.set_width(width);
        self.canvas.set_height(height);
        self.size = (width, height);
        self.present.resize(&self.device, width, height);
        self.depth = depth_view(&self.device, width, height);
        self.renderer.resize(width, height).map_err(|e| e.to_string())
    }

    fn frame(&mut self, now: f64) -> Result<(), String> {
        if IN_FLIGHT.load(Ordering::Relaxed) >= MAX_FRAMES_IN_FLIGHT {
            return Ok(());
        }
        let started = page::now_ms();
        let dt = ((now - self.last_ms) / 1000.0).clamp(0.0, 0.1) as f32;
        let interval = now - self.last_ms;
        self.last_ms = now;
        if let Some((w, h)) = self.resized.take() {
            self.resize(w, h)?;
        }
        let input = self.held.input(FlyInput::default(), std::mem::take(&mut self.look));
        self.fly.update(&input, dt);
        let camera = self.fly.camera();
        if let Some(streamer) = self.streamer.as_mut() {
            self.missing =
                streamer.update(camera.eye, &mut self.renderer).map_err(|e| e.to_string())?.missing;
        }
        let selection =
            if self.grabbed { self.renderer.pick(&camera, REACH).map(|hit| hit.block) } else { None };
        self.renderer.set_selection(selection);

        let Some(frame) = self.present.begin(&self.device)? else { return Ok(()) };
        self.renderer.prepare(&camera).map_err(|e| e.to_string())?;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.web.frame") });
        self.stats = self
            .renderer
            .record(
                &mut encoder,
                &Targets { color: self.present.view(&frame), depth: &self.depth, clear: true },
            )
            .map_err(|e| e.to_string())?;
        let copied = self.present.record(&mut encoder);
        self.queue.submit([encoder.finish()]);
        self.renderer.frame_submitted();
        let settled = self.track(now, interval, page::now_ms() - started);
        IN_FLIGHT.fetch_add(1, Ordering::Relaxed);
        let submitted = page::now_ms();
        self.queue.on_submitted_work_done(move || {
            IN_FLIGHT.fetch_sub(1, Ordering::Relaxed);
            if settled {
                STATUS.with(|s| {
                    let mut s = s.borrow_mut();
                    if s.gpu_ms.len() < SAMPLES {
                        s.gpu_ms.push(page::now_ms() - submitted);
                    }
                })
            }
        });
        self.present.finish(&self.queue, frame, copied);
        if std::mem::take(&mut self.screenshot_next) {
            self.screenshot();
        }
        self.update_overlay(now);
        Ok(())
    }

    /// Counts the frame for the status (`cpu_ms`: its CPU time up to submission); returns
    /// whether the world has settled.
    fn track(&mut self, now: f64, interval: f64, cpu_ms: f64) -> bool {
        let streamed = self.streamer.as_ref().is_none_or(|s| s.manager.is_settled());
        let quiet = streamed && self.stats.face_jobs == 0 && self.stats.quads > 0;
        self.quiet_frames = if quiet { self.quiet_frames + 1 } else { 0 };
        STATUS.with(|s| {
            let mut s = s.borrow_mut();
            s.frames += 1;
            s.first_frame_ms.get_or_insert(now);
            (s.resident, s.quads, s.face_jobs, s.missing_columns) =
                (self.stats.chunks_resident, self.stats.quads, self.stats.face_jobs, self.missing);
            if s.settled.is_none() && self.quiet_frames >= QUIET_FRAMES {
                s.settled = Some((s.frames, now));
            } else if s.settled.is_some() && s.frame_ms.len() < SAMPLES {
                s.frame_ms.push(interval);
                s.cpu_ms.push(cpu_ms);
                if let Some(t) = self.renderer.latest_timings() {
                    s.timestamp_ms.push(t.gpu_total_ms());
                }
            }
            s.settled.is_some()
        })
    }

    /// Saves the canvas as a PNG download (right after the frame is drawn, while the canvas
    /// still holds it).
    fn screenshot(&mut self) {
        let Ok(url) = self.canvas.to_data_url() else { return };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        if let Ok(link) = document.create_element("a") {
            let link: web_sys::HtmlAnchorElement = link.unchecked_into();
            link.set_href(&url);
            let frame = STATUS.with(|s| s.borrow().frames);
            link.set_download(&format!("voxgpu-{frame}.png"));
            link.click();
            self.message = format!("screenshot voxgpu-{frame}.png");
        }
    }

    /// The F3 overlay, refreshed twice a second.
    fn update_overlay(&mut self, now: f64) {
        let (fps, frames, since) = &mut self.fps;
        *frames += 1;
        if now - *since < 500.0 {
            return;
        }
        *fps = *frames as f64 * 1000.0 / (now - *since);
        (*frames, *since) = (0, now);
        let Some(element) = page::element("overlay") else { return };
        if !self.overlay {
            element.set_text_content(if self.message.is_empty() { None } else { Some(&self.message) });
            return;
        }
        let s = &self.stats;
        let p = self.fly.position;
        let chunk = p.floor().as_ivec3().div_euclid(IVec3::splat(CHUNK_SIZE as i32));
        let gpu = self.renderer.latest_timings().map_or("no timestamps".to_string(), |t| {
            let stages: Vec<String> = t
                .stages
                .iter()
                .filter(|st| st.depth == 0)
                .map(|st| format!("{} {:.2}", st.name, st.duration_ms))
                .collect();
            format!("{:.2} ms ({})", t.gpu_total_ms(), stages.join(", "))
        });
        let (adapter, submission) =
            STATUS.with(|s| (s.borrow().adapter.clone(), s.borrow().draw_submission.clone()));
        let text = format!(
            "{fps:.0} fps ({:.1} ms)\nGPU {gpu}\n{adapter} (webgpu), draws: {submission}\nworld {} at view distance {} chunks\nposition {:.1} {:.1} {:.1} chunk {} {} {}\nmode {}, LOD {}{}\nnodes {} (per level {:?}), {} visible\nquads {} ({} skirts), {} draw commands\nGPU buffers {:.1} MiB\nspeed {:.0} blocks/s, block {}\n{}",
            1000.0 / fps.max(1e-3),
            self.world_name,
            self.params.view_distance,
            p.x,
            p.y,
            p.z,
            chunk.x,
            chunk.y,
            chunk.z,
            self.renderer.mode().name(),
            if self.renderer.lod().is_on() { "on" } else { "off" },
            if self.renderer.culling().frozen.is_some() { ", culling frozen" } else { "" },
            s.chunks_resident,
            self.renderer.nodes_per_level(),
            s.chunks_visible,
            s.quads,
            s.skirt_quads,
            s.draw_commands,
            s.gpu_bytes as f64 / (1024.0 * 1024.0),
            self.fly.speed,
            self.block_names.get(self.selected.0 as usize).map_or("?", String::as_str),
            self.message,
        );
        element.set_text_content(Some(&text));
    }
}

fn request_frame(callback: &Closure<dyn FnMut(f64)>) {
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(callback.as_ref().unchecked_ref());
    }
}
