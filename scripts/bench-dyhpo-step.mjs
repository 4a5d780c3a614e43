// The faithful DyHPO's step at 250 / 500 / 1,000 / 2,000 observations, natively
// (`hpo bench-dyhpo-step`) and in headless Chromium (tests/wasm_dyhpo_step_bench.rs, in a
// dedicated worker as the page runs it), and whole DyHPO runs on the study fixtures Optuna
// wrote (`hpo race`, one thread). Writes the "dyhpo-step" section of docs/benchmarks.md.
//
//   node scripts/bench-dyhpo-step.mjs [native] [wasm] [races]   (default: all three)
//
// Each part's figures are kept in $CARGO_TARGET_DIR/bench-dyhpo-step.json (default target/),
// so a part can be measured again alone; the section is written from every part kept (`write`
// alone rewrites it from them, measuring nothing). Every
// measurement runs under `nice -n 10` (the host is shared) and records the load average.
// LCBench's task 0 from ../shared/benchmarks/lcbench-surrogate when present (served to the
// browser by a local server for the test's fetch), else the bundled curves.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir, homedir } from 'node:os';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target');
const HPO = join(TARGET, 'release', 'hpo');
const KEPT = join(TARGET, 'bench-dyhpo-step.json');
const LCBENCH = join(ROOT, '..', 'shared', 'benchmarks', 'lcbench-surrogate');
// What the browser fetches of LCBench (the loader's first two files: configurations, curves).
const LCBENCH_SERVED = ['lcbench_configs.csv', 'lcbench_surrogate_val_balanced_accuracy.csv.gz'];
// The studies Optuna wrote with learning curves, and the race budget the page sets for each:
// what Optuna spent (every trial's steps, pruned ones too), as `race_budget_for` computes it.
const STUDIES = [
  ['tests/fixtures/studies/optuna-mlp-journal.log', 789],
  ['tests/fixtures/studies/optuna-conditional-journal.log', 392],
  ['tests/fixtures/studies/optuna-mlp.db', 480],
];
const RACE_METHODS = ['DyHPO', 'DyHPO (fast)'];
const RACE_SEEDS = 2;

const env = { ...process.env, CARGO_TARGET_DIR: TARGET, PATH: `${homedir()}/.cargo/bin:${ROOT}/node_modules/.bin:${process.env.PATH}` };
const load = () => loadavg().map((l) => l.toFixed(2)).join(', ');
const today = () => new Date().toISOString().slice(0, 10);

