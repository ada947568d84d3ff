//! `voxgpu profile` end to end on every adapter, and its failure on a device without timestamp
//! queries.

use voxgpu_test_kit as kit;

use kit::ReadImage;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use glam::{IVec3, Vec3};
use voxgpu::cli::CliError;
use voxgpu::cli::profile::profile;
use voxgpu_core::camera::Camera;
use voxgpu_engine::{GpuContext, GpuError, Offscreen, RendererOptions, stage};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, generate};

/// Stages that are passes, so they are timed whenever timestamps exist.
const PASS_STAGES: [&str; 14] = [
    stage::LOD,
    stage::MIPS,
    stage::MESH_WORK_LIST,
    stage::MESH_BUILD,
    // The flight digs a block every frame: its light is updated that frame.
    stage::LIGHT_MASK,
    stage::LIGHT_FALL,
    stage::LIGHT_SPREAD,
    stage::LIGHT_LEVELS,
    stage::CULL_FIRST,
    stage::HIZ,
    stage::CULL,
    stage::DRAW_OPAQUE,
    stage::DRAW_SHADE,
    stage::DRAW_TRANSPARENT,
];

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn json_and_trace_name_every_stage_with_consistent_times_on_every_adapter() {
    for gpu in kit::gpu_contexts() {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let (json_path, trace_path) = (temp(&format!("{backend}.json")), temp(&format!("{backend}.trace")));
        let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
            .args(["profile", "--frames", "4", "--warmup", "2", "--width", "96", "--height", "64"])
            .args([
                "--view-distance",
                "2",
                "--json",
                json_path.to_str().unwrap(),
                "--trace",
                trace_path.to_str().unwrap(),
            ])
            .env("WGPU_BACKEND", &backend)
            .output()
            .expect("binary runs");
        assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));

        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(json["frames"], 4);
        assert_eq!(json["resolution"], "96x64");
        assert!(json["adapter"].as_str().is_some_and(|a| !a.is_empty()));
        assert_eq!(json["backend"].as_str().map(str::to_lowercase), Some(backend.clone()));
        let stages = json["stages"].as_array().expect("stages");
        let names: Vec<&str> = stages.iter().map(|s| s["name"].as_str().unwrap()).collect();
        for wanted in PASS_STAGES {
            assert!(names.contains(&wanted), "{backend}: no {wanted} in {names:?}");
        }
        // The compose pass runs exactly where the shade pass cannot write the profile's colour
        // target itself: on adapters that cannot view a texture in another format (GL).
        let stores =
            gpu.adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VIEW_FORMATS);
        assert_eq!(
            names.contains(&stage::DRAW_COMPOSE),
            !stores,
            "{backend}: draw.compose where the shade pass cannot store to the colour target: {names:?}"
        );
        for s in stages {
            let (median, p95, max) = (
                s["median_ms"].as_f64().unwrap(),
                s["p95_ms"].as_f64().unwrap(),
                s["max_ms"].as_f64().unwrap(),
            );
            assert!(
                median >= 0.0 && median <= p95 && p95 <= max,
                "{backend} {}: {median} {p95} {max}",
                s["name"]
            );
        }
        assert!(json["gpu_frame"]["median_ms"].as_f64().unwrap() > 0.0);
        assert!(json["cpu_record"]["median_ms"].as_f64().unwrap() > 0.0);
        let opaque = stages.iter().find(|s| s["name"] == stage::DRAW_OPAQUE).unwrap();
        assert!(opaque["max_ms"].as_f64().unwrap() > 0.0, "{backend}: drawing takes time");

        // The trace: every pass stage in every frame, and a scope inside another within it.
        let trace: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&trace_path).unwrap()).unwrap();
        let events = trace["traceEvents"].as_array().expect("traceEvents");
        for frame in 0..4 {
            let of_frame: Vec<&serde_json::Value> =
                events.iter().filter(|e| e["args"]["frame"] == frame).collect();
            for wanted in PASS_STAGES {
                assert!(of_frame.iter().any(|e| e["name"] == wanted), "{backend} frame {frame}: no {wanted}");
            }
            for child in &of_frame {
                let name = child["name"].as_str().unwrap();
                let Some((parent_name, _)) = name.split_once('.') else { continue };
                let Some(parent) = of_frame.iter().find(|e| e["name"] == parent_name) else { continue };
                let span = |e: &serde_json::Value| (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                let ((cs, cd), (ps, pd)) = (span(child), span(parent));
                assert!(
                    cd >= 0.0 && cd <= pd + 1e-3,
                    "{backend}: {name} ({cd} µs) outlasts {parent_name} ({pd} µs)"
                );
                assert!(
                    cs + 1e-3 >= ps && cs + cd <= ps + pd + 1e-3,
                    "{backend}: {name} lies outside {parent_name}"
                );
            }
        }
    }
}

