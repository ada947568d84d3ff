//! The browser build under test: built for wasm32, served on 127.0.0.1, and opened in headless
//! Chromium driven over the DevTools protocol.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The wasm-bindgen CLI version the `wasm-bindgen` crate of `crates/voxgpu-web` is pinned to.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// Chromium's flags for WebGPU on SwiftShader, headless.
pub const CHROMIUM_FLAGS: [&str; 6] = [
    "--headless",
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--enable-features=Vulkan",
    "--use-webgpu-adapter=swiftshader",
    "--enable-unsafe-swiftshader",
];

fn root() -> PathBuf {
    crate::workspace_root()
}

/// Builds the web viewer (release, wasm32) and its JavaScript bindings, and lays out the site
/// (`web/index.html`, `web/worker.js` and `pkg/`) in `target/web/site`. Its own target directory keeps the build
/// clear of the lock of the `cargo test` that runs this.
pub fn build_site() -> PathBuf {
    let target = root().join("target/web");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "voxgpu-web",
            "--target",
            "wasm32-unknown-unknown",
            "--target-dir",
        ])
        .arg(&target)
        .current_dir(root())
        .status()
        .expect("running cargo");
    assert!(
        status.success(),
        "building crates/voxgpu-web for wasm32 failed (rustup target add wasm32-unknown-unknown)"
    );
    let version = Command::new("wasm-bindgen").arg("--version").output().unwrap_or_else(|e| {
        panic!(
            "wasm-bindgen not found ({e}): cargo install wasm-bindgen-cli --version {WASM_BINDGEN_VERSION}"
        )
    });
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    assert_eq!(
        version,
        format!("wasm-bindgen {WASM_BINDGEN_VERSION}"),
        "the wasm-bindgen CLI must match the crate: cargo install wasm-bindgen-cli --version {WASM_BINDGEN_VERSION}"
    );
    let site = target.join("site");
    std::fs::create_dir_all(&site).expect("create the site folder");
    for page in ["index.html", "worker.js"] {
        std::fs::copy(root().join("web").join(page), site.join(page)).expect("copy the site's pages");
    }
    let status = Command::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(site.join("pkg"))
        .arg(target.join("wasm32-unknown-unknown/release/voxgpu_web.wasm"))
        .status()
        .expect("running wasm-bindgen");
    assert!(status.success(), "wasm-bindgen failed");
    site
}

/// Serves `site` on 127.0.0.1 (a free port) from a thread; returns the base URL.
pub fn serve(site: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let site = site.clone();
            std::thread::spawn(move || respond(stream, &site));
        }
    });
    url
}

fn respond(mut stream: TcpStream, site: &Path) {
    let mut line = String::new();
    if BufReader::new(&stream).read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/");
    let path = if path == "/" { "/index.html" } else { path };
    let file = site.join(path.trim_start_matches('/'));
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html",
        Some("js") => "text/javascript",
        // instantiateStreaming needs it.
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    let inside = !path.contains("..");
    let response = match std::fs::read(&file) {
        Ok(body) if inside => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            [head.into_bytes(), body].concat()
        }
        // No favicon: an empty answer rather than a 404 the console would log as an error.
        _ if path == "/favicon.ico" => b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".to_vec(),
        _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    };
    let _ = stream.write_all(&response);
}

/// The Chromium binary: `VOXGPU_CHROMIUM`, or the first of the usual names on `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("VOXGPU_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let names = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| names.map(|n| dir.join(n))).find(|p| p.is_file())
}

/// Headless Chromium with a DevTools session on one page, stopped when dropped.
pub struct Browser {
    /// Held for its `Drop`, which stops Chromium and removes its profile.
    #[allow(dead_code, reason = "read by nothing: dropping it is its use")]
    process: Process,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    /// Console errors, uncaught exceptions and error log entries, in order.
    pub errors: Vec<String>,
    /// Every console message and log entry, for a failure's report.
    pub log: Vec<String>,
}

