// Each lesson's last step, as a class reads it: the verdict on the seed shown and, computed by
// the same code over 20 seeds, how the race ends over them, with a strip of the seeds' winners
// whose counts are the sentence's, the seed shown outlined (the default: the typical seed), and
// a click on a seed opening it. Screenshots of every lesson's last step at 1280×720 and 390×844
// go to tests/e2e/artifacts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, serveSite, openPage } from './helpers.mjs';

const site = await serveSite();
after(() => site.server.close());
const ARTIFACTS = join(ROOT, 'tests', 'e2e', 'artifacts');

// Each lesson's link at its last step, and what the count's sentence starts with. Lesson 5's
// construction has no seed: its strip is the 20 random designs its verdict counts. Each
// lesson's count at its opening setting comes with the build (engine::lessons::kept_counts);
// lesson 1 on the narrow well is counted in the page's workers.
const LESSONS = [
  ['gp-ei', 'step=30', /Over 20 random starts of this setting, EI found the minimum within 30 steps on (\d+)/],
  ['gp-ei', 'step=30&f=narrow-well', /Over 20 random starts of this setting, EI found the minimum within 30 steps on (\d+)/],
  ['copula', 'step=37', /Over 20 seeds, (GCP|GP) reaches the minimum first on (\d+)/],
  ['transfer', 'step=15', /Over 20 seeds, .* With the prior or without: GCP\+prior reaches the minimum before GCP on (\d+) seeds/],
  ['multi-fidelity', 'step=120', /Over 20 seeds, (Hyperband|DyHPO) ends lower on (\d+)/],
  ['designs', 'step=999', /random designs of \d+ points reach a median/],
  ['pareto', 'step=30', /Over 20 seeds, (\S+) has the lowest error on (\d+)/],
];

/// The strip as drawn: each cell's label and whether it is the seed shown; the legend's text.
const readStrip = () => ({
  cells: [...document.querySelectorAll('#lesson-seed-strip .seed-cell')].map((c) => ({ label: c.getAttribute('aria-label'), shown: c.classList.contains('shown') })),
  legend: document.querySelector('#lesson-seed-strip .seed-legend')?.textContent ?? '',
  counts: [...document.querySelectorAll('#lesson-seed-strip .seed-legend .count')].map((c) => Number(c.textContent)),
});

test('every lesson ends on its verdict over 20 seeds, with a strip whose counts are the sentence\'s; a seed opens from the strip', async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  for (const [lesson, step, said] of LESSONS) {
    const b = await openPage(site, `learn=${lesson}&${step}`, { width: 1280, height: 720 });
    try {
      // The count comes with the lesson's frames, or from its own workers.
      await b.page.waitForSelector('#lesson-seed-strip .seed-cell', { timeout: 240_000 });
      const text = await b.page.locator('#lesson-explain').textContent();
      assert.match(text, said, `${lesson}: «${text}»`);
      const { cells, legend, counts } = await b.page.evaluate(readStrip);
      assert.equal(cells.length, 20, lesson);
      // The legend's counts add up to the seeds, and each is the number of cells it colours.
      assert.equal(counts.reduce((a, c) => a + c, 0), 20, `${lesson}: ${legend}`);
      const wins = (name) => cells.filter((c) => c.label.includes(`${name} wins`)).length;
      if (lesson === 'multi-fidelity' || lesson === 'copula' || lesson === 'pareto') {
        const [, leader, n] = text.match(said);
        assert.equal(wins(leader), Number(n), `${lesson}: ${leader}'s cells against «${text}»`);
      }
      if (lesson !== 'designs') {
        // The lesson opens on its typical seed, outlined in the strip.
        const shown = cells.filter((c) => c.shown);
        assert.equal(shown.length, 1, lesson);
      }
      const name = `${lesson}${step.includes('&f=') ? '-narrow-well' : ''}`;
      await b.page.screenshot({ path: join(ARTIFACTS, `over-seeds-${name}-1280x720.png`), fullPage: true });
      await b.page.setViewportSize({ width: 390, height: 844 });
      await b.page.locator('#lesson-seed-strip').scrollIntoViewIfNeeded();
      await b.page.screenshot({ path: join(ARTIFACTS, `over-seeds-${name}-390x844.png`) });
      if (lesson !== 'designs') {
        // A click on seed 2 opens it at the same step: the link, the outline and the sentence follow.
        await b.page.click('#lesson-seed-strip .seed-cell >> nth=2');
        await b.page.waitForFunction(() => /[?&]seed=2(&|$)/.test(location.search) || document.querySelector('#lesson-seed-strip .seed-cell.shown')?.getAttribute('aria-label')?.includes(' 2:'));
        await b.page.waitForFunction(() => document.querySelector('.lesson')?.getAttribute('aria-busy') === 'false');
        const after = await b.page.evaluate(readStrip);
        assert.equal(after.cells.findIndex((c) => c.shown), 2, lesson);
        assert.match(await b.page.locator('#lesson-explain').textContent(), said, `${lesson} on seed 2`);
      }
      assert.deepEqual(b.errors, [], lesson);
    } finally { await b.close(); }
  }
});
