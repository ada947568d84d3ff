//! A virtual X server for the tests that run the real viewer.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An X server on a display of its own, stopped when dropped.
pub struct Xvfb {
    child: Child,
    /// The display, `:N`.
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Option<Xvfb> {
        // Apart per process, and per server within one (tests run in parallel threads).
        static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let nth = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 4;
        let number = 90 + (std::process::id() % 400) * 4 + nth;
        let display = format!(":{number}");
        let child = Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        let began = Instant::now();
        while !socket.exists() {
            assert!(began.elapsed() < Duration::from_secs(20), "Xvfb did not start on {display}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Xvfb { child, display })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const SCRIPT: &str = "\
# Flat world, camera low over the grass looking down and ahead.
10 click left       # dig the block under the cursor
20 key 3            # select sand
25 look 0.45 0.0
30 click right      # place it on the grass to the right
40 resize 0 0       # minimised
50 resize 400 300   # back, larger
60 key f1+2         # wireframe for a while
80 key f1+1         # filled again
90 move 0.3 0 0     # creep forward
120 move 0 0 0
125 look -0.3 0.05
";

impl Xvfb {
    /// [`Xvfb::start`], or `None` where Xvfb is missing and `VOXGPU_ALLOW_NO_XVFB=1` opts out
    /// (said on stderr); missing without the opt-out fails the test.
    pub fn start_or_opt_out() -> Option<Xvfb> {
        let xvfb = Self::start();
        if xvfb.is_none() {
            assert!(
                std::env::var("VOXGPU_ALLOW_NO_XVFB").as_deref() == Ok("1"),
                "Xvfb is not installed (apt-get install xvfb), so the viewer cannot be tested; set VOXGPU_ALLOW_NO_XVFB=1 to opt out"
            );
            eprintln!("Xvfb missing: the viewer was NOT tested (VOXGPU_ALLOW_NO_XVFB=1)");
        }
        xvfb
    }
}
