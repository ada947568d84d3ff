//! `voxgpu stats`: quads and unit-face area per face direction, from the GPU mesher (default) or
//! the CPU reference, with levels of detail chosen from a camera. Both meshers must print the same
//! numbers. The `lod` part compares the same world meshed with and without LOD.

use std::collections::HashMap;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use glam::Vec3;
use serde::Serialize;

use super::mesh_stats::MeshStats;
use super::{CliError, MeshArgs, WorldArgs, parse_vec3};
use crate::session::{Residency, SessionPlan};
use voxgpu_core::camera::Camera;
use voxgpu_core::cull::{Frustum, chunk_in_frustum, face_may_show};
use voxgpu_core::lod::{LEVEL_UNSET, LodSettings, chunk_distance};
use voxgpu_core::mesh::{ChunkMesh, Face, cpu_threads, map_parallel, mesh_world_chunk_lod};
use voxgpu_core::voxel::{ChunkPos, MipPyramid, World};
use voxgpu_engine::{Culling, FrameStats, GpuContext, Offscreen, RendererOptions};
use voxgpu_worlds::worldgen;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mesher {
    /// The compute mesher, read back from the GPU.
    Gpu,
    /// The CPU reference mesher, on every core.
    Cpu,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Which mesher produces the quads.
    #[arg(long, value_enum, default_value_t = Mesher::Gpu)]
    pub mesher: Mesher,
    /// Camera position `x,y,z` that levels of detail are chosen from (default: the world's view).
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub camera: Option<Vec3>,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub world: WorldArgs,
}

/// What `stats --json` prints: the mesh statistics of the chosen `--lod`, the LOD comparison,
/// and what the camera's frame draws after culling.
#[derive(Debug, Serialize)]
pub struct StatsReport {
    #[serde(flatten)]
    pub mesh: MeshStats,
    pub lod: LodReport,
    pub culling: CullReport,
}

/// The frame from the stats camera (a 16:9 view, the renderer's field of view) after culling.
#[derive(Debug, Serialize)]
pub struct CullReport {
    pub target: [f32; 3],
    /// Chunks with quads, all tested against the frustum.
    pub chunks_tested: u64,
    pub chunks_visible: u64,
    /// Quads of visible chunks in face directions that can face the camera.
    pub quads_drawn: u64,
    /// Draw commands the GPU wrote (`--mesher gpu` only: they depend on the page layout).
    pub draw_commands: Option<u32>,
    /// `--mesher gpu` only: the GPU's occlusion culling of the still view (its third frame, so
    /// the first phase draws what the frame before saw).
    pub occlusion: Option<OcclusionReport>,
}

/// Face streams (a node's face direction, opaque or transparent) of one frame.
#[derive(Debug, Serialize)]
pub struct OcclusionReport {
    /// Left by the frustum and face-direction tests.
    pub candidates: u32,
    /// Drawn by the first phase (seen the frame before).
    pub drawn_first: u32,
    /// Drawn by the second phase.
    pub drawn_second: u32,
    /// Culled by occlusion.
    pub occluded: u32,
}

/// The aspect ratio `stats` culls with.
const STATS_ASPECT: (u32, u32) = (16, 9);

#[derive(Debug, Serialize)]
pub struct LodReport {
    pub enabled: bool,
    /// Where levels were chosen from.
    pub camera: [f32; 3],
    /// Distance where level 1 begins.
    pub first_distance: f32,
    /// Chunks at each level 0..=5 (with `--lod off`, all at 0).
    pub levels: [u64; 6],
    /// The same world and camera with LOD on and off.
    pub quads_lod_on: u64,
    pub quads_lod_off: u64,
    /// Of the LOD-on quads, the skirts.
    pub skirt_quads_lod_on: u64,
}

/// Every chunk's position, mesh and level, sorted by position; and from the GPU, its own counts of
/// the culled frame.
struct Meshed {
    chunks: Vec<(ChunkPos, ChunkMesh, u32)>,
    frame: Option<FrameStats>,
}

