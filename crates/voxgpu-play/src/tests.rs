//! The play layer without a window or a GPU: a fake renderer over a small block map, and a fake
//! streaming state.

use std::collections::{HashMap, HashSet};

use glam::{IVec2, IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::fly::FlyInput;
use voxgpu_core::keys::Key;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockId, NodeColumn, RayHit, raycast};
use voxgpu_engine::{Culling, GpuError, RenderMode};

use crate::{Button, Click, Controls, Edit, FIRST_BLOCK, FrameClock, MAX_FRAME_DT, Play, Request, Residency};

/// A renderer's options and blocks, with picking by the same voxel walk.
struct FakeRenderer {
    mode: RenderMode,
    lod: LodSettings,
    culling: Culling,
    selection: Option<IVec3>,
    blocks: HashMap<IVec3, BlockId>,
    edits: Vec<(IVec3, BlockId)>,
    hours: f32,
}

impl FakeRenderer {
    fn new() -> Self {
        Self {
            mode: RenderMode::default(),
            lod: LodSettings::default(),
            culling: Culling::ALL,
            selection: None,
            blocks: HashMap::new(),
            edits: Vec::new(),
            hours: 10.0,
        }
    }
}

impl Controls for FakeRenderer {
    fn mode(&self) -> RenderMode {
        self.mode
    }
    fn set_mode(&mut self, mode: RenderMode) {
        self.mode = mode;
    }
    fn lod(&self) -> LodSettings {
        self.lod
    }
    fn set_lod(&mut self, lod: LodSettings) {
        self.lod = lod;
    }
    fn culling(&self) -> Culling {
        self.culling
    }
    fn set_culling(&mut self, culling: Culling) {
        self.culling = culling;
    }
    fn pick(&self, camera: &Camera, reach: f32) -> Option<RayHit> {
        raycast(camera.eye, camera.forward(), reach, |p| self.blocks.get(&p).copied().unwrap_or(BlockId::AIR))
    }
    fn set_block(&mut self, at: IVec3, block: BlockId) -> Result<(), GpuError> {
        self.blocks.insert(at, block);
        self.edits.push((at, block));
        Ok(())
    }
    fn set_selection(&mut self, block: Option<IVec3>) {
        self.selection = block;
    }
    fn time_of_day(&self) -> f32 {
        self.hours
    }
    fn set_time_of_day(&mut self, hours: f32) {
        self.hours = hours;
    }
}

#[test]
fn brackets_move_the_time_of_day_round_the_clock_and_g_selects_the_lamp() {
    let names = voxgpu_core::voxel::BlockRegistry::builtin().iter().map(|(_, b)| b.name.clone()).collect();
    let mut play = Play::new(Vec3::ZERO, Vec3::X, names, LodSettings::default(), 0.0);
    let mut renderer = FakeRenderer::new();
    let mut keys = voxgpu_core::keys::HeldKeys::default();
    let mut press = |code: &str, play: &mut Play, renderer: &mut FakeRenderer| {
        if let Some(voxgpu_core::keys::KeyEvent::Key(key)) = keys.key(code, true, false) {
            play.press(key, renderer);
        }
        keys.key(code, false, false);
    };
    for _ in 0..15 {
        press("BracketRight", &mut play, &mut renderer);
    }
    assert_eq!(renderer.hours, 1.0, "10:00 and 15 hours is 1:00");
    press("BracketLeft", &mut play, &mut renderer);
    press("BracketLeft", &mut play, &mut renderer);
    assert_eq!(renderer.hours, 23.0);
    press("KeyG", &mut play, &mut renderer);
    assert_eq!(play.selected(), voxgpu_core::voxel::blocks::LAMP);
}

/// The chunk columns (level 0, by chunk x and z) that have arrived.
struct FakeResidency(HashSet<IVec2>);

impl Residency for FakeResidency {
    fn is_resident(&self, column: NodeColumn) -> bool {
        column.level == 0 && self.0.contains(&column.xz)
    }
}

const NONE: Option<&FakeResidency> = None;

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("block {i}")).collect()
}

