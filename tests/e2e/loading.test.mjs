// How the site loads, counted at the test server (so that the Web Workers' and the service
// worker's requests count too): each wasm fetched once on a cold landing, the page's own text
// before the wasm, compressed bodies and cache headers, and a second visit that moves next to
// nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freshBrowser } from './browser.mjs';
import { serveSite } from './helpers.mjs';

let site;
before(async () => { site = await serveSite(); });
after(() => site.server.close());

const MAIN_WASM = /^\/hpo-playground-[0-9a-f]{16}_bg\.wasm$/;
const WORKER_WASM = /^\/worker_bg-[0-9a-f]{16}\.wasm$/;
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;
const count = (requests, pattern) => requests.filter((r) => pattern.test(r.path)).length;

test('the page shows its heading and a loading line before the wasm, and the app replaces them', async () => {
  const html = await (await fetch(site.url)).text();
  assert.match(html, /<div id="boot-screen">[\s\S]*<h1>hpo-playground<\/h1>[\s\S]*id="loading"/);
  const b = await freshBrowser();
  try {
    await b.page.goto(site.url);
    await b.page.waitForSelector('#landing-preview circle');
    assert.equal(await b.page.locator('#boot-screen').count(), 0, 'the loading screen left when the app mounted');
    assert.equal(await b.page.locator('h1').count(), 1);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('a cold landing fetches each wasm once (every worker gets the compiled module), compressed and cacheable; a second visit moves next to nothing', async () => {
  const b = await freshBrowser();
  try {
    site.requests.length = 0;
    await b.page.goto(site.url);
    await b.page.waitForSelector('#landing-preview circle');
    // The service worker has kept the first visit's files (from the HTTP cache), and the data
    // panel's worker has started: everything a landing fetches has been fetched.
    await b.page.waitForFunction(() => document.documentElement.dataset.offline === 'ready', null, { timeout: 30_000 });
    await b.page.waitForFunction(() => /quadratic: 30 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''));
    const cold = [...site.requests];
    const list = cold.map((r) => `${r.path} ${r.status} ${r.bytes}`).join('\n');
    assert.equal(count(cold, WORKER_WASM), 1, `the worker wasm once:\n${list}`);
    assert.equal(count(cold, MAIN_WASM), 1, `the main wasm once:\n${list}`);
    for (const r of cold.filter((r) => /\.(wasm|js|css)$/.test(r.path) && r.status === 200)) {
      assert.ok(r.encoding === 'br', `${r.path} sent compressed (${r.encoding})`);
    }
    const headers = (await fetch(new URL(cold.find((r) => WORKER_WASM.test(r.path)).path, site.url), { headers: { 'accept-encoding': 'gzip' } })).headers;
    assert.match(headers.get('cache-control'), /immutable/);
    assert.equal(headers.get('content-encoding'), 'gzip');
    assert.equal((await fetch(site.url)).headers.get('cache-control'), 'no-cache');
    assert.equal((await fetch(new URL('sw.js', site.url))).headers.get('cache-control'), 'no-cache');

    // The second visit: the page from the service worker's cache, refreshed behind it; no
    // hashed file moves; what does is revalidations (304) of a few small files.
    site.requests.length = 0;
    await b.page.goto(site.url);
    await b.page.waitForSelector('#landing-preview circle');
    await b.page.waitForFunction(() => /quadratic: 30 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''));
    await new Promise((ok) => setTimeout(ok, 1000));
    const warm = [...site.requests];
    const moved = warm.reduce((sum, r) => sum + r.bytes, 0);
    const warmList = warm.map((r) => `${r.path} ${r.status} ${r.bytes}`).join('\n');
    assert.equal(warm.filter((r) => HASHED.test(r.path)).length, 0, `no hashed file fetched again:\n${warmList}`);
    assert.ok(moved < 50_000, `${moved} bytes moved on the second visit:\n${warmList}`);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

// Lesson 4's frames take a worker seconds on a slow machine: a `play=1` link waits at step 0
// until they are drawn, then plays; "end »" jumps to the last step.
test('a playing lesson counts no step before its frames are drawn, and "end »" goes to the last step', async () => {
  const b = await freshBrowser();
  try {
    // The step shown when the frames first arrive, recorded by the page itself.
    await b.context.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector('#lesson-multi-fidelity') && !document.querySelector('#lesson-computing')) {
          window.__stepWhenDrawn = document.querySelector('#lesson-step-label')?.textContent;
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await b.page.goto(`${site.url}?learn=multi-fidelity&play=1&speed=4`);
    await b.page.waitForFunction(() => window.__stepWhenDrawn !== undefined, null, { timeout: 60_000 });
    assert.match(await b.page.evaluate(() => window.__stepWhenDrawn), /^step 0 of \d+$/);
    // And it plays on from there.
    await b.page.waitForFunction(() => /^step [1-9]/.test(document.querySelector('#lesson-step-label').textContent));
    await b.page.click('#lesson-end');
    const [shown, last] = (await b.page.locator('#lesson-step-label').textContent()).match(/\d+/g).map(Number);
    assert.ok(last > 50 && shown === last, `step ${shown} of ${last}`);
    assert.equal(await b.page.isDisabled('#lesson-end'), true);
    assert.equal(await b.page.isDisabled('#lesson-step'), true);
    assert.match(await b.page.locator('#lesson-play').textContent(), /play/, 'paused at the end');
    await b.page.waitForFunction(() => /[?&]step=\d+/.test(location.search));
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});
