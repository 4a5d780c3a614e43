// Starts a worker's WebAssembly. The page (boot.js) posts the worker wasm, compiled once for
// every worker, as the first message together with the name of its JavaScript glue (trunk builds
// it with wasm-bindgen's no-modules target, which defines `wasm_bindgen`; the build names both by
// their hashes). A file beside the page, so that workers start from 'self' and the
// Content-Security-Policy needs no blob: URLs. The Rust side then sets its own message handler
// and says Ready (crates/web/src/app/platform/worker.rs); the page holds its messages until then.
self.onmessage = function (event) {
  self.onmessage = null;
  importScripts(event.data.glue);
  // `wasm` (a path) only when the page could not compile the module: the worker fetches it itself.
  // A start that fails rejects a promise, which no event tells the page of: thrown again outside
  // it, it is the worker's error event, and the page says the worker stopped instead of waiting
  // for its answer for ever.
  wasm_bindgen({ module_or_path: event.data.module || event.data.wasm }).catch(function (error) {
    setTimeout(function () { throw error; });
  });
};
