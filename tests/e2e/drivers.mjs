// One small interface over a browser, so that a scenario is written once and runs in each
// browser the README promises: Chromium through playwright-core (CDP), Firefox through
// geckodriver with a W3C WebDriver client written here. Why a hand-written client: WebDriver
// classic over HTTP is a dozen requests; selenium-webdriver 4.49 needs Node 22 (Debian's is 20)
// and ships Selenium Manager, which downloads drivers when it finds none; playwright-core can
// only drive its own patched Firefox build, never Debian's.
//
// A driver: { name, errors, goto(url), reload(), evaluate(fn, arg), waitFor(fn, arg, ms),
// click(selector), upload(selector, path), addScript(source), close() }. `evaluate` and
// `waitFor` take a function (sync or async) run in the page with one JSON argument.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freshBrowser } from './browser.mjs';

const VIEWPORT = { width: 1400, height: 1000 };
export const GECKODRIVER = process.env.GECKODRIVER ?? join(homedir(), '.cargo', 'bin', 'geckodriver');
export const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';
export const HAS_FIREFOX = existsSync(GECKODRIVER) && existsSync(FIREFOX);

/// A playwright page as a driver (for the Chromium-only tests that share views with these).
export function driverOf(page) {
  return {
    click: (selector) => page.click(selector),
    evaluate: (fn, arg = null) => page.evaluate(fn, arg),
    waitFor: (fn, arg = null, ms = 60_000) => page.waitForFunction(fn, arg, { timeout: ms }),
  };
}

/// Chromium (Debian's, fresh profile) through playwright-core.
export async function chromium(viewport = VIEWPORT) {
  const b = await freshBrowser(viewport);
  return {
    name: 'Chromium',
    errors: b.errors,
    goto: (url) => b.page.goto(url),
    reload: () => b.page.reload(),
    evaluate: (fn, arg = null) => b.page.evaluate(fn, arg),
    waitFor: (fn, arg = null, ms = 60_000) => b.page.waitForFunction(fn, arg, { timeout: ms }),
    click: (selector) => b.page.click(selector),
    upload: (selector, path) => b.page.setInputFiles(selector, path),
    // Through the DevTools protocol, which the page's policy does not govern.
    addScript: (source) => b.page.evaluate(source),
    close: () => b.close(),
  };
}

async function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); }).on('error', fail);
  });
}