impl Browser {
    /// Starts `binary` with a `width × height` page at device pixel ratio 1.
    pub fn start(binary: &Path, width: u32, height: u32) -> Browser {
        static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let nth = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let profile = std::env::temp_dir().join(format!("voxgpu-chromium-{}-{nth}", std::process::id()));
        let child = Command::new(binary)
            // A process group of its own, so that dropping the browser stops its helpers too.
            .process_group(0)
            .args(CHROMIUM_FLAGS)
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        // Owned from here on, so that a failure below still stops it.
        let mut process = Process(child, profile);
        // Chromium prints the browser's DevTools endpoint on stderr; the rest is drained, so it
        // never blocks on a full pipe.
        let stderr = process.0.stderr.take().expect("piped");
        let (found, endpoint) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut stderr = BufReader::new(stderr);
            let mut line = String::new();
            while stderr.read_line(&mut line).is_ok_and(|n| n > 0) {
                if let Some(url) = line.trim().strip_prefix("DevTools listening on ") {
                    let _ = found.send(url.to_string());
                }
                line.clear();
            }
        });
        let endpoint = endpoint
            .recv_timeout(Duration::from_secs(60))
            .expect("Chromium printed no DevTools endpoint in 60 s");
        let (socket, _) = tungstenite::connect(endpoint.as_str()).expect("connect to DevTools");
        // A page or browser that stops answering fails the test instead of hanging it.
        if let tungstenite::stream::MaybeTlsStream::Plain(stream) = socket.get_ref() {
            stream.set_read_timeout(Some(Duration::from_secs(120))).expect("a read timeout");
        }
        let mut browser = Browser {
            process,
            socket,
            session: String::new(),
            next_id: 1,
            errors: Vec::new(),
            log: Vec::new(),
        };
        let target = browser.call_browser("Target.createTarget", json!({ "url": "about:blank" }));
        let target = target["targetId"].as_str().expect("a target id").to_string();
        let attached =
            browser.call_browser("Target.attachToTarget", json!({ "targetId": target, "flatten": true }));
        browser.session = attached["sessionId"].as_str().expect("a session id").to_string();
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            browser.call(domain, json!({}));
        }
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        browser
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// Calls `method` on the page's session and returns its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(session))
    }

    fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        self.socket.send(tungstenite::Message::text(message.to_string())).expect("send to DevTools");
        loop {
            let reply = self.socket.read().expect("read from DevTools");
            let tungstenite::Message::Text(text) = reply else { continue };
            let value: Value = serde_json::from_str(&text).expect("DevTools sends JSON");
            if value["id"] == json!(id) {
                if let Some(error) = value.get("error") {
                    panic!("DevTools {method}: {error}");
                }
                return value["result"].clone();
            }
            self.event(&value);
        }
    }

    /// Records the events that mean something went wrong on the page.
    fn event(&mut self, value: &Value) {
        let params = &value["params"];
        match value["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                self.log.push(format!("console.{}: {}", params["type"], params["args"]))
            }
            Some("Log.entryAdded") => {
                self.log.push(format!("log {}: {}", params["entry"]["level"], params["entry"]["text"]))
            }
            _ => {}
        }
        match value["method"].as_str() {
            Some("Runtime.exceptionThrown") => {
                let details = &params["exceptionDetails"];
                let text =
                    details["exception"]["description"].as_str().or(details["text"].as_str()).unwrap_or("?");
                self.errors.push(format!("uncaught exception: {text}"));
            }
            Some("Runtime.consoleAPICalled")
                if matches!(params["type"].as_str(), Some("error" | "assert")) =>
            {
                let args: Vec<String> = params["args"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|v| v["value"].as_str().map_or(v["description"].to_string(), str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                self.errors.push(format!("console.error: {}", args.join(" ")));
            }
            Some("Log.entryAdded") if params["entry"]["level"] == json!("error") => {
                self.errors.push(format!("log: {}", params["entry"]["text"].as_str().unwrap_or("?")));
            }
            _ => {}
        }
    }

    /// A key pressed (`down`) or let go, by its DOM `code` (`KeyW`, `Digit3`, `F1`), as the
    /// keyboard would send it.
    pub fn key(&mut self, code: &str, down: bool) {
        let (key, virtual_code) = key_names(code);
        self.call(
            "Input.dispatchKeyEvent",
            json!({
                "type": if down { "keyDown" } else { "keyUp" },
                "code": code,
                "key": key,
                "windowsVirtualKeyCode": virtual_code,
            }),
        );
    }

    /// A key pressed and let go.
    pub fn press(&mut self, code: &str) {
        self.key(code, true);
        self.key(code, false);
    }

    /// A click of `button` (`left`, `right`) at `(x, y)`.
    pub fn click(&mut self, x: f64, y: f64, button: &str) {
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": button, "clickCount": 1 }),
            );
        }
    }

    /// Downloads go to `dir` without asking.
    pub fn allow_downloads(&mut self, dir: &Path) {
        self.call_browser(
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allow", "downloadPath": dir.to_str().expect("a UTF-8 path") }),
        );
    }

    /// The viewport resized to `width` × `height` CSS pixels at device pixel ratio 1.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
    }

    /// Gives the file at `path` to the `<input type="file">` matching `selector`, as the file
    /// picker would (the page sees its `change` event).
    pub fn choose_file(&mut self, selector: &str, path: &Path) {
        let root = self.call("DOM.getDocument", json!({}))["root"]["nodeId"].clone();
        let node =
            self.call("DOM.querySelector", json!({ "nodeId": root, "selector": selector }))["nodeId"].clone();
        self.call(
            "DOM.setFileInputFiles",
            json!({ "nodeId": node, "files": [path.to_str().expect("a UTF-8 path")] }),
        );
    }

    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// Evaluates `expression` in the page and returns its value.
    pub fn evaluate(&mut self, expression: &str) -> Value {
        let result =
            self.call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true }));
        result["result"]["value"].clone()
    }

    /// Evaluates `expression` every half second until `done` accepts its value; after
    /// `timeout`, fails with the last value.
    pub fn wait_for(
        &mut self,
        expression: &str,
        timeout: Duration,
        done: impl Fn(&Value) -> bool,
    ) -> Result<Value, String> {
        let began = Instant::now();
        loop {
            let value = self.evaluate(expression);
            if done(&value) {
                return Ok(value);
            }
            if began.elapsed() >= timeout {
                return Err(format!(
                    "the page did not get there in {timeout:?}; last: {value}; errors: {:?}",
                    self.errors
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The page as drawn, PNG-decoded.
    pub fn screenshot(&mut self) -> image::RgbaImage {
        use base64::Engine;
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("screenshot data"))
            .expect("base64 from DevTools");
        image::load_from_memory(&bytes).expect("a PNG").to_rgba8()
    }
}

/// Chromium's process group and profile folder: the group (the browser and its helper
/// processes) is killed when dropped, then the folder removed.
struct Process(Child, PathBuf);

impl Drop for Process {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

/// The `key` and Windows virtual key code DevTools wants with a DOM key `code`.
fn key_names(code: &str) -> (String, u32) {
    if let Some(letter) = code.strip_prefix("Key") {
        let c = letter.chars().next().expect("a letter");
        return (c.to_ascii_lowercase().to_string(), c as u32);
    }
    if let Some(digit) = code.strip_prefix("Digit") {
        let c = digit.chars().next().expect("a digit");
        return (c.to_string(), c as u32);
    }
    if let Some(n) = code.strip_prefix('F').and_then(|n| n.parse::<u32>().ok()) {
        return (code.to_string(), 111 + n);
    }
    match code {
        "Space" => (" ".into(), 32),
        "ShiftLeft" => ("Shift".into(), 16),
        "ControlLeft" => ("Control".into(), 17),
        "Escape" => ("Escape".into(), 27),
        other => panic!("no key names for {other}"),
    }
}
