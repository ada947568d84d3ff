//! The F3 overlay: the frame's figures as text in the page's `<pre>`, or the last message.

use glam::IVec3;

use super::App;
use crate::page::{self, STATUS};
use voxgpu_core::voxel::CHUNK_SIZE;

impl App {
    /// The F3 overlay, refreshed twice a second.
    pub(super) fn update_overlay(&mut self, now: f64) {
        if !self.play.clock.count(now) {
            return;
        }
        let fps = self.play.clock.fps();
        let Some(element) = page::element("overlay") else { return };
        if !self.overlay {
            element.set_text_content(if self.message.is_empty() { None } else { Some(&self.message) });
            return;
        }
        let s = &self.stats;
        let p = self.play.fly.position;
        let chunk = p.floor().as_ivec3().div_euclid(IVec3::splat(CHUNK_SIZE as i32));
        let gpu = self.renderer.inspect().latest_timings().map_or("no timestamps".to_string(), |t| {
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
            self.play.clock.frame_ms(),
            self.world_name,
            self.view_distance,
            p.x,
            p.y,
            p.z,
            chunk.x,
            chunk.y,
            chunk.z,
            self.renderer.options().mode.name(),
            if self.renderer.options().lod.is_on() { "on" } else { "off" },
            if self.renderer.options().culling.frozen.is_some() { ", culling frozen" } else { "" },
            s.chunks_resident,
            self.renderer.resident().nodes_per_level(),
            s.chunks_visible,
            s.quads,
            s.skirt_quads,
            s.draw_commands,
            s.gpu_bytes as f64 / (1024.0 * 1024.0),
            self.play.fly.speed,
            self.play.selected_name(),
            self.message,
        );
        element.set_text_content(Some(&text));
    }
}
