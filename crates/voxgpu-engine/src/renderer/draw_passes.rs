//! The passes part's render passes: one per raster pass of the render mode, the sky at the end
//! of the first colour pass, the selection outline last.

use super::passes::Passes;
use super::{RendererOptions, Targets};
use crate::draw::{CountingPass, DrawSubmission, LIST_FADING};
use crate::profiling::{render_pass, scope, stage};

impl Passes {
    /// Records the draw passes into `targets`; returns how many render-pass commands they hold.
    pub fn record_draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        targets: &Targets,
        options: &RendererOptions,
        submission: DrawSubmission,
    ) -> u32 {
        let draw = &self.bound().draw;
        let (color_view, depth_view) = (targets.color, targets.depth);
        let sky = options.sky_color.as_dvec3();
        let pass_descriptor = |label, clear: bool| wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth_view,
                // Reverse-Z: 0 is infinitely far.
                depth_ops: Some(wgpu::Operations {
                    load: if clear && targets.clear { wgpu::LoadOp::Clear(0.0) } else { wgpu::LoadOp::Load },
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
                    load: if clear && targets.clear {
                        wgpu::LoadOp::Clear(wgpu::Color { r: sky.x, g: sky.y, b: sky.z, a: 1.0 })
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                },
            })]
        };
        scope(profiler, encoder, stage::DRAW, |encoder, parent| {
            let mut commands = 0;
            for (i, &raster) in options.mode.passes(options.depth_prepass).iter().enumerate() {
                let first = i == 0;
                // The pre-pass has no fragment stage and so no colour attachment; the colour is
                // cleared by the first pass that has one.
                let depth_only = raster.fragment(false).is_none();
                let clear_color = !depth_only && (first || (i == 1 && options.depth_prepass));
                let attachments = color(clear_color);
                let descriptor = wgpu::RenderPassDescriptor {
                    color_attachments: if depth_only { &[] } else { &attachments },
                    ..pass_descriptor(raster.label(), first)
                };
                commands +=
                    render_pass(profiler, encoder, Some(parent), raster.label(), descriptor, |pass| {
                        let mut pass = CountingPass::new(pass);
                        pass.set_bind_group(0, draw);
                        pass.set_index_buffer(self.index_buffer());
                        pass.set_pipeline(self.pipelines().get(raster));
                        for &list in raster.lists() {
                            self.draws.draw(&mut pass, submission, list);
                        }
                        // The opaque faces of nodes cross-fading between levels, dithered.
                        if let Some(fading) = self.pipelines().fading(raster) {
                            pass.set_pipeline(fading);
                            self.draws.draw(&mut pass, submission, LIST_FADING);
                        }
                        // The sky fills what the first colour pass left empty, before anything
                        // transparent.
                        if clear_color && options.procedural_sky {
                            pass.set_pipeline(&self.pipelines().sky);
                            pass.draw(0..3);
                        }
                        pass.commands
                    });
            }
            if options.selection.is_some() {
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
