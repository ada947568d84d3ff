//! One case's harness: its renderer and device, each call applied to the renderer and to the
//! model with the results compared, and the tally of what the passing cases exercised.

use std::rc::Rc;
use std::sync::Arc;

use glam::{IVec2, IVec3};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use voxgpu_core::voxel::{ChunkPos, NodeColumn, NodeKey, raycast};
use voxgpu_engine::{GpuContext, GpuError, Offscreen, Targets};
use voxgpu_test_kit::WgpuErrors;

use super::model::{Model, Refusal, check_camera_rule};
use super::ops::{After, Drive, Op, TOP};
use super::{fail, refusal};

/// One case's renderer, its device and the depth target of frames recorded by hand.
pub(super) struct Harness {
    /// The run's device until a recovery onto a new one gives the case a device of its own.
    pub(super) gpu: Rc<GpuContext>,
    pub(super) errors: WgpuErrors,
    pub(super) r: Offscreen,
    pub(super) depth: wgpu::TextureView,
    pub(super) tally: Tally,
}

/// What the passing cases exercised, so a run shows it tested something: frames drawn and
/// refused for each reason, refused sizes, picks that hit, nodes whose quads were compared.
#[derive(Default)]
pub(super) struct Tally {
    frames: std::cell::Cell<u64>,
    refused: std::cell::Cell<[u64; 3]>,
    sizes_refused: std::cell::Cell<u64>,
    hits: std::cell::Cell<u64>,
    recoveries: std::cell::Cell<u64>,
    pub(super) meshes: std::cell::Cell<u64>,
}

impl Tally {
    fn frame(&self, outcome: Result<(), Refusal>) {
        match outcome {
            Ok(()) => self.frames.set(self.frames.get() + 1),
            Err(r) => {
                let mut refused = self.refused.get();
                refused[r as usize] += 1;
                self.refused.set(refused);
            }
        }
    }

    pub(super) fn bump(cell: &std::cell::Cell<u64>) {
        cell.set(cell.get() + 1);
    }

    pub(super) fn add(&self, other: &Tally) {
        let sum = |a: &std::cell::Cell<u64>, b: &std::cell::Cell<u64>| a.set(a.get() + b.get());
        sum(&self.frames, &other.frames);
        let (mut a, b) = (self.refused.get(), other.refused.get());
        (0..3).for_each(|i| a[i] += b[i]);
        self.refused.set(a);
        sum(&self.sizes_refused, &other.sizes_refused);
        sum(&self.hits, &other.hits);
        sum(&self.recoveries, &other.recoveries);
        sum(&self.meshes, &other.meshes);
    }

    pub(super) fn all(&self) -> [u64; 8] {
        let r = self.refused.get();
        [
            self.frames.get(),
            r[0],
            r[1],
            r[2],
            self.sizes_refused.get(),
            self.hits.get(),
            self.recoveries.get(),
            self.meshes.get(),
        ]
    }
}

/// A depth target of the renderer's frame size.
pub(super) fn depth_target(r: &Offscreen) -> wgpu::TextureView {
    let (width, height) = r.options().size();
    voxgpu_engine::depth_target(r.inspect().device(), width, height)
}

impl Harness {
    /// Fails the case with `what` if a wgpu error was reported since the last check.
    pub(super) fn no_wgpu_error(&self, what: &dyn std::fmt::Debug) -> Result<(), TestCaseError> {
        let errors = self.errors.take();
        prop_assert!(errors.is_empty(), "wgpu error after {what:?}: {errors:?}");
        Ok(())
    }

    fn record_by_hand(
        &mut self,
        clear: bool,
    ) -> (Result<voxgpu_engine::FrameStats, GpuError>, wgpu::CommandEncoder) {
        let color = self.r.color_view();
        let mut encoder = self.r.inspect().device().create_command_encoder(&Default::default());
        let stats = self.r.record(&mut encoder, &Targets { color: &color, depth: &self.depth, clear });
        (stats, encoder)
    }

