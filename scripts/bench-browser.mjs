// Browser benchmarks of the release build in headless Chromium; prints the numbers and
// writes docs/benchmarks.md. Run: node scripts/bench-browser.mjs (after trunk build --release
// and cargo build --release --bin hpo). Needs ../shared for the XGBoost rows.
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/server.mjs';
import { replaceSection } from './doc-sections.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = join(ROOT, '..', 'shared', 'benchmarks', 'quantile-transfer');
const REPEATS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { server, url } = await serve(join(ROOT, 'dist'));
const rows = [];
const log = (what, value) => { console.log(`${what}: ${value}`); rows.push([what, value]); };

// A fresh browser on the app with `query`, once its data is loaded.
async function openLoaded(query) {
  const b = await freshBrowser();
  await b.page.goto(`${url}?${query}`);
  await b.page.waitForFunction(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
  return b;
}

const finished = (page, timeout) =>
  page.waitForFunction(() => /^Finished/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout, polling: 200 });

async function loadMs(query) {
  const b = await openLoaded(query);
  try {
    const m = (await b.page.locator('#data-info').textContent()).match(/loaded in (\d+) ms \(parsed off the page in (\d+) ms\)/);
    return [Number(m[1]), Number(m[2])];
  } finally { await b.close(); }
}

async function throughput(query) {
  const b = await openLoaded(query);
  try {
    await b.page.click('#run');
    await finished(b.page, 600_000);
    const s = await b.page.locator('#run-status').textContent();
    const [, jobs, evals, time, workers, rate] = s.match(/Finished (\d+) jobs \((\d+) evaluations\) in ([\d.]+ m?s) on (\d+) workers: (\d+) evaluations\/s/);
    return { jobs, evals, time, workers, rate: Number(rate) };
  } finally { await b.close(); }
}

const hasShared = existsSync(join(SHARED, 'XGBoost.csv.zip'));
if (hasShared) {
  const ms = [], parse = [];
  for (let i = 0; i < REPEATS; i++) { const [a, b] = await loadMs('v=1&data=shared:XGBoost.csv.zip'); ms.push(a); parse.push(b); }
  log('XGBoost table (50,000 rows, 3.6 MB zip): click to ready (fetch, worker start, unzip + parse in the worker, transfer), median of 5', `${median(ms)} ms (runs: ${ms.join(', ')})`);
  log('of which unzip + parse inside the worker, median of 5', `${median(parse)} ms (runs: ${parse.join(', ')})`);
  const t0 = process.hrtime.bigint();
  execFileSync(join(ROOT, 'target/release/hpo'), ['info', '--data', join(SHARED, 'XGBoost.csv.zip')]);
  log('same table, native CLI (`hpo info`, whole process)', `${Number(process.hrtime.bigint() - t0) / 1e6 | 0} ms`);
  const x = [];
  for (let i = 0; i < 3; i++) x.push(await throughput('v=1&data=shared:XGBoost.csv.zip&methods=RS&seeds=20&iters=100'));
  log('random search, XGBoost, 10 tasks × 20 seeds × 100 iterations (200 jobs), median of 3', `${median(x.map((r) => r.rate))} evaluations/s on ${x[0].workers} workers (runs: ${x.map((r) => r.time).join(', ')})`);
}
const q = [];
for (let i = 0; i < 3; i++) q.push(await throughput('v=1&data=bundled:quadratic&methods=RS&seeds=100&iters=200'));
log('random search, quadratic, 30 tasks × 100 seeds × 200 iterations (3,000 jobs), median of 3', `${median(q.map((r) => r.rate))} evaluations/s on ${q[0].workers} workers (runs: ${q.map((r) => r.time).join(', ')})`);

// Per-iteration optimizer time in a worker, read from the detailed CSV the page exports.
async function optimizerSeconds(query, iterations) {
  const b = await openLoaded(query);
  try {
    await b.page.click('#run');
    await finished(b.page, 1_800_000);
    const [dl] = await Promise.all([b.page.waitForEvent('download'), b.page.click('#export-detailed')]);
    const lines = (await readFile(await dl.path(), 'utf8')).trim().split('\n');
    const col = lines[0].split(',').indexOf('optimizer_seconds');
    const secs = lines.slice(1).map((l) => Number(l.split(',')[col]));
    // Single steps vary by ±15% (the argmax's pruning differs from step to step; the machine
    // is shared), so each mark reports the median of the 5 steps ending there.
    return iterations.map((i) => (median(secs.slice(i - 5, i)) * 1000).toFixed(0));
  } finally { await b.close(); }
}

