//! The page around the canvas: the URL's parameters, the overlay and error elements, and the
//! status a test reads.

use std::cell::RefCell;
use std::collections::BTreeMap;

use glam::Vec3;
use wasm_bindgen::prelude::*;
use web_sys::UrlSearchParams;

use crate::workers::MAX_WORKERS;
use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{MAX_NODE_LEVEL, NodeColumn};
use voxgpu_engine::{DEFAULT_GPU_BUDGET_MIB, DrawSubmission, FrameTimings, RenderMode};
use voxgpu_worlds::stream::plan::parse_view_distance;

/// What the page's URL asks for: `?world=terrain&seed=1&view=8&camera=x,y,z&target=x,y,z`
/// (`view` in chunks, `8c`, or blocks, `4096b`, as the desktop's `--view-distance`),
/// `&budget-mib=2048` (GPU memory for streamed nodes, as `--gpu-memory-budget`),
/// `&lod-distance=128` (blocks to where level 1 begins, as `--lod-distance`), `&workers=N`
/// (generation workers; 0 generates on the page's thread for up to `&budget=8` milliseconds a
/// frame), `&draw=instanced|capped`, `&mode=lod` (a render mode's name),
/// `&present=canvas|copy`, and the test hook `&panic-column=L,x,z` (generating that node column
/// panics in its worker).
pub struct Params {
    pub world: String,
    pub seed: u64,
    /// View distance in chunks; `None`: chosen by the adapter (`app.rs`).
    pub view_distance: Option<u32>,
    /// GPU memory for streamed nodes, in MiB.
    pub budget_mib: u32,
    /// Levels of detail, with level 1 from `lod-distance` blocks.
    pub lod: LodSettings,
    pub camera: Option<Vec3>,
    pub target: Option<Vec3>,
    /// Web workers generating terrain; `None`: one fewer than the machine's logical cores
    /// (at least one). 0: generation runs on the page's thread instead, `budget_ms` a frame.
    pub workers: Option<u32>,
    /// Milliseconds of terrain generation per frame at most on the page's thread (at least one
    /// column a frame), with no workers.
    pub budget_ms: f64,
    /// The test hook for a failing source: the node column whose generation panics.
    pub panic_column: Option<NodeColumn>,
    pub draw: Option<DrawSubmission>,
    /// `mode=filled|wireframe|filled-wireframe|lod|chunks|quad-size`: the render mode to start in.
    pub mode: RenderMode,
    /// `present=copy`: frames reach the canvas through a read-back and its 2D context
    /// (present.rs says when that is needed).
    pub present_copy: bool,
}

