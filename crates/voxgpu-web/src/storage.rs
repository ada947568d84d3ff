//! Edits kept in the origin's storage: every chunk an edit changed, whole, in IndexedDB under
//! its world's key (`terrain:1`), written in one transaction per frame with edits and read back
//! when the page opens the same world again.
//!
//! Database `voxgpu`, object store `chunks`; a key is `{world}|{x},{y},{z}` (the chunk's
//! position), a value the chunk as `voxgpu_worlds::stream::wire` bytes (an all-air chunk: the
//! edits emptied it). Chunks rather than single blocks, so a restored chunk is exactly the one
//! that was edited, as the desktop's world store keeps them. A write that cannot start, or a
//! transaction that aborts (the origin's quota), is said on the page in one line; the edits stay
//! in the page.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbKeyRange, IdbRequest, IdbTransactionMode};

use crate::page::js_message;
use voxgpu_core::voxel::{Chunk, ChunkPos, NodeKey};
use voxgpu_worlds::stream::wire::{decode_nodes, encode_column};

const DATABASE: &str = "voxgpu";
const CHUNKS: &str = "chunks";

/// The page's edit store for one world.
pub struct EditStore {
    db: IdbDatabase,
    world: String,
    /// Every transaction's abort handler: notes why, for [`Self::take_failure`].
    on_abort: Closure<dyn FnMut(web_sys::Event)>,
    failure: Rc<RefCell<Option<String>>>,
}

impl EditStore {
    /// Opens the store for `world` and reads back every chunk kept for it.
    pub async fn open(world: &str) -> Result<(Self, Vec<(ChunkPos, Chunk)>), String> {
        let factory = web_sys::window()
            .and_then(|w| w.indexed_db().ok().flatten())
            .ok_or("this browser keeps no IndexedDB for the page")?;
        let opening = factory.open_with_u32(DATABASE, 1).map_err(js_message)?;
        let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new({
            let opening = opening.clone();
            move |_| {
                if let Ok(db) = opening.result().and_then(|r| r.dyn_into::<IdbDatabase>())
                    && !db.object_store_names().contains(CHUNKS)
                {
                    let _ = db.create_object_store(CHUNKS);
                }
            }
        });
        opening.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
        let db: IdbDatabase = done(&opening).await?.dyn_into().map_err(|_| "not a database")?;
        drop(upgrade);
        let failure: Rc<RefCell<Option<String>>> = Rc::default();
        let noted = Rc::clone(&failure);
        let on_abort = Closure::new(move |event: web_sys::Event| {
            let reason = event
                .target()
                .and_then(|t| t.dyn_into::<web_sys::IdbTransaction>().ok())
                .and_then(|t| t.error())
                .map_or("the transaction was aborted".to_string(), |e| e.message());
            *noted.borrow_mut() = Some(format!("the edits could not be kept: {reason}"));
        });
        let store = Self { db, world: world.to_string(), on_abort, failure };
        let chunks = store.read().await?;
        Ok((store, chunks))
    }

    async fn read(&self) -> Result<Vec<(ChunkPos, Chunk)>, String> {
        let range =
            IdbKeyRange::bound(&format!("{}|", self.world).into(), &format!("{}|~", self.world).into())
                .map_err(js_message)?;
        let transaction = self.db.transaction_with_str(CHUNKS).map_err(js_message)?;
        let chunks = transaction.object_store(CHUNKS).map_err(js_message)?;
        let values = chunks.get_all_with_key(&range).map_err(js_message)?;
        let values: js_sys::Array = done(&values).await?.dyn_into().map_err(|_| "not a list")?;
        let mut out = Vec::new();
        for value in values.iter() {
            let bytes = js_sys::Uint8Array::new(&value).to_vec();
            let nodes = decode_nodes(&bytes).map_err(|e| format!("a kept chunk of {}: {e}", self.world))?;
            out.extend(nodes.into_iter().filter_map(|(key, chunk)| key.as_chunk().map(|pos| (pos, chunk))));
        }
        Ok(out)
    }

    /// Writes `chunks` (the chunks this frame's edits changed, as they are now) in one
    /// transaction, and returns at once; `Err` where it could not start. A transaction that
    /// aborts later (the origin's quota, say) is reported by [`Self::take_failure`].
    pub fn write(&self, chunks: &[(ChunkPos, Arc<Chunk>)]) -> Result<(), String> {
        let started = (|| -> Result<(), JsValue> {
            let transaction = self.db.transaction_with_str_and_mode(CHUNKS, IdbTransactionMode::Readwrite)?;
            transaction.set_onabort(Some(self.on_abort.as_ref().unchecked_ref()));
            let store = transaction.object_store(CHUNKS)?;
            for (pos, chunk) in chunks {
                let bytes = encode_column(&[(NodeKey::chunk(*pos), (**chunk).clone())]);
                let key = format!("{}|{},{},{}", self.world, pos.0.x, pos.0.y, pos.0.z);
                store.put_with_key(&js_sys::Uint8Array::from(&bytes[..]).buffer(), &key.into())?;
            }
            Ok(())
        })();
        started.map_err(|e| format!("the edits could not be kept: {}", js_message(e)))
    }

    /// Why the last transaction that aborted did, once, as one line.
    pub fn take_failure(&self) -> Option<String> {
        self.failure.borrow_mut().take()
    }
}

/// Waits for `request` and returns its result.
async fn done(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise).await.map_err(|_| {
        request.error().ok().flatten().map_or("a storage request failed".to_string(), |e| e.message())
    })?;
    request.result().map_err(js_message)
}
