//! The viewer's saving: each frame's edits committed to the world store, and the model being
//! edited exported as `.vox` (F5).

use super::Viewer;

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
        let (bytes, exported) =
            self.play.export_model(self.renderer.resident(), &self.registry, self.terrain)?;
        std::fs::write(path, bytes).map_err(|e| voxgpu_worlds::worldgen::WorldError::ExportWrite {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Ok(exported)
    }
}