impl Params {
    pub fn from_url() -> Result<Self, String> {
        let search = web_sys::window().ok_or("no window")?.location().search().map_err(js_message)?;
        let query = UrlSearchParams::new_with_str(&search).map_err(js_message)?;
        let get = |name: &str| query.get(name);
        let number = |name: &str, default: f64, min: f64, max: f64| -> Result<f64, String> {
            match get(name) {
                None => Ok(default),
                Some(v) => match v.parse::<f64>() {
                    Ok(n) if n.is_finite() && (min..=max).contains(&n) => Ok(n),
                    _ => Err(format!("URL parameter {name}={v:?} is not a number in {min}..={max}")),
                },
            }
        };
        let vec3 = |name: &str| -> Result<Option<Vec3>, String> {
            let Some(v) = get(name) else { return Ok(None) };
            let parts: Vec<f32> = v.split(',').filter_map(|p| p.trim().parse().ok()).collect();
            match parts[..] {
                [x, y, z] if parts.iter().all(|p| p.is_finite() && p.abs() <= 1e7) => {
                    Ok(Some(Vec3::new(x, y, z)))
                }
                _ => Err(format!("URL parameter {name}={v:?} is not x,y,z")),
            }
        };
        let draw = match get("draw") {
            None => None,
            Some(name) => {
                Some(DrawSubmission::ALL.into_iter().find(|d| d.name() == name).ok_or_else(|| {
                    format!("URL parameter draw={name:?} is not count, capped or instanced")
                })?)
            }
        };
        Ok(Self {
            world: get("world").unwrap_or_else(|| "terrain".into()),
            seed: number("seed", 1.0, 0.0, u32::MAX as f64)? as u64,
            view_distance: match get("view") {
                None => None,
                Some(v) => Some(parse_view_distance(&v).map_err(|e| format!("URL parameter view: {e}"))?),
            },
            budget_mib: number("budget-mib", DEFAULT_GPU_BUDGET_MIB as f64, 16.0, (1 << 20) as f64)? as u32,
            lod: {
                let d = number("lod-distance", LodSettings::default().first_distance() as f64, 8.0, 1.0e6)?;
                LodSettings::default()
                    .with_first_distance(d as f32)
                    .map_err(|e| format!("URL parameter lod-distance: {e}"))?
            },
            camera: vec3("camera")?,
            target: vec3("target")?,
            workers: match get("workers") {
                None => None,
                Some(_) => Some(number("workers", 0.0, 0.0, MAX_WORKERS as f64)? as u32),
            },
            budget_ms: number("budget", 8.0, 0.0, 1000.0)?,
            panic_column: match get("panic-column") {
                None => None,
                Some(v) => {
                    let parts: Vec<i32> = v.split(',').filter_map(|p| p.trim().parse().ok()).collect();
                    match parts[..] {
                        [level, x, z] if (0..=MAX_NODE_LEVEL as i32).contains(&level) => {
                            Some(NodeColumn { level: level as u32, xz: glam::IVec2::new(x, z) })
                        }
                        _ => return Err(format!("URL parameter panic-column={v:?} is not level,x,z")),
                    }
                }
            },
            draw,
            mode: match get("mode") {
                None => RenderMode::Filled,
                Some(name) => RenderMode::ALL
                    .into_iter()
                    .find(|m| m.name() == name)
                    .ok_or_else(|| format!("URL parameter mode={name:?} is not a render mode"))?,
            },
            present_copy: match get("present").as_deref() {
                None | Some("canvas") => false,
                Some("copy") => true,
                Some(other) => return Err(format!("URL parameter present={other:?} is not canvas or copy")),
            },
        })
    }
}

