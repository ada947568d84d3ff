//! MagicaVoxel export: a box of a world written as a `.vox` file that this importer (and
//! MagicaVoxel) reads back as the same voxels with the same colours.
//!
//! - Axes: the importer turns MagicaVoxel's Z-up `(x, y, z)` into `(x, z, -y)`, so a block at
//!   `(x, y, z)` is written at `(x, -z, y)`, shifted so the box starts at the model's corner.
//! - Size: a model holds at most 256 voxels a side, so a larger box becomes tiles of up to
//!   256³, each its own model under a transform that puts it in place. The whole box may be at
//!   most `MAX_MODEL_EXTENT` a side, what the importer accepts.
//! - Palette: every distinct block in the box gets one of the 255 slots, with the block's colour;
//!   a transparent block gets a glass material whose `_trans` is `1 - alpha`, which the importer
//!   turns back into a transparent block of that alpha.

use std::collections::HashMap;
use std::path::Path;

use dot_vox::{Color, DotVoxData, Material, Model, SceneNode, Size, Voxel};
use glam::IVec3;

use super::sample::{shape, transform};
use super::{PALETTE_SLOTS, WorldError};
use crate::worldgen::MAX_MODEL_EXTENT;
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, Opacity, World};

/// Voxels a model holds at most along each axis.
const MODEL_SIDE: i32 = 256;

/// What an export wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// Solid voxels written.
    pub voxels: usize,
    /// Palette slots used (distinct blocks).
    pub colours: usize,
    /// Models (tiles of up to 256³).
    pub models: usize,
}

/// The box around every solid (non-air) block of `world`, `[min, max)` in world blocks; `None`
/// when it holds none. The box an export of the whole world takes.
pub fn solid_bounds(world: &World) -> Option<(IVec3, IVec3)> {
    let size = CHUNK_SIZE as i32;
    let mut bounds: Option<(IVec3, IVec3)> = None;
    for (pos, chunk) in world.chunks() {
        for (i, block) in chunk.voxels().iter().enumerate() {
            if block.is_air() {
                continue;
            }
            // Voxels are stored x fastest, then y, then z.
            let local = IVec3::new(i as i32 % size, i as i32 / size % size, i as i32 / (size * size));
            let p = pos.origin() + local;
            bounds = Some(bounds.map_or((p, p + 1), |(lo, hi)| (lo.min(p), hi.max(p + 1))));
        }
    }
    bounds
}

/// Writes the blocks of `world` in `[min, max)` to `path` as a MagicaVoxel file.
pub fn export_vox(world: &World, min: IVec3, max: IVec3, path: &Path) -> Result<Exported, WorldError> {
    let (bytes, exported) = vox_bytes(world, min, max)?;
    std::fs::write(path, bytes)
        .map_err(|source| WorldError::ExportWrite { path: path.to_path_buf(), reason: source.to_string() })?;
    Ok(exported)
}

