//! [`Play`]: the state both viewers share and what input does to it.

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::fly::{FlyCamera, FlyInput};
use voxgpu_core::keys::{HeldKeys, Key, KeyEvent};
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, ChunkPos};
use voxgpu_engine::{Culling, GpuError, RenderMode};
use voxgpu_worlds::worldgen::{Exported, WorldError, solid_bounds, vox_bytes};

use crate::clock::FrameClock;
use crate::controls::{Controls, Residency, may_edit};

/// Farthest block the cursor picks, in blocks.
pub const REACH: f32 = 8.0;
/// Mouse look in radians per pixel of motion.
pub const LOOK_PER_PIXEL: f32 = 0.0025;
/// The block right-click places until a number key picks another (brick in the built-in
/// blocks).
pub const FIRST_BLOCK: BlockId = BlockId(9);

/// A key whose effect is the viewer's own, for it to carry out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// F2: save a screenshot.
    Screenshot,
    /// F3: show or hide the stats overlay.
    ToggleOverlay,
    /// F5: export the model being edited as `.vox`.
    Export,
    /// Escape: let the pointer go.
    ReleaseCursor,
}

/// A mouse button, as far as the play layer cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// Removes the targeted block.
    Left,
    /// Places the selected block in front of the targeted one.
    Right,
    /// Any other: nothing, once the pointer is captured.
    Other,
}

/// A block set by an edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// World block coordinates.
    pub at: IVec3,
    /// What is there now (air for a removal).
    pub block: BlockId,
}

/// What a click did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Click {
    /// The pointer was not captured: the viewer should capture it (that is all the first click
    /// does).
    Grab,
    /// An edit went ahead.
    Edited(Edit),
    /// Nothing: no block within reach, its column not arrived yet, or another button.
    Nothing,
}

/// The viewers' shared play state: camera, keys, look, pointer capture, selected block, the
/// levels of detail L restores, the frame clock.
#[derive(Clone, Debug)]
pub struct Play {
    /// The fly camera.
    pub fly: FlyCamera,
    /// Movement keys held, and F1.
    pub held: HeldKeys,
    /// Whether the pointer is captured: mouse motion looks around and clicks edit.
    pub grabbed: bool,
    /// Frame steps and frame rate.
    pub clock: FrameClock,
    /// Mouse look gathered since the last frame, radians (yaw right, pitch up).
    look: (f32, f32),
    selected: BlockId,
    /// The world's block names, by id: what the number keys may pick from.
    block_names: Vec<String>,
    /// What L turns levels of detail back on with.
    lod: LodSettings,
}

impl Play {
    /// At `eye` looking at `target`, in a world with blocks named `block_names` (by id), with
    /// L restoring `lod`, the clock starting at `now_ms`.
    pub fn new(eye: Vec3, target: Vec3, block_names: Vec<String>, lod: LodSettings, now_ms: f64) -> Self {
        Self {
            fly: FlyCamera::looking_at(eye, target),
            held: HeldKeys::default(),
            grabbed: false,
            clock: FrameClock::new(now_ms),
            look: (0.0, 0.0),
            selected: FIRST_BLOCK,
            block_names,
            lod,
        }
    }

    /// The camera as it is now.
    pub fn camera(&self) -> Camera {
        self.fly.camera()
    }

    /// A fresh fly camera at `eye` looking at `target` (a new world opened): at rest, at the
    /// starting speed.
    pub fn look_at(&mut self, eye: Vec3, target: Vec3) {
        self.fly = FlyCamera::looking_at(eye, target);
    }

    /// The block right-click places.
    pub fn selected(&self) -> BlockId {
        self.selected
    }

    /// The selected block's name ("?" where the world has no such block).
    pub fn selected_name(&self) -> &str {
        self.block_names.get(self.selected.0 as usize).map_or("?", String::as_str)
    }

    /// The world's block names, by id.
    pub fn block_names(&self) -> &[String] {
        &self.block_names
    }

    /// Another world's blocks (the selection stays as it was).
    pub fn set_block_names(&mut self, names: Vec<String>) {
        self.block_names = names;
    }

    /// A key event for the key with physical code `code` (winit's `KeyCode` name or the DOM's
    /// `KeyboardEvent.code`): movement keys change what is held, and a fresh press of a command
    /// key acts ([`Play::press`]).
    pub fn key(
        &mut self,
        code: &str,
        pressed: bool,
        repeat: bool,
        renderer: &mut impl Controls,
    ) -> Option<Request> {
        match self.held.key(code, pressed, repeat)? {
            KeyEvent::Key(key) => self.press(key, renderer),
            KeyEvent::ReleaseCursor => Some(Request::ReleaseCursor),
        }
    }

