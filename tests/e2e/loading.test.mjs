// How the site loads, counted at the test server (so that the Web Workers' and the service
// worker's requests count too): each wasm fetched once on a cold landing, the page's own text
// before the wasm, compressed bodies and cache headers, and a second visit that moves next to
// nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { freshBrowser } from './browser.mjs';
import { serve } from './server.mjs';
import { ROOT, serveSite, tempDir } from './helpers.mjs';

let site;
before(async () => { site = await serveSite(); });
after(() => site.server.close());

const MAIN_WASM = /^\/hpo-playground-[0-9a-f]{16}_bg\.wasm$/;
const LANDING_WASM = /^\/landing_bg-[0-9a-f]{16}\.wasm$/;
const WORKER_WASM = /^\/worker_bg-[0-9a-f]{16}\.wasm$/;
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;
const count = (requests, pattern) => requests.filter((r) => pattern.test(r.path)).length;
const DIST = join(ROOT, 'dist');
/// The app's wasm's limit, gzip -9 (docs/benchmarks.md, "Against the targets"): 1,000,000 until
/// the study panel (its views drawn as markup, its CSVs made in the worker) took the module to
/// 1,018,001; raised to 1,025,000; the study panel's table pages, thinned charts and
/// bad-input sentences took it to 1,027,640, and the limit to 1,030,000; the lessons' counts
/// over seeds (their sentences, the strip, the two workers that count) to 1,057,263, and the
/// limit to 1,060,000; lesson 1's playground (its settings, the drawing chart, the charts of
/// four acquisitions) to 1,089,951, and the limit to 1,100,000; the lessons' counts kept in the
/// build (their table and its reader) to 1,098,965.
const MAIN_WASM_GZIP_LIMIT = 1_100_000;
/// The first visit's own wasm, which draws the landing (issue 61's target), gzip -9.
const LANDING_WASM_GZIP_LIMIT = 600_000;

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
    assert.equal(count(cold, MAIN_WASM), 1, `the app's wasm once:\n${list}`);
    assert.equal(count(cold, LANDING_WASM), 1, `the landing's wasm once:\n${list}`);
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
    // Everything the second visit moves, counted once it is over (not after a second): the last
    // thing the page starts, its files handed to the service worker to keep, has answered, and
    // the server has answered every request made by then (the revalidations among them).
    await b.page.waitForFunction(() => document.documentElement.dataset.offline === 'ready', null, { timeout: 30_000 });
    for (let t = 0; site.requests.some((r) => !r.done); t++) {
      assert.ok(t < 600, 'the server answered every request within a minute');
      await new Promise((ok) => setTimeout(ok, 100));
    }
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

// A first visit draws its strip from the landing's small module; the app's module is asked for
// only once the strip's chart is there, and fills in the experiment below it; a link starts the
// app's module at once (the landing's comes later, kept for offline use).
test("the landing's chart comes from its own module before the app's is fetched; a link starts the app's", async () => {
  const b = await freshBrowser();
  try {
    await b.context.addInitScript(() => {
      // boot.js starts the app's module once the chart is drawn, or after 4 s whatever the
      // chart does: on a busy machine the chart can take longer, and the order checked here
      // would then be the clock's. That one timer waits 10 min in this test.
      const setTimeoutOfPage = window.setTimeout;
      window.setTimeout = (f, ms, ...rest) => setTimeoutOfPage(f, ms === 4000 ? 600_000 : ms, ...rest);
      new MutationObserver((_, observer) => {
        if (document.querySelector('#landing-preview circle')) { window.__chartMs = performance.now(); observer.disconnect(); }
      }).observe(document, { childList: true, subtree: true });
    });
    await b.page.goto(site.url);
    await b.page.waitForFunction(() => /quadratic: 30 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''));
    const { chart, app, landing } = await b.page.evaluate(() => {
      const start = (pattern) => performance.getEntriesByType('resource').find((e) => pattern.test(new URL(e.name).pathname))?.startTime;
      return { chart: window.__chartMs, app: start(/^\/hpo-playground-[0-9a-f]{16}_bg\.wasm$/), landing: start(/^\/landing_bg-[0-9a-f]{16}\.wasm$/) };
    });
    assert.ok(landing !== undefined && chart !== undefined && app !== undefined, JSON.stringify({ chart, app, landing }));
    assert.ok(landing < chart && chart <= app, `landing wasm at ${landing} ms, chart at ${chart} ms, app wasm at ${app} ms`);
    // One page: the strip, then the experiment's panels in the same grid, one <main>, one heading.
    assert.equal(await b.page.locator('main').count(), 1);
    assert.equal(await b.page.locator('h1').count(), 1);
    assert.equal(await b.page.locator('main > #landing').count(), 1);
    assert.equal(await b.page.locator('main #data-panel').count(), 1);
    // Data of one's own: the strip goes (the first screen is that data's setup).
    await b.page.selectOption('#data-source', 'bundled:curves');
    await b.page.waitForFunction(() => document.querySelector('#landing')?.hidden === true);
    assert.equal(await b.page.locator('#landing-preview').isVisible(), false);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
  const link = await freshBrowser();
  try {
    site.requests.length = 0;
    await link.page.goto(`${site.url}?learn=gp-ei`);
    await link.page.waitForSelector('#lesson-ls');
    const paths = site.requests.map((r) => r.path);
    const appAt = paths.findIndex((p) => MAIN_WASM.test(p));
    const landingAt = paths.findIndex((p) => LANDING_WASM.test(p));
    assert.ok(appAt >= 0 && (landingAt < 0 || landingAt > appAt), `a link asks for the app's wasm first:\n${paths.join('\n')}`);
    assert.deepEqual(link.errors, []);
  } finally { await link.close(); }
});