/// [`export_vox`]'s file as bytes, for a caller that keeps them or hands them on (a browser's
/// download).
pub fn vox_bytes(world: &World, min: IVec3, max: IVec3) -> Result<(Vec<u8>, Exported), WorldError> {
    let size = max - min;
    if size.min_element() <= 0 || size.max_element() > MAX_MODEL_EXTENT {
        return Err(WorldError::ExportRegion { size: size.to_array(), max: MAX_MODEL_EXTENT });
    }
    let mut slots: HashMap<BlockId, u8> = HashMap::new();
    let mut palette = vec![Color { r: 128, g: 128, b: 128, a: 255 }; 256];
    let mut materials = Vec::new();
    let mut models = Vec::new();
    let mut scenes = vec![SceneNode::Group { attributes: Default::default(), children: Vec::new() }];
    let mut voxels_written = 0;
    let tiles = |axis: usize| (0..size[axis]).step_by(MODEL_SIDE as usize);
    for tz in tiles(2) {
        for ty in tiles(1) {
            for tx in tiles(0) {
                let low = min + IVec3::new(tx, ty, tz);
                let high = (low + IVec3::splat(MODEL_SIDE)).min(max);
                let s = high - low;
                let mut voxels = Vec::new();
                for z in low.z..high.z {
                    for y in low.y..high.y {
                        for x in low.x..high.x {
                            let block = world.block(IVec3::new(x, y, z));
                            if block.is_air() {
                                continue;
                            }
                            let slot = match slots.get(&block) {
                                Some(&slot) => slot,
                                None => {
                                    let slot = slots.len();
                                    if slot >= PALETTE_SLOTS {
                                        return Err(WorldError::ExportColours { max: PALETTE_SLOTS });
                                    }
                                    let info = world.registry.get(block);
                                    let [r, g, b, a] = info.map_or([128, 128, 128, 255], |i| i.color);
                                    palette[slot] = Color { r, g, b, a: 255 };
                                    if info.is_some_and(|i| i.opacity == Opacity::Transparent) {
                                        let properties: dot_vox::Dict = [
                                            ("_type".to_string(), "_glass".to_string()),
                                            ("_trans".to_string(), format!("{:.6}", 1.0 - a as f64 / 255.0)),
                                        ]
                                        .into_iter()
                                        .collect();
                                        materials.push(Material { id: slot as u32 + 1, properties });
                                    } else if let Some(emission) = info.map(|i| i.emission).filter(|&e| e > 0)
                                    {
                                        // The importer maps `_emit` back onto the same level.
                                        let properties: dot_vox::Dict = [
                                            ("_type".to_string(), "_emit".to_string()),
                                            ("_emit".to_string(), format!("{:.6}", emission as f64 / 15.0)),
                                        ]
                                        .into_iter()
                                        .collect();
                                        materials.push(Material { id: slot as u32 + 1, properties });
                                    }
                                    slots.insert(block, slot as u8);
                                    slot as u8
                                }
                            };
                            // (x, y, z) → MagicaVoxel (x, -z, y), within the tile.
                            voxels.push(Voxel {
                                x: (x - low.x) as u8,
                                y: (high.z - 1 - z) as u8,
                                z: (y - low.y) as u8,
                                i: slot,
                            });
                        }
                    }
                }
                if voxels.is_empty() {
                    continue;
                }
                voxels_written += voxels.len();
                let model_size = Size { x: s.x as u32, y: s.z as u32, z: s.y as u32 };
                // The importer places voxel v at (v - floor(size / 2)) + translation; this puts
                // every tile's voxels at (x, -z, y) in one frame.
                let half = IVec3::new(s.x, s.z, s.y) / 2;
                let t = IVec3::new(low.x, 1 - high.z, low.y) + half;
                let model_id = models.len() as u32;
                models.push(Model { size: model_size, voxels });
                let node = scenes.len() as u32;
                let translation = format!("{} {} {}", t.x, t.y, t.z);
                scenes.push(transform(node + 1, Some(&translation)));
                scenes.push(shape(model_id));
                if let SceneNode::Group { children, .. } = &mut scenes[0] {
                    children.push(node);
                }
            }
        }
    }
    if models.is_empty() {
        return Err(WorldError::ExportEmpty { min: min.to_array(), max: max.to_array() });
    }
    // The scene: a root transform over the group of tiles.
    let mut scene = vec![transform(1, None)];
    for node in scenes {
        scene.push(match node {
            SceneNode::Transform { attributes, frames, child, layer_id } => {
                SceneNode::Transform { attributes, frames, child: child + 1, layer_id }
            }
            SceneNode::Group { attributes, children } => {
                SceneNode::Group { attributes, children: children.into_iter().map(|c| c + 1).collect() }
            }
            other => other,
        });
    }
    let data = DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models,
        palette,
        materials,
        scenes: scene,
        layers: vec![dot_vox::Layer { attributes: Default::default() }],
    };
    let exported = Exported { voxels: voxels_written, colours: slots.len(), models: data.models.len() };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).expect("writing into memory cannot fail");
    Ok((bytes, exported))
}

#[cfg(test)]
mod solid_bounds_tests {
    use super::*;
    use voxgpu_core::voxel::BlockRegistry;

    #[test]
    fn solid_bounds_spans_every_solid_block_across_chunks() {
        let mut world = World::new(BlockRegistry::builtin());
        assert_eq!(solid_bounds(&world), None);
        world.set_block(IVec3::new(-3, 5, 40), BlockId(1));
        world.set_block(IVec3::new(70, -2, 0), BlockId(2));
        assert_eq!(solid_bounds(&world), Some((IVec3::new(-3, -2, 0), IVec3::new(71, 6, 41))));
    }
}
