// Offline use and a second visit that moves next to nothing. Files named by their content's hash
// (trunk's and scripts/hash-names.mjs's `name-0123456789abcdef.ext`) never change under their
// name: they come from this worker's cache, and the network only the first time. Everything else
// (the page itself, the bundled data, this worker's neighbours without a hash) answers from the
// cache at once and is refreshed behind it for the next visit (stale-while-revalidate); without
// a copy it comes from the network. A new build's worker deletes the hashed files of the builds
// before it (`forgetOtherBuilds`). The page carries its state in the query, so it is kept once,
// without its query, and answers every query.
const CACHE = 'hpo-playground-v1';
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;
// The hashed files of this build, written in by scripts/sw-build-files.mjs at build time (so
// that each build's sw.js differs and replaces the last one's). Empty here: nothing is deleted.
const BUILD_FILES = [];

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(forgetOtherBuilds().then(() => self.clients.claim())));

// A hashed file this build does not name is an older build's: nothing asks for it again, and
// an old visit's 2.6 MB wasm would stay in the cache for good. It goes when this build's worker
// takes over, with any cache of this site under another name.
async function forgetOtherBuilds() {
  if (!BUILD_FILES.length) return;
  const names = new Set(BUILD_FILES);
  for (const name of await caches.keys()) {
    if (name !== CACHE && name.startsWith('hpo-playground-')) await caches.delete(name);
  }
  const cache = await caches.open(CACHE);
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (HASHED.test(path) && !names.has(path.slice(path.lastIndexOf('/') + 1))) await cache.delete(request);
  }
}

const pageKey = (url) => url.origin + url.pathname;

// What the page fetched before this worker controlled it (its first visit): keep it too, one
// file at a time, each tried up to three times, and tell the page how many of how many were
// kept (the offline end-to-end test requires all). Each is taken from the browser's HTTP cache
// whatever its headers say (`force-cache`): the page has just fetched it, so nothing moves twice
// (before, a host without cache headers sent every file, the 2.6 MB main wasm too, a second time).
self.addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'keep') return;
  const urls = [...new Set(event.data.urls.filter((u) => new URL(u).origin === self.location.origin))];
  event.waitUntil(caches.open(CACHE).then(async (cache) => {
    let kept = 0;
    for (const url of urls) {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          if (!(await cache.match(url))) await cache.add(new Request(url, { cache: 'force-cache' }));
          kept++;
          break;
        } catch (e) { /* try again */ }
      }
    }
    if (event.source) event.source.postMessage({ type: 'kept', count: kept, of: urls.length });
  }));
});

// The network's answer, a copy kept under `key` when it is whole and good.
async function fromNetwork(request, key) {
  const response = await fetch(request);
  if (response.status === 200) {
    const copy = response.clone();
    caches.open(CACHE).then((cache) => cache.put(key, copy)).catch(() => {});
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || request.headers.has('range')) return;
  const navigate = request.mode === 'navigate';
  const key = navigate ? pageKey(url) : request;
  event.respondWith((async () => {
    const kept = await caches.match(key, { ignoreSearch: navigate });
    if (kept && HASHED.test(url.pathname)) return kept;
    if (kept) {
      // Answer now; the refreshed copy serves the next visit.
      event.waitUntil(fromNetwork(request, key).catch(() => {}));
      return kept;
    }
    return fromNetwork(request, key).catch(() => Response.error());
  })());
});
