//! Mesh statistics for `voxgpu stats`: quads and unit-face area per face direction.

use serde::Serialize;
use serde::ser::SerializeMap;

use voxgpu_core::mesh::{ChunkMesh, Face, QUAD_BYTES};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FaceStats {
    pub quads: u64,
    /// Unit faces covered, i.e. the sum of `w × h` over the direction's quads.
    pub area: u64,
}

/// Totals over a set of chunk meshes. Serialises to the `stats --json` object, whose keys may
/// grow but are never renamed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MeshStats {
    /// Chunks that hold at least one solid voxel.
    pub chunks: u64,
    pub quads: u64,
    pub quad_bytes: u64,
    /// Of `quads`, the LOD skirts.
    pub skirt_quads: u64,
    #[serde(serialize_with = "faces_by_label")]
    pub faces: [FaceStats; 6],
}

fn faces_by_label<S: serde::Serializer>(faces: &[FaceStats; 6], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(6))?;
    for face in Face::ALL {
        map.serialize_entry(face.label(), &faces[face as usize])?;
    }
    map.end()
}

impl MeshStats {
    /// Adds one chunk's mesh of level `level`, whose unit faces are `2^level` blocks on a side;
    /// `area` stays in blocks².
    pub fn add_at_level(&mut self, mesh: &ChunkMesh, level: u32) {
        self.chunks += 1;
        for q in mesh.all_quads() {
            let q = q.unpack();
            let f = &mut self.faces[q.face as usize];
            f.quads += 1;
            f.area += (q.area() as u64) << (2 * level);
            self.skirt_quads += q.skirt as u64;
        }
        let n = mesh.quad_count() as u64;
        self.quads += n;
        self.quad_bytes += n * QUAD_BYTES as u64;
    }

    /// The human-readable table printed by `voxgpu stats`.
    pub fn table(&self) -> String {
        let mut out = format!(
            "chunks      {}\nquads       {} ({} skirts)\nquad bytes  {} ({:.2} MiB)\n\nface   quads       area\n",
            self.chunks,
            self.quads,
            self.skirt_quads,
            self.quad_bytes,
            self.quad_bytes as f64 / (1024.0 * 1024.0)
        );
        for face in Face::ALL {
            let f = self.faces[face as usize];
            out += &format!("{:<4} {:>8} {:>10}\n", face.label(), f.quads, f.area);
        }
        out
    }
}