#[test]
fn without_timestamps_profile_fails_in_one_line_and_rendering_still_works() {
    for gpu in kit::gpu_contexts() {
        let plain = GpuContext::with_caps(gpu.adapter.clone(), |mut caps| {
            caps.timestamps = false;
            caps
        })
        .expect("device without timestamps");
        assert!(!plain.caps.timestamps);
        let args = crate::profile_args(
            "--frames 2 --warmup 0 --width 32 --height 32 --world sphere --seed 1 --view-distance 2",
        );
        let err = profile(&plain, &args).expect_err("no timestamps, no profile");
        assert!(matches!(err, CliError::Gpu(GpuError::NoTimestamps { .. })), "{err:?}");
        assert_eq!(err.to_string().lines().count(), 1);

        let world =
            generate(&WorldSource::Sphere, &WorldParams { seed: 1, center: IVec3::ZERO, view_distance: 2 })
                .expect("sphere");
        let mut r =
            Offscreen::new(&plain, RendererOptions::new(32, 32, 96.0), &world.registry).expect("renderer");
        for (pos, chunk) in world.chunks() {
            r.insert_chunk(pos, Arc::clone(chunk)).expect("chunk fits");
        }
        assert!(matches!(r.tools().set_profiling(true), Err(GpuError::NoTimestamps { .. })));
        let stats = r
            .settle(&Camera::look_at(Vec3::new(90.0, 90.0, 90.0), Vec3::new(0.0, 48.0, 0.0)))
            .expect("renders");
        assert!(stats.quads > 0 && stats.draw_commands > 0);
        let image = r.read_image().expect("readback");
        let corner = *image.get_pixel(0, 0);
        assert!(image.pixels().any(|p| *p != corner), "the sphere is drawn");
    }
}

/// The short soak: out and back over streamed terrain, a sample every second with positive
/// figures, the start and the end settled at the same place holding the same nodes, and the plot
/// written. The hour-scale runs are in docs/PERFORMANCE.md.
#[test]
fn a_short_soak_samples_every_second_and_comes_back_to_the_same_nodes_on_every_adapter() {
    for gpu in kit::gpu_contexts() {
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        let (json, plot) = (temp(&format!("soak-{backend}.json")), temp(&format!("soak-{backend}.png")));
        let out = Command::new(env!("CARGO_BIN_EXE_voxgpu"))
            .args([
                "profile",
                "--soak",
                "4",
                "--soak-speed",
                "128",
                "--soak-span",
                "192",
                "--view-distance",
                "3",
            ])
            .args([
                "--width",
                "96",
                "--height",
                "54",
                "--json",
                json.to_str().unwrap(),
                "--plot",
                plot.to_str().unwrap(),
            ])
            .env("WGPU_BACKEND", &backend)
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {stderr}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON written")).expect("JSON");
        let samples = report["samples"].as_array().expect("samples");
        assert!(samples.len() >= 2, "{backend}: {} samples in 4 s", samples.len());
        let mut before = 0.0;
        for (i, s) in samples.iter().enumerate() {
            // The first frame past each whole second, covering the time since the sample before.
            let (t, window) = (s["t"].as_f64().unwrap(), s["window_s"].as_f64().unwrap());
            assert!(t >= (i + 1) as f64 && t > before, "{backend}: sample {i}: {s}");
            assert!((t - before - window).abs() < 1e-6, "{backend}: sample {i}: {s}");
            before = t;
            for key in ["nodes", "gpu_bytes", "quad_pages_used", "host_rss_bytes", "frames"] {
                assert!(s[key].as_u64().is_some_and(|v| v > 0), "{backend}: sample {i} {key} = {}", s[key]);
            }
            assert!(s["frame_ms_mean"].as_f64().is_some_and(|v| v > 0.0), "{backend}: {s}");
            assert!(s["frame_ms_max"].as_f64() >= s["frame_ms_mean"].as_f64(), "{backend}: {s}");
            assert_eq!(s["gpu_ms_mean"].is_number(), gpu.caps.timestamps, "{backend}: {s}");
        }
        // Residency is a function of the camera's column: the same place holds the same nodes.
        assert_eq!(report["end"]["nodes_per_level"], report["start"]["nodes_per_level"], "{backend}");
        assert!(report["laps"].as_f64().unwrap() > 1.0, "{backend}: {}", report["laps"]);
        let image = image::open(&plot).expect("the plot is a PNG");
        assert!(
            image.width() >= 800 && image.height() >= 600,
            "{backend}: {:?}",
            (image.width(), image.height())
        );
    }
}
