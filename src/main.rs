//! Entry point of the web app (built by trunk for wasm32).

#[cfg(target_arch = "wasm32")]
fn main() {
    hpo_playground::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hpo-playground is a web app: serve it with `bash scripts/serve.sh` (see README); the native CLI is `cargo run --release --bin hpo -- --help`.");
    std::process::exit(2);
}
