// What a class sees on a projector (1280×720) and a student on a phone (390×844), in Chromium
// and Firefox: every view keeps its chart text on the one type scale, nothing runs past its
// panel or is cut off, a lesson's step, controls and main chart share the first screen, and an
// upload's notes are one banner, not a wall of them. (Firefox cannot make a window narrower
// than 500 px: its phone is 500 px wide.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { LESSONS_VIEWS, EXPERIMENT_VIEWS, showView } from './views.mjs';
import { serveSite, openPage, tempDir, cli } from './helpers.mjs';
import { BROWSERS, HAS_FIREFOX, openIn, goReady } from './drivers.mjs';

if (process.env.REQUIRE_FIREFOX && !HAS_FIREFOX) throw new Error('Firefox and geckodriver are missing: run scripts/install.sh --test');

const site = await serveSite();
after(() => site.server.close());

const PROJECTOR = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };

/// Chart text whose rendered size is not on the type scale (`--chart-*` in style.css) or is
/// under 12 px: SVG text through its transforms, canvases by how much they are scaled.
function offScale() {
  const root = getComputedStyle(document.documentElement);
  const scale = ['--chart-title', '--chart-axis', '--chart-tick', '--chart-legend', '--chart-caption']
    .map((v) => parseFloat(root.getPropertyValue(v)));
  const ok = (px) => px >= 11.95 && scale.some((s) => Math.abs(px - s) < 0.6);
  const bad = [];
  for (const t of document.querySelectorAll('svg text')) {
    if (!t.getBoundingClientRect().width) continue;
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (!ok(px)) bad.push(`${t.ownerSVGElement.id}: '${t.textContent.slice(0, 30)}' at ${px.toFixed(1)} px`);
  }
  for (const c of document.querySelectorAll('canvas')) {
    if (!c.width || !c.clientWidth) continue;
    const px = scale[2] * (c.clientWidth / c.width);
    if (!ok(px)) bad.push(`${c.id}: drawn ${c.width} px wide, shown ${c.clientWidth} px: ticks at ${px.toFixed(1)} px`);
  }
  for (const f of document.querySelectorAll('figcaption')) {
    const px = parseFloat(getComputedStyle(f).fontSize);
    if (f.getBoundingClientRect().width && !ok(px)) bad.push(`caption '${f.textContent.slice(0, 30)}' at ${px} px`);
  }
  return bad;
}

