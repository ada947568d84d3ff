//! The browser viewer's state and frame: a [`Renderer`] drawing straight into the canvas's
//! texture, the play layer ([`Play`]: camera, keys, editing, frame rate), streaming and the status
//! a test reads. A lost device and its replacement are in `app/device.rs`, edits kept and the
//! model's export in `app/saving.rs`, the F3 overlay in `app/overlay.rs`, streaming terrain from the
//! generation workers in `app/streaming.rs`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use glam::IVec3;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

mod device;
mod overlay;
mod saving;
mod streaming;

pub use saving::EditedChunks;

use device::{DEVICE, adapter_name, open_device};

use crate::page::{self, Params, SAMPLES, STATUS, STREAMING_SAMPLES};
use crate::present::Present;
use crate::storage::EditStore;
use voxgpu_core::fly::FlyInput;
use voxgpu_core::voxel::{BlockRegistry, Chunk, ChunkPos, NodeKey, World};
use voxgpu_engine::{FrameStats, Renderer, RendererOptions, SharedPipelines, Targets, depth_target};
use voxgpu_play::{Button, Play, Request};
use voxgpu_worlds::stream::Streamer;
use voxgpu_worlds::worldgen::{self, MAX_FULL_DETAIL_VIEW, WorldParams, WorldSource};

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
    /// The compute pipelines compiled on `device`: a world opened later (a model dropped on the
    /// page) gets its renderer without compiling them again.
    pipelines: SharedPipelines,
    renderer: Renderer,
    depth: wgpu::TextureView,
    streamer: Option<Streamer>,
    params: Params,
    world_name: String,
    /// Camera, keys, look, pointer capture (locked to the canvas), selected block, frame clock.
    pub play: Play,
    /// The canvas's size in device pixels, when it changed since the last frame.
    pub resized: Option<(u32, u32)>,
    overlay: bool,
    quiet_frames: u32,
    stats: FrameStats,
    /// Columns wanted and not yet resident, after the last streaming update.
    missing: usize,
    /// F2 was pressed: save the next frame.
    screenshot_next: bool,
    /// The last thing to tell the user (a file opened or refused, a screenshot saved).
    message: String,
    /// The generation workers' count of replacements, while they stream.
    workers_replaced: Option<Rc<RefCell<u32>>>,
    /// View distance in chunks: the URL's, or the adapter's default.
    view_distance: u32,
    /// The last block placed or removed, for the status.
    last_edit: Option<voxgpu_play::Edit>,
    /// The world's blocks.
    registry: BlockRegistry,
    /// Every chunk edited in this world, as it is now (kept, and applied to what is generated).
    edited: EditedChunks,
    /// Chunks edited since the last frame, as each edit left them, to keep.
    unsaved: BTreeMap<ChunkPos, Arc<Chunk>>,
    /// Where edits are kept: none for a `.vox` model, or where the browser keeps nothing.
    store: Option<EditStore>,
    instance: wgpu::Instance,
    /// A new device is being asked for, the old one lost: frames wait.
    recovering: bool,
    /// The camera's eye at the last frame, where arrivals between frames are placed.
    eye: Option<glam::Vec3>,
    /// An error from applying arrivals between frames, for the next frame to report.
    failed_between_frames: Option<String>,
}

/// Streamed terrain's view distance, in chunks, where the URL gives none: the horizon (2,048
/// blocks) on an adapter that is not a fallback (software) adapter and binds at least 1 GiB of
/// storage, 8 chunks elsewhere (and for every built world). Browsers report WebGPU adapters as `Cpu` (the fallback adapter) or
/// `Other`, never as discrete.
fn default_view_distance(adapter: &wgpu::Adapter) -> u32 {
    let fallback = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    let large = adapter.limits().max_storage_buffer_binding_size >= 1 << 30;
    if !fallback && large { HORIZON_VIEW_DISTANCE } else { SMALL_VIEW_DISTANCE }
}

/// The page's view distance on a GPU, in chunks: 2,048 blocks.
const HORIZON_VIEW_DISTANCE: u32 = 64;
/// The page's view distance on a fallback adapter, in chunks.
const SMALL_VIEW_DISTANCE: u32 = 8;

/// The canvas's size in device pixels: its CSS size times `devicePixelRatio`, at least 1.
pub fn canvas_pixels(canvas: &HtmlCanvasElement) -> (u32, u32) {
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let side = |css: i32| ((css.max(1) as f64) * ratio).round().max(1.0) as u32;
    (side(canvas.client_width()), side(canvas.client_height()))
}

