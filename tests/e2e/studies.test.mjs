// A study's files as a researcher brings them: the notes that change what the data means stand
// in the upload banner itself (not behind "details"), and an Optuna journal packed as .gz or
// .zip gets its next trials as the plain one does; a conditional journal and a two-objective
// SQLite study get the same next trials in the page as from `hpo suggest`; a two-objective study
// gets a method that proposes for its objectives preselected, and a default run with the +MO
// methods and its own hypervolume-error line; bad studies (failed and infinite values, one
// complete trial) get proposals and a run, and other tools' files say why they get no next trials.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { serveSite, openPage, tempDir, download, messages, cli, ROOT, setNumber, runAndWait, waitForRun } from './helpers.mjs';

const studies = join(ROOT, 'tests', 'fixtures', 'studies');
let site, dir;
before(async () => {
  site = await serveSite();
  dir = await tempDir('hpo-studies-');
});
after(() => site.server.close());

const waitInfo = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#data-info')?.textContent ?? ''), re.source, { timeout: 60_000 });
/** The banner lines a reader sees without opening anything. */
const shownLines = (page) => page.locator('#messages .msg.warning .msg-line').evaluateAll((lines) => lines.filter((l) => l.checkVisibility()).map((l) => l.textContent));

test('the direction assumed for a trials CSV and a journal cut mid-line are said in the banner itself', async () => {
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-trials.csv'));
    await waitInfo(b.page, /^optuna-mlp-trials: 1 task, 35 evaluations/);
    const trialsCsv = await shownLines(b.page);
    assert.equal(trialsCsv.length, 1, `one line in the banner: ${trialsCsv}`);
    assert.match(trialsCsv[0], /the objective 'value' is taken as minimised: the file does not say its direction/);
    // A journal copied while its study ran: the last line is cut in the middle.
    const journal = await readFile(join(studies, 'optuna-mlp-journal.log'), 'utf8');
    const cut = journal.slice(0, journal.trimEnd().lastIndexOf('\n') + 40);
    const file = join(dir, 'running-journal.log');
    await writeFile(file, cut);
    await b.page.setInputFiles('#upload', file);
    await waitInfo(b.page, /^running-journal: /);
    const running = await shownLines(b.page);
    assert.equal(running.length, 1, `one line in the banner: ${running}`);
    assert.match(running[0], /its last line is cut off .*read up to the line before — 'mlp-cifar': 80 trials \(\d+ complete/);
    assert.doesNotMatch(running[0], /taken as minimised/, 'the notes of the file it replaced are gone');
  } finally { await b.close(); }
});

test('a gzipped Optuna journal gets the next-trials panel, and the same suggestions as the plain one', async () => {
  const b = await openPage(site);
  try {
    const suggest = async () => {
      await b.page.waitForSelector('#suggest-panel');
      await b.page.selectOption('#suggest-method', 'RS');
      await b.page.click('#suggest-run');
      await b.page.waitForFunction(() => /suggestions by RS/.test(document.querySelector('#suggest-status')?.textContent ?? ''), null, { timeout: 60_000 });
      return b.page.locator('#suggest-table').textContent();
    };
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-journal.log'));
    await waitInfo(b.page, /^optuna-mlp-journal: /);
    const plain = await suggest();
    const packed = join(dir, 'optuna-mlp-journal.log.gz');
    await writeFile(packed, gzipSync(await readFile(join(studies, 'optuna-mlp-journal.log'))));
    await b.page.setInputFiles('#upload', packed);
    await waitInfo(b.page, /^optuna-mlp-journal\.log: |^optuna-mlp-journal: /);
    // The proposals shown were for the file before: gone with it.
    assert.equal(await b.page.locator('#suggest-status, #suggest-table').count(), 0);
    assert.equal(await suggest(), plain);
  } finally { await b.close(); }
});

test('a conditional journal and a two-objective SQLite study get the same next trials in the page as from hpo suggest', async () => {
  const b = await openPage(site);
  try {
    const pageSuggestions = async (method, n) => {
      await b.page.waitForSelector('#suggest-panel');
      await b.page.selectOption('#suggest-method', method);
      await b.page.fill('#suggest-n', String(n));
      await b.page.locator('#suggest-n').dispatchEvent('change');
      await b.page.click('#suggest-run');
      await b.page.waitForFunction((m) => document.querySelector('#suggest-status')?.textContent?.includes(`suggestions by ${m}`), method, { timeout: 120_000 });
      return download(b.page, '#download-suggestions');
    };
    for (const [file, method, n] of [['optuna-conditional-journal.log', 'GP', 3], ['optuna-two-objective.db', 'GP+MO', 2]]) {
      await b.page.setInputFiles('#upload', join(studies, file));
      await waitInfo(b.page, new RegExp(`^${file.replace(/\.(log|db)$/, '').replace(/[.+]/g, '\\$&')}: `));
      assert.deepEqual(await messages(b.page, 'error'), [], file);
      const page = await pageSuggestions(method, n);
      const fromCli = await cli(['suggest', '--data', join(studies, file), '--method', method, '--n', String(n), '--out', join(dir, `cli-${file}`)]);
      assert.equal(page, fromCli, `${file}: the page's suggestions.csv is hpo suggest's, byte for byte`);
      assert.equal(page.trim().split('\n').length, n + 1, `${file}: ${n} suggestions`);
    }
  } finally { await b.close(); }
});

