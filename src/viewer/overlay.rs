//! The viewer's stats overlay (F3), drawn with egui over the presented frame: frame rate, GPU
//! milliseconds per stage (the profiling mode's timestamp scopes), chunks, quads, levels of
//! detail, memory, where the camera is, and the adapter. It is drawn into the window only, so
//! screenshots (`read_pixels`) never contain it.

use std::sync::Arc;

use winit::window::Window;

use voxgpu_engine::{FrameStats, FrameTimings};

/// What one frame shows.
pub struct OverlayData<'a> {
    pub fps: f32,
    pub frame_ms: f32,
    pub stats: FrameStats,
    pub timings: Option<&'a FrameTimings>,
    pub position: glam::Vec3,
    pub chunk: glam::IVec3,
    pub adapter: &'a str,
    pub backend: &'a str,
    pub mode: &'a str,
    pub lod_on: bool,
    /// Frames a change of level cross-fades over (0: none).
    pub lod_fade_frames: u32,
    /// Haze: on, its density and the distance in blocks where it reaches the sky.
    pub fog: (bool, f32, f32),
    /// View distance in chunks, and what chose it.
    pub view_distance: (u32, &'a str),
    /// Resident nodes per node level (0: chunks).
    pub nodes_per_level: Vec<u32>,
    /// `--gpu-memory-budget`, in MiB.
    pub budget_mib: u32,
    pub culling_frozen: bool,
    pub speed: f32,
    pub selected_block: &'a str,
    /// Faults survived, one line each (device losses recovered, columns whose source failed).
    pub faults: Vec<String>,
}

pub struct Overlay {
    ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    pub visible: bool,
    /// Tessellated this frame, painted by `paint`.
    jobs: Vec<egui::ClippedPrimitive>,
    textures: egui::TexturesDelta,
    pixels_per_point: f32,
}

impl Overlay {
    pub fn new(window: &Arc<Window>, device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        // Compact: the overlay should not hide the world.
        ctx.global_style_mut(|style| {
            for font in style.text_styles.values_mut() {
                font.size *= 0.8;
            }
            style.spacing.item_spacing.y = 1.0;
        });
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window.as_ref(),
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let renderer = egui_wgpu::Renderer::new(device, format, egui_wgpu::RendererOptions::default());
        Self {
            ctx,
            state,
            renderer,
            visible: true,
            jobs: Vec::new(),
            textures: Default::default(),
            pixels_per_point: 1.0,
        }
    }

    /// Passes a window event to egui (it tracks the pointer, the size and the scale factor).
    pub fn on_window_event(&mut self, window: &Window, event: &winit::event::WindowEvent) {
        let _ = self.state.on_window_event(window, event);
    }

    /// Lays out this frame's overlay; `paint` draws it.
    pub fn build(&mut self, window: &Window, data: &OverlayData) {
        let input = self.state.take_egui_input(window);
        let visible = self.visible;
        let output = self.ctx.run_ui(input, |ui| {
            if visible {
                panel(ui.ctx(), data);
            }
        });
        self.state.handle_platform_output(window, output.platform_output);
        self.pixels_per_point = output.pixels_per_point;
        self.jobs = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        self.textures.append(output.textures_delta);
    }

    /// Draws the laid-out overlay over `target` (the surface texture, `size` pixels).
    pub fn paint(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: self.pixels_per_point,
        };
        for (id, deltas) in &self.textures.set {
            for delta in deltas {
                self.renderer.update_texture(device, queue, *id, delta);
            }
        }
        let extra = self.renderer.update_buffers(device, queue, encoder, &self.jobs, &screen);
        debug_assert!(extra.is_empty(), "no paint callbacks");
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("voxgpu.overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                ..Default::default()
            });
            self.renderer.render(&mut pass.forget_lifetime(), &self.jobs, &screen);
        }
        let mut textures = std::mem::take(&mut self.textures);
        for id in &textures.free {
            self.renderer.free_texture(id);
        }
        textures.clear();
    }
}

