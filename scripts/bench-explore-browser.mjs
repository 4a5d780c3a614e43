// The study panel's views in headless Chromium on the importance benchmark's study (1,000 trials
// x 8 parameters, scripts/bench-importance.py's speed study, made here by Optuna in the test
// venv): the worker's milliseconds for every view (reading the journal, 8 forests, the GP's
// slices and contour), best of 3, as the panel's status line reports them. Run after
// `trunk build --release`: node scripts/bench-explore-browser.mjs
import { mkdtemp } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/server.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = await mkdtemp(join(tmpdir(), 'hpo-explore-bench-'));
const journal = join(dir, 'speed-journal.log');
const python = join(ROOT, '.tools', 'py-test-venv', 'bin', 'python');
execFileSync(python, ['-c', `
import sys, optuna
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'scripts'))})
optuna.logging.set_verbosity(optuna.logging.ERROR)
import importlib.util
spec = importlib.util.spec_from_file_location("bench", ${JSON.stringify(join(ROOT, 'scripts', 'bench-importance.py'))})
bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
study = optuna.create_study(study_name="speed", storage=bench.storage_of(__import__("pathlib").Path(${JSON.stringify(journal)})), sampler=optuna.samplers.RandomSampler(seed=0))
study.optimize(bench.speed_objective, n_trials=1000)
`]);
const { server, url } = await serve(join(ROOT, 'dist'));
const b = await freshBrowser();
try {
  await b.page.goto(url);
  await b.page.waitForFunction(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
  await b.page.setInputFiles('#upload', journal);
  await b.page.waitForFunction(() => /^speed-journal: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
  const times = [];
  for (let k = 0; k < 3; k++) {
    await b.page.click('#study-explore');
    await b.page.waitForFunction(() => /Computed in \d+ ms in a worker/.test(document.querySelector('#study-status')?.textContent ?? ''), null, { timeout: 300_000 });
    const status = await b.page.locator('#study-status').textContent();
    times.push(Number(status.match(/Computed in (\d+) ms in a worker/)[1]));
  }
  console.log(`study panel, 1,000 trials x 8 parameters, Chromium worker: ${Math.min(...times)} ms (best of 3: ${times.join(', ')} ms)`);
} finally {
  await b.close();
  server.close();
}