if (hasShared) {
  const marks = [25, 50, 100];
  const ehvi = await optimizerSeconds('v=1&data=shared:nas_bench102.csv.zip&mo=metric_error:min,metric_latency:min&methods=EHVI&tasks=cifar10&seeds=1&iters=100', marks);
  log('EHVI step in a worker (2 GP fits + exact EHVI over 15,625 candidates), NAS-Bench-201 cifar10 error/latency, at 25 / 50 / 100 observations (median of the 5 steps ending there)', `${ehvi.join(' / ')} ms`);
  const gcp = await optimizerSeconds('v=1&data=shared:nas_bench102.csv.zip&methods=GCP&tasks=cifar10&seeds=1&iters=100&transfer=none', marks);
  log('GCP step in a worker (GP fit + EI over 15,625 candidates), NAS-Bench-201 cifar10, at 25 / 50 / 100 observations (median of the 5 steps ending there)', `${gcp.join(' / ')} ms`);
}

// The copula prior in a worker, trained from the prior view (the same training as in runs),
// and one whole GCP+prior seed (prior training included) from click to finished.
async function priorTraining(query, task) {
  const b = await openLoaded(query);
  try {
    await b.page.click('#prior-view summary');
    await b.page.selectOption('#prior-task', task);
    await b.page.click('#prior-train');
    await b.page.waitForFunction(() => /RMSE/.test(document.querySelector('#prior-summary')?.textContent ?? ''), null, { timeout: 600_000 });
    const s = await b.page.locator('#prior-summary').textContent();
    const [, n, k, secs] = s.match(/trained on (\d+) evaluations of (\d+) other tasks in ([\d.]+) s/);
    return { n: Number(n), k: Number(k), secs: Number(secs), rmse: s.match(/warped values: ([\d.]+)/)[1] };
  } finally { await b.close(); }
}

// Run, then run again in the same page: the second run takes the prior the first trained.
async function wholeRunTwice(query) {
  const b = await openLoaded(query);
  try {
    const t0 = Date.now();
    await b.page.click('#run');
    await finished(b.page, 1_800_000);
    const t1 = Date.now();
    await b.page.click('#run');
    await b.page.waitForFunction(() => /^Finished.* reused from before/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 1_800_000 });
    return [(t1 - t0) / 1000, (Date.now() - t1) / 1000];
  } finally { await b.close(); }
}

if (hasShared) {
  for (const [file, task, what] of [['XGBoost.csv.zip', 'heart', 'XGBoost, target heart'], ['nas_bench102.csv.zip', 'cifar10', 'NAS-Bench-201, target cifar10']]) {
    const p = await priorTraining(`v=1&data=shared:${file}`, task);
    log(`prior training in a worker (3 × 1,000 Adam steps, batch 64), ${what}, ${p.n.toLocaleString('en')} evaluations of ${p.k} other tasks`, `${p.secs.toFixed(1)} s (RMSE on the target ${p.rmse})`);
  }
  const [first, again] = await wholeRunTwice('v=1&data=shared:XGBoost.csv.zip&methods=GCP%2Bprior&tasks=heart&seeds=1&iters=100');
  log('one GCP+prior seed, XGBoost heart, 100 iterations, click to finished: prior training included / run again (prior reused)', `${first.toFixed(1)} s / ${again.toFixed(1)} s`);
}

// DyHPO in a worker: per-step optimizer time (surrogate fit + EI over all candidates) read
// from the race traces the page exports, and the wall time of the whole run.
async function raceRun(query) {
  const b = await openLoaded(query);
  try {
    const t0 = Date.now();
    await b.page.click('#run');
    await finished(b.page, 7_200_000);
    const seconds = (Date.now() - t0) / 1000;
    const [dl] = await Promise.all([b.page.waitForEvent('download'), b.page.click('#export-race-csv')]);
    const lines = (await readFile(await dl.path(), 'utf8')).trim().split('\n');
    const col = lines[0].split(',').indexOf('optimizer_seconds');
    const cols = lines[0].split(',');
    const rows = lines.slice(1).map((l) => l.split(',')).map((f) => ({ config: f[cols.indexOf('config')], budget: Number(f[cols.indexOf('budget')]), secs: Number(f[col]) }));
    return { seconds, secs: rows.map((r) => r.secs), rows };
  } finally { await b.close(); }
}

