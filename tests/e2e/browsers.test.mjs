// The scenarios where browsers differ most, run in every browser of `drivers.mjs` (Chromium
// and Firefox) from one list: a run whose traces equal the CLI's, an upload checked by its
// hash, a lesson stepping forward and back, a reload in the middle of a run (IndexedDB),
// Cancel terminating the workers, offline after the first visit (service worker), the
// Content-Security-Policy holding, and axe finding no serious violation.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BROWSERS, HAS_FIREFOX, caughtDownload, openIn } from './drivers.mjs';
import { ROOT, serveSite, tempDir, cliTraces } from './helpers.mjs';

if (process.env.REQUIRE_FIREFOX && !HAS_FIREFOX) throw new Error('Firefox and geckodriver are missing: run scripts/install.sh --test');

const site = await serveSite();
after(() => site.server.close());

const text = (selector) => document.querySelector(selector)?.textContent ?? '';
const STATUS = '#run-status';

/// `start` on the link `query` of `server`, ready.
const open = (start, query = '', server = site) => openIn(start, server.url + (query ? `?${query}` : ''));

const waitForRun = (b, ms = 180_000) => b.waitFor(() => /^(Finished|Cancelled)/.test(document.querySelector('#run-status')?.textContent ?? ''), null, ms);
const permalinkQuery = async (b) => new URL(await b.evaluate(() => document.querySelector('#permalink').value)).search.slice(1);

