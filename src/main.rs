//! The `voxgpu` binary: parse, run, and report any error in one line with a non-zero exit.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use voxgpu::cli::{Cli, run};

fn main() -> ExitCode {
    // wgpu's EGL probe logs an error for each platform it tries before the one that works; that
    // is noise, not a failure, so it is off unless RUST_LOG asks for it. egui-wgpu warns that it
    // "prefers" a non-sRGB target; the viewer's overlay draws into the sRGB view of the surface,
    // which egui-wgpu supports (its shader encodes for either).
    env_logger::Builder::from_env(
        env_logger::Env::default()
            .default_filter_or("warn,wgpu_hal::gles::egl=off,egui_wgpu::renderer=error"),
    )
    .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // clap's message goes on with usage lines; the first line says what is wrong.
            let message = e.to_string();
            eprintln!("{}", message.lines().next().unwrap_or("error: invalid arguments"));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
