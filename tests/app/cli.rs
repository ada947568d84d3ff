//! The `voxgpu` binary end to end: bad input gives one line and a non-zero exit, never a panic;
//! `stats` agrees with a naive face count; `render` writes a picture.

use voxgpu_test_kit as kit;

use std::path::PathBuf;
use std::process::{Command, Output};

use glam::IVec3;
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

fn voxgpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_voxgpu")).args(args).output().expect("binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Asserts a failure with exactly one line on stderr that mentions `needle`, and no panic.
fn assert_one_line_error(args: &[&str], needle: &str) {
    let out = voxgpu(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?} printed more than one line:\n{stderr}");
    assert!(
        lines[0].to_lowercase().contains(&needle.to_lowercase()),
        "{args:?}: {:?} lacks {needle:?}",
        lines[0]
    );
}

#[test]
fn a_missing_vox_file_is_one_line() {
    assert_one_line_error(&["stats", "--world", "vox:/no/such/model.vox"], "/no/such/model.vox");
}

#[test]
fn a_malformed_vox_file_is_one_line() {
    let path = temp("garbage.vox");
    std::fs::write(&path, b"VOX \x96\x00\x00\x00 this is not a model").expect("write");
    assert_one_line_error(&["stats", "--world", &format!("vox:{}", path.display())], "garbage.vox");
}

#[test]
fn a_model_larger_than_the_world_limit_is_one_line() {
    let path = temp("huge.vox");
    voxgpu_worlds::worldgen::vox::write_spread_models(&path, 2000).expect("write test model");
    assert_one_line_error(&["stats", "--world", &format!("vox:{}", path.display())], "too large");
}

#[test]
fn an_unknown_world_is_one_line() {
    assert_one_line_error(&["stats", "--world", "mars"], "mars");
}

#[test]
fn zero_and_huge_image_sizes_are_one_line() {
    let out = temp("never.png");
    let out = out.to_str().expect("utf-8 path");
    assert_one_line_error(&["render", "--out", out, "--width", "0"], "--width");
    assert_one_line_error(&["render", "--out", out, "--height", "0"], "--height");
    assert_one_line_error(&["render", "--out", out, "--width", "100000"], "--width");
    assert_one_line_error(&["render", "--out", out, "--height", "-5"], "--height");
}

#[test]
fn out_of_range_flags_are_one_line() {
    assert_one_line_error(&["stats", "--view-distance", "0"], "--view-distance");
    assert_one_line_error(&["stats", "--view-distance", "100000"], "--view-distance");
    assert_one_line_error(&["stats", "--view-distance", "65537b"], "--view-distance");
    assert_one_line_error(&["stats", "--view-distance", "12x"], "--view-distance");
    assert_one_line_error(&["stats", "--world", "flat", "--view-distance", "100"], "only terrain");
    assert_one_line_error(&["stats", "--seed", "-1"], "--seed");
    assert_one_line_error(&["stats", "--lod", "maybe"], "--lod");
    assert_one_line_error(&["stats", "--lod-distance", "0"], "--lod-distance");
    assert_one_line_error(&["render", "--out", "x.png", "--mode", "plaid"], "--mode");
    assert_one_line_error(&["profile", "--speed", "-1"], "--speed");
    assert_one_line_error(&["render", "--out", "x.png", "--camera", "1,2"], "x,y,z");
    assert_one_line_error(&["render", "--out", "x.png", "--camera", "1,nan,2"], "--camera");
    assert_one_line_error(
        &["render", "--out", "x.png", "--camera", "1,2,3", "--target", "1,2,3"],
        "--target",
    );
}

#[test]
fn an_unwritable_output_is_one_line() {
    let args =
        ["render", "--out", "/no/such/dir/world.png", "--width", "32", "--height", "32", "--world", "sphere"];
    assert_one_line_error(&args, "/no/such/dir/world.png");
}

#[test]
fn stats_json_areas_match_a_naive_count_on_the_sample_model() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/sample.vox");
    let out = voxgpu(&["stats", "--json", "--lod", "off", "--world", &format!("vox:{path}")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats --json prints JSON");

    let world = generate(
        &WorldSource::Vox(path.into()),
        &WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 8 },
    )
    .expect("sample loads");
    let areas = kit::naive_world_areas(&world);
    assert_eq!(json["chunks"], world.len() as u64);
    let mut quads = 0;
    for (i, label) in ["+x", "-x", "+y", "-y", "+z", "-z"].iter().enumerate() {
        assert_eq!(json["faces"][label]["area"], areas[i], "area of {label}");
        quads += json["faces"][label]["quads"].as_u64().expect("quads is a number");
    }
    assert_eq!(json["quads"], quads);
    assert_eq!(json["quad_bytes"], quads * 8);
}