const SCENARIOS = {
  async 'a bundled run gives the CLI\'s traces byte for byte'(start) {
    const b = await open(start, 'v=1&data=bundled:quadratic&methods=RS,GP&seeds=2&iters=10');
    try {
      await b.click('#run');
      await waitForRun(b);
      assert.match(await b.evaluate(text, STATUS), /^Finished 120 jobs/);
      const csv = await b.evaluate(caughtDownload, '#export-csv');
      assert.equal(csv.trim().split('\n').length, 1 + 120 * 10);
      assert.equal(csv, await cliTraces(await permalinkQuery(b)), `${b.name} and the CLI give byte-identical traces`);
      assert.deepEqual(b.errors, []);
    } finally { await b.close(); }
  },

  async 'an upload is named by its hash, and its link takes only that file'(start) {
    const dir = await tempDir('hpo-browsers-');
    const file = join(dir, 'runs.csv');
    const body = 'hp_x,metric_loss,task\n' + Array.from({ length: 60 }, (_, i) => `${i},${(i - 23) ** 2},t${i % 3}`).join('\n') + '\n';
    await writeFile(file, body);
    const other = join(dir, 'other.csv');
    await writeFile(other, body.replace('23', '24'));
    const sha = createHash('sha256').update(body).digest('hex');
    const b = await open(start);
    let link;
    try {
      await b.upload('#upload', file);
      await b.waitFor(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? '') && /upload:runs\.csv@/.test(decodeURIComponent(document.querySelector('#permalink')?.value ?? '')));
      link = decodeURIComponent(await permalinkQuery(b));
      assert.match(link, new RegExp(`upload:runs\\.csv@${sha}`));
      assert.deepEqual(b.errors, []);
    } finally { await b.close(); }
    // A fresh browser has not kept it: the link asks for the file and refuses another one.
    const c = await open(start, link);
    try {
      assert.match(await c.evaluate(text, '#data-info'), /waiting for your file runs\.csv/);
      await c.upload('#upload', other);
      await c.waitFor(() => /is not the file this link was made with/.test(document.querySelector('#messages')?.textContent ?? ''));
      await c.upload('#upload', file);
      await c.waitFor(() => /^runs: .*loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''));
    } finally { await c.close(); }
  },

  async 'a lesson steps forward and back to the same picture'(start) {
    const b = await open(start, 'learn=gp-ei');
    try {
      const picture = () => document.querySelector('#lesson-posterior')?.innerHTML ?? '';
      await b.waitFor(() => document.querySelector('#lesson-posterior circle'));
      const first = await b.evaluate(picture);
      await b.click('#lesson-step');
      await b.waitFor(() => /step=1/.test(location.search) && /step 1 of/.test(document.querySelector('#lesson-numbers')?.textContent ?? ''));
      await b.click('#lesson-step');
      await b.waitFor(() => /step=2/.test(location.search) && /step 2 of/.test(document.querySelector('#lesson-numbers')?.textContent ?? ''));
      const second = await b.evaluate(picture);
      assert.notEqual(second, first);
      await b.click('#lesson-back');
      await b.click('#lesson-back');
      await b.waitFor(() => /step=0/.test(location.search) && /step 0 of/.test(document.querySelector('#lesson-numbers')?.textContent ?? ''));
      assert.equal(await b.evaluate(picture), first, 'back at step 0, the same picture');
      assert.deepEqual(b.errors, []);
    } finally { await b.close(); }
  },

  async 'a reload in the middle of a run loses nothing kept (IndexedDB)'(start) {
    const query = 'v=1&data=bundled:quadratic&methods=RS,GP&seeds=3&seed0=5&iters=25&transfer=loto';
    const b = await open(start, query);
    try {
      await b.click('#run');
      await b.waitFor(() => Number((/(\d+) of 180 jobs/.exec(document.querySelector('#kept-experiments')?.textContent ?? '') ?? [0, 0])[1]) >= 30, null, 120_000);
      await b.reload();
      await b.waitFor(() => /^Restored \d+ of 180 jobs/.test(document.querySelector('#run-status')?.textContent ?? ''), null, 30_000);
      const kept = Number(/^Restored (\d+)/.exec(await b.evaluate(text, STATUS))[1]);
      assert.ok(kept >= 30 && kept < 180, `${kept} jobs restored`);
      await b.click('#run-rest');
      await waitForRun(b);
      assert.match(await b.evaluate(text, STATUS), /^Finished 180 jobs/);
      assert.equal(await b.evaluate(caughtDownload, '#export-csv'), await cliTraces(query), 'a resumed run gives the traces of an uninterrupted one');
      assert.deepEqual(b.errors, []);
    } finally { await b.close(); }
  },

  async 'Cancel stops the workers in the middle of a step and the next run starts fresh'(start) {
    // GCP+prior's first job trains the prior for seconds before its first evaluation.
    const b = await open(start, 'v=1&data=bundled:quadratic&methods=GCP%2Bprior&seeds=2&iters=20&transfer=loto');
    try {
      await b.click('#run');
      await b.waitFor(() => /training the prior/.test(document.querySelector('#current-jobs')?.textContent ?? ''), null, 60_000);
      const t0 = Date.now();
      await b.click('#cancel');
      await b.waitFor(() => /^Cancelled after \d+ of 60 jobs/.test(document.querySelector('#run-status')?.textContent ?? ''), null, 30_000);
      // How long it took is a measurement, not a pass mark (a busy machine is slow to answer
      // WebDriver). That the workers are terminated, not left to finish, is checked on their
      // close events in durable.test.mjs (in Chromium), not here by waiting a while.
      console.log(`${b.name}: cancelled in ${Date.now() - t0} ms`);
      await b.click('#methods input[value="RS"]');
      await b.click('#methods input[value="GCP+prior"]');
      await b.click('#run');
      await waitForRun(b);
      assert.match(await b.evaluate(text, STATUS), /^Finished 60 jobs/);
      assert.deepEqual(b.errors, []);
    } finally { await b.close(); }
  },

  async 'lessons open offline once the page has been visited (service worker)'(start) {
    // A server of its own, stopped half-way: the network is gone for this page only.
    const own = await serveSite();
    const b = await open(start, 'learn=gp-ei&step=2', own);
    try {
      await b.waitFor(() => document.documentElement.dataset.offline === 'ready', null, 30_000);
      await new Promise((ok) => own.server.close(ok));
      own.server.closeAllConnections?.();
      await b.goto(`${own.url}?learn=copula&step=3`);
      await b.waitFor(() => document.querySelector('#lesson-ecdf polyline'), null, 30_000);
      assert.match(await b.evaluate(text, '#lesson-numbers'), /step 3 of/);
      assert.deepEqual(b.errors.filter((e) => !/NetworkError|ERR_CONNECTION|connection/i.test(e)), []);
    } finally { await b.close(); }
  },

  async 'a worker whose wasm does not start is said in words, and the page does not wait for it'(start) {
    // A worker starts its wasm in a promise (www/worker-loader.js); a start that fails there
    // must reach the page as the worker's error event, else the page waits for that worker
    // for ever ("loading quadratic…"). A worker wasm that is not wasm makes it fail: the page's
    // compile fails, the worker fetches the file itself, and its start fails too.
    const name = (await readdir(join(ROOT, 'dist'))).find((f) => /^worker_bg-[0-9a-f]{16}\.wasm$/.test(f));
    assert.ok(name, 'no worker wasm in dist/');
    const own = await serveSite({ [`/${name}`]: 'not a WebAssembly module' });
    try {
      const b = await open(start, 'v=1&data=bundled:quadratic', own);
      try {
        assert.equal(await b.evaluate(text, '#data-info'), 'no data loaded');
        const said = await b.evaluate(() => [...document.querySelectorAll('.msg')].map((m) => m.textContent).join(' | '));
        assert.match(said, /worker stopped/, said);
      } finally { await b.close(); }
    } finally { own.server.close(); }
  },

  async 'the Content-Security-Policy holds while a lesson, the workers, a run and an export work'(start) {
    const b = await open(start, 'v=1&data=bundled:quadratic&methods=RS&seeds=1&iters=5');
    try {
      const listen = () => { window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`)); return true; };
      await b.evaluate(listen);
      await b.click('#run');
      await waitForRun(b);
      await b.evaluate(caughtDownload, '#export-csv');
      assert.deepEqual(await b.evaluate(() => window.cspViolations), []);
      const policy = await b.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]').content);
      assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
      assert.match(policy, /worker-src 'self'(;|$)/);
      // An inline script the policy must refuse: refused, and said so.
      const refused = await b.evaluate(() => new Promise((ok) => {
        document.addEventListener('securitypolicyviolation', (e) => ok(e.violatedDirective), { once: true });
        const s = document.createElement('script');
        s.textContent = 'window.inlineRan = true';
        document.body.append(s);
        // An inline script runs as it is inserted: had the policy let it through, it has run
        // by now. Refused, it runs never and the event comes (the wait's bound is a hang guard).
        if (window.inlineRan) ok('ran');
        setTimeout(() => ok('no event in 60 s'), 60_000);
      }));
      assert.match(refused, /^script-src/);
      await b.goto(`${site.url}?learn=transfer&step=2`);
      await b.waitFor(() => document.querySelector('#lesson-prior circle.draw'));
      await b.evaluate(listen);
      await b.click('#lesson-step');
      await b.waitFor(() => /step=3/.test(location.search));
      assert.deepEqual(await b.evaluate(() => window.cspViolations), []);
    } finally { await b.close(); }
  },

  async 'axe finds no serious or critical violation on a lesson and on a run'(start) {
    const axe = await readFile(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    for (const [query, run] of [['learn=gp-ei&step=2', false], ['v=1&seeds=1&iters=5', true]]) {
      const b = await open(start, query);
      try {
        if (run) { await b.click('#run'); await waitForRun(b); }
        await b.addScript(axe);
        const bad = await b.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
        assert.deepEqual(bad, [], `${b.name}, '${query}'`);
      } finally { await b.close(); }
    }
  },
};

for (const [browser, start] of BROWSERS) {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    test(`${browser}: ${name}`, () => scenario(start));
  }
}
