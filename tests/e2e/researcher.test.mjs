// A researcher's own learning curves as they come: diverged points, a step_0 column and
// hyperparameters spanning decades load the same in the page and the CLI, every repair and
// scale is said, the choices live in the link, and race regret is normalised across tasks
// whose scales differ.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFile, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serveSite, openPage, ready, runAndWait, download, setNumber, messages, cliRun, cli, withoutTimes, tempDir, ROOT } from './helpers.mjs';

let site, file;
before(async () => {
  site = await serveSite();
  file = join(await tempDir('hpo-messy-'), 'messy.csv');
  await cli(['generate', 'messy-curves', '--out', file]);
});
after(() => site.server.close());

const info = (page) => page.locator('#data-info').textContent();
const waitInfo = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#data-info')?.textContent ?? ''), re.source, { timeout: 60_000 });
const link = async (page) => new URL(await page.inputValue('#permalink')).search.slice(1);

test('messy curves: each repair and scale is said, the page races them as the CLI does, regret normalised across tasks', async () => {
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#upload', file);
    await waitInfo(b.page, /^messy: 3 tasks, 180 evaluations, 4 hyperparameters/);
    const notes = (await messages(b.page, 'warning')).join('\n');
    assert.match(notes, /messy\.csv: \d+ curve points in \d+ rows missing or non-finite or worse than untrained, set to the untrained value from the first diverged point on \(missing=untrained\) \(untrained value: each run's 'step_0'; [\d.]+( to [\d.]+)?\)/);
    assert.match(notes, /'step_0' is the untrained value \(step 0\): not a hyperparameter nor a budget step; it bounds what counts as diverged/);
    assert.match(notes, /'lr' spans 1\.\d+e-5 to 0\.0\d+ \([34]\.\d decades\): modelled on a log scale \(lin=lr in the link keeps it linear\)/);
    assert.match(notes, /'weight_decay' spans .* decades\): modelled on a log scale/);
    assert.doesNotMatch(notes, /'batch_size' spans|'dropout' spans/);
    // The CLI reads the file the same way and says the same.
    const infoOut = await cli(['info', '--data', file]);
    assert.match(infoOut, /messy: 3 tasks, 180 rows, 4 model inputs/);
    // A short race on the page and the CLI: the same requests.
    await setNumber(b.page, 'seeds', 2);
    await setNumber(b.page, 'race-budget', 40);
    await b.page.uncheck('#methods input[value="DyHPO"]');
    await b.page.uncheck('#methods input[value="BOHB"]');
    assert.match(await runAndWait(b.page, 300_000), /^Finished 18 jobs/);
    assert.match(await b.page.locator('#chart-regret .chart-title').textContent(), /Mean regret over 3 tasks, normalised per task \(1 = median\)$/);
    // Fig. 6's regret panel is on the same scale and says so.
    assert.match(await b.page.locator('#chart-selected-regret .chart-title').textContent(), /Mean regret of configurations trained so far, normalised \(1 = median\)/);
    const query = await link(b.page);
    assert.match(query, /data=upload:messy\.csv@[0-9a-f]{64}/);
    const page = await download(b.page, '#export-race-csv');
    const { files: [cliCsv], stderr } = await cliRun(query, ['--data', file], ['race-traces.csv']);
    // Each note once, in the page's words.
    const said = stderr.split('\n').filter((l) => /curve points in \d+ rows/.test(l));
    assert.equal(said.length, 1, stderr);
    assert.ok(notes.includes(said[0].replace(/^note: /, '')), stderr);
    assert.deepEqual(withoutTimes(page), withoutTimes(cliCsv));
    assert.deepEqual(await messages(b.page, 'error'), []);
  } finally { await b.close(); }
});