/// What `stats --json` writes for a streamed horizon: the GPU's view of the nodes.
#[derive(Debug, Serialize)]
pub struct NodeStatsReport {
    pub camera: [f32; 3],
    pub view_distance_blocks: u32,
    /// Resident nodes per node level (0: chunks).
    pub nodes_per_level: Vec<u32>,
    /// Drawn nodes per absolute level of detail (cells of 2^level blocks).
    pub drawn_per_level: Vec<u32>,
    pub quads_drawn: u64,
    pub skirt_quads: u64,
    pub draw_commands: u32,
    pub gpu_bytes: u64,
    pub gpu_memory_budget_mib: u32,
    /// Whether the budget (or the adapter's pool) left the farthest nodes out.
    pub capped: bool,
}

/// `stats` for a streamed horizon (terrain beyond 8 chunks): streams the view in on the GPU and
/// reports the nodes. The per-face tables need every chunk at full detail, which a horizon does
/// not have.
fn node_stats(args: &StatsArgs) -> Result<(), CliError> {
    if args.mesher == Mesher::Cpu {
        return Err(CliError::Usage(
            "--mesher cpu meshes whole worlds of chunks: use a view distance of 8 chunks or less".into(),
        ));
    }
    let plan = SessionPlan::new(args.world.config(), Residency::WholeWhereExact, (args.camera, None))?;
    let gpu = GpuContext::new()?;
    let mut session = plan.open(&gpu, |fog_end| RendererOptions {
        lod: args.mesh.lod_settings(),
        ambient_occlusion: args.mesh.ambient_occlusion(),
        ..RendererOptions::new(STATS_ASPECT.0 * 80, STATS_ASPECT.1 * 80, fog_end)
    })?;
    session.fill()?;
    let (camera, streamer, renderer) = (session.camera, &session.streamer, &mut session.renderer);
    let eye = camera.eye;
    let frame = renderer.settle(&camera)?;
    let report = NodeStatsReport {
        camera: eye.to_array(),
        view_distance_blocks: args.world.distance() * voxgpu_core::voxel::CHUNK_SIZE as u32,
        nodes_per_level: renderer.resident().nodes_per_level(),
        drawn_per_level: super::render::trimmed(&frame.lod_levels).to_vec(),
        quads_drawn: frame.quads,
        skirt_quads: frame.skirt_quads,
        draw_commands: frame.draw_commands,
        gpu_bytes: frame.gpu_bytes,
        gpu_memory_budget_mib: args.world.gpu_memory_budget,
        capped: streamer.as_ref().is_some_and(|s| s.manager.is_capped()),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("plain struct serialises"));
    } else {
        println!(
            "view {} blocks from {:?}: nodes per node level {:?}, drawn per level of detail {:?}",
            report.view_distance_blocks, report.camera, report.nodes_per_level, report.drawn_per_level
        );
        println!(
            "quads drawn {} ({} skirts), {} draw commands; GPU buffers {:.1} MiB of a {} MiB budget{}",
            report.quads_drawn,
            report.skirt_quads,
            report.draw_commands,
            report.gpu_bytes as f64 / (1024.0 * 1024.0),
            report.gpu_memory_budget_mib,
            if report.capped { " (capped: the farthest nodes left out)" } else { "" }
        );
    }
    Ok(())
}

