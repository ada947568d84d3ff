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
        // Ready once its socket takes a connection: the socket file alone may be a killed
        // server's, left behind on the same display (numbers repeat within a process).
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        let began = Instant::now();
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
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
