//! What voxgpu's tests share, in one place for every crate's integration tests (a
//! dev-dependency only; never published):
//! - [`adapters`]: the adapters to run GPU tests on, opened once per test binary and shared by its
//!   tests, the required-backends check, and [`WgpuErrors`], a device's errors collected;
//! - [`reference`]: a small deterministic [`Rng`], the naive face reference, quad sets, and the
//!   test worlds and renderers built from them;
//! - [`images`]: FLIP and the golden-image comparison;
//! - [`crack`]: the crack measure of the level-of-detail tests;
//! - [`xvfb`]: a virtual X server for the tests of the real viewer;
//! - [`browser`]: the browser build served and driven in headless Chromium over DevTools.

pub mod adapters;
pub mod browser;
pub mod crack;
pub mod images;
pub mod reference;
pub mod xvfb;

pub use adapters::{Gpu, WgpuErrors, gpu_contexts, gpu_opt_out, own_gpu_contexts, quiet_device_select};
pub use images::{
    Flip, MAX_VISIBLE_ERROR_SHARE, MEAN_FLIP_THRESHOLD, ReadImage, VISIBLE_ERROR, compare_golden, flip,
    to_image,
};
pub use reference::{
    Rng, UnitFace, as_set, generated, mesh_faces, naive_faces, naive_world_areas, opaque_terrain,
    quad_world_box, renderer, same_mesh,
};

use std::path::{Path, PathBuf};

/// The workspace's root folder (this crate is `crates/voxgpu-test-kit` in it).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

/// Where tests write the pictures of a failure for a person to look at: the workspace's
/// `tests/output` (ignored by git), whichever crate's test wrote them.
pub fn output_dir() -> PathBuf {
    workspace_root().join("tests/output")
}

/// The sample MagicaVoxel model in the workspace's `assets/`.
pub fn sample_vox() -> PathBuf {
    workspace_root().join("assets/sample.vox")
}