// The exact DyHPO's step grows with the cube of the observations (11.7 s natively at 1,000,
// docs/benchmarks.md), so its browser run stops at DYHPO_BUDGET (default 500); the fast
// variant runs the full FAST_BUDGET (default 1,000).
const budgets = { 'DyHPO': Number(process.env.DYHPO_BUDGET ?? 500), 'DyHPO (fast)': Number(process.env.FAST_BUDGET ?? 1000) };
// Median of the 5 steps ending at each mark (single steps vary with early stopping).
const around = (secs, m) => (median(secs.slice(m - 5, m)) * 1000).toFixed(0);
for (const [method, budget] of Object.entries(budgets)) {
  const marks = [50, 200, 500, 1000].filter((m) => m <= budget);
  const r = await raceRun(`v=1&data=bundled:curves&methods=${encodeURIComponent(method)}&tasks=curves-00&seeds=1&race=${budget}`);
  log(`${method} step in a worker (deep-kernel GP fit, warm-started, + EI_MF over 256 configurations), bundled curves, at ${marks.join(' / ')} observations (median of the 5 steps before)`,
    `${marks.map((m) => around(r.secs, m)).join(' / ')} ms`);
  // The fast variant refits every 10th step: the mean over the 10 steps before each mark is
  // its amortised cost (the median above is a step that only conditions the GP).
  log(`${method} step, mean of the 10 steps before ${marks.join(' / ')} observations`,
    `${marks.map((m) => (r.secs.slice(m - 10, m).reduce((a, b) => a + b, 0) * 100).toFixed(0)).join(' / ')} ms`);
  log(`${method}: one full ${budget}-unit run (one seed, one worker), click to finished`, `${r.seconds.toFixed(1)} s (optimizer ${r.secs.reduce((a, b) => a + b, 0).toFixed(1)} s)`);
}

// GPB (paper 003) in a worker: a step is one round — the ML fit and a batch of 10 EI picks
// over 256 configurations × 6 budget levels (the other requests of a round cost nothing).
// The observations at a round's start are replayed from the requests before it.
{
  const levels = [1, 8, 16, 24, 32, 40];
  const query = `v=1&data=bundled:curves&methods=${encodeURIComponent('GPB (IC)')}&tasks=curves-00&seeds=1&race=3000`;
  const r = await raceRun(query);
  // A fresh output folder: `hpo run` reuses the finished jobs of an earlier run in the same one.
  const nativeOut = `/tmp/hpo-bench-gpb-${process.pid}-${Date.now()}`;
  execFileSync(join(ROOT, 'target/release/hpo'), ['run', '--link', query, '--out', nativeOut, '--threads', '1']);
  const nativeCsv = (await readFile(join(nativeOut, 'race-traces.csv'), 'utf8')).trim().split('\n');
  const rounds = (rows) => {
    const reached = new Map();
    const out = [];
    for (const { config, budget, secs } of rows) {
      if (secs > 0.002) {
        const obs = [...reached.values()].reduce((n, b) => n + levels.filter((l) => l < b).length + 1, 0);
        out.push({ obs, ms: secs * 1000 });
      }
      reached.set(config, budget);
    }
    return out;
  };
  const near = (rs, n) => rs.reduce((a, b) => (Math.abs(b.obs - n) < Math.abs(a.obs - n) ? b : a));
  const browserRounds = rounds(r.rows);
  const cols = nativeCsv[0]?.split(',') ?? [];
  const nativeRounds = rounds(nativeCsv.slice(1).map((l) => l.split(',')).map((f) => ({ config: f[cols.indexOf('config')], budget: Number(f[cols.indexOf('budget')]), secs: Number(f[cols.indexOf('optimizer_seconds')]) })));
  for (const n of [50, 200]) {
    const b = near(browserRounds, n), c = nativeRounds.length ? near(nativeRounds, n) : null;
    log(`GPB (IC) step (ML fit + 10 EI picks over 256 configurations × 6 budgets), bundled curves, the round nearest ${n} observations: browser worker / native`,
      `${b.ms.toFixed(0)} ms at ${b.obs} / ${c ? `${c.ms.toFixed(0)} ms at ${c.obs}` : 'n/a'}`);
  }
  log('GPB (IC): one 3000-unit run (one seed, one worker), click to finished', `${r.seconds.toFixed(1)} s (optimizer ${r.secs.reduce((a, b) => a + b, 0).toFixed(1)} s)`);
  // The design view computes in a worker and says how long it took there.
  // `on`: text the map's caption must contain (the data the design was built on).
  const designMs = async (page, method, n, on = '[0, 1]²') => {
    await page.waitForFunction(([m, n, on]) => !/computing/.test(document.querySelector('#design-status')?.textContent ?? '')
      && (document.querySelector('#design-panel figcaption')?.textContent ?? '').includes(on)
      && new RegExp(`${m} \\(D-optimality, N = ${n}`).test(document.querySelector('#design-numbers')?.textContent ?? ''), [method, n, on], { timeout: 120_000 });
    return (await page.locator('#design-numbers .design-ms').textContent()).trim();
  };
  for (const method of ['IC', 'TA']) {
    const ms = [];
    for (const n of [6, 10, 20]) {
      const b = await freshBrowser();
      await b.page.goto(`${url}?v=1&design=${method}.D.${n}.0`);
      ms.push(await designMs(b.page, method, n));
      await b.close();
    }
    log(`the page's design view with ${method} (2-D, 441 points × 3 budgets, and the 1-D fit), N = 6 / 10 / 20`, ms.join(' / '));
  }
  // On an uploaded 8-D table: 1,000 configurations with curves of 50 steps (6 budget levels).
  let seed = 1;
  // MINSTD, exact in doubles; `hpo gpb bench` generates the same bytes.
  const uniform = () => { seed = (seed * 48271) % 2147483647; return seed / 2147483647; };
  const hps = Array.from({ length: 8 }, (_, k) => `hp${k + 1}`);
  const steps = Array.from({ length: 50 }, (_, k) => `e${k + 1}`);
  const lines = [[...hps, ...steps].join(',')];
  for (let i = 0; i < 1000; i++) {
    const x = hps.map(() => uniform());
    const final = x.reduce((a, v) => a + (v - 0.5) ** 2, 0);
    lines.push([...x.map((v) => v.toFixed(5)), ...steps.map((_, k) => (final + 1 / (k + 1)).toFixed(5))].join(','));
  }
  const csv = Buffer.from(lines.join('\n') + '\n');
  for (const method of ['IC', 'TA']) {
    const ms = [];
    for (const n of [10, 20]) {
      const b = await freshBrowser();
      await b.page.goto(`${url}?v=1&design=${method}.D.${n}.0.0.1`);
      await b.page.setInputFiles('#upload', { name: 'design-8d.csv', mimeType: 'text/csv', buffer: csv });
      ms.push(await designMs(b.page, method, n, 'of design-8d'));
      await b.close();
    }
    log(`the page's design view with ${method} on an uploaded 8-D table (1,000 configurations × 6 budgets, and the 1-D fit), N = 10 / 20 (N = 6 is raised to p + 2 = 10)`, ms.join(' / '));
  }
}

