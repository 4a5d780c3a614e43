// Nothing lost, nothing stuck: results and uploads kept in the browser across reloads, a
// cancel that terminates workers at once, and a crashed worker that fails only its own job.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshBrowser } from './browser.mjs';
import { serveSite, openPage, ready, runAndWait, waitForRun, download, messages, cliTraces, tempDir } from './helpers.mjs';

let site;
before(async () => { site = await serveSite(); });
after(() => site.server.close());

const status = (page) => page.locator('#run-status').textContent();
const jobsDone = async (page) => Number((/^(\d+) of \d+ jobs done/.exec(await status(page)) ?? [, 0])[1]);

test('a reload in the middle of a run loses nothing: the kept jobs come back, only the rest runs, and the traces equal an uninterrupted run', async () => {
  const query = 'v=1&data=bundled:quadratic&methods=RS,GP&seeds=3&seed0=5&iters=25&transfer=loto';
  const b = await openPage(site, query);
  try {
    await b.page.click('#run');
    // Wait until the panel of what is kept (read back from IndexedDB) says 30 jobs are kept.
    const keptJobs = () => Number((/(\d+) of 180 jobs/.exec(document.querySelector('#kept-experiments')?.textContent ?? '') ?? [, 0])[1]);
    await b.page.waitForFunction(() => Number((/(\d+) of 180 jobs/.exec(document.querySelector('#kept-experiments')?.textContent ?? '') ?? [, 0])[1]) >= 30, null, { timeout: 120_000 });
    const said = await b.page.evaluate(keptJobs);
    // A reload is what a crashed tab comes back as.
    await b.page.reload();
    await ready(b.page);
    await b.page.waitForFunction(() => /^Restored \d+ of 180 jobs/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 30_000 });
    const kept = Number(/^Restored (\d+)/.exec(await status(b.page))[1]);
    assert.ok(kept >= said && kept < 180, `${kept} jobs restored, ${said} said to be kept before the reload`);
    assert.match((await messages(b.page, 'info')).join(), new RegExp(`Restored ${kept} of 180 jobs of this experiment from this browser .*; ${180 - kept} jobs? still to run`));
    assert.equal(await b.page.locator('#run-rest').textContent(), `Run the remaining ${180 - kept} jobs`);
    // The charts show what was kept before anything runs again.
    assert.equal(await b.page.locator('#chart-adtm polyline').count(), 2);
    await b.page.click('#run-rest');
    assert.match(await waitForRun(b.page), /^Finished 180 jobs/);
    const csv = await download(b.page, '#export-csv');
    assert.equal(csv.trim().split('\n').length, 1 + 180 * 25);
    assert.equal(csv, await cliTraces(query), 'a resumed run gives the traces of an uninterrupted one');
    // The list of kept experiments names it, whole, with its size; its link opens it.
    const row = b.page.locator('#kept-experiments tr.kept-experiment');
    await b.page.waitForFunction(() => /180 of 180 jobs/.test(document.querySelector('#kept-experiments')?.textContent ?? ''));
    assert.equal(await row.count(), 1);
    assert.match(await row.textContent(), /quadratic · RS, GP · 30 tasks × 3 seeds × 25 iterations.*180 of 180 jobs.*\d+ KiB/);
    assert.equal(new URL(await row.locator('a').getAttribute('href'), site.url).search.slice(1), query);
    await b.page.reload();
    await ready(b.page);
    await b.page.waitForFunction(() => /^Restored 180 of 180 jobs/.test(document.querySelector('#run-status')?.textContent ?? ''));
    assert.equal(await b.page.locator('#run-rest').count(), 0, 'nothing left to run');
    assert.equal(await download(b.page, '#export-csv'), csv, 'the restored traces are the ones exported before');
    // A log scale is kept in the link, and the link with it still opens what was kept.
    await b.page.check('#log-scale');
    await b.page.waitForFunction(() => /[?&]logy=1(&|$)/.test(location.search));
    await b.page.reload();
    await ready(b.page);
    await b.page.waitForFunction(() => /^Restored 180 of 180 jobs/.test(document.querySelector('#run-status')?.textContent ?? ''));
    assert.equal(await b.page.isChecked('#log-scale'), true);
    assert.match(await b.page.locator('#chart-adtm').textContent(), /\(log\)/);
    // Delete forgets it: the next visit starts afresh.
    await b.page.click('#kept-experiments .delete-kept');
    await b.page.waitForFunction(() => !document.querySelector('#kept-experiments'));
    await b.page.reload();
    await ready(b.page);
    // Once the page has looked for what was kept of the link's experiment (not after a while).
    await b.page.waitForFunction(() => document.documentElement.hasAttribute('data-kept-looked'), null, { timeout: 30_000 });
    assert.equal(await status(b.page), 'Not run yet.');
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('reloading at 20 moments of the run restores exactly the jobs the status last counted, and a finished run is counted as kept', async () => {
  const query = 'v=1&data=bundled:quadratic&methods=RS,GP&seeds=5&seed0=9&iters=100';
  const total = 300;
  const b = await openPage(site, query);
  // The moments are job counts, drawn from a seeded generator: each reload comes once the status
  // has counted that many jobs, so the 20 fall in the middle of the run on a fast machine or a
  // slow one (moments in milliseconds fell before the first job or after the last one as the
  // machine's speed went), and the test fails the same way twice.
  let seed = 20261128;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  // The status line as the page goes away (a page goes on for a moment after a reload is
  // asked for: a job it counts then is one it said was done).
  const lastStatus = () => addEventListener('pagehide', () => sessionStorage.setItem('e2e-last-status', document.querySelector('#run-status')?.textContent ?? ''));
  await b.page.addInitScript(lastStatus);
  await b.page.evaluate(lastStatus);
  const counted = async () => {
    await b.page.reload();
    return b.page.evaluate(() => sessionStorage.getItem('e2e-last-status'));
  };
  const countedAtLeast = (n) => {
    const text = document.querySelector('#run-status')?.textContent ?? '';
    const done = /^(\d+) of \d+ jobs done/.exec(text);
    return /^Finished/.test(text) || (done !== null && Number(done[1]) >= n);
  };
  try {
    await b.page.click('#run');
    const seen = [];
    let restored = 0;
    for (let k = 0; k < 20; k++) {
      const moment = Math.min(total, restored + 1 + Math.floor(random() * 10));
      await b.page.waitForFunction(countedAtLeast, moment, { timeout: 120_000 });
      const text = await counted();
      const said = Number((/^(\d+) of \d+ jobs done|^Restored (\d+)|^Finished (\d+)/.exec(text) ?? []).slice(1).find((v) => v !== undefined) ?? 0);
      assert.ok(said >= moment, `reload ${k + 1}: the status said '${text}' as the page went, before job ${moment} was counted`);
      await ready(b.page);
      await b.page.waitForFunction(() => /^Restored \d+ of/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 30_000 });
      restored = Number(/^Restored (\d+)/.exec(await status(b.page))[1]);
      seen.push(`${said}→${restored}`);
      assert.equal(restored, said, `reload ${k + 1}: the status said '${text}', the reload restored ${restored} (so far: ${seen.join(', ')})`);
      if (restored === total || k === 19) break;
      await b.page.click('#run-rest');
    }
    assert.ok(seen.length >= 10, `most reloads fell in the middle of the run: ${seen.join(', ')}`);
    // The rest, to the end: "Finished" is said once every job is kept, and the kept panel agrees.
    if (!/^Restored 300 of/.test(await status(b.page))) {
      await b.page.click('#run-rest');
      await waitForRun(b.page);
    }
    await b.page.waitForFunction(() => /300 of 300 jobs/.test(document.querySelector('#kept-experiments')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('uploads are kept under their hash: an upload link loads without asking, the file is offered by name, clear all forgets them', async () => {
  const dir = await tempDir('hpo-kept-');
  const file = join(dir, 'kept.csv');
  await writeFile(file, 'hp_x,metric_loss,task\n' + Array.from({ length: 60 }, (_, i) => `${i},${(i - 23) ** 2},t${i % 3}`).join('\n') + '\n');
  const b = await openPage(site);
  try {
    await b.page.setInputFiles('#upload', file);
    await b.page.waitForFunction(() => (document.querySelector('#permalink')?.value ?? '').includes('upload:kept.csv@'));
    // The link works in another tab the moment the page shows it: the file was kept while it
    // was parsed (it used to ask for the file when opened within a second).
    const early = await b.context.newPage();
    await early.goto(await b.page.inputValue('#permalink'));
    await early.waitForFunction(() => /loaded in|waiting for/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match(await early.locator('#data-info').textContent(), /^kept: .*loaded in/);
    await early.close();
    await b.page.waitForSelector('#kept-files tr.kept-file');
    const link = (await b.page.inputValue('#permalink')).replace(/iters=\d+/, 'iters=10');
    const sha = /upload:kept\.csv@([0-9a-f]{64})/.exec(decodeURIComponent(link))[1];
    assert.match(await b.page.locator('#kept-files').textContent(), new RegExp(`kept\\.csv.*${sha.slice(0, 12)}…\\s*uploaded`));
    // A new visit of the link: no question, the kept file loads.
    await b.page.goto(link);
    await b.page.waitForFunction(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.equal((await messages(b.page, 'info')).filter((m) => /Choose or drop that file/.test(m)).length, 0);
    assert.match(await runAndWait(b.page), /^Finished/);
    // Another visit offers it among the data sources by name.
    await b.page.goto(site.url);
    await ready(b.page);
    const option = b.page.locator(`#data-source option[value="upload:kept.csv@${sha}"]`);
    assert.equal(await option.textContent(), 'kept.csv');
    await b.page.selectOption('#data-source', `upload:kept.csv@${sha}`);
    await b.page.waitForFunction(() => /kept: 3 tasks, 60 evaluations/.test(document.querySelector('#data-info')?.textContent ?? ''));
    // Clear all asks twice, then forgets every file and experiment.
    await b.page.click('#clear-kept');
    assert.equal(await b.page.locator('#clear-kept').textContent(), 'Click again to delete everything kept');
    await b.page.click('#clear-kept');
    await b.page.waitForFunction(() => !document.querySelector('#kept-files') && !document.querySelector('#kept-experiments'));
  } finally { await b.close(); }
});

test('cancel terminates the workers at once, in the middle of a step, and the next run starts on fresh ones', async () => {
  // GCP+prior's first job trains the prior for seconds before its first evaluation.
  const b = await openPage(site, 'v=1&data=bundled:quadratic&methods=GCP%2Bprior&seeds=2&iters=20&transfer=loto');
  try {
    const closed = [];
    let onClose = () => {};
    b.page.on('worker', (w) => w.on('close', () => { closed.push(w.url()); onClose(); }));
    const idle = b.page.workers().length;
    await b.page.click('#run');
    await b.page.waitForFunction(() => /training the prior/.test(document.querySelector('#current-jobs')?.textContent ?? ''), null, { timeout: 60_000 });
    const pool = b.page.workers().length - idle;
    assert.ok(pool >= 2, `${pool} workers in the run`);
    await b.page.click('#cancel');
    // "keeping the last results" until any finished job is stored, then "Cancelled".
    await b.page.waitForFunction(() => /^Cancelled/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match(await status(b.page), /^Cancelled after \d+ of 60 jobs/);
    // Every worker of the run is gone, not left to finish its training (a worker left to
    // finish never closes: the wait's bound is a hang guard, not a pass mark).
    await new Promise((ok, fail) => {
      const guard = setTimeout(() => fail(new Error(`${closed.length} of the run's ${pool} workers closed in 60 s`)), 60_000);
      onClose = () => { if (closed.length >= pool) { clearTimeout(guard); ok(); } };
      onClose();
    });
    assert.equal(closed.length, pool, 'every worker of the run was terminated');
    // The page is ready at once: the next run (random search here) finishes on fresh workers.
    assert.equal(await b.page.isEnabled('#run'), true);
    await b.page.check('#methods input[value="RS"]');
    await b.page.uncheck('#methods input[value="GCP+prior"]');
    assert.match(await runAndWait(b.page), /^Finished 60 jobs/);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});

test('a browser storage that is full is said in words, and the upload is used anyway', async () => {
  const dir = await tempDir('hpo-quota-');
  const b = await openPage(site);
  try {
    // The origin's quota just above what it uses (set on the first visit: Chromium applies the
    // override to storage opened after it).
    const usage = await b.page.evaluate(async () => (await navigator.storage.estimate()).usage);
    const cdp = await b.context.newCDPSession(b.page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(site.url).origin, quotaSize: usage + 50_000 });
    const big = join(dir, 'big.csv');
    await writeFile(big, 'hp_x,metric_loss,task\n' + Array.from({ length: 60_000 }, (_, i) => `${i},${(i % 997) * 1.5},t${i % 4}`).join('\n') + '\n');
    await b.page.setInputFiles('#upload', big);
    await b.page.waitForFunction(() => document.querySelector('#messages .msg.warning') && /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match((await messages(b.page, 'warning')).join(), /big\.csv is used, but could not be kept in this browser for next time: the browser's storage for this page is full; delete past experiments or files/);
    assert.match(await b.page.locator('#data-info').textContent(), /big: 4 tasks, 60000 evaluations/);
    assert.equal(await b.page.locator('#kept-files').count(), 0);
  } finally { await b.close(); }
});

for (const [fault, reason] of [['panic', /the worker stopped on an internal error \(simulated panic/], ['oom', /the worker (stopped on an internal error|stopped unexpectedly|ran out of memory)/]]) {
  test(`a worker that dies (${fault}) fails only its job; the others finish and "retry failed" runs it again`, async () => {
    const query = 'v=1&data=bundled:quadratic&methods=RS,GP&seeds=2&iters=15&transfer=loto';
    const b = await openPage(site, query);
    try {
      await b.page.evaluate((f) => { window.hpoInjectFault = f; }, fault);
      assert.match(await runAndWait(b.page, 180_000), /^Finished 120 jobs .*, 1 failed/);
      const errors = await messages(b.page, 'error');
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0], reason);
      assert.equal(await b.page.locator('#retry-failed').textContent(), 'Retry 1 failed job');
      await b.page.click('#retry-failed');
      assert.match(await waitForRun(b.page), /^Finished 120 jobs/);
      assert.equal(await b.page.locator('#retry-failed').count(), 0);
      assert.equal(await download(b.page, '#export-csv'), await cliTraces(query), 'after the retry the traces are complete and right');
    } finally { await b.close(); }
  });
}