impl App {
    /// The viewer on the page's canvas; `module` is this build's compiled `WebAssembly.Module`,
    /// which the generation workers instantiate.
    pub async fn open(module: JsValue) -> Result<Self, String> {
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
        let (adapter, device, queue) = open_device(&instance, surface.as_ref(), 0).await?;
        let name = adapter_name(&adapter);
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
        let streamed = source == WorldSource::Terrain;
        let view_distance = match params.view_distance {
            Some(v) if !streamed && v > MAX_FULL_DETAIL_VIEW => {
                return Err(format!(
                    "URL parameter view: {v} chunks, but only terrain streams; world={source} is built whole, up to {MAX_FULL_DETAIL_VIEW} chunks"
                ));
            }
            Some(v) => v,
            None if streamed => default_view_distance(&adapter),
            None => SMALL_VIEW_DISTANCE,
        };
        let world_params = WorldParams { seed: params.seed, center: IVec3::ZERO, view_distance };
        // Terrain streams; the other sources are small and built whole. Of streamed terrain only
        // the ground under the camera is built here, to place the camera.
        let built = if streamed { WorldParams { view_distance: 1, ..world_params } } else { world_params };
        let world = worldgen::generate(&source, &built).map_err(|e| e.to_string())?;
        let (eye, target) = worldgen::default_view(&source, &world, &world_params);
        let (eye, target) = (params.camera.unwrap_or(eye), params.target.unwrap_or(target));
        if (target - eye).length_squared() < 1e-6 {
            return Err("URL parameters: target must differ from camera".into());
        }
        let options = Self::options(&params, view_distance, width, height, present.format());
        let pipelines = SharedPipelines::new(&device);
        let renderer = Renderer::with_pipelines(&pipelines, &queue, options, &world.registry)
            .map_err(|e| e.to_string())?;
        STATUS.with(|s| {
            let mut s = s.borrow_mut();
            s.adapter = name;
            s.view_distance = view_distance;
            s.draw_submission = renderer.inspect().submission().name().into();
        });
        let mut app = Self {
            depth: depth_target(&device, width, height),
            instance,
            recovering: false,
            eye: None,
            failed_between_frames: None,
            canvas,
            present,
            size: (width, height),
            device,
            queue,
            pipelines,
            // The world's blocks are set once it is shown.
            play: Play::new(eye, target, Vec::new(), renderer.options().lod, page::now_ms()),
            renderer,
            streamer: None,
            world_name: source.to_string(),
            resized: None,
            overlay: false,
            quiet_frames: 0,
            stats: FrameStats::default(),
            missing: 0,
            screenshot_next: false,
            message: String::new(),
            workers_replaced: None,
            last_edit: None,
            registry: world.registry.clone(),
            edited: EditedChunks::default(),
            unsaved: BTreeMap::new(),
            store: None,
            view_distance,
            params,
        };
        match EditStore::open(&format!("{source}:{}", app.params.seed)).await {
            Ok((store, kept)) => {
                if !kept.is_empty() {
                    let n = kept.len();
                    app.message = format!("restored the edits of {n} chunk{}", if n == 1 { "" } else { "s" });
                }
                let mut edited = app.edited.write().unwrap_or_else(|e| e.into_inner());
                edited.extend(kept.into_iter().map(|(pos, chunk)| (pos, Arc::new(chunk))));
                drop(edited);
                app.store = Some(store);
            }
            Err(e) => app.message = format!("edits will not be kept: {e}"),
        }
        if streamed {
            app.stream_terrain(module);
        } else {
            app.show_world(world)?;
        }
        // GPU time per stage for the overlay, where the browser has timestamp queries.
        let _ = app.renderer.tools().set_profiling(true);
        Ok(app)
    }

    fn options(
        params: &Params,
        view_distance: u32,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
    ) -> RendererOptions {
        RendererOptions {
            color_format: format,
            draw_submission: params.draw,
            mode: params.mode,
            lod: params.lod,
            ..RendererOptions::new(width, height, voxgpu_worlds::worldgen::loaded_radius(view_distance))
        }
    }

