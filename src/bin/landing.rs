//! Entry point of the first visit's own small wasm module (built by trunk for wasm32): the
//! landing strip, drawn before the app's module arrives (crates/web/src/app/sections/landing.rs).

#[cfg(target_arch = "wasm32")]
fn main() {
    hpo_playground::app::sections::landing::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("landing is the web app's first-visit module: serve the app with `bash scripts/serve.sh` (see README).");
    std::process::exit(2);
}