test('the default race on the 80-trial study with pruned trials finishes (its duration printed, not checked): DyHPO (fast) said in the setup, the time left known early, unfinished methods marked in the chart', async () => {
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-journal.log'));
    await waitInfo(b.page, /^optuna-mlp-journal: /);
    const info = (await messages(b.page, 'info')).join('\n');
    assert.match(info, /budget units, what Optuna's own run spent, .*the complete trials' curves hold 700 units in all/);
    assert.match(info, /DyHPO would take about \d+ min on two cores \(10 runs of up to 700 steps, .*\): the race runs DyHPO \(fast\) \(about \d+ s\) instead, which is not the paper's method/);
    const ticked = await b.page.locator('#methods input:checked').evaluateAll((e) => e.map((x) => x.value));
    assert.deepEqual(ticked, ['RS', 'Hyperband', 'ASHA', 'BOHB', 'DyHPO (fast)']);
    assert.equal(await b.page.inputValue('#seeds'), '10');
    const started = Date.now();
    await b.page.click('#run');
    // The time left comes (once a few steps of every method are done: crates/engine/src/eta.rs's
    // tests) while the run goes on. How soon, and how long the race takes, are printed below, a
    // measurement: no test asserts a duration (the timeouts only bound the waits).
    await b.page.waitForFunction(() => /jobs done on 2 workers · .* about .* left \(\d+% of the time done\)/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 120_000 });
    const knownAfter = (Date.now() - started) / 1000;
    // A job counts to what the table holds, not to the 843 units Optuna spent.
    await b.page.waitForFunction(() => /DyHPO \(fast\) · mlp-cifar · seed \d+ — \d+\/700 budget units/.test(document.querySelector('#current-jobs')?.textContent ?? ''), null, { timeout: 30_000 });
    // The chart drawn while DyHPO (fast) runs says its line is not its result yet.
    await b.page.waitForFunction(() => [...document.querySelectorAll('#chart-regret .legend-entry')].some((e) => /^DyHPO \(fast\)(: running, no run finished yet| \(n=1\): \d+ of 10 runs so far)$/.test(e.textContent)), null, { timeout: 60_000 });
    await b.page.locator('#chart-regret').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'race-study-running-1280x720.png') });
    const status = await waitForRun(b.page, 300_000);
    const seconds = (Date.now() - started) / 1000;
    assert.match(status, /^Finished 50 jobs/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    const legend = await b.page.locator('#chart-regret .legend-entry').allTextContents();
    assert.ok(legend.some((t) => /^DyHPO \(fast\) \(n=1\)$/.test(t)), legend.join(' | '));
    assert.ok(legend.some((t) => /^Optuna's own run/.test(t)), legend.join(' | '));
    // The verdict with its evidence: a row a method and one for the study's own run, each
    // compared with RS and with that run, and a sentence saying who won and how sure.
    const verdictRows = await b.page.locator('#race-verdict-table tbody tr th').allTextContents();
    assert.deepEqual(verdictRows, ['RS', 'Hyperband', 'ASHA', 'BOHB', 'DyHPO (fast)', "Optuna's own run"]);
    assert.match(await b.page.locator('#race-verdict-table thead').textContent(), /vs RS.*vs Optuna's own run/);
    assert.match(await b.page.locator('#race-verdict-sentence').textContent(), /^.+ won, with the smallest area under the regret curve/);
    const verdictCsv = await download(b.page, '#export-verdict-csv');
    assert.equal(verdictCsv.trim().split('\n').length, 7, verdictCsv);
    await b.page.locator('#race-verdict').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'race-study-verdict-1280x720.png') });
    console.log(`default race on the 80-trial study: time left known after ${knownAfter.toFixed(1)} s, finished in ${seconds.toFixed(1)} s`);
  } finally { await b.close(); }
});

