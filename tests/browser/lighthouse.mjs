// Lighthouse's mobile run (its default: a mid-range phone, slow 4G, 4x CPU slowdown) on
// every page of a built site, and the site's budget for a phone: it fails when a page
// scores under 90 for performance or under 100 for accessibility, best practices or
// SEO, or has more than 5,000 DOM elements. Prints a table per page: the scores, the
// largest contentful paint, the DOM elements, the bytes transferred in all and the
// page's HTML, transferred (gzipped, as GitHub Pages serves it) and in full.
//
//   node lighthouse.mjs SITE_DIR --base-url http://localhost:PORT/PATH/ [--chromium PATH]
//
// Build the site with that absolute base URL first, as the Pages workflow builds it
// with its own (`retrylab build --base-url …`): the sitemap, the canonical links and
// robots.txt need one. The site is served from SITE_DIR at PATH on 127.0.0.1:PORT
// (localhost, which the browser treats as a secure origin), with gzip, and each page
// of its sitemap is run in turn.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { commandLine } from './options.mjs';
import { serve } from './serve.mjs';

const { args, option } = commandLine();
const chromePath = option('--chromium', '/usr/bin/chromium');
const baseUrl = option('--base-url', null);
if (args.length !== 1 || !baseUrl) {
  console.error('usage: node lighthouse.mjs SITE_DIR --base-url http://localhost:PORT/PATH/ [--chromium PATH]');
  process.exit(2);
}
const site = path.resolve(args[0]);
const base = new URL(baseUrl);
if (!base.pathname.endsWith('/')) base.pathname += '/';

// The budget.
const MIN_PERFORMANCE = 90;
const MIN_OTHERS = 100;
const MOST_ELEMENTS = 5000;
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

// The pages: every address of the sitemap, which must be under the base URL.
const sitemap = await readFile(path.join(site, 'sitemap.xml'), 'utf8');
const pages = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1].replaceAll('&amp;', '&'));
if (pages.length === 0) {
  console.error(`no pages in ${site}/sitemap.xml: build the site first`);
  process.exit(2);
}
for (const page of pages) {
  if (!page.startsWith(base.href)) {
    console.error(`the sitemap's ${page} is not under ${base.href}: build the site with --base-url ${base.href}`);
    process.exit(2);
  }
}

const server = await serve(site, base);
const chrome = await chromeLauncher.launch({
  chromePath,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const version = JSON.parse(await readFile(new URL(import.meta.resolve('lighthouse/package.json')), 'utf8')).version;
console.log(`Lighthouse ${version}, mobile (its default settings), on ${pages.length} pages`);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const rows = [];
const problems = [];
try {
  for (const page of pages) {
    const name = decodeURIComponent(page.slice(base.href.length)) || '/';
    const run = await lighthouse(page, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: CATEGORIES,
    });
    const { lhr } = run;
    if (lhr.runtimeError) {
      problems.push(`${name}: Lighthouse could not run: ${lhr.runtimeError.message}`);
      continue;
    }
    const score = (c) => Math.round((lhr.categories[c].score ?? 0) * 100);
    const audit = (id) => lhr.audits[id];
    const elements = audit('dom-size').numericValue;
    const requests = audit('network-requests').details?.items ?? [];
    const html = requests.find((r) => r.resourceType === 'Document') ?? {};
    const row = {
      page: name,
      performance: score('performance'),
      accessibility: score('accessibility'),
      'best practices': score('best-practices'),
      SEO: score('seo'),
      LCP: `${(audit('largest-contentful-paint').numericValue / 1000).toFixed(1)} s`,
      'DOM elements': elements,
      transfer: kb(audit('total-byte-weight').numericValue),
      'HTML transfer': kb(html.transferSize ?? 0),
      HTML: kb(html.resourceSize ?? 0),
    };
    rows.push(row);
    if (row.performance < MIN_PERFORMANCE) problems.push(`${name}: performance ${row.performance}, under ${MIN_PERFORMANCE}`);
    for (const [c, key] of [['accessibility', 'accessibility'], ['best-practices', 'best practices'], ['seo', 'SEO']]) {
      if (row[key] < MIN_OTHERS) {
        const failed = Object.values(lhr.categories[c].auditRefs)
          .map((ref) => lhr.audits[ref.id])
          .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual')
          .map((a) => a.id);
        problems.push(`${name}: ${key} ${row[key]}, under ${MIN_OTHERS} (${failed.join(', ')})`);
      }
    }
    if (elements > MOST_ELEMENTS) problems.push(`${name}: ${elements} DOM elements, more than ${MOST_ELEMENTS}`);
    console.log(`${name}: performance ${row.performance}, LCP ${row.LCP}, ${elements} DOM elements`);
  }
} finally {
  await chrome.kill();
  server.close();
}
console.table(rows);
if (problems.length > 0) {
  for (const p of problems) console.error(`over budget: ${p}`);
  process.exit(1);
}
console.log(`every page within the budget: performance ≥ ${MIN_PERFORMANCE}, accessibility, best practices and SEO ${MIN_OTHERS}, at most ${MOST_ELEMENTS} DOM elements`);
