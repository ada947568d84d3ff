//! `voxgpu bench`: meshing throughput of the GPU mesher against the CPU reference on all cores,
//! on the same chunks in the same run, with the adapter's measured copy bandwidth as the floor.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use glam::Vec3;
use serde::Serialize;

use super::{CliError, MeshArgs, WorldArgs};
use crate::camera::Camera;
use crate::gpu::{
    Clock, GpuContext, GpuError, GpuTimer, MAX_CHUNKS_PER_FRAME, Renderer, RendererOptions,
    copy_bandwidth_gb_s, median,
};
use crate::mesh::{QUAD_BYTES, cpu_threads, map_parallel, mesh_world_chunk_lod};
use crate::voxel::{CHUNK_SIZE, CHUNK_VOLUME, Chunk, ChunkPos, MipPyramid, World};
use crate::worldgen;

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
}

/// The `n` non-empty chunks nearest the centre of the world's bounds, as a world of their own.
fn select_chunks(world: &World, n: usize) -> World {
    let center = world.chunk_bounds().map_or(Vec3::ZERO, |(lo, hi)| (lo + hi).as_vec3() * 0.5);
    let mut positions = world.sorted_positions();
    let half = CHUNK_SIZE as f32 / 2.0;
    positions.sort_by(|a, b| {
        let d = |p: &crate::voxel::ChunkPos| (p.origin().as_vec3() + half - center).length_squared();
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
    let params = args.world.params(Vec3::ZERO);
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
    let mut renderer = Renderer::new(&gpu, options, &world.registry)?;
    for (pos, chunk) in world.chunks() {
        renderer.insert_chunk(pos, Arc::clone(chunk))?;
    }
    let settled = renderer.settle(&Camera::look_at(eye, target))?;
    // The CPU meshes each chunk at the level the GPU chose; pyramids are built before timing, as
    // the GPU's are before its re-mesh.
    let levels: HashMap<ChunkPos, u32> = renderer.read_levels()?.into_iter().collect();
    let mut gpu_times = Vec::new();
    for _ in 0..=args.repeats {
        gpu_times.push(renderer.timed_remesh()?);
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
    let mut cpu_times = Vec::new();
    for _ in 0..=args.repeats {
        let start = Instant::now();
        std::hint::black_box(map_parallel(&positions, threads, |p| {
            mesh_world_chunk_lod(
                &world,
                p,
                &|q| &pyramids[&q],
                &|q| levels[&q],
                args.mesh.ambient_occlusion(),
            )
        }));
        cpu_times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    cpu_times.remove(0);
    let cpu_ms = median(&mut cpu_times);

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
        levels: settled.lod_levels,
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
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("plain struct serialises"));
    } else {
        print_table(&report);
    }
    Ok(())
}

fn print_table(r: &BenchReport) {
    println!("adapter          {} ({})", r.adapter, r.backend);
    println!("chunks           {} ({} quads), per level {:?}", r.chunks, r.quads, r.levels);
    println!("                 {:>12} {:>14} {:>16}", "ms", "chunks/ms", "voxels/s");
    println!(
        "GPU mesher       {:>12.3} {:>14.2} {:>16.3e}",
        r.gpu_ms, r.gpu_chunks_per_ms, r.gpu_voxels_per_s
    );
    println!(
        "CPU ({:>2} threads) {:>12.3} {:>14.2} {:>16.3e}",
        r.cpu_threads, r.cpu_ms, r.cpu_chunks_per_ms, r.cpu_voxels_per_s
    );
    println!("GPU / CPU        {:.2}x (GPU timed by {})", r.ratio, r.gpu_clock);
    println!("copy bandwidth   {:.1} GB/s", r.copy_bandwidth_gb_s);
    println!(
        "floor            {:.1} chunks/ms at {:.0} bytes/chunk; the GPU mesher runs at {:.2}% of it",
        r.floor_chunks_per_ms,
        r.bytes_per_chunk,
        r.fraction_of_floor * 100.0
    );
}

/// Columns and chunks per second of the streaming worker pool.
fn bench_generation(args: &BenchArgs) -> Result<(), CliError> {
    use crate::stream::{GenerationPool, Job, next_token};
    let terrain = crate::worldgen::TerrainColumns::new(args.world.seed);
    let threads = cpu_threads();
    let pool = GenerationPool::new(threads, Arc::new(move |c| terrain.column(c)));
    let columns = crate::worldgen::columns_in_view(glam::IVec3::ZERO, args.world.view_distance);
    let started = Instant::now();
    pool.submit(columns.iter().map(|&column| Job { column, token: next_token() }));
    let (mut done, mut chunks) = (0, 0);
    while done < columns.len() {
        for finished in pool.wait_results(std::time::Duration::from_secs(60)) {
            done += 1;
            chunks += finished.chunks.len();
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "generation: {} columns, {chunks} chunks in {seconds:.2} s on {threads} threads: {:.0} columns/s, {:.0} chunks/s",
        columns.len(),
        columns.len() as f64 / seconds,
        chunks as f64 / seconds
    );
    Ok(())
}
