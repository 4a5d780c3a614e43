// The study panel on a study of 100,000 trials in headless Chromium: the worker's milliseconds
// (as the status line reports them) and, for each view, the click on its tab to the next frame
// drawn — how long the page's thread is held. The table is made here, seeded, in the format the
// e2e test `study-views.test.mjs` uses (4 numbers, value (a - 0.3)^2 + 0.1 b + 0.01 c).
// Run after `trunk build --release`: node scripts/bench-explore-large.mjs [trials]
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/server.mjs';
import { freshBrowser } from '../tests/e2e/browser.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const trials = Number(process.argv[2] ?? 100_000);
const dir = await mkdtemp(join(tmpdir(), 'hpo-explore-large-'));
const file = join(dir, 'big.csv');
let state = 77;
const next = () => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state / 2 ** 32; };
const lines = ['hp_a,hp_b,hp_c,hp_d,metric_value,task'];
for (let k = 0; k < trials; k++) {
  const [a, b, c, d] = [next(), next(), next(), next()];
  lines.push(`${a},${b},${c},${d},${(a - 0.3) ** 2 + 0.1 * b + 0.01 * c},big`);
}
await writeFile(file, lines.join('\n') + '\n');

const { server, url } = await serve(join(ROOT, 'dist'));
const b = await freshBrowser();
try {
  await b.page.goto(url);
  await b.page.waitForFunction(() => /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 120_000 });
  await b.page.setInputFiles('#upload', file);
  await b.page.waitForFunction(() => /^big: /.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 300_000 });
  await b.page.click('#study-explore');
  await b.page.waitForFunction(() => /Computed in \d+ ms in a worker/.test(document.querySelector('#study-status')?.textContent ?? ''), null, { timeout: 600_000 });
  const status = await b.page.locator('#study-status').textContent();
  console.log(`study panel, ${trials} trials x 4 parameters, Chromium worker: ${status.match(/Computed in (\d+) ms/)[1]} ms`);
  for (const view of ['trials', 'history', 'intermediate', 'importance', 'slice', 'contour', 'parallel', 'edf']) {
    const started = Date.now();
    await b.page.click(`#study-view-${view}`, { timeout: 600_000 });
    await b.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    console.log(`  ${view}: ${Date.now() - started} ms from the click to the next frame`);
  }
} finally {
  await b.close();
  server.close();
}
