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

  // The build's files, named by their hashes at build time (scripts/hash-names.mjs writes them
  // into index.html); the plain names trunk gives them when the page was built without that step.
  var files = {
    'app-glue': 'hpo-playground.js', 'app-wasm': 'hpo-playground_bg.wasm',
    'landing-glue': 'landing.js', 'landing-wasm': 'landing_bg.wasm',
    'worker-loader': 'worker-loader.js', 'worker-glue': 'worker.js', 'worker-wasm': 'worker_bg.wasm'
  };
  var meta = document.querySelector('meta[name="build-files"]');
  if (meta) meta.content.split(' ').forEach(function (pair) { var kv = pair.split('='); files[kv[0]] = kv[1]; });
  Object.keys(files).forEach(function (k) { files[k] = new URL(files[k], document.baseURI).href; });

  // Every worker the page starts (a lesson's, the parser, the run's pool) runs the same 1.7 MB
  // module: it is fetched and compiled once, now, beside the main wasm, and posted to each
  // worker (a WebAssembly.Module can be posted; the worker only instantiates it).
  var workerModule = fetch(files['worker-wasm']).then(function (response) {
    if (!response.ok) throw new Error('HTTP ' + response.status);
    // compileStreaming needs the application/wasm type; a host that sends another gets the
    // same bytes compiled from memory.
    var copy = response.clone();
    return WebAssembly.compileStreaming(response).catch(function () {
      return copy.arrayBuffer().then(function (bytes) { return WebAssembly.compile(bytes); });
    });
  });
  // Called by the app (crates/web/src/app/platform/worker_host.rs) for each worker it starts.
  window.hpoStartWorker = function (name) {
    var worker = new Worker(files['worker-loader'], { name: name });
    workerModule.then(function (module) {
      worker.postMessage({ module: module, glue: files['worker-glue'] });
    }, function () {
      // Not compiled here (a failed fetch): the worker tries the file itself and reports its error.
      worker.postMessage({ glue: files['worker-glue'], wasm: files['worker-wasm'] });
    });
    return worker;
  };

  // The page's two wasm modules. A link (a lesson, an experiment) starts the app's. A first visit
  // (no query) starts the landing's, a sixth of the app's size, which draws the header and the
  // strip with lesson 1 playing, then the app's, which fills in the experiment below the strip
  // (crates/web/src/app/sections/landing.rs): the strip's chart does not wait for the whole app.
  // The glue and the wasm are fetched at once, side by side (this script runs from the head,
  // before the page is parsed, painted and styled); the module mounts once the body is there.
  var parsed = new Promise(function (resolve) {
    if (document.readyState !== 'loading') resolve(); else document.addEventListener('DOMContentLoaded', resolve);
  });
  function startModule(glue, wasm) {
    var bytes = fetch(wasm);
    return Promise.all([import(glue), parsed]).then(function (loaded) { return loaded[0].default({ module_or_path: bytes }); });
  }
  function failed(error) {
    var line = document.getElementById('loading') || document.getElementById('experiment-slot');
    if (line) line.textContent = 'The playground could not load (' + error + '). Check the connection and reload the page.';
    throw error;
  }
  var app = null;
  var startApp = function () {
    if (!app) app = startModule(files['app-glue'], files['app-wasm']).then(function () { dispatchEvent(new Event('hpo-app-started')); }, failed);
    return app;
  };
  if (location.search.length > 1) {
    startApp();
  } else {
    startModule(files['landing-glue'], files['landing-wasm']).then(function () {
      dispatchEvent(new Event('hpo-landing-started'));
      // The app's module once the strip's chart is drawn (so that the two do not share the
      // network before it), or after 4 s whatever the chart does.
      var started = false;
      var observer = new MutationObserver(function () { if (document.querySelector('#landing-preview circle')) go(); });
      var go = function () { if (started) return; started = true; observer.disconnect(); startApp(); };
      observer.observe(document.body, { childList: true, subtree: true });
      setTimeout(go, 4000);
      // "Explore my data" before the experiment is there: start it, then go to its data panel.
      document.addEventListener('click', function (event) {
        if (!event.target.closest || !event.target.closest('#landing-explore')) return;
        go();
        startApp().then(function () { var panel = document.getElementById('data-panel'); if (panel) panel.scrollIntoView(); });
      });
    }, function () {
      // Without the landing's module, the whole app (the experiment without the strip).
      var slot = document.getElementById('experiment-slot');
      if (slot) slot.remove();
      startApp();
    });
  }

  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  // Once the app's module has started (on a first visit, after the landing's and its chart):
  // until then the network belongs to the page.
  addEventListener('hpo-app-started', function () {
    navigator.serviceWorker.register('sw.js').then(function () { return navigator.serviceWorker.ready; }).then(function (reg) {
      // Everything fetched before the service worker took over (the first visit's page, wasm,
      // scripts and data): the worker keeps a copy of each, taken from the browser's HTTP
      // cache (sw.js), so nothing moves twice.
      // The page's own resource list misses what its Web Workers fetched, so every file of the
      // build is named here: the workers' (without them every lesson and run fails offline once
      // the page reopens) and the landing's, which a visit by a link did not load (taken from
      // the network then: 150 kB, after the app has started).
      var named = Array.prototype.map.call(document.querySelectorAll('link[href], script[src]'), function (e) { return e.href || e.src; });
      var build = Object.keys(files).map(function (k) { return files[k]; });
      var urls = [location.origin + location.pathname].concat(build, named, performance.getEntriesByType('resource').map(function (e) { return e.name; }));
      navigator.serviceWorker.addEventListener('message', function (event) {
        if (event.data && event.data.type === 'kept') { document.documentElement.dataset.offlineKept = event.data.count + ' of ' + event.data.of; document.documentElement.dataset.offline = 'ready'; }
      });
      reg.active.postMessage({ type: 'keep', urls: urls });
    }).catch(function () { /* offline use is a bonus: the page works without it */ });
  }, { once: true });
})();
