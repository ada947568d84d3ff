//! The viewer's saving: each frame's edits committed to the world store, and the model being
//! edited exported as `.vox` (F5).

use super::Viewer;
use voxgpu_core::voxel::ChunkPos;

impl Viewer {
    /// Commits this frame's edits to the store, in one transaction, and prints them once they
    /// are durable. A failure (a full disk) is reported once; the edits stay pending and are
    /// tried again next frame.
    pub(super) fn commit_edits(&mut self) {
        let Some(p) = self.persistence.as_mut() else { return };
        match p.commit() {
            Ok(edits) if !edits.is_empty() => {
                self.commit_failed = false;
                let list: Vec<String> = edits
                    .iter()
                    .map(|(at, block)| format!("{},{},{}={}", at.x, at.y, at.z, block.0))
                    .collect();
                println!("committed at frame {}: {}", self.frame, list.join(" "));
            }
            Ok(_) => {}
            Err(e) => {
                if !self.commit_failed {
                    eprintln!("error: {e}");
                }
                self.commit_failed = true;
            }
        }
    }

    /// Writes the model being edited as a `.vox` file, edits included: every resident chunk of
    /// a bounded world, or the 3×3 chunk columns around the camera of terrain.
    pub(super) fn export(
        &self,
        path: &std::path::Path,
    ) -> Result<voxgpu_worlds::worldgen::Exported, voxgpu_worlds::worldgen::WorldError> {
        let around = ChunkPos::from_block(self.play.camera().eye.floor().as_ivec3()).0.0;
        let mut world = voxgpu_core::voxel::World::new(self.registry.clone());
        for (pos, chunk) in self.renderer.resident().chunks() {
            let near = (pos.0.x - around.x).abs() <= 1 && (pos.0.z - around.z).abs() <= 1;
            if !self.terrain || near {
                world.insert(pos, (**chunk).clone());
            }
        }
        let (min, max) = voxgpu_worlds::worldgen::solid_bounds(&world)
            .ok_or(voxgpu_worlds::worldgen::WorldError::ExportEmpty { min: [0; 3], max: [0; 3] })?;
        voxgpu_worlds::worldgen::export_vox(&world, min, max, path)
    }
}
