//! The browser viewer's input, driven through the DevTools protocol's input events (keys, mouse
//! moves and clicks, the viewport's size, the file picker) on a small flat world, checked from
//! the page's own state (`status()`, `voxgpuBlockAt`) and its picture.
//!
//! Pointer lock: the first click asks for it and headless Chromium 156 grants it. Under the lock
//! this Chromium delivers DevTools' synthesized mouse events oddly: `mouseMoved` reaches the page
//! as no motion at all, and a press or release at `(x, y)` arrives with a motion of `(-x, -y)`.
//! So clicks are sent at `(0, 0)` (where the cursor is makes no difference under the lock: the
//! crosshair is the centre; and the lock may arrive between a press and its release), and the mouse look is a `mousemove` event with `movementX` made
//! by script: the page's own handler and everything after it run as for a real mouse.

use glam::Vec3;
use serde_json::Value;

use crate::web::{STATUS, browser_test, open_page, settle, settled, timeout};
use voxgpu_core::voxel::BlockRegistry;
use voxgpu_engine::RenderMode;
use voxgpu_play::LOOK_PER_PIXEL;
use voxgpu_test_kit::browser::Browser;
use voxgpu_worlds::worldgen::{self, WorldParams, WorldSource};

/// A flat world of 2 chunks, the camera 5 blocks over the grass (its top is y = 15) looking at
/// a block 4 blocks ahead of it: within reach of the crosshair.
const QUERY: &str = "world=flat&view=2&camera=4.5,20.5,4.5&target=4.5,15.5,8.5&present=copy";

fn status(browser: &mut Browser) -> Value {
    browser.evaluate(STATUS)
}

/// Waits until `frames` more frames are drawn.
fn frames(browser: &mut Browser, frames: u64) -> Value {
    let now = status(browser)["frames"].as_u64().unwrap_or(0);
    let target = now + frames;
    let status = browser.wait_for(STATUS, timeout(), move |s| s["frames"].as_u64().unwrap_or(0) >= target);
    status.unwrap_or_else(|e| panic!("{e}"))
}

/// The camera from a status: position, yaw, pitch.
fn camera(status: &Value) -> (Vec3, f32, f32) {
    let c: Vec<f32> =
        status["camera"].as_array().expect("a camera").iter().map(|v| v.as_f64().unwrap() as f32).collect();
    (Vec3::new(c[0], c[1], c[2]), c[3], c[4])
}

fn block_at(browser: &mut Browser, at: [i64; 3]) -> i64 {
    browser
        .evaluate(&format!("window.voxgpuBlockAt({}, {}, {})", at[0], at[1], at[2]))
        .as_i64()
        .expect("a block")
}

fn last_edit(status: &Value) -> Option<([i64; 3], i64)> {
    let e = status["last_edit"].as_array()?;
    let n: Vec<i64> = e.iter().map(|v| v.as_i64().unwrap()).collect();
    Some(([n[0], n[1], n[2]], n[3]))
}

