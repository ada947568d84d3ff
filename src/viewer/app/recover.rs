//! The viewer's faults: a lost GPU device recovered on a new device and surface, and the faults
//! survived, for the overlay.

use std::sync::Arc;

use super::Viewer;
use crate::session::SessionError;
use crate::viewer::ViewerError;
use crate::viewer::overlay::Overlay;
use voxgpu_engine::{GpuContext, GpuError, Presenter};

impl Viewer {
    /// Whether `error` came from losing the device, and why it was lost. Errors other than the
    /// loss itself (a read-back that found its buffer gone) count when the device is lost too.
    pub(super) fn lost_device(&self, error: &ViewerError) -> Option<String> {
        let _ = self.gpu.device.poll(wgpu::PollType::Poll);
        match (error, &self.gpu.check_device()) {
            (ViewerError::Gpu(GpuError::DeviceLost(reason)), _)
            | (ViewerError::Session(SessionError::Gpu(GpuError::DeviceLost(reason))), _)
            | (_, Err(GpuError::DeviceLost(reason))) => Some(reason.clone()),
            _ => None,
        }
    }

    /// After the device was lost: a new device and surface on the same window (the adapter
    /// chosen again, so a GPU that went away is replaced by the next), the renderer rebuilt from
    /// the nodes it holds on the CPU (edits included), and the overlay made again. The camera,
    /// mode, streaming state and pending edits are the viewer's own and carry on as they were.
    pub(super) fn recover(mut self, reason: &str) -> Result<Self, ViewerError> {
        // The old swapchain still holds the window: it goes before the new surface is made.
        drop(self.presenter);
        let window = Arc::clone(&self.window);
        let (gpu, surface) = GpuContext::with_surface(Arc::clone(&window), |instance| {
            instance.create_surface(Arc::clone(&window))
        })?;
        let size = window.inner_size();
        self.presenter = Presenter::new(&gpu, surface, size.width, size.height)?;
        self.renderer.recover(&gpu)?;
        let visible = self.overlay.visible;
        self.overlay = Overlay::new(&window, &gpu.device, self.presenter.format());
        self.overlay.visible = visible;
        self.backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let line = format!(
            "GPU device lost at frame {} ({reason}); recovered on {} with {} nodes",
            self.frame,
            gpu.summary.name,
            self.renderer.resident().len()
        );
        println!("{line}");
        self.recoveries.push(line);
        self.gpu = gpu;
        Ok(self)
    }

    /// The faults survived so far, for the overlay: each device loss, and the columns whose
    /// world source failed (drawn as absent).
    pub(super) fn faults(&self) -> Vec<String> {
        let mut faults = self.recoveries.clone();
        if let Some(streamer) = &self.streamer {
            let mut failed: Vec<_> = streamer.manager.failed_columns().collect();
            failed.sort_by_key(|(c, _)| (c.level, c.xz.x, c.xz.y));
            if let Some((column, message)) = failed.first() {
                faults.push(format!(
                    "{} columns failed to generate, drawn absent (level {} ({}, {}): {message})",
                    failed.len(),
                    column.level,
                    column.xz.x,
                    column.xz.y
                ));
            }
        }
        faults
    }
}
