//! voxgpu in the browser: the viewer on WebGPU, drawing into the page's `<canvas id="voxgpu">`.
//!
//! `web/index.html` loads the module and calls [`start`]. Set-up (`start`): a WebGPU adapter and
//! a device with [`voxgpu_engine::required_limits`] (requested explicitly, and reported on the
//! page when refused), a surface on the canvas, the renderer drawing straight into the canvas's
//! texture through an sRGB view, and the world: terrain streamed around the camera (generated
//! in web workers, `workers.rs`), or
//! a `.vox` model opened with the file picker or dropped on the page. Each animation frame
//! (`app.rs`): input moves the camera, the streamer takes up to its budget, and the renderer
//! records its compute and draw passes into one encoder, which is submitted and presented.
//! Input and page wiring are in `input.rs` and `page.rs`; the workers run this same module
//! (`web/worker.js` calls [`init_worker`] and [`generate_column`]).
//!
//! The page's URL sets the world and view (`page::Params`), so a test can ask for a fixed view,
//! and [`status`] reports frames, settling, timings and errors as JSON.

#![cfg(target_arch = "wasm32")]

mod app;
mod input;
mod page;
mod present;
mod storage;
mod workers;

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

pub use page::status;
pub use workers::{generate_column, init_worker, worker_panic};

/// The resident nodes and a hash of each one's voxels, as JSON (`App::world_digest`); empty
/// before the viewer has started.
#[wasm_bindgen]
pub fn world_digest() -> String {
    APP.with(|slot| slot.borrow().as_ref().map_or("[]".into(), |app| app.borrow().world_digest()))
}

thread_local! {
    /// The running viewer, shared by the animation-frame loop and the event listeners.
    static APP: RefCell<Option<Rc<RefCell<app::App>>>> = const { RefCell::new(None) };
}

/// Runs `f` on the running viewer, if there is one (not while it is borrowed: callers run from
/// the browser's event loop, between frames).
pub(crate) fn with_app(f: impl FnOnce(&mut app::App)) {
    APP.with(|slot| {
        if let Some(app) = slot.borrow().as_ref()
            && let Ok(mut app) = app.try_borrow_mut()
        {
            f(&mut app);
        }
    });
}

/// The block id at world position `(x, y, z)` as the viewer holds it, -1 where nothing is
/// resident: a test reads edits back with it.
#[wasm_bindgen]
pub fn block_at(x: i32, y: i32, z: i32) -> i32 {
    let mut block = -1;
    with_app(|app| block = app.block_at(glam::IVec3::new(x, y, z)).map_or(-1, i32::from));
    block
}

/// The test hook for a lost device: destroys the viewer's WebGPU device, as a driver reset
/// would lose it. The next frame replaces it (`App::recover`).
#[wasm_bindgen]
pub fn lose_device() {
    with_app(|app| app.lose_device());
}

/// Starts the viewer on the page's canvas; `module` is this build's compiled
/// `WebAssembly.Module`, which the generation workers instantiate. Errors (no WebGPU, limits
/// refused, a bad URL parameter) are shown on the page and returned to the caller.
#[wasm_bindgen]
pub async fn start(module: JsValue) -> Result<(), JsValue> {
    std::panic::set_hook(Box::new(|info| page::fail(&format!("panic: {info}"))));
    match app::App::open(module).await {
        Ok(app) => {
            let app = Rc::new(RefCell::new(app));
            input::listen(&app)?;
            APP.with(|slot| *slot.borrow_mut() = Some(Rc::clone(&app)));
            app::App::run(app);
            Ok(())
        }
        Err(message) => {
            page::fail(&message);
            Err(JsValue::from_str(&message))
        }
    }
}