// A 100 MB upload: click to ready, and the longest pause of the page's thread meanwhile (a
// 20 ms timer on the page; its largest gap). The table comes from a fixed generator (MINSTD).
{
  let x = 1, size = 0, n = 0;
  const next = () => { x = (x * 48271) % 2147483647; return (x / 2147483647).toFixed(6); };
  const parts = ['task,hp_a,hp_b,hp_c,hp_d,metric_error,metric_time\n'];
  while (size < 100 * 1024 * 1024) {
    const line = `task${n % 8},${next()},${next()},${next()},${next()},${next()},${next()}\n`;
    parts.push(line); size += line.length; n++;
  }
  const dir = await mkdtemp(join(tmpdir(), 'hpo-bench-big-'));
  const file = join(dir, 'big.csv');
  await writeFile(file, parts.join(''));
  const ms = [], pauses = [];
  for (let i = 0; i < 3; i++) {
    const b = await openLoaded('v=1');
    await b.page.evaluate(() => {
      window.pause = 0;
      let last = performance.now();
      setInterval(() => { const t = performance.now(); window.pause = Math.max(window.pause, t - last); last = t; }, 20);
    });
    await b.page.setInputFiles('#upload', file);
    await b.page.waitForFunction(() => /^big: .*loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 300_000 });
    ms.push(Number((await b.page.locator('#data-info').textContent()).match(/loaded in (\d+) ms/)[1]));
    pauses.push(Math.round(await b.page.evaluate(() => window.pause)));
    await b.close();
  }
  log(`a 100 MB CSV upload (${n.toLocaleString('en')} rows × 7 columns): click to ready / longest pause of the page's thread meanwhile, 3 runs`, `${ms.join(', ')} ms / ${pauses.join(', ')} ms`);
}

const dist = join(ROOT, 'dist');
for (const f of (await readdir(dist)).filter((f) => /\.(wasm|js)$/.test(f)).sort()) {
  const bytes = await readFile(join(dist, f));
  log(`size of ${f.replace(/-[0-9a-f]+(?=[._])/, '')}`, `${(bytes.length / 1024).toFixed(0)} KiB raw, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(0)} KiB gzip`);
}
server.close();

const chromium = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'chromium']).toString().trim().replace(/^/, 'Chromium ');
const section = `Measured by \`node scripts/bench-browser.mjs\` on ${new Date().toISOString().slice(0, 10)}: release build (trunk,
wasm-opt 132 -O3), headless ${chromium}, ${cpus().length} cores (${cpus()[0].model}).

| what | result |
|---|---|
${rows.map(([a, b]) => `| ${a} | ${b} |`).join('\n')}

- Loading runs in a Web Worker (the page stays responsive); the total includes starting that
  worker, the fetch from the local server, and sending the parsed table back to the page.
- Throughput counts the whole run as the page sees it: sending the benchmark to each worker,
  the jobs, and streaming results into the charts. Random search itself costs microseconds per
  step; these numbers measure the pool's overhead, the floor every method pays.`;
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'browser', section);
console.log('updated the browser section of docs/benchmarks.md');