/** Runs `cmd args` under nice, echoing its output; resolves to [stdout, stderr]. */
function run(cmd, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '10', cmd, ...args], { cwd: ROOT, env: { ...env, ...extraEnv } });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { err += d; process.stderr.write(d); });
    child.on('close', (code) => (code === 0 ? resolve([out, err]) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`))));
  });
}

/** `DATA …` and `DYHPO-STEP …` lines (StepTimes::line) → { data, rows }. */
function parseSteps(text) {
  const data = text.match(/^DATA (.*)$/m)?.[1] ?? '?';
  const rows = [...text.matchAll(/^DYHPO-STEP (.*)$/gm)].map(([, l]) => {
    const [observations, coldMs, coldEpochs, nextMs, nextEpochs, meanMs, meanEpochs, count] = l.trim().split(/\s+/).map(Number);
    return { observations, coldMs, coldEpochs, nextMs, nextEpochs, meanMs, meanEpochs, count };
  });
  return { data, rows };
}

async function native() {
  const before = load();
  const [out] = await run(HPO, ['bench-dyhpo-step', '--lcbench-dir', LCBENCH]);
  return { ...parseSteps(out), date: today(), load: [before, load()], where: `one thread of ${cpus()[0].model}` };
}

// The port of the local server the browser fetches LCBench from: fixed, since the test reads
// its URL when compiled and another would rebuild it (HPO_BENCH_LCBENCH_PORT if taken).
const LCBENCH_PORT = Number(process.env.HPO_BENCH_LCBENCH_PORT ?? 8417);

/** Serves LCBench's two files with CORS (the test page is on the runner's own port). */
function serveLcbench() {
  const server = createServer((req, res) => {
    const name = basename(req.url);
    if (!LCBENCH_SERVED.includes(name)) return res.writeHead(404).end();
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }).end(readFileSync(join(LCBENCH, name)));
  });
  return new Promise((resolve, reject) => server.once('error', reject).listen(LCBENCH_PORT, '127.0.0.1', () => resolve(server)));
}

async function wasm() {
  const server = LCBENCH_SERVED.every((f) => existsSync(join(LCBENCH, f))) ? await serveLcbench() : null;
  const url = server ? { HPO_BENCH_LCBENCH_URL: `http://127.0.0.1:${server.address().port}/` } : {};
  const test = ['test', '--release', '--target', 'wasm32-unknown-unknown', '--test', 'wasm_dyhpo_step_bench'];
  try {
    // Built first, so that the load average read before the measurement is not the build's.
    await run('cargo', [...test, '--no-run'], url);
    const before = load();
    const [out] = await run('cargo', [...test, '--', '--nocapture'], {
      ...url,
      CHROMEDRIVER: '/usr/bin/chromedriver',
      // One test of many minutes (the runner gives up after 20 s by default).
      WASM_BINDGEN_TEST_TIMEOUT: '7200',
    });
    const [browser] = await new Promise((resolve) => {
      const c = spawn('/usr/bin/chromium', ['--version']);
      let v = '';
      c.stdout.on('data', (d) => (v += d));
      c.on('close', () => resolve([v.trim().replace(/ built on .*/, '')]));
    });
    return { ...parseSteps(out), date: today(), load: [before, load()], where: `headless ${browser}, a dedicated worker` };
  } finally {
    server?.close();
  }
}

async function races() {
  const rows = [];
  for (const [file, budget] of STUDIES) {
    const before = load();
    const out = mkdtempSync(join(tmpdir(), 'dyhpo-race-'));
    const [, err] = await run(HPO, ['race', '--data', file, '--methods', RACE_METHODS.join(','), '--seeds', `${RACE_SEEDS}`, '--budget', `${budget}`, '--threads', '1', '--out', out]);
    // "[k/N] METHOD on TASK seed S: X s", one line per finished run.
    const runs = [...err.matchAll(/^\[\d+\/\d+\] (.+) on (.+) seed (\d+): ([\d.]+) s$/gm)];
    for (const method of RACE_METHODS) {
      const seconds = runs.filter((r) => r[1] === method).map((r) => Number(r[4]));
      rows.push({ file: basename(file), budget, method, seconds, load: [before, load()] });
    }
  }
  return { date: today(), where: `one thread of ${cpus()[0].model}`, rows };
}

const PARTS = { native, wasm, races };
const args = process.argv.slice(2);
const asked = args.length === 0 ? Object.keys(PARTS) : args.filter((a) => a !== 'write');
for (const part of asked) if (!PARTS[part]) throw new Error(`parts: ${Object.keys(PARTS).join(', ')}, or write alone; not '${part}'`);
if (asked.includes('native') || asked.includes('races')) await run('cargo', ['build', '--release', '--quiet', '--bin', 'hpo']);
const kept = existsSync(KEPT) ? JSON.parse(readFileSync(KEPT, 'utf8')) : {};
for (const part of asked) {
  kept[part] = await PARTS[part]();
  writeFileSync(KEPT, JSON.stringify(kept, null, 1));
}

const ms = (v) => (!Number.isFinite(v) ? '—' : v < 10_000 ? `${Math.round(v).toLocaleString('en')} ms` : `${(v / 1000).toFixed(1)} s`);
const cell = (r) => {
  if (!r) return '— | — | —';
  return `${ms(r.coldMs)} (${r.coldEpochs}) | ${ms(r.nextMs)} (${r.nextEpochs}) | ${ms(r.meanMs)} (${r.meanEpochs} epochs, ${r.count} steps)`;
};
const sizes = [...new Set([...(kept.native?.rows ?? []), ...(kept.wasm?.rows ?? [])].map((r) => r.observations))].sort((a, b) => a - b);
const stepRows = sizes.map((n) => `| ${n.toLocaleString('en')} | ${cell(kept.native?.rows.find((r) => r.observations === n))} | ${cell(kept.wasm?.rows.find((r) => r.observations === n))} |`);
const said = (p, name) => (p ? `${name}: ${p.data}; ${p.where}; ${p.date}; load average (1, 5, 15 min) ${p.load[0]} before, ${p.load[1]} after.` : `${name}: not measured.`);
const raceRows = (kept.races?.rows ?? []).map((r) => {
  const mean = r.seconds.reduce((a, b) => a + b, 0) / r.seconds.length;
  return `| ${r.file} | ${r.budget} | ${r.method} | ${mean.toFixed(1)} (${r.seconds.map((s) => s.toFixed(1)).join(', ')}) | ${r.load[0]} / ${r.load[1]} |`;
});
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'dyhpo-step', `Measured by \`node scripts/bench-dyhpo-step.mjs\`.

- ${said(kept.native, 'Native')}
- ${said(kept.wasm, 'Chromium')}

A step at n observations: the race grown to n by \`race_with_observations\` (half fresh
configurations at budget 1, half one more budget for a started one), then DyHPO's first step
on it — its fit starts from fresh parameters (cold) — and the next steps, each advancing the
configuration the step before chose and warm-starting from its fit, as in a run. Each cell:
wall time of fit + EI_MF over the open configurations, (Adam epochs of its fit).

| observations | native: cold | native: next step | native: mean of the next steps | Chromium: cold | Chromium: next step | Chromium: mean of the next steps |
|---|---|---|---|---|---|---|
${stepRows.join('\n')}

Whole runs on the studies Optuna wrote (\`hpo race --data FILE --methods '${RACE_METHODS.join(',')}' --seeds ${RACE_SEEDS} --budget BUDGET --threads 1\`; the budget is what the study spent, the page's default race), natively, ${kept.races ? `${kept.races.where}, ${kept.races.date}` : 'not measured'}: seconds per run, each task and seed a run.

| study | budget | method | seconds per run: mean (runs) | load average before / after |
|---|---|---|---|---|
${raceRows.join('\n')}`);
console.log('updated the dyhpo-step section of docs/benchmarks.md');
