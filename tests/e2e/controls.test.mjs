// Every control of every lesson, as a teacher tries them before a class: at projector and
// phone size, in Chromium and Firefox, each control is used once (the reseeds, sliders,
// method switches, lesson 1's functions, drawing, noise, acquisitions and guessing, added,
// dragged and removed points, the hide switches, the whole player and a seed
// opened from the strip of the count over seeds under the last step) and the
// lesson is stepped once after each; the page must report no error at any point. Before,
// "another family of tasks" (lesson 3) and "another task" (lesson 4) panicked the page
// ("Tried to access a reactive value that has already been disposed"): step and play stopped
// working until a reload.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveSite } from './helpers.mjs';
import { BROWSERS, HAS_FIREFOX, openIn } from './drivers.mjs';

if (process.env.REQUIRE_FIREFOX && !HAS_FIREFOX) throw new Error('Firefox and geckodriver are missing: run scripts/install.sh --test');

const site = await serveSite();
after(() => site.server.close());

const PROJECTOR = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };

/// The lesson shown is drawn and not about to change: its numbers are there, no worker is
/// computing a new setting (`aria-busy`) and no "computing" line shows.
const settled = () => {
  const lesson = document.querySelector('.lesson');
  return !!lesson && lesson.getAttribute('aria-busy') !== 'true' && !document.querySelector('#lesson-computing')
    && !!document.querySelector('#lesson-numbers')?.textContent && !!document.querySelector('#lesson-step-label');
};

/// What a failed wait saw: the step, whether the lesson is busy, and the count over seeds'
/// strip, its wait or its error.
const shownState = () => {
  const text = (sel) => document.querySelector(sel)?.textContent ?? '(none)';
  return JSON.stringify({
    step: text('#lesson-step-label'),
    busy: document.querySelector('.lesson')?.getAttribute('aria-busy'),
    computing: text('#lesson-computing'),
    strip: document.querySelector('#lesson-seed-strip') ? 'drawn' : '(none)',
    stripWait: text('#lesson-seed-strip-wait'),
    stripError: text('#lesson-seed-strip-error'),
    error: text('.lesson .msg.error'),
    link: location.search,
  });
};

/// The step shown and the last, from the player's label ("step 3 of 30").
const stepLabel = () => (document.querySelector('#lesson-step-label')?.textContent ?? '').match(/step (\d+) of (\d+)/)?.slice(1).map(Number) ?? null;

/// In the page: sets a form control's value as a user's edit does and sends its events.
const setValue = ([selector, value]) => {
  const e = document.querySelector(selector);
  if (!e) throw new Error(`no ${selector}`);
  e.value = String(value);
  e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
};

/// In the page: clicks a hide switch off and on again (they sit in a closed <details>).
const toggleSwitch = (selector) => {
  const e = document.querySelector(selector);
  if (!e) throw new Error(`no ${selector}`);
  e.click();
  e.click();
  return true;
};

/// In the page: drags the first design point a quarter of the map to the right with pointer
/// events, as a mouse does.
const dragPoint = () => {
  const handle = document.querySelector('#design-map .design-handle');
  const svg = document.querySelector('#design-map');
  if (!handle || !svg) throw new Error('no design point to drag');
  const r = handle.getBoundingClientRect();
  const s = svg.getBoundingClientRect();
  const at = (x) => ({ bubbles: true, clientX: x, clientY: r.top + r.height / 2, pointerId: 1, isPrimary: true });
  handle.dispatchEvent(new PointerEvent('pointerdown', at(r.left + r.width / 2)));
  const to = Math.min(s.right - 10, r.left + r.width / 2 + s.width / 4);
  svg.dispatchEvent(new PointerEvent('pointermove', at(to)));
  svg.dispatchEvent(new PointerEvent('pointerup', at(to)));
  return true;
};

/// In the page: clicks lesson 1's chart a third of the way across (adds a point there), as a
/// mouse does, wherever the chart is scrolled.
const clickChart = () => {
  const svg = document.querySelector('#lesson-posterior');
  if (!svg) throw new Error('no #lesson-posterior');
  const r = svg.getBoundingClientRect();
  svg.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: r.left + r.width / 3, clientY: r.top + r.height / 2 }));
  return true;
};

