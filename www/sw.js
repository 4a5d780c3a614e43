// Offline use (the Learn section and anything else once loaded): every same-origin GET the
// page makes goes to the network first and a copy of each good answer is kept; without a
// network the copy answers. Network first, so an online visit always gets the current build
// and the current bundled data. Pages opened by a link carry their state in the query, so a
// page is kept once, without its query, and answers every query offline.
const CACHE = 'hpo-playground-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

const pageKey = (url) => url.origin + url.pathname;

// What the page fetched before this worker controlled it (its first visit): keep it too, one
// file at a time, each tried up to three times, and tell the page how many of how many were
// kept (the offline end-to-end test requires all).
self.addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'keep') return;
  const urls = [...new Set(event.data.urls.filter((u) => new URL(u).origin === self.location.origin))];
  event.waitUntil(caches.open(CACHE).then(async (cache) => {
    let kept = 0;
    for (const url of urls) {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          if (!(await cache.match(url))) await cache.add(url);
          kept++;
          break;
        } catch (e) { /* try again */ }
      }
    }
    if (event.source) event.source.postMessage({ type: 'kept', count: kept, of: urls.length });
  }));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  const navigate = request.mode === 'navigate';
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(navigate ? pageKey(url) : request, copy));
    }
    return response;
  }).catch(() => caches.match(navigate ? pageKey(url) : request, { ignoreSearch: navigate })
    .then((hit) => hit || Response.error())));
});
