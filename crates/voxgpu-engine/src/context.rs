//! Adapter choice, device creation and the optional features the renderer uses.
//!
//! Adapter choice follows wgpu's own variables: `WGPU_BACKEND` limits the backends,
//! `WGPU_ADAPTER_NAME` picks by name (substring, case-insensitive), `WGPU_POWER_PREF` sets the
//! preference otherwise.

use std::sync::{Arc, Mutex};

use super::GpuError;

mod requirements;
pub use requirements::{
    AdapterSummary, Capabilities, OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL, STORAGE_BUFFERS_PER_STAGE,
    required_limits,
};
pub(crate) use requirements::{MIN_SUBGROUP_SIZE, check_adapter};

/// An adapter with its device and queue.
pub struct GpuContext {
    /// The adapter the device was opened on.
    pub adapter: wgpu::Adapter,
    /// The device, with [`GpuContext::caps`]' features and [`required_limits`].
    pub device: wgpu::Device,
    /// The device's queue.
    pub queue: wgpu::Queue,
    /// The optional features the device was created with (the wanted ones the adapter has,
    /// less any the caller turned off).
    pub caps: Capabilities,
    /// The adapter's name, backend and device type.
    pub summary: AdapterSummary,
    /// Set by the device-lost callback; `None` while the device is alive.
    pub lost: Arc<Mutex<Option<String>>>,
    /// The compute pipelines compiled on the device, which every renderer
    /// [`crate::Offscreen::new`] makes on it shares.
    pub pipelines: crate::SharedPipelines,
}

/// A window system's display, which GL (EGL) needs when the instance is created to make window
/// surfaces; Vulkan takes it from the window itself.
pub trait Display: wgpu::rwh::HasDisplayHandle + std::fmt::Debug + Send + Sync + Clone + 'static {}
impl<T: wgpu::rwh::HasDisplayHandle + std::fmt::Debug + Send + Sync + Clone + 'static> Display for T {}

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    configured(wgpu::InstanceDescriptor::new_without_display_handle(), backends)
}

/// An instance on `backends` from `desc`, with voxgpu's flags and wgpu's environment variables.
fn configured(mut desc: wgpu::InstanceDescriptor, backends: wgpu::Backends) -> wgpu::Instance {
    // Off unless the environment turns them on (WGPU_VALIDATION_INDIRECT_CALL=1, WGPU_DEBUG=1):
    // - indirect-call validation re-checks every indirect command, and without an indirect count
    //   (GL) walks the whole capped list on the CPU each frame; our passes write every command
    //   within its rules (first_instance 0, index ranges in the static buffer, dispatches <= 65,535);
    // - `DEBUG` (on in debug builds) names objects for debuggers and puts each shader's line table
    //   in its SPIR-V, found by counting newlines: a fifth of a renderer's creation on lavapipe.
    desc.flags.remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL | wgpu::InstanceFlags::DEBUG);
    let mut desc = desc.with_env();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

fn env_backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
}

/// Without `WGPU_BACKEND`, the primary backends (Vulkan, Metal, DX12) are tried first and GL only
/// when none has an adapter: GL is the fallback, and probing it prints driver noise.
fn backend_tiers() -> Vec<wgpu::Backends> {
    match wgpu::Backends::from_env() {
        Some(chosen) => vec![chosen],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    }
}

/// Every adapter on the backends `WGPU_BACKEND` allows (all when unset).
pub fn list_adapters() -> Vec<AdapterSummary> {
    let instance = instance(env_backends());
    let adapters = pollster::block_on(instance.enumerate_adapters(env_backends()));
    adapters.iter().map(AdapterSummary::of).collect()
}

