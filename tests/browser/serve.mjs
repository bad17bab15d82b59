// A built site served as GitHub Pages serves a project site: from a folder, at the base
// URL's path on 127.0.0.1 (localhost, which the browser treats as a secure origin), text
// gzipped. Used by the Lighthouse run and the search test.

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};
// What a host compresses (GitHub Pages gzips text).
const COMPRESSED = new Set(['.html', '.css', '.js', '.mjs', '.svg', '.xml', '.txt', '.csv', '.wasm', '.json']);

/** The site at the base URL's path, as GitHub Pages serves a project site. */
export function serve(root, base) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, base);
      if (!url.pathname.startsWith(base.pathname)) throw new Error('outside the site');
      let file = path.join(root, decodeURIComponent(url.pathname.slice(base.pathname.length)));
      if (!file.startsWith(root)) throw new Error('outside the site');
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      let body = await readFile(file);
      const ext = path.extname(file);
      const headers = { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': 'max-age=600' };
      if (COMPRESSED.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        body = gzipSync(body, { level: 9 });
        headers['content-encoding'] = 'gzip';
        headers.vary = 'Accept-Encoding';
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(Number(base.port || 80), '127.0.0.1', () => resolve(server));
  });
}
