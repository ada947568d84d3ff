//! The `voxgpu` binary: parse, run, and report any error in one line with a non-zero exit.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use voxgpu::cli::{Cli, run};

fn main() -> ExitCode {
    cap_malloc_arenas();
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { voxgpu_engine::GpuContext::quiet_device_select() };
    quiet_generation_panics();
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

/// A world source that panics on a generation worker fails only its column: the streamer catches
/// the panic, retries the column, and reports it once in the log and the viewer's overlay when it
/// gives up. The default panic hook would print each attempt's panic as well, so on those threads
/// (named `voxgpu-gen-N`) it prints only with `RUST_BACKTRACE` set, for debugging.
fn quiet_generation_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let worker = std::thread::current().name().is_some_and(|n| n.starts_with("voxgpu-gen-"));
        if !worker || std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            report(info);
        }
    }));
}

/// glibc's malloc gives threads that allocate at once arenas of their own, up to eight per core.
/// The streamer's generation workers (one per core) each allocate 64 KiB chunks, and memory freed
/// into one arena is not reused by another: on a 16-core machine the resident set kept climbing
/// through a long soak (about 48 MiB in 500 s, `docs/PERFORMANCE.md`), while with two arenas it
/// levelled off within three minutes, with the same frame time and streaming. So the binary holds
/// malloc to two arenas, unless `MALLOC_ARENA_MAX` says otherwise.
fn cap_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: `mallopt` only sets an allocator parameter; it runs first thing in `main`,
        // before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}