/// Whatever is cut off: the page scrolling sideways, an element running past its panel (unless
/// inside a box that scrolls), a control clipping its own text, chart text past the chart's
/// edge, a link field too narrow to recognise a link, a list hiding entries in a scroll box.
function cutOff() {
  const bad = [];
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : ''} '${(e.textContent || e.value || '').trim().slice(0, 24)}'`;
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) bad.push(`the page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
  const inScroller = (e) => {
    for (let p = e.parentElement; p && !p.classList.contains('panel'); p = p.parentElement) {
      if (/auto|scroll/.test(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  function* ancestorsToPanel(e) {
    for (let a = e; a && !a.classList.contains('panel'); a = a.parentElement) yield a;
  }
  for (const e of document.querySelectorAll('.panel *')) {
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
    const r = e.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || getComputedStyle(e).visibility === 'hidden') continue;
    // A bar fixed to the screen (a lesson's player on a phone) is laid out against the
    // window, not its panel: it must stay within the window.
    const fixed = [...ancestorsToPanel(e)].some((a) => getComputedStyle(a).position === 'fixed');
    const p = fixed ? { left: 0, right: window.innerWidth } : e.closest('.panel').getBoundingClientRect();
    if ((r.right > p.right + 1 || r.left < p.left - 1) && !inScroller(e)) {
      bad.push(`${name(e)} runs past its panel (${Math.round(r.left)}–${Math.round(r.right)} in ${Math.round(p.left)}–${Math.round(p.right)})`);
    }
  }
  for (const e of document.querySelectorAll('button, a.button, select, h1, h2, h3, .msg .text, #lesson-list a')) {
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) bad.push(`${name(e)} clips its text (${e.scrollWidth} > ${e.clientWidth})`);
  }
  for (const t of document.querySelectorAll('svg text')) {
    const r = t.getBoundingClientRect();
    if (!r.width) continue;
    const s = t.ownerSVGElement.getBoundingClientRect();
    if (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1) {
      bad.push(`${t.ownerSVGElement.id}: '${t.textContent.slice(0, 30)}' is cut by the chart's edge`);
    }
  }
  const link = document.querySelector('#permalink');
  if (link && link.clientWidth && link.clientWidth < 220) bad.push(`#permalink is ${link.clientWidth} px wide`);
  for (const f of document.querySelectorAll('fieldset')) {
    if (f.clientHeight && f.scrollHeight > f.clientHeight + 1) bad.push(`${name(f)} hides part of its list in a scroll box`);
  }
  return bad;
}

/// Tick labels or legend entries of one chart that overlap.
function overlaps() {
  const out = [];
  for (const svg of document.querySelectorAll('svg')) {
    for (const cls of ['tick', 'legend']) {
      const boxes = [...svg.querySelectorAll(`text.${cls}`)].map((t) => [t.textContent, t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, r] = boxes[i], [c, q] = boxes[j];
        if (r.left < q.right - 0.5 && q.left < r.right - 0.5 && r.top < q.bottom - 0.5 && q.top < r.bottom - 0.5) out.push(`${svg.id}: '${a}' / '${c}'`);
      }
    }
  }
  return out;
}

/// Data marks of a chart that one of its legends covers: a legend's box (`rect.legend-box`)
/// against every line, band, dot and area drawn (polyline, polygon, path, circle), in screen
/// pixels — points every 2 px along each outline, the box's area for a filled shape, the
/// bounding box of a dot.
function legendsOnData() {
  const bad = [];
  for (const svg of document.querySelectorAll('svg')) {
    const boxes = [...svg.querySelectorAll('rect.legend-box')].map((r) => r.getBoundingClientRect()).filter((r) => r.width > 0);
    if (!boxes.length) continue;
    const inside = (x, y) => boxes.some((b) => x > b.left && x < b.right && y > b.top && y < b.bottom);
    for (const m of svg.querySelectorAll('polyline, polygon, path, circle')) {
      const name = `${svg.id}: ${m.tagName}${m.id ? '#' + m.id : ''}${m.getAttribute('class') ? '.' + m.getAttribute('class') : ''}`;
      if (m.tagName === 'circle') {
        const r = m.getBoundingClientRect();
        if (boxes.some((b) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom)) bad.push(`${name} (a dot)`);
        continue;
      }
      if (!(m.getAttribute('points') ?? m.getAttribute('d') ?? '').trim()) continue;
      const ctm = m.getScreenCTM();
      const length = m.getTotalLength();
      let covered = false;
      for (let s = 0; s <= length && !covered; s += 2) {
        const p = m.getPointAtLength(s);
        const q = new DOMPoint(p.x, p.y).matrixTransform(ctm);
        covered = inside(q.x, q.y);
      }
      if (covered) { bad.push(`${name} (its line)`); continue; }
      if (getComputedStyle(m).fill === 'none' || Number(m.getAttribute('fill-opacity') ?? 1) === 0) continue;
      const back = ctm.inverse();
      for (const b of boxes) {
        for (let x = b.left + 1; x < b.right && !covered; x += 3) {
          for (let y = b.top + 1; y < b.bottom && !covered; y += 3) covered = m.isPointInFill(new DOMPoint(x, y).matrixTransform(back));
        }
      }
      if (covered) bad.push(`${name} (its area)`);
    }
  }
  return [...new Set(bad)];
}

/// Chart marks (axes, ticks, titles, lines, bands, dots) that show under the player bar at
/// the present scroll position: each mark's box cut to what its scrolling ancestors show (a
/// mark scrolled out of its scroller's view is not shown), against the bar's box.
function underThePlayer() {
  const bar = document.querySelector('.lesson-player')?.getBoundingClientRect();
  if (!bar || !bar.height) return ['no player bar'];
  const shown = (e) => {
    let r = e.getBoundingClientRect();
    let [l, t, rt, b] = [r.left, r.top, r.right, r.bottom];
    for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p);
      if (p === document.documentElement || !/auto|scroll|hidden|clip/.test(o.overflowY + o.overflowX)) continue;
      const c = p.getBoundingClientRect();
      [l, t, rt, b] = [Math.max(l, c.left), Math.max(t, c.top), Math.min(rt, c.right), Math.min(b, c.bottom)];
    }
    return [l, t, rt, b];
  };
  const bad = [];
  for (const m of document.querySelectorAll('.lesson svg line, .lesson svg polyline, .lesson svg polygon, .lesson svg path, .lesson svg circle, .lesson svg text, .lesson svg rect:not([width="100%"])')) {
    if (m.closest('.lesson-player')) continue;
    const [l, t, r, b] = shown(m);
    if (r - l < 0.5 || b - t < 0.5) continue;
    if (l < bar.right && r > bar.left && t < bar.bottom - 0.5 && b > bar.top + 0.5) {
      bad.push(`${m.ownerSVGElement?.id}: ${m.tagName}${m.getAttribute('class') ? '.' + m.getAttribute('class') : ''} '${(m.textContent ?? '').slice(0, 20)}' at ${Math.round(t)}–${Math.round(b)} under the bar at ${Math.round(bar.top)}–${Math.round(bar.bottom)}`);
    }
  }
  return bad.slice(0, 5);
}