impl GpuContext {
    /// Keeps Mesa's device-select Vulkan layer from printing a line per Vulkan instance on a
    /// machine without a usable `XDG_RUNTIME_DIR`, as the `voxgpu` binary does at start; a game
    /// (or a test harness) embedding the engine calls it before creating any wgpu instance.
    ///
    /// The implicit layer `VK_LAYER_MESA_device_select` looks for the GPU a Wayland compositor
    /// runs on whenever the instance enables `VK_KHR_wayland_surface` (wgpu always does), by
    /// connecting to the default Wayland display. Without `XDG_RUNTIME_DIR` (short of an
    /// absolute `WAYLAND_DISPLAY`) that connection cannot exist, and libwayland prints `error:
    /// XDG_RUNTIME_DIR is invalid or not set in the environment.` on stderr for each instance.
    /// There the layer has no compositor to find, so this sets its own switch,
    /// `NODEVICE_SELECT=1`, unless the user configured it (`NODEVICE_SELECT`,
    /// `MESA_VK_DEVICE_SELECT` or `DRI_PRIME` set). What that leaves out is the layer's X11
    /// default-GPU guess, which matters only to a multi-GPU desktop with an X server and no
    /// runtime directory; wgpu chooses by power preference either way. Only the first call in a
    /// process does anything.
    ///
    /// # Safety
    ///
    /// It may set an environment variable: no other thread may read or write the environment
    /// through anything but `std::env` while it runs (a Vulkan or GL driver does, inside instance
    /// creation). Call it first thing in `main`, or, where threads already run (a test harness),
    /// before any of them creates an instance.
    pub unsafe fn quiet_device_select() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let absolute =
                |name| std::env::var_os(name).is_some_and(|v| std::path::Path::new(&v).is_absolute());
            // libwayland finds a display by an absolute `WAYLAND_DISPLAY` path without the directory.
            let runtime_dir_valid = absolute("XDG_RUNTIME_DIR") || absolute("WAYLAND_DISPLAY");
            let configured = ["NODEVICE_SELECT", "MESA_VK_DEVICE_SELECT", "DRI_PRIME"]
                .iter()
                .any(|name| std::env::var_os(name).is_some());
            if !runtime_dir_valid && !configured {
                // SAFETY: the caller guarantees no other thread touches the environment but
                // through `std::env`, whose calls are serialised with this one.
                unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
            }
        });
    }

    /// Chooses an adapter the way wgpu's environment variables say and opens a device on it.
    pub fn new() -> Result<Self, GpuError> {
        let tiers = backend_tiers();
        let mut name_not_found = None;
        for &backends in &tiers {
            match Self::choose_adapter(backends) {
                Ok(adapter) => return Self::from_adapter(adapter),
                // A name may match on a later tier (GL) even when the first has none.
                Err(e @ GpuError::AdapterNameNotFound { .. }) => name_not_found = Some(e),
                Err(GpuError::NoAdapter { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        let tried: Vec<String> = tiers.iter().map(|b| format!("{b:?}")).collect();
        Err(name_not_found.unwrap_or(GpuError::NoAdapter { backends: tried.join(", then ") }))
    }

    /// Like [`GpuContext::new`], for drawing into a window: `make_surface` creates the window's
    /// surface on each instance tried, and the adapter must be able to present to it.
    pub fn with_surface(
        display: impl Display,
        make_surface: impl Fn(&wgpu::Instance) -> Result<wgpu::Surface<'static>, wgpu::CreateSurfaceError>,
    ) -> Result<(Self, wgpu::Surface<'static>), GpuError> {
        let tiers = backend_tiers();
        let mut last = None;
        for &backends in &tiers {
            let desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(display.clone()));
            let instance = configured(desc, backends);
            let surface = match make_surface(&instance) {
                Ok(surface) => surface,
                Err(e) => {
                    last = Some(GpuError::Surface(e.to_string()));
                    continue;
                }
            };
            let options = wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
                compatible_surface: Some(&surface),
                ..Default::default()
            };
            match pollster::block_on(instance.request_adapter(&options)) {
                Ok(adapter) => return Ok((Self::from_adapter(adapter)?, surface)),
                Err(_) => {
                    last = Some(GpuError::NoAdapter { backends: format!("{backends:?} (for a window)") })
                }
            }
        }
        Err(last.unwrap_or(GpuError::NoAdapter { backends: "none".into() }))
    }

    fn choose_adapter(backends: wgpu::Backends) -> Result<wgpu::Adapter, GpuError> {
        let instance = instance(backends);
        match std::env::var("WGPU_ADAPTER_NAME") {
            Ok(wanted) => {
                let adapters = pollster::block_on(instance.enumerate_adapters(backends));
                let needle = wanted.to_lowercase();
                let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&needle))
                    .ok_or_else(|| GpuError::AdapterNameNotFound { wanted, available: names.join(", ") })
            }
            Err(_) => {
                let options = wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
                    ..Default::default()
                };
                pollster::block_on(instance.request_adapter(&options))
                    .map_err(|_| GpuError::NoAdapter { backends: format!("{backends:?}") })
            }
        }
    }

    /// `Err(DeviceLost)` once the device has been lost (its lost callback has run).
    pub fn check_device(&self) -> Result<(), GpuError> {
        check_device(&self.lost)
    }

    /// One context per adapter on `backends`, for tests that run on every adapter present.
    pub fn all(backends: wgpu::Backends) -> Vec<Result<Self, GpuError>> {
        let instance = instance(backends);
        let adapters = pollster::block_on(instance.enumerate_adapters(backends));
        adapters.into_iter().map(Self::from_adapter).collect()
    }

    /// Opens a device with every wanted feature the adapter has.
    pub fn from_adapter(adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        Self::with_caps(adapter, |caps| caps)
    }

    /// Like [`GpuContext::from_adapter`], with a hook to turn features off (tests force fallbacks
    /// this way).
    pub fn with_caps(
        adapter: wgpu::Adapter,
        choose: impl FnOnce(Capabilities) -> Capabilities,
    ) -> Result<Self, GpuError> {
        let summary = AdapterSummary::of(&adapter);
        // Before any device or pipeline: an adapter that cannot run the renderer is refused in
        // one line, not by a panic inside wgpu at the first compute pipeline.
        let limits =
            check_adapter(&adapter.get_info(), &adapter.get_downlevel_capabilities(), &adapter.limits())
                .map_err(|missing| GpuError::Unsupported { adapter: summary.to_string(), missing })?;
        let mut offered = Capabilities::of(adapter.features());
        // The subgroup mesher keeps one slot per subgroup for 64 subgroups of 256 invocations.
        offered.subgroups &= adapter.get_info().subgroup_min_size >= MIN_SUBGROUP_SIZE;
        let caps = choose(offered);
        let caps = Capabilities::of(caps.features() & offered.features());
        let desc = wgpu::DeviceDescriptor {
            label: Some("voxgpu.device"),
            required_features: caps.features(),
            required_limits: limits,
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| GpuError::RequestDevice { adapter: summary.to_string(), reason: e.to_string() })?;
        let lost = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            let what =
                if message.is_empty() { format!("{reason:?}") } else { format!("{reason:?}: {message}") };
            // Reported to the user by whoever watches the flag (the CLI's one error line, the
            // viewer's recovery line), so only logged at info here.
            log::info!("GPU device lost: {what}");
            if let Ok(mut slot) = flag.lock() {
                *slot = Some(what);
            }
        });
        // Once the device is lost, every resource made on it is invalid, and using one is a
        // validation error that only repeats the loss (already reported through `lost`, and
        // handled by whoever watches it). Before that, an error is a bug, fatal as in wgpu's
        // default handler.
        let after_loss = Arc::clone(&lost);
        device.on_uncaptured_error(Arc::new(move |error| {
            if after_loss.lock().is_ok_and(|slot| slot.is_some()) {
                log::debug!("after the device was lost: {error}");
                return;
            }
            log::error!("Handling wgpu errors as fatal by default");
            panic!("wgpu error: {error}\n");
        }));
        let pipelines = crate::SharedPipelines::new(&device);
        Ok(Self { adapter, device, queue, caps, summary, lost, pipelines })
    }
}

/// `Err(DeviceLost)` once the device-lost callback has fired.
pub fn check_device(lost: &Mutex<Option<String>>) -> Result<(), GpuError> {
    match lost.lock().ok().and_then(|slot| slot.clone()) {
        Some(message) => Err(GpuError::DeviceLost(message)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_adapter_present_passes_the_check() {
        // SAFETY: this test's instance is made after it; other tests here make none.
        unsafe { GpuContext::quiet_device_select() };
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::GL);
        let adapters = pollster::block_on(instance(backends).enumerate_adapters(backends));
        let opted_out = std::env::var("VOXGPU_ALLOW_NO_GPU").as_deref() == Ok("1");
        assert!(!adapters.is_empty() || opted_out, "no adapter found (VOXGPU_ALLOW_NO_GPU=1 opts out)");
        for adapter in adapters {
            let summary = AdapterSummary::of(&adapter);
            assert_eq!(summary.refused, None, "{summary}");
        }
    }
}
