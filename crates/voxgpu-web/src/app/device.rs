//! The page's WebGPU device: asked for at start and again after a loss, which the frame loop
//! notices and answers by rebuilding the renderer on a new device.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::{App, IN_FLIGHT};
use crate::page::{self, STATUS};
use voxgpu_engine::{OPTIONAL_FEATURES, SharedPipelines, depth_target, required_limits};

/// The device's generation: how many lost devices were replaced (or are being replaced). A
/// callback of an older device counts nothing down and reports no loss.
pub(super) static DEVICE: AtomicU32 = AtomicU32::new(0);

thread_local! {
    /// Why the device was lost, set by its callback and taken by the next frame.
    pub(super) static LOST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// An adapter, and a device with what the renderer needs, on `instance` (compatible with
/// `surface` when there is one). An error on the device is shown on the page; its loss is noted
/// for the next frame, which replaces it (`App::recover`), while `generation` is still
/// [`DEVICE`]'s (the loss of a device already replaced is not news).
pub(super) async fn open_device(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'static>>,
    generation: u32,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String> {
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: surface,
            ..Default::default()
        })
        .await
        .map_err(|e| format!("no WebGPU adapter ({e}): this browser lacks WebGPU or has it disabled"))?;
    let name = adapter_name(&adapter);
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
    device.on_uncaptured_error(Arc::new(move |error| {
        if DEVICE.load(Ordering::Relaxed) == generation {
            page::fail(&format!("WebGPU error: {error}"));
        }
    }));
    device.set_device_lost_callback(move |reason, message| {
        if DEVICE.load(Ordering::Relaxed) == generation {
            LOST.with(|lost| *lost.borrow_mut() = Some(format!("{reason:?}: {message}")));
        }
    });
    Ok((adapter, device, queue))
}

/// The adapter's name; browsers report little, and wgpu leaves it empty there.
pub(super) fn adapter_name(adapter: &wgpu::Adapter) -> String {
    let info = adapter.get_info();
    if info.name.is_empty() { "WebGPU adapter".to_string() } else { info.name }
}

impl App {
    /// Starts replacing the device if it was lost: frames wait until the new one is in place.
    /// Returns whether a replacement is under way.
    pub(super) fn start_recovery(&mut self) -> bool {
        if self.recovering {
            return true;
        }
        let Some(reason) = LOST.with(|lost| lost.borrow_mut().take()) else { return false };
        self.recovering = true;
        let generation = DEVICE.fetch_add(1, Ordering::Relaxed) + 1;
        let instance = self.instance.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let device = open_device(&instance, None, generation).await;
            crate::with_app(|app| app.recover(&reason, device));
        });
        true
    }

    /// Destroys the device (the test hook for a lost device, `lose_device`), noting the loss
    /// first: a destroyed device's mapped buffers are gone at once, so no frame may read them
    /// back before the loss is handled.
    pub fn lose_device(&self) {
        if self.recovering || LOST.with(|lost| lost.borrow().is_some()) {
            return;
        }
        LOST.with(|lost| *lost.borrow_mut() = Some("destroyed by the page".into()));
        self.device.destroy();
    }

    /// After the device was lost: the renderer rebuilt on `device` from the nodes it keeps on
    /// the CPU (edits included), the presentation and depth made again; the camera, mode,
    /// streaming and workers carry on. The world settles again (the status says so), and the
    /// loss is counted. With no new device the page says why and stops.
    pub(super) fn recover(
        &mut self,
        reason: &str,
        device: Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String>,
    ) {
        let rebuilt = device.and_then(|(_, device, queue)| {
            let pipelines = SharedPipelines::new(&device);
            self.renderer.recover_with_pipelines(&pipelines, &queue).map_err(|e| e.to_string())?;
            Ok((device, queue, pipelines))
        });
        let (device, queue, pipelines) = match rebuilt {
            Ok(rebuilt) => rebuilt,
            Err(e) => {
                page::fail(&format!("the WebGPU device was lost ({reason}) and could not be replaced: {e}"));
                return;
            }
        };
        let (width, height) = self.size;
        self.present.resize(&device, width, height);
        self.depth = depth_target(&device, width, height);
        IN_FLIGHT.store(0, Ordering::Relaxed);
        (self.device, self.queue, self.pipelines) = (device, queue, pipelines);
        self.recovering = false;
        self.quiet_frames = 0;
        self.message = format!(
            "the WebGPU device was lost ({reason}); recovered with {} nodes",
            self.renderer.resident().len()
        );
        STATUS.with(|s| {
            let mut s = s.borrow_mut();
            s.recoveries += 1;
            s.settled = None;
        });
    }
}
