// A minimal static file server for the built site (dist/), on loopback only.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.csv': 'text/csv', '.zip': 'application/zip',
  '.svg': 'image/svg+xml', '.png': 'image/png',
};

// `extra` maps a path (e.g. '/mirror/runs.csv') to the bytes served there, beside the site;
// `hits` counts the requests for each of them.
export async function serve(root, port = 0, extra = {}) {
  const hits = {};
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path in extra) {
        hits[path] = (hits[path] ?? 0) + 1;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(extra[path]);
        return;
      }
      let file = normalize(join(root, path));
      if (!file.startsWith(normalize(root))) { res.writeHead(403).end(); return; }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${server.address().port}/`, hits };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await serve(process.argv[2] ?? 'dist', Number(process.argv[3] ?? 8080));
  console.log(`serving on ${url}`);
}