/// In the page: drags lesson 1's first added point (a black square) a fifth of the chart to
/// the right, with pointer events as a mouse does.
const dragAdded = () => {
  const square = document.querySelector('#lesson-posterior .obs-added');
  const svg = document.querySelector('#lesson-posterior');
  if (!square || !svg) throw new Error('no added point to drag');
  const r = square.getBoundingClientRect();
  const s = svg.getBoundingClientRect();
  const at = (x) => ({ bubbles: true, clientX: x, clientY: r.top + r.height / 2, pointerId: 1, isPrimary: true });
  square.dispatchEvent(new PointerEvent('pointerdown', at(r.left + r.width / 2)));
  const to = Math.min(s.right - 40, r.left + s.width / 5);
  svg.dispatchEvent(new PointerEvent('pointermove', at(to)));
  svg.dispatchEvent(new PointerEvent('pointerup', at(to)));
  svg.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: to, clientY: r.top + r.height / 2 }));
  return true;
};

/// In the page: draws a function on lesson 1's drawing chart, a stroke from the left edge low
/// to the right edge high.
const drawFunction = () => {
  const svg = document.querySelector('#lesson-draw');
  if (!svg) throw new Error('no #lesson-draw');
  const s = svg.getBoundingClientRect();
  const at = (f) => ({ bubbles: true, clientX: s.left + f * s.width, clientY: s.bottom - (0.2 + 0.6 * f) * s.height, pointerId: 1, isPrimary: true });
  svg.dispatchEvent(new PointerEvent('pointerdown', at(0.05)));
  for (const f of [0.2, 0.4, 0.6, 0.8, 0.95]) svg.dispatchEvent(new PointerEvent('pointermove', at(f)));
  svg.dispatchEvent(new PointerEvent('pointerup', at(0.95)));
  return true;
};

/// In the page: moves a point of the drawn function with the arrow keys.
const nudgeDrawn = () => {
  const point = document.querySelectorAll('#lesson-draw .draw-point')[5];
  if (!point) throw new Error('no drawn point to nudge');
  point.focus();
  point.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true }));
  return true;
};

/// In the page: moves the first design point with the arrow keys.
const nudgePoint = () => {
  const handle = document.querySelector('#design-map .design-handle');
  if (!handle) throw new Error('no design point to nudge');
  handle.focus();
  handle.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true }));
  return true;
};

// Each control as [what a teacher does, how]: `click` a button as a user does, `set` a form
// control's value, `run` a function in the page.
const click = (selector) => [`click ${selector}`, (b) => b.click(selector)];
const set = (selector, value) => [`set ${selector} to ${value}`, (b) => b.evaluate(setValue, [selector, value])];
const run = (what, fn) => [what, (b) => b.evaluate(fn)];
const hide = (panel) => [`hide and show '${panel}'`, (b) => b.evaluate(toggleSwitch, `#show-${panel}`)];

/// The player, the same in every lesson: play (at the fastest speed) and pause once it has
/// moved, then every button.
const PLAYER = [
  set('#lesson-speed', 8),
  ['play until a step passes, then pause', async (b) => {
    const [k] = await b.evaluate(stepLabel);
    await b.click('#lesson-play');
    await b.waitFor((k) => { const s = (document.querySelector('#lesson-step-label')?.textContent ?? '').match(/step (\d+)/); return s && Number(s[1]) !== k; }, k);
    await b.click('#lesson-play');
  }],
  click('#lesson-end'),
  ['open seed 1 from the strip of the count over seeds under the last step', async (b) => {
    // At the last step (the step after the previous control went back one), once the count
    // is there: from the build for a lesson at its opening setting (lessons 2, 3, 4 and 6
    // count one race whatever the seed), from its own workers for lesson 1's changed setting.
    await b.click('#lesson-end');
    await b.waitFor(() => !!document.querySelector('#lesson-seed-strip .seed-cell'), null, 240_000);
    await b.evaluate(() => { const c = document.querySelectorAll('#lesson-seed-strip .seed-cell')[1]; if (!c.disabled) c.click(); return true; });
  }],
  click('#lesson-start'),
  click('#lesson-step'),
  click('#lesson-back'),
];