test('an Optuna study as Optuna 5.0 wrote it loads with no roles typed, its pruned trials counted and not compared; its curves race as in the CLI', async () => {
  const studies = join(ROOT, 'tests', 'fixtures', 'studies');
  const b = await openPage(site);
  try {
    // The journal: Optuna's own search space, states and learning curves.
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-journal.log'));
    await waitInfo(b.page, /^optuna-mlp-journal: 1 task, 35 evaluations, 4 hyperparameters/);
    const notes = (await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n');
    assert.match(notes, /Optuna journal, 1 study with one search space \(4 hyperparameters from its distributions: lr 1e-5…0\.1, log, weight_decay 1e-8…0\.01, log, n_units 32…512 step 32, optimizer adam \| sgd \| rmsprop\): 'mlp-cifar': 80 trials \(35 complete, 41 pruned, 4 failed\), curves of up to 20 steps/);
    assert.equal(await b.page.locator('#role-editor').count(), 0, 'no column roles asked for');
    assert.equal(await b.page.isChecked('#race-mode'), true, 'the complete trials\' curves: a race is offered');
    await setNumber(b.page, 'seeds', 1);
    await setNumber(b.page, 'race-budget', 60);
    assert.match(await runAndWait(b.page, 300_000), /^Finished \d+ jobs/);
    const query = await link(b.page);
    const page = await download(b.page, '#export-race-csv');
    const { files: [cliCsv] } = await cliRun(query, ['--data', join(studies, 'optuna-mlp-journal.log')], ['race-traces.csv']);
    assert.deepEqual(withoutTimes(page), withoutTimes(cliCsv));
    // The next trials, from the page: GCP's 4, the three files hpo suggest writes, the same bytes.
    await b.page.waitForSelector('#suggest-panel');
    await b.page.selectOption('#suggest-method', 'GCP');
    await b.page.fill('#suggest-n', '4');
    await b.page.locator('#suggest-n').dispatchEvent('change');
    await b.page.click('#suggest-run');
    await b.page.waitForSelector('#suggest-table tbody tr', { timeout: 60_000 });
    assert.equal(await b.page.locator('#suggest-table tbody tr').count(), 4);
    assert.match(await b.page.locator('#suggest-status').textContent(), /^4 suggestions by GCP for 'mlp-cifar'/);
    const dir = await tempDir('hpo-page-suggest-');
    for (const [id, name] of [['#download-journal', 'journal.log'], ['#download-suggestions', 'suggestions.csv'], ['#download-enqueue', 'enqueue.py']]) {
      await writeFile(join(dir, name), await download(b.page, id));
    }
    // The CLI proposes the same (one engine function, seed 0 in both).
    const cliSuggestions = await cli(['suggest', '--data', join(studies, 'optuna-mlp-journal.log'), '--method', 'GCP', '--n', '4', '--out', join(dir, 'cli')]);
    assert.equal(await readFile(join(dir, 'suggestions.csv'), 'utf8'), cliSuggestions);
    const python = join(ROOT, '.tools', 'study-venv', 'bin', 'python');
    if (existsSync(python)) {
      // Real Optuna opens the page's journal: the 4 trials wait with exactly these parameters and run first.
      const out = execFileSync(python, [join(ROOT, 'tests', 'studies', 'optuna_round_trip.py'), '--check', dir], { encoding: 'utf8' });
      assert.match(out, /4 suggested trials waiting/);
    } else {
      console.log('no .tools/study-venv: the page\'s journal was not opened by Optuna here (scripts/test.sh makes the venv)');
    }
    // The trials_dataframe CSV: the same complete trials, with no roles either.
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-trials.csv'));
    await waitInfo(b.page, /^optuna-mlp-trials: 1 task, 35 evaluations, 4 hyperparameters/);
    assert.match((await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n'), /80 trials \(35 complete, 41 pruned, 4 failed\)/);
    // The SQLite storage: its two studies of one space are two tasks, the third is named.
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp.db'));
    await waitInfo(b.page, /^optuna-mlp: 2 tasks, 40 evaluations, 4 hyperparameters/);
    const dbNotes = (await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n');
    assert.match(dbNotes, /Optuna storage \(SQLite\), 2 studies with one search space .*'mlp-cifar': 40 trials \(21 complete, 17 pruned, 2 failed\)/);
    assert.match(dbNotes, /1 study with another search space left out: 'lr-only'/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    // Its next trials: the panel is offered for a database too, with enqueue.py and no journal.
    await b.page.waitForSelector('#suggest-panel');
    // The panel keeps the method chosen for the journal above (GCP): GP here.
    await b.page.selectOption('#suggest-method', 'GP');
    await b.page.click('#suggest-run');
    await b.page.waitForFunction(() => /suggestions by GP for 'mlp-cifar'/.test(document.querySelector('#suggest-status')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.match(await b.page.locator('#suggest-used').textContent(), /21 complete trials observed; 17 pruned trials entered/);
    assert.equal(await b.page.locator('#download-journal').count(), 0, 'the database is never written');
    assert.match(await download(b.page, '#download-enqueue'), /storage = "sqlite:\/\/\/optuna-mlp.db"/);
    // A database that is not Optuna's: said in a sentence, nothing else loaded.
    await b.page.setInputFiles('#upload', join(studies, 'not-optuna.db'));
    await b.page.waitForFunction(() => [...document.querySelectorAll('#messages .msg.error .text')].some((e) => /not an Optuna storage/.test(e.textContent)), null, { timeout: 60_000 });
  } finally { await b.close(); }
});

test('Ray Tune and Syne Tune files as the tools wrote them load with no roles typed; a race draws the study\'s own run beside the methods', async () => {
  const studies = join(ROOT, 'tests', 'fixtures', 'studies');
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    const notes = async () => (await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n');
    // Ray Tune's experiment folder, zipped as it lies on disk: curves from progress.csv.
    await b.page.setInputFiles('#upload', join(studies, 'raytune-mlp-experiment.zip'));
    await waitInfo(b.page, /^raytune-mlp-experiment: 1 task, 20 evaluations, 4 hyperparameters/);
    assert.match(await notes(), /Ray Tune experiment 'mlp-asha': 80 trials \(20 complete, 59 stopped early, 1 failed\), curves of 20 steps over training_iteration/);
    assert.equal(await b.page.locator('#role-editor').count(), 0, 'no column roles asked for');
    assert.equal(await b.page.isChecked('#race-mode'), true, 'the complete trials\' curves: a race is offered');
    await setNumber(b.page, 'seeds', 2);
    await setNumber(b.page, 'race-budget', 60);
    for (const m of ['DyHPO', 'BOHB']) await b.page.uncheck(`#methods input[value="${m}"]`);
    assert.match(await runAndWait(b.page, 300_000), /^Finished \d+ jobs/);
    // The study's own line, named after its tool, with the caveat in the caption.
    const legend = await b.page.locator('#chart-regret .legend-entry').allTextContents();
    assert.ok(legend.some((t) => /^Ray Tune's own run/.test(t)), legend.join(' | '));
    // The chart itself says what the methods replay: the legend's last lines, the caption too.
    const replayed = (await b.page.locator('#chart-regret .legend-note').allTextContents()).join(' ');
    assert.equal(replayed, 'The methods replay only the 20 of its 80 trials that finished');
    assert.match(await b.page.locator('#chart-regret').locator('xpath=ancestor::figure').locator('figcaption').textContent(), /the methods replay only the 20 of its 80 trials that finished: they choose among configurations it found/);
    await b.page.locator('#chart-regret').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'race-study-line-1280x720.png') });
    // The same race in the CLI writes the study's row in its report.
    const { files: [report] } = await cliRun(await link(b.page), ['--data', join(studies, 'raytune-mlp-experiment.zip')], ['race-report.md']);
    assert.match(report, /\| \*Ray Tune's own run\* \|/);
    // The ResultGrid dataframe: the same 20 complete trials (the failed one is not in it).
    await b.page.setInputFiles('#upload', join(studies, 'raytune-mlp-dataframe.csv'));
    await waitInfo(b.page, /^raytune-mlp-dataframe: 1 task, 20 evaluations, 4 hyperparameters/);
    assert.match(await notes(), /79 trials \(20 complete, 59 stopped early\)/);
    // No curves in this file: a full-evaluation run, the study's own run beside the methods in its charts.
    await setNumber(b.page, 'seeds', 2);
    await setNumber(b.page, 'iters', 10);
    assert.match(await runAndWait(b.page, 300_000), /^Finished \d+ jobs/);
    const adtmLegend = await b.page.locator('#chart-adtm .legend-entry').allTextContents();
    assert.ok(adtmLegend.some((t) => /^Ray Tune's own run/.test(t)), adtmLegend.join(' | '));
    assert.ok((await b.page.locator('#chart-best .legend-entry').allTextContents()).some((t) => /^Ray Tune's own run/.test(t)));
    await b.page.locator('#chart-adtm').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'run-study-line-1280x720.png') });
    // Syne Tune's results.csv.zip: the constant epochs said, not searched.
    await b.page.setInputFiles('#upload', join(studies, 'synetune-mlp-results.csv.zip'));
    await waitInfo(b.page, /^synetune-mlp-results: 1 task, \d+ evaluations, 4 hyperparameters/);
    assert.match(await notes(), /Syne Tune results 'synetune-mlp-results': 59 trials \(\d+ complete, \d+ stopped early\), curves of 20 steps/);
    assert.match(await notes(), /epochs = 20/);
    assert.deepEqual(await messages(b.page, 'error'), []);
  } finally { await b.close(); }
});

test('a long-format curve table (one row per run and step) is proposed as runs and loads as curves', async () => {
  const dir = await tempDir('hpo-long-');
  const long = join(dir, 'long.csv');
  // Three runs of 4 steps, one stopped after 2: as a logger writes them, rows interleaved.
  const rows = ['trial_id,epoch,lr,depth,val_loss'];
  const runs = [['a', 0.1, 3], ['b', 0.01, 5], ['c', 0.05, 4], ['d', 0.2, 2]];
  for (let e = 1; e <= 4; e++) runs.forEach(([id, lr, depth], k) => { if (!(id === 'c' && e > 2)) rows.push(`${id},${e},${lr},${depth},${(1 / (e + k + lr)).toFixed(4)}`); });
  await writeFile(long, rows.join('\n') + '\n');
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#upload', long);
    await b.page.waitForSelector('#role-editor');
    const role = (c) => b.page.inputValue(`#role-editor select[data-column="${c}"]`);
    assert.equal(await role('trial_id'), 'run');
    assert.equal(await role('epoch'), 'runstep');
    assert.equal(await role('lr'), 'hp');
    assert.equal(await role('val_loss'), 'min');
    // Every column is in view: the editor is a list, not a table scrolled sideways.
    const box = await b.page.locator('#role-editor').boundingBox();
    const last = await b.page.locator('#role-editor select[data-column="val_loss"]').boundingBox();
    assert.ok(last.x + last.width <= box.x + box.width + 1, `${JSON.stringify(last)} inside ${JSON.stringify(box)}`);
    await b.page.click('#apply-roles');
    await waitInfo(b.page, /^long: 1 task, 3 evaluations, 2 hyperparameters/);
    assert.match((await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n'), /4 trials \(3 complete, 1 stopped early\), curves of 4 steps over epoch/);
    assert.match(await link(b.page), /&runcol=trial_id&stepcol=epoch/);
    assert.equal(await b.page.isChecked('#race-mode'), true);
  } finally { await b.close(); }
});

test('how the data is read is the user\'s choice, kept in the link: missing values, scales, column roles', async () => {
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#upload', file);
    await waitInfo(b.page, /^messy: 3 tasks, 180 evaluations/);
    await b.page.click('#data-options summary');
    assert.equal(await b.page.inputValue('#scales select[data-param="lr"]'), 'log');
    assert.equal(await b.page.inputValue('#scales select[data-param="batch_size"]'), 'lin');
    assert.equal(await b.page.isDisabled('#scales select[data-param="dropout"] option[value="log"]'), true, 'dropout has zeros');
    // Drop the diverged curves instead: fewer evaluations, said, and in the link.
    await b.page.selectOption('#missing-policy', 'drop');
    await waitInfo(b.page, /^messy: 3 tasks, 1[0-7]\d evaluations/);
    assert.match((await messages(b.page, 'warning')).join('\n'), /dropped with their rows \(missing=drop\)/);
    assert.match(await link(b.page), /&missing=drop/);
    // lr back to a linear scale.
    await b.page.selectOption('#scales select[data-param="lr"]', 'lin');
    await b.page.waitForFunction(() => /&lin=lr/.test(document.querySelector('#permalink')?.value ?? ''));
    await waitInfo(b.page, /loaded in/);
    assert.equal(await b.page.inputValue('#scales select[data-param="lr"]'), 'lin');
    // The column editor starts from the file's roles: steps, step_0 ignored, the task.
    await b.page.click('#review-columns');
    await b.page.waitForSelector('#role-editor');
    const role = (c) => b.page.inputValue(`#role-editor select[data-column="${c}"]`);
    assert.equal(await role('step_0'), 'ignore');
    assert.equal(await role('step_1'), 'step');
    assert.equal(await role('step_20'), 'step');
    assert.equal(await role('task'), 'task');
    assert.equal(await role('lr'), 'hp');
    // Leave dropout out of the model; the link then names every role.
    await b.page.selectOption('#role-editor select[data-column="dropout"]', 'ignore');
    await b.page.click('#apply-roles');
    await waitInfo(b.page, /^messy: 3 tasks, .* 3 hyperparameters/);
    const query = await link(b.page);
    assert.match(query, /&hp=lr,weight_decay,batch_size&taskcol=task&steps=step_1,step_2,/);
    assert.match(query, /&missing=drop/);
    // The link reopens exactly this reading of the file (kept in the browser).
    await b.page.goto(site.url + '?' + query);
    await waitInfo(b.page, /^messy: 3 tasks, 1[0-7]\d evaluations, 3 hyperparameters/);
    assert.equal(await link(b.page), query);
  } finally { await b.close(); }
});

test('a race summary written elsewhere (hpo merge after a Ray sweep) opens in the page, survives a reload and is kept; a broken one says what is wrong', async () => {
  const query = 'v=1&data=bundled:curves&methods=RS,ASHA,Hyperband&tasks=curves-00,curves-01,curves-02&seeds=2&race=60';
  const [json, verdictCsv] = (await cliRun(query, [], ['race-summary.json', 'verdict.csv'])).files;
  const dir = await tempDir('hpo-summary-');
  const write = async (name, text) => { const p = join(dir, name); await writeFile(p, text); return p; };
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#open-race-summary', await write('race-summary.json', json));
    await b.page.waitForSelector('#opened-race');
    assert.match(await b.page.locator('#opened-race').textContent(),
      /^Showing race-summary\.json, opened from a file: RS, ASHA, Hyperband on 3 tasks, 60 budget units\./);
    for (const id of ['chart-regret', 'chart-regret-time', 'chart-ranks', 'chart-precision', 'chart-selected-regret']) {
      assert.ok(await b.page.locator(`#${id} polyline`).count() >= 3, `${id}: a curve per method`);
    }
    for (const id of ['cd-50', 'cd-100']) {
      assert.equal(await b.page.locator(`#${id} .cd-method`).count(), 3, `${id} names every method`);
      assert.match(await b.page.locator(`#${id}`).textContent(), /over 3 tasksFriedman p = [0-9.e-]+/);
    }
    // The verdict: its sentence, a row a method, and verdict.csv as `hpo run` wrote it.
    assert.match(await b.page.locator('#race-verdict-sentence').textContent(), /^RS won, with the smallest area under the regret curve \(0\.237\)/);
    assert.equal(await b.page.locator('#race-verdict-table tbody tr').count(), 3);
    assert.equal(await download(b.page, '#export-verdict-csv'), verdictCsv, 'verdict.csv: page and CLI differ');
    // On a phone the table scrolls inside its box; the sentence wraps above it.
    await b.page.setViewportSize({ width: 390, height: 844 });
    await b.page.locator('#race-verdict').scrollIntoViewIfNeeded();
    await b.page.locator('#race-verdict').screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'race-verdict-390x844.png') });
    await b.page.setViewportSize({ width: 1280, height: 720 });
    assert.equal(await b.page.locator('#race-run').count(), 0, 'no race view: a summary has no single runs');
    assert.equal(await b.page.isDisabled('#export-race-csv'), true, 'no traces to export');
    assert.deepEqual(JSON.parse(await download(b.page, '#export-race-json')), JSON.parse(json), 'the summary as opened');
    // Broken files: the message says what does not fit; what was shown stays.
    const parsed = JSON.parse(json);
    parsed.ranks.pop();
    await b.page.setInputFiles('#open-race-summary', await write('short.json', JSON.stringify(parsed)));
    await b.page.waitForFunction(() => document.querySelector('#messages .msg.error'));
    assert.match((await messages(b.page, 'error')).join('\n'), /^short\.json: 'ranks' has 2 entries for 3 methods/);
    await b.page.setInputFiles('#open-race-summary', await write('traces.csv', 'method,task,seed\nRS,a,0\n'));
    await b.page.waitForFunction(() => /not a race summary/.test(document.querySelector('#messages')?.textContent ?? ''));
    assert.match(await b.page.locator('#opened-race').textContent(), /^Showing race-summary\.json/);
    // A reload (or a crashed tab) shows it again; the file is kept with the uploads.
    await b.page.reload();
    await ready(b.page);
    await b.page.waitForSelector('#opened-race');
    assert.match(await b.page.locator('#opened-race').textContent(), /^Showing race-summary\.json, opened from a file: RS, ASHA, Hyperband on 3 tasks/);
    assert.equal(await b.page.locator('#cd-100 .cd-method').count(), 3);
    await b.page.waitForSelector('#kept-files tr.kept-file');
    assert.equal(await b.page.locator('#kept-files tr.kept-file').count(), 1, 'the broken files were not kept');
    assert.match(await b.page.locator('#kept-files').textContent(), /race-summary\.json/);
    const shown = () => b.page.evaluate(() => sessionStorage.getItem('hpo-playground.opened-race'));
    assert.match(await shown(), /^[0-9a-f]{64}$/, 'the tab records which summary it shows');
    await b.page.click('#close-opened-race');
    assert.equal(await b.page.locator('#opened-race').count(), 0);
    assert.equal(await b.page.locator('#cd-50').count(), 0, 'closed: back to the (empty) results of this visit');
    assert.equal(await shown(), null, 'closed: the tab no longer records it');
    // Closed stays closed across a reload; the kept file opens again from the list.
    await b.page.reload();
    await ready(b.page);
    await b.page.waitForSelector('#kept-files tr.kept-file');
    // The page reopens a summary at its start from the tab's record alone, which Close removed:
    // nothing to wait for.
    assert.equal(await shown(), null, 'still no record after the reload');
    assert.equal(await b.page.locator('#opened-race').count(), 0);
    await b.page.click('#kept-files button.open-kept');
    await b.page.waitForSelector('#opened-race');
    assert.equal(await b.page.locator('#cd-50 .cd-method').count(), 3);
    assert.deepEqual(await messages(b.page, 'error'), []);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('raw curves with exploded and diverged runs: the upload says the policy, its bound and its counts, and races as the CLI does', async () => {
  const raw = join(await tempDir('hpo-raw-'), 'raw_curves.csv');
  await cli(['generate', 'exploding', '--out', raw]);
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#upload', raw);
    await waitInfo(b.page, /^raw_curves: 4 tasks, 1024 evaluations, 8 hyperparameters/);
    const notes = (await messages(b.page, 'warning')).join('\n');
    // The policy, the bound (each run's step 0, and its range) and the counts, in one message.
    assert.match(notes, /raw_curves\.csv: \d+ curve points in \d+ rows missing or non-finite or worse than untrained, set to the untrained value from the first diverged point on \(missing=untrained\) \(untrained value: each run's 'step_0'; 2\.3\d+ to 2\.\d+\)/);
    await setNumber(b.page, 'seeds', 2);
    await setNumber(b.page, 'race-budget', 60);
    await b.page.uncheck('#methods input[value="DyHPO"]');
    assert.match(await runAndWait(b.page, 300_000), /^Finished \d+ jobs/);
    const query = await link(b.page);
    assert.match(query, /data=upload:raw_curves\.csv@[0-9a-f]{64}/);
    assert.doesNotMatch(query, /missing=/, 'the default policy is not written');
    const page = await download(b.page, '#export-race-csv');
    const { files: [cliCsv], stderr } = await cliRun(query, ['--data', raw], ['race-traces.csv']);
    assert.match(stderr, /^note: raw_curves\.csv: \d+ curve points in \d+ rows missing or non-finite or worse than untrained/m);
    assert.deepEqual(withoutTimes(page), withoutTimes(cliCsv));
    assert.deepEqual(await messages(b.page, 'error'), []);
  } finally { await b.close(); }
});