#[test]
fn keys_mouse_clicks_resize_and_files_drive_the_page() {
    let Some(_one) = browser_test() else { return };
    let (mut b, page) = open_page(QUERY, "web_input");
    assert_eq!(page.status["errors"], serde_json::json!([]), "the page reported errors");
    let names: Vec<String> = BlockRegistry::builtin().iter().map(|(_, info)| info.name.clone()).collect();

    // The first click asks for the pointer; it edits nothing. At (0, 0) like every click here:
    // the lock may come before the button's release, whose odd motion is then (0, 0).
    b.click(0.0, 0.0, "left");
    let s = frames(&mut b, 3);
    assert_eq!(s["last_edit"], Value::Null, "the first click only takes the pointer");
    assert_eq!(s["grabbed"], true, "the first click locks the pointer");

    let first = camera(&s);
    assert_eq!(first, camera(&page.status), "taking the pointer turned nothing");
    // Left click: the block under the crosshair goes.
    let before = b.screenshot();
    b.click(0.0, 0.0, "left");
    let s = frames(&mut b, 6);
    let (removed, block) = last_edit(&s).expect("a left click removes the targeted block");
    assert_eq!(block, 0, "a left click leaves air");
    assert_eq!(removed[1], 15, "the grass under the crosshair, 4 blocks ahead: {removed:?}");
    assert_eq!(block_at(&mut b, removed), 0, "the page holds air there");
    assert_ne!(b.screenshot(), before, "the picture shows the hole");

    // A digit selects a block; right click places it in the cell in front of the one targeted.
    b.press("Digit3");
    let s = frames(&mut b, 2);
    assert_eq!(s["selected"], names[3].as_str(), "Digit3 selects block 3");
    b.click(0.0, 0.0, "right");
    let s = frames(&mut b, 6);
    let (placed, block) = last_edit(&s).expect("a right click places the selected block");
    assert_eq!(block, 3);
    assert_eq!(block_at(&mut b, placed), 3, "the page holds the placed block");

    // The edits turned nothing. Mouse look: 60 pixels right turns by 60 × LOOK_PER_PIXEL, and
    // nothing up or down.
    let (_, yaw, pitch) = camera(&frames(&mut b, 1));
    assert_eq!((yaw, pitch), (first.1, first.2), "clicks under the lock do not turn the camera");
    b.evaluate("document.dispatchEvent(new MouseEvent('mousemove', { movementX: 60, movementY: 0 }))");
    let (_, yaw2, pitch2) = camera(&frames(&mut b, 3));
    let turned = (yaw2 - yaw).rem_euclid(std::f32::consts::TAU);
    assert!(
        (turned - 60.0 * LOOK_PER_PIXEL).abs() < 1e-4,
        "turned {turned} rad, not {}",
        60.0 * LOOK_PER_PIXEL
    );
    assert!((pitch2 - pitch).abs() < 1e-5, "the pitch moved: {pitch} → {pitch2}");

    // W held: the camera flies ahead along the ground, where it faces, as FlyCamera moves it.
    let (from, yaw, _) = camera(&frames(&mut b, 1));
    b.key("KeyW", true);
    frames(&mut b, 8);
    b.key("KeyW", false);
    let (to, _, _) = camera(&frames(&mut b, 8));
    let moved = to - from;
    let ahead = Vec3::new(yaw.sin(), 0.0, -yaw.cos());
    assert!(moved.length() > 0.5, "W moved the camera {moved}");
    assert!(moved.normalize().dot(ahead) > 0.9999, "W moved {moved}, not along {ahead}");

    // F1 + 2: the second render mode; F1 + 1: back to filled. F3: the overlay.
    b.key("F1", true);
    b.press("Digit2");
    b.key("F1", false);
    let s = frames(&mut b, 2);
    assert_eq!(s["mode"], RenderMode::ALL[1].name(), "F1 + 2");
    assert_eq!(s["selected"], names[3].as_str(), "a mode key selects no block");
    b.key("F1", true);
    b.press("Digit1");
    b.key("F1", false);
    b.press("F3");
    let s = frames(&mut b, 2);
    assert_eq!(s["mode"], RenderMode::ALL[0].name(), "F1 + 1");
    assert_eq!(s["overlay"], true, "F3 shows the overlay");
    // The overlay's text is refreshed twice a second, so at fast frames it can lag the key by a
    // few frames: wait up to 60 frames for it.
    let mut overlay = b.evaluate("document.getElementById('overlay').textContent");
    for _ in 0..30 {
        if overlay.as_str().is_some_and(|t| !t.is_empty()) {
            break;
        }
        frames(&mut b, 2);
        overlay = b.evaluate("document.getElementById('overlay').textContent");
    }
    assert!(overlay.as_str().is_some_and(|t| t.contains("fps") && t.contains("world flat")), "{overlay}");
    b.press("F3");

    // F5: the model being edited downloads as a `.vox` file, which opens with the placed block.
    let downloads = std::env::temp_dir().join(format!("voxgpu-downloads-{}", std::process::id()));
    std::fs::create_dir_all(&downloads).expect("a download folder");
    b.allow_downloads(&downloads);
    b.press("F5");
    let s = b
        .wait_for(STATUS, timeout(), |s| s["message"].as_str().is_some_and(|m| m.starts_with("exported")))
        .unwrap_or_else(|e| panic!("{e}"));
    let file = (0..300)
        .find_map(|_| {
            let found = std::fs::read_dir(&downloads)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|e| e == "vox"));
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            found
        })
        .unwrap_or_else(|| panic!("no .vox downloaded: {}", s["message"]));
    let bytes = std::fs::read(&file).expect("the download");
    let model =
        voxgpu_worlds::worldgen::vox::from_bytes(&bytes, &file).expect("the download is a .vox model");
    // Every block of the world as edited: the flat world's (the hole was filled again).
    let flat_params = WorldParams { seed: 1, center: glam::IVec3::ZERO, view_distance: 2 };
    let flat = worldgen::generate(&WorldSource::Flat, &flat_params).expect("the flat world");
    let solid = |w: &voxgpu_core::voxel::World| -> usize {
        w.chunks().map(|(_, c)| c.voxels().iter().filter(|b| !b.is_air()).count()).sum()
    };
    let message = s["message"].as_str().expect("a message").to_string();
    assert!(message.starts_with(&format!("exported {} voxels", solid(&flat))), "{message}");
    assert_eq!(solid(&model), solid(&flat), "the downloaded model holds every block");
    let _ = std::fs::remove_dir_all(&downloads);

    // Reloaded, the page restores the edits from the browser's storage.
    let url = b.evaluate("location.href").as_str().expect("the page's address").to_string();
    b.navigate(&url);
    let restored = settle(&mut b, "web_input_restored", settled);
    assert_eq!(restored.status["errors"], serde_json::json!([]), "the page reported errors");
    assert_eq!(block_at(&mut b, placed), 3, "the placed block is back after a reload");
    assert_eq!(placed, removed, "the right click filled the hole the left click made");
    assert_eq!(restored.status["message"], "restored the edits of 1 chunk");

    // A smaller page: the frame follows at the new size.
    b.resize(320, 200);
    b.wait_for(STATUS, timeout(), |s| s["size"] == serde_json::json!([320, 200]))
        .unwrap_or_else(|e| panic!("{e}"));
    let s = frames(&mut b, 3);
    assert_eq!(s["errors"], serde_json::json!([]), "the page reported errors");
    let shot = b.screenshot();
    assert_eq!(shot.dimensions(), (320, 200));
    let first = *shot.get_pixel(0, 0);
    assert!(shot.pixels().any(|p| *p != first), "the resized frame is drawn, not blank");

    // The file picker opens a model; a damaged file leaves it and says so in one line.
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sample.vox");
    b.choose_file("#file", &model);
    let opened = settle(&mut b, "web_input_vox", |s| s["world"] == "sample.vox" && settled(s));
    assert_eq!(opened.status["message"], "opened sample.vox");
    assert!(opened.status["resident"].as_u64().unwrap_or(0) > 0, "the model is drawn");
    let bytes = std::fs::read(&model).expect("the sample model");
    let damaged = std::env::temp_dir().join(format!("voxgpu-damaged-{}.vox", std::process::id()));
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).expect("write the damaged model");
    b.choose_file("#file", &damaged);
    let s = b
        .wait_for(STATUS, timeout(), |s| s["message"] != "opened sample.vox")
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&damaged);
    let message = s["message"].as_str().expect("a message");
    eprintln!("a damaged model: {message}");
    assert!(!message.is_empty() && !message.contains('\n'), "one line: {message:?}");
    assert_eq!(s["world"], "sample.vox", "the model stays");
    assert_eq!(s["errors"], serde_json::json!([]), "a bad file is not a page error");
    assert!(b.errors.is_empty(), "the console reported errors: {:?}", b.errors);
}

