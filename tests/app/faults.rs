//! The headless commands on a lost GPU device: one line, no panic, no hang. The renderer's own
//! faults are specified in the engine's tests (`crates/voxgpu-engine/tests/gpu/faults.rs`).

use voxgpu_test_kit as kit;

use voxgpu_engine::{GpuContext, GpuError, RendererOptions};

use crate::profile_args;

/// Two contexts on the same adapter: one to lose, one to recover on.
fn pair(gpu: &GpuContext) -> GpuContext {
    GpuContext::from_adapter(gpu.adapter.clone()).expect("a second device on the adapter")
}

/// The headless commands' paths on a lost device: `profile --soak` (which needs no timestamps,
/// so it runs on GL too) and a session filled as `render` and `stats` fill theirs, each ending
/// with `GpuError::DeviceLost`, one line, instead of a panic or a hang.
#[test]
fn headless_work_on_a_lost_device_fails_with_one_line() {
    use voxgpu::cli::CliError;
    use voxgpu::session::{Residency, Session};
    for gpu in kit::gpu_contexts() {
        let lost = pair(&gpu);
        lost.device.destroy();
        let _ = lost.device.poll(wgpu::PollType::wait_indefinitely());
        let args = profile_args("--soak 1 --width 32 --height 32 --seed 7 --view-distance 2");
        let err = voxgpu::cli::soak::run(&lost, &args, 1).expect_err("a lost device");
        assert!(matches!(err, CliError::Gpu(GpuError::DeviceLost(_))), "{}: {err:?}", gpu.summary);
        assert_eq!(err.to_string().lines().count(), 1, "{err}");

        let mut session =
            Session::open(&lost, args.world.config(), Residency::WholeWhereExact, (None, None), |fog| {
                RendererOptions::new(32, 32, fog)
            })
            .expect("opening records no GPU work");
        let err =
            session.fill().and_then(|()| Ok(session.renderer.settle(&session.camera)?)).expect_err("lost");
        assert!(err.to_string().contains("GPU device lost") && err.to_string().lines().count() == 1, "{err}");
    }
}