pub fn run(args: &StatsArgs) -> Result<(), CliError> {
    let config = args.world.config();
    config.check()?;
    if config.uses_nodes() {
        return node_stats(args);
    }
    let params = config.params(args.camera.unwrap_or(Vec3::ZERO));
    let world = worldgen::generate(&args.world.world, &params)?;
    let (default_eye, target) = worldgen::default_view(&args.world.world, &world, &params);
    let eye = args.camera.unwrap_or(default_eye);
    let on = args
        .mesh
        .lod_settings()
        .with_max_level(LodSettings::default().max_level())
        .expect("the default max level is allowed");
    let camera = Camera::look_at(eye, target);
    let ao = args.mesh.ambient_occlusion();
    let (with_lod, without_lod) = match args.mesher {
        Mesher::Cpu => (cpu_meshes(&world, eye, &on, ao), cpu_meshes(&world, eye, &LodSettings::OFF, ao)),
        Mesher::Gpu => gpu_meshes(&world, camera, &on, ao)?,
    };
    let enabled = args.mesh.lod_settings().is_on();
    let chosen = if enabled { &with_lod } else { &without_lod };
    let mut mesh = MeshStats::default();
    let mut levels = [0u64; 6];
    for (_, chunk, level) in &chosen.chunks {
        mesh.add_at_level(chunk, *level);
        levels[*level as usize] += 1;
    }
    let total = |meshed: &Meshed| meshed.chunks.iter().map(|(_, m, _)| m.quad_count() as u64).sum();
    let skirts =
        with_lod.chunks.iter().flat_map(|(_, m, _)| m.all_quads()).filter(|q| q.unpack().skirt).count();
    let report = StatsReport {
        mesh,
        lod: LodReport {
            enabled,
            camera: eye.to_array(),
            first_distance: on.first_distance(),
            levels,
            quads_lod_on: total(&with_lod),
            quads_lod_off: total(&without_lod),
            skirt_quads_lod_on: skirts as u64,
        },
        culling: cull_report(chosen, &camera),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("plain struct serialises"));
    } else {
        print!("{}", report.mesh.table());
        let l = &report.lod;
        println!(
            "\nLOD {} from camera {:?}, level 1 from {} blocks",
            if l.enabled { "on" } else { "off" },
            l.camera,
            l.first_distance
        );
        println!("chunks per level  {:?}", l.levels);
        println!(
            "quads             {} with LOD ({} skirts, {:.1}%), {} without: {:.1}%",
            l.quads_lod_on,
            l.skirt_quads_lod_on,
            100.0 * l.skirt_quads_lod_on as f64 / l.quads_lod_on.max(1) as f64,
            l.quads_lod_off,
            100.0 * l.quads_lod_on as f64 / l.quads_lod_off.max(1) as f64
        );
        let c = &report.culling;
        println!(
            "culling (16:9 towards {:?})  {} of {} chunks visible, {} quads drawn{}",
            c.target,
            c.chunks_visible,
            c.chunks_tested,
            c.quads_drawn,
            c.draw_commands.map(|n| format!(", {n} draw commands")).unwrap_or_default()
        );
        if let Some(o) = &c.occlusion {
            println!(
                "occlusion         {} face streams after the frustum: {} drawn by the first phase, {} by the second, {} culled",
                o.candidates, o.drawn_first, o.drawn_second, o.occluded
            );
        }
    }
    Ok(())
}

/// The culled frame's counts: the GPU's own when it drew it, else the CPU twin's.
fn cull_report(meshed: &Meshed, camera: &Camera) -> CullReport {
    let target = camera.target.to_array();
    if let Some(frame) = meshed.frame {
        return CullReport {
            target,
            chunks_tested: frame.chunks_tested as u64,
            chunks_visible: frame.chunks_visible as u64,
            quads_drawn: frame.quads,
            draw_commands: Some(frame.draw_commands),
            occlusion: frame.occlusion_tested.then_some(OcclusionReport {
                candidates: frame.candidates,
                drawn_first: frame.drawn_first,
                drawn_second: frame.drawn_second,
                occluded: frame.occluded,
            }),
        };
    }
    let frustum = Frustum::from_view_proj(camera.view_proj(STATS_ASPECT.0 as f32 / STATS_ASPECT.1 as f32));
    let mut report = CullReport {
        target,
        chunks_tested: 0,
        chunks_visible: 0,
        quads_drawn: 0,
        draw_commands: None,
        occlusion: None,
    };
    for (pos, mesh, _) in meshed.chunks.iter().filter(|(_, m, _)| m.quad_count() > 0) {
        report.chunks_tested += 1;
        if !chunk_in_frustum(&frustum, *pos) {
            continue;
        }
        report.chunks_visible += 1;
        // Transparent faces are drawn from both sides, so only opaque ones are face-culled.
        for face in Face::ALL {
            if face_may_show(*pos, face, camera.eye) {
                report.quads_drawn += mesh.opaque.counts[face as usize] as u64;
            }
            report.quads_drawn += mesh.transparent.counts[face as usize] as u64;
        }
    }
    report
}

