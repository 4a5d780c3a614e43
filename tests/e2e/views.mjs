// Every kind of view the page has, as a link and what shows it complete: the lessons at their
// start and at a step with everything drawn, and the experiment views (a run's results, a
// race with its ranks, CD diagrams and race view, the design view on data, several
// objectives). The layout and accessibility tests walk this one list.

/// The six lessons at their start (their default links) and at a step where every mark shows.
export const LESSONS_VIEWS = [
  { query: 'learn=gp-ei', ready: '#lesson-posterior circle' },
  { query: 'learn=copula', ready: '#lesson-ecdf polyline' },
  { query: 'learn=transfer', ready: '#lesson-prior polygon' },
  { query: 'learn=multi-fidelity', ready: '#lesson-dyhpo text' },
  { query: 'learn=designs', ready: '#design-map .design-point' },
  { query: 'learn=pareto', ready: '#lesson-objectives circle' },
  { query: 'learn=gp-ei&step=2', ready: '#lesson-posterior circle' },
  { query: 'learn=designs&step=2', ready: '#design-map .design-point' },
  { query: 'learn=copula&step=6&ly=100000', ready: '#lesson-versus-gcp circle' },
  { query: 'learn=transfer&step=7', ready: '#lesson-prior circle.draw' },
  { query: 'learn=multi-fidelity&step=40', ready: '#lesson-scores' },
  { query: 'learn=pareto&step=12', ready: '#lesson-front' },
];

/// The experiment page: first visit, a finished run, a race on curves with the design view on
/// its data, a race over three tasks with its critical-difference diagrams (long method names),
/// several objectives.
export const EXPERIMENT_VIEWS = [
  { query: '' },
  { query: 'v=1&seeds=2&iters=10', run: true },
  { query: 'v=1&data=bundled:curves&tasks=curves-00&methods=RS,ASHA&seeds=1&race=100&design=IC.D.10.0.0.1', run: true, ready: '#design-map .design-point' },
  { query: 'v=1&data=bundled:curves&tasks=curves-00,curves-01,curves-02&methods=RS,Hyperband,ASHA,BOHB,DEHB,GP%20(max%20budget)&seeds=1&race=100', run: true, ready: '#cd-100 .cd-method' },
  { query: 'v=1&data=bundled:tradeoff&seeds=1&iters=10', run: true },
];

/// Shows `view` complete in the browser `b` (a driver of `drivers.mjs`, already on the view's
/// link): runs it if it is a run, and waits for what it draws.
export async function showView(b, view) {
  if (view.run) {
    await b.click('#run');
    await b.waitFor(() => /^Finished/.test(document.querySelector('#run-status')?.textContent ?? ''), null, 120_000);
  }
  if (view.ready) await b.waitFor((s) => document.querySelector(s), view.ready, 60_000);
  // Charts lay out at their measured width: let the last resize settle.
  await b.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}
