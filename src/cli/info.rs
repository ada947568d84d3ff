//! `voxgpu info`: adapters (each one the renderer cannot run on with the reason), the chosen
//! one, the optional features, and which count sums the mesher uses.

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
    println!(
        "occlusion culling: two phases, a depth pyramid built by compute from the depth target; both phases' lists drawn by the submission above"
    );
    let info = gpu.adapter.get_info();
    if gpu.caps.subgroups {
        println!(
            "mesher count sums: subgroup operations (subgroups of {}–{})",
            info.subgroup_min_size, info.subgroup_max_size
        );
    } else {
        println!("mesher count sums: workgroup memory (no subgroups)");
    }
    Ok(())
}
