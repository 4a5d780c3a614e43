// Launches Debian's Chromium through playwright-core with a fresh profile (never a downloaded browser).
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/// What a user must never read: a stack trace, a JavaScript exception or a wasm frame.
export const STACK_SHAPE = /JsValue\(|wasm-function\[|__wbg_|\bat \S+ \(|\.(js|rs):\d+:\d+|RuntimeError|panicked at|TypeError:/;

export async function freshBrowser(viewport = { width: 1400, height: 1000 }) {
  const dir = await mkdtemp(join(tmpdir(), 'hpo-profile-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    acceptDownloads: true,
    viewport,
  });
  // Every message the page shows, as it appears (through reloads and dismissals): closing
  // the browser fails the test if one has the shape of a stack trace.
  const shown = [];
  await context.exposeBinding('__hpoShown', (_source, text) => { shown.push(text); });
  await context.addInitScript(() => {
    const seen = (node) => {
      if (node.nodeType !== 1) return;
      for (const t of [node, ...node.querySelectorAll('*')]) if (t.matches('.msg .text')) window.__hpoShown(t.textContent);
    };
    const watch = () => new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) seen(n);
        const text = r.target.nodeType === 1 ? r.target.closest?.('.msg .text') : r.target.parentElement?.closest('.msg .text');
        if (text) window.__hpoShown(text.textContent);
      }
    }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
    if (document.documentElement) watch(); else document.addEventListener('DOMContentLoaded', watch);
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
  context.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`); });
  const close = async () => {
    await context.close();
    await rm(dir, { recursive: true, force: true });
    const raw = [...new Set(shown)].filter((t) => STACK_SHAPE.test(t));
    if (raw.length) throw new Error(`the page showed raw error text:\n${raw.join('\n')}`);
  };
  return { context, page, errors, close };
}
