//! The viewer's keys, shared by the desktop and browser viewers. Keys are named by their physical
//! code, the names winit's `KeyCode` and the DOM's `KeyboardEvent.code` share ("KeyW", "Digit1",
//! "F3", "ShiftLeft"), so both viewers map them the same way.

use crate::fly::FlyInput;

/// What a key press asks the viewer for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// L: levels of detail on and off.
    ToggleLod,
    /// C: freeze culling at the current camera, or thaw it.
    FreezeCulling,
    /// F2: save a screenshot.
    Screenshot,
    /// F3: the stats overlay.
    ToggleOverlay,
    /// F5: export the model being edited as a `.vox` file.
    Export,
    /// A number key: the block that right-click places.
    Block(u8),
    /// F1 with a number key: render mode N (1-based, `RenderMode::ALL` order).
    Mode(u8),
    /// G: the lamp (the built-in block that gives light) is what right-click places.
    Lamp,
    /// `[` and `]`: the time of day an hour earlier or later.
    Hours(i8),
}

/// What [`HeldKeys::key`] makes of a key event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyEvent {
    /// A command for the viewer.
    Key(Key),
    /// Escape: let the cursor go.
    ReleaseCursor,
}

/// Movement keys held down (WASD, Space and Shift up and down, Ctrl to sprint), and F1, which
/// turns the number keys into render modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldKeys {
    forward: bool,
    back: bool,
    left: bool,
    right: bool,
    up: bool,
    down: bool,
    sprint: bool,
    f1: bool,
}

impl HeldKeys {
    /// Takes a key event for the key with physical code `code`. Movement keys change what is
    /// held; a fresh press (not a repeat) of a command key returns its command.
    pub fn key(&mut self, code: &str, pressed: bool, repeat: bool) -> Option<KeyEvent> {
        match code {
            "KeyW" => self.forward = pressed,
            "KeyS" => self.back = pressed,
            "KeyA" => self.left = pressed,
            "KeyD" => self.right = pressed,
            "Space" => self.up = pressed,
            "ShiftLeft" | "ShiftRight" => self.down = pressed,
            "ControlLeft" | "ControlRight" => self.sprint = pressed,
            "F1" => self.f1 = pressed,
            _ => {}
        }
        if !pressed || repeat {
            return None;
        }
        let digit = code.strip_prefix("Digit").and_then(|d| d.parse::<u8>().ok()).filter(|d| *d <= 9);
        let key = match (code, digit) {
            (_, Some(d)) if self.f1 => Key::Mode(d),
            (_, Some(d)) => Key::Block(d),
            ("KeyL", _) => Key::ToggleLod,
            ("KeyC", _) => Key::FreezeCulling,
            ("F2", _) => Key::Screenshot,
            ("F3", _) => Key::ToggleOverlay,
            ("F5", _) => Key::Export,
            ("KeyG", _) => Key::Lamp,
            ("BracketLeft", _) => Key::Hours(-1),
            ("BracketRight", _) => Key::Hours(1),
            ("Escape", _) => return Some(KeyEvent::ReleaseCursor),
            _ => return None,
        };
        Some(KeyEvent::Key(key))
    }

    /// The movement this frame: the held keys plus `extra` (scripted movement), each axis
    /// clamped to −1..1, with `look` in radians.
    pub fn input(&self, extra: FlyInput, look: (f32, f32)) -> FlyInput {
        let axis = |plus: bool, minus: bool, more: f32| {
            (plus as i32 as f32 - minus as i32 as f32 + more).clamp(-1.0, 1.0)
        };
        FlyInput {
            forward: axis(self.forward, self.back, extra.forward),
            right: axis(self.right, self.left, extra.right),
            up: axis(self.up, self.down, extra.up),
            sprint: self.sprint || extra.sprint,
            look,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_keys_pick_blocks_and_with_f1_render_modes() {
        let mut held = HeldKeys::default();
        assert_eq!(held.key("Digit3", true, false), Some(KeyEvent::Key(Key::Block(3))));
        assert_eq!(held.key("Digit3", true, true), None, "a repeat is not a fresh press");
        assert_eq!(held.key("F1", true, false), None);
        assert_eq!(held.key("Digit3", true, false), Some(KeyEvent::Key(Key::Mode(3))));
        held.key("F1", false, false);
        assert_eq!(held.key("F3", true, false), Some(KeyEvent::Key(Key::ToggleOverlay)));
        assert_eq!(held.key("Escape", true, false), Some(KeyEvent::ReleaseCursor));
        assert_eq!(held.key("KeyQ", true, false), None);
    }

    #[test]
    fn held_keys_move_and_clamp() {
        let mut held = HeldKeys::default();
        held.key("KeyW", true, false);
        held.key("KeyA", true, false);
        held.key("ControlLeft", true, false);
        let input = held.input(FlyInput { forward: 1.0, up: 0.5, ..FlyInput::default() }, (0.1, 0.0));
        assert_eq!((input.forward, input.right, input.up, input.sprint), (1.0, -1.0, 0.5, true));
        assert_eq!(input.look, (0.1, 0.0));
        held.key("KeyW", false, false);
        assert_eq!(held.input(FlyInput::default(), (0.0, 0.0)).forward, 0.0);
    }
}
