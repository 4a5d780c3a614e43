// End-to-end tests: a release build of the app in headless Chromium, driven like a user.
// Run by scripts/test.sh after `trunk build --release` and `cargo build --release --bin hpo`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { freshBrowser } from './browser.mjs';
import { LESSONS_VIEWS, EXPERIMENT_VIEWS, showView } from './views.mjs';
import { driverOf } from './drivers.mjs';
import {
  ROOT, SHARED, HAS_SHARED, HAS_LCBENCH, CLI, serveSite, openPage, runAndWait, download, setNumber, onlyTask, messages, cliTraces,
  cliRaceTraces, cliRun, cli, withoutTimes, tempDir,
  registryMethods,
} from './helpers.mjs';

let site;

before(async () => { site = await serveSite(); });
after(() => site.server.close());

const open = (query = '') => openPage(site, query);

test('bundled benchmark: run, charts and traces identical to the CLI', async () => {
  const b = await open();
  try {
    assert.match(await b.page.locator('#data-info').textContent(), /quadratic: 30 tasks/);
    await setNumber(b.page, 'seeds', 4);
    await setNumber(b.page, 'iters', 25);
    const status = await runAndWait(b.page);
    assert.match(status, /Finished 120 jobs \(3000 evaluations\)/);
    assert.equal(await b.page.locator('#chart-adtm polyline').count(), 1);
    assert.equal(await b.page.locator('#chart-adtm polygon').count(), 1, 'the band across seeds is drawn');
    // A legend entry hides its series and shows it again (by keyboard too).
    await b.page.click('#chart-adtm .legend-entry');
    assert.equal(await b.page.locator('#chart-adtm polyline').count(), 0);
    assert.equal(await b.page.getAttribute('#chart-adtm .legend-entry', 'aria-pressed'), 'false');
    await b.page.focus('#chart-adtm .legend-entry');
    await b.page.keyboard.press('Enter');
    assert.equal(await b.page.locator('#chart-adtm polyline').count(), 1);
    // Drag across the plot to zoom into iterations; the reset button (or Escape) undoes it.
    const ticks = () => b.page.locator('#chart-adtm text.tick').allTextContents();
    const before = await ticks();
    const box = await b.page.locator('#chart-adtm').boundingBox();
    const at = (f) => box.x + box.width * (72 + f * (720 - 72 - 200)) / 720;
    await b.page.mouse.move(at(0.4), box.y + box.height * 0.5);
    await b.page.mouse.down();
    await b.page.mouse.move(at(0.6), box.y + box.height * 0.5, { steps: 5 });
    await b.page.mouse.up();
    await b.page.waitForSelector('#chart-adtm .zoom-reset');
    const zoomed = await ticks();
    assert.notDeepEqual(zoomed, before);
    assert.ok(zoomed.includes('12') && !zoomed.includes('2'), `x ticks of the window: ${zoomed}`);
    await b.page.click('#chart-adtm .zoom-reset');
    assert.deepEqual(await ticks(), before);
    const csv = await download(b.page, '#export-csv');
    assert.equal(csv.split('\n')[0], 'seed,iteration,value,blackbox,task,optimizer');
    assert.equal(csv.trim().split('\n').length, 1 + 120 * 25);
    const query = new URL(await b.page.inputValue('#permalink')).search.slice(1);
    assert.equal(csv, await cliTraces(query), 'browser and CLI traces are byte-identical');
    const [png] = await Promise.all([b.page.waitForEvent('download'), b.page.click('figure:first-child button:has-text("PNG")')]);
    const pngBytes = await readFile(await png.path());
    assert.deepEqual([...pngBytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a real PNG');
    assert.ok(pngBytes.length > 10_000, `PNG of ${pngBytes.length} bytes`);
    const svg = await download(b.page, 'figure:first-child button:has-text("SVG")');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('one task out of 30 in two clicks: "none" unticks every task and Run waits with its reason until one is ticked', async () => {
  const b = await open();
  try {
    await b.page.click('#tasks-none');
    assert.equal(await b.page.locator('#tasks input:checked').count(), 0);
    assert.equal(await b.page.isDisabled('#run'), true);
    assert.match(await b.page.locator('#run-reason').textContent(), /No task is chosen/);
    await b.page.check('#tasks input[value="quadratic-07"]');
    await b.page.waitForFunction(() => /[?&]tasks=quadratic-07(&|$)/.test(location.search));
    assert.deepEqual(await b.page.locator('#tasks input:checked').evaluateAll((e) => e.map((x) => x.value)), ['quadratic-07']);
    assert.equal(await b.page.isDisabled('#run'), false);
    assert.match(await b.page.locator('#job-count').textContent(), / × 1 task × /);
    await b.page.click('#tasks-all');
    assert.equal(await b.page.locator('#tasks input:checked').count(), 30);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('a browser without WebAssembly SIMD gets a message instead of a blank page', async () => {
  const b = await freshBrowser();
  try {
    // A normal load shows no such message (checked by the other tests' pages too).
    await b.page.goto(site.url);
    await b.page.waitForFunction(() => /no data|loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.equal(await b.page.locator('#unsupported-browser').count(), 0);
    // A browser whose WebAssembly rejects the SIMD probe module.
    await b.page.addInitScript(() => { WebAssembly.validate = () => false; });
    await b.page.goto(site.url);
    await b.page.waitForSelector('#unsupported-browser', { timeout: 10_000 });
    assert.match(await b.page.locator('#unsupported-browser').textContent(), /needs a browser with WebAssembly SIMD/);
  } finally { await b.close(); }
});

test('XGBoost heart: 20 seeds x 100 iterations, link restores and re-runs identically', { skip: !HAS_SHARED && 'needs ../shared' }, async () => {
  const first = await open();
  let link, csv1;
  try {
    await first.page.selectOption('#data-source', 'shared:XGBoost.csv.zip');
    await first.page.waitForFunction(() => /XGBoost: 10 tasks, 50000 evaluations/.test((document.querySelector('#data-info')?.textContent ?? '')), null, { timeout: 60_000 });
    await onlyTask(first.page, 'heart');
    await setNumber(first.page, 'seeds', 20);
    await setNumber(first.page, 'iters', 100);
    assert.match(await first.page.locator('#job-count').textContent(), /1 method × 1 task × 20 seeds = 20 jobs of 100 iterations/);
    assert.match(await runAndWait(first.page), /Finished 20 jobs \(2000 evaluations\)/);
    assert.equal(await first.page.locator('#chart-adtm polygon').count(), 1);
    assert.match(await first.page.locator('#chart-adtm').textContent(), /ADTM over 1 task/);
    link = await first.page.inputValue('#permalink');
    assert.match(link, /data=shared:XGBoost.csv.zip&tasks=heart&methods=RS&seeds=20&seed0=0&iters=100/);
    csv1 = await download(first.page, '#export-csv');
    assert.equal(csv1, await cliTraces(new URL(link).search.slice(1)), 'browser and CLI traces are byte-identical');
    const detailed = await download(first.page, '#export-detailed');
    assert.equal(detailed.split('\n')[0], 'seed,iteration,value,blackbox,task,optimizer,configuration,best,optimizer_seconds');
  } finally { await first.close(); }

  const second = await freshBrowser();
  try {
    await second.page.goto(link);
    await second.page.waitForFunction(() => /loaded in/.test((document.querySelector('#data-info')?.textContent ?? '')), null, { timeout: 60_000 });
    assert.equal(await second.page.inputValue('#data-source'), 'shared:XGBoost.csv.zip');
    assert.equal(await second.page.inputValue('#seeds'), '20');
    assert.equal(await second.page.inputValue('#iters'), '100');
    const checked = await second.page.locator('#tasks input:checked').evaluateAll((els) => els.map((e) => e.value));
    assert.deepEqual(checked, ['heart']);
    assert.deepEqual(await messages(second.page, 'warning'), []);
    await runAndWait(second.page);
    assert.equal(await download(second.page, '#export-csv'), csv1, 're-running the link gives identical traces');
    assert.deepEqual(second.errors, []);
  } finally { await second.close(); }
});

test('every quantile-transfer file uploads as it is', { skip: !HAS_SHARED && 'needs ../shared' }, async () => {
  const b = await open();
  try {
    const expected = { 'DeepAR.csv.zip': /DeepAR: 11 tasks, 2510 evaluations/, 'XGBoost.csv.zip': /XGBoost: 10 tasks, 50000/, 'nas_bench102.csv.zip': /NAS: 3 tasks, 46875 evaluations, 6 hyperparameters \(30 model inputs\)/ };
    for (const file of (await readdir(SHARED)).filter((f) => f.endsWith('.zip'))) {
      await b.page.setInputFiles('#upload', join(SHARED, file));
      await b.page.waitForFunction((f) => ((document.querySelector('#permalink')?.value ?? '').includes(`upload:${f}@`)) && /loaded in/.test((document.querySelector('#data-info')?.textContent ?? '')), file, { timeout: 60_000 });
      assert.match(await b.page.locator('#data-info').textContent(), expected[file] ?? /loaded in/, file);
    }
    assert.deepEqual(await messages(b.page, 'error'), []);
  } finally { await b.close(); }
});

test('bad files get a clear message and keep the page working', async () => {
  const dir = await tempDir('hpo-bad-');
  const cases = [
    ['corrupted.zip', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), /corrupted\.zip: not a readable zip archive/],
    ['no-objective.csv', Buffer.from('hp_a,hp_b,task\n1,2,t\n3,4,t\n'), /no-objective\.csv, line 1: no objective column: expected at least one column named metric_\*/],
    ['image.csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48]), /image\.csv: this is a binary file, not a CSV/],
    ['ragged.csv', Buffer.from('hp_a,metric_error,task\n1,0.5,t\n2,0.4\n'), /ragged\.csv, line 3: expected 3 fields like the header, found 2/],
    ['text-metric.csv', Buffer.from('hp_a,metric_error,task\n1,0.5,t\n2,oops,t\n'), /text-metric\.csv, line 3, column 'metric_error': expected a number, found 'oops'/],
  ];
  const b = await open();
  try {
    for (const [name, bytes, pattern] of cases) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      await b.page.setInputFiles('#upload', path);
      await b.page.waitForFunction((n) => [...document.querySelectorAll('#messages .msg.error')].some((e) => e.textContent.includes(n)), name, { timeout: 30_000 });
      const errs = (await messages(b.page, 'error')).join('\n');
      assert.match(errs, pattern, `${name}: ${errs}`);
    }
    // The previously loaded benchmark is still usable.
    assert.match(await b.page.locator('#data-info').textContent(), /kept the previous data/);
    await setNumber(b.page, 'seeds', 1);
    assert.match(await runAndWait(b.page), /Finished 30 jobs/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('a tampered link names each bad field and falls back for those only', async () => {
  const b = await open('v=1&data=bundled:quadratic&seeds=-5&iters=30&bogus=1&tasks=quadratic-03,nope&methods=RS,XYZ&transfer=sideways');
  try {
    const warnings = (await messages(b.page, 'warning')).join('\n');
    for (const field of ["'seeds'", "'bogus'", "'transfer'", "'nope'", "'XYZ'"]) assert.ok(warnings.includes(field), `${field} missing in: ${warnings}`);
    assert.equal(await b.page.inputValue('#seeds'), '10', 'invalid seeds fall back to the default');
    assert.equal(await b.page.inputValue('#iters'), '30', 'valid fields are kept');
    const checked = await b.page.locator('#tasks input:checked').evaluateAll((els) => els.map((e) => e.value));
    assert.deepEqual(checked, ['quadratic-03']);
  } finally { await b.close(); }
});

test('a link whose commas a chat tool encoded, or whose whole query is encoded, opens the same setup as the plain link', async () => {
  const plain = 'v=1&data=bundled:curves&tasks=curves-01,curves-03&methods=ASHA,BOHB&seeds=3&race=100';
  const setups = [];
  for (const query of [plain, plain.replaceAll(',', '%2C'), encodeURIComponent(plain)]) {
    const b = await open(query);
    try {
      await b.page.waitForFunction(() => /^curves: 8 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
      assert.deepEqual((await messages(b.page, 'warning')).filter((w) => /link|method|unknown/.test(w)), [], query);
      setups.push({
        methods: await b.page.locator('#methods input:checked').evaluateAll((e) => e.map((x) => x.value)),
        tasks: await b.page.locator('#tasks input:checked').evaluateAll((e) => e.map((x) => x.value)),
        link: new URL(await b.page.inputValue('#permalink')).search,
      });
    } finally { await b.close(); }
  }
  assert.deepEqual(setups[0].methods, ['ASHA', 'BOHB']);
  assert.deepEqual(setups[0].tasks, ['curves-01', 'curves-03']);
  assert.deepEqual(setups[1], setups[0]);
  assert.deepEqual(setups[2], setups[0]);
});

test('an upload link asks for its file and verifies it by hash', async () => {
  const dir = await tempDir('hpo-up-');
  const good = join(dir, 'mine.csv');
  await writeFile(good, 'hp_x,metric_loss,task\n' + Array.from({ length: 40 }, (_, i) => `${i},${(i - 17) ** 2},t${i % 2}`).join('\n') + '\n');
  const other = join(dir, 'other.csv');
  await writeFile(other, 'hp_x,metric_loss,task\n1,2,t0\n');
  const first = await open();
  let link;
  try {
    await first.page.setInputFiles('#upload', good);
    await first.page.waitForFunction(() => (document.querySelector('#permalink')?.value ?? '').includes('upload:mine.csv@'));
    await setNumber(first.page, 'iters', 10);
    link = await first.page.inputValue('#permalink');
  } finally { await first.close(); }
  const second = await freshBrowser();
  try {
    await second.page.goto(link);
    await second.page.waitForFunction(() => /waiting for your file mine.csv/.test((document.querySelector('#data-info')?.textContent ?? '')));
    assert.match((await messages(second.page, 'info')).join(), /uses your file 'mine.csv'/);
    await second.page.setInputFiles('#upload', other);
    await second.page.waitForFunction(() => document.querySelector('#messages .msg.error'));
    assert.match((await messages(second.page, 'error')).join(), /other\.csv is not the file this link was made with/);
    await second.page.setInputFiles('#upload', good);
    await second.page.waitForFunction(() => /loaded in/.test((document.querySelector('#data-info')?.textContent ?? '')));
    assert.equal(await second.page.inputValue('#iters'), '10');
    assert.equal(await second.page.inputValue('#permalink'), link);
    assert.match(await runAndWait(second.page), /Finished 20 jobs \(200 evaluations\)/);
  } finally { await second.close(); }
});

test('cancel stops a long run and the page stays responsive', async () => {
  const b = await open('v=1&data=bundled:quadratic&methods=RS&seeds=1000&iters=256');
  try {
    await b.page.click('#run');
    // The time left comes from the jobs finished so far, once there are some.
    await b.page.waitForFunction(() => /jobs done.*about .* left/.test((document.querySelector('#run-status')?.textContent ?? '')));
    await b.page.click('#cancel');
    // The status says "keeping the last results" until the finished jobs are stored, then
    // "Cancelled": wait for it rather than read it at once.
    await b.page.waitForFunction(() => /^Cancelled/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match(await b.page.locator('#run-status').textContent(), /^Cancelled after \d+ of 30000 jobs/);
    // Responsive: a setup change is reflected at once.
    await setNumber(b.page, 'seeds', 2);
    assert.match(await b.page.locator('#job-count').textContent(), /= 60 jobs/);
  } finally { await b.close(); }
});

test('a run whose only job is running knows its time left after a few of its steps, in the singular for one worker', async () => {
  const b = await open('v=1&data=bundled:curves&methods=DyHPO&tasks=curves-00&seeds=1&race=200');
  try {
    await b.page.click('#run');
    await b.page.waitForFunction(() => /jobs done/.test((document.querySelector('#run-status')?.textContent ?? '')));
    const status = await b.page.locator('#run-status').textContent();
    assert.match(status, /^0 of 1 jobs done on 1 worker · .* elapsed · (time left known after a few steps of DyHPO|about .* left \(\d+% of the time done\))/);
    // Projected from the job's own pace along DyHPO's growing step, long before it ends.
    await b.page.waitForFunction(() => /^0 of 1 jobs done on 1 worker · .* about .* left \(\d+% of the time done\)/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match(await b.page.locator('#current-jobs').textContent(), /DyHPO · curves-00 · seed 0 — \d+\/200 budget units/);
    await b.page.click('#cancel');
  } finally { await b.close(); }
});

test('a generic CSV gets column roles from the user, and its link carries them', async () => {
  const dir = await tempDir('hpo-roles-');
  const file = join(dir, 'runs.csv');
  const lines = ['learning_rate,optimizer,run_id,val_accuracy,dataset'];
  for (let i = 0; i < 30; i++) lines.push(`${(0.001 * (i + 1)).toFixed(3)},${i % 3 ? 'adam' : 'sgd'},${i},${(0.5 + 0.01 * ((i * 7) % 30)).toFixed(2)},${i < 15 ? 'mnist' : 'cifar'}`);
  await writeFile(file, lines.join('\n') + '\n');
  const first = await open();
  let link;
  try {
    await first.page.setInputFiles('#upload', file);
    await first.page.waitForSelector('#role-editor');
    assert.match(await first.page.locator('#role-editor .role-message').textContent(), /runs\.csv is not in the copula format/);
    const role = (c) => first.page.locator(`#role-editor select[data-column="${c}"]`);
    assert.equal(await role('val_accuracy').inputValue(), 'max');
    assert.equal(await role('dataset').inputValue(), 'task');
    assert.equal(await role('optimizer').inputValue(), 'cat');
    assert.equal(await role('run_id').inputValue(), 'ignore', 'an id is bookkeeping: never proposed as a hyperparameter');
    // A role changed by hand: the id taken as a hyperparameter, then left out again.
    await role('run_id').selectOption('hp');
    await role('run_id').selectOption('ignore');
    await first.page.click('#apply-roles');
    await first.page.waitForFunction(() => /runs: 2 tasks, 30 evaluations, 2 hyperparameters \(3 model inputs\)/.test((document.querySelector('#data-info')?.textContent ?? '')));
    link = await first.page.inputValue('#permalink');
    assert.match(link, /hp=learning_rate,optimizer&cat=optimizer&metrics=val_accuracy:max&taskcol=dataset/);
    await setNumber(first.page, 'iters', 5);
    await setNumber(first.page, 'seeds', 2);
    assert.match(await runAndWait(first.page), /Finished 4 jobs \(20 evaluations\)/);
    link = await first.page.inputValue('#permalink');
  } finally { await first.close(); }
  const second = await freshBrowser();
  try {
    await second.page.goto(link);
    await second.page.waitForFunction(() => /waiting for your file runs.csv/.test((document.querySelector('#data-info')?.textContent ?? '')));
    await second.page.setInputFiles('#upload', file);
    await second.page.waitForFunction(() => /loaded in/.test((document.querySelector('#data-info')?.textContent ?? '')));
    assert.equal(await second.page.locator('#role-editor').count(), 0, 'the link supplies the roles');
    assert.equal(await second.page.inputValue('#permalink'), link);
    assert.match(await runAndWait(second.page), /Finished 4 jobs \(20 evaluations\)/);
  } finally { await second.close(); }
});

test('transfer methods run in the workers, learn each prior once across the prior view and runs, and the Table-2 view ranks them', async () => {
  const b = await open('v=1&data=bundled:quadratic&tasks=quadratic-02,quadratic-05,quadratic-11&methods=RS,GP,CTS,GCP%2Bprior,SGPT&seeds=2&iters=12');
  try {
    assert.equal(await b.page.locator('#methods input:checked').count(), 5);
    // A prior trained in the prior view is the one the run would train: the run takes it.
    await b.page.click('#prior-view summary');
    await b.page.selectOption('#prior-task', 'quadratic-02');
    await b.page.click('#prior-train');
    await b.page.waitForFunction(() => /RMSE/.test(document.querySelector('#prior-summary')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.equal(await b.page.isEnabled('#prior-train'), false, 'nothing to train: this prior is trained');
    const status = await runAndWait(b.page, 300_000);
    assert.match(status, /Finished 30 jobs \(360 evaluations\)/);
    // CTS and GCP+prior share the ψ prior of each held-out task, and SGPT's seeds the other
    // tasks' GPs: each learned once per task, by whichever worker first needs it, then handed
    // to the other workers; quadratic-02's prior came from the prior view.
    assert.match(status, / · 2 priors trained and 3 sets of other-task GPs fitted, each shared by every job that needs it · 1 prior reused from before \(same data and objective\)$/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    const rows = await b.page.locator('#table2 tbody tr').count();
    assert.equal(rows, 4, 'three tasks and the mean row');
    assert.deepEqual(await b.page.locator('#table2 thead th').allTextContents(), ['task', 'GP', 'CTS', 'GCP+prior', 'SGPT']);
    assert.equal(await b.page.locator('#table2 td.best').count(), 2, 'the best two are bold');
    assert.equal(await b.page.locator('canvas#fig4').count(), 1, 'Fig. 4: improvement vs prior RMSE for CTS and GCP+prior');
    // Drawn at the width it is shown at (it was drawn at 1,000 px and stretched to 1,198).
    const [drawn, shown, ratio] = await b.page.locator('canvas#fig4').evaluate((c) => [c.width, c.getBoundingClientRect().width, devicePixelRatio]);
    assert.ok(Math.abs(drawn - shown * ratio) <= 1, `Fig. 4 drawn ${drawn} px, shown ${shown} px`);
    const csv = await download(b.page, '#export-csv');
    const query = new URL(await b.page.inputValue('#permalink')).search.slice(1);
    assert.equal(csv, await cliTraces(query), 'transfer methods give identical traces in the browser and the CLI');
    // The prior view shows a prior a run trained, without training it again.
    await b.page.selectOption('#prior-task', 'quadratic-05');
    assert.match(await b.page.locator('#prior-summary').textContent(), /^Prior for quadratic-05 trained on \d+ evaluations of \d+ other tasks earlier on this data \(reused/);
    assert.equal(await b.page.locator('#prior-status').textContent(), 'Trained.');
    // Running again learns nothing anew, and gives the same traces.
    await b.page.click('#run');
    await b.page.waitForFunction(() => /^Finished.* reused from before/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 300_000 });
    const again = await b.page.locator('#run-status').textContent();
    assert.match(again, /Finished 30 jobs \(360 evaluations\).* · 3 priors and 3 sets of other-task GPs reused from before \(same data and objective\)$/);
    assert.doesNotMatch(again, /trained|fitted/);
    assert.equal(await download(b.page, '#export-csv'), csv, 'reused priors and means give the same traces');
  } finally { await b.close(); }
});

test('the prior view trains in a worker, cancels, and draws mean ± sd along each hyperparameter', async () => {
  const b = await open('v=1&data=bundled:quadratic&methods=RS');
  try {
    await b.page.click('#prior-view summary');
    await b.page.selectOption('#prior-task', 'quadratic-03');
    await b.page.click('#prior-train');
    await b.page.click('#prior-cancel');
    assert.equal(await b.page.locator('#prior-status').textContent(), 'Cancelled.');
    assert.equal(await b.page.isEnabled('#prior-train'), true, 'a cancelled training can be restarted');
    await b.page.click('#prior-train');
    await b.page.waitForFunction(() => /RMSE/.test(document.querySelector('#prior-summary')?.textContent ?? ''), null, { timeout: 120_000 });
    const summary = await b.page.locator('#prior-summary').textContent();
    assert.match(summary, /^Prior for quadratic-03 trained on \d+ evaluations of \d+ other tasks/);
    const rmse = Number(summary.match(/warped values: ([\d.]+)/)[1]);
    assert.ok(rmse < 1, `the quadratic tasks share their shape, so the prior should transfer (RMSE ${rmse})`);
    const pixels = () => b.page.evaluate(() => {
      const c = document.getElementById('prior-slice');
      return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data).join(',');
    });
    const first = await pixels();
    const params = await b.page.locator('#prior-param option').evaluateAll((o) => o.map((x) => x.value));
    assert.ok(params.length >= 2, 'one choice per hyperparameter');
    await b.page.selectOption('#prior-param', params[1]);
    await b.page.waitForFunction((before) => {
      const c = document.getElementById('prior-slice');
      return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data).join(',') !== before;
    }, first);
    assert.match(await b.page.locator('#prior-anchor').textContent(), /quadratic-03's best evaluation/);
    // Another warp makes the trained prior stale: nothing drawn until it is trained again.
    await b.page.selectOption('#prior-warp', 'standardize');
    assert.match(await b.page.locator('#prior-status').textContent(), /train again/);
    assert.equal(await b.page.locator('#prior-summary').textContent(), '');
    // A single task leaves nothing to transfer from: the view says so and will not train.
    const dir = await tempDir('hpo-one-');
    const one = join(dir, 'one.csv');
    await writeFile(one, 'hp_x,metric_loss,task\n' + Array.from({ length: 20 }, (_, i) => `${i},${(i - 7) ** 2},t0`).join('\n') + '\n');
    await b.page.setInputFiles('#upload', one);
    await b.page.waitForFunction(() => /needs other tasks/.test(document.querySelector('#prior-problem')?.textContent ?? ''));
    assert.equal(await b.page.isEnabled('#prior-train'), false);
    assert.equal(await b.page.locator('#prior-status').textContent(), '');
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('several objectives: hypervolume chart, objective space, Fig. 6 and the warping view, traces identical to the CLI', async () => {
  const b = await open('v=1&data=bundled:tradeoff&methods=RS&seeds=2&iters=15');
  try {
    assert.match(await b.page.locator('#data-info').textContent(), /tradeoff: 20 tasks/);
    await b.page.check('#multi-objective');
    const ticked = await b.page.locator('#objectives .mo-metric:checked').evaluateAll(e => e.map(x => x.value));
    assert.deepEqual(ticked, ['metric_error', 'metric_latency']);
    const offered = await b.page.locator('#methods input').evaluateAll(e => e.map(x => x.value));
    assert.ok(offered.includes('EHVI') && offered.includes('GCP+MO') && !offered.includes('GCP'), offered.join());
    await b.page.check('#methods input[value="GCP+MO"]');
    await b.page.check('#methods input[value="EHVI"]');
    await onlyTask(b.page, 'tradeoff-02');
    assert.match(await runAndWait(b.page), /Finished 6 jobs \(90 evaluations\)/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    assert.equal(await b.page.locator('#chart-hv polyline').count(), 3, 'one hypervolume-error curve per method');
    assert.equal(await b.page.locator('#table2').count(), 0, 'no Table 2 for multi-objective runs');
    const inked = id => b.page.evaluate(id => {
      const c = document.getElementById(id);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n++;
      return n;
    }, id);
    assert.ok(await inked('front-view') > 2000, 'the objective space is drawn');
    // The canvas charts' reader controls: a series toggles, a point reads out, a drag zooms.
    const front = b.page.locator('#front-view');
    const full = await inked('front-view');
    const toggle = b.page.locator('#objective-space .scatter-controls .legend-entry').filter({ hasText: 'true front' });
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.ok(await inked('front-view') < full, 'hiding the true front removes its ink');
    await toggle.press('Enter');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const box = await front.boundingBox();
    let read = '';
    for (let i = 0; i < 40 && !read; i++) {
      await b.page.mouse.move(box.x + box.width * (0.15 + 0.015 * i), box.y + box.height * (0.2 + 0.015 * i));
      read = await b.page.locator('#objective-space .hover-readout').first().textContent();
    }
    assert.match(read, /metric_error = [-0-9.e]+, metric_latency = [-0-9.e]+/, 'hovering a point reads its values');
    await b.page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.3);
    await b.page.mouse.down();
    await b.page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.6, { steps: 4 });
    await b.page.mouse.up();
    await b.page.waitForSelector('#objective-space .zoom-reset');
    await front.press('Escape');
    assert.equal(await b.page.locator('#objective-space .zoom-reset').count(), 0, 'Escape resets the zoom');
    for (const id of ['fig6-delta-25', 'fig6-delta-50', 'fig6-delta-75', 'fig6-psi-50', 'warp-raw', 'warp-psi', 'warp-ecdf']) {
      assert.ok(await inked(id) > 1000, `${id} is drawn`);
    }
    const link = await b.page.inputValue('#permalink');
    assert.match(link, /mo=metric_error:auto,metric_latency:auto/);
    const query = new URL(link).search.slice(1);
    assert.equal(await download(b.page, '#export-csv'), await cliTraces(query), 'browser and CLI traces are identical');
    const detailed = await download(b.page, '#export-detailed');
    assert.match(detailed.split('\n')[0], /,hv_error,objective_1,objective_2$/);
  } finally { await b.close(); }
  const tampered = await open('v=1&data=bundled:tradeoff&mo=metric_error:min,metric_nope:min&methods=EHVI');
  try {
    const warnings = (await messages(tampered.page, 'warning')).join('\n');
    assert.match(warnings, /'metric_nope' is not a metric/);
    assert.equal(await tampered.page.isChecked('#multi-objective'), false);
    assert.deepEqual(await tampered.page.locator('#methods input:checked').evaluateAll(e => e.map(x => x.value)), ['RS']);
  } finally { await tampered.close(); }
});

test('a multi-fidelity race: regret, ranks, CD diagrams, Fig. 6, the animated race view, traces identical to the CLI', async () => {
  const b = await open();
  try {
    await b.page.selectOption('#data-source', 'bundled:curves');
    await b.page.waitForFunction(() => /^curves: 8 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.match((await messages(b.page, 'info')).join('\n'), /has learning curves: set up a multi-fidelity race/);
    assert.equal(await b.page.isChecked('#race-mode'), true);
    assert.equal(await b.page.inputValue('#race-budget'), '200', 'five full trainings of 40 steps');
    const offered = await b.page.locator('#methods input').evaluateAll(e => e.map(x => x.value));
    assert.deepEqual(offered, await registryMethods('race'), 'the page offers every race method of the registry, in its order');
    const checked = await b.page.locator('#methods input:checked').evaluateAll(e => e.map(x => x.value));
    // 8 tasks × 10 seeds × 200 steps of the faithful DyHPO are minutes: its stand-in runs,
    // and the setup says how to get the paper's method back.
    assert.deepEqual(checked, ['RS', 'Hyperband', 'ASHA', 'BOHB', 'DyHPO (fast)']);
    assert.match((await messages(b.page, 'info')).join('\n'), /DyHPO would take about \d+ min on two cores \(80 runs of up to 200 steps, .*Tick DyHPO for the paper's/);
    await b.page.uncheck('#methods input[value="DyHPO (fast)"]');
    await b.page.check('#methods input[value="DyHPO"]');
    await onlyTask(b.page, 'curves-00');
    await b.page.check('#tasks input[value="curves-01"]');
    await b.page.check('#tasks input[value="curves-02"]');
    await setNumber(b.page, 'seeds', 2);
    await setNumber(b.page, 'race-budget', 60);
    assert.match(await b.page.locator('#job-count').textContent(), /5 methods × 3 tasks × 2 seeds = 30 jobs of 60 budget units/);
    assert.match(await runAndWait(b.page, 300_000), /Finished 30 jobs \(1800 budget units\)/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    for (const id of ['chart-regret', 'chart-ranks', 'chart-precision', 'chart-selected-regret']) {
      assert.ok(await b.page.locator(`#${id} polyline`).count() >= 5, `${id}: a curve per method`);
    }
    // The bundled curves have no training-time column: no chart plots budget units as seconds.
    assert.equal(await b.page.locator('#chart-regret-time').count(), 0);
    assert.match(await b.page.locator('#no-time-chart').textContent(), /no training-time column/);
    assert.ok(await b.page.locator('#chart-good-after-bad polyline').count() >= 6, 'and the fully-trained baseline');
    assert.equal(await b.page.isVisible('#curves-lesson'), true, 'the bundled curves explain why early stopping loses on them');
    for (const id of ['cd-50', 'cd-100']) {
      assert.equal(await b.page.locator(`#${id} .cd-method`).count(), 5, `${id} names every method`);
      assert.match(await b.page.locator(`#${id}`).textContent(), /over 3 tasksFriedman p = [0-9.e-]+; bars/);
    }
    // The race view: all 60 requests shown, then rewound to 10 and played to the end.
    const runs = await b.page.locator('#race-run option').count();
    assert.equal(runs, 30);
    // ASHA comes first: fewer requests than units (a promotion trains several steps at once).
    assert.match(await b.page.locator('#race-step-label').textContent(), /^request (\d+) of \1: 60 budget units on \d+ of 256 configurations/);
    await b.page.selectOption('#race-run', { label: 'DyHPO · curves-01 · seed 1' });
    assert.match(await b.page.locator('#race-step-label').textContent(), /^request 60 of 60: 60 budget units on \d+ of 256 configurations/, 'DyHPO: one unit per request');
    await b.page.fill('#race-step', '10');
    await b.page.locator('#race-step').dispatchEvent('input');
    assert.match(await b.page.locator('#race-step-label').textContent(), /^request 10 of 60: \d+ budget units/);
    const pointsAt10 = await b.page.locator('#race-curves circle').count();
    await b.page.click('#race-play');
    await b.page.waitForFunction(() => /^request 60 of 60/.test(document.querySelector('#race-step-label')?.textContent ?? ''), null, { timeout: 20_000 });
    assert.equal(await b.page.locator('#race-play').textContent(), 'Play');
    assert.ok(await b.page.locator('#race-curves circle').count() > pointsAt10, 'the animation adds points');
    // The page and the CLI agree on every request (optimizer seconds are wall time).
    const link = await b.page.inputValue('#permalink');
    assert.match(link, /race=60/);
    const csv = await download(b.page, '#export-race-csv');
    assert.equal(csv.split('\n')[0], 'method,task,seed,step,config,budget,value,best,spent,cost,optimizer_seconds');
    assert.deepEqual(withoutTimes(csv), withoutTimes(await cliRaceTraces(new URL(link).search.slice(1))));
    const svg = await download(b.page, '#cd-diagrams figure:first-child button:has-text("SVG")');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
  // A race link on a table without curves says so and falls back to full evaluations.
  const flat = await open('v=1&data=bundled:quadratic&methods=DyHPO,ASHA&race=100');
  try {
    assert.match((await messages(flat.page, 'warning')).join('\n'), /quadratic has no learning curves/);
    assert.equal(await flat.page.isChecked('#race-mode'), false);
    assert.deepEqual(await flat.page.locator('#methods input:checked').evaluateAll(e => e.map(x => x.value)), ['RS']);
  } finally { await flat.close(); }
});

test('GPB: the design view follows its link and shows the equivalence theorem; GPB races as in the CLI', async () => {
  // The README's form, without the version field: accepted without a word, and the panel it
  // opens is brought into view.
  const b = await open('design=Random.D.10.0');
  const redCells = () => b.page.locator('#design-map rect[fill="rgb(255,0,0)"]').count();
  const maxD = async () => Number((await b.page.locator('#design-numbers td').nth(2).textContent()).match(/^[-0-9.e]+/)[0]);
  try {
    await b.page.waitForFunction(() => document.querySelectorAll('#design-map .design-point').length === 10);
    assert.deepEqual(await messages(b.page, 'warning'), []);
    await b.page.waitForFunction(() => {
      const r = document.querySelector('#design-panel').getBoundingClientRect();
      return r.top >= -1 && r.top < window.innerHeight / 2;
    }, null, { timeout: 10_000 });
    const random = { red: await redCells(), maxD: await maxD() };
    assert.ok(random.maxD > 0, 'a random design is not optimal');
    await b.page.selectOption('#design-method', 'IC');
    await b.page.waitForFunction(() => /IC \(D-optimality, N = 10\)/.test(document.querySelector('#design-numbers')?.textContent ?? ''));
    assert.match(b.page.url(), /design=IC\.D\.10\.0/);
    assert.ok(await maxD() < random.maxD, 'IC lowers max d');
    assert.ok(await redCells() < random.red, 'and shrinks the region where d is large');
    await setNumber(b.page, 'design-points', 6);
    await b.page.waitForFunction(() => document.querySelectorAll('#design-map .design-point').length === 6);
    assert.match(b.page.url(), /design=IC\.D\.6\.0/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
  // On loaded data: the task's configurations at the race's budget levels, drawn over two
  // chosen hyperparameters; the axes are in the link.
  const onData = await open('v=1&data=bundled:curves&design=IC.D.10.0.0.2');
  try {
    await onData.page.waitForSelector('#design-map .design-candidate');
    assert.match(await onData.page.locator('#design-panel').textContent(), /256 of the 256 configurations of curves, curves-00 \(all 3 inputs/);
    assert.equal(await onData.page.locator('#design-map .design-candidate').count(), 256);
    assert.equal(await onData.page.locator('#design-map .design-point').count(), 10);
    assert.match(await onData.page.locator('#design-panel').textContent(), /budgets: ● 1, ■ 8, ▲ 16, ◆ 24, ▼ 32, ✚ 40/);
    assert.match(await onData.page.locator('#design-map').textContent(), /hp_lr/);
    await onData.page.selectOption('#design-axis-x', { label: 'hp_width' });
    await onData.page.waitForFunction(() => /design=IC\.D\.10\.0\.1\.2/.test(location.search));
    await onData.page.waitForFunction(() => /hp_width/.test(document.querySelector('#design-map')?.textContent ?? ''));
    await onData.page.selectOption('#design-space', 'square');
    await onData.page.waitForFunction(() => /design=IC\.D\.10\.0(&|$)/.test(location.search));
    await onData.page.waitForFunction(() => document.querySelectorAll('#design-map .design-candidate').length === 0
      && /x₁ \(unit scale\)/.test(document.querySelector('#design-map')?.textContent ?? ''));
    assert.deepEqual(onData.errors, []);
  } finally { await onData.close(); }
  const badAxes = await open('v=1&data=bundled:curves&design=IC.D.10.0.0.9');
  try {
    await badAxes.page.waitForFunction(() => /must be two different hyperparameters of curves, which has 3/.test(document.querySelector('#design-status')?.textContent ?? ''));
  } finally { await badAxes.close(); }
  const bad = await open('v=1&design=IC.D.99.0');
  try {
    assert.match((await messages(bad.page, 'warning')).join('\n'), /design.*4 to 30 points/);
  } finally { await bad.close(); }
  // GPB and its baseline race exactly as in the CLI on a table of 7 hyperparameters, where
  // every GLS product of the model (FᵀR⁻¹F, 9 × 9) and of the designs is larger than 5 × 5:
  // LCBench's when ../shared has it, else the generated wide-curves table, uploaded.
  const methods = 'methods=GPB%20(IC),GP%20(max%20budget)&seeds=1';
  let query, data = [], upload;
  if (HAS_LCBENCH) {
    query = `v=1&data=shared:lcbench-surrogate.zip&tasks=credit_g&${methods}&race=1200`;
  } else {
    upload = join(await tempDir('hpo-wide-'), 'wide-curves.csv');
    await cli(['generate', 'wide-curves', '--out', upload]);
    query = `v=1&data=upload:wide-curves.csv@${createHash('sha256').update(await readFile(upload)).digest('hex')}&tasks=wide-00&${methods}&race=600`;
    data = ['--data', upload];
  }
  const r = await open(query);
  try {
    if (upload) await r.page.setInputFiles('#upload', upload);
    await r.page.waitForFunction(() => /7 hyperparameters/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
    const budget = HAS_LCBENCH ? 1200 : 600;
    assert.match(await runAndWait(r.page, 600_000), new RegExp(`Finished 2 jobs \\(${2 * budget} budget units\\)`));
    assert.deepEqual(await messages(r.page, 'error'), []);
    const csv = await download(r.page, '#export-race-csv');
    const { files: [cliCsv] } = await cliRun(query, data, ['race-traces.csv']);
    const rows = withoutTimes(csv);
    assert.ok(rows.filter((l) => l.startsWith('GP (max budget)')).length > 20, 'the baseline fits its model after its 20-point design');
    assert.deepEqual(rows, withoutTimes(cliCsv));
    assert.deepEqual(r.errors, []);
  } finally { await r.close(); }
});

test('LCBench from ../shared: the staged folder loads as one benchmark and races as in the CLI', { skip: !HAS_SHARED && 'needs ../shared' }, async () => {
  const query = 'v=1&data=shared:lcbench-surrogate.zip&tasks=credit_g,vehicle&methods=RS,ASHA,BOHB&seeds=2&race=120';
  const b = await open(query);
  try {
    assert.match(await b.page.locator('#data-info').textContent(), /^LCBench: 34 tasks, 68000 evaluations, 7 hyperparameters/);
    assert.deepEqual(await messages(b.page, 'warning'), []);
    assert.equal(await b.page.isChecked('#race-mode'), true);
    assert.match(await runAndWait(b.page, 300_000), /Finished 12 jobs \(1440 budget units\)/);
    assert.equal(await b.page.isVisible('#curves-lesson'), false, 'the adversarial-curves note is for the bundled family only');
    assert.ok(await b.page.locator('#chart-regret polyline').count() >= 3);
    const csv = await download(b.page, '#export-race-csv');
    assert.deepEqual(withoutTimes(csv), withoutTimes(await cliRaceTraces(query)));
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

// Learn: each lesson opens from its link, steps forward and back to identical states, plays,
// takes a click and a pinned lengthscale into its link, and hides what its switches name.
test('lessons open from their links, step back to identical states and hide what the link says', async () => {
  const b = await open('learn=gp-ei&step=2');
  const svg = () => b.page.locator('#lesson-posterior').innerHTML();
  const url = () => new URL(b.page.url()).search;
  try {
    await b.page.waitForSelector('#lesson-posterior circle');
    assert.match(await b.page.locator('#lesson-explain').textContent(), /^Step 2: EI picked x = /);
    const at2 = await svg();
    await b.page.click('#lesson-step');
    await b.page.waitForFunction(() => /step=3/.test(location.search));
    assert.notEqual(await svg(), at2);
    await b.page.click('#lesson-back');
    await b.page.waitForFunction(() => /step=2/.test(location.search));
    assert.equal(await svg(), at2, 'back gives the identical picture');
    // Play runs by itself (8 steps per second) until paused; the link says it is playing.
    await b.page.selectOption('#lesson-speed', '8');
    await b.page.click('#lesson-play');
    await b.page.waitForFunction(() => Number(new URLSearchParams(location.search).get('step')) >= 6);
    assert.match(url(), /play=1/);
    await b.page.click('#lesson-play');
    assert.doesNotMatch(url(), /play=1/);
    // A click on the chart adds an observation, which the link keeps.
    const before = Number((await b.page.locator('#lesson-numbers').textContent()).match(/(\d+) observations/)[1]);
    const box = await b.page.locator('#lesson-posterior').boundingBox();
    await b.page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await b.page.waitForFunction(() => /lx=0\.\d+/.test(location.search));
    // The frames of the new setting come from a worker: wait for them.
    await b.page.waitForFunction((n) => new RegExp(`· ${n} observations`).test(document.querySelector('#lesson-numbers')?.textContent ?? ''), before + 1);
    // The slider follows the fitted lengthscale until it is pinned, and pinning keeps that value.
    const fitted = (await b.page.locator('#lesson-numbers').textContent()).match(/ℓ = ([0-9.]+) \(fitted\)/)[1];
    const slider = Number(await b.page.locator('#lesson-ls').inputValue());
    assert.ok(Math.abs(10 ** slider - Number(fitted)) < 0.15 * Number(fitted), `the slider shows ℓ = ${10 ** slider}, the fit ${fitted}`);
    await b.page.uncheck('#lesson-ls-fit');
    await b.page.waitForFunction((l) => location.search.includes(`ls=${l}`), String(Number(fitted)));
    await b.page.waitForFunction((l) => document.querySelector('#lesson-numbers')?.textContent.includes(`ℓ = ${l} (pinned)`), fitted);
    // The keyboard's way to add a point.
    await b.page.fill('#lesson-add-x', '0.25');
    await b.page.click('#lesson-add');
    await b.page.waitForFunction(() => /lx=[0-9.,]*0\.25/.test(location.search));
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
  // Hide switches: what the link hides is absent, and the checkboxes bring it back.
  const h = await open('learn=gp-ei&step=1&ei_hide=1&text_hide=1');
  try {
    await h.page.waitForSelector('#lesson-posterior circle');
    assert.equal(await h.page.locator('#lesson-ei').count(), 0);
    assert.equal(await h.page.locator('#lesson-text').count(), 0);
    assert.equal(await h.page.locator('#lesson-numbers').count(), 1);
    await h.page.click('#lesson-hide summary');
    await h.page.check('#show-ei');
    await h.page.waitForSelector('#lesson-ei polygon');
    assert.doesNotMatch(new URL(h.page.url()).search, /ei_hide/);
    await h.page.uncheck('#show-controls');
    assert.equal(await h.page.locator('#lesson-play').count(), 0);
    assert.match(new URL(h.page.url()).search, /controls_hide=1/);
  } finally { await h.close(); }
  // A lesson that does not exist: a message and the list of six, not lesson 1.
  const u = await open('learn=nope&step=2');
  try {
    await u.page.waitForSelector('#lesson-none');
    assert.match((await messages(u.page, 'warning')).join('\n'), /there is no lesson 'nope'/);
    assert.equal(await u.page.locator('#lesson-list a').count(), 6);
    assert.equal(await u.page.locator('#lesson-posterior').count(), 0);
  } finally { await u.close(); }
  // Lesson 5: IC's iterates, max d falling from the start to the end.
  const d = await open('learn=designs&step=0');
  try {
    await d.page.waitForSelector('#design-map .design-point');
    const maxD = async () => Number((await d.page.locator('#lesson-numbers').textContent()).match(/max d (-?[0-9.]+(?:e-?\d+)?)/)[1]);
    const start = await maxD();
    const last = Number((await d.page.locator('#lesson-step-label').textContent()).match(/of (\d+)/)[1]);
    assert.ok(last > 1, 'IC takes several iterates');
    for (let k = 0; k < last; k++) await d.page.click('#lesson-step');
    await d.page.waitForFunction((n) => new URLSearchParams(location.search).get('step') === String(n), last);
    assert.ok(await maxD() < start, 'IC lowers max d');
    assert.equal(await d.page.isDisabled('#lesson-step'), true);
    // Drag a design point: the link carries the placed design, iterate 0 shows it, IC improves it.
    await d.page.click('#lesson-start');
    const handle = d.page.locator('#design-map .design-handle').first();
    const box = await handle.boundingBox();
    const map = await d.page.locator('#design-map').boundingBox();
    await d.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await d.page.mouse.down();
    await d.page.mouse.move(map.x + map.width * 0.2, map.y + map.height * 0.2, { steps: 5 });
    await d.page.mouse.up();
    await d.page.waitForFunction(() => /lp=/.test(location.search) && /step=0/.test(location.search));
    // The frames of the placed design, not the previous ones still drawn while it computes.
    const settled = () => d.page.waitForSelector('#lesson-designs[aria-busy="false"]');
    await settled();
    assert.match(await d.page.locator('#lesson-numbers').textContent(), /from your placement/);
    const placed = new URLSearchParams(new URL(d.page.url()).search).get('lp');
    assert.equal(placed.split(',').length, 10);
    // The keyboard moves a point too.
    await d.page.locator('#design-map .design-handle').nth(1).focus();
    await d.page.keyboard.press('ArrowRight');
    await d.page.waitForFunction((p) => new URLSearchParams(location.search).get('lp') !== p, placed);
    await settled();
    const fromPlaced = await maxD();
    const end = Number((await d.page.locator('#lesson-step-label').textContent()).match(/of (\d+)/)[1]);
    for (let k = 0; k < end; k++) await d.page.click('#lesson-step');
    await d.page.waitForFunction((n) => new URLSearchParams(location.search).get('step') === String(n), end);
    assert.ok(await maxD() < fromPlaced, 'IC improves the placed design');
    await d.page.click('#lesson-design-unplace');
    await d.page.waitForFunction(() => !/lp=/.test(location.search));
    assert.deepEqual(d.errors, []);
  } finally { await d.close(); }
  // Lesson 2: a huge value squeezes the standardised values but not ψ; back and forth agree.
  const c = await open('learn=copula&step=5');
  try {
    await c.page.waitForSelector('#lesson-warped circle');
    const spreads = async () => (await c.page.locator('#lesson-numbers').textContent()).match(/standardised ([0-9.]+), ψ ([0-9.]+)/).slice(1).map(Number);
    const at5 = await c.page.locator('#lesson-ecdf').innerHTML();
    await c.page.click('#lesson-step');
    await c.page.click('#lesson-back');
    await c.page.waitForFunction(() => /step=5/.test(location.search));
    assert.equal(await c.page.locator('#lesson-ecdf').innerHTML(), at5);
    const [s0, p0] = await spreads();
    await c.page.fill('#lesson-add-y', '100000');
    await c.page.click('#lesson-add');
    await c.page.waitForFunction(() => /ly=100000/.test(location.search));
    const [s1, p1] = await spreads();
    assert.ok(s1 < 0.2 * s0 && p1 > 0.8 * p0, `the sample's spread: standardised ${s0} → ${s1}, ψ ${p0} → ${p1}`);
    assert.deepEqual(c.errors, []);
  } finally { await c.close(); }
  // A tampered lesson link names each bad field.
  const t = await open('learn=gp-ei&step=abc&ls=9&speed=3');
  try {
    await t.page.waitForSelector('#lesson-posterior circle');
    const w = (await messages(t.page, 'warning')).join('\n');
    for (const part of [/step/, /lengthscale '9'/, /speed/]) assert.match(w, part);
  } finally { await t.close(); }
});

// Lessons 2 (GP against GCP), 3, 4 and 6: frames from a worker, stepping back gives the same
// picture, and each lesson's own hide switches hide what they name.
test('lessons 3, 4 and 6 (and lesson 2\'s GP against GCP) open from their links, show each step and step back to identical states', async () => {
  const sameAfterStepAndBack = async (page, ids, step) => {
    const before = await Promise.all(ids.map((id) => page.locator(id).innerHTML()));
    await page.click('#lesson-step');
    await page.waitForFunction((n) => new URLSearchParams(location.search).get('step') === String(n), step + 1);
    await page.click('#lesson-back');
    await page.waitForFunction((n) => new URLSearchParams(location.search).get('step') === String(n), step);
    assert.deepEqual(await Promise.all(ids.map((id) => page.locator(id).innerHTML())), before);
  };
  // Lesson 3: the prior, CTS's draws, GCP+prior's warm start then its residual GP.
  const t = await open('learn=transfer&step=3');
  try {
    await t.page.waitForSelector('#lesson-prior circle.draw');
    assert.match(await t.page.locator('#lesson-run-prior').textContent(), /Thompson warm start \(4 of 5\)/);
    assert.match(await t.page.locator('#lesson-run-gcp').textContent(), /random start \(4 of 5\)/);
    const rmse = Number((await t.page.locator('#lesson-numbers').textContent()).match(/prior RMSE on the new task's ψ ([0-9.]+)/)[1]);
    assert.ok(rmse < 1, `the prior predicts the new task better than 0: RMSE ${rmse}`);
    await sameAfterStepAndBack(t.page, ['#lesson-prior', '#lesson-run-prior', '#lesson-run-gcp', '#lesson-regret'], 3);
    for (let k = 3; k < 6; k++) await t.page.click('#lesson-step');
    await t.page.waitForFunction(() => /its GP in ψ\(y\) units/.test(document.querySelector('#lesson-run-prior')?.textContent ?? ''));
    await t.page.click('#lesson-hide summary');
    await t.page.uncheck('#show-prior');
    assert.equal(await t.page.locator('#lesson-prior').count(), 0);
    assert.equal(await t.page.locator('#lesson-run-prior').count(), 1);
    assert.match(new URL(t.page.url()).search, /prior_hide=1/);
    assert.deepEqual(t.errors, []);
  } finally { await t.close(); }
  // Lesson 4: the table's first row is the configuration DyHPO advances; Hyperband's bracket.
  const m = await open('learn=multi-fidelity&step=30&hyperband_hide=1');
  try {
    await m.page.waitForSelector('#lesson-scores tr.chosen');
    assert.equal(await m.page.locator('#lesson-hyperband').count(), 0, 'hidden by the link');
    const chosen = (await m.page.locator('#lesson-scores tr.chosen td').first().textContent()).split(' · ')[0].trim();
    assert.match(await m.page.locator('#lesson-explain').textContent(), new RegExp(`(configuration ${chosen} from epoch|a new configuration)`));
    assert.match(await m.page.locator('#lesson-numbers').textContent(), /epoch 30 of 120/);
    await sameAfterStepAndBack(m.page, ['#lesson-dyhpo', '#lesson-scores'], 30);
    await m.page.click('#lesson-hide summary');
    await m.page.check('#show-hyperband');
    await m.page.waitForSelector('#lesson-hyperband circle');
    assert.match(await m.page.locator('#lesson-hyperband').textContent(), /bracket 1, rung \d/);
    assert.deepEqual(m.errors, []);
  } finally { await m.close(); }
  // The last steps say who won and why, with the numbers the line under the player shows,
  // then how the race ends over seeds (tests/e2e/lessons-over-seeds.test.mjs reads that).
  const end = await open('learn=multi-fidelity&step=120');
  try {
    await end.page.waitForSelector('#lesson-hyperband circle');
    const [, d, h] = /lowest curve now: DyHPO ([0-9.]+), Hyperband ([0-9.]+)/.exec(await end.page.locator('#lesson-numbers').textContent());
    const [winner, loser, w, l] = Number(d) < Number(h) ? ['DyHPO', 'Hyperband', d, h] : ['Hyperband', 'DyHPO', h, d];
    const tally = (name) => `${name} started \\d+ configurations? and trained its best for \\d+ epochs?`;
    assert.match(await end.page.locator('#lesson-explain').textContent(),
      new RegExp(`^All 120 epochs spent: on this task ${winner} ends lower, its best curve at ${w} against ${l} for ${loser}'s\\. ${tally(winner)}; ${tally(loser)}: .+?\\. (Counting|Over 20 seeds)`));
  } finally { await end.close(); }
  const last = await open('learn=transfer&step=15');
  try {
    await last.page.waitForSelector('#lesson-regret polyline', { state: 'attached' });
    assert.match(await last.page.locator('#lesson-explain').textContent(),
      /^After all 15 evaluations: GCP\+prior found -?[0-9.]+ at evaluation \d+, GCP found -?[0-9.]+ at evaluation \d+, CTS found -?[0-9.]+ at evaluation \d+ \(the task's minimum is -?[0-9.]+\)\. [A-Z+ a-z]+ (ends lowest|got there first): .+?\. (Counting|Over 20 seeds)/);
  } finally { await last.close(); }
  // Lesson 6: one found point per step; another method restarts the run at step 0.
  const p = await open('learn=pareto&step=10');
  try {
    await p.page.waitForSelector('#lesson-front');
    assert.equal(await p.page.locator('#lesson-objectives circle.found').count(), 10);
    await sameAfterStepAndBack(p.page, ['#lesson-objectives', '#lesson-hv'], 10);
    await p.page.selectOption('#lesson-method', 'ParEGO');
    await p.page.waitForFunction(() => /lm=ParEGO/.test(location.search) && /step=0/.test(location.search));
    await p.page.waitForFunction(() => /^ParEGO/.test(document.querySelector('#lesson-numbers')?.textContent ?? ''));
    assert.equal(await p.page.locator('#lesson-objectives circle.found').count(), 0);
    assert.deepEqual(p.errors, []);
  } finally { await p.close(); }
  // Lesson 2's second part: GP and GCP from the same seed, side by side.
  const c = await open('learn=copula&step=7');
  try {
    await c.page.waitForSelector('#lesson-versus-gcp circle.obs');
    assert.match(await c.page.locator('#lesson-versus-numbers').textContent(), /after 7 evaluations: best found by GP [0-9.]+, by GCP [0-9.]+/);
    await sameAfterStepAndBack(c.page, ['#lesson-versus-gp', '#lesson-versus-gcp'], 7);
  } finally { await c.close(); }
});

// Offline use: once a page has loaded, every lesson opens and plays without a network — the
// page (any query), its wasm, the lesson worker and the bundled data come from sw.js's cache.
test('lessons work offline once the page has loaded', async () => {
  const b = await freshBrowser();
  try {
    await b.page.goto(`${site.url}?learn=gp-ei&step=2`);
    await b.page.waitForSelector('#lesson-posterior circle');
    await b.page.waitForFunction(() => document.documentElement.dataset.offline === 'ready', null, { timeout: 30_000 });
    // Everything the first visit fetched is kept: the page, its scripts, both wasm files and the worker's.
    const [kept, of] = (await b.page.evaluate(() => document.documentElement.dataset.offlineKept)).split(' of ').map(Number);
    assert.ok(kept === of && of >= 8, `${kept} of ${of} files kept for offline use`);
    await b.context.setOffline(true);
    // On a timeout, say what the page showed instead.
    const shows = async (query, selector) => {
      await b.page.goto(`${site.url}?${query}`);
      await b.page.waitForSelector(selector).catch(async (e) => {
        const said = await b.page.locator('.lesson').textContent({ timeout: 1000 }).catch(() => '(no lesson)');
        const cached = await b.page.evaluate(async () => [navigator.serviceWorker.controller ? 'controlled' : 'not controlled',
          ...(await (await caches.open('hpo-playground-v1')).keys()).map((r) => r.url.replace(location.origin, ''))].join(' ')).catch((x) => String(x));
        throw new Error(`${query} offline: ${e.message}\npage: ${said.slice(0, 600)}\nerrors: ${b.errors.join(' | ')}\ncache: ${cached}`);
      });
    };
    await shows('learn=copula&step=3', '#lesson-ecdf polyline');
    await shows('learn=gp-ei&step=5&seed=3', '#lesson-posterior circle');
    assert.match(await b.page.locator('#lesson-numbers').textContent(), /step 5 of/);
    await shows('learn=transfer&step=6', '#lesson-prior circle.draw');
    await b.context.setOffline(false);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

// A 100 MB upload: read, hashed and parsed off the page's thread, with a word on each stage;
// how long the page's thread pauses is measured by scripts/bench-browser.mjs, not here.
test('a 100 MB CSV uploads and loads', async () => {
  const dir = await tempDir('hpo-big-');
  const path = join(dir, 'big.csv');
  const lines = ['task,hp_a,hp_b,hp_c,metric_error'];
  let size = 0, n = 0, x = 1;
  const next = () => { x = (x * 48271) % 2147483647; return (x / 2147483647).toFixed(6); };
  const chunks = [];
  while (size < 100 * 1024 * 1024) {
    const line = `task${n % 8},${next()},${next()},${next()},${next()}\n`;
    chunks.push(line); size += line.length; n++;
    if (chunks.length === 100_000) { lines.push(chunks.join('')); chunks.length = 0; }
  }
  lines.push(chunks.join(''));
  await writeFile(path, lines[0] + '\n' + lines.slice(1).join(''));
  const b = await open();
  try {
    await b.page.evaluate(() => {
      window.stages = [];
      new MutationObserver(() => window.stages.push(document.querySelector('#data-info')?.textContent ?? ''))
        .observe(document.querySelector('#data-info'), { childList: true, subtree: true, characterData: true });
    });
    await b.page.setInputFiles('#upload', path);
    await b.page.waitForFunction(() => /^big: 8 tasks/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.match(await b.page.locator('#data-info').textContent(), new RegExp(`big: 8 tasks, ${n} evaluations, 3 hyperparameters`));
    const stages = (await b.page.evaluate(() => window.stages)).join('\n');
    assert.match(stages, /reading big\.csv/);
    assert.match(stages, /parsing big\.csv \(100 MiB\) in a worker/);
    // The page still works: the new data runs.
    await setNumber(b.page, 'seeds', 1);
    await setNumber(b.page, 'iters', 5);
    await onlyTask(b.page, 'task3');
    assert.match(await runAndWait(b.page), /Finished 1 job/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

// A strict Content-Security-Policy (scripts/csp.mjs): no inline script, no eval beyond
// WebAssembly's, and no violation while lessons, workers, a run and an export do their work.
test('a strict Content-Security-Policy holds on every kind of view', async () => {
  const b = await freshBrowser();
  try {
    await b.context.addInitScript(() => {
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const views = [
      ['', '#landing-preview circle'],
      ['learn=transfer&step=2', '#lesson-prior circle.draw'],
      ['learn=designs&step=1', '#design-map .design-point'],
      ['v=1&seeds=1&iters=5', '#data-info'],
    ];
    for (const [query, ready] of views) {
      await b.page.goto(site.url + (query ? `?${query}` : ''));
      await b.page.waitForSelector(ready);
      if (query.startsWith('v=1')) {
        await b.page.click('#run');
        await b.page.waitForFunction(() => /^Finished/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 60_000 });
        await download(b.page, 'figure:has(#chart-best) button:has-text("PNG")');
      }
      assert.deepEqual(await b.page.evaluate(() => window.cspViolations), [], `view '${query}'`);
    }
    const policy = await b.page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    const script = policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
    assert.equal(script, "script-src 'self' 'wasm-unsafe-eval'");
    assert.match(policy, /object-src 'none'/);
    assert.match(policy, /worker-src 'self'(;|$)/, 'workers start from the site only (no blob: shim)');
    assert.equal(await b.page.locator('script:not([src])').count(), 0, 'no inline script in the page');
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('the first visit shows a lesson playing and the three ways in', async () => {
  const b = await freshBrowser();
  try {
    await b.page.goto(site.url);
    await b.page.waitForSelector('#landing-preview circle');
    const first = await b.page.locator('#landing-preview').innerHTML();
    await b.page.waitForFunction((f) => document.querySelector('#landing-preview').innerHTML !== f, first, { timeout: 30_000 });
    for (const id of ['#landing-learn', '#landing-explore', '#landing-link']) assert.equal(await b.page.locator(id).count(), 1);
    await b.page.fill('#landing-link', 'not a link');
    await b.page.click('#landing-open button');
    assert.match(await b.page.locator('#landing-link-error').textContent(), /does not look like a link/);
    await b.page.fill('#landing-link', `${site.url}?learn=designs&step=2`);
    await b.page.click('#landing-open button');
    await b.page.waitForSelector('#lesson-designs');
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

// axe-core on every view: no serious or critical violation.
test('accessibility: axe-core finds no serious or critical violation on every view', async () => {
  for (const view of [...LESSONS_VIEWS, ...EXPERIMENT_VIEWS]) {
    const b = await open(view.query);
    try {
      await showView(driverOf(b.page), view);
      // Through the DevTools protocol: the page's own policy rightly refuses inline script tags.
      await b.page.evaluate(await readFile(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
      const bad = await b.page.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
      assert.deepEqual(bad, [], `view '${view.query}'`);
    } finally { await b.close(); }
  }
});