const LESSONS = [
  ['gp-ei', [
    set('#lesson-function', 'gramacy-lee'), set('#lesson-function', 'narrow-well'), set('#lesson-function', 'drawn'),
    run('draw the function', drawFunction), run('move a drawn point with the keyboard', nudgeDrawn), set('#lesson-function', 'forrester'),
    set('#lesson-noise', 0.1), set('#lesson-noise', 0),
    set('#lesson-acq', 'pi'), set('#lesson-acq', 'ucb'), set('#lesson-kappa', 0.5), set('#lesson-acq', 'ts'), set('#lesson-acq', 'ei'),
    click('#lesson-ls-fit'), set('#lesson-ls', -0.5), click('#lesson-ls-fit'),
    set('#lesson-add-x', 0.3), click('#lesson-add'), run('drag an added point', dragAdded), click('.lesson-point-remove'),
    run('click the chart to add a point', clickChart), click('#lesson-clear'),
    click('#lesson-guess'), run('guess the next pick on the chart', clickChart), click('#lesson-guess'),
    click('#lesson-reseed'), hide('ei'),
  ]],
  ['copula', [set('#lesson-add-y', 100000), click('#lesson-add'), click('#lesson-clear'), click('#lesson-reseed'), hide('warped')]],
  ['transfer', [click('#lesson-reseed'), hide('regret')]],
  ['multi-fidelity', [click('#lesson-reseed'), hide('hyperband')]],
  ['designs', [
    set('#lesson-design-method', 'TA'), set('#lesson-design-criterion', 'A'), set('#lesson-design-points', 8),
    click('#lesson-design-seed'), run('drag a design point', dragPoint), run('move a design point with the keyboard', nudgePoint),
    click('#lesson-design-unplace'), hide('map'),
  ]],
  ['pareto', [set('#lesson-method', 'ParEGO'), click('#lesson-reseed'), hide('hv')]],
];

/// One step forward (back from the last step), waited for, then settled.
async function stepOnce(b) {
  const [k, last] = await b.evaluate(stepLabel);
  const [button, to] = k < last ? ['#lesson-step', k + 1] : ['#lesson-back', k - 1];
  await b.click(button);
  await b.waitFor((to) => (document.querySelector('#lesson-step-label')?.textContent ?? '').startsWith(`step ${to} of`), to);
  await b.waitFor(settled);
}

for (const [browser, start] of BROWSERS) {
  const phone = browser === 'Firefox' ? '500×844' : '390×844';
  for (const [label, viewport] of [['1280×720', PROJECTOR], [phone, PHONE]]) {
    test(`${browser} at ${label}: every control of every lesson works, and the lesson steps after each, with no page error`, async () => {
      for (const [lesson, controls] of LESSONS) {
        const b = await openIn(start, `${site.url}?learn=${lesson}`, viewport);
        try {
          await b.waitFor(settled);
          for (const [what, act] of [...controls, ...PLAYER]) {
            const where = `lesson ${lesson} in ${browser} at ${label}, after '${what}'`;
            await act(b).catch(async (e) => {
              const state = await b.evaluate(shownState).catch((f) => `(unreadable: ${f.message})`);
              throw new Error(`${where}: ${e.message}; the page shows: ${state}; page errors: ${b.errors.join('\n')}`);
            });
            await b.waitFor(settled).catch((e) => { throw new Error(`${where}: ${e.message}; page errors: ${b.errors.join('\n')}`); });
            await stepOnce(b).catch((e) => { throw new Error(`${where}, stepping: ${e.message}; page errors: ${b.errors.join('\n')}`); });
            assert.deepEqual(b.errors, [], where);
          }
        } finally { await b.close(); }
      }
    });
  }
}
