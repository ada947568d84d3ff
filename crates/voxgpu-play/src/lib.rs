//! The play layer both voxgpu viewers drive: what a key, a click, the mouse and the passing of
//! time do, with no window, no threads and no GPU of its own.
//!
//! A viewer owns a [`Play`] and keeps only its window, the plumbing that turns its events into
//! [`Play`]'s calls (winit's key codes and the DOM's `KeyboardEvent.code` are the same physical
//! names, which [`voxgpu_core::keys::HeldKeys`] reads), and presentation. [`Play`] holds:
//! - the fly camera, the movement keys held and the mouse look gathered since the last frame;
//! - whether the pointer is captured (the first click only captures it);
//! - the block that right-click places (the number keys pick it from the world's blocks);
//! - the levels of detail that L turns back on;
//! - the frame clock ([`FrameClock`]): each frame's time step and the frames per second.
//!
//! What a key does to the renderer (render mode, levels of detail, frozen culling, the
//! selection outline, edits) goes through [`Controls`], which [`voxgpu_engine::Renderer`]
//! implements; edits are refused where the world is streamed and the block's chunk column has
//! not arrived yet ([`Residency`], [`may_edit`]). Keys whose effect is the viewer's own
//! (screenshots, the overlay, `.vox` export, letting the pointer go) come back as a
//! [`Request`].

mod clock;
mod controls;
mod play;
#[cfg(test)]
mod tests;

pub use clock::{FrameClock, FrameStep, MAX_FRAME_DT, now_ms};
pub use controls::{Controls, Residency, may_edit};
pub use play::{Button, Click, Edit, FIRST_BLOCK, LOOK_PER_PIXEL, Play, REACH, Request};
