// What the end-to-end test files share: the built site, a page opened on a link, a run
// waited for, downloads, form edits, messages and the CLI's traces for the same link.
import { readFile, rm, mkdtemp } from 'node:fs/promises';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { freshBrowser } from './browser.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED = join(ROOT, '..', 'shared', 'benchmarks', 'quantile-transfer');
export const HAS_SHARED = existsSync(join(SHARED, 'XGBoost.csv.zip'));
/// LCBench's folder beside the quantile tables: the page gets it zipped at build time
/// (`scripts/stage-shared.sh`), the CLI reads the folder. `HPO_E2E_NO_LCBENCH=1` runs the
/// tests as where it is absent.
export const HAS_LCBENCH = !process.env.HPO_E2E_NO_LCBENCH && existsSync(join(SHARED, '..', 'lcbench-surrogate', 'lcbench_configs.csv'));
/// The `hpo` CLI the tests compare with: $HPO_BIN (scripts/test/env.sh: the tests' profile in
/// the kept target dir), else target/release/hpo.
export const CLI = process.env.HPO_BIN ?? join(ROOT, 'target', 'release', 'hpo');

const temporary = [];
process.on('exit', () => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/// A fresh folder in the system's temporary folder (named `prefix` + random), removed when the
/// test process exits: a run of the suite left 1.8 GB behind before (a 100 MB upload each time).
export async function tempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/// Serves dist/ (the release build) on loopback, with `extra` files beside it.
export const serveSite = (extra = {}) => serve(join(ROOT, 'dist'), 0, extra);

/// Waits until the page is ready: a lesson drawn (or the list of lessons, for a link to a
/// lesson that does not exist), or the experiment page's data loaded (or not).
export async function ready(page) {
  await page.waitForFunction(() => {
    if (document.querySelector('.lesson #lesson-numbers, #lesson-none')) return true;
    const t = document.querySelector('#data-info')?.textContent ?? '';
    return /loaded in|waiting for|no data/.test(t);
  }, null, { timeout: 60_000 });
}

/// A fresh browser on `site` with the link `query`, ready (in a window of `viewport`).
export async function openPage(site, query = '', viewport = undefined) {
  const b = await freshBrowser(viewport);
  try {
    await b.page.goto(site.url + (query ? `?${query}` : ''));
    await ready(b.page);
  } catch (e) {
    // Closed here, since the caller gets no handle: a browser left open keeps the test
    // process alive after its last test.
    await b.close();
    throw e;
  }
  return b;
}

/// Waits for the run to end (finished or cancelled); its status line.
export async function waitForRun(page, timeout = 120_000) {
  await page.waitForFunction(() => /^(Finished|Cancelled)/.test(document.querySelector('#run-status')?.textContent ?? ''), null, { timeout });
  return page.locator('#run-status').textContent();
}

/// Clicks Run and waits for the run to end.
export async function runAndWait(page, timeout = 120_000) {
  await page.click('#run');
  return waitForRun(page, timeout);
}

export async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

export async function setNumber(page, id, value) {
  await page.fill(`#${id}`, String(value));
  await page.locator(`#${id}`).dispatchEvent('change');
}

/// Chooses the task `name` alone: "none", then its box.
export async function onlyTask(page, name) {
  await page.click('#tasks-none');
  await page.check(`#tasks input[value="${name}"]`);
}

export const messages = (page, level) => page.locator(`#messages .msg.${level} .text`).allTextContents();

/// Runs `hpo run` on the link `query` (asynchronously: the CLI may download from the test's
/// own server, which must go on answering meanwhile) and returns the contents of the output
/// files `names` (in order) and stderr. The output folder is removed afterwards, so that
/// test runs do not pile folders up.
export async function cliRun(query, extraArgs = [], names = ['traces.csv']) {
  const out = join(await tempDir('hpo-e2e-cli-'), 'out');
  try {
    const { stderr } = await promisify(execFile)(CLI, ['run', '--link', query, '--out', out, '--shared-dir', SHARED, ...extraArgs]);
    return { files: await Promise.all(names.map((n) => readFile(join(out, n), 'utf8'))), stderr };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/// The traces.csv `hpo run` writes for the link `query`.
export async function cliTraces(query, extraArgs = []) {
  return (await cliRun(query, extraArgs)).files[0];
}

/// The race-traces.csv `hpo run` writes for the race link `query`.
export async function cliRaceTraces(query, extraArgs = []) {
  return (await cliRun(query, extraArgs, ['race-traces.csv'])).files[0];
}

/// A race's traces without the optimizer's own seconds (wall time; everything else is exact).
export const withoutTimes = (csv) => csv.trim().split('\n').map((l) => l.split(',').slice(0, -1).join(','));

/// Runs the CLI with `args` (e.g. ['generate', 'messy-curves', '--out', f]); its stdout.
export async function cli(args) {
  return (await promisify(execFile)(CLI, args)).stdout;
}

/// The registry's methods of one kind of run ('full evaluations' or 'race'), in its order,
/// as `hpo methods --markdown` lists them: what the page must offer.
export async function registryMethods(kind) {
  const rows = (await cli(['methods', '--markdown'])).trim().split('\n').slice(2);
  return rows.map((r) => r.split(/(?<!\\)\|/).map((c) => c.trim())).filter((c) => c[1] === kind).map((c) => c[2]);
}