/// Terrain streamed by the workers: a block removed there is gone again after a reload, because
/// the kept chunk goes with the column's job to the worker that generates it.
#[test]
fn an_edit_to_streamed_terrain_is_kept_across_a_reload() {
    let Some(_one) = browser_test() else { return };
    // The camera 4 blocks over the ground at (8, 8), looking 4 blocks ahead and down.
    let params = WorldParams { seed: 1, center: glam::IVec3::ZERO, view_distance: 1 };
    let world = worldgen::generate(&WorldSource::Terrain, &params).expect("terrain");
    let ground = (0..256).rev().find(|&y| !world.block(glam::IVec3::new(8, y, 8)).is_air()).expect("ground");
    let query = format!(
        "world=terrain&seed=1&view=2&camera=8.5,{},8.5&target=8.5,{},12.5&present=copy",
        ground as f32 + 4.5,
        ground as f32 + 0.5
    );
    let (mut b, page) = open_page(&query, "web_terrain_edit");
    assert!(page.status["workers"].as_u64().unwrap_or(0) >= 1, "the workers generate");
    b.click(0.0, 0.0, "left");
    assert_eq!(frames(&mut b, 3)["grabbed"], true, "the first click locks the pointer");
    b.click(0.0, 0.0, "left");
    let (removed, block) = last_edit(&frames(&mut b, 6)).expect("a block within reach is removed");
    assert_eq!(block, 0);
    assert_eq!(block_at(&mut b, removed), 0);
    let url = b.evaluate("location.href").as_str().expect("the page's address").to_string();
    b.navigate(&url);
    let restored = settle(&mut b, "web_terrain_edit_restored", settled);
    assert_eq!(restored.status["errors"], serde_json::json!([]), "the page reported errors");
    assert_eq!(restored.status["message"], "restored the edits of 1 chunk");
    assert_eq!(block_at(&mut b, removed), 0, "the removed block stays removed after a reload");
    assert!(b.errors.is_empty(), "the console reported errors: {:?}", b.errors);
}
