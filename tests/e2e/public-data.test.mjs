// Real data for everyone: a `data=url:…@SHA256` link downloads the file, accepts only those
// bytes, keeps them in the browser (so the link opens again without the network) and runs as
// the CLI runs the same link. Served here from a local copy: this machine reaches no public
// repository (the pinned tables themselves are tested against ../shared when present).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveSite, openPage, ready, runAndWait, download, messages, cliTraces, SHARED, HAS_SHARED, tempDir } from './helpers.mjs';

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
const table = Buffer.from('hp_x,hp_y,metric_loss,task\n' + Array.from({ length: 90 }, (_, i) => {
  const [x, y] = [(i % 10) / 9, Math.floor(i / 10) / 8];
  return `${x},${y},${((x - 0.3) ** 2 + (y - 0.7) ** 2).toFixed(6)},t${i % 3}`;
}).join('\n') + '\n');
const tampered = Buffer.concat([table, Buffer.from('0.5,0.5,0,t0\n')]);

let site;
before(async () => {
  const extra = { '/mirror/runs.csv': table, '/mirror/bad/runs.csv': tampered };
  if (HAS_SHARED) extra['/mirror/XGBoost.csv.zip'] = await readFile(join(SHARED, 'XGBoost.csv.zip'));
  site = await serveSite(extra);
});
after(() => site.server.close());

test('a url link downloads the file with its hash, runs as the CLI runs it, and opens again from the browser without downloading', async () => {
  const query = `v=1&data=url:${site.url}mirror/runs.csv@${sha(table)}&methods=RS,GP&seeds=2&iters=10&transfer=none`;
  const b = await openPage(site, query);
  try {
    assert.match(await b.page.locator('#data-info').textContent(), /runs: 3 tasks, 90 evaluations/);
    assert.equal(site.hits['/mirror/runs.csv'], 1);
    assert.match(await runAndWait(b.page), /^Finished 12 jobs/);
    const cache = await tempDir('hpo-cache-');
    assert.equal(await download(b.page, '#export-csv'), await cliTraces(query, ['--cache', cache]), 'page and CLI run the same bytes');
    await b.page.waitForSelector('#kept-files tr.kept-file');
    assert.match(await b.page.locator('#kept-files').textContent(), new RegExp(`runs\\.csv.*${sha(table).slice(0, 12)}…\\s*${site.url}mirror/runs\\.csv`));
    const hits = site.hits['/mirror/runs.csv'];
    await b.page.reload();
    await ready(b.page);
    assert.match(await b.page.locator('#data-info').textContent(), /runs: 3 tasks/);
    assert.equal(site.hits['/mirror/runs.csv'], hits, 'the kept copy was used');
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('a url link whose file has another hash, or is missing, is refused in words', async () => {
  const b = await openPage(site, `v=1&data=url:${site.url}mirror/bad/runs.csv@${sha(table)}&methods=RS&seeds=1&iters=5`);
  try {
    assert.match((await messages(b.page, 'error')).join(),
      new RegExp(`mirror/bad/runs\\.csv has SHA-256 ${sha(tampered)}, not the ${sha(table)} the link names: it is not the file the link was made with`));
    assert.equal(await b.page.locator('#data-info').textContent(), 'no data loaded');
    assert.equal(await b.page.locator('#kept-files').count(), 0, 'nothing kept');
    await b.page.goto(site.url + `?v=1&data=url:${site.url}mirror/gone.csv@${sha(table)}&methods=RS&seeds=1&iters=5`);
    await ready(b.page);
    assert.match((await messages(b.page, 'error')).join(), /^Could not download .*mirror\/gone\.csv: the server answered HTTP 404 \(Not Found\)\.$/);
    assert.equal(await b.page.isDisabled('#run'), true, 'no data: nothing to run');
    assert.equal(await b.page.locator('#run-reason').textContent(), 'No data is loaded: choose data under 1. Data.');
  } finally { await b.close(); }
});

test('a public table that cannot be downloaded is said in a sentence, with the copy beside the page offered, and Run says why it waits', { skip: !HAS_SHARED && 'needs ../shared' }, async () => {
  const pinned = sha(await readFile(join(SHARED, 'XGBoost.csv.zip')));
  // A refused connection, as offline or behind a proxy: the browser's fetch throws.
  const b = await openPage(site, `v=1&data=url:https://127.0.0.1:1/XGBoost.csv.zip@${pinned}&methods=RS&seeds=1&iters=5`);
  try {
    const errors = await messages(b.page, 'error');
    assert.deepEqual(errors, ['Could not download https://127.0.0.1:1/XGBoost.csv.zip: the server did not answer or refused this page\'s request. ' +
      'Check the connection and choose the data again. The same table is beside this page: choose "XGBoost.csv.zip" under Real benchmarks in Data.']);
    assert.equal(await b.page.locator('#data-info').textContent(), 'no data loaded');
    assert.equal(await b.page.isDisabled('#run'), true);
    assert.equal(await b.page.locator('#run-reason').textContent(), 'No data is loaded: choose data under 1. Data.');
    assert.equal(await b.page.isVisible('#job-count'), false, 'no job count for data that is not there');
  } finally { await b.close(); }
});

test('the pinned public tables are offered by name, and one served by a mirror runs as the shared copy', { skip: !HAS_SHARED && 'needs ../shared' }, async () => {
  const b = await openPage(site);
  try {
    const options = await b.page.locator('#data-source optgroup[label^="Public tables"] option').evaluateAll((os) => os.map((o) => o.value));
    assert.equal(options.length, 3);
    assert.ok(options.every((v) => /^url:https:\/\/raw\.githubusercontent\.com\/.*@[0-9a-f]{64}$/.test(v)), options.join('\n'));
    const xgb = options.find((v) => v.includes('XGBoost.csv.zip'));
    const pinned = xgb.split('@').pop();
    assert.equal(pinned, sha(await readFile(join(SHARED, 'XGBoost.csv.zip'))), 'the pinned hash is the published file');
    const tail = '&tasks=heart&methods=RS,GCP&seeds=2&iters=10';
    await b.page.goto(site.url + `?v=1&data=url:${site.url}mirror/XGBoost.csv.zip@${pinned}${tail}`);
    await ready(b.page);
    assert.match(await runAndWait(b.page), /^Finished 4 jobs/);
    assert.equal(await download(b.page, '#export-csv'), await cliTraces(`v=1&data=shared:XGBoost.csv.zip${tail}`));
  } finally { await b.close(); }
});