test(`the landing's wasm is at most ${LANDING_WASM_GZIP_LIMIT.toLocaleString('en')} bytes gzip -9`, async () => {
  const name = (await readdir(DIST)).find((n) => LANDING_WASM.test(`/${n}`));
  assert.ok(name, `no landing wasm in ${DIST}`);
  const raw = await readFile(join(DIST, name));
  const gzip = gzipSync(raw, { level: 9 }).length;
  assert.ok(gzip <= LANDING_WASM_GZIP_LIMIT, `${name}: ${gzip.toLocaleString('en')} bytes gzip -9 (${raw.length.toLocaleString('en')} raw)`);
});

test(`the main wasm is at most ${MAIN_WASM_GZIP_LIMIT.toLocaleString('en')} bytes gzip -9`, async () => {
  const name = (await readdir(DIST)).find((n) => MAIN_WASM.test(`/${n}`));
  assert.ok(name, `no main wasm in ${DIST}`);
  const raw = await readFile(join(DIST, name));
  const gzip = gzipSync(raw, { level: 9 }).length;
  assert.ok(gzip <= MAIN_WASM_GZIP_LIMIT, `${name}: ${gzip.toLocaleString('en')} bytes gzip -9 (${raw.length.toLocaleString('en')} raw), over the limit by ${(gzip - MAIN_WASM_GZIP_LIMIT).toLocaleString('en')}`);
});

// Two builds on one site: the first's files, then its sw.js changed as the next build's is
// (sw-build-files.mjs writes each build's names into it). An older visit's wasm in the cache
// is gone once the new worker takes over; this build's files stay, and the page works offline.
test("a new build's service worker deletes the hashed files it does not name; offline still works", async () => {
  const sw = await readFile(join(DIST, 'sw.js'), 'utf8');
  const named = JSON.parse(sw.match(/const BUILD_FILES = (\[.*\]);/)[1]);
  const files = await readdir(DIST);
  for (const pattern of [MAIN_WASM, WORKER_WASM]) {
    assert.ok(named.some((n) => pattern.test(`/${n}`)), `sw.js names no ${pattern}: ${named.join(', ')}`);
  }
  assert.deepEqual(named, files.filter((n) => HASHED.test(n)).sort(), 'sw.js names exactly the hashed files of the build');
  // The site served from a folder of its own, whose sw.js the test rewrites.
  const root = await tempDir('hpo-sw-');
  for (const name of files.filter((n) => !n.startsWith('sw.js'))) await symlink(join(DIST, name), join(root, name));
  await writeFile(join(root, 'sw.js'), sw);
  const two = await serve(root);
  const b = await freshBrowser();
  const cached = () => b.page.evaluate(async () => (await (await caches.open('hpo-playground-v1')).keys()).map((r) => new URL(r.url).pathname));
  try {
    await b.page.goto(`${two.url}?learn=gp-ei`);
    await b.page.waitForSelector('#lesson-posterior circle');
    await b.page.waitForFunction(() => document.documentElement.dataset.offline === 'ready', null, { timeout: 30_000 });
    const OLD = '/worker_bg-0123456789abcdef.wasm';
    await b.page.evaluate(async (path) => (await caches.open('hpo-playground-v1')).put(path, new Response('an older build')), OLD);
    assert.ok((await cached()).includes(OLD));

    await writeFile(join(root, 'sw.js'), `${sw}\n// the next build\n`);
    await b.page.reload();
    await b.page.waitForSelector('#lesson-posterior circle');
    let left = await cached();
    for (let t = 0; left.includes(OLD) && t < 60; t++) {
      await new Promise((ok) => setTimeout(ok, 500));
      left = await cached();
    }
    assert.ok(!left.includes(OLD), `the older build's wasm is still cached: ${left.join(' ')}`);
    for (const pattern of [MAIN_WASM, WORKER_WASM]) assert.ok(left.some((p) => pattern.test(p)), `this build's ${pattern} was deleted: ${left.join(' ')}`);

    await b.context.setOffline(true);
    await b.page.goto(`${two.url}?learn=copula&step=3`);
    await b.page.waitForSelector('#lesson-ecdf polyline');
    await b.context.setOffline(false);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    two.server.close();
  }
});