test('a two-objective SQLite study: Suggest with the preselected method proposes, and its default run has the +MO methods and the study\'s own line', async () => {
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    await b.page.setInputFiles('#upload', join(studies, 'optuna-two-objective.db'));
    await waitInfo(b.page, /^optuna-two-objective: /);
    assert.equal(await b.page.isChecked('#multi-objective'), true, 'two directions: several objectives');
    // The panel lists the methods that propose for two objectives, one of them preselected.
    await b.page.waitForSelector('#suggest-panel');
    const offered = await b.page.locator('#suggest-method option').evaluateAll((o) => o.map((x) => x.value));
    assert.deepEqual(offered, ['RS', 'GP+MO', 'GCP+MO', 'ParEGO', 'EHVI']);
    assert.equal(await b.page.inputValue('#suggest-method'), 'GP+MO');
    await b.page.click('#suggest-run');
    await b.page.waitForFunction(() => /^5 suggestions by GP\+MO for 'loss-latency'/.test(document.querySelector('#suggest-status')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.equal(await b.page.locator('#suggest-table tbody tr').count(), 5);
    assert.match(await b.page.locator('#suggest-used').textContent(), /40 complete trials observed; 2 objectives \(minimised, minimised\)/);
    await b.page.locator('#suggest-panel').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'suggest-two-objective-1280x720.png') });
    // The default run: random search and the +MO variants, over the study's 40 trials.
    const ticked = await b.page.locator('#methods input:checked').evaluateAll((e) => e.map((x) => x.value));
    assert.deepEqual(ticked, ['RS', 'GP+MO', 'GCP+MO']);
    assert.equal(await b.page.inputValue('#iters'), '40');
    await setNumber(b.page, 'seeds', 2);
    assert.match(await runAndWait(b.page, 300_000), /^Finished 6 jobs/);
    assert.deepEqual(await messages(b.page, 'error'), []);
    const legend = await b.page.locator('#chart-hv .legend-entry').allTextContents();
    assert.ok(legend.some((t) => /^GP\+MO/.test(t)), legend.join(' | '));
    assert.ok(legend.some((t) => /^Optuna's own run/.test(t)), legend.join(' | '));
    assert.match(await b.page.locator('#chart-hv').locator('xpath=ancestor::figure').locator('figcaption').textContent(), /Grey: the study as it ran/);
    await b.page.locator('#chart-hv').scrollIntoViewIfNeeded();
    await b.page.screenshot({ path: join(ROOT, 'tests', 'e2e', 'artifacts', 'run-two-objective-study-line-1280x720.png') });
  } finally { await b.close(); }
});

test('bad studies: failed and infinite values of two objectives, one complete trial — a sentence, proposals and a run; other tools\' files say why they get no next trials', async () => {
  const b = await openPage(site);
  try {
    const notes = async () => (await messages(b.page, 'warning')).join('\n') + (await messages(b.page, 'info')).join('\n');
    for (const [file, stem, said, method, iters] of [
      ['optuna-two-objective-failed-journal.log', 'optuna-two-objective-failed-journal', /16 trials \(13 complete, 3 failed\), 1 complete trial with a value that is not finite left out/, 'GP+MO', '12'],
      ['optuna-one-complete-journal.log', 'optuna-one-complete-journal', /2 trials \(1 complete, 1 failed\)/, 'GP', '1'],
    ]) {
      await b.page.setInputFiles('#upload', join(studies, file));
      await waitInfo(b.page, new RegExp(`^${stem}: `));
      assert.match(await notes(), said, file);
      assert.equal(await b.page.inputValue('#suggest-method'), method, file);
      await b.page.click('#suggest-run');
      await b.page.waitForFunction((m) => document.querySelector('#suggest-status')?.textContent?.includes(`suggestions by ${m}`), method, { timeout: 120_000 });
      assert.equal(await b.page.locator('#suggest-table tbody tr').count(), 5, file);
      assert.equal(await b.page.inputValue('#iters'), iters, file);
      await setNumber(b.page, 'seeds', 1);
      assert.match(await runAndWait(b.page, 300_000), /^Finished \d+ jobs? /, file);
      assert.deepEqual(await messages(b.page, 'error'), [], file);
    }
    for (const [file, stem, why] of [
      ['optuna-mlp-trials.csv', 'optuna-mlp-trials', /^An Optuna trials CSV gets no next trials: .* Load the study's own storage instead/],
      ['raytune-mlp-dataframe.csv', 'raytune-mlp-dataframe', /^A Ray Tune file gets no next trials: .*hpo_playground\.ray_tune\.Searcher/],
      ['synetune-mlp-results.csv.zip', 'synetune-mlp-results', /^A Syne Tune results file gets no next trials: .*hpo_playground\.syne_tune\.Scheduler/],
    ]) {
      await b.page.setInputFiles('#upload', join(studies, file));
      await waitInfo(b.page, new RegExp(`^${stem}: `));
      assert.equal(await b.page.locator('#suggest-panel').count(), 0, file);
      assert.match(await b.page.locator('#suggest-why-none').textContent(), why, file);
    }
  } finally { await b.close(); }
});
