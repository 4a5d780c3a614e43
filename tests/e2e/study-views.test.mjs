// The study panel as a researcher opens it: an Optuna journal dropped in shows its every
// trial (pruned ones with their intermediate values), each view draws, each view's CSV is
// `hpo explore`'s file byte for byte, the link keeps the view and its parameters (which a fresh
// page opens again on the bundled data), and the next trials proposed for the study are drawn on
// its slice and contour.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { serveSite, openPage, tempDir, download, cli, ROOT } from './helpers.mjs';

const studies = join(ROOT, 'tests', 'fixtures', 'studies');
const artifacts = join(ROOT, 'tests', 'e2e', 'artifacts');
let site, dir;
before(async () => {
  site = await serveSite();
  dir = await tempDir('hpo-study-views-');
});
after(() => site.server.close());

const VIEWS = ['trials', 'history', 'intermediate', 'importance', 'slice', 'contour', 'parallel', 'edf'];

async function explore(page) {
  await page.waitForSelector('#study-explore');
  await page.click('#study-explore');
  await page.waitForFunction(() => /Computed in \d+ ms in a worker/.test(document.querySelector('#study-status')?.textContent ?? ''), null, { timeout: 120_000 });
  return page.locator('#study-status').textContent();
}

test('an Optuna journal gets every view, each CSV the same bytes as hpo explore', async () => {
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    const errors = [];
    b.page.on('pageerror', (e) => errors.push(String(e)));
    await b.page.setInputFiles('#upload', join(studies, 'optuna-mlp-journal.log'));
    await b.page.waitForFunction(() => /^optuna-mlp-journal: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    const status = await explore(b.page);
    // Every trial of the journal, not only the complete ones the race replays.
    assert.match(status, /'mlp-cifar' \(Optuna journal\): 80 trials, 35 complete/);
    const out = join(dir, 'mlp');
    await cli(['explore', '--data', join(studies, 'optuna-mlp-journal.log'), '--out', out]);
    for (const view of VIEWS) {
      await b.page.click(`#study-view-${view}`);
      if (view === 'trials') {
        assert.equal(await b.page.locator('#study-trials tbody tr').count(), 80);
        await b.page.selectOption('#study-state-filter', 'PRUNED');
        const pruned = await b.page.locator('#study-trials tbody tr').count();
        assert.ok(pruned > 0 && pruned < 80, `${pruned} pruned trials`);
        await b.page.locator('#study-trials tbody tr').first().click();
        await b.page.waitForSelector('#study-trial-curve polyline');
      } else {
        await b.page.waitForSelector(`#study-${view} rect, #study-${view} polyline, #study-${view} circle`);
      }
      const csv = await download(b.page, '#study-csv');
      assert.equal(csv, await readFile(join(out, `${view}.csv`), 'utf8'), `${view}.csv: page and CLI differ`);
      await b.page.locator('#study-panel').screenshot({ path: join(artifacts, `study-${view}-1280x720.png`) });
    }
    // The chosen view is in the link.
    assert.match(b.page.url(), /explore=edf/);
    // Another contour pair is computed again, and the link names it.
    await b.page.click('#study-view-contour');
    await b.page.selectOption('#study-contour-y', 'weight_decay');
    await b.page.waitForFunction(() => /contour,[^&]*,weight_decay/.test(decodeURIComponent(location.search)), null, { timeout: 60_000 });
    // The Next trials panel's proposals are drawn on the slice and the contour.
    await b.page.selectOption('#suggest-method', 'GP');
    await b.page.fill('#suggest-n', '2');
    await b.page.locator('#suggest-n').dispatchEvent('change');
    await b.page.click('#suggest-run');
    await b.page.waitForFunction(() => /2 suggestions by GP/.test(document.querySelector('#suggest-status')?.textContent ?? ''), null, { timeout: 120_000 });
    await b.page.waitForFunction(() => document.querySelectorAll('#study-contour .proposal').length === 2, null, { timeout: 30_000 });
    await b.page.click('#study-view-slice');
    await b.page.waitForFunction(() => document.querySelectorAll('#study-slice .proposal').length === 2, null, { timeout: 30_000 });
    await b.page.locator('#study-panel').screenshot({ path: join(artifacts, 'study-slice-proposals-1280x720.png') });
    assert.deepEqual(errors, []);
  } finally { await b.close(); }
});

test('a link naming a view opens it on its data, at phone size too', async () => {
  for (const [width, height] of [[1280, 720], [390, 844]]) {
    const b = await openPage(site, 'explore=importance', { width, height });
    try {
      await b.page.waitForSelector('#study-importance .importance-bar', { timeout: 120_000 });
      const bars = await b.page.locator('#study-importance .importance-bar').count();
      assert.ok(bars >= 2, `${bars} bars`);
      assert.equal(await b.page.locator('#study-view-importance').getAttribute('aria-selected'), 'true');
      await b.page.locator('#study-panel').screenshot({ path: join(artifacts, `study-importance-${width}x${height}.png`) });
      if (width > 400) continue;
      // At phone size, every other view too (the first test shows them at 1280x720).
      for (const view of VIEWS.filter((v) => v !== 'importance')) {
        await b.page.click(`#study-view-${view}`);
        // (The bundled table records no intermediate values: that view is its sentence.)
        await b.page.waitForSelector(view === 'trials' ? '#study-trials tbody tr' : `#study-${view} text`);
        await b.page.locator('#study-panel').screenshot({ path: join(artifacts, `study-${view}-${width}x${height}.png`) });
      }
    } finally { await b.close(); }
  }
});

