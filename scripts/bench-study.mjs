// How fast a large Optuna study is ready: a journal of 10,000 trials with 50-step curves in
// `hpo info` and in the page (upload → data ready, headless Chromium), and `hpo suggest`
// with GP and GCP on it. The journal is built from the fixture Optuna wrote
// (tests/fixtures/studies/optuna-mlp-journal.log): its trials' operations repeated under new
// trial ids with their curves stretched to 50 steps (a benchmark input, not a fixture).
// Prints the numbers and writes the "study" section of docs/benchmarks.md. Run after
// trunk build --release and cargo build --release --bin hpo: node scripts/bench-study.mjs
import { cpus, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/server.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HPO = join(ROOT, 'target', 'release', 'hpo');
const TRIALS = 10_000, STEPS = 50, REPEATS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
const log = (what, value) => { console.log(`${what}: ${value}`); rows.push([what, value]); };

// The fixture Optuna wrote, its operations grouped by trial.
const source = readFileSync(join(ROOT, 'tests', 'fixtures', 'studies', 'optuna-mlp-journal.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const byTrial = new Map();
for (const op of source) if (op.trial_id !== undefined) (byTrial.get(op.trial_id) ?? byTrial.set(op.trial_id, []).get(op.trial_id)).push(op);
const originals = [...byTrial.keys()];
/// The fixture's study with `trials` trials: its trials' operations again and again under new ids.
/// `studies` > 1: that many studies of the fixture's space, each its values scaled a little
/// differently (related tasks for the transfer methods), trial ids running on across studies.
function journalOf(trials, studies = 1) {
  const out = [];
  for (let k = 0; k < studies; k++) {
    out.push(JSON.stringify({ ...source[0], study_name: studies === 1 ? source[0].study_name : `mlp-${k}` }));
    for (const line of trialsOf(trials, k, k * trials)) out.push(line);
  }
  return out;
}
function trialsOf(trials, study, firstId) {
  const out = [];
  for (let n = 0; n < trials; n++) {
    const id = firstId + n;
    const ops = byTrial.get(originals[n % originals.length]);
    out.push(JSON.stringify({ op_code: 4, worker_id: 'w', study_id: study, datetime_start: '2026-11-28T00:00:00.000000+00:00' }));
    const curve = ops.filter((o) => o.op_code === 7).map((o) => o.intermediate_value);
    for (const o of ops) {
      if (o.op_code === 5) out.push(JSON.stringify({ ...o, trial_id: id }));
    }
    // 50 steps: the recorded curve, then its last value decaying slowly (a pruned trial keeps
    // its own shorter length, stretched in proportion).
    const complete = ops.some((o) => o.op_code === 6 && o.state === 1);
    const length = complete ? STEPS : Math.max(1, Math.round(curve.length * STEPS / 20));
    const jitter = (1 + 1e-6 * n) * (1 + 0.05 * study);
    for (let s = 1; s <= length; s++) {
      const v = (s <= curve.length ? curve[s - 1] : curve[curve.length - 1] * (1 - 0.002 * (s - curve.length))) * jitter;
      out.push(JSON.stringify({ op_code: 7, worker_id: 'w', trial_id: id, step: s, intermediate_value: v }));
    }
    for (const o of ops) if (o.op_code === 6) out.push(JSON.stringify({ ...o, trial_id: id, values: o.values ? o.values.map((v) => v * jitter) : o.values }));
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'hpo-study-'));
const journal = join(dir, 'big-journal.log');
const out = journalOf(TRIALS);
writeFileSync(journal, out.join('\n') + '\n');
const mib = (statSync(journal).size / 2 ** 20).toFixed(1);
log('the journal', `${TRIALS.toLocaleString('en')} trials, ${STEPS}-step curves, ${out.length.toLocaleString('en')} operations, ${mib} MiB`);

const timed = (args) => { const t = process.hrtime.bigint(); execFileSync(HPO, args, { stdio: 'pipe' }); return Number(process.hrtime.bigint() - t) / 1e6; };
const times = (args) => Array.from({ length: REPEATS }, () => timed(args));
const info = times(['info', '--data', journal]);
log(`hpo info (read, replay, build the benchmark), median of ${REPEATS}`, `${median(info).toFixed(0)} ms (runs: ${info.map((x) => x.toFixed(0)).join(', ')})`);
// The methods fit a GP on every complete trial (cubic in their number): suggestions are
// timed on studies of 80 and 500 trials (35 and 219 complete).
for (const trials of [80, 500]) {
  const small = join(dir, `journal-${trials}.log`);
  writeFileSync(small, journalOf(trials).join('\n') + '\n');
  for (const method of ['GP', 'GCP']) {
    const s = times(['suggest', '--data', small, '--method', method, '--n', '5', '--out', join(dir, method)]);
    log(`hpo suggest --method ${method} --n 5 on ${trials} trials (their complete ones and 2,048 fresh candidates), median of ${REPEATS}`, `${median(s).toFixed(0)} ms (runs: ${s.map((x) => x.toFixed(0)).join(', ')})`);
  }
}

// The transfer methods learn from the file's other studies: a journal of 6 studies of 80
// trials, suggestions for one of them with the other 5 as the tasks seen before.
const six = join(dir, 'six-studies.log');
writeFileSync(six, journalOf(80, 6).join('\n') + '\n');
for (const method of ['GCP+prior', 'CTS']) {
  const s = times(['suggest', '--data', six, '--study', 'mlp-0', '--method', method, '--n', '5', '--out', join(dir, method)]);
  log(`hpo suggest --method ${method} --n 5 for one of 6 studies of 80 trials (the other 5 its related tasks), median of ${REPEATS}`, `${median(s).toFixed(0)} ms (runs: ${s.map((x) => x.toFixed(0)).join(', ')})`);
}

const { server, url } = await serve(join(ROOT, 'dist'));
const page = [];
for (let i = 0; i < 3; i++) {
  const b = await freshBrowser();
  try {
    await b.page.goto(url);
    await b.page.waitForFunction(() => /loaded in|no data/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    const t = Date.now();
    await b.page.setInputFiles('#upload', journal);
    await b.page.waitForFunction(() => /^big-journal: .*loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000, polling: 'raf' });
    page.push(Date.now() - t);
  } finally { await b.close(); }
}
server.close();
log('the page: upload → the study ready (parsed in a worker, tasks and setup shown), median of 3', `${median(page)} ms (runs: ${page.join(', ')})`);

const chromium = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'chromium']).toString().trim();
const section = `Measured by \`node scripts/bench-study.mjs\` on ${new Date().toISOString().slice(0, 10)}: release build, headless
Chromium ${chromium}, ${cpus().length} cores (${cpus()[0].model}). Targets: ready in the page in ≤ 2 s, in \`hpo info\` in ≤ 0.5 s;
\`hpo suggest\` with GCP+prior over 5 related studies in ≤ 2 s.

| what | result |
|---|---|
${rows.map(([a, b]) => `| ${a} | ${b} |`).join('\n')}`;
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'study', section);
console.log('updated the study section of docs/benchmarks.md');
