//! `voxgpu info`: adapters, the chosen one, and the optional features.

use super::CliError;
use crate::gpu::{GpuContext, list_adapters};

pub fn run() -> Result<(), CliError> {
    println!("adapters:");
    for a in list_adapters() {
        println!("  {a}");
    }
    let gpu = GpuContext::new()?;
    println!("chosen: {}", gpu.summary);
    for line in gpu.caps.report() {
        println!("  {line}");
    }
    Ok(())
}
