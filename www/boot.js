// Runs before the app: a message instead of a blank page where WebAssembly SIMD is missing,
// and offline use once loaded (sw.js). A file, not inline script, so that the page's
// Content-Security-Policy can forbid inline script.
(function () {
  // The app is built with WebAssembly SIMD (Chrome/Edge 91+, Firefox 89+, Safari 16.4+). The
  // bytes are the smallest module using a SIMD instruction: () -> v128 { i8x16.popcnt(splat 0) }.
  var simd = new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,123,3,2,1,0,10,10,1,8,0,65,0,253,15,253,98,11]);
  var ok = typeof WebAssembly === 'object' && WebAssembly.validate(simd);
  if (!ok) {
    var show = function () {
      var p = document.createElement('p');
      p.id = 'unsupported-browser';
      p.textContent = 'hpo-playground needs a browser with WebAssembly SIMD: Chrome or Edge 91+, Firefox 89+ or Safari 16.4+. Please update your browser.';
      document.body.appendChild(p);
    };
    if (document.body) show(); else document.addEventListener('DOMContentLoaded', show);
    return;
  }
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  window.addEventListener('load', function () {
    navigator.serviceWorker.register('sw.js').then(function () { return navigator.serviceWorker.ready; }).then(function (reg) {
      // Everything fetched before the service worker took over (the first visit's page, wasm,
      // scripts and data): the worker keeps a copy of each.
      // The page's own resource list misses what its Web Workers fetched, so their files are
      // named here (without them every lesson and run fails offline once the page reopens).
      var workerFiles = ['worker-loader.js', 'worker.js', 'worker_bg.wasm'].map(function (f) { return new URL(f, location.href).href; });
      // And the files the page names: a preloaded resource (the main wasm) can be missing from
      // the resource list when this runs (seen in about one visit in five).
      var named = Array.prototype.map.call(document.querySelectorAll('link[href], script[src]'), function (e) { return e.href || e.src; });
      var urls = [location.origin + location.pathname].concat(workerFiles, named, performance.getEntriesByType('resource').map(function (e) { return e.name; }));
      navigator.serviceWorker.addEventListener('message', function (event) {
        if (event.data && event.data.type === 'kept') { document.documentElement.dataset.offlineKept = event.data.count + ' of ' + event.data.of; document.documentElement.dataset.offline = 'ready'; }
      });
      reg.active.postMessage({ type: 'keep', urls: urls });
    }).catch(function () { /* offline use is a bonus: the page works without it */ });
  });
})();
