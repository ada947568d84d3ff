//! `voxgpu info`: adapters (each one the renderer cannot run on with the reason), the chosen
//! one, and the optional features.

use super::CliError;
use voxgpu_engine::{DrawSubmission, GpuContext, list_adapters};

pub fn run() -> Result<(), CliError> {
    println!("adapters:");
    for a in list_adapters() {
        match &a.refused {
            None => println!("  {a}"),
            Some(why) => println!("  {a}: refused, missing {why}"),
        }
    }
    let gpu = GpuContext::new()?;
    println!("chosen: {}", gpu.summary);
    for line in gpu.caps.report() {
        println!("  {line}");
    }
    println!("draw submission: {}", DrawSubmission::for_caps(gpu.caps).describe());
    Ok(())
}
