//! `voxgpu bench`: meshing throughput of the GPU mesher against the CPU reference (the twin) and
//! the off-the-shelf CPU crate `binary-greedy-meshing`, on the same chunks in the same run, with
//! the adapter's measured copy bandwidth as the floor. The crate's mesh is checked against the
//! twin's before anything is reported.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use glam::Vec3;
use serde::Serialize;

use super::{CliError, MeshArgs, WorldArgs};
use crate::crate_baseline::{CRATE_NAME, CrateInput, all_opaque_table, crate_mesh, twin_face_areas};
use voxgpu_core::camera::Camera;
use voxgpu_core::mesh::{Face, QUAD_BYTES, cpu_threads, map_parallel, mesh_world_chunk_lod};
use voxgpu_core::voxel::{CHUNK_SIZE, CHUNK_VOLUME, Chunk, ChunkPos, MipPyramid, World};
use voxgpu_engine::low_level::{Clock, GpuTimer, copy_bandwidth_gb_s, median};
use voxgpu_engine::{GpuContext, GpuError, MAX_CHUNKS_PER_FRAME, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen;

#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Chunks to mesh: the non-empty chunks nearest the world's centre. At most one frame's
    /// mesh budget (MAX_CHUNKS_PER_FRAME), so one timed pass meshes them all.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=MAX_CHUNKS_PER_FRAME as i64))]
    pub chunks: u32,
    /// Instead of meshing: generation throughput of the streaming worker pool (one thread per
    /// core) over every terrain column within the view distance.
    #[arg(long)]
    pub generation: bool,
    /// Timed repeats per mesher, after one warm-up; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: u32,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub world: WorldArgs,
}

/// The figures `bench --json` prints.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub adapter: String,
    pub backend: String,
    pub chunks: usize,
    /// Levels of detail on, chosen from the world's default view; chunks per level.
    pub lod: bool,
    pub levels: [u32; 6],
    pub quads: u64,
    pub gpu_ms: f64,
    pub cpu_ms: f64,
    pub gpu_chunks_per_ms: f64,
    pub cpu_chunks_per_ms: f64,
    pub gpu_voxels_per_s: f64,
    pub cpu_voxels_per_s: f64,
    /// GPU throughput ÷ CPU throughput.
    pub ratio: f64,
    pub copy_bandwidth_gb_s: f64,
    /// Bytes one chunk must at least move: its voxels in, its quads and records out.
    pub bytes_per_chunk: f64,
    /// Chunks per ms if meshing ran at copy bandwidth.
    pub floor_chunks_per_ms: f64,
    /// Measured GPU throughput ÷ floor.
    pub fraction_of_floor: f64,
    pub cpu_threads: usize,
    /// "timestamps" on a real GPU; "wall-clock" on a software adapter (see `GpuTimer::time`).
    pub gpu_clock: String,
    /// The twin on one thread: a single timed run after the all-thread runs (it is slow enough
    /// that repeats would dominate the bench).
    pub cpu_1t_ms: f64,
    pub cpu_1t_us_per_chunk: f64,
    /// The CPU crate compared against, with its version.
    pub crate_name: String,
    /// The crate meshing every chunk at full detail, every non-air block opaque (it has no levels
    /// of detail, ambient occlusion or transparency of voxgpu's kind), on `crate_threads` threads.
    pub crate_ms: f64,
    pub crate_threads: usize,
    /// The same on one thread.
    pub crate_1t_ms: f64,
    pub crate_voxels_per_s: f64,
    pub crate_1t_us_per_chunk: f64,
    /// crate_ms ÷ gpu_ms.
    /// `None` with levels of detail on: the GPU then meshes coarse levels, the crate full
    /// detail, so the two times are not the same work (run with `--lod off`).
    pub gpu_over_crate: Option<f64>,
    pub crate_quads: u64,
    /// The twin's quads on the crate's terms (the face-area check's meshes), the count to hold
    /// `crate_quads` against; `quads` is what the GPU drew of its own meshes, after culling.
    pub twin_check_quads: u64,
    /// Whether the crate and the twin (full detail, no ambient occlusion, every non-air block
    /// opaque) cover the same unit-face area per direction on every chunk; a run where they do
    /// not fails instead of reporting.
    pub face_areas_equal: bool,
    /// Those areas summed over the chunks, in `Face` order (+x, -x, +y, -y, +z, -z).
    pub twin_face_areas: [u64; 6],
    pub crate_face_areas: [u64; 6],
}

