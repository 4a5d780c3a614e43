// Starts a worker's WebAssembly (trunk builds worker.js with wasm-bindgen's no-modules
// target, which defines `wasm_bindgen`). A file beside the page, so that workers start from
// 'self' and the Content-Security-Policy needs no blob: URLs. The Rust side then sets its
// message handler and says Ready (crates/web/src/app/worker.rs); the page holds messages until then.
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' });