/// `start` in a window of `viewport` on the link `query`, ready.
const open = (start, viewport, query) => openIn(start, site.url + (query ? `?${query}` : ''), viewport);

/// `start` once, in a window of `viewport`, then `check(b, view)` on each of `views` in turn,
/// each on its link served by a server of its own: a new origin (its own port), so that each
/// view loads as on a first visit — nothing kept, no service worker, nothing cached, a new
/// session — as in a fresh browser, without starting a browser for each view.
async function eachView(start, viewport, views, check) {
  const b = await start(viewport);
  const servers = [];
  try {
    for (const view of views) {
      const own = await serveSite();
      servers.push(own);
      await goReady(b, own.url + (view.query ? `?${view.query}` : ''));
      await check(b, view);
    }
  } finally {
    await b.close();
    for (const { server } of servers) { server.close(); server.closeAllConnections?.(); }
  }
}

for (const [browser, start] of BROWSERS) {
  // Firefox cannot make a window narrower than 500 px: its phone is 500 px wide.
  const phone = browser === 'Firefox' ? '500×844' : '390×844';
  for (const [label, viewport] of [['1280×720', PROJECTOR], [phone, PHONE]]) {
    test(`${browser} at ${label}: every view's chart text is on the type scale, nothing is cut off and no labels overlap`, async () => {
      await eachView(start, viewport, [...LESSONS_VIEWS, ...EXPERIMENT_VIEWS], async (b, view) => {
        await showView(b, view);
        const where = `view '${view.query}' in ${browser} at ${label}`;
        assert.deepEqual(await b.evaluate(offScale), [], `text off the type scale on ${where}`);
        assert.deepEqual(await b.evaluate(cutOff), [], `cut off on ${where}`);
        assert.deepEqual(await b.evaluate(overlaps), [], `overlapping labels on ${where}`);
        const titleSizes = await b.evaluate(() => [...new Set([...document.querySelectorAll('svg text.chart-title')].filter((t) => t.getBoundingClientRect().width).map((t) => getComputedStyle(t).fontSize))]);
        assert.ok(titleSizes.length <= 1, `chart titles in ${titleSizes.join(' and ')} on ${where}: one title size`);
        assert.deepEqual(b.errors, [], where);
      });
    });
  }

  test(`${browser} at 1280×720: each lesson's link shows its step in words, its player, its main chart and its pay-off without scrolling, also after stepping`, async () => {
    await eachView(start, PROJECTOR, LESSONS_VIEWS.filter((v) => !/step=/.test(v.query)), async (b, view) => {
      await showView(b, view);
      for (const steps of [0, 3]) {
        for (let k = 0; k < steps; k++) await b.click('#lesson-step');
        if (steps) await b.waitFor((n) => (document.querySelector('#lesson-step-label')?.textContent ?? '').startsWith(`step ${n} of`), steps);
        await b.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
        const boxes = await b.evaluate(() => Object.fromEntries(
          [['sentence', '#lesson-explain'], ['player', '.player'], ['main chart', '.lesson-charts figure'],
            ...[...document.querySelectorAll('.lesson figure.payoff svg')].map((s) => [`pay-off chart #${s.id}`, `#${s.id}`])].map(([k, sel]) => {
            const e = document.querySelector(sel);
            const r = (e?.closest('figure') ?? e)?.getBoundingClientRect();
            return [k, r ? [Math.round(r.top), Math.round(r.bottom), innerHeight] : null];
          })));
        assert.ok(Object.keys(boxes).some((k) => k.startsWith('pay-off')), `${view.query}: no chart is marked as the lesson's pay-off`);
        for (const [part, box] of Object.entries(boxes)) {
          assert.ok(box && box[0] >= 0 && box[1] <= box[2], `${view.query} after ${steps} steps: the ${part} is at ${box} (top, bottom, screen height)`);
        }
      }
    });
  });

  test(`${browser} on a phone: wherever a lesson's main chart is on the screen, the step controls are too, and they cover at most a third of it`, async () => {
    await eachView(start, PHONE, LESSONS_VIEWS.filter((v) => !/step=/.test(v.query)), async (b, view) => {
      await showView(b, view);
      // The chart's top at the top of the screen, then its bottom at the bottom.
      for (const block of ['start', 'end']) {
        const [chart, player, screen] = await b.evaluate(async (block) => {
          document.querySelector('.lesson-charts figure').scrollIntoView({ block });
          await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
          const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; };
          return [box('.lesson-charts figure'), box('.player'), innerHeight];
        }, block);
        const where = `${view.query} in ${browser}, chart scrolled to the ${block}: chart ${chart}, player ${player}, screen ${screen} px`;
        assert.ok(player[0] >= 0 && player[1] <= screen, `the player is off the screen: ${where}`);
        const covered = Math.max(0, Math.min(chart[1], player[1]) - Math.max(chart[0], player[0]));
        assert.ok(covered <= (chart[1] - chart[0]) / 3, `the player covers ${covered} px of the chart: ${where}`);
      }
    });
  });

  // The player bar is fixed on a phone's bottom edge and the page reserves its height: the
  // page scrolls above it. Before, it was sticky over the charts and hid the Pareto front's
  // low-latency end and its x axis, lesson 4's "epoch" title and the bottom of lesson 3's prior.
  test(`${browser} on a phone: no chart's axis or data is under the player bar, wherever the page is scrolled`, async () => {
    await eachView(start, PHONE, LESSONS_VIEWS, async (b, view) => {
      await showView(b, view);
      const figures = await b.evaluate(() => document.querySelectorAll('.lesson-charts figure').length);
      const positions = [['the first screen', -1, null], ...Array.from({ length: figures }, (_, i) => [[`figure ${i} at the top`, i, 'start'], [`figure ${i} at the bottom`, i, 'end']]).flat(), ["the page's end", -2, null]];
      for (const [where, i, block] of positions) {
        const bad = await b.evaluate(async ([i, block]) => {
          const scroller = document.scrollingElement.scrollHeight > innerHeight ? document.scrollingElement : document.body;
          if (i === -1) { scroller.scrollTop = 0; document.body.scrollTop = 0; }
          else if (i === -2) { document.body.scrollTop = document.body.scrollHeight; document.scrollingElement.scrollTop = document.scrollingElement.scrollHeight; }
          else document.querySelectorAll('.lesson-charts figure')[i].scrollIntoView({ block });
          await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
          return null;
        }, [i, block]).then(() => b.evaluate(underThePlayer));
        assert.deepEqual(bad, [], `under the player bar on '${view.query}' in ${browser}, ${where}`);
      }
    });
  });

  // Legends go below a narrow chart's plot (chart.rs's legend_below); before, they sat in a
  // corner of the plot and covered the Pareto front's low-latency end, lesson 4's early curves,
  // CTS's draws and lesson 1's band.
  test(`${browser} on a phone: no lesson's legend covers the data it explains`, async () => {
    await eachView(start, PHONE, LESSONS_VIEWS, async (b, view) => {
      await showView(b, view);
      assert.deepEqual(await b.evaluate(legendsOnData), [], `legends over data on '${view.query}' in ${browser}`);
    });
  });

  test(`${browser} on a phone: lesson 4's table of candidates fits the screen without scrolling sideways`, async () => {
    const b = await open(start, PHONE, 'learn=multi-fidelity&step=40');
    try {
      await showView(b, { ready: '#lesson-scores' });
      const [table, screen] = await b.evaluate(() => [document.querySelector('#lesson-scores').getBoundingClientRect().right, document.documentElement.clientWidth]);
      assert.ok(table <= screen, `the table ends at ${table} px on a ${screen} px screen`);
    } finally { await b.close(); }
  });
}

