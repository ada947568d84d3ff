//! The engine's GPU tests, one binary: one link of wgpu, and one device per adapter opened once
//! and shared by every test (`voxgpu_test_kit::gpu_contexts`), instead of a binary and a set of
//! devices per file. Each module is one topic; every test runs on every Vulkan and GL adapter
//! present (with none it fails unless `VOXGPU_ALLOW_NO_GPU=1`, and `VOXGPU_REQUIRE_BACKENDS`
//! names backends that must be present).

mod api_fuzz;
mod culling;
mod embed;
mod examples;
mod faults;
mod golden;
mod gpu_mesher;
mod haze;
mod light;
mod lod;
mod nodes;
mod occlusion;
mod renderer;
mod shadow;
mod streaming;
mod transparency;

use std::path::{Path, PathBuf};

/// This crate's golden references, `crates/voxgpu-engine/tests/golden`.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}
