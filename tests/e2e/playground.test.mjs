// Lesson 1 as a playground, as a student uses it: a link opens a function, a noise, an
// acquisition with its κ at a step; switching the acquisition redraws the chart under the
// posterior and its sentence; drawing a function, guessing the next pick and dragging an added
// point each change the picture, the sentence and the link, and the link reopens the same
// picture. Screenshots at 1280×720 and 390×844 go to tests/e2e/artifacts/playground-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, serveSite, openPage } from './helpers.mjs';

const site = await serveSite();
after(() => site.server.close());
const ARTIFACTS = join(ROOT, 'tests', 'e2e', 'artifacts');

/// The lesson is drawn and nothing is being recomputed.
const settled = () => {
  const lesson = document.querySelector('.lesson');
  return !!lesson && lesson.getAttribute('aria-busy') !== 'true' && !!document.querySelector('#lesson-numbers')?.textContent;
};

/// Sets a form control's value as a user's edit does.
const setValue = ([selector, value]) => {
  const e = document.querySelector(selector);
  e.value = String(value);
  e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
};

const text = (page, selector) => page.locator(selector).textContent();

test('lesson 1 as a playground: functions, noise, acquisitions, a drawing, guesses and dragged points, all in the link', async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  const b = await openPage(site, 'learn=gp-ei&f=gramacy-lee&noise=0.1&acq=ucb&kappa=3&step=5', { width: 1280, height: 720 });
  const { page } = b;
  try {
    await page.waitForFunction(settled);
    assert.equal(await page.locator('#lesson-function').inputValue(), 'gramacy-lee');
    assert.equal(await page.locator('#lesson-acq').inputValue(), 'ucb');
    assert.match(await text(page, '#lesson-ei'), /The lower bound μ − κ·sd, κ = 3: its lowest point is the pick/);
    assert.match(await text(page, '#lesson-explain'), /Step 5: UCB picked x = [\d.]+ and observed y = -?[\d.]+ \(f there is -?[\d.]+; the rest is noise\)/);
    assert.match(await text(page, '#lesson-explain'), /The bound μ − κ·sd, drawn below, is lowest at x = /);
    assert.match(await text(page, '#lesson-numbers'), /μ − 3·sd = /);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-ucb-1280x720.png'), fullPage: true });

    // Thompson sampling: the chart below draws one function from the GP's belief.
    await page.evaluate(setValue, ['#lesson-acq', 'ts']);
    await page.waitForFunction(() => /One function drawn/.test(document.querySelector('#lesson-ei')?.textContent ?? ''));
    await page.waitForFunction(settled);
    assert.match(await text(page, '#lesson-explain'), /Thompson sampling picked x = /);
    assert.match(page.url(), /[?&]acq=ts(&|$)/);
    assert.doesNotMatch(page.url(), /kappa=/);

    // PI, on Forrester's function without noise, at step 12: its chart is a probability.
    await page.evaluate(setValue, ['#lesson-function', 'forrester']);
    await page.evaluate(setValue, ['#lesson-noise', 0]);
    await page.evaluate(setValue, ['#lesson-acq', 'pi']);
    await page.waitForFunction(settled);
    assert.match(await text(page, '#lesson-ei'), /Probability of improvement \(PI\)|PI is tiny everywhere/);
    assert.doesNotMatch(page.url(), /noise=|[?&]f=/);

    // A drawing: 21 points on a chart of its own; a stroke changes them and the link.
    await page.evaluate(setValue, ['#lesson-function', 'drawn']);
    await page.waitForSelector('#lesson-draw');
    assert.equal(await page.locator('#lesson-draw .draw-point').count(), 21);
    const before = new URL(page.url()).searchParams.get('fy');
    const box = await page.locator('#lesson-draw').boundingBox();
    await page.mouse.move(box.x + 0.1 * box.width, box.y + 0.8 * box.height);
    await page.mouse.down();
    for (const f of [0.3, 0.5, 0.7, 0.9]) await page.mouse.move(box.x + f * box.width, box.y + (0.8 - 0.6 * f) * box.height, { steps: 3 });
    await page.mouse.up();
    await page.waitForFunction((before) => new URL(location.href).searchParams.get('fy') !== before, before);
    await page.waitForFunction(settled);
    assert.match(page.url(), /[?&]f=drawn&/);
    assert.equal(new URL(page.url()).searchParams.get('fy').split(',').length, 21);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-drawn-1280x720.png'), fullPage: true });

    // Guessing: a click on the chart is the guess and the step; the sentence compares it.
    await page.evaluate(setValue, ['#lesson-function', 'forrester']);
    await page.click('#lesson-start');
    await page.click('#lesson-guess');
    await page.waitForFunction(settled);
    const chart = await page.locator('#lesson-posterior').boundingBox();
    await page.mouse.click(chart.x + 0.7 * chart.width, chart.y + 0.5 * chart.height);
    await page.waitForFunction(() => /You guessed x = /.test(document.querySelector('#lesson-explain')?.textContent ?? ''));
    assert.match(await text(page, '#lesson-step-label'), /^step 1 of 30/);
    assert.match(page.url(), /[?&]guess=1&gx=0\.\d+/);
    assert.match(await text(page, '#lesson-posterior'), /your guess/);

    // An added point dragged along the chart: the link's x moves, nothing else is added.
    await page.click('#lesson-guess');
    await page.fill('#lesson-add-x', '0.3');
    await page.click('#lesson-add');
    await page.waitForFunction(() => /[?&]lx=0\.3(&|$)/.test(location.search));
    await page.waitForFunction(settled);
    const square = await page.locator('#lesson-posterior .obs-added').boundingBox();
    await page.mouse.move(square.x + square.width / 2, square.y + square.height / 2);
    await page.mouse.down();
    await page.mouse.move(square.x + square.width / 2 + chart.width / 5, square.y + square.height / 2, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() => { const lx = new URL(location.href).searchParams.get('lx'); return lx && lx !== '0.3'; });
    const moved = new URL(page.url()).searchParams.get('lx');
    assert.equal(moved.split(',').length, 1, `one point, moved: ${moved}`);
    assert.ok(Number(moved) > 0.4, moved);
    await page.click('.lesson-point-remove');
    await page.waitForFunction(() => !/[?&]lx=/.test(location.search));

    // The link reopens the same picture (Forrester's function, EI, step 1).
    await page.evaluate(setValue, ['#lesson-acq', 'ei']);
    await page.waitForFunction(settled);
    const link = page.url();
    const sentence = await text(page, '#lesson-explain');
    const again = await openPage(site, new URL(link).search.slice(1), { width: 390, height: 844 });
    try {
      await again.page.waitForFunction(settled);
      assert.equal(await text(again.page, '#lesson-explain'), sentence);
      await again.page.screenshot({ path: join(ARTIFACTS, 'playground-390x844.png'), fullPage: true });
      assert.deepEqual(again.errors, []);
    } finally { await again.close(); }
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});