/// At (0.5, 10.5, 0.5) looking straight down (almost: the fly camera stops short of the pole)
/// at a stone floor at y = 5, pointer captured.
fn over_floor() -> (Play, FakeRenderer) {
    let mut play = Play::new(
        Vec3::new(0.5, 10.5, 0.5),
        Vec3::new(0.5, 0.0, 0.5),
        names(11),
        LodSettings::default(),
        0.0,
    );
    play.grabbed = true;
    let mut renderer = FakeRenderer::new();
    for x in -4..4 {
        for z in -4..4 {
            renderer.blocks.insert(IVec3::new(x, 5, z), BlockId(7));
        }
    }
    (play, renderer)
}

#[test]
fn f1_and_a_number_sets_the_render_mode_and_a_number_alone_selects_a_block() {
    let (mut play, mut r) = over_floor();
    assert_eq!(play.selected(), FIRST_BLOCK);
    assert_eq!(play.key("Digit3", true, false, &mut r), None);
    assert_eq!(play.selected(), BlockId(3));
    assert_eq!(play.selected_name(), "block 3");
    assert_eq!(play.key("Digit0", true, false, &mut r), None);
    assert_eq!(play.selected(), BlockId(10), "0 selects block 10");
    play.key("F1", true, false, &mut r);
    play.key("Digit2", true, false, &mut r);
    assert_eq!(r.mode, RenderMode::ALL[1]);
    assert_eq!(play.selected(), BlockId(10), "with F1 held a number is a mode, not a block");
    // Modes beyond the list, and mode 0, change nothing.
    play.key("Digit9", true, false, &mut r);
    play.key("Digit0", true, false, &mut r);
    assert_eq!(r.mode, RenderMode::ALL[1]);
    play.key("F1", false, false, &mut r);
    play.key("Digit6", true, false, &mut r);
    assert_eq!(r.mode, RenderMode::ALL[1]);
    assert_eq!(play.selected(), BlockId(6));
}

#[test]
fn number_keys_select_only_blocks_the_world_has() {
    let (mut play, mut r) = over_floor();
    play.set_block_names(names(4));
    play.press(Key::Block(3), &mut r);
    assert_eq!(play.selected(), BlockId(3));
    play.press(Key::Block(4), &mut r);
    play.press(Key::Block(0), &mut r);
    assert_eq!(play.selected(), BlockId(3));
    play.set_block_names(names(2));
    assert_eq!(play.selected_name(), "?", "a world without the selected block names none");
}

#[test]
fn l_turns_levels_of_detail_off_and_back_to_the_viewers_settings() {
    let lod = LodSettings::new(64.0, 0.1, 3).expect("valid settings");
    let mut play = Play::new(Vec3::ZERO, Vec3::NEG_Z, names(11), lod, 0.0);
    let mut r = FakeRenderer { lod, ..FakeRenderer::new() };
    assert_eq!(play.key("KeyL", true, false, &mut r), None);
    assert!(!r.lod.is_on());
    assert_eq!(play.key("KeyL", true, true, &mut r), None, "a repeat does nothing");
    assert!(!r.lod.is_on());
    play.key("KeyL", false, false, &mut r);
    play.key("KeyL", true, false, &mut r);
    assert_eq!(r.lod, lod);
}

#[test]
fn c_freezes_culling_at_the_camera_and_thaws_it_keeping_the_tests() {
    let (mut play, mut r) = over_floor();
    r.culling = Culling { faces: false, ..Culling::ALL };
    play.key("KeyC", true, false, &mut r);
    let frozen = r.culling.frozen.expect("frozen");
    assert_eq!(frozen.eye, play.camera().eye);
    assert!(!r.culling.faces && r.culling.frustum);
    // Flying on does not move the frozen camera; a second C thaws it.
    play.key("KeyC", false, false, &mut r);
    play.key("KeyW", true, false, &mut r);
    play.step(0.5, FlyInput::default());
    assert_eq!(r.culling.frozen.map(|c| c.eye), Some(frozen.eye));
    play.key("KeyC", true, false, &mut r);
    assert_eq!(r.culling, Culling { faces: false, ..Culling::ALL });
}

