//! Scripted input for the viewer (`--script FILE`): what a user would do, frame by frame, so the
//! real viewer can be driven in tests. One action per line, `FRAME ACTION ARGS…`; `#` starts a
//! comment. Frames run at a fixed 1/60 s when a script is given, so a run is repeatable.
//!
//! | action | effect |
//! | --- | --- |
//! | `move F R U` | hold movement from this frame on: forward, right, up, each −1..1 |
//! | `look YAW PITCH` | turn by these radians this frame |
//! | `key NAME` | press and release a key: `l`, `c`, `f2`, `f3`, `0`…`9`, `f1+N` (render mode N) |
//! | `click left\|right` | remove the targeted block, or place the selected one |
//! | `resize W H` | the window's size becomes W×H (`0 0`: minimised) |
//! | `lose-device` | destroy the GPU device, as a driver reset would lose it: the viewer recovers |

use std::collections::BTreeMap;

/// One scripted action.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Move { forward: f32, right: f32, up: f32 },
    Look { yaw: f32, pitch: f32 },
    Key(Key),
    Click { place: bool },
    Resize { width: u32, height: u32 },
    LoseDevice,
}

pub use voxgpu_core::keys::Key;

/// A key's name in a script: `l`, `c`, `f2`, `f3`, `f5`, `0`…`9`, `f1+N`.
fn parse_key(name: &str) -> Option<Key> {
    let digit = |s: &str| s.parse::<u8>().ok().filter(|d| *d <= 9);
    match name.to_ascii_lowercase().as_str() {
        "l" => Some(Key::ToggleLod),
        "c" => Some(Key::FreezeCulling),
        "f2" => Some(Key::Screenshot),
        "f3" => Some(Key::ToggleOverlay),
        "f5" => Some(Key::Export),
        n => match n.strip_prefix("f1+") {
            Some(d) => digit(d).map(Key::Mode),
            None => digit(n).map(Key::Block),
        },
    }
}

/// A parsed script: actions by frame, in file order within a frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    actions: BTreeMap<u64, Vec<Action>>,
}

impl Script {
    /// Parses `text`; an error names the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Script, String> {
        let mut script = Script::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fail = |what: &str| format!("script line {}: {what}: {line:?}", i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let frame: u64 = words[0].parse().map_err(|_| fail("expected a frame number first"))?;
            let float = |w: Option<&&str>, range: f32| {
                w.and_then(|w| w.parse::<f32>().ok()).filter(|v| v.is_finite() && v.abs() <= range)
            };
            let action = match (words.get(1).copied(), words.len()) {
                (Some("move"), 5) => {
                    let axis =
                        |k| float(words.get(k), 1.0).ok_or_else(|| fail("move takes three numbers in -1..1"));
                    Action::Move { forward: axis(2)?, right: axis(3)?, up: axis(4)? }
                }
                (Some("look"), 4) => {
                    let angle =
                        |k| float(words.get(k), 10.0).ok_or_else(|| fail("look takes two angles in radians"));
                    Action::Look { yaw: angle(2)?, pitch: angle(3)? }
                }
                (Some("key"), 3) => Action::Key(parse_key(words[2]).ok_or_else(|| fail("unknown key"))?),
                (Some("click"), 3) => match words[2] {
                    "left" => Action::Click { place: false },
                    "right" => Action::Click { place: true },
                    _ => return Err(fail("click takes left or right")),
                },
                (Some("resize"), 4) => {
                    let side = |k: usize| {
                        words[k]
                            .parse::<u32>()
                            .ok()
                            .filter(|s| *s <= 8192)
                            .ok_or_else(|| fail("resize takes two sizes in 0..=8192"))
                    };
                    Action::Resize { width: side(2)?, height: side(3)? }
                }
                (Some("lose-device"), 2) => Action::LoseDevice,
                _ => {
                    return Err(fail(
                        "expected move, look, key, click, resize or lose-device with their arguments",
                    ));
                }
            };
            script.actions.entry(frame).or_default().push(action);
        }
        Ok(script)
    }

    /// The actions of `frame`.
    pub fn at(&self, frame: u64) -> &[Action] {
        self.actions.get(&frame).map_or(&[], Vec::as_slice)
    }

    /// The last frame with an action.
    pub fn last_frame(&self) -> Option<u64> {
        self.actions.keys().next_back().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_action_and_keeps_file_order_within_a_frame() {
        let script = Script::parse(
            "# a flight\n0 move 1 0 0.5\n10 look 0.1 -0.2\n10 key f1+3\n10 key 4\n20 click left # dig\n\
             20 click right\n30 resize 0 0\n31 resize 640 480\n40 key L\n41 lose-device\n",
        )
        .expect("parses");
        assert_eq!(script.at(0), [Action::Move { forward: 1.0, right: 0.0, up: 0.5 }]);
        assert_eq!(
            script.at(10),
            [Action::Look { yaw: 0.1, pitch: -0.2 }, Action::Key(Key::Mode(3)), Action::Key(Key::Block(4))]
        );
        assert_eq!(script.at(20), [Action::Click { place: false }, Action::Click { place: true }]);
        assert_eq!(script.at(30), [Action::Resize { width: 0, height: 0 }]);
        assert_eq!(script.at(40), [Action::Key(Key::ToggleLod)]);
        assert_eq!(script.at(41), [Action::LoseDevice]);
        assert!(script.at(5).is_empty());
        assert_eq!(script.last_frame(), Some(41));
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, line) in [
            ("x move 1 0 0", 1),
            ("0 move 2 0 0", 1),
            ("\n0 jump", 2),
            ("0 key q", 1),
            ("0 click middle", 1),
            ("0 resize 10 -1", 1),
            ("0 look nan 0", 1),
            ("0 lose-device now", 1),
        ] {
            let err = Script::parse(text).unwrap_err();
            assert!(err.starts_with(&format!("script line {line}:")), "{text:?}: {err}");
        }
    }
}
