//! The browser build: the web viewer built for wasm32, served on 127.0.0.1 and opened in headless
//! Chromium on SwiftShader's WebGPU, driven over the DevTools protocol. It must stream the
//! terrain in, draw, match its golden image with the native goldens' FLIP thresholds, and log no
//! WebGPU validation error, console error or uncaught exception.
//!
//! Needs `chromium-headless-shell` (or `VOXGPU_CHROMIUM`), the wasm32 target and the pinned
//! `wasm-bindgen` CLI, which `.ci/run` installs. Without them it fails, unless
//! `VOXGPU_SKIP_BROWSER=1` opts out (it then says so).

use voxgpu_test_kit as kit;

use std::time::Duration;

use std::collections::BTreeMap;
use std::sync::Arc;

use kit::browser::{self, Browser};
use voxgpu_core::fly::FlyCamera;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{BlockRegistry, CHUNK_SIZE, Chunk, NodeColumn, NodeKey, digest};
use voxgpu_engine::{Offscreen, RendererOptions};
use voxgpu_worlds::stream::{ChunkSink, StreamSettings, Streamer};
use voxgpu_worlds::worldgen::{self, TerrainColumns, WorldParams, WorldSource};

const WIDTH: u32 = 480;
const HEIGHT: u32 = 270;
/// Frames drawn after the world settled before the picture is taken: as many as a level change's
/// cross-fade lasts (`DEFAULT_FADE_FRAMES`, the page's). Under a still camera a fade begins when
/// a column's readiness changes, no later than the first of the quiet frames the page counts
/// before it settles, so every fade has ended by then.
const FRAMES_AFTER_SETTLING: u64 = voxgpu_core::lod::DEFAULT_FADE_FRAMES as u64;
/// The view: terrain of seed 1 at 4 chunks from its default camera, presented by copy (the only
/// way headless Chromium on SwiftShader shows a WebGPU frame: crates/voxgpu-web/src/present.rs).
const VIEW: &str = "world=terrain&seed=1&view=4&present=copy";
fn view() -> String {
    std::env::var("VOXGPU_WEB_VIEW").unwrap_or(VIEW.into())
}

/// A far view: 4,096 blocks (node levels 0 to 4, level 1 from 32 blocks), as
/// `?view=4096b&lod-distance=32` asks for it.
const FAR_VIEW: &str = "world=terrain&seed=1&view=4096b&lod-distance=32&present=copy";
const FAR_CHUNKS: u32 = 128;
const FAR_LOD_DISTANCE: f32 = 32.0;

/// The page's world natively: terrain of seed 1 streamed at 4 chunks around the default camera,
/// generated on two threads; and that camera, as the viewer makes it.
fn native_world() -> (Streamer, voxgpu_core::camera::Camera) {
    native_world_at(4, LodSettings::default())
}

/// The same at `view_distance` chunks with `lod`.
fn native_world_at(view_distance: u32, lod: LodSettings) -> (Streamer, voxgpu_core::camera::Camera) {
    let params = WorldParams { seed: 1, center: glam::IVec3::ZERO, view_distance };
    let ground = worldgen::generate(&WorldSource::Terrain, &WorldParams { view_distance: 1, ..params })
        .expect("terrain");
    let (eye, target) = worldgen::default_view(&WorldSource::Terrain, &ground, &params);
    let columns = TerrainColumns::new(1);
    let settings = StreamSettings { lod, ..StreamSettings::new(view_distance) };
    let streamer = Streamer::new(settings, 2, Arc::new(move |c| Ok(columns.node_column(c))));
    (streamer, FlyCamera::looking_at(eye, target).camera())
}

/// The nodes native streaming makes resident for the page's view, each with the hash of its
/// voxels, sorted.
fn native_nodes() -> Nodes {
    nodes_of(native_world())
}

/// The nodes `world` makes resident once settled around its camera.
fn nodes_of((mut streamer, camera): (Streamer, voxgpu_core::camera::Camera)) -> Nodes {
    #[derive(Default)]
    struct Resident(BTreeMap<NodeKey, u64>);
    impl ChunkSink for Resident {
        type Error = std::convert::Infallible;
        fn insert(&mut self, key: NodeKey, chunk: Arc<Chunk>) -> Result<(), Self::Error> {
            self.0.insert(key, digest(&chunk));
            Ok(())
        }
        fn remove(&mut self, key: NodeKey) {
            self.0.remove(&key);
        }
        fn mark_dirty(&mut self, _: NodeKey) {}
        fn column_ready(&mut self, _: NodeColumn, _: bool) {}
    }
    let mut resident = Resident::default();
    streamer.settle(camera.eye, &mut resident).expect("infallible");
    resident.0.into_iter().map(|(k, hash)| (k.level, k.pos.to_array(), hash)).collect()
}