/// The CPU twins end to end: levels chosen fresh from `eye`, pyramids built, every chunk meshed
/// at its level on all cores. Sorted by position like the GPU's readback.
fn cpu_meshes(world: &World, eye: Vec3, lod: &LodSettings, ambient_occlusion: bool) -> Meshed {
    let positions = world.sorted_positions();
    let threads = cpu_threads();
    let levels: HashMap<ChunkPos, u32> =
        positions.iter().map(|&p| (p, lod.select(chunk_distance(p, eye), LEVEL_UNSET))).collect();
    let pyramids: HashMap<ChunkPos, MipPyramid> = positions
        .iter()
        .copied()
        .zip(map_parallel(&positions, threads, |p| MipPyramid::build(world.chunk(p).expect("listed"))))
        .collect();
    let meshes = map_parallel(&positions, threads, |p| {
        mesh_world_chunk_lod(world, p, &|q| &pyramids[&q], &|q| levels[&q], ambient_occlusion)
    });
    let chunks = positions.iter().zip(meshes).map(|(&p, m)| (p, m, levels[&p])).collect();
    Meshed { chunks, frame: None }
}

/// The GPU mesher: settled once with `lod`, read back, then again with LOD off.
fn gpu_meshes(
    world: &World,
    camera: Camera,
    lod: &LodSettings,
    ambient_occlusion: bool,
) -> Result<(Meshed, Meshed), CliError> {
    let gpu = GpuContext::new()?;
    let options = RendererOptions {
        lod: *lod,
        ambient_occlusion,
        ..RendererOptions::new(STATS_ASPECT.0, STATS_ASPECT.1, 1.0)
    };
    let mut renderer = Offscreen::new(&gpu, options, &world.registry)?;
    for (pos, chunk) in world.chunks() {
        renderer.insert_chunk(pos, Arc::clone(chunk))?;
    }
    let read = |renderer: &mut Offscreen| -> Result<Meshed, CliError> {
        // The frame's counts without occlusion culling, as the CPU twin counts them; then the
        // occlusion counts of the third frame with it (the second's first phase draws what the
        // first saw, the third's what the second found not occluded).
        let culling = renderer.options().culling;
        renderer.set_culling(Culling { occlusion: false, ..culling });
        let mut frame = renderer.settle(&camera)?;
        renderer.set_culling(Culling { occlusion: true, ..culling });
        renderer.settle(&camera)?;
        renderer.settle(&camera)?;
        let occluded = renderer.settle(&camera)?;
        frame.occlusion_tested = occluded.occlusion_tested;
        (frame.candidates, frame.drawn_first, frame.drawn_second, frame.occluded) =
            (occluded.candidates, occluded.drawn_first, occluded.drawn_second, occluded.occluded);
        let chunks = renderer.inspect().meshes()?.into_iter().map(|m| (m.pos, m.mesh, m.level)).collect();
        Ok(Meshed { chunks, frame: Some(frame) })
    };
    let with_lod = read(&mut renderer)?;
    renderer.set_lod(LodSettings::OFF);
    let without_lod = read(&mut renderer)?;
    Ok((with_lod, without_lod))
}
