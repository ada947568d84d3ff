//! The adapters GPU tests run on, and a device's errors collected.

use std::sync::OnceLock;

use voxgpu_engine::GpuContext;

/// A context to run a GPU test on: one shared by the tests of the binary, or one of the test's
/// own; either way a `GpuContext` (`&gpu` is a `&GpuContext`).
pub enum Gpu {
    /// Opened once per test binary and shared by its tests.
    Shared(&'static GpuContext),
    /// Opened for this call alone.
    Own(GpuContext),
}

impl std::ops::Deref for Gpu {
    type Target = GpuContext;
    fn deref(&self) -> &GpuContext {
        match self {
            Gpu::Shared(gpu) => gpu,
            Gpu::Own(gpu) => gpu,
        }
    }
}

/// The backends GPU tests run on: Vulkan and GL, or what `WGPU_BACKEND` names.
fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::GL)
}

/// Every adapter to run GPU tests on: Vulkan and GL (or what `WGPU_BACKEND` names), Vulkan first.
///
/// Devices on every backend but GL are opened once per test binary and shared by all its tests
/// (a device is safe to use from several threads), so a binary of many tests sets each of them up
/// once. GL ones are opened afresh on every call, as every GL test did before the tests shared a
/// binary: wgpu's GL backend makes every device of an instance take its one EGL context lock,
/// and gives up with a panic ("Could not lock adapter context") after a second, which two tests
/// drawing on llvmpipe at once exceed. A test that needs a device of its own on every backend (one
/// it destroys, or whose error handler it replaces) takes [`own_gpu_contexts`].
///
/// Never skips silently: with no adapter it panics unless `VOXGPU_ALLOW_NO_GPU=1`, and with
/// `VOXGPU_REQUIRE_BACKENDS=vulkan,gl` (set by `.ci/run` once lavapipe is installed) each named
/// backend must be present.
pub fn gpu_contexts() -> Vec<Gpu> {
    static SHARED: OnceLock<Vec<GpuContext>> = OnceLock::new();
    quiet_device_select();
    let shared = SHARED.get_or_init(|| open(backends() - wgpu::Backends::GL));
    let mut contexts: Vec<Gpu> = shared.iter().map(Gpu::Shared).collect();
    contexts.extend(open(backends() & wgpu::Backends::GL).into_iter().map(Gpu::Own));
    checked(contexts)
}

/// A device of its own on every adapter [`gpu_contexts`] runs on, in the same order: for a test
/// that replaces a device's error handler ([`WgpuErrors::watch`]), destroys it, or must otherwise
/// not share it with the tests running beside it.
pub fn own_gpu_contexts() -> Vec<GpuContext> {
    quiet_device_select();
    checked(open(backends()).into_iter().map(Gpu::Own).collect())
        .into_iter()
        .map(|gpu| match gpu {
            Gpu::Own(gpu) => gpu,
            Gpu::Shared(_) => unreachable!("opened here"),
        })
        .collect()
}

/// A context on every adapter of `backends`, from an instance of its own.
fn open(backends: wgpu::Backends) -> Vec<GpuContext> {
    if backends.is_empty() {
        return Vec::new();
    }
    GpuContext::all(backends).into_iter().map(|c| c.expect("an adapter that exists opens a device")).collect()
}

/// `contexts` Vulkan first, after the checks: the required backends present, and some adapter
/// unless `VOXGPU_ALLOW_NO_GPU=1`.
fn checked(mut contexts: Vec<Gpu>) -> Vec<Gpu> {
    contexts.sort_by_key(|c| c.summary.backend != wgpu::Backend::Vulkan);
    if let Ok(required) = std::env::var("VOXGPU_REQUIRE_BACKENDS") {
        for name in required.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let present =
                contexts.iter().any(|c| format!("{:?}", c.summary.backend).eq_ignore_ascii_case(name));
            assert!(present, "VOXGPU_REQUIRE_BACKENDS names {name}, but no {name} adapter was found");
        }
    }
    if contexts.is_empty() && !gpu_opt_out() {
        panic!("no GPU adapter found: install mesa-vulkan-drivers, or set VOXGPU_ALLOW_NO_GPU=1 to opt out");
    }
    if contexts.is_empty() {
        eprintln!("no adapter found; GPU checks NOT run (VOXGPU_ALLOW_NO_GPU=1)");
    }
    contexts
}

/// What the `voxgpu` binary does at start, so that the tests' own processes print no Mesa
/// device-select lines either: called before any test creates a wgpu instance. Sets the
/// environment once per process, however many tests call it.
pub fn quiet_device_select() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: every test makes its instances after this (through `gpu_contexts`, or after calling
    // this itself), and the first call sets the variable before any of them; later calls do
    // nothing; other threads use the environment only through `std::env`.
    ONCE.call_once(|| unsafe { GpuContext::quiet_device_select() });
}

/// The documented opt-out for machines with no adapter at all.
pub fn gpu_opt_out() -> bool {
    std::env::var("VOXGPU_ALLOW_NO_GPU").as_deref() == Ok("1")
}

/// The wgpu errors a device reports, collected instead of wgpu's panic: a test making many calls
/// checks after each and fails with the call that caused one.
#[derive(Clone, Default)]
pub struct WgpuErrors(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl WgpuErrors {
    /// Sends `device`'s uncaptured errors (validation, out of memory, internal) here, replacing
    /// its handler.
    pub fn watch(&self, device: &wgpu::Device) {
        let errors = std::sync::Arc::clone(&self.0);
        device.on_uncaptured_error(std::sync::Arc::new(move |error: wgpu::Error| {
            errors.lock().unwrap_or_else(|e| e.into_inner()).push(error.to_string());
        }));
    }

    /// The errors reported since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
