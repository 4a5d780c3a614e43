// Runs before the app: a message instead of a blank page where WebAssembly SIMD is missing, the
// worker wasm fetched and compiled once for every Web Worker, and offline use once loaded
// (sw.js). A file, not inline script, so that the page's Content-Security-Policy can forbid
// inline script.
(function () {
  // The app is built with WebAssembly SIMD (Chrome/Edge 91+, Firefox 89+, Safari 16.4+). The
  // bytes are the smallest module using a SIMD instruction: () -> v128 { i8x16.popcnt(splat 0) }.
  var simd = new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,123,3,2,1,0,10,10,1,8,0,65,0,253,15,253,98,11]);
  var ok = typeof WebAssembly === 'object' && WebAssembly.validate(simd);
  if (!ok) {
    var show = function () {
      var loading = document.getElementById('loading');
      if (loading) loading.remove();
      var p = document.createElement('p');
      p.id = 'unsupported-browser';
      p.textContent = 'hpo-playground needs a browser with WebAssembly SIMD: Chrome or Edge 91+, Firefox 89+ or Safari 16.4+. Please update your browser.';
      document.body.appendChild(p);
    };
    if (document.body) show(); else document.addEventListener('DOMContentLoaded', show);
    return;
  }

  // The worker's files, named by their hashes at build time (scripts/hash-names.mjs writes them
  // into index.html); the plain names when the page was built without that step.
  var workerFiles = { loader: 'worker-loader.js', glue: 'worker.js', wasm: 'worker_bg.wasm' };
  var meta = document.querySelector('meta[name="worker-files"]');
  if (meta) meta.content.split(' ').forEach(function (pair) { var kv = pair.split('='); workerFiles[kv[0]] = kv[1]; });
  Object.keys(workerFiles).forEach(function (k) { workerFiles[k] = new URL(workerFiles[k], document.baseURI).href; });

  // Every worker the page starts (a lesson's, the parser, the run's pool) runs the same 1.7 MB
  // module: it is fetched and compiled once, now, beside the main wasm, and posted to each
  // worker (a WebAssembly.Module can be posted; the worker only instantiates it).
  var workerModule = fetch(workerFiles.wasm).then(function (response) {
    if (!response.ok) throw new Error('HTTP ' + response.status);
    // compileStreaming needs the application/wasm type; a host that sends another gets the
    // same bytes compiled from memory.
    var copy = response.clone();
    return WebAssembly.compileStreaming(response).catch(function () {
      return copy.arrayBuffer().then(function (bytes) { return WebAssembly.compile(bytes); });
    });
  });
  // Called by the app (crates/web/src/app/worker_host.rs) for each worker it starts.
  window.hpoStartWorker = function (name) {
    var worker = new Worker(workerFiles.loader, { name: name });
    workerModule.then(function (module) {
      worker.postMessage({ module: module, glue: workerFiles.glue });
    }, function () {
      // Not compiled here (a failed fetch): the worker tries the file itself and reports its error.
      worker.postMessage({ glue: workerFiles.glue, wasm: workerFiles.wasm });
    });
    return worker;
  };

  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  window.addEventListener('load', function () {
    navigator.serviceWorker.register('sw.js').then(function () { return navigator.serviceWorker.ready; }).then(function (reg) {
      // Everything fetched before the service worker took over (the first visit's page, wasm,
      // scripts and data): the worker keeps a copy of each, taken from the browser's HTTP
      // cache (sw.js), so nothing moves twice.
      // The page's own resource list misses what its Web Workers fetched, so their files are
      // named here (without them every lesson and run fails offline once the page reopens).
      // And the files the page names: a preloaded resource (the main wasm) can be missing from
      // the resource list when this runs (seen in about one visit in five).
      var named = Array.prototype.map.call(document.querySelectorAll('link[href], script[src]'), function (e) { return e.href || e.src; });
      var urls = [location.origin + location.pathname, workerFiles.loader, workerFiles.glue, workerFiles.wasm].concat(named, performance.getEntriesByType('resource').map(function (e) { return e.name; }));
      navigator.serviceWorker.addEventListener('message', function (event) {
        if (event.data && event.data.type === 'kept') { document.documentElement.dataset.offlineKept = event.data.count + ' of ' + event.data.of; document.documentElement.dataset.offline = 'ready'; }
      });
      reg.active.postMessage({ type: 'keep', urls: urls });
    }).catch(function () { /* offline use is a bonus: the page works without it */ });
  });
})();
