//! The desktop viewer end to end: the real `voxgpu view` binary in a window on a virtual X
//! server (Xvfb), driven by a script: a flight, a dug block and a placed one, a render-mode
//! switch, the window minimised to 0×0 and resized, and the GPU device lost twice. It must
//! recover each time, exit 0 with no validation error, and its last frame must be a real picture
//! that matches `tests/golden/viewer-<backend>.png` (made without any loss: the edits survived).
//!
//! Runs on every adapter present, like the other GPU tests. Needs `Xvfb` (Debian: `xvfb`;
//! `.ci/run` installs it): without it the test fails, unless `VOXGPU_ALLOW_NO_XVFB=1` opts out
//! (see README).

use voxgpu_test_kit as kit;

use std::path::Path;
use std::process::Command;

use kit::xvfb::Xvfb;

const SCRIPT: &str = "\
# Flat world, camera low over the grass looking down and ahead.
10 click left       # dig the block under the cursor
20 key 3            # select sand
25 look 0.45 0.0
30 click right      # place it on the grass to the right
35 lose-device      # a driver reset: the viewer rebuilds everything, the edits included
40 resize 0 0       # minimised
50 resize 400 300   # back, larger
60 key f1+2         # wireframe for a while
80 key f1+1         # filled again
90 move 0.3 0 0     # creep forward
120 move 0 0 0
125 look -0.3 0.05
130 lose-device     # again, after a resize (the frame it drops is still, so the view is the same)
";

#[test]
fn the_viewer_flies_edits_resizes_and_matches_its_golden_image() {
    let Some(xvfb) = Xvfb::start_or_opt_out() else { return };
    // Every adapter present (lavapipe, llvmpipe), each in its own run of the viewer.
    let backends: Vec<String> =
        kit::gpu_contexts().iter().map(|c| format!("{:?}", c.summary.backend).to_lowercase()).collect();
    for backend in backends {
        eprintln!("viewer on {backend}");
        run_viewer(&xvfb, &backend);
    }
}

/// Runs the scripted viewer on `backend` and checks its exit and its last frame against the
/// backend's reference (`VOXGPU_BLESS=1` writes it instead).
fn run_viewer(xvfb: &Xvfb, backend: &str) {
    let dir = std::env::temp_dir().join(format!("voxgpu-viewer-{}-{backend}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("script.txt");
    std::fs::write(&script, SCRIPT).expect("write script");
    let shot = dir.join("viewer.png");
    let path = |p: &Path| p.to_str().expect("utf-8").to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
        .args(["view", "--world", "flat", "--view-distance", "2", "--width", "320", "--height", "240"])
        .args(["--camera", "4.5,18.5,6.5", "--target", "4.5,15.5,0.5"])
        .args(["--exit-after-frames", "300", "--screenshot", &path(&shot), "--script", &path(&script)])
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("WGPU_BACKEND", backend)
        .env("XDG_RUNTIME_DIR", &dir)
        .output()
        .expect("the viewer runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the viewer failed on {backend} ({:?}):\n{stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("validation"), "a validation error:\n{stderr}");
    assert!(stdout.contains("screenshot saved to"), "{stdout}");
    let recovered = stdout.lines().filter(|l| l.starts_with("GPU device lost at frame")).count();
    assert_eq!(recovered, 2, "two device losses, each recovered:\n{stdout}");

    let actual = image::open(&shot).expect("the screenshot is a PNG").to_rgba8();
    assert_eq!(actual.dimensions(), (400, 300), "the screenshot has the resized window's size");
    // Neither blank nor sky only: most pixels differ from the top-left (sky) pixel.
    let sky = *actual.get_pixel(0, 0);
    let ground = actual.pixels().filter(|p| **p != sky).count() as f32 / (400.0 * 300.0);
    assert!(ground > 0.3, "only {:.0}% of the frame is not sky", ground * 100.0);

    // One reference per backend: on Vulkan the shade pass writes the frame itself, sRGB-encoded
    // exactly, where GL's rasterised compose pass may round a step apart.
    let reference = format!("viewer-{backend}");
    if let Err(failure) = kit::compare_golden(&crate::golden_dir(), &reference, &reference, &actual, true) {
        panic!("the viewer's frame differs from tests/golden/{reference}.png: {failure}");
    }
}