    /// Replaces what is shown with `world`, whole, on a renderer with its blocks.
    fn show_world(&mut self, world: World) -> Result<(), String> {
        let options =
            Self::options(&self.params, self.view_distance, self.size.0, self.size.1, self.present.format());
        let mut renderer = Renderer::with_pipelines(&self.pipelines, &self.queue, options, &world.registry)
            .map_err(|e| e.to_string())?;
        for (pos, chunk) in world.chunks() {
            renderer.insert_chunk(pos, Arc::clone(chunk)).map_err(|e| e.to_string())?;
        }
        for (pos, chunk) in self.edited.read().unwrap_or_else(|e| e.into_inner()).iter() {
            renderer.insert_chunk(*pos, Arc::clone(chunk)).map_err(|e| e.to_string())?;
        }
        let _ = renderer.tools().set_profiling(true);
        renderer.set_mode(self.renderer.options().mode);
        self.renderer = renderer;
        self.streamer = None;
        self.workers_replaced = None;
        self.play.set_block_names(world.registry.iter().map(|(_, b)| b.name.clone()).collect());
        self.registry = world.registry;
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
                // A model's edits are not kept: its name says too little of which model it is.
                self.store = None;
                self.unsaved.clear();
                self.edited.write().unwrap_or_else(|e| e.into_inner()).clear();
                if let Err(e) = self.show_world(world) {
                    page::fail(&e);
                    return;
                }
                self.play.look_at(eye, target);
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
            None => self.renderer.resident().chunks().map(|(pos, _)| NodeKey::chunk(pos)).collect(),
        };
        nodes.sort();
        let entries: Vec<String> = nodes
            .iter()
            .filter_map(|&key| {
                let chunk = self.renderer.resident().node(key)?;
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
        match self.play.key(code, pressed, repeat, &mut self.renderer) {
            Some(Request::Screenshot) => self.screenshot_next = true,
            Some(Request::ToggleOverlay) => self.overlay = !self.overlay,
            Some(Request::Export) => self.export(),
            // The browser lets the pointer go on Escape itself.
            Some(Request::ReleaseCursor) | None => {}
        }
    }

    /// A mouse button pressed on the canvas (`MouseEvent.button`: 0 left, 2 right). The first
    /// click only takes the pointer; after that left removes the targeted block and right places
    /// the selected one.
    pub fn click(&mut self, button: i16) {
        let button = match button {
            0 => Button::Left,
            2 => Button::Right,
            _ => Button::Other,
        };
        match self.play.click(button, &mut self.renderer, self.streamer.as_ref()) {
            Ok(voxgpu_play::Click::Grab) => self.canvas.request_pointer_lock(),
            Ok(voxgpu_play::Click::Edited(edit)) => {
                // The chunk as the edit left it (an empty one where it took the last block):
                // the frame that keeps it may come after its column has left.
                let pos = ChunkPos::from_block(edit.at).0;
                let chunk = self.renderer.resident().chunk(pos).cloned();
                self.unsaved.insert(pos, chunk.unwrap_or_else(|| Arc::new(Chunk::empty())));
                self.last_edit = Some(edit);
            }
            Ok(_) => {}
            Err(e) => page::fail(&e.to_string()),
        }
    }

    fn resize(&mut self, width: u32, height: u32) -> Result<(), String> {
        let max = self.device.limits().max_texture_dimension_2d;
        let (width, height) = (width.clamp(1, max), height.clamp(1, max));
        self.canvas.set_width(width);
        self.canvas.set_height(height);
        self.size = (width, height);
        self.present.resize(&self.device, width, height);
        self.depth = depth_target(&self.device, width, height);
        self.renderer.resize(width, height).map_err(|e| e.to_string())
    }

    fn frame(&mut self, now: f64) -> Result<(), String> {
        if let Some(e) = self.failed_between_frames.take() {
            return Err(e);
        }
        if self.recovering {
            return Ok(());
        }
        if self.start_recovery() {
            return Ok(());
        }
        if IN_FLIGHT.load(Ordering::Relaxed) >= MAX_FRAMES_IN_FLIGHT {
            return Ok(());
        }
        let started = page::now_ms();
        let step = self.play.clock.begin(now);
        if let Some((w, h)) = self.resized.take() {
            self.resize(w, h)?;
        }
        let camera = self.play.step(step.dt, FlyInput::default());
        self.stream(camera.eye, step.interval_ms)?;
        // The outline shows only while the pointer is locked (without it, clicks do not edit).
        self.play.select(&mut self.renderer, &camera, self.play.grabbed);

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
        let settled = self.track(now, step.interval_ms, page::now_ms() - started);
        IN_FLIGHT.fetch_add(1, Ordering::Relaxed);
        let submitted = page::now_ms();
        let device = DEVICE.load(Ordering::Relaxed);
        self.queue.on_submitted_work_done(move || {
            if DEVICE.load(Ordering::Relaxed) != device {
                return;
            }
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

    /// The block at world position `at` as the renderer holds it; `None` where nothing is
    /// resident.
    pub fn block_at(&self, at: IVec3) -> Option<u16> {
        let (pos, _) = voxgpu_core::voxel::ChunkPos::from_block(at);
        self.renderer.resident().chunk(pos).map(|_| self.renderer.resident().block(at).0)
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
            if let Some(replaced) = &self.workers_replaced {
                s.workers_replaced = *replaced.borrow();
            }
            let fly = &self.play.fly;
            s.camera = [fly.position.x, fly.position.y, fly.position.z, fly.yaw, fly.pitch];
            s.grabbed = self.play.grabbed;
            s.selected = self.play.selected_name().to_string();
            s.mode = self.renderer.options().mode.name().to_string();
            s.overlay = self.overlay;
            s.size = self.size;
            s.world.clone_from(&self.world_name);
            s.message.clone_from(&self.message);
            s.last_edit = self.last_edit.map(|e| [e.at.x, e.at.y, e.at.z, i32::from(e.block.0)]);
            if s.settled.is_none() && s.streaming_cpu_ms.len() < STREAMING_SAMPLES {
                s.streaming_cpu_ms.push(cpu_ms);
            }
            if s.settled.is_none()
                && let Some(t) = self.renderer.inspect().latest_timings()
            {
                s.add_streaming_timings(t);
            }
            if s.settled.is_none() && self.quiet_frames >= QUIET_FRAMES {
                s.settled = Some((s.frames, now));
            } else if s.settled.is_some() && s.frame_ms.len() < SAMPLES {
                s.frame_ms.push(interval);
                s.cpu_ms.push(cpu_ms);
                if let Some(t) = self.renderer.inspect().latest_timings() {
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
}

fn request_frame(callback: &Closure<dyn FnMut(f64)>) {
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(callback.as_ref().unchecked_ref());
    }
}