/// The page's frame drawn natively, with the renderer's defaults as the page uses them; `None`
/// with no native adapter (`VOXGPU_ALLOW_NO_GPU=1`).
fn native_frame() -> Option<image::RgbaImage> {
    use kit::ReadImage;
    let gpu = kit::gpu_contexts().into_iter().next()?;
    let options = RendererOptions::new(WIDTH, HEIGHT, 5.0 * CHUNK_SIZE as f32);
    let mut renderer = Offscreen::new(&gpu, options, &BlockRegistry::builtin()).expect("a renderer");
    let (mut streamer, camera) = native_world();
    eprintln!("native view: camera {} target {}", camera.eye, camera.target);
    streamer.settle(camera.eye, &mut renderer).expect("streamed");
    renderer.settle(&camera).expect("meshed");
    Some(renderer.read_image().expect("read back"))
}

/// The page's status, parsed.
pub(crate) const STATUS: &str = "window.voxgpuStatus ? JSON.parse(window.voxgpuStatus()) : null";

pub(crate) fn timeout() -> Duration {
    Duration::from_secs(std::env::var("VOXGPU_WEB_TIMEOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(300))
}

/// Done once settled and drawing, or as soon as the page reports an error.
pub(crate) fn settled(s: &serde_json::Value) -> bool {
    s["errors"].as_array().is_some_and(|e| !e.is_empty())
        || s["settled_frame"]
            .as_u64()
            .is_some_and(|f| s["frames"].as_u64().unwrap_or(0) >= f + FRAMES_AFTER_SETTLING)
}

/// The start of every browser test: `None` where `VOXGPU_SKIP_BROWSER=1` opts out (it says so),
/// otherwise the one-browser lock, held for the test. One browser at a time: two headless
/// Chromiums on two cores, each drawing on SwiftShader, starve each other, and two that had both
/// taken pointer lock once stopped answering DevTools for minutes.
pub(crate) fn browser_test() -> Option<std::sync::MutexGuard<'static, ()>> {
    if opted_out() {
        eprintln!("browser test NOT run (VOXGPU_SKIP_BROWSER=1)");
        return None;
    }
    static BROWSER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    Some(BROWSER.lock().unwrap_or_else(|e| e.into_inner()))
}

fn opted_out() -> bool {
    std::env::var("VOXGPU_SKIP_BROWSER").as_deref() == Ok("1")
}

/// Nodes as the page's digest lists them: level, position, hash of the voxels.
pub(crate) type Nodes = Vec<(u32, [i32; 3], u64)>;

/// What a page showed once it settled.
pub(crate) struct Page {
    pub status: serde_json::Value,
    pub shot: image::RgbaImage,
    pub nodes: Nodes,
    /// What the console reported as errors.
    pub console_errors: Vec<String>,
}

/// Opens the site at `index.html?{query}` and waits as [`settle`] does; the page stays open.
pub(crate) fn open_page(query: &str, name: &str) -> (Browser, Page) {
    let chromium = browser::chromium()
        .expect("no Chromium found: apt-get install chromium-headless-shell, set VOXGPU_CHROMIUM, or opt out with VOXGPU_SKIP_BROWSER=1");
    let site = browser::build_site();
    let wasm = std::fs::metadata(site.join("pkg/voxgpu_web_bg.wasm")).expect("the wasm module").len();
    let url = browser::serve(site);
    let mut browser = Browser::start(&chromium, WIDTH, HEIGHT);
    browser.navigate(&format!("{url}/index.html?{query}"));
    eprintln!("browser page {query}; wasm {wasm} bytes");
    let page = settle(&mut browser, name, settled);
    (browser, page)
}

/// Waits until `done` holds for the page's status (the world settled and
/// [`FRAMES_AFTER_SETTLING`] more frames drawn, for [`settled`]; or the page reported an error),
/// and takes the picture and the nodes. On a timeout the page is saved as
/// `tests/output/{name}-timeout.png`.
pub(crate) fn settle(browser: &mut Browser, name: &str, done: fn(&serde_json::Value) -> bool) -> Page {
    let status = browser.wait_for(STATUS, timeout(), done);
    // The page's own controls (the file picker) and its messages are not part of the frame.
    browser
        .evaluate("for (const id of ['open', 'overlay']) document.getElementById(id).style.display = 'none'");
    let shot = browser.screenshot();
    let digest = browser.evaluate("window.voxgpuWorldDigest()");
    let status = status.unwrap_or_else(|e| {
        let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/output");
        std::fs::create_dir_all(&out).expect("create tests/output");
        shot.save(out.join(format!("{name}-timeout.png"))).expect("write the page");
        panic!("{e}; the page is in tests/output/{name}-timeout.png")
    });
    eprintln!("browser status ({name}): {status}");
    let nodes =
        serde_json::from_str::<Vec<(u32, i32, i32, i32, u64)>>(digest.as_str().expect("a digest string"))
            .expect("the digest is JSON")
            .into_iter()
            .map(|(level, x, y, z, hash)| (level, [x, y, z], hash))
            .collect();
    Page { status, shot, nodes, console_errors: browser.errors.clone() }
}

#[test]
fn browser_viewer_streams_and_draws_its_golden_image() {
    let Some(_one) = browser_test() else { return };
    let (mut browser, page) = open_page(&view(), "web_terrain");
    let Page { status, shot, nodes: browser_nodes, console_errors } = page;
    assert_eq!(status["errors"], serde_json::json!([]), "the page reported errors");
    assert_eq!(status["draw_submission"], "instanced", "the browser draws through the instanced path");
    assert!(status["workers"].as_u64().unwrap_or(0) >= 1, "terrain is generated in web workers");
    assert_eq!(
        browser_nodes,
        native_nodes(),
        "the browser streamed other nodes, or other voxels, than native code does"
    );
    assert!(console_errors.is_empty(), "the console reported errors: {console_errors:?}");
    assert_eq!(shot.dimensions(), (WIDTH, HEIGHT), "the screenshot is the page at device pixel ratio 1");
    // The canvas fills the page; a blank or unconfigured canvas shows the page's background.
    kit::compare_golden(&crate::golden_dir(), "web_terrain", "web_terrain", &shot, true)
        .unwrap_or_else(|e| panic!("{e}"));

    // A lost device: the page replaces it, rebuilds the renderer from the nodes it holds and
    // settles on the same picture and the same nodes, with no error.
    browser.evaluate("window.voxgpuLoseDevice()");
    let recovered = settle(&mut browser, "web_recovered", |s| {
        let failed = s["errors"].as_array().is_some_and(|e| !e.is_empty());
        failed || (s["recoveries"].as_u64().unwrap_or(0) >= 1 && settled(s))
    });
    assert_eq!(recovered.status["errors"], serde_json::json!([]), "the page reported errors");
    assert_eq!(recovered.status["recoveries"], 1, "one lost device, replaced");
    assert!(
        recovered.console_errors.is_empty(),
        "the console reported errors: {:?}",
        recovered.console_errors
    );
    assert_eq!(recovered.nodes, browser_nodes, "the recovered renderer holds the same nodes");
    let message = browser.evaluate("document.getElementById('overlay').textContent");
    assert!(
        message.as_str().is_some_and(|m| m.contains("device was lost")
            && m.contains(&format!("recovered with {} nodes", browser_nodes.len()))),
        "the page says what happened: {message}"
    );
    kit::compare_golden(&crate::golden_dir(), "web_terrain", "web_terrain_recovered", &recovered.shot, false)
        .unwrap_or_else(|e| panic!("after the device was lost: {e}"));

    // What the native renderer draws of the same streamed world from the same camera, on the
    // first software adapter: reported, not asserted. SwiftShader rasterises edges differently
    // from the Mesa adapters, so the blocky picture differs in scattered edge pixels (mean FLIP
    // about 0.015, above the goldens' 0.01 meant for one rasteriser); the geometry's source is
    // compared exactly above (the nodes and their voxels).
    if let Some(native_image) = native_frame() {
        let against = kit::flip(&native_image, &shot);
        eprintln!("browser against native        {against} (reported only)");
    }
}

/// A far view (`view` in blocks, `lod-distance`), where a world source panics in its worker on
/// every attempt at one chunk column: the page lives on without an error, the worker is replaced
/// after each panic, the column fails alone, and every other node, of every level, is the one
/// native streaming makes with the same settings.
#[test]
fn a_far_view_streams_native_nodes_and_a_column_that_panics_in_its_worker_fails_alone() {
    let Some(_one) = browser_test() else { return };
    let lod = LodSettings::default().with_first_distance(FAR_LOD_DISTANCE).expect("a distance");
    let native = nodes_of(native_world_at(FAR_CHUNKS, lod));
    let top = native.iter().map(|(level, ..)| *level).max();
    assert!(top >= Some(4), "the far view reaches node level {top:?}");
    let (_, [x, _, z], _) = *native.iter().find(|(level, ..)| *level == 0).expect("chunks in view");
    let (_, Page { status, nodes, console_errors, .. }) =
        open_page(&format!("{FAR_VIEW}&panic-column=0,{x},{z}"), "web_panic");
    assert_eq!(status["view_distance"], FAR_CHUNKS, "view=4096b is 128 chunks");
    assert_eq!(status["errors"], serde_json::json!([]), "the page reported errors");
    assert!(console_errors.is_empty(), "the console reported errors: {console_errors:?}");
    let attempts = StreamSettings::new(4).attempts;
    assert_eq!(status["failed_columns"], 1, "one column failed, after its attempts");
    assert_eq!(status["workers_replaced"], attempts, "a worker is replaced after each panic");
    let expected: Nodes =
        native.into_iter().filter(|(level, p, _)| !(*level == 0 && p[0] == x && p[2] == z)).collect();
    assert_eq!(nodes, expected, "every other node is native streaming's");
}
