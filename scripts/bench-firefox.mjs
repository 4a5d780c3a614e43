// The same release build in headless Chromium and headless Firefox, on this machine, one run
// each: a GP step, a DyHPO (fast) step, and loading XGBoost. Prints the numbers and writes
// the `firefox` section of docs/benchmarks.md. Run: node scripts/bench-firefox.mjs (after
// trunk build --release and scripts/install.sh --test). XGBoost needs ../shared.
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { serve } from '../tests/e2e/server.mjs';
import { chromium, firefox, caughtDownload } from '../tests/e2e/drivers.mjs';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HAS_XGBOOST = existsSync(join(ROOT, '..', 'shared', 'benchmarks', 'quantile-transfer', 'XGBoost.csv.zip'));
const { server, url } = await serve(join(ROOT, 'dist'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function opened(start, query) {
  const b = await start();
  await b.goto(`${url}?${query}`);
  await b.waitFor(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, 120_000);
  return b;
}

// The optimizer's seconds per step of the link's one job, from the exported trace.
async function stepSeconds(start, query, exportButton) {
  const b = await opened(start, query);
  try {
    await b.click('#run');
    await b.waitFor(() => /^Finished/.test(document.querySelector('#run-status')?.textContent ?? ''), null, 1_800_000);
    const lines = (await b.evaluate(caughtDownload, exportButton)).trim().split('\n');
    const col = lines[0].split(',').indexOf('optimizer_seconds');
    return lines.slice(1).map((l) => Number(l.split(',')[col]));
  } finally { await b.close(); }
}

const measures = [
  ['GP step at 100 observations, bundled quadratic (median of the 5 steps ending there), ms', async (start) => {
    const s = await stepSeconds(start, 'v=1&data=bundled:quadratic&methods=GP&tasks=quadratic-00&seeds=1&iters=100&transfer=none', '#export-detailed');
    return Math.round(median(s.slice(95, 100)) * 1000 * 10) / 10;
  }],
  ['DyHPO (fast), bundled curves, 300 steps: mean optimizer time per step, ms', async (start) => {
    const s = await stepSeconds(start, 'v=1&data=bundled:curves&methods=DyHPO%20(fast)&tasks=curves-00&seeds=1&race=300', '#export-race-csv');
    return Math.round(mean(s) * 1000 * 10) / 10;
  }],
  ...(HAS_XGBOOST ? [['XGBoost table (50,000 rows): click to ready, ms', async (start) => {
    const b = await opened(start, 'v=1&data=shared:XGBoost.csv.zip');
    try {
      return Number((await b.evaluate(() => document.querySelector('#data-info').textContent)).match(/loaded in (\d+) ms/)[1]);
    } finally { await b.close(); }
  }]] : []),
];

const rows = [];
for (const [what, measure] of measures) {
  const c = await measure(chromium);
  const f = await measure(firefox);
  console.log(`${what}: Chromium ${c}, Firefox ${f}`);
  rows.push(`| ${what} | ${c} | ${f} |`);
}
server.close();

const version = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8' }).trim(); } catch { return '?'; } };
const commit = version('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']);
const day = new Date().toISOString().slice(0, 10);
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'firefox', `
Measured by \`node scripts/bench-firefox.mjs\` on ${day}: the release build of \`${commit}\`,
served locally, one run in each browser, headless, ${cpus().length} cores (${cpus()[0].model.trim()}).
${version('/usr/bin/chromium', ['--version'])}; ${version('/usr/bin/firefox-esr', ['--version'])}.

| what | Chromium | Firefox |
|---|---|---|
${rows.join('\n')}
`);