#[test]
fn no_adapter_is_one_line() {
    // Metal does not exist on Linux and is never compiled in here: no adapter can be found.
    let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
        .args(["render", "--out", temp("none.png").to_str().expect("utf-8"), "--world", "sphere"])
        .env("WGPU_BACKEND", "metal")
        .output()
        .expect("binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("no GPU adapter"), "{stderr}");
}

/// A command that succeeds prints nothing on stderr that the user did not ask for, on a machine
/// without a desktop session (no `XDG_RUNTIME_DIR`, as on CI and over ssh) and without
/// `RUST_LOG`: no `error:` line from probing window systems, nor anything else.
#[test]
fn info_and_render_print_nothing_on_stderr_on_every_adapter() {
    let png = temp("quiet.png");
    for gpu in kit::gpu_contexts() {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let render = ["render", "--out", png.to_str().expect("utf-8"), "--width", "64", "--height", "36"];
        for args in [&["info"][..], &render[..]] {
            let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
                .args(args)
                .env("WGPU_BACKEND", &backend)
                .env_remove("XDG_RUNTIME_DIR")
                .env_remove("WAYLAND_DISPLAY")
                .env_remove("RUST_LOG")
                .env_remove("NODEVICE_SELECT")
                .env_remove("MESA_VK_DEVICE_SELECT")
                .env_remove("DRI_PRIME")
                .output()
                .expect("binary runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{backend} {args:?}: {stderr}");
            assert!(
                !stderr.lines().any(|l| l.contains("error:")),
                "{backend} {args:?} printed an error line:\n{stderr}"
            );
            assert!(stderr.trim().is_empty(), "{backend} {args:?} printed on stderr:\n{stderr}");
        }
    }
}

#[test]
fn render_writes_a_png_of_the_requested_size() {
    if kit::gpu_contexts().is_empty() {
        return; // VOXGPU_ALLOW_NO_GPU=1, announced by gpu_contexts
    }
    let path = temp("sphere.png");
    let out = voxgpu(&[
        "render",
        "--out",
        path.to_str().expect("utf-8"),
        "--width",
        "96",
        "--height",
        "64",
        "--world",
        "sphere",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = image::open(&path).expect("a PNG was written").to_rgba8();
    assert_eq!(image.dimensions(), (96, 64));
    let corner = *image.get_pixel(0, 0);
    assert!(image.pixels().filter(|p| **p != corner).count() > 96 * 64 / 10, "the sphere is visible");
}

#[test]
fn stats_is_identical_for_the_gpu_and_cpu_meshers() {
    if kit::gpu_contexts().is_empty() {
        return; // VOXGPU_ALLOW_NO_GPU=1, announced by gpu_contexts
    }
    let vox = format!("vox:{}", concat!(env!("CARGO_MANIFEST_DIR"), "/assets/sample.vox"));
    for world in ["terrain", "checker", vox.as_str()] {
        for lod in ["on", "off"] {
            let run = |mesher: &str| {
                let args = ["stats", "--json", "--mesher", mesher, "--world", world, "--view-distance", "2"];
                let out = voxgpu(&[&args[..], &["--lod", lod, "--lod-distance", "40"]].concat());
                assert!(out.status.success(), "{world} {mesher}: {}", String::from_utf8_lossy(&out.stderr));
                serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON")
            };
            let (mut gpu, cpu) = (run("gpu"), run("cpu"));
            assert!(cpu["quads"].as_u64().unwrap() > 0, "{world}");
            // Draw commands depend on the GPU's page layout; the CPU twin has none.
            assert!(
                gpu["culling"]["draw_commands"].as_u64().unwrap() > 0
                    && cpu["culling"]["draw_commands"].is_null()
            );
            gpu["culling"]["draw_commands"] = serde_json::Value::Null;
            // Occlusion culling is the GPU's alone: each candidate drawn by one phase or culled.
            let o = &gpu["culling"]["occlusion"];
            let count = |k: &str| o[k].as_u64().unwrap_or_else(|| panic!("{world}: no {k} in {o}"));
            assert_eq!(count("candidates"), count("drawn_first") + count("drawn_second") + count("occluded"));
            gpu["culling"]["occlusion"] = serde_json::Value::Null;
            assert_eq!(gpu, cpu, "{world} with LOD {lod}: stats differ between meshers");
            if world == "terrain" && lod == "on" {
                let levels = cpu["lod"]["levels"].as_array().unwrap();
                assert!(levels.iter().filter(|n| n.as_u64() != Some(0)).count() >= 2, "{levels:?}");
                assert!(cpu["lod"]["quads_lod_on"].as_u64() < cpu["lod"]["quads_lod_off"].as_u64());
                assert!(cpu["lod"]["skirt_quads_lod_on"].as_u64().unwrap() > 0);
                let culled = &cpu["culling"];
                assert!(culled["chunks_visible"].as_u64() < culled["chunks_tested"].as_u64(), "{culled}");
                assert!(culled["quads_drawn"].as_u64() < cpu["quads"].as_u64(), "{culled}");
            }
        }
    }
}

#[test]
fn the_viewer_without_a_display_says_so_in_one_line() {
    // The viewer's flags and a model path work with no subcommand, as with `view`: each of these
    // reaches the viewer, which then finds no display.
    let top_level: [&[&str]; 5] = [
        &[],
        &["view"],
        &["--world", "flat", "--view-distance", "16"],
        &["--world", "vox:assets/sample.vox"],
        &["assets/sample.vox", "--width", "640"],
    ];
    for args in top_level {
        let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
            .args(args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(lines[0].contains("no display") && lines[0].contains("voxgpu render"), "{stderr}");
    }
}

#[test]
fn a_model_path_and_another_world_are_refused_in_one_line() {
    assert_one_line_error(&["assets/sample.vox", "--world", "flat"], "both name the world");
    // A mistyped command or a command after the viewer's flags is not taken for a model.
    assert_one_line_error(&["rendr"], "neither a command");
    assert_one_line_error(&["--seed", "3", "view"], "neither a command");
    assert_one_line_error(&["missing.vox"], "no such .vox file");
}

#[test]
fn a_bad_viewer_script_is_one_line() {
    let script = temp("bad-script.txt");
    std::fs::write(&script, "0 move 1 0 0\n5 teleport home\n").expect("write script");
    let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
        .args(["view", "--script", script.to_str().expect("utf-8")])
        .env("DISPLAY", ":0")
        .output()
        .expect("binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.lines().count() == 1 && stderr.contains("script line 2"), "{stderr}");
}

/// `bench --json` times the GPU mesher, the CPU twin and the `binary-greedy-meshing` crate on the
/// same chunks; the crate's unit-face areas equal the twin's, and the GPU/crate ratio is given
/// only when both mesh full detail. On an adapter without timestamp queries it is one line.
#[test]
fn bench_holds_the_gpu_against_the_twin_and_the_crate_on_every_adapter() {
    for gpu in kit::gpu_contexts() {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        for (lod, compared) in [("off", true), ("on", false)] {
            let args =
                ["bench", "--json", "--chunks", "3", "--view-distance", "1", "--repeats", "1", "--lod", lod];
            let out =
                Command::new(env!("CARGO_BIN_EXE_voxgpu")).args(args).env("WGPU_BACKEND", &backend).output();
            let out = out.expect("binary runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !gpu.caps.timestamps {
                assert!(!out.status.success() && stderr.contains("timestamp"), "{backend}: {stderr}");
                continue;
            }
            assert!(out.status.success(), "{backend}: {stderr}");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let report: serde_json::Value =
                serde_json::from_str(stdout.lines().last().expect("one JSON line")).expect("JSON");
            assert_eq!(report["chunks"], 3, "{backend}");
            assert_eq!(report["face_areas_equal"], true, "{backend}");
            assert_eq!(report["twin_face_areas"], report["crate_face_areas"], "{backend}");
            let areas: Vec<u64> = report["crate_face_areas"]
                .as_array()
                .expect("six areas")
                .iter()
                .map(|a| a.as_u64().unwrap())
                .collect();
            assert!(areas.len() == 6 && areas.iter().all(|&a| a > 0), "{backend}: {areas:?}");
            for key in ["gpu_ms", "cpu_ms", "cpu_1t_ms", "crate_ms", "crate_1t_ms"] {
                assert!(
                    report[key].as_f64().is_some_and(|ms| ms > 0.0),
                    "{backend}: {key} = {}",
                    report[key]
                );
            }
            assert_eq!(report["gpu_over_crate"].is_number(), compared, "{backend} LOD {lod}");
        }
    }
}

#[test]
fn a_horizon_of_8192_blocks_renders_and_reports_its_nodes_on_every_adapter() {
    let png = temp("horizon.png");
    for gpu in kit::gpu_contexts() {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let run = |args: &[&str]| {
            let out =
                Command::new(env!("CARGO_BIN_EXE_voxgpu")).args(args).env("WGPU_BACKEND", &backend).output();
            let out = out.expect("binary runs");
            let stderr = String::from_utf8_lossy(&out.stderr).to_string();
            assert!(out.status.success(), "{backend} {args:?}: {stderr}");
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        let printed = run(&[
            "render",
            "--out",
            png.to_str().unwrap(),
            "--view-distance",
            "8192b",
            "--width",
            "96",
            "--height",
            "54",
        ]);
        assert!(printed.contains("streamed the view in"), "{backend}: {printed}");
        let image = image::open(&png).expect("a PNG").to_rgba8();
        assert_eq!(image.dimensions(), (96, 54));
        let stdout = run(&["stats", "--json", "--view-distance", "8192b"]);
        let report: serde_json::Value =
            serde_json::from_str(stdout.lines().last().expect("JSON")).expect("JSON");
        let per_level: Vec<u64> = report["nodes_per_level"]
            .as_array()
            .expect("levels")
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        // Chunks and node levels 1 to 5 (top level 5 at 8,192 blocks), all within one 128 MiB
        // binding's 1,789 slots, nothing left out.
        assert_eq!(per_level.len(), 6, "{backend}: {per_level:?}");
        assert!(per_level.iter().all(|&n| n > 0), "{backend}: {per_level:?}");
        assert!(per_level.iter().sum::<u64>() < 1789, "{backend}: {per_level:?}");
        assert_eq!(report["capped"], false, "{backend}");
        assert_eq!(report["view_distance_blocks"], 8192, "{backend}");
        assert!(report["quads_drawn"].as_u64().is_some_and(|q| q > 0), "{backend}");
        let drawn = report["drawn_per_level"].as_array().expect("drawn").len();
        assert!(drawn >= 6, "{backend}: drawn at levels 0..{drawn}");
        // A small budget leaves the farthest nodes out, says so, and still draws.
        let stdout = run(&["stats", "--json", "--view-distance", "8192b", "--gpu-memory-budget", "48"]);
        let capped: serde_json::Value =
            serde_json::from_str(stdout.lines().last().expect("JSON")).expect("JSON");
        assert_eq!(capped["capped"], true, "{backend}");
        let nodes: u64 =
            capped["nodes_per_level"].as_array().expect("levels").iter().map(|n| n.as_u64().unwrap()).sum();
        assert!(nodes <= 48 * 1024 * 1024 / voxgpu::cli::NODE_BUDGET_BYTES, "{backend}: {nodes} nodes");
        assert!(capped["gpu_bytes"].as_u64() < report["gpu_bytes"].as_u64(), "{backend}");
        assert!(capped["quads_drawn"].as_u64().is_some_and(|q| q > 0), "{backend}");
    }
}

/// A store directory under the temp dir, absent.
fn store_path(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("voxgpu-cli-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn bad_stores_are_one_line_and_left_alone() {
    let render = |store: &std::path::Path| {
        vec![
            "render".to_string(),
            "--out".into(),
            temp("store.png").display().to_string(),
            "--width".into(),
            "32".into(),
            "--height".into(),
            "32".into(),
            "--world".into(),
            "flat".into(),
            "--store".into(),
            store.display().to_string(),
        ]
    };
    let check = |store: &std::path::Path, needle: &str| {
        let args = render(store);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_one_line_error(&args, needle);
    };
    // Not a store: a file, and a directory of something else.
    let file = store_path("file");
    std::fs::write(&file, b"my notes").expect("write");
    check(&file, "not a voxgpu world store");
    assert_eq!(std::fs::read(&file).expect("kept"), b"my notes");
    let dir = store_path("dir");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("photo.jpg"), b"jpeg").expect("write");
    check(&dir, "not a voxgpu world store");
    // A store that is damaged, and one of a newer format.
    let damaged = store_path("damaged");
    drop(
        voxgpu_store::Store::create(&damaged, &voxgpu_store::StoreMeta { source: "flat".into(), seed: 1 })
            .expect("created"),
    );
    let database = damaged.join(voxgpu_store::DATABASE_FILE);
    let mut bytes = std::fs::read(&database).expect("read");
    let whole = bytes.clone();
    bytes.truncate(bytes.len() / 2 + 100);
    for b in bytes[100..].iter_mut() {
        *b = !*b;
    }
    std::fs::write(&database, &bytes).expect("write");
    check(&damaged, "damaged");
    assert_eq!(std::fs::read(&database).expect("kept"), bytes, "left as it was");
    std::fs::write(&database, &whole).expect("restore");
    let mut newer = whole.clone();
    newer[60..64].copy_from_slice(&(voxgpu_store::FORMAT_VERSION + 1).to_be_bytes());
    std::fs::write(&database, &newer).expect("write");
    check(&damaged, "newer");
    // In use by another process (this one), which is named.
    std::fs::write(&database, &whole).expect("restore");
    let held = voxgpu_store::Store::open(&damaged).expect("opens");
    check(&damaged, &format!("in use by process {}", std::process::id()));
    drop(held);
    // A world that fails to build creates no store.
    let never = store_path("never");
    let args = ["stats", "--world", "vox:no-such-model.vox", "--store", never.to_str().expect("utf-8")];
    assert_one_line_error(&args, "no-such-model.vox");
    assert!(!never.exists(), "a failed configuration created a store");
    // A location where nothing can be created (read-only for every user, root included).
    check(std::path::Path::new("/sys/voxgpu-cli-store"), "cannot create the world store");
    for p in [&file, &dir, &damaged] {
        let _ = std::fs::remove_dir_all(p);
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn export_writes_a_model_that_reads_back() {
    let out = temp("export.vox");
    let run = voxgpu(&["export", "--world", "vox:assets/sample.vox", "--out", out.to_str().expect("utf-8")]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let voxels: usize = stdout
        .split(": ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    let params = WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 8 };
    let (original, back) = (
        generate(&WorldSource::Vox("assets/sample.vox".into()), &params).expect("sample"),
        generate(&WorldSource::Vox(out.clone()), &params).expect("the export reads back"),
    );
    let solid = |w: &voxgpu_core::voxel::World| -> usize {
        w.chunks().map(|(_, c)| c.voxels().iter().filter(|b| !b.is_air()).count()).sum()
    };
    assert_eq!(solid(&original), voxels);
    assert_eq!(solid(&back), voxels);
    assert_one_line_error(
        &["export", "--world", "sphere", "--out", "/tmp/x.vox", "--region", "0,0,0:5000,1,1"],
        "each side",
    );
}

#[test]
fn a_streamed_terrain_store_shows_its_edits() {
    // A store of terrain (seed 1) whose edits empty four chunk columns ahead of the default
    // camera; rendered at a view distance that streams level-of-detail nodes, the hole shows.
    let path = store_path("streamed");
    let meta = voxgpu_store::StoreMeta { source: "terrain".into(), seed: 1 };
    {
        let mut store = voxgpu_store::Store::create(&path, &meta).expect("created");
        let air = voxgpu_core::voxel::Chunk::empty();
        let columns = [(1, -2), (1, -1), (2, -2), (2, -1)];
        let chunks: Vec<voxgpu_core::voxel::ChunkPos> = columns
            .iter()
            .flat_map(|&(x, z)| (0..8).map(move |y| voxgpu_core::voxel::ChunkPos(IVec3::new(x, y, z))))
            .collect();
        store.commit(chunks.iter().map(|&p| (p, &air))).expect("committed");
    }
    let render = |out: &std::path::Path, world: &[&str]| {
        let mut args =
            vec!["render", "--out", out.to_str().expect("utf-8"), "--width", "160", "--height", "90"];
        args.extend_from_slice(world);
        args.extend_from_slice(&["--view-distance", "16"]);
        let run = voxgpu(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        image::open(out).expect("a PNG").to_rgba8()
    };
    let store_arg = path.to_str().expect("utf-8");
    let edited = render(&temp("streamed-edited.png"), &["--store", store_arg]);
    let plain = render(&temp("streamed-plain.png"), &["--world", "terrain", "--seed", "1"]);
    let differing = edited.pixels().zip(plain.pixels()).filter(|(a, b)| a != b).count();
    assert!(
        differing > 500,
        "the emptied columns do not show in the streamed world: {differing} pixels differ"
    );
    let _ = std::fs::remove_dir_all(&path);
}
