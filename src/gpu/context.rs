//! Adapter choice, device creation and the optional features each later stage uses.
//!
//! Adapter choice follows wgpu's own variables: `WGPU_BACKEND` limits the backends,
//! `WGPU_ADAPTER_NAME` picks by name (substring, case-insensitive), `WGPU_POWER_PREF` sets the
//! preference otherwise.

use super::GpuError;

/// The optional features the renderer uses when the adapter has them, and what it does otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// GPU timestamp queries (`voxgpu profile`). Without them profiling reports that it cannot run.
    pub timestamps: bool,
    /// `multi_draw_indexed_indirect_count`: the GPU decides how many draws run. Without it the
    /// renderer issues `multi_draw_indexed_indirect` over a capped, zero-filled command list.
    pub multi_draw_indirect_count: bool,
    /// Line polygon mode for the wireframe debug view. Without it the wireframe is drawn with a
    /// barycentric edge test in the fragment shader.
    pub polygon_mode_line: bool,
}

impl Capabilities {
    fn of(features: wgpu::Features) -> Self {
        Self {
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            multi_draw_indirect_count: features.contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT),
            polygon_mode_line: features.contains(wgpu::Features::POLYGON_MODE_LINE),
        }
    }

    /// The wgpu features to request: the wanted ones the adapter has.
    fn features(self) -> wgpu::Features {
        let mut f = wgpu::Features::empty();
        f.set(wgpu::Features::TIMESTAMP_QUERY, self.timestamps);
        f.set(
            wgpu::Features::MULTI_DRAW_INDIRECT_COUNT,
            self.multi_draw_indirect_count,
        );
        f.set(wgpu::Features::POLYGON_MODE_LINE, self.polygon_mode_line);
        f
    }

    /// One line per feature: used, or missing and the fallback taken.
    pub fn report(self) -> Vec<String> {
        let line = |name: &str, have: bool, fallback: &str| {
            if have {
                format!("{name}: used")
            } else {
                format!("{name}: missing; {fallback}")
            }
        };
        vec![
            line(
                "TIMESTAMP_QUERY",
                self.timestamps,
                "GPU profiling is unavailable",
            ),
            line(
                "MULTI_DRAW_INDIRECT_COUNT",
                self.multi_draw_indirect_count,
                "draws use multi_draw_indexed_indirect over a capped command list",
            ),
            line(
                "POLYGON_MODE_LINE",
                self.polygon_mode_line,
                "wireframe uses a barycentric edge shader",
            ),
        ]
    }
}

/// Name, backend and device type of one adapter, for `voxgpu info` and test output.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: wgpu::Backend,
    pub device_type: wgpu::DeviceType,
    pub driver: String,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({:?}, {:?}",
            self.name, self.backend, self.device_type
        )?;
        if !self.driver.is_empty() {
            write!(f, ", {}", self.driver)?;
        }
        write!(f, ")")
    }
}

impl AdapterSummary {
    fn of(adapter: &wgpu::Adapter) -> Self {
        let info = adapter.get_info();
        let driver = format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string();
        Self {
            name: info.name,
            backend: info.backend,
            device_type: info.device_type,
            driver,
        }
    }
}

/// An adapter with its device and queue.
pub struct GpuContext {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub caps: Capabilities,
    pub summary: AdapterSummary,
}

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
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
    /// Chooses an adapter the way wgpu's environment variables say and opens a device on it.
    pub fn new() -> Result<Self, GpuError> {
        let tiers = backend_tiers();
        for &backends in &tiers {
            match Self::choose_adapter(backends) {
                Ok(adapter) => return Self::from_adapter(adapter),
                Err(GpuError::NoAdapter { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        let tried: Vec<String> = tiers.iter().map(|b| format!("{b:?}")).collect();
        Err(GpuError::NoAdapter {
            backends: tried.join(", then "),
        })
    }

    fn choose_adapter(backends: wgpu::Backends) -> Result<wgpu::Adapter, GpuError> {
        let instance = instance(backends);
        let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
            Ok(wanted) => {
                let adapters = pollster::block_on(instance.enumerate_adapters(backends));
                let needle = wanted.to_lowercase();
                let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&needle))
                    .ok_or_else(|| GpuError::AdapterNameNotFound {
                        wanted,
                        available: names.join(", "),
                    })?
            }
            Err(_) => {
                let options = wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
                    ..Default::default()
                };
                pollster::block_on(instance.request_adapter(&options)).map_err(|_| {
                    GpuError::NoAdapter {
                        backends: format!("{backends:?}"),
                    }
                })?
            }
        };
        Ok(adapter)
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
        let available = Capabilities::of(adapter.features());
        let caps = choose(available);
        let caps = Capabilities::of(caps.features() & adapter.features());
        let desc = wgpu::DeviceDescriptor {
            label: Some("voxgpu.device"),
            required_features: caps.features(),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        };
        let desc = wgpu::DeviceDescriptor {
            required_limits: wgpu::Limits {
                max_storage_buffer_binding_size: adapter.limits().max_storage_buffer_binding_size,
                max_buffer_size: adapter.limits().max_buffer_size,
                ..desc.required_limits.clone()
            },
            ..desc
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
            GpuError::RequestDevice {
                adapter: summary.to_string(),
                reason: e.to_string(),
            }
        })?;
        Ok(Self {
            adapter,
            device,
            queue,
            caps,
            summary,
        })
    }
}