#[test]
fn the_viewers_own_keys_come_back_as_requests() {
    let (mut play, mut r) = over_floor();
    let before = (r.mode, r.lod, r.culling, play.selected());
    assert_eq!(play.key("F2", true, false, &mut r), Some(Request::Screenshot));
    assert_eq!(play.key("F3", true, false, &mut r), Some(Request::ToggleOverlay));
    assert_eq!(play.key("F5", true, false, &mut r), Some(Request::Export));
    assert_eq!(play.key("Escape", true, false, &mut r), Some(Request::ReleaseCursor));
    assert_eq!(play.key("F3", false, false, &mut r), None, "a release is not a press");
    assert_eq!(play.key("KeyQ", true, false, &mut r), None);
    assert_eq!(before, (r.mode, r.lod, r.culling, play.selected()));
}

#[test]
fn held_keys_fly_and_mouse_look_turns_only_while_captured() {
    let mut play = Play::new(Vec3::ZERO, Vec3::NEG_Z, names(11), LodSettings::default(), 0.0);
    let mut r = FakeRenderer::new();
    play.mouse_moved(100.0, 0.0);
    play.step(1.0 / 60.0, FlyInput::default());
    assert_eq!(play.fly.yaw, 0.0, "no look without the pointer");
    play.grabbed = true;
    play.mouse_moved(100.0, -40.0);
    play.step(1.0 / 60.0, FlyInput::default());
    assert!((play.fly.yaw - 100.0 * crate::LOOK_PER_PIXEL).abs() < 1e-6);
    assert!((play.fly.pitch - 40.0 * crate::LOOK_PER_PIXEL).abs() < 1e-6, "moving up looks up");
    // The look is taken by one step, not repeated.
    let yaw = play.fly.yaw;
    play.step(1.0 / 60.0, FlyInput::default());
    assert_eq!(play.fly.yaw, yaw);
    play.turn(0.5, 0.0);
    play.step(1.0 / 60.0, FlyInput::default());
    assert!((play.fly.yaw - yaw - 0.5).abs() < 1e-6);

    // W held flies; scripted movement adds to it; losing focus lets every key go.
    let mut fly = Play::new(Vec3::ZERO, Vec3::NEG_Z, names(11), LodSettings::default(), 0.0);
    fly.key("KeyW", true, false, &mut r);
    let camera = fly.step(1.0, FlyInput::default());
    assert!(camera.eye.z < -5.0, "{:?}", camera.eye);
    fly.release_keys();
    let at = fly.fly.position;
    for _ in 0..60 {
        fly.step(1.0 / 60.0, FlyInput { up: 1.0, ..FlyInput::default() });
    }
    assert!(fly.fly.position.y > at.y + 5.0);
    fly.scroll(1.0);
    assert!((fly.fly.speed - 25.0).abs() < 1e-4);
}

#[test]
fn the_first_click_captures_the_pointer_then_left_removes_and_right_places() {
    let (mut play, mut r) = over_floor();
    play.grabbed = false;
    assert_eq!(play.click(Button::Left, &mut r, NONE).unwrap(), Click::Grab);
    assert!(r.edits.is_empty());
    play.grabbed = true;
    let removed = Edit { at: IVec3::new(0, 5, 0), block: BlockId::AIR };
    assert_eq!(play.click(Button::Left, &mut r, NONE).unwrap(), Click::Edited(removed));
    assert_eq!(play.click(Button::Other, &mut r, NONE).unwrap(), Click::Nothing);
    // Now the ray goes through the hole to nothing within reach.
    assert_eq!(play.click(Button::Right, &mut r, NONE).unwrap(), Click::Nothing);
    r.blocks.insert(IVec3::new(0, 4, 0), BlockId(2));
    play.press(Key::Block(3), &mut r);
    let placed = Edit { at: IVec3::new(0, 5, 0), block: BlockId(3) };
    assert_eq!(play.click(Button::Right, &mut r, NONE).unwrap(), Click::Edited(placed));
    assert_eq!(r.edits, vec![(removed.at, removed.block), (placed.at, placed.block)]);
}