test('an upload of raw curves with log-scaled hyperparameters and diverged points says so in one banner, details on demand', async () => {
  const dir = await tempDir('hpo-layout-');
  const file = join(dir, 'raw_curves.csv');
  await cli(['generate', 'exploding', '--out', file]);
  const b = await openPage(site, '', PROJECTOR);
  try {
    await b.page.setInputFiles('#upload', file);
    await b.page.waitForFunction(() => /^raw_curves/.test(document.querySelector('#data-info')?.textContent ?? '') && /loaded in/.test(document.querySelector('#data-info')?.textContent ?? ''), null, { timeout: 60_000 });
    const banners = await b.page.locator('#messages .msg').count();
    assert.ok(banners <= 3, `${banners} banners after the upload`);
    // The first screen is the new data's setup, whole.
    const setup = await b.page.evaluate(() => { const r = document.querySelector('#setup-panel').getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; });
    assert.ok(setup[0] >= 0 && setup[1] <= 720, `the Setup panel is at ${setup} (the screen is 0–720)`);
    const line = await b.page.locator('#messages .msg.warning .text').first().textContent();
    assert.match(line, /raw_curves\.csv: 7 hyperparameters on a log scale, [\d,]+ diverged or missing curve points repaired, curves of 40 steps/);
    // Each note is behind the line, one click away.
    await b.page.click('#messages .msg-details summary');
    assert.equal(await b.page.locator('#messages .msg-details li').count(), 10);
    // Replacing the data takes its notes away.
    await b.page.selectOption('#data-source', 'bundled:quadratic');
    await b.page.waitForFunction(() => /^quadratic/.test(document.querySelector('#data-info')?.textContent ?? ''));
    assert.equal(await b.page.locator('#messages .msg-details').count(), 0);
    assert.deepEqual(b.errors, []);
  } finally { await b.close(); }
});
