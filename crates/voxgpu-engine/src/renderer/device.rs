//! The device part: the device and queue the renderer records for, whether the device was lost,
//! and what it can do.
//!
//! Invariants: the handles never change for the renderer's life (a new device means a new
//! renderer, [`super::Renderer::recover`]); `submission` is supported by `caps`.

use std::sync::{Arc, Mutex};

use super::RendererOptions;
use crate::context::check_device;
use crate::{Capabilities, DrawSubmission, GpuError};

/// Largest render target side we accept, before the adapter's own limit.
pub const MAX_TARGET_SIDE: u32 = 16384;

pub(crate) struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// Set by a device-lost callback the owner of the device installed ([`crate::GpuContext`]).
    lost: Option<Arc<Mutex<Option<String>>>>,
    pub caps: Capabilities,
    pub submission: DrawSubmission,
    /// `name (backend, type)`, for messages.
    pub adapter_name: String,
    pub device_type: wgpu::DeviceType,
    /// Sun shadows unless the options say otherwise: not on CPU or GL adapters.
    pub shadows_by_default: bool,
}

impl Gpu {
    /// The caller's device (cloned handles), refused when `options` asks for a frame size or a
    /// draw submission it cannot do.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        options: &RendererOptions,
    ) -> Result<Self, GpuError> {
        check_target_size(device, options.width, options.height)?;
        let caps = Capabilities::of(device.features());
        let info = device.adapter_info();
        let adapter_name = format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type);
        let submission = options.draw_submission.unwrap_or(DrawSubmission::for_caps(caps));
        check_submission(submission, caps, &adapter_name)?;
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            lost: None,
            caps,
            submission,
            adapter_name,
            device_type: info.device_type,
            shadows_by_default: info.device_type != wgpu::DeviceType::Cpu
                && info.backend != wgpu::Backend::Gl,
        })
    }

    /// Reports the device's loss once `lost` holds a message.
    pub fn watch(&mut self, lost: Arc<Mutex<Option<String>>>) {
        self.lost = Some(lost);
    }

    /// `Err(DeviceLost)` once the watched device-lost flag is set.
    pub fn check_lost(&self) -> Result<(), GpuError> {
        match &self.lost {
            Some(lost) => check_device(lost),
            None => Ok(()),
        }
    }

    /// `Err(TargetSize)` unless `width × height` is a frame this device can draw.
    pub fn check_target_size(&self, width: u32, height: u32) -> Result<(), GpuError> {
        check_target_size(&self.device, width, height)
    }
}

/// `Err(TargetSize)` unless `width × height` is a frame `device` can draw.
pub(crate) fn check_target_size(device: &wgpu::Device, width: u32, height: u32) -> Result<(), GpuError> {
    let max = device.limits().max_texture_dimension_2d.min(MAX_TARGET_SIDE);
    if width == 0 || height == 0 || width > max || height > max {
        return Err(GpuError::TargetSize { width, height, max });
    }
    Ok(())
}

/// Refuses `submission` on a device with `caps` that cannot submit that way (`adapter` names it).
pub(super) fn check_submission(
    submission: DrawSubmission,
    caps: Capabilities,
    adapter: &str,
) -> Result<(), GpuError> {
    if submission.is_supported(caps) {
        return Ok(());
    }
    Err(GpuError::Unsupported {
        adapter: adapter.to_owned(),
        missing: format!("MULTI_DRAW_INDIRECT_COUNT for the {} draw submission", submission.name()),
    })
}