    /// A command key pressed: F1 + N sets render mode N, a number key selects a block (1..9 the
    /// ids 1..9, 0 the id 10, when the world has it), L turns levels of detail off or back on, C
    /// freezes culling at the current camera or thaws it, G selects the lamp, `[` and `]` move the
    /// time of day by an hour. The others are the viewer's.
    pub fn press(&mut self, key: Key, renderer: &mut impl Controls) -> Option<Request> {
        match key {
            Key::Mode(n) => {
                if let Some(&mode) = (n as usize).checked_sub(1).and_then(|i| RenderMode::ALL.get(i)) {
                    renderer.set_mode(mode);
                }
            }
            Key::Block(d) => {
                let id = if d == 0 { 10 } else { d as u16 };
                if (id as usize) < self.block_names.len() {
                    self.selected = BlockId(id);
                }
            }
            Key::ToggleLod => {
                let next = if renderer.lod().is_on() { LodSettings::OFF } else { self.lod };
                renderer.set_lod(next);
            }
            Key::FreezeCulling => {
                let culling = renderer.culling();
                let frozen = match culling.frozen {
                    Some(_) => None,
                    None => Some(self.fly.camera()),
                };
                renderer.set_culling(Culling { frozen, ..culling });
            }
            Key::Lamp => {
                let lamp = voxgpu_core::voxel::blocks::LAMP;
                if (lamp.0 as usize) < self.block_names.len() {
                    self.selected = lamp;
                }
            }
            Key::Hours(h) => renderer.set_time_of_day((renderer.time_of_day() + h as f32).rem_euclid(24.0)),
            Key::Screenshot => return Some(Request::Screenshot),
            Key::ToggleOverlay => return Some(Request::ToggleOverlay),
            Key::Export => return Some(Request::Export),
        }
        None
    }

    /// Keys let go while the window or page had no focus would stay held: all are released.
    pub fn release_keys(&mut self) {
        self.held = HeldKeys::default();
    }

    /// Mouse motion of `dx` pixels right and `dy` down: looks around while the pointer is
    /// captured.
    pub fn mouse_moved(&mut self, dx: f64, dy: f64) {
        if self.grabbed {
            self.look.0 += dx as f32 * LOOK_PER_PIXEL;
            self.look.1 -= dy as f32 * LOOK_PER_PIXEL;
        }
    }

    /// Turns by `yaw` radians right and `pitch` up in the next frame (scripted look).
    pub fn turn(&mut self, yaw: f32, pitch: f32) {
        self.look.0 += yaw;
        self.look.1 += pitch;
    }

    /// The scroll wheel: each notch multiplies the flying speed by 1.25.
    pub fn scroll(&mut self, notches: f32) {
        self.fly.scroll(notches);
    }

    /// A mouse button pressed: the first click captures the pointer ([`Click::Grab`]); after
    /// that, left removes the targeted block and right places the selected one.
    pub fn click(
        &self,
        button: Button,
        renderer: &mut impl Controls,
        residency: Option<&impl Residency>,
    ) -> Result<Click, GpuError> {
        let place = match button {
            _ if !self.grabbed => return Ok(Click::Grab),
            Button::Left => false,
            Button::Right => true,
            Button::Other => return Ok(Click::Nothing),
        };
        Ok(self.edit(place, renderer, residency)?.map_or(Click::Nothing, Click::Edited))
    }

    /// Removes the targeted block, or places the selected one in the empty cell in front of it,
    /// where [`may_edit`] allows. Returns the edit made.
    pub fn edit(
        &self,
        place: bool,
        renderer: &mut impl Controls,
        residency: Option<&impl Residency>,
    ) -> Result<Option<Edit>, GpuError> {
        let Some(hit) = renderer.pick(&self.fly.camera(), REACH) else { return Ok(None) };
        let (at, block) = if place { (hit.empty, self.selected) } else { (hit.block, BlockId::AIR) };
        if !may_edit(residency, at) {
            return Ok(None);
        }
        renderer.set_block(at, block)?;
        Ok(Some(Edit { at, block }))
    }

    /// Advances the camera by `dt` seconds of the held keys plus `extra` movement (scripted),
    /// turning by the look gathered since the last step. Returns the frame's camera.
    pub fn step(&mut self, dt: f32, extra: FlyInput) -> Camera {
        let input = self.held.input(extra, std::mem::take(&mut self.look));
        self.fly.update(&input, dt);
        self.fly.camera()
    }

    /// The model being edited as `.vox` bytes (F5), edits included: every resident chunk of a
    /// bounded world, or of `terrain` the 3×3 chunk columns around the camera (all of terrain
    /// would not fit a model).
    pub fn export_model(
        &self,
        resident: &voxgpu_engine::Residency,
        registry: &voxgpu_core::voxel::BlockRegistry,
        terrain: bool,
    ) -> Result<(Vec<u8>, Exported), WorldError> {
        let around = ChunkPos::from_block(self.fly.position.floor().as_ivec3()).0.0;
        let mut world = voxgpu_core::voxel::World::new(registry.clone());
        for (pos, chunk) in resident.chunks() {
            let near = (pos.0.x - around.x).abs() <= 1 && (pos.0.z - around.z).abs() <= 1;
            if !terrain || near {
                world.insert(pos, (**chunk).clone());
            }
        }
        let (min, max) = solid_bounds(&world).ok_or(WorldError::ExportEmpty { min: [0; 3], max: [0; 3] })?;
        vox_bytes(&world, min, max)
    }

    /// Outlines the block `camera` points at within reach, where `shown`; otherwise nothing.
    pub fn select(&self, renderer: &mut impl Controls, camera: &Camera, shown: bool) {
        let selection = if shown { renderer.pick(camera, REACH).map(|hit| hit.block) } else { None };
        renderer.set_selection(selection);
    }
}
