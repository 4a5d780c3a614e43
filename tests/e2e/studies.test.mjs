// A study's files as a researcher brings them: the notes that change what the data means stand
// in the upload banner itself (not behind "details"), and an Optuna journal packed as .gz or
// .zip gets its next trials as the plain one does; a conditional journal and a two-objective
// SQLite study get the same next trials in the page as from `hpo suggest`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { serveSite, openPage, tempDir, download, messages, cli, ROOT } from './helpers.mjs';

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