    pub(super) fn apply(&mut self, model: &mut Model, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::InsertChunk { pos, fill } => {
                let chunk = fill.chunk();
                let key = NodeKey::chunk(ChunkPos(IVec3::from(pos)));
                self.r
                    .insert_chunk(key.as_chunk().expect("level 0"), Arc::new(chunk.clone()))
                    .map_err(fail)?;
                model.insert(key, chunk);
            }
            Op::InsertNode { level, pos, fill } => {
                let chunk = fill.chunk();
                let key = NodeKey::new(level, IVec3::from(pos));
                self.r.insert_node(key, Arc::new(chunk.clone())).map_err(fail)?;
                model.insert(key, chunk);
            }
            Op::RemoveChunk { pos } => {
                let pos = ChunkPos(IVec3::from(pos));
                self.r.remove_chunk(pos);
                model.nodes.remove(&NodeKey::chunk(pos));
            }
            Op::SetBlock { at, block } => {
                self.r.set_block(IVec3::from(at), block).map_err(fail)?;
                model.set_block(IVec3::from(at), block);
            }
            Op::ColumnReady { level, xz, ready } => {
                let column = NodeColumn::new(level, IVec2::from(xz));
                self.r.set_column_ready(column, ready);
                model.column_ready(column, ready);
            }
            Op::Frame { camera, drive } => {
                check_camera_rule(model, &camera)?;
                let c = camera.camera();
                match drive {
                    Drive::Render => {
                        let expected = model.frame(&c);
                        prop_assert_eq!(refusal(self.r.render(&c))?, expected, "{:?}", op);
                        self.tally.frame(expected);
                    }
                    Drive::ByHand { clear, after } => {
                        let expected = model.prepare(&c);
                        prop_assert_eq!(refusal(self.r.prepare(&c))?, expected, "prepare in {:?}", op);
                        let expected = model.record();
                        let (stats, encoder) = self.record_by_hand(clear);
                        prop_assert_eq!(refusal(stats)?, expected, "record in {:?}", op);
                        self.tally.frame(expected);
                        if expected.is_ok() {
                            match after {
                                After::Confirm => {
                                    self.r.inspect().queue().submit([encoder.finish()]);
                                    self.r.frame_submitted();
                                    model.confirmed += 1;
                                }
                                After::Submit => {
                                    self.r.inspect().queue().submit([encoder.finish()]);
                                    model.unconfirmed = true;
                                }
                                After::Drop => {
                                    drop(encoder);
                                    model.unconfirmed = true;
                                }
                            }
                        }
                    }
                    Drive::PrepareOnly => {
                        let expected = model.prepare(&c);
                        prop_assert_eq!(refusal(self.r.prepare(&c))?, expected, "{:?}", op);
                    }
                    Drive::RecordOnly => {
                        let expected = model.record();
                        let (stats, encoder) = self.record_by_hand(true);
                        prop_assert_eq!(refusal(stats)?, expected, "{:?}", op);
                        if expected.is_ok() {
                            self.r.inspect().queue().submit([encoder.finish()]);
                            self.r.frame_submitted();
                            model.confirmed += 1;
                        }
                    }
                }
            }
            Op::Pick { camera, max_distance } => {
                let c = camera.camera();
                let hit = self.r.pick(&c, max_distance);
                if !model.camera_accepted(&c) {
                    prop_assert_eq!(hit, None, "a camera prepare refuses picks nothing: {:?}", op);
                } else {
                    if c.eye.abs().max_element() > 1.0e6 {
                        prop_assert_eq!(hit, None, "nothing is in reach of a far camera: {:?}", op);
                    }
                    let expected = raycast(c.eye, c.forward(), max_distance, |p| model.block(p));
                    prop_assert_eq!(hit, expected, "{:?}", op);
                    if hit.is_some() {
                        Tally::bump(&self.tally.hits);
                    }
                }
            }
            Op::Settle { camera } => {
                check_camera_rule(model, &camera)?;
                let c = camera.camera();
                let expected = model.frame(&c);
                prop_assert_eq!(refusal(self.r.settle(&c))?, expected, "{:?}", op);
                self.tally.frame(expected);
            }
            Op::Resize { width, height } => {
                let allowed = model.size_allowed(width, height);
                match self.r.resize(width, height) {
                    Ok(()) => prop_assert!(allowed, "{op:?} was taken"),
                    Err(GpuError::TargetSize { .. }) => prop_assert!(!allowed, "{op:?} was refused"),
                    Err(e) => prop_assert!(false, "{op:?}: {e}"),
                }
                if allowed {
                    model.size = (width, height);
                } else {
                    Tally::bump(&self.tally.sizes_refused);
                }
                prop_assert_eq!(self.r.options().size(), model.size);
                self.depth = depth_target(&self.r);
            }
            Op::Recover { new_device } => {
                if new_device {
                    let gpu = GpuContext::from_adapter(self.gpu.adapter.clone()).map_err(fail)?;
                    self.errors.watch(&gpu.device);
                    self.gpu = Rc::new(gpu);
                }
                self.r.recover(&self.gpu).map_err(fail)?;
                Tally::bump(&self.tally.recoveries);
                self.depth = depth_target(&self.r);
                model.prepared = false;
                model.unconfirmed = false;
            }
        }
        self.no_wgpu_error(op)?;
        // The renderer's CPU side after every call: the same nodes per level as the model.
        let mut per_level = vec![0u32; self.r.resident().nodes_per_level().len().max(TOP as usize + 1)];
        for key in model.nodes.keys() {
            per_level[key.level as usize] += 1;
        }
        let mut held = self.r.resident().nodes_per_level();
        held.resize(per_level.len(), 0);
        prop_assert_eq!(held, per_level, "nodes per level after {:?}", op);
        Ok(())
    }
}
