//! The passes part's render passes: one per raster pass of the render mode, after the opaque
//! pass the shade pass (the opaque surfaces shaded once per pixel) and, unless it wrote the
//! colour target itself, the compose pass, the sky at the end of the first pass that writes the
//! colour target, the selection outline last.

use super::passes::Passes;
use super::{RendererOptions, Targets};
use crate::deferred::SurfaceStart;
use crate::draw::{CountingPass, DrawSubmission, LIST_FADING, OPAQUE_LISTS};
use crate::profiling::{render_pass, scope, stage};
use crate::render_mode::RasterPass;

/// Which of a frame's draws a [`Passes::record_draw`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DrawPhase {
    /// The first phase of an occlusion-culled frame: the passes that draw the opaque lists, over
    /// the streams seen last frame; they clear the depth (and the colour target, where a debug
    /// view's pass writes it; the surface key target only where the depth is the caller's).
    First,
    /// The second phase: every pass over the rest, the shading of the opaque surfaces, then the
    /// sky and the outline; the colour target is cleared by its first pass unless the first phase
    /// wrote it.
    Second,
    /// A frame without occlusion culling: every pass over every list, clearing first.
    Only,
}

impl Passes {
    /// Records the draw passes of `phase` into `targets`; returns how many render-pass commands
    /// they hold.
    pub fn record_draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        targets: &Targets,
        options: &RendererOptions,
        submission: DrawSubmission,
        phase: DrawPhase,
    ) -> u32 {
        let draw = &self.bound().draw;
        let (color_view, depth_view) = (targets.color, targets.depth);
        let sky = options.sky_color.as_dvec3();
        let clears = phase != DrawPhase::Second && targets.clear;
        let pass_descriptor = |label, clear: bool| wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth_view,
                // Reverse-Z: 0 is infinitely far.
                depth_ops: Some(wgpu::Operations {
                    load: if clear { wgpu::LoadOp::Clear(0.0) } else { wgpu::LoadOp::Load },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        };
        let color = |clear: bool| {
            [Some(wgpu::RenderPassColorAttachment {
                view: color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: if clear {
                        wgpu::LoadOp::Clear(wgpu::Color { r: sky.x, g: sky.y, b: sky.z, a: 1.0 })
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                },
            })]
        };
        let first_phase = phase == DrawPhase::First;
        let parent_stage = if first_phase { stage::DRAW_FIRST } else { stage::DRAW };
        scope(profiler, encoder, parent_stage, |encoder, parent| {
            let mut commands = 0;
            // The first phase draws only what gives the pyramid its depth: the opaque lists.
            let rasters = options.mode.passes(options.depth_prepass);
            let (mut depth_cleared, mut color_done) = (!clears, false);
            // The colour target is cleared by the frame's first pass that writes it: in the first
            // phase only a debug view's pass does (the shaded opaque pass writes the surface
            // key target), so a second phase after none clears it.
            let writes_color =
                |r: &RasterPass| r.fragment(false).is_some() && !(r.shades_later() && self.shade_per_pixel);
            let color_clears = targets.clear
                && (phase != DrawPhase::Second
                    || !rasters.iter().filter(|r| r.draws_fading()).any(writes_color));
            // The surface key target is the renderer's own, read by the shade pass where the
            // depth is not 0: cleared by a frame's first opaque pass only when the depth is the
            // caller's, which can hold surfaces of its own (`SurfaceStart`).
            let surfaces_start = if phase == DrawPhase::Second {
                SurfaceStart::Load
            } else if !targets.clear {
                SurfaceStart::Empty
            } else if cfg!(debug_assertions) {
                SurfaceStart::Poison
            } else {
                SurfaceStart::Load
            };
            for &raster in rasters.iter().filter(|r| !first_phase || r.draws_fading()) {
                // The pre-pass has no fragment stage and so no colour attachment; the colour is
                // cleared by the first pass that writes it, and the sky ends that pass.
                let depth_only = raster.fragment(false).is_none();
                let surfaces = raster.shades_later() && self.shade_per_pixel;
                let first_color = !depth_only && !surfaces && !color_done;
                color_done |= first_color;
                let attachments = color(first_color && color_clears);
                let surface_attachments = [Some(self.deferred.attachment(surfaces_start))];
                let label = if first_phase { raster.first_phase_label() } else { raster.label() };
                let descriptor = wgpu::RenderPassDescriptor {
                    color_attachments: if depth_only {
                        &[]
                    } else if surfaces {
                        &surface_attachments
                    } else {
                        &attachments
                    },
                    ..pass_descriptor(label, !depth_cleared)
                };
                depth_cleared = true;
                let sky_here = first_color && !first_phase && options.procedural_sky;
                commands += render_pass(profiler, encoder, Some(parent), label, descriptor, |pass| {
                    let mut pass = CountingPass::new(pass);
                    pass.set_bind_group(0, draw);
                    pass.set_index_buffer(self.index_buffer());
                    let (pipeline, fading) = self.pipelines().get(raster, !self.shade_per_pixel);
                    pass.set_pipeline(pipeline);
                    for &list in raster.lists().iter().filter(|&&l| !first_phase || l != 1) {
                        // The opaque list is its distance bands, nearest first.
                        let bands: &[u32] = if list == 0 { &OPAQUE_LISTS } else { &[list] };
                        for &band in bands {
                            self.draws.draw(&mut pass, submission, band);
                        }
                    }
                    // The opaque faces of nodes cross-fading between levels, dithered.
                    if let Some(fading) = fading {
                        pass.set_pipeline(fading);
                        self.draws.draw(&mut pass, submission, LIST_FADING);
                    }
                    // The sky fills what the opaque passes left empty, before anything
                    // transparent.
                    if sky_here {
                        pass.set_pipeline(&self.pipelines().sky);
                        pass.draw(0..3);
                    }
                    pass.commands
                });
                // The opaque surfaces drawn, they are shaded once per pixel: straight into the
                // colour target with the sky between them, the frame's first write of it (it
                // writes every pixel), or into `lit`, composed into the colour target by the
                // frame's first colour pass, which the sky ends.
                if surfaces && !first_phase && self.shade_into_color {
                    self.deferred.record_shade(encoder, profiler, parent, true);
                    color_done = true;
                } else if surfaces && !first_phase {
                    self.deferred.record_shade(encoder, profiler, parent, false);
                    let first_color = !color_done;
                    color_done = true;
                    let attachments = color(first_color && color_clears);
                    let descriptor = wgpu::RenderPassDescriptor {
                        color_attachments: &attachments,
                        ..pass_descriptor(stage::DRAW_COMPOSE, !depth_cleared)
                    };
                    let sky_here = first_color && options.procedural_sky;
                    commands += render_pass(
                        profiler,
                        encoder,
                        Some(parent),
                        stage::DRAW_COMPOSE,
                        descriptor,
                        |pass| {
                            let mut pass = CountingPass::new(pass);
                            pass.set_bind_group(0, self.deferred.compose_group());
                            pass.set_pipeline(&self.deferred.compose);
                            pass.draw(0..3);
                            if sky_here {
                                pass.set_bind_group(0, draw);
                                pass.set_pipeline(&self.pipelines().sky);
                                pass.draw(0..3);
                            }
                            pass.commands
                        },
                    );
                }
            }
            if options.selection.is_some() && !first_phase {
                let attachments = color(false);
                let descriptor = wgpu::RenderPassDescriptor {
                    color_attachments: &attachments,
                    ..pass_descriptor(stage::DRAW_OUTLINE, false)
                };
                commands +=
                    render_pass(profiler, encoder, Some(parent), stage::DRAW_OUTLINE, descriptor, |pass| {
                        let mut pass = CountingPass::new(pass);
                        pass.set_bind_group(0, draw);
                        pass.set_pipeline(&self.pipelines().outline);
                        pass.draw(0..24);
                        pass.commands
                    });
            }
            commands
        })
    }
}
