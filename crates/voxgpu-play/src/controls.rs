//! What the play layer asks of a renderer and of the streaming state: two small traits, so the
//! reactions to input are the same code for both viewers and can be tested without a GPU.

use glam::{IVec2, IVec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, ChunkPos, NodeColumn, RayHit};
use voxgpu_engine::{Culling, GpuError, RenderMode, Renderer};
use voxgpu_worlds::stream::Streamer;

/// The renderer calls input leads to. [`Renderer`] implements it with its own setters, and its
/// [`Renderer::options`] for what they set.
pub trait Controls {
    /// The render mode frames draw in.
    fn mode(&self) -> RenderMode;
    /// Draws in `mode` from the next frame on.
    fn set_mode(&mut self, mode: RenderMode);
    /// The levels of detail frames use ([`LodSettings::OFF`]: full detail everywhere).
    fn lod(&self) -> LodSettings;
    /// Uses `lod` from the next frame on.
    fn set_lod(&mut self, lod: LodSettings);
    /// The culling tests and the camera they cull from.
    fn culling(&self) -> Culling;
    /// Culls with `culling` from the next frame on.
    fn set_culling(&mut self, culling: Culling);
    /// The first block `camera`'s view ray hits within `reach` blocks.
    fn pick(&self, camera: &Camera, reach: f32) -> Option<RayHit>;
    /// Sets the block at world coordinates `at`.
    fn set_block(&mut self, at: IVec3, block: BlockId) -> Result<(), GpuError>;
    /// Outlines `block` (or nothing) from the next frame on.
    fn set_selection(&mut self, block: Option<IVec3>);
    /// The time of day frames are lit at, in hours.
    fn time_of_day(&self) -> f32;
    /// Lights frames at `hours` from the next frame on.
    fn set_time_of_day(&mut self, hours: f32);
}

impl Controls for Renderer {
    fn mode(&self) -> RenderMode {
        self.options().mode
    }
    fn set_mode(&mut self, mode: RenderMode) {
        Renderer::set_mode(self, mode)
    }
    fn lod(&self) -> LodSettings {
        self.options().lod
    }
    fn set_lod(&mut self, lod: LodSettings) {
        Renderer::set_lod(self, lod)
    }
    fn culling(&self) -> Culling {
        self.options().culling
    }
    fn set_culling(&mut self, culling: Culling) {
        Renderer::set_culling(self, culling)
    }
    fn pick(&self, camera: &Camera, reach: f32) -> Option<RayHit> {
        Renderer::pick(self, camera, reach)
    }
    fn set_block(&mut self, at: IVec3, block: BlockId) -> Result<(), GpuError> {
        Renderer::set_block(self, at, block)
    }
    fn set_selection(&mut self, block: Option<IVec3>) {
        Renderer::set_selection(self, block)
    }
    fn time_of_day(&self) -> f32 {
        self.options().time_of_day
    }
    fn set_time_of_day(&mut self, hours: f32) {
        Renderer::set_time_of_day(self, hours)
    }
}

/// Which chunk columns of a streamed world have arrived.
pub trait Residency {
    /// Whether `column`'s nodes are resident.
    fn is_resident(&self, column: NodeColumn) -> bool;
}

impl Residency for Streamer {
    fn is_resident(&self, column: NodeColumn) -> bool {
        self.manager.is_resident(column)
    }
}

/// Whether the block at `at` may be edited: always in a world built whole (`residency` is
/// `None`); in a streamed one only once its chunk column has arrived. A column that has not
/// arrived reads as air, and an edit there would be overwritten when it arrives (and, with a
/// store, stored as a chunk of one block).
pub fn may_edit<R: Residency + ?Sized>(residency: Option<&R>, at: IVec3) -> bool {
    let chunk = ChunkPos::from_block(at).0.0;
    let column = NodeColumn { level: 0, xz: IVec2::new(chunk.x, chunk.z) };
    residency.is_none_or(|r| r.is_resident(column))
}