/// What [`status`] reports.
#[derive(Default)]
pub struct Status {
    /// Frames presented.
    pub frames: u64,
    /// Milliseconds from navigation start to the first frame presented.
    pub first_frame_ms: Option<f64>,
    /// Frames and milliseconds (from navigation start) when the world was first complete:
    /// every wanted column resident and nothing left to mesh.
    pub settled: Option<(u64, f64)>,
    /// Milliseconds between animation frames, and from submission to the GPU's completion,
    /// for the frames after settling (at most `SAMPLES`).
    pub frame_ms: Vec<f64>,
    pub gpu_ms: Vec<f64>,
    /// The GPU frame from timestamp queries (first stage's start to last stage's end), for the
    /// frames after settling whose timings arrived, where the browser has timestamps.
    pub timestamp_ms: Vec<f64>,
    /// The CPU side of those frames, from the animation frame's start to submission: input,
    /// streaming, recording and encoding (wgpu's calls into WebGPU through JavaScript, one per
    /// draw call among them).
    pub cpu_ms: Vec<f64>,
    pub adapter: String,
    /// The view distance in chunks, as given or chosen for the adapter.
    pub view_distance: u32,
    pub draw_submission: String,
    /// The last frame's resident nodes, quads drawn and face jobs (GPU counts, a frame or two
    /// old), and the columns still to stream.
    pub resident: u32,
    pub quads: u64,
    pub face_jobs: u32,
    pub missing_columns: usize,
    /// Generation workers started (0: generation on the page's thread), replaced after a panic,
    /// and columns given up on after their last attempt (drawn as absent).
    pub workers: usize,
    pub workers_replaced: u32,
    pub failed_columns: usize,
    /// Lost devices replaced.
    pub recoveries: u32,
    /// What the viewer shows and holds, as of the last frame: the camera (`x, y, z, yaw,
    /// pitch`), whether the pointer is captured, the selected block's name, the render mode's
    /// name, whether the F3 overlay is on, the frame's size, the world's name, the last message
    /// and the last edit (`x, y, z, block id`).
    pub camera: [f32; 5],
    pub grabbed: bool,
    pub selected: String,
    pub mode: String,
    pub overlay: bool,
    pub size: (u32, u32),
    pub world: String,
    pub message: String,
    pub last_edit: Option<[i32; 4]>,
    /// The CPU side of each frame before the world settled (while streaming), at most
    /// `STREAMING_SAMPLES`.
    pub streaming_cpu_ms: Vec<f64>,
    /// The page's work on each generation answer between frames before the world settled
    /// (taking the column and inserting what the budgets allow), at most `STREAMING_SAMPLES`.
    pub between_frames_ms: Vec<f64>,
    /// WebGPU errors and panics, in order.
    pub errors: Vec<String>,
    /// GPU milliseconds per stage (timestamp queries: the top-level stages and the passes
    /// within them) summed over the frames before settling whose timings arrived, and how many
    /// frames that is: where the time to settle goes.
    pub streaming_stage_ms: BTreeMap<String, f64>,
    pub streaming_timed_frames: u64,
    /// The last timings summed, to add each frame's once (the renderer reports its latest until
    /// the next arrive): their GPU total and CPU times, which two frames never share exactly.
    last_timings: Option<[f64; 3]>,
}

impl Status {
    /// Adds `timings` to the streaming sums, unless they are the ones added last.
    pub fn add_streaming_timings(&mut self, timings: &FrameTimings) {
        let key = [timings.gpu_total_ms(), timings.cpu_record_ms, timings.cpu_submit_ms];
        if self.last_timings.replace(key) == Some(key) {
            return;
        }
        self.streaming_timed_frames += 1;
        for stage in timings.stages.iter().filter(|s| s.depth <= 1) {
            match self.streaming_stage_ms.get_mut(&stage.name) {
                Some(sum) => *sum += stage.duration_ms,
                None => {
                    self.streaming_stage_ms.insert(stage.name.clone(), stage.duration_ms);
                }
            }
        }
    }
}

/// Samples of frame and GPU time kept after settling.
pub const SAMPLES: usize = 240;
/// Samples of the page's CPU time per frame kept while streaming.
pub const STREAMING_SAMPLES: usize = 4096;

thread_local! {
    pub static STATUS: RefCell<Status> = RefCell::new(Status::default());
}

