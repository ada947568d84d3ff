//! `profile --flight cave`: a walk through a cave system of the seeded terrain, found from the
//! generator itself (full-detail chunk columns generated on demand), for measuring occlusion
//! culling where nearly everything is hidden.

use std::collections::HashMap;

use glam::{IVec2, IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{CHUNK_SIZE, Chunk, ChunkPos};
use voxgpu_worlds::worldgen::TerrainColumns;

/// Full-detail blocks of the terrain, a chunk column generated the first time it is read.
pub struct Blocks<'a> {
    terrain: &'a TerrainColumns,
    columns: HashMap<IVec2, HashMap<ChunkPos, Chunk>>,
}

impl<'a> Blocks<'a> {
    pub fn new(terrain: &'a TerrainColumns) -> Self {
        Self { terrain, columns: HashMap::new() }
    }

    /// Whether block `p` is air.
    pub fn air(&mut self, p: IVec3) -> bool {
        let size = CHUNK_SIZE as i32;
        let pos = ChunkPos(p.div_euclid(IVec3::splat(size)));
        let terrain = self.terrain;
        let column = self
            .columns
            .entry(IVec2::new(pos.0.x, pos.0.z))
            .or_insert_with(|| terrain.column(IVec2::new(pos.0.x, pos.0.z)).into_iter().collect());
        column.get(&pos).is_none_or(|chunk| {
            let local = p.rem_euclid(IVec3::splat(size)).as_uvec3();
            chunk.get(local.x as usize, local.y as usize, local.z as usize).is_air()
        })
    }

    /// Room for the eye at `p`: the 3 × 3 × 3 blocks around it are air.
    fn clear(&mut self, p: Vec3) -> bool {
        let c = p.floor().as_ivec3();
        (-1..=1).all(|dy| (-1..=1).all(|dz| (-1..=1).all(|dx| self.air(c + IVec3::new(dx, dy, dz)))))
    }
}

/// The first cave chamber found spiralling out from the origin: an eye position at least 12
/// blocks under the surface with room around it, or `None` within `radius` chunks.
pub fn find_cave(blocks: &mut Blocks, terrain: &TerrainColumns, radius: i32) -> Option<Vec3> {
    let size = CHUNK_SIZE as i32;
    for ring in 0..=radius {
        for cx in -ring..=ring {
            for cz in -ring..=ring {
                if cx.abs().max(cz.abs()) != ring {
                    continue;
                }
                for (x, z) in [(8, 8), (24, 24), (8, 24), (24, 8)] {
                    let (x, z) = (cx * size + x, cz * size + z);
                    let surface = terrain.surface(x, z);
                    for y in (4..surface - 12).rev() {
                        let p = Vec3::new(x as f32 + 0.5, y as f32 + 0.5, z as f32 + 0.5);
                        // A chamber, not a crack: room here and two blocks either way along x or z.
                        if blocks.clear(p)
                            && (blocks.clear(p + Vec3::X * 2.0) && blocks.clear(p - Vec3::X * 2.0)
                                || blocks.clear(p + Vec3::Z * 2.0) && blocks.clear(p - Vec3::Z * 2.0))
                        {
                            return Some(p);
                        }
                    }
                }
            }
        }
    }
    None
}

/// `frames` cameras walking from `start` through the cave at `speed` blocks a frame: each step
/// goes the way among 26 directions nearest the last one that keeps room around the eye (back the
/// way it came when none does), and the eye looks along the walk, smoothed.
pub fn walk(blocks: &mut Blocks, start: Vec3, speed: f32, frames: u32) -> Vec<Camera> {
    let directions: Vec<Vec3> = (-1..=1)
        .flat_map(|y| (-1..=1).flat_map(move |z| (-1..=1).map(move |x| IVec3::new(x, y, z))))
        .filter(|d| *d != IVec3::ZERO)
        // Mostly sideways: caves run more across than up.
        .map(|d| (d.as_vec3() * Vec3::new(1.0, 0.5, 1.0)).normalize())
        .collect();
    let (mut eye, mut heading, mut look) = (start, Vec3::X, Vec3::X);
    let step = speed.max(0.01);
    (0..frames)
        .map(|_| {
            let mut best: Option<(f32, Vec3)> = None;
            for &d in &directions {
                let score = d.dot(heading);
                if best.is_none_or(|(s, _)| score > s) && blocks.clear(eye + d * step.max(1.0)) {
                    best = Some((score, d));
                }
            }
            heading = best.map_or(-heading, |(_, d)| (heading * 3.0 + d).normalize());
            if blocks.clear(eye + heading * step) {
                eye += heading * step;
            }
            look = (look * 0.9 + heading * 0.1).normalize();
            Camera::look_at(eye, eye + look)
        })
        .collect()
}
