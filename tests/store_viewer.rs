//! The world store through the real viewer on a virtual X server: edits made in one session
//! are there, pixel for pixel, when the store is reopened, and edits the viewer reported as
//! committed survive the process being killed with SIGKILL mid-session.
//!
//! Needs `Xvfb`, as `tests/viewer.rs` does. Runs on the first adapter (Vulkan where present):
//! what is tested is the store, not the adapter.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::xvfb::Xvfb;
use glam::IVec3;
use voxgpu::store::Store;
use voxgpu::voxel::{BlockId, ChunkPos};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-store-viewer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn backend() -> String {
    let gpu = common::gpu_contexts();
    format!("{:?}", gpu.first().expect("an adapter").summary.backend).to_lowercase()
}

/// The viewer over a store of the flat world, with the test's camera, as a command.
fn viewer(xvfb: &Xvfb, store: &Path, dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_voxgpu"));
    command
        .args(["view", "--world", "flat", "--view-distance", "2", "--width", "320", "--height", "240"])
        .args(["--camera", "4.5,18.5,6.5", "--target", "4.5,15.5,0.5"])
        .arg("--store")
        .arg(store)
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("WGPU_BACKEND", backend())
        .env("XDG_RUNTIME_DIR", dir)
        .current_dir(dir);
    command
}

/// `committed at frame F: x,y,z=id ...` lines → the last value committed per block.
fn committed(stdout: &str) -> BTreeMap<[i32; 3], u16> {
    let mut out = BTreeMap::new();
    for line in stdout.lines().filter_map(|l| l.strip_prefix("committed at frame ")) {
        let (_, edits) = line.split_once(": ").expect("committed line");
        for edit in edits.split_whitespace() {
            let (at, id) = edit.split_once('=').expect("x,y,z=id");
            let c: Vec<i32> = at.split(',').map(|v| v.parse().expect("coordinate")).collect();
            out.insert([c[0], c[1], c[2]], id.parse().expect("block id"));
        }
    }
    out
}

/// The block at `at` in the store's chunks (air where the store has no chunk for it).
fn stored_block(store: &Store, at: [i32; 3]) -> Option<BlockId> {
    let (pos, local) = ChunkPos::from_block(IVec3::from_array(at));
    let chunk = store.overlay().expect("overlay").get(pos)?;
    Some(chunk.get(local.x as usize, local.y as usize, local.z as usize))
}

#[test]
fn a_reopened_store_shows_the_same_picture() {
    let Some(xvfb) = Xvfb::start_or_opt_out() else { return };
    let dir = temp("reopen");
    let store = dir.join("world");
    let script = dir.join("edit.txt");
    std::fs::write(&script, "10 click left\n20 click left\n25 look 0.3 0.0\n30 click left\n40 key 3\n45 click right\n50 look -0.3 0.0\n55 key f5\n")
        .expect("script");
    let (first, second, fresh) = (dir.join("first.png"), dir.join("second.png"), dir.join("fresh.png"));
    let run = |command: &mut Command| {
        let out = command.output().expect("the viewer runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let shot = |p: &Path| {
        ["--exit-after-frames".to_string(), "60".into(), "--screenshot".into(), p.display().to_string()]
    };
    let out = run(viewer(&xvfb, &store, &dir).args(shot(&first)).arg("--script").arg(&script));
    // Four edits of three blocks (the last places sand in the third hole), all committed.
    assert_eq!(committed(&out).len(), 3, "three blocks edited and committed:\n{out}");
    assert_eq!(out.matches("committed at frame").count(), 4, "one commit per frame with an edit:\n{out}");
    // F5 wrote the edited model as a .vox file that reads back with the same solid count.
    let exported = out.lines().find_map(|l| l.strip_prefix("exported ")).expect("F5 exported the model");
    let voxels: usize = exported.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a count");
    let vox = dir.join(exported.rsplit(" to ").next().expect("a path"));
    let model = voxgpu::worldgen::generate(
        &voxgpu::worldgen::WorldSource::Vox(vox.clone()),
        &voxgpu::worldgen::WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 8 },
    )
    .unwrap_or_else(|e| panic!("{}: {e}\n{out}", vox.display()));
    let solid: usize = model.chunks().map(|(_, c)| c.voxels().iter().filter(|b| !b.is_air()).count()).sum();
    assert_eq!(solid, voxels, "the exported model reads back whole");
    // Reopened: the same world and edits, no script.
    let out = run(viewer(&xvfb, &store, &dir).args(shot(&second)));
    assert!(out.contains("edited chunks"), "{out}");
    // And a new store of the same world, never edited, to show the edits are what differs.
    run(viewer(&xvfb, &dir.join("fresh-world"), &dir).args(shot(&fresh)));
    let load = |p: &Path| image::open(p).expect("a PNG").to_rgba8();
    let (first, second, fresh) = (load(&first), load(&second), load(&fresh));
    let reopened = common::flip(&first, &second);
    assert!(reopened.passes(), "the reopened store differs from the session that edited it: {reopened}");
    let unedited = common::flip(&fresh, &second);
    assert!(!unedited.passes(), "the edits do not show after reopening: {unedited}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn edits_reported_committed_survive_sigkill() {
    let Some(xvfb) = Xvfb::start_or_opt_out() else { return };
    let dir = temp("sigkill");
    let store = dir.join("world");
    // An edit every 8 frames for a long session, looking around so each digs a new block.
    let mut script = String::new();
    for i in 0..120 {
        let frame = 10 + 8 * i;
        script.push_str(&format!(
            "{frame} click left\n{} look {} 0.0\n",
            frame + 4,
            if i % 2 == 0 { 0.05 } else { -0.04 }
        ));
    }
    let script_path = dir.join("edits.txt");
    std::fs::write(&script_path, script).expect("script");
    let mut child = viewer(&xvfb, &store, &dir)
        .args(["--exit-after-frames", "100000", "--script"])
        .arg(&script_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the viewer starts");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut seen = String::new();
    let began = Instant::now();
    // Kill once a handful of commits have been reported, while edits are still being made.
    while committed(&seen).len() < 6 {
        assert!(began.elapsed() < Duration::from_secs(240), "too few commits reported:\n{seen}");
        let mut line = String::new();
        if reader.read_line(&mut line).expect("read") == 0 {
            panic!("the viewer ended before it was killed:\n{seen}");
        }
        seen.push_str(&line);
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    // Whatever else the pipe still held was printed before the kill too.
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut reader, &mut rest);
    seen.push_str(&rest);
    let reported = committed(&seen);
    let store = Store::open(&store).expect("the store reopens after the kill");
    store.integrity_check().expect("the store passes its integrity check");
    for (at, id) in &reported {
        let block = stored_block(&store, *at).unwrap_or(BlockId::AIR);
        assert_eq!(block.0, *id, "block {at:?} reported committed as {id}, stored as {}", block.0);
    }
    eprintln!("{} committed edits checked after SIGKILL", reported.len());
    let _ = std::fs::remove_dir_all(&dir);
}
