//! What the page keeps: the chunks edits changed (in the page's storage, and in what generation
//! applies), and the model being edited as a `.vox` download (F5).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use wasm_bindgen::JsCast;

use super::App;
use crate::page::{self, STATUS};
use crate::storage::EditStore;
use voxgpu_core::voxel::{Chunk, ChunkPos};

/// Every chunk edited in a world, by position, as it is now: read by generation (workers and
/// the page's own) to put edits into what it generates.
pub type EditedChunks = Arc<RwLock<HashMap<ChunkPos, Arc<Chunk>>>>;

impl App {
    /// Keeps the chunks edited since the last frame: in the edits generation applies, and in
    /// the page's storage, in one transaction. A write that failed is said on the page.
    pub(super) fn keep_edits(&mut self) {
        if let Some(failed) = self.store.as_ref().and_then(EditStore::take_failure) {
            self.message = failed;
        }
        if self.unsaved.is_empty() {
            return;
        }
        let chunks: Vec<(ChunkPos, Arc<Chunk>)> = std::mem::take(&mut self.unsaved).into_iter().collect();
        self.edited.write().unwrap_or_else(|e| e.into_inner()).extend(chunks.iter().cloned());
        if let Some(Err(e)) = self.store.as_ref().map(|store| store.write(&chunks)) {
            self.message = e;
        }
    }

    /// F5: the model being edited downloaded as a `.vox` file (the play layer's export, as the
    /// desktop viewer writes it).
    pub(super) fn export(&mut self) {
        let terrain = self.streamer.is_some();
        match self.play.export_model(self.renderer.resident(), &self.registry, terrain) {
            Ok((bytes, exported)) => {
                let frame = STATUS.with(|s| s.borrow().frames);
                let name = format!("voxgpu-{frame}.vox");
                match download(&name, &bytes) {
                    Ok(()) => {
                        self.message = format!(
                            "exported {} voxels in {} colours to {name}",
                            exported.voxels, exported.colours
                        )
                    }
                    Err(e) => self.message = format!("cannot download {name}: {e}"),
                }
            }
            Err(e) => self.message = e.to_string(),
        }
    }
}

/// Offers `bytes` as a download named `name`.
fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(page::js_message)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(page::js_message)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement =
        document.create_element("a").map_err(page::js_message)?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url).map_err(page::js_message)
}