/// Milliseconds `run` takes as the CPU meshers are timed: one warm-up run, then the median of
/// `repeats` runs. The output is dropped inside the timed span.
fn median_ms<T>(repeats: u32, mut run: impl FnMut() -> T) -> f64 {
    let mut times = Vec::new();
    for _ in 0..=repeats {
        let start = Instant::now();
        std::hint::black_box(run());
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.remove(0);
    median(&mut times)
}

/// Milliseconds of one run of `run`, its output dropped inside the timed span.
fn once_ms<T>(run: impl FnOnce() -> T) -> f64 {
    let start = Instant::now();
    std::hint::black_box(run());
    start.elapsed().as_secs_f64() * 1e3
}

/// The crate's figures and its agreement with the twin.
struct CrateFigures {
    ms: f64,
    one_thread_ms: f64,
    quads: u64,
    twin_quads: u64,
    twin_areas: [u64; 6],
    crate_areas: [u64; 6],
}

/// Times `binary-greedy-meshing` over `positions` of `world` on `threads` threads and on one, then
/// checks that on every chunk it covers the same unit-face area per direction as the twin on the
/// crate's terms (full detail, no ambient occlusion, every non-air block opaque), whatever the
/// GPU's level-of-detail settings. The crate's padded inputs are built before timing, as the
/// twin's mip pyramids are: a user of the crate keeps chunks in its layout. A mismatch is an
/// error naming the first chunk that differs.
fn bench_crate(
    world: &World,
    positions: &[ChunkPos],
    threads: usize,
    repeats: u32,
) -> Result<CrateFigures, CliError> {
    let inputs: HashMap<ChunkPos, CrateInput> = positions
        .iter()
        .copied()
        .zip(map_parallel(positions, threads, |p| CrateInput::of(world, p).expect("listed")))
        .collect();
    let ms = median_ms(repeats, || map_parallel(positions, threads, |p| crate_mesh(&inputs[&p])));
    let one_thread_ms = median_ms(repeats, || map_parallel(positions, 1, |p| crate_mesh(&inputs[&p])));

    let opaque = all_opaque_table();
    let twin = map_parallel(positions, threads, |p| twin_face_areas(world, p, &opaque));
    let meshes = map_parallel(positions, threads, |p| crate_mesh(&inputs[&p]));
    let (mut twin_areas, mut crate_areas, mut quads) = ([0u64; 6], [0u64; 6], 0u64);
    let mut twin_quads = 0;
    let mut first_mismatch = None;
    for ((&pos, (twin, twin_chunk_quads)), mesh) in positions.iter().zip(&twin).zip(&meshes) {
        twin_quads += *twin_chunk_quads as u64;
        let areas = mesh.face_areas();
        if areas != *twin && first_mismatch.is_none() {
            first_mismatch = Some((pos, *twin, areas));
        }
        for face in Face::ALL {
            twin_areas[face as usize] += twin[face as usize];
            crate_areas[face as usize] += areas[face as usize];
        }
        quads += mesh.quads.len() as u64;
    }
    if let Some((pos, twin, areas)) = first_mismatch {
        return Err(CliError::BenchCheck(format!(
            "{CRATE_NAME} and the CPU twin mesh different unit-face areas per direction (+x -x +y -y +z -z); first at chunk {:?}: twin {twin:?}, crate {areas:?}; over all chunks: twin {twin_areas:?}, crate {crate_areas:?}",
            pos.0.to_array()
        )));
    }
    Ok(CrateFigures { ms, one_thread_ms, quads, twin_quads, twin_areas, crate_areas })
}

/// The `n` non-empty chunks nearest the centre of the world's bounds, as a world of their own.
fn select_chunks(world: &World, n: usize) -> World {
    let center = world.chunk_bounds().map_or(Vec3::ZERO, |(lo, hi)| (lo + hi).as_vec3() * 0.5);
    let mut positions = world.sorted_positions();
    let half = CHUNK_SIZE as f32 / 2.0;
    positions.sort_by(|a, b| {
        let d = |p: &voxgpu_core::voxel::ChunkPos| (p.origin().as_vec3() + half - center).length_squared();
        d(a).total_cmp(&d(b)).then(a.cmp(b))
    });
    let mut subset = World::new(world.registry.clone());
    for pos in positions.into_iter().take(n) {
        subset.insert(pos, Chunk::clone(world.chunk(pos).expect("listed")));
    }
    subset
}

pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    if args.generation {
        return bench_generation(args);
    }
    let params = args.world.config().params(Vec3::ZERO);
    let full = worldgen::generate(&args.world.world, &params)?;
    let (eye, target) = worldgen::default_view(&args.world.world, &full, &params);
    let world = select_chunks(&full, args.chunks as usize);
    let chunks = world.len();
    if chunks == 0 {
        return Err(CliError::Usage("the world has no chunks to mesh".into()));
    }

    let gpu = GpuContext::new()?;
    let timer = GpuTimer::new(&gpu).ok_or(GpuError::NoTimestamps { adapter: gpu.summary.to_string() })?;
    let options = RendererOptions {
        max_meshes_per_frame: chunks as u32,
        lod: args.mesh.lod_settings(),
        ambient_occlusion: args.mesh.ambient_occlusion(),
        ..RendererOptions::new(1, 1, 1.0)
    };
    let mut renderer = Offscreen::new(&gpu, options, &world.registry)?;
    for (pos, chunk) in world.chunks() {
        renderer.insert_chunk(pos, Arc::clone(chunk))?;
    }
    let settled = renderer.settle(&Camera::look_at(eye, target))?;
    // The CPU meshes each chunk at the level the GPU chose; pyramids are built before timing, as
    // the GPU's are before its re-mesh.
    let levels: HashMap<ChunkPos, u32> = renderer.inspect().levels()?.into_iter().collect();
    let mut gpu_times = Vec::new();
    for _ in 0..=args.repeats {
        gpu_times.push(renderer.tools().timed_remesh()?);
    }
    gpu_times.remove(0);
    let gpu_ms = median(&mut gpu_times);

    let threads = cpu_threads();
    let positions = world.sorted_positions();
    let pyramids: HashMap<ChunkPos, MipPyramid> = positions
        .iter()
        .copied()
        .zip(map_parallel(&positions, threads, |p| MipPyramid::build(world.chunk(p).expect("listed"))))
        .collect();
    let twin = |threads: usize| {
        map_parallel(&positions, threads, |p| {
            mesh_world_chunk_lod(
                &world,
                p,
                &|q| &pyramids[&q],
                &|q| levels[&q],
                args.mesh.ambient_occlusion(),
            )
        })
    };
    let cpu_ms = median_ms(args.repeats, || twin(threads));
    let cpu_1t_ms = once_ms(|| twin(1));
    let krate = bench_crate(&world, &positions, threads, args.repeats)?;

    let bandwidth = copy_bandwidth_gb_s(&gpu, &timer, 256 << 20, args.repeats as usize)?;
    // In: the chunk's 64 KiB of voxels plus one border layer (2 KiB) per face. Out: its quads and
    // six 272-byte face records. Everything else the mesher reads is cache-resident.
    let quads = settled.quads;
    let bytes_per_chunk =
        (CHUNK_VOLUME * 2 + 6 * 2048 + 6 * 272) as f64 + quads as f64 * QUAD_BYTES as f64 / chunks as f64;
    let floor_chunks_per_ms = bandwidth * 1e9 / bytes_per_chunk / 1e3;
    let per_ms = |ms: f64| chunks as f64 / ms;
    let report = BenchReport {
        adapter: gpu.summary.name.clone(),
        backend: format!("{:?}", gpu.summary.backend),
        chunks,
        lod: args.mesh.lod_settings().is_on(),
        levels: settled.lod_levels[..6].try_into().expect("six levels"),
        quads,
        gpu_ms,
        cpu_ms,
        gpu_chunks_per_ms: per_ms(gpu_ms),
        cpu_chunks_per_ms: per_ms(cpu_ms),
        gpu_voxels_per_s: per_ms(gpu_ms) * 1e3 * CHUNK_VOLUME as f64,
        cpu_voxels_per_s: per_ms(cpu_ms) * 1e3 * CHUNK_VOLUME as f64,
        ratio: cpu_ms / gpu_ms,
        copy_bandwidth_gb_s: bandwidth,
        bytes_per_chunk,
        floor_chunks_per_ms,
        fraction_of_floor: per_ms(gpu_ms) / floor_chunks_per_ms,
        cpu_threads: threads,
        gpu_clock: match timer.clock(&gpu) {
            Clock::Timestamps => "timestamps".into(),
            Clock::Wall => "wall-clock".into(),
        },
        cpu_1t_ms,
        cpu_1t_us_per_chunk: cpu_1t_ms * 1e3 / chunks as f64,
        crate_name: CRATE_NAME.into(),
        crate_ms: krate.ms,
        crate_threads: threads,
        crate_1t_ms: krate.one_thread_ms,
        crate_voxels_per_s: per_ms(krate.ms) * 1e3 * CHUNK_VOLUME as f64,
        crate_1t_us_per_chunk: krate.one_thread_ms * 1e3 / chunks as f64,
        gpu_over_crate: (!args.mesh.lod_settings().is_on()).then(|| krate.ms / gpu_ms),
        crate_quads: krate.quads,
        twin_check_quads: krate.twin_quads,
        face_areas_equal: krate.twin_areas == krate.crate_areas,
        twin_face_areas: krate.twin_areas,
        crate_face_areas: krate.crate_areas,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("plain struct serialises"));
    } else {
        print_table(&report);
    }
    Ok(())
}

