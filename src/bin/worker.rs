//! The Web Worker binary: runs engine jobs off the main thread.

#[cfg(target_arch = "wasm32")]
fn main() {
    hpo_playground::app::platform::worker::register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the worker is a wasm binary loaded by the web app");
    std::process::exit(2);
}
