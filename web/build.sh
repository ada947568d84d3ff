#!/usr/bin/env bash
# Builds the browser viewer into web/pkg: the wasm32 build of crates/voxgpu-web and its
# JavaScript bindings. Installs the wasm32 target and the wasm-bindgen CLI pinned to the
# crate's version when they are missing. Serve web/ afterwards, for example with
#   python3 -m http.server 8080 -d web
# and open http://127.0.0.1:8080 in a browser with WebGPU.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.2.130
rustup target add wasm32-unknown-unknown >/dev/null
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
  cargo install wasm-bindgen-cli --version "$version"
fi
cargo build --release -p voxgpu-web --target wasm32-unknown-unknown --target-dir target/web
wasm-bindgen --target web --no-typescript --out-dir web/pkg \
  target/web/wasm32-unknown-unknown/release/voxgpu_web.wasm
echo "built web/pkg ($(stat -c %s web/pkg/voxgpu_web_bg.wasm) bytes of wasm); serve web/ and open index.html"
