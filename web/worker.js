// A terrain generation worker for the viewer (crates/voxgpu-web/src/workers.rs): its own instance
// of the viewer's wasm module, from the module the page compiled. Each job message names a
// column; the answer carries the column's nodes as one transferred buffer, or the error. After a
// panic or another trap the answer says `lost`, and the page replaces this worker.
import init, { init_worker, generate_column, worker_panic } from "./pkg/voxgpu_web.js";

let ready = null;
onmessage = async ({ data }) => {
  if (data.module) {
    ready = init({ module_or_path: data.module }).then(init_worker);
    return;
  }
  const { token, seed, level, x, z, edited, panic } = data;
  try {
    await ready;
  } catch (e) {
    postMessage({ token, error: `the module did not load: ${e}`, startup: true });
    return;
  }
  try {
    const bytes = generate_column(seed, level, x, z, edited, panic);
    postMessage({ token, bytes: bytes.buffer }, [bytes.buffer]);
  } catch (e) {
    // A trap (a panic aborts) leaves this instance unusable: the page replaces the worker.
    const panicked = worker_panic();
    const lost = panicked !== undefined || e instanceof WebAssembly.RuntimeError;
    postMessage({ token, error: panicked ?? String(e), lost });
  }
};
