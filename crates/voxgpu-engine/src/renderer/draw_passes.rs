//! The frame's render passes (one per raster pass of the render mode, the sky at the end of the
//! first colour pass, the selection outline last), and the renderer as the streaming manager's
//! [`ChunkSink`].

use std::sync::Arc;

use super::{Renderer, Targets};
use crate::GpuError;
use crate::chunk_pool::Remesh;
use crate::draw::CountingPass;
use crate::profiling::stage;
use voxgpu_core::ChunkSink;
use voxgpu_core::voxel::{Chunk, NodeColumn, NodeKey};

impl Renderer {
    /// Records the draw passes; returns how many render-pass commands they hold.
    pub(super) fn record_draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        draw: &wgpu::BindGroup,
        targets: &Targets,
    ) -> u32 {
        let (color_view, depth_view) = (targets.color, targets.depth);
        let sky = self.options.sky_color.as_dvec3();
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
        let mut scope = self.profiling.profiler.scope(stage::DRAW, encoder);
        let mut commands = 0;
        for (i, &raster) in self.options.mode.passes(self.options.depth_prepass).iter().enumerate() {
            let first = i == 0;
            // The pre-pass has no fragment stage and so no colour attachment; the colour is
            // cleared by the first pass that has one.
            let depth_only = raster.fragment(false).is_none();
            let clear_color = !depth_only && (first || (i == 1 && self.options.depth_prepass));
            let attachments = color(clear_color);
            let descriptor = wgpu::RenderPassDescriptor {
                color_attachments: if depth_only { &[] } else { &attachments },
                ..pass_descriptor(raster.label(), first)
            };
            let mut scoped = scope.scoped_render_pass(raster.label(), descriptor);
            let mut pass = CountingPass::new(&mut scoped);
            pass.set_bind_group(0, draw);
            pass.set_index_buffer(&self.index_buffer);
            pass.set_pipeline(self.pipelines.get(raster));
            for &list in raster.lists() {
                self.draws.draw(&mut pass, self.submission, list);
            }
            // The sky fills what the first colour pass left empty, before anything transparent.
            if clear_color && self.options.procedural_sky {
                pass.set_pipeline(&self.pipelines.sky);
                pass.draw(0..3);
            }
            commands += pass.commands;
        }
        if self.options.selection.is_some() {
            let attachments = color(false);
            let descriptor = wgpu::RenderPassDescriptor {
                color_attachments: &attachments,
                ..pass_descriptor(stage::DRAW_OUTLINE, false)
            };
            let mut scoped = scope.scoped_render_pass(stage::DRAW_OUTLINE, descriptor);
            let mut pass = CountingPass::new(&mut scoped);
            pass.set_bind_group(0, draw);
            pass.set_pipeline(&self.pipelines.outline);
            pass.draw(0..24);
            commands += pass.commands;
        }
        commands
    }
}

/// The streaming manager's view of the renderer: neighbours are re-meshed only when the manager
/// asks (it deduplicates and budgets those requests).
impl ChunkSink for Renderer {
    type Error = GpuError;

    fn insert(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), GpuError> {
        self.pool.insert(&self.device, &self.queue, key, chunk, Remesh::Caller)
    }

    fn remove(&mut self, key: NodeKey) {
        self.pool.remove(key, Remesh::Caller);
    }

    fn mark_dirty(&mut self, key: NodeKey) {
        self.pool.mark_dirty(key);
    }

    fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        self.pool.set_column_ready(column, ready);
    }
}
