//! The page's events into the viewer: keys, mouse look through pointer lock, clicks to edit,
//! the wheel for speed, the canvas's size (a `ResizeObserver`, in device pixels), and `.vox`
//! files from the file picker or dropped on the page.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{
    DragEvent, Event, File, HtmlCanvasElement, HtmlInputElement, KeyboardEvent, MouseEvent, ResizeObserver,
    ResizeObserverEntry, WheelEvent,
};

use crate::app::{App, canvas_pixels};
use crate::page::{self, js_message};

/// Adds `handler` for `event` on `target`, for the page's lifetime.
fn on<E: wasm_bindgen::convert::FromWasmAbi + 'static>(
    target: &web_sys::EventTarget,
    event: &str,
    handler: impl FnMut(E) + 'static,
) -> Result<(), JsValue> {
    let closure = Closure::<dyn FnMut(E)>::new(handler);
    target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref())?;
    closure.forget();
    Ok(())
}

/// Keys the browser would act on itself (F1 help, F3 find, F5 reload, Space scrolling): the
/// viewer uses them. With Ctrl held (sprinting), every key is kept from the browser's shortcuts,
/// except those it reserves for itself (Ctrl+W, Ctrl+T, Ctrl+N close and open tabs and windows
/// whatever the page does).
fn is_viewer_key(code: &str) -> bool {
    matches!(code, "F1" | "F2" | "F3" | "F5" | "Space" | "ControlLeft" | "ControlRight")
}

/// The viewer, unless it is borrowed: a handler that fires while a frame runs (or after a
/// panic left the frame's borrow in place) is dropped rather than panicking again.
fn with_app(app: &Rc<RefCell<App>>, f: impl FnOnce(&mut App)) {
    if let Ok(mut app) = app.try_borrow_mut() {
        f(&mut app);
    }
}

pub fn listen(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let canvas: HtmlCanvasElement =
        document.get_element_by_id("voxgpu").ok_or("no canvas")?.dyn_into().map_err(|_| "not a canvas")?;

    for (event, pressed) in [("keydown", true), ("keyup", false)] {
        let app = Rc::clone(app);
        on(&window, event, move |e: KeyboardEvent| {
            let code = e.code();
            if is_viewer_key(&code) || e.ctrl_key() {
                e.prevent_default();
            }
            with_app(&app, |app| app.key(&code, pressed, e.repeat()));
        })?;
    }
    {
        // Keys let go while the page is not focused would otherwise stay held.
        let app = Rc::clone(app);
        on(&window, "blur", move |_: Event| with_app(&app, |app| app.play.release_keys()))?;
    }
    {
        let app = Rc::clone(app);
        on(&document, "mousemove", move |e: MouseEvent| {
            with_app(&app, |app| app.play.mouse_moved(e.movement_x() as f64, e.movement_y() as f64))
        })?;
    }
    {
        let app = Rc::clone(app);
        on(&canvas, "mousedown", move |e: MouseEvent| {
            e.prevent_default();
            with_app(&app, |app| app.click(e.button()))
        })?;
    }
    on(&canvas, "contextmenu", |e: MouseEvent| e.prevent_default())?;
    {
        let (app, target, doc) = (Rc::clone(app), canvas.clone(), document.clone());
        on(&document, "pointerlockchange", move |_: Event| {
            let locked = doc.pointer_lock_element().is_some_and(|el| el == **target);
            with_app(&app, |app| app.play.grabbed = locked);
        })?;
    }
    {
        let app = Rc::clone(app);
        on(&canvas, "wheel", move |e: WheelEvent| {
            e.prevent_default();
            // Pixel deltas come in about 100 per notch.
            let notches = match e.delta_mode() {
                WheelEvent::DOM_DELTA_PIXEL => -e.delta_y() / 100.0,
                _ => -e.delta_y(),
            };
            with_app(&app, |app| app.play.scroll(notches as f32));
        })?;
    }
    observe_size(app, &canvas)?;
    open_files(app, &document)?;
    Ok(())
}

/// The canvas's size in device pixels, from a `ResizeObserver`: `devicePixelContentBoxSize`
/// where the browser reports it (exact), otherwise the CSS size times `devicePixelRatio`.
fn observe_size(app: &Rc<RefCell<App>>, canvas: &HtmlCanvasElement) -> Result<(), JsValue> {
    let (app, target) = (Rc::clone(app), canvas.clone());
    let closure = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() else { return };
        // Read through Reflect: where the browser has no device-pixel boxes the property is
        // undefined, and web-sys's typed getter would throw.
        let exact = js_sys::Reflect::get(&entry, &"devicePixelContentBoxSize".into())
            .ok()
            .and_then(|sizes| sizes.dyn_into::<js_sys::Array>().ok())
            .and_then(|sizes| sizes.get(0).dyn_into::<web_sys::ResizeObserverSize>().ok());
        let size = match exact {
            Some(s) => (s.inline_size().round() as u32, s.block_size().round() as u32),
            None => canvas_pixels(&target),
        };
        if size.0 > 0 && size.1 > 0 {
            with_app(&app, |app| app.resized = Some(size));
        }
    });
    let observer = ResizeObserver::new(closure.as_ref().unchecked_ref())?;
    let options = web_sys::ResizeObserverOptions::new();
    options.set_box(web_sys::ResizeObserverBoxOptions::DevicePixelContentBox);
    // Called through Reflect, which returns the exception: browsers without device-pixel boxes
    // (WebKit) throw on the option, and then observe the content box.
    let observe: js_sys::Function = js_sys::Reflect::get(&observer, &"observe".into())?.dyn_into()?;
    if observe.call2(&observer, canvas, &options).is_err() {
        observer.observe(canvas);
    }
    closure.forget();
    Ok(())
}

/// `.vox` files from `<input id="file">` and from files dropped on the page.
fn open_files(app: &Rc<RefCell<App>>, document: &web_sys::Document) -> Result<(), JsValue> {
    if let Some(input) = document.get_element_by_id("file") {
        let app = Rc::clone(app);
        let field: HtmlInputElement = input.clone().dyn_into().map_err(|_| "#file is not an input")?;
        on(&input, "change", move |_: Event| {
            if let Some(file) = field.files().and_then(|f| f.get(0)) {
                read(&app, file);
            }
        })?;
    }
    on(document, "dragover", |e: DragEvent| e.prevent_default())?;
    let app = Rc::clone(app);
    on(document, "drop", move |e: DragEvent| {
        e.prevent_default();
        if let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            read(&app, file);
        }
    })?;
    Ok(())
}

fn read(app: &Rc<RefCell<App>>, file: File) {
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        let name = file.name();
        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => {
                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                with_app(&app, |app| app.open_vox(&name, &bytes));
            }
            Err(e) => page::fail(&format!("cannot read {name}: {}", js_message(e))),
        }
    });
}