fn print_table(r: &BenchReport) {
    let per_ms = |ms: f64| r.chunks as f64 / ms;
    let row = |label: String, ms: f64| {
        let voxels_per_s = per_ms(ms) * 1e3 * CHUNK_VOLUME as f64;
        println!("{label:<26} {ms:>12.3} {:>14.2} {voxels_per_s:>16.3e}", per_ms(ms));
    };
    let line = |label: &str, text: String| println!("{label:<26} {text}");
    let threads = |n: usize| if n == 1 { "1 thread".to_string() } else { format!("{n} threads") };
    line("adapter", format!("{} ({})", r.adapter, r.backend));
    line("chunks", format!("{} ({} quads), per level {:?}", r.chunks, r.quads, r.levels));
    line(
        "crate",
        format!(
            "{} ({} quads; the twin on its terms: {} quads)",
            r.crate_name, r.crate_quads, r.twin_check_quads
        ),
    );
    if r.lod {
        line("", "the crate has no levels of detail: it meshes every chunk at full detail".into());
    }
    line("", format!("{:>12} {:>14} {:>16}", "ms", "chunks/ms", "voxels/s"));
    row("GPU mesher".into(), r.gpu_ms);
    row(format!("CPU twin ({})", threads(r.cpu_threads)), r.cpu_ms);
    row("CPU twin (1 thread, 1 run)".into(), r.cpu_1t_ms);
    row(format!("crate ({})", threads(r.crate_threads)), r.crate_ms);
    row("crate (1 thread)".into(), r.crate_1t_ms);
    line("GPU / CPU twin", format!("{:.2}x (GPU timed by {})", r.ratio, r.gpu_clock));
    line(
        "GPU / crate",
        match r.gpu_over_crate {
            Some(ratio) => format!("{ratio:.2}x"),
            None => {
                "not compared: levels of detail are on (the crate meshes full detail); use --lod off".into()
            }
        },
    );
    line(
        "per chunk, 1 thread",
        format!("crate {:.1} µs, twin {:.1} µs", r.crate_1t_us_per_chunk, r.cpu_1t_us_per_chunk),
    );
    line("face area check", format!("equal per direction (+x -x +y -y +z -z) {:?}", r.twin_face_areas));
    line("copy bandwidth", format!("{:.1} GB/s", r.copy_bandwidth_gb_s));
    line(
        "floor",
        format!(
            "{:.1} chunks/ms at {:.0} bytes/chunk; the GPU mesher runs at {:.2}% of it",
            r.floor_chunks_per_ms,
            r.bytes_per_chunk,
            r.fraction_of_floor * 100.0
        ),
    );
}