test('a two-objective study gets its Pareto front, the same bytes as hpo explore, at both sizes', async () => {
  const out = join(dir, 'two');
  await cli(['explore', '--data', join(studies, 'optuna-two-objective.db'), '--out', out]);
  for (const [width, height] of [[1280, 720], [390, 844]]) {
    const b = await openPage(site, '', { width, height });
    try {
      await b.page.setInputFiles('#upload', join(studies, 'optuna-two-objective.db'));
      await b.page.waitForFunction(() => /^optuna-two-objective: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
      await explore(b.page);
      await b.page.click('#study-view-pareto');
      await b.page.waitForSelector('#study-pareto circle.front');
      assert.ok(await b.page.locator('#study-pareto circle.front').count() >= 2);
      assert.equal(await download(b.page, '#study-csv'), await readFile(join(out, 'pareto.csv'), 'utf8'), 'pareto.csv: page and CLI differ');
      await b.page.locator('#study-panel').screenshot({ path: join(artifacts, `study-pareto-${width}x${height}.png`) });
    } finally { await b.close(); }
  }
});

/// A table of evaluations in the format the page reads (hp_ columns, metric_value, task), its
/// rows from a seeded generator: `row(k, next)` gives row k's cells, `next()` a uniform draw.
async function table(name, header, rows, row) {
  let state = 77;
  const next = () => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state / 2 ** 32; };
  const lines = [header];
  for (let k = 0; k < rows; k++) lines.push(row(k, next));
  const path = join(dir, name);
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

test('bad studies explored: one complete trial, a 200-choice parameter, 100,000 trials — a sentence, every view, pages and thinned charts', async () => {
  const b = await openPage(site, '', { width: 1280, height: 720 });
  try {
    const errors = [];
    b.page.on('pageerror', (e) => errors.push(String(e)));
    // One complete trial: the importance says what it needs, in the status and its view.
    await b.page.setInputFiles('#upload', join(studies, 'optuna-one-complete-journal.log'));
    await b.page.waitForFunction(() => /^optuna-one-complete-journal: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.match(await explore(b.page), /importance needs at least 3 complete trials with a finite value; this study has 1; slices and contour: .*a surrogate needs at least 2 trials/);
    await b.page.click('#study-view-importance');
    assert.match(await b.page.locator('#study-importance').textContent(), /importance needs at least 3 complete trials/);
    // A categorical of 200 choices: every view draws.
    const wide = await table('wide.csv', 'hp_optimizer,hp_lr,metric_value,task', 400, (k, next) => {
      const c = Math.floor(next() * 200), x = next();
      return `choice${c},${x},${(c % 7) + 0.1 * x},wide`;
    });
    await b.page.setInputFiles('#upload', wide);
    await b.page.waitForFunction(() => /^wide: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.match(await explore(b.page), /400 trials, 400 complete/);
    await b.page.click('#study-view-importance');
    assert.deepEqual(await b.page.locator('#study-importance text.tick').allTextContents(), ['hp_optimizer', 'hp_lr']);
    for (const view of ['slice', 'parallel']) {
      await b.page.click(`#study-view-${view}`);
      await b.page.waitForSelector(`#study-${view} polyline`);
    }
    // 100,000 trials: the forest and the GP on drawn subsets (said), the table in pages, the
    // charts thinned (said); the CSVs keep every trial.
    const big = await table('big.csv', 'hp_a,hp_b,hp_c,metric_value,task', 100_000, (k, next) => {
      const [a, b2, c] = [next(), next(), next()];
      return `${a},${b2},${c},${(a - 0.3) ** 2 + 0.1 * b2},big`;
    });
    await b.page.setInputFiles('#upload', big);
    await b.page.waitForFunction(() => /^big: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.match(await explore(b.page), /100000 trials, 100000 complete .*importance by fANOVA over 2000 of the 100000 complete trials, drawn at random \(seed 0\); slices and contour: a GP fitted on 200 of the 100000/);
    await b.page.click('#study-view-trials');
    assert.equal(await b.page.locator('#study-trials-shown').textContent(), 'Trials 1–200 of 100000');
    assert.equal(await b.page.locator('#study-trials tbody tr').count(), 200);
    await b.page.click('#study-trials-next');
    assert.equal(await b.page.locator('#study-trials-shown').textContent(), 'Trials 201–400 of 100000');
    assert.equal(await b.page.locator('#study-trials tbody tr').first().getAttribute('data-number'), '200');
    // Sorted by the value, the best trial comes first.
    await b.page.click('#study-trials thead [data-col="2"]');
    assert.equal(await b.page.locator('#study-trials-shown').textContent(), 'Trials 1–200 of 100000');
    await b.page.click('#study-view-parallel');
    assert.match(await b.page.locator('#study-parallel').textContent(), /\(1000 of 100000 drawn\)/);
    assert.equal(await b.page.locator('#study-parallel polyline').count(), 1000);
    await b.page.click('#study-view-history');
    assert.match(await b.page.locator('#study-history').textContent(), /complete trial \(\d+ of 100000 drawn\)/);
    assert.equal((await download(b.page, '#study-csv')).trim().split('\n').length, 100_001, 'history.csv keeps every trial');
    await b.page.locator('#study-panel').screenshot({ path: join(artifacts, 'study-history-100000-1280x720.png') });
    assert.deepEqual(errors, []);
  } finally { await b.close(); }
});