impl Drop for Overlay {
    fn drop(&mut self) {
        // Deltas laid out for a frame that was never shown (a minimised or skipped frame) are
        // not needed any more; egui asserts that none is dropped unhandled.
        self.textures.clear();
    }
}

fn panel(ctx: &egui::Context, d: &OverlayData) {
    egui::Window::new("voxgpu").default_pos([8.0, 8.0]).resizable(false).collapsible(true).show(ctx, |ui| {
        let s = &d.stats;
        egui::Grid::new("numbers").num_columns(2).striped(true).show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.monospace(value);
                ui.end_row();
            };
            row("frame", format!("{:.0} fps, {:.2} ms", d.fps, d.frame_ms));
            row(
                "nodes",
                format!(
                    "{} resident, {} visible of {} drawn with quads",
                    s.chunks_resident, s.chunks_visible, s.chunks_tested
                ),
            );
            row("meshed", format!("{} chunks this frame", s.face_jobs / 6));
            row(
                "quads drawn",
                format!(
                    "{} ({} skirts, {} culled one by one), {} draws",
                    s.quads - s.quads_culled,
                    s.skirt_quads,
                    s.quads_culled,
                    s.draw_commands
                ),
            );
            row(
                "occlusion",
                if s.occlusion_tested {
                    format!(
                        "{} streams: {} + {} drawn, {} culled",
                        s.candidates, s.drawn_first, s.drawn_second, s.occluded
                    )
                } else {
                    "off".to_string()
                },
            );
            row(
                "view",
                format!(
                    "{} blocks ({})",
                    d.view_distance.0 * voxgpu_core::voxel::CHUNK_SIZE as u32,
                    d.view_distance.1
                ),
            );
            row(
                "haze",
                match d.fog {
                    (true, density, end) => format!("on, density {density:.2}, sky at {end:.0} blocks"),
                    (false, ..) => "off (--fog on)".to_string(),
                },
            );
            row("per level", format!("{:?} nodes (0: chunks)", d.nodes_per_level));
            let used = s.lod_levels.iter().rposition(|&n| n > 0).map_or(1, |i| i + 1);
            row("LOD", format!("{} {:?}", if d.lod_on { "on" } else { "off" }, &s.lod_levels[..used]));
            row(
                "cross-fade",
                match d.lod_fade_frames {
                    0 => "off (--lod-fade 16)".to_string(),
                    n => format!("{n} frames, {} nodes fading", s.fading_nodes),
                },
            );
            row(
                "GPU memory",
                format!("{:.1} MiB of a {} MiB budget", s.gpu_bytes as f64 / (1024.0 * 1024.0), d.budget_mib),
            );
            row("camera", format!("{:.1}, {:.1}, {:.1}", d.position.x, d.position.y, d.position.z));
            row("chunk", format!("{}, {}, {}", d.chunk.x, d.chunk.y, d.chunk.z));
            row("speed", format!("{:.0} blocks/s", d.speed));
            row("mode", d.mode.to_string());
            row("culling", (if d.culling_frozen { "frozen (C)" } else { "live" }).to_string());
            row("block", d.selected_block.to_string());
            row("adapter", format!("{} ({})", d.adapter, d.backend));
            for fault in &d.faults {
                row("fault", fault.clone());
            }
        });
        ui.separator();
        match d.timings {
            Some(t) => {
                // Top-level stages; `voxgpu profile` lists their sub-stages.
                egui::Grid::new("stages").num_columns(2).show(ui, |ui| {
                    for stage in t.stages.iter().filter(|s| s.depth == 0) {
                        ui.label(format!("GPU {}", stage.name));
                        ui.monospace(format!("{:.3} ms", stage.duration_ms));
                        ui.end_row();
                    }
                    ui.label("GPU frame");
                    ui.monospace(format!("{:.3} ms", t.gpu_total_ms()));
                    ui.end_row();
                });
            }
            None => {
                ui.label("GPU timings: none yet (or no timestamp queries)");
            }
        }
    });
}
