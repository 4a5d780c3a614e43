// Two release builds side by side: the size of each wasm file (raw and gzip -9) and the steps
// a size optimisation could slow, measured alternately in headless Chromium on this machine.
// Writes the "build" section of docs/benchmarks.md.
// Run: node scripts/bench-build.mjs OLD_DIST NEW_DIST (each a `trunk build --release` dist/,
// e.g. a copy of an older one and today's); the rows on shared tables need ../shared.
// ROUNDS=N sets the alternations (3); BEFORE and NOW say what each build is; NO_DOC=1 only
// prints.
import { readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { serve } from '../tests/e2e/server.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [oldDist, newDist] = process.argv.slice(2);
if (!oldDist || !newDist) {
  console.error('usage: node scripts/bench-build.mjs OLD_DIST NEW_DIST');
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const hasShared = existsSync(join(ROOT, '..', 'shared', 'benchmarks', 'quantile-transfer', 'XGBoost.csv.zip'));

async function sizes(dist) {
  const out = {};
  for (const f of (await readdir(dist)).filter((f) => f.endsWith('.wasm'))) {
    const bytes = await readFile(join(dist, f));
    out[f.startsWith('worker') ? 'worker' : 'main'] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  return out;
}

const finished = (page, timeout) =>
  page.waitForFunction(() => /^Finished/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout, polling: 200 });

async function opened(url, query) {
  const b = await freshBrowser();
  await b.page.goto(`${url}?${query}`);
  await b.page.waitForFunction(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
  return b;
}

// Click to ready of a table (fetch, the parser worker, the page's copy), as the page reports it.
async function loadMs(url, query) {
  const b = await opened(url, query);
  try {
    return Number((await b.page.locator('#data-info').textContent()).match(/loaded in (\d+) ms/)[1]);
  } finally { await b.close(); }
}

// Runs the link's one job; the optimizer's seconds per step from the exported trace.
async function stepSeconds(url, query, exportButton) {
  const b = await opened(url, query);
  try {
    await b.page.click('#run');
    await finished(b.page, 1_800_000);
    const [dl] = await Promise.all([b.page.waitForEvent('download'), b.page.click(exportButton)]);
    const lines = (await readFile(await dl.path(), 'utf8')).trim().split('\n');
    const col = lines[0].split(',').indexOf('optimizer_seconds');
    return lines.slice(1).map((l) => Number(l.split(',')[col]));
  } finally { await b.close(); }
}

// Run clicked → finished, for a run whose jobs cost nothing: what remains is the table
// crossing to the pool's workers (two on this machine) and their reading it.
async function runStartMs(url, query) {
  const b = await opened(url, query);
  try {
    const t0 = Date.now();
    await b.page.click('#run');
    await finished(b.page, 600_000);
    return Date.now() - t0;
  } finally { await b.close(); }
}

const measures = [
  ...(hasShared ? [
    ['XGBoost table: click to ready, ms', (url) => loadMs(url, 'v=1&data=shared:XGBoost.csv.zip')],
    ['LCBench (35 tasks of curves): click to ready, ms', (url) => loadMs(url, 'v=1&data=shared:lcbench-surrogate.zip')],
    ['XGBoost: Run clicked → finished, RS, 2 tasks × 1 iteration (the table crosses to the pool), ms',
      (url) => runStartMs(url, 'v=1&data=shared:XGBoost.csv.zip&methods=RS&tasks=heart,w6a&seeds=1&iters=1')],
    ['LCBench: Run clicked → finished, RS, 2 tasks × 1 full training (the table crosses to the pool), ms',
      (url) => runStartMs(url, 'v=1&data=shared:lcbench-surrogate.zip&methods=RS&seeds=1&race=51&tasks=covertype,kddcup09_appetency')],
    ['GCP step at 100 observations, NAS-Bench-201 cifar10 (median of the 5 steps ending there), ms', async (url) => {
      const s = await stepSeconds(url, 'v=1&data=shared:nas_bench102.csv.zip&methods=GCP&tasks=cifar10&seeds=1&iters=100&transfer=none', '#export-detailed');
      return Math.round(median(s.slice(95, 100)) * 1000);
    }],
  ] : []),
  ['DyHPO (fast), bundled curves, 300 steps: mean optimizer time per step, ms', async (url) => {
    const s = await stepSeconds(url, 'v=1&data=bundled:curves&methods=DyHPO%20(fast)&tasks=curves-00&seeds=1&race=300', '#export-race-csv');
    return Math.round(s.reduce((a, b) => a + b, 0) / s.length * 1000 * 10) / 10;
  }],
  ['DyHPO, bundled curves, 150 steps: mean optimizer time per step, ms', async (url) => {
    const s = await stepSeconds(url, 'v=1&data=bundled:curves&methods=DyHPO&tasks=curves-00&seeds=1&race=150', '#export-race-csv');
    return Math.round(s.reduce((a, b) => a + b, 0) / s.length * 1000 * 10) / 10;
  }],
];

const builds = [];
for (const dist of [oldDist, newDist]) builds.push({ dist, sizes: await sizes(dist), ...(await serve(dist)), runs: measures.map(() => []) });
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, [what, measure]] of measures.entries()) {
    for (const b of round % 2 ? [...builds].reverse() : builds) {
      const v = await measure(b.url);
      b.runs[k].push(v);
      console.log(`${basename(b.dist)} · ${what}: ${v}`);
    }
  }
}
for (const b of builds) b.server.close();

const kib = (n) => `${Math.round(n / 1024).toLocaleString('en')} KiB`;
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
const host = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
const rows = [
  ...['main', 'worker'].map((w) => [`${w} wasm, raw / gzip -9`, ...builds.map((b) => `${kib(b.sizes[w].raw)} / ${kib(b.sizes[w].gzip)}`)]),
  ...measures.map(([what], k) => [`${what}, median of ${ROUNDS} (runs)`, ...builds.map((b) => `${median(b.runs[k])} (${b.runs[k].join(', ')})`)]),
];
const before = process.env.BEFORE ?? `the build in ${basename(oldDist)}`;
const now = process.env.NOW ?? `this build (\`${commit}\`)`;
const section = `Measured by \`node scripts/bench-build.mjs OLD NEW\` on ${new Date().toISOString().slice(0, 10)}: two release builds
(trunk, wasm-opt 132 -O3) served side by side, each measure taken alternately, headless Chromium, 2 cores
(${host}). Before: ${before}. Now: ${now}.

| what | before | now |
|---|---|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`;
console.log(section);
// NO_DOC=1 prints the table only (a comparison that is not the documented one).
if (!process.env.NO_DOC) {
  await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'build', section);
  console.log('updated the build section of docs/benchmarks.md');
}
