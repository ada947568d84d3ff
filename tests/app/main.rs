//! The application's tests, one binary (one link): the `voxgpu` binary end to end (its commands,
//! the viewer under Xvfb, the browser build in headless Chromium), and what the application adds
//! over the library crates (`profile`, the session's set-up with a world store, the headless
//! commands on a lost device). The crates' own specifications are their tests
//! (`crates/*/tests`).

mod cli;
mod faults;
mod profile;
mod store_sources;
mod store_viewer;
mod viewer;
mod web;
mod web_input;

use std::path::{Path, PathBuf};

/// The application's golden references, `tests/golden` (the viewer's and the browser build's).
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// `voxgpu profile`'s flags (`flags`, split at whitespace) parsed as its command line parses them,
/// defaults and checks included.
fn profile_args(flags: &str) -> voxgpu::cli::profile::ProfileArgs {
    #[derive(clap::Parser)]
    struct Profile {
        #[command(flatten)]
        args: voxgpu::cli::profile::ProfileArgs,
    }
    let line = std::iter::once("profile").chain(flags.split_whitespace());
    <Profile as clap::Parser>::try_parse_from(line).expect("valid profile flags").args
}