#[test]
fn edits_wait_for_their_chunk_column_in_a_streamed_world() {
    let (play, mut r) = over_floor();
    // The floor's block (0, 5, 0) is in chunk column (0, 0); nothing has arrived.
    let mut streamed = FakeResidency(HashSet::new());
    assert_eq!(play.edit(false, &mut r, Some(&streamed)).unwrap(), None);
    assert!(r.edits.is_empty() && r.blocks[&IVec3::new(0, 5, 0)] == BlockId(7));
    // Another column arriving is not enough.
    streamed.0.insert(IVec2::new(-1, 0));
    assert_eq!(play.edit(false, &mut r, Some(&streamed)).unwrap(), None);
    streamed.0.insert(IVec2::new(0, 0));
    assert!(play.edit(false, &mut r, Some(&streamed)).unwrap().is_some());
    // A world built whole is editable everywhere.
    let (play, mut whole) = over_floor();
    assert!(play.edit(false, &mut whole, NONE).unwrap().is_some());
}

#[test]
fn the_guard_names_the_column_of_the_block_by_floor_division() {
    let arrived = FakeResidency([IVec2::new(-1, 1)].into());
    for (at, ok) in [
        (IVec3::new(-1, 0, 32), true),
        (IVec3::new(-32, 900, 63), true),
        (IVec3::new(0, 0, 32), false),
        (IVec3::new(-33, 0, 32), false),
        (IVec3::new(-1, 0, 31), false),
    ] {
        assert_eq!(crate::may_edit(Some(&arrived), at), ok, "{at}");
    }
    assert!(crate::may_edit(NONE, IVec3::new(1 << 20, 0, -(1 << 20))));
}

#[test]
fn the_outline_follows_the_picked_block_where_shown() {
    let (play, mut r) = over_floor();
    let camera = play.camera();
    play.select(&mut r, &camera, true);
    assert_eq!(r.selection, Some(IVec3::new(0, 5, 0)));
    play.select(&mut r, &camera, false);
    assert_eq!(r.selection, None);
    let up = Camera::look_at(Vec3::new(0.5, 10.5, 0.5), Vec3::new(0.5, 20.0, 0.6));
    play.select(&mut r, &up, true);
    assert_eq!(r.selection, None, "nothing within reach");
}

#[test]
fn a_new_world_gets_a_fresh_camera() {
    let (mut play, _) = over_floor();
    play.scroll(3.0);
    play.look_at(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, -3.0));
    assert_eq!(play.fly.position, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(play.fly.speed, 20.0);
}

#[test]
fn frame_steps_are_clamped_and_the_rate_is_measured_over_half_seconds() {
    let mut clock = FrameClock::new(1000.0);
    let step = clock.begin(1016.0);
    assert!((step.dt - 0.016).abs() < 1e-6 && step.interval_ms == 16.0);
    let stall = clock.begin(3016.0);
    assert_eq!((stall.dt, stall.interval_ms), (MAX_FRAME_DT, 2000.0));
    assert_eq!(clock.begin(3010.0).dt, 0.0, "a timestamp before the last frame's steps nothing");

    let mut clock = FrameClock::new(0.0);
    assert_eq!(clock.fps(), 0.0);
    for i in 1..30 {
        assert!(!clock.count(i as f64 * 16.0), "frame {i} ends no window");
    }
    // The 32nd frame, at 512 ms, ends the first window: 32 frames in 512 ms.
    assert!(!clock.count(496.0));
    assert!(!clock.count(499.0));
    assert!(clock.count(512.0));
    assert!((clock.fps() - 32.0 * 1000.0 / 512.0).abs() < 1e-9);
    assert!((clock.frame_ms() - 16.0).abs() < 1e-9);
    // The next window starts at the end of that one.
    assert!(!clock.count(1000.0));
    assert!(clock.count(1012.0));
    assert!((clock.fps() - 2.0 * 1000.0 / 500.0).abs() < 1e-9);
}
