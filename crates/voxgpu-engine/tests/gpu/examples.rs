//! The engine's examples, run as tests: the headless example's picture matches its reference on
//! every adapter, and the custom-source example streams its own world around a moving camera
//! into a complete picture. One reference per backend, as the golden scenes keep them
//! (`golden.rs` says why). (`cargo test` builds every example; the winit one needs a window and
//! is only built.)

use voxgpu_test_kit as kit;

#[allow(dead_code)]
#[path = "../../examples/headless/main.rs"]
mod headless;

#[allow(dead_code)]
#[path = "../../examples/custom_source/main.rs"]
mod custom_source;

#[test]
fn the_headless_example_draws_its_world() {
    let mut failures = Vec::new();
    for gpu in kit::gpu_contexts().iter() {
        let picture = kit::to_image(headless::render(gpu, 320, 180).expect("the example renders"));
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        if let Err(failure) = kit::compare_golden(
            &crate::golden_dir(),
            &format!("example_headless-{backend}"),
            &format!("example_headless-{backend}"),
            &picture,
            true,
        ) {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_custom_source_example_streams_its_world_around_the_camera() {
    let mut failures = Vec::new();
    for gpu in kit::gpu_contexts().iter() {
        let picture = kit::to_image(custom_source::fly(gpu, 320, 180, 40, 8.0).expect("the example flies"));
        let backend = format!("{:?}", gpu.summary.backend).to_lowercase();
        if let Err(failure) = kit::compare_golden(
            &crate::golden_dir(),
            &format!("example_custom_source-{backend}"),
            &format!("example_custom_source-{backend}"),
            &picture,
            true,
        ) {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
