//! The world store through the real viewer on a virtual X server: edits made in one session
//! are there, pixel for pixel, when the store is reopened, edits the viewer reported as
//! committed survive the process being killed with SIGKILL mid-session, and edits whose commit
//! failed on a full disk are kept, reported once, and committed once there is room again.
//!
//! Needs `Xvfb`, as `tests/app/viewer.rs` does, and for the full disk a small tmpfs, mounted as
//! root or through `sudo -n` (as `.ci/run` runs); without either that test fails, unless
//! `VOXGPU_ALLOW_NO_MOUNT=1` opts out (said on stderr). Runs on the first adapter (Vulkan where
//! present): what is tested is the store, not the adapter.

use voxgpu_test_kit as kit;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use glam::IVec3;
use kit::xvfb::Xvfb;
use voxgpu_core::voxel::{BlockId, BlockRegistry, ChunkPos};
use voxgpu_store::{Store, StoreMeta};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-store-viewer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn backend() -> String {
    let gpu = kit::gpu_contexts();
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
    let chunk = store.overlay(&BlockRegistry::builtin()).expect("overlay").get(pos)?;
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
    let model = voxgpu_worlds::worldgen::generate(
        &voxgpu_worlds::worldgen::WorldSource::Vox(vox.clone()),
        &voxgpu_worlds::worldgen::WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 8 },
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
    let reopened = kit::flip(&first, &second);
    assert!(reopened.passes(), "the reopened store differs from the session that edited it: {reopened}");
    let unedited = kit::flip(&fresh, &second);
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

/// A tmpfs of a few pages mounted at a directory for one test, unmounted when dropped: a disk
/// that really fills, with the kernel's own "no space left on device".
struct SmallDisk {
    dir: PathBuf,
    sudo: bool,
}

impl SmallDisk {
    /// Mounts `kib` KiB at `dir`, owned by this process's user: as root, or through `sudo -n`.
    /// `None` where neither can and `VOXGPU_ALLOW_NO_MOUNT=1` opts out (said on stderr); a
    /// failure without the opt-out fails the test.
    fn mount_or_opt_out(dir: &Path, kib: u32) -> Option<SmallDisk> {
        use std::os::unix::fs::MetadataExt;
        std::fs::create_dir_all(dir).expect("mount point");
        // The directory was made by this process, so it names this process's user.
        let owner = std::fs::metadata(dir).expect("mount point");
        let sudo = owner.uid() != 0;
        let options = format!("size={kib}k,mode=0700,uid={},gid={}", owner.uid(), owner.gid());
        let mut command = if sudo { Command::new("sudo") } else { Command::new("mount") };
        if sudo {
            command.args(["-n", "mount"]);
        }
        let out = command.args(["-t", "tmpfs", "-o", &options, "tmpfs"]).arg(dir).output();
        let failure = match &out {
            Ok(out) if out.status.success() => return Some(SmallDisk { dir: dir.to_path_buf(), sudo }),
            Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
            Err(e) => e.to_string(),
        };
        assert!(
            std::env::var("VOXGPU_ALLOW_NO_MOUNT").as_deref() == Ok("1"),
            "cannot mount a small tmpfs for the full-disk test ({failure}): it needs root or passwordless sudo; set VOXGPU_ALLOW_NO_MOUNT=1 to opt out"
        );
        eprintln!(
            "no tmpfs could be mounted: the viewer's full-disk path was NOT tested (VOXGPU_ALLOW_NO_MOUNT=1)"
        );
        None
    }

    /// Fills the disk with one file, leaving `pages` 4 KiB pages free, and returns its path.
    fn fill(&self, pages: u64) -> PathBuf {
        use std::io::Write;
        let path = self.dir.join("filler");
        let mut file = std::fs::File::create(&path).expect("filler");
        let block = [0xa5u8; 4096];
        while matches!(file.write(&block), Ok(n) if n > 0) {}
        let len = file.metadata().expect("filler").len() / 4096 * 4096;
        file.set_len(len.saturating_sub(pages * 4096)).expect("room left");
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily, so a viewer a failed test left running does not keep it mounted.
        let mut command = if self.sudo { Command::new("sudo") } else { Command::new("umount") };
        if self.sudo {
            command.args(["-n", "umount"]);
        }
        let _ = command.arg("-l").arg(&self.dir).status();
    }
}

#[test]
fn edits_whose_commit_fails_on_a_full_disk_are_kept_and_committed_later() {
    let Some(xvfb) = Xvfb::start_or_opt_out() else { return };
    let dir = temp("full-disk");
    let Some(disk) = SmallDisk::mount_or_opt_out(&dir.join("disk"), 1024) else { return };
    let store = disk.dir.join("world");
    drop(Store::create(&store, &StoreMeta { source: "flat".into(), seed: 0 }).expect("a store"));
    // What opening the store writes beside its database (SQLite's shared-memory index, the
    // holder file), measured by opening it here: the disk is left with room for that and no
    // more, so the viewer opens it and its first commit finds no room.
    let room: u64 = {
        let _open = Store::open(&store).expect("the store opens");
        let files = std::fs::read_dir(&store).expect("the store's files");
        files
            .map(|f| f.expect("a file"))
            .filter(|f| f.file_name() != voxgpu_store::DATABASE_FILE)
            .map(|f| f.metadata().expect("metadata").len().div_ceil(4096))
            .sum()
    };
    let filler = disk.fill(room);
    // Three edits of three blocks, every commit failing; F5 at frame 35 says the script is past
    // them (its model goes to the working directory, not the full disk).
    let script = dir.join("edits.txt");
    std::fs::write(&script, "10 click left\n20 click left\n25 look 0.3 0.0\n30 click left\n35 key f5\n")
        .expect("script");
    let mut child = viewer(&xvfb, &store, &dir)
        .args(["--exit-after-frames", "600", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the viewer starts");
    let lines = |pipe: Box<dyn std::io::Read + Send>| {
        let (send, receive) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        receive
    };
    let stdout = lines(Box::new(child.stdout.take().expect("stdout")));
    let stderr = lines(Box::new(child.stderr.take().expect("stderr")));
    let (mut out, mut err) = (String::new(), String::new());
    let began = Instant::now();
    // Reads stdout until a line starts with `prefix`, keeping what stderr said meanwhile.
    let until = |prefix: &str, out: &mut String, err: &mut String| loop {
        err.extend(stderr.try_iter().map(|l| l + "\n"));
        assert!(began.elapsed() < Duration::from_secs(240), "no {prefix:?} line:\n{out}\n{err}");
        match stdout.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                out.push_str(&line);
                out.push('\n');
                if line.starts_with(prefix) {
                    return line;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => {
                // What stderr still holds says why.
                err.extend(
                    std::iter::from_fn(|| stderr.recv_timeout(Duration::from_secs(2)).ok()).map(|l| l + "\n"),
                );
                panic!("the viewer ended before a {prefix:?} line:\n{out}\n{err}")
            }
        }
    };
    until("exported ", &mut out, &mut err);
    assert!(!out.contains("committed at frame"), "nothing fits on the full disk:\n{out}");
    // Room again: the edits kept pending since frame 10 go in at once, in the next frame.
    std::fs::remove_file(&filler).expect("room again");
    let line = until("committed at frame ", &mut out, &mut err);
    let status = child.wait().expect("the viewer exits");
    err.extend(stderr.iter().map(|l| l + "\n"));
    out.extend(stdout.iter().map(|l| l + "\n"));
    assert!(status.success(), "{out}\n{err}");
    assert_eq!(err.matches("the disk is full").count(), 1, "reported once, not per frame:\n{err}");
    let frame: u64 =
        line["committed at frame ".len()..].split(':').next().and_then(|f| f.parse().ok()).expect("a frame");
    assert!(frame > 35, "committed after the room came back: {line}");
    let edits = committed(&out);
    assert_eq!(edits.len(), 3, "every edit kept and committed:\n{out}");
    assert_eq!(out.matches("committed at frame").count(), 1, "in one commit:\n{out}");
    let store = Store::open(&store).expect("the store reopens");
    store.integrity_check().expect("the store passes its integrity check");
    for (at, id) in &edits {
        assert_eq!(stored_block(&store, *at).map(|b| b.0), Some(*id), "block {at:?}");
    }
    drop(store);
    drop(disk);
    let _ = std::fs::remove_dir_all(&dir);
}
