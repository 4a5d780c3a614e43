// How long a study's default run takes in the page, from pressing Run to "Finished": the three
// studies Optuna wrote for the tests (tests/fixtures/studies/make.py) — 80 trials with pruned
// ones, 60 conditional trials, a two-objective SQLite study — each dropped into a fresh page
// (headless Chromium) and run with the setup the page proposes. Also when the time left first
// shows, and what that first estimate said against the run's true end. With `--faithful`, the
// first study's race again with the faithful DyHPO in place of its stand-in (what the default
// was before the stand-in; about 10 minutes). Prints the numbers and writes the "study-race"
// section of docs/benchmarks.md. Run after trunk build --release: node scripts/bench-study-race.mjs
import { cpus, loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/server.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STUDIES = join(ROOT, 'tests', 'fixtures', 'studies');
const faithful = process.argv.includes('--faithful');
const rows = [];

/// Drops `file` into a fresh page, optionally edits the methods, runs the proposed setup and
/// times it: [setup shown, seconds to the first time left, that estimate, seconds to the end].
async function timeDefaultRun(url, file, swap = null) {
  const b = await freshBrowser({ width: 1280, height: 720 });
  try {
    await b.page.goto(url);
    await b.page.waitForFunction(() => /loaded in|no data/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    await b.page.setInputFiles('#upload', join(STUDIES, file));
    await b.page.waitForFunction((f) => new RegExp(`^${f.replace(/\..*$/, '')}: .*loaded in`).test(document.querySelector('#data-info')?.textContent ?? ''), file, { timeout: 60_000 });
    if (swap) {
      await b.page.uncheck(`#methods input[value="${swap[0]}"]`);
      await b.page.check(`#methods input[value="${swap[1]}"]`);
    }
    const setup = await b.page.locator('#job-count').textContent();
    const methods = await b.page.locator('#methods input:checked').evaluateAll((e) => e.map((x) => x.value));
    const started = Date.now();
    await b.page.click('#run');
    let firstLeft = null, firstSaid = null, end = null;
    for (;;) {
      const status = await b.page.locator('#run-status').textContent();
      const left = /about (.*) left/.exec(status);
      if (left && firstLeft === null) { firstLeft = (Date.now() - started) / 1000; firstSaid = left[1]; }
      if (/^(Finished|Cancelled)/.test(status)) { end = (Date.now() - started) / 1000; break; }
      if (Date.now() - started > 30 * 60_000) throw new Error(`${file}: no end after 30 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return { setup, methods, firstLeft, firstSaid, end };
  } finally { await b.close(); }
}

const { server, url } = await serve(join(ROOT, 'dist'));
const runs = [
  ['optuna-mlp-journal.log', '80 trials (35 complete, 41 pruned, 4 failed), a race'],
  ['optuna-conditional-journal.log', '60 conditional trials, a race'],
  ['optuna-two-objective.db', '40 trials of two objectives, full evaluations'],
];
if (faithful) runs.push(['optuna-mlp-journal.log', 'the first, with the faithful DyHPO for its stand-in', ['DyHPO (fast)', 'DyHPO']]);
for (const [file, what, swap] of runs) {
  const load = loadavg()[0].toFixed(1);
  const r = await timeDefaultRun(url, file, swap);
  const line = `${file}: ${what}: ${r.setup.trim()} (${r.methods.join(', ')})`;
  const first = r.firstLeft === null ? 'none shown' : `after ${r.firstLeft.toFixed(1)} s, "about ${r.firstSaid} left"`;
  console.log(`${line}: first time left ${first}; finished in ${r.end.toFixed(1)} s (load ${load})`);
  rows.push([line, first, `${r.end.toFixed(1)} s`, load]);
}
server.close();

const chromium = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'chromium']).toString().trim();
const section = `Measured by \`node scripts/bench-study-race.mjs${faithful ? ' --faithful' : ''}\` on ${new Date().toISOString().slice(0, 10)}: release build, headless
Chromium ${chromium}, ${cpus().length} cores (${cpus()[0].model}), load average (1 min) before each run as shown. Target: a study's default
race, DyHPO in it, finished in ≤ 2 min on 2 cores.

| study, its default setup | the time left first shown | Run → Finished | load |
|---|---|---|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`;
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'study-race', section);
console.log('updated the study-race section of docs/benchmarks.md');