/// Columns and nodes per second of the streaming worker pool, level by level, over the node
/// columns a view of `--view-distance` keeps resident.
fn bench_generation(args: &BenchArgs) -> Result<(), CliError> {
    use voxgpu_worlds::stream::{GenerationPool, Job, next_token, plan};
    let terrain = voxgpu_worlds::worldgen::TerrainColumns::new(args.world.seed);
    let threads = cpu_threads();
    let mut pool = GenerationPool::new(threads, Arc::new(move |c| Ok(terrain.node_column(c))));
    let lod = args.mesh.lod_settings();
    let columns = plan::wanted_columns(plan::centre_of(glam::IVec2::ZERO), args.world.distance(), &lod);
    let top = columns.iter().map(|c| c.level).max().unwrap_or(0);
    for level in 0..=top {
        let batch: Vec<_> = columns.iter().filter(|c| c.level == level).copied().collect();
        let started = Instant::now();
        pool.submit(batch.iter().map(|&column| Job { column, token: next_token() }));
        let (mut done, mut nodes) = (0, 0);
        while done < batch.len() {
            for finished in pool.wait_results(std::time::Duration::from_secs(60)) {
                done += 1;
                nodes += finished.chunks.map_err(CliError::Usage)?.len();
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "generation level {level} (cells of {} blocks): {} columns, {nodes} nodes in {seconds:.2} s on {threads} threads: {:.0} columns/s, {:.0} nodes/s",
            1 << level,
            batch.len(),
            batch.len() as f64 / seconds,
            nodes as f64 / seconds
        );
    }
    Ok(())
}
