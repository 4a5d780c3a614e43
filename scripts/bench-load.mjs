// The first visit on a slow network and a slow laptop, and the second visit: the built site
// (dist/) served by the project's own server (tests/e2e/server.mjs: precompressed bodies, cache
// headers) through a throttled pipe at the server — 10 Mbit/s shared by every answer, 40 ms of
// latency per request, the workers' and the service worker's requests included, which the
// browser's own network emulation misses — with the page's CPU slowed 4× (CDP
// Emulation.setCPUThrottlingRate). Measures first paint (first-contentful-paint), the landing's
// module started (boot.js's hpo-landing-started), the landing's chart drawn (its first circle),
// the app's module started below it (hpo-app-started; each from navigation start) and the bytes
// the server sent (bodies) until the chart and in all.
// A cold visit is a fresh browser profile; a warm one the same profile reopened in a new
// browser (the service worker and the HTTP cache kept, nothing in memory).
// Writes the "load" section of docs/benchmarks.md. Run: node scripts/bench-load.mjs (after
// `trunk build --release`); RUNS=N visits of each kind (3); CPU_SLOWDOWN=N (4); NO_DOC=1 only
// prints.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { serve } from '../tests/e2e/server.mjs';
import { FLAGS } from '../tests/e2e/browser.mjs';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.RUNS ?? 3);
const NETWORK = { bitsPerSecond: 10e6, latencyMs: 40 };
const CPU_SLOWDOWN = Number(process.env.CPU_SLOWDOWN ?? 4);
const TARGETS = { cold: { ms: 2500, bytes: 1.2e6 }, warm: { ms: 800, bytes: 50e3 } };

const site = await serve(join(ROOT, 'dist'), 0, {}, { throttle: NETWORK });

// One visit with the profile in `profile`: milliseconds to first paint and to the chart, bytes
// sent until the chart and in all (until the service worker has kept the first visit's files,
// or 3 s of quiet on a warm visit).
async function visit(profile, cold) {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: FLAGS,
    viewport: { width: 1280, height: 720 },
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    await context.addInitScript(() => {
      addEventListener('hpo-landing-started', () => { window.__landingStartedMs = performance.now(); });
      addEventListener('hpo-app-started', () => { window.__appStartedMs = performance.now(); });
      new MutationObserver((_, observer) => {
        if (document.querySelector('#landing-preview circle')) {
          window.__chartDrawnMs = performance.now();
          window.__hpoChartDrawn();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    // The bytes sent until the chart, counted the moment the page sees it (the app's module is
    // asked for right after: read later, its bytes would count).
    let bytesAtChart;
    await context.exposeFunction('__hpoChartDrawn', () => { bytesAtChart ??= site.requests.reduce((s, r) => s + r.bytes, 0); });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    site.requests.length = 0;
    await page.goto(site.url, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__chartDrawnMs !== undefined, null, { timeout: 120_000, polling: 50 });
    if (cold) await page.waitForFunction(() => document.documentElement.dataset.offline === 'ready', null, { timeout: 120_000 });
    else await new Promise((ok) => setTimeout(ok, 3000));
    const [paint, started, chart, app] = await page.evaluate(() => [
      performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, window.__landingStartedMs, window.__chartDrawnMs, window.__appStartedMs ?? NaN]);
    const bytes = site.requests.reduce((s, r) => s + r.bytes, 0);
    const files = site.requests.map((r) => `${r.path} ${r.status} ${r.bytes}`);
    return { paint, started, chart, app, bytesAtChart, bytes, requests: site.requests.length, files };
  } finally { await context.close(); }
}

// The host is shared: its load before and after says how far the figures are from a quiet machine.
const loadBefore = loadavg()[0];
const cold = [], warm = [];
for (let run = 0; run < RUNS; run++) {
  const profile = await mkdtemp(join(tmpdir(), 'hpo-load-'));
  try {
    cold.push(await visit(profile, true));
    warm.push(await visit(profile, false));
    console.log(`run ${run + 1}: cold`, cold.at(-1), 'warm', warm.at(-1));
  } finally { await rm(profile, { recursive: true, force: true }); }
}
site.server.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (xs) => `${Math.round(median(xs))} ms (${xs.map(Math.round).join(', ')})`;
const kb = (xs) => `${(median(xs) / 1000).toFixed(1)} kB (${xs.map((x) => (x / 1000).toFixed(1)).join(', ')})`;
// The targets are the chart's: its time and the bytes moved until it is drawn.
const verdict = (runs, target) => {
  const [t, b] = [median(runs.map((r) => r.chart)), median(runs.map((r) => r.bytesAtChart))];
  return `${t <= target.ms && b <= target.bytes ? 'met' : 'not met'} (target: chart ≤ ${target.ms / 1000} s, ≤ ${target.bytes / 1000} kB moved until it)`;
};
const rows = (name, runs) => [
  `| ${name}: first paint | ${ms(runs.map((r) => r.paint))} |`,
  `| ${name}: landing module started | ${ms(runs.map((r) => r.started))} |`,
  `| ${name}: landing chart drawn | ${ms(runs.map((r) => r.chart))} |`,
  `| ${name}: app module started (the experiment below the strip) | ${ms(runs.map((r) => r.app))} |`,
  `| ${name}: bytes moved until the chart / in all | ${kb(runs.map((r) => r.bytesAtChart))} / ${kb(runs.map((r) => r.bytes))} |`,
  `| ${name}: requests | ${median(runs.map((r) => r.requests))} |`,
];
const version = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'chromium']).toString().trim();
const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
const section = `Measured by \`node scripts/bench-load.mjs\` on ${new Date().toISOString().slice(0, 10)}: the release build of \`${commit}\`
served by \`tests/e2e/server.mjs\` through a pipe of ${NETWORK.bitsPerSecond / 1e6} Mbit/s with ${NETWORK.latencyMs} ms per request,
the page's CPU slowed ${CPU_SLOWDOWN}×, headless Chromium ${version}, 1280×720, ${cpus().length} cores (${cpus()[0].model}) shared with
other work (load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after); median of ${RUNS} (runs).

| what | result |
|---|---|
${rows('cold', cold).join('\n')}
${rows('warm', warm).join('\n')}
| cold landing against the target | ${verdict(cold, TARGETS.cold)} |
| warm landing against the target | ${verdict(warm, TARGETS.warm)} |`;
console.log(section);
if (!process.env.NO_DOC) {
  await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'load', section);
  console.log('updated the load section of docs/benchmarks.md');
}