/// The viewer's state as JSON: `frames`, `first_frame_ms`, `settled_frame`, `settled_ms`,
/// `frame_ms`, `gpu_ms`, `timestamp_ms` and `cpu_ms` (medians after settling) and `samples`,
/// `streaming_cpu_ms` and `streaming_cpu_p95_ms` (the page's CPU time per frame before settling,
/// median and 95th percentile) and `streaming_frames`, `between_frames_ms`,
/// `between_frames_p95_ms` and `between_frames_max_ms` (the page's work on each generation
/// answer between frames before settling) and `between_frames_tasks`, the last frame's `resident`, `quads`,
/// `face_jobs` and `missing_columns`, `view_distance`, `workers`, `workers_replaced`, `failed_columns`, `recoveries`, `camera`, `grabbed`, `selected`, `mode`,
/// `overlay`, `size`, `world`, `message`, `last_edit`, `adapter`,
/// `draw_submission`, `errors`, and `streaming_stage_ms` (GPU milliseconds per stage summed
/// before settling) over `streaming_timed_frames` frames.
#[wasm_bindgen]
pub fn status() -> String {
    STATUS.with(|s| {
        let s = s.borrow();
        let quantile = |v: &[f64], q: f64| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v.get(((v.len() as f64 * q) as usize).min(v.len().saturating_sub(1))).copied()
        };
        let median = |v: &[f64]| quantile(v, 0.5);
        let num = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.3}"));
        let errors: Vec<String> = s.errors.iter().map(|e| json_string(e)).collect();
        format!(
            "{{\"frames\":{},\"first_frame_ms\":{},\"settled_frame\":{},\"settled_ms\":{},\"frame_ms\":{},\"gpu_ms\":{},\"timestamp_ms\":{},\"cpu_ms\":{},\"samples\":{},\"resident\":{},\"quads\":{},\"face_jobs\":{},\"missing_columns\":{},\"streaming_cpu_ms\":{},\"streaming_cpu_p95_ms\":{},\"streaming_frames\":{},\"between_frames_ms\":{},\"between_frames_p95_ms\":{},\"between_frames_max_ms\":{},\"between_frames_tasks\":{},\"view_distance\":{},\"workers\":{},\"workers_replaced\":{},\"failed_columns\":{},\"recoveries\":{},\"camera\":[{}],\"grabbed\":{},\"selected\":{},\"mode\":{},\"overlay\":{},\"size\":[{},{}],\"world\":{},\"message\":{},\"last_edit\":{},\"adapter\":{},\"draw_submission\":{},\"errors\":[{}],\"streaming_timed_frames\":{},\"streaming_stage_ms\":{{{}}}}}",
            s.frames,
            num(s.first_frame_ms),
            s.settled.map_or("null".into(), |(f, _)| f.to_string()),
            num(s.settled.map(|(_, ms)| ms)),
            num(median(&s.frame_ms)),
            num(median(&s.gpu_ms)),
            num(median(&s.timestamp_ms)),
            num(median(&s.cpu_ms)),
            s.gpu_ms.len(),
            s.resident,
            s.quads,
            s.face_jobs,
            s.missing_columns,
            num(median(&s.streaming_cpu_ms)),
            num(quantile(&s.streaming_cpu_ms, 0.95)),
            s.streaming_cpu_ms.len(),
            num(median(&s.between_frames_ms)),
            num(quantile(&s.between_frames_ms, 0.95)),
            num(s.between_frames_ms.iter().copied().reduce(f64::max)),
            s.between_frames_ms.len(),
            s.view_distance,
            s.workers,
            s.workers_replaced,
            s.failed_columns,
            s.recoveries,
            s.camera.map(|v| format!("{v}")).join(","),
            s.grabbed,
            json_string(&s.selected),
            json_string(&s.mode),
            s.overlay,
            s.size.0,
            s.size.1,
            json_string(&s.world),
            json_string(&s.message),
            s.last_edit.map_or("null".into(), |e| format!("[{},{},{},{}]", e[0], e[1], e[2], e[3])),
            json_string(&s.adapter),
            json_string(&s.draw_submission),
            errors.join(","),
            s.streaming_timed_frames,
            s.streaming_stage_ms.iter().map(|(k, v)| format!("{}:{v:.1}", json_string(k))).collect::<Vec<_>>().join(","),
        )
    })
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Records an error, logs it to the console and shows it on the page. The page keeps showing
/// the first: later ones are usually its consequences. Safe to call from the panic hook while
/// the status is borrowed (the error then goes to the console only).
pub fn fail(message: &str) {
    STATUS.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            s.errors.push(message.to_string());
        }
    });
    web_sys::console::error_1(&JsValue::from_str(message));
    if let Some(element) = element("error")
        && element.text_content().is_none_or(|t| t.is_empty())
    {
        element.set_text_content(Some(message));
        let _ = element.set_attribute("style", "display:block");
    }
}

/// The page's element with this id.
pub fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

/// Milliseconds since navigation start.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

pub fn js_message(value: JsValue) -> String {
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}
