// The study panel as a researcher opens it: an Optuna journal dropped in shows its every
// trial (pruned ones with their intermediate values), each view draws, each view's CSV is
// `hpo explore`'s file byte for byte, the link keeps the view and its parameters (which a fresh
// page opens again on the bundled data), and the next trials proposed for the study are drawn on
// its slice and contour.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
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
  await page.waitForFunction(() => /complete \(\d+ ms in a worker\)/.test(document.querySelector('#study-status')?.textContent ?? ''), null, { timeout: 120_000 });
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
    } finally { await b.close(); }
  }
});