/// Firefox ESR (Debian's, fresh profile, headless) through geckodriver. The page's errors are
/// read from Firefox's own output: with `devtools.console.stdout.content` it prints every
/// console message of the page, and uncaught errors as "JavaScript error: …".
export async function firefox(viewport = VIEWPORT) {
  const port = await freePort();
  const proc = spawn(GECKODRIVER, ['--port', String(port), '--binary', FIREFOX], { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors = [];
  let rest = '';
  const read = (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      // The page's own: its console errors (the browser's are off, below) and uncaught errors
      // in its scripts (the browser's own scripts are resource:// or chrome://).
      // Remote Settings ("RSLoader") is the browser's own and logs at start-up even so.
      if ((/^console\.error: /.test(line) && !/^console\.error: RSLoader:/.test(line)) || /^JavaScript error: https?:/.test(line)) errors.push(line);
    }
  };
  proc.stdout.on('data', read);
  proc.stderr.on('data', read);
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const { value } = await res.json();
    if (value && value.error) throw new Error(`WebDriver ${path}: ${value.error}: ${value.message}`);
    return value;
  };
  for (let t = 0; ; t++) {
    try { await call('GET', '/status'); break; } catch (e) {
      if (t > 100) { proc.kill(); throw new Error(`geckodriver did not start: ${e.message}`); }
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  let session;
  try {
    session = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'firefox',
          timeouts: { script: 600_000, pageLoad: 60_000 },
          'moz:firefoxOptions': {
            binary: FIREFOX,
            args: ['-headless'],
            prefs: { 'devtools.console.stdout.content': true, 'devtools.console.stdout.chrome': false },
          },
        },
      },
    });
  } catch (e) { proc.kill(); throw e; }
  const id = session.sessionId;
  const cmd = (method, path, body) => call(method, `/session/${id}${path}`, body);
  const element = async (selector) => Object.values(await cmd('POST', '/element', { using: 'css selector', value: selector }))[0];
  const evaluate = async (fn, arg = null) => {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn})(arguments[0]))
        .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ error: String(e && e.stack || e) }));`;
    const r = await cmd('POST', '/execute/async', { script, args: [arg] });
    if (r.error) throw new Error(r.error);
    return r.ok;
  };
  // The window's outer size, then corrected by what its toolbars take, so that the page gets
  // `viewport` (Firefox's windows are at least 500 px wide: a narrower one gets 500).
  await cmd('POST', '/window/rect', { width: viewport.width, height: viewport.height });
  const [iw, ih] = await evaluate(() => [innerWidth, innerHeight]);
  await cmd('POST', '/window/rect', { width: 2 * viewport.width - iw, height: 2 * viewport.height - ih });
  return {
    name: 'Firefox',
    errors,
    goto: (url) => cmd('POST', '/url', { url }),
    reload: () => cmd('POST', '/refresh', {}),
    evaluate,
    async waitFor(fn, arg = null, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        // A page in the middle of navigating has no document to ask: ask again.
        const v = await evaluate(fn, arg).catch(() => false);
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${String(fn).slice(0, 160)}`);
        await new Promise((ok) => setTimeout(ok, 100));
      }
    },
    async click(selector) { await cmd('POST', `/element/${await element(selector)}/click`, {}); },
    async upload(selector, path) { await cmd('POST', `/element/${await element(selector)}/value`, { text: path }); },
    // WebDriver scripts run outside the page's Content-Security-Policy.
    addScript: (source) => cmd('POST', '/execute/sync', { script: `${source}\n;return true;`, args: [] }),
    async close() {
      await cmd('DELETE', '').catch(() => {});
      proc.kill();
    },
  };
}

/// The text of the file the button `selector` downloads, caught in the page as the Blob it
/// is made from (a download is a browser's own dialog in some browsers).
export function caughtDownload(selector) {
  return new Promise((ok, fail) => {
    const make = URL.createObjectURL;
    const click = HTMLAnchorElement.prototype.click;
    let blob = null;
    URL.createObjectURL = (b) => { blob = b; return make.call(URL, b); };
    HTMLAnchorElement.prototype.click = function () {};
    try { document.querySelector(selector).click(); } finally {
      URL.createObjectURL = make;
      HTMLAnchorElement.prototype.click = click;
    }
    if (blob) blob.text().then(ok, fail); else fail(new Error(`${selector} made no file`));
  });
}

/// `start` (one of the drivers above) in a window of `viewport`, on `url`, ready: a lesson drawn
/// (or the list, for a lesson that does not exist), or the experiment page's data loaded (or
/// not); closed again if it never gets there.
export async function openIn(start, url, viewport = VIEWPORT) {
  const b = await start(viewport);
  try { await goReady(b, url); } catch (e) { await b.close(); throw e; }
  return b;
}

/// The browser `b` (a driver above) on `url`, ready as in `openIn`.
export async function goReady(b, url) {
  await b.goto(url);
  await b.waitFor(() => document.querySelector('.lesson #lesson-numbers, #lesson-none')
    || /loaded in|waiting for|no data/.test(document.querySelector('#data-info')?.textContent ?? ''))
    .catch(async (e) => {
      // What the page showed instead, and what it reported, for a wait that failed.
      const shown = await b.evaluate(() => JSON.stringify({
        readyState: document.readyState, link: location.search,
        dataInfo: document.querySelector('#data-info')?.textContent ?? '(none)',
        messages: [...document.querySelectorAll('.msg')].map((m) => m.textContent),
        text: document.body?.innerText.slice(0, 400),
      })).catch((f) => `(unreadable: ${f.message})`);
      throw new Error(`${e.message}; the page shows: ${shown}; page errors: ${b.errors.join('\n')}`);
    });
}

/// The browsers the suite runs in (Firefox only where it is installed: `scripts/install.sh
/// --test` installs it, so the README's test command always has it).
export const BROWSERS = [['Chromium', chromium], ...(HAS_FIREFOX ? [['Firefox', firefox]] : [])];
