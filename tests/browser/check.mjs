// Loads every page of a built site in headless Chromium, the way readers meet it, and
// fails on what they would notice: a console error, a request that fails, a chart drawn
// at no size, a serious or critical axe-core violation, and anything hidden by the
// layout: a page that scrolls sideways, an element in the article wider than its
// column (unless it is a code block's scroll region), chart text under 11 CSS px as
// drawn, a code block whose lines wrap or that scrolls without a focusable, labelled
// region. Each page is loaded in light and dark colour schemes, at phone and desktop
// widths; a full-page screenshot of each, and one of each figure and results table,
// are kept.
//
//   node check.mjs SITE_DIR [--screenshots DIR] [--chromium PATH]
//
// The site is served from SITE_DIR at the root of a server bound to 127.0.0.1, so build
// it with the default base URL (`/`).

import { createServer } from 'node:http';
import { readFile, readdir, mkdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { commandLine } from './options.mjs';

const require = createRequire(import.meta.url);
const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

const { args, option } = commandLine();
const screenshots = path.resolve(option('--screenshots', 'screenshots'));
const executablePath = option('--chromium', '/usr/bin/chromium');
if (args.length !== 1) {
  console.error('usage: node check.mjs SITE_DIR [--screenshots DIR] [--chromium PATH]');
  process.exit(2);
}
const site = path.resolve(args[0]);

const SCHEMES = ['light', 'dark'];
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];
// The smallest chart text a reader can read, in CSS px as drawn.
const MIN_CHART_TEXT = 11;
// Impacts that fail the check; `minor` and `moderate` are printed but pass.
const FAILING_IMPACTS = new Set(['serious', 'critical']);

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Every HTML file under `dir`, as a path relative to it, in a stable order. */
async function htmlFiles(dir, prefix = '') {
  const out = [];
  const entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const rel = path.posix.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await htmlFiles(dir, rel)));
    else if (entry.name.endsWith('.html')) out.push(rel);
  }
  return out;
}

/** A static server for `root` on 127.0.0.1, as a GitHub Pages-like host serves it. */
function serve(root) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      let file = path.join(root, decodeURIComponent(url.pathname));
      if (!file.startsWith(root)) throw new Error('outside the site');
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** What is wrong with one page in one scheme and viewport, as lines of text. */
async function checkPage(context, origin, file, shot) {
  const problems = [];
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const from = msg.location()?.url;
    problems.push(`console error: ${msg.text()}${from ? ` (${from})` : ''}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught exception: ${err.message}`));
  page.on('requestfailed', (req) =>
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`),
  );
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`request failed: ${res.url()} (HTTP ${res.status()})`);
  });
  const address = `${origin}/${file.replace(/(^|\/)index\.html$/, '$1')}`;
  await page.goto(address, { waitUntil: 'load' });

  const unsized = await page.evaluate(() =>
    [...document.querySelectorAll('figure svg, .card-chart svg')]
      .filter((svg) => !svg.parentElement.closest('svg'))
      // A figure holds a wide and a narrow layout and hides the one that does not fit.
      .filter((svg) => getComputedStyle(svg).display !== 'none')
      .map((svg, i) => ({ i, box: svg.getBoundingClientRect(), label: svg.getAttribute('aria-labelledby') ?? svg.id }))
      .filter(({ box }) => !(box.width > 0 && box.height > 0))
      .map(({ i, box, label }) => `svg #${i} (${label ?? 'no label'}) is ${box.width}×${box.height}`),
  );
  for (const u of unsized) problems.push(`chart drawn at no size: ${u}`);

  for (const p of await layoutProblems(page)) problems.push(p);

  await page.addScriptTag({ content: axeSource });
  const axe = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  for (const v of axe.violations) {
    const where = v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ');
    const more = v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : '';
    const line = `axe ${v.impact}: ${v.id}: ${v.help} (${where}${more})`;
    if (FAILING_IMPACTS.has(v.impact)) problems.push(line);
    else console.log(`  note: ${file}: ${line}`);
  }

  await page.screenshot({ path: shot, fullPage: true });
  await figureShots(page, shot.replace(/\.png$/, ''));
  await page.close();
  return problems;
}

/** What the layout hides from a reader, as lines of text: measured with every
 * `<details>` of the article open, so that what is one tap away is measured too. */
async function layoutProblems(page) {
  // The chart's data is built from its CSV file when its disclosure opens (ticks.js):
  // opened, each must become a table with its caption, in its region, before measuring.
  const opened = await page.evaluate(async () => {
    // (The playground's is hidden and empty until it has run.)
    const boxes = [...document.querySelectorAll('main details.sim-data:not([hidden])')];
    for (const d of document.querySelectorAll('main details')) d.open = true;
    const out = [];
    for (const d of boxes) {
      const box = d.querySelector('.sim-ticks-box');
      const link = d.querySelector('.sim-data-csv a[href][download]');
      if (!link || !box) {
        out.push(`the chart's data after ${d.previousElementSibling?.previousElementSibling?.id ?? 'a figure'} has no CSV link or no place for its table`);
        continue;
      }
      for (let i = 0; i < 100 && box.dataset.filled !== 'yes'; i++) await new Promise((r) => setTimeout(r, 50));
      const table = box.querySelector('.sim-scroll[role="region"][tabindex="0"] > table.sim-ticks');
      const caption = table?.querySelector(':scope > caption');
      const name = box.querySelector('.sim-scroll')?.getAttribute('aria-labelledby');
      if (!table || !caption?.textContent || caption.id !== name) {
        out.push(`the chart's data of ${box.dataset.id}: no table named by its caption once opened`);
      }
    }
    return out;
  });
  return opened.concat(await page.evaluate((minText) => {
    const out = [];
    const px = (n) => `${Math.round(n * 10) / 10} px`;
    /** A short name for an element: its tag, id or class, and its caption or label. */
    const name = (el) => {
      let s = el.tagName.toLowerCase();
      if (el.id) s += `#${el.id}`;
      else if (typeof el.className === 'string' && el.className) s += `.${el.className.trim().split(/\s+/).join('.')}`;
      const labelledBy = el.getAttribute('aria-labelledby');
      const label = el.querySelector(':scope > caption')?.textContent
        ?? el.getAttribute('aria-label')
        ?? (labelledBy && document.getElementById(labelledBy)?.textContent)
        ?? el.querySelector('caption')?.textContent
        ?? el.closest('figure')?.id;
      return label ? `${s} (${label.trim().slice(0, 60)})` : s;
    };
    const main = document.querySelector('main');
    if (!main) return out;
    for (const d of main.querySelectorAll('details')) d.open = true;

    const view = document.documentElement.clientWidth;
    const scroll = document.documentElement.scrollWidth;
    if (scroll > view) out.push(`page scrolls sideways: ${px(scroll)} wide in a ${px(view)} viewport`);

    // A code block's region is the one element allowed to be wider inside: it scrolls.
    const codeRegion = (el) => el.closest('.code-scroll[role="region"][tabindex="0"][aria-label]');
    // And an author's Markdown table, in a region of its own the same way.
    const tableRegion = (el) => el.closest('.table-region[role="region"][tabindex="0"][aria-label]');
    // So is the chart's data, calls per tick, one tap away under a figure: a table of
    // up to sixteen columns of counts, for reading cell by cell, that scrolls both ways
    // in a focusable region named by its caption.
    const dataRegion = (el) => el.closest('details.sim-data .sim-scroll[role="region"][tabindex="0"]');
    // The text column every element must fit in: the content box of <main>. An element
    // inside a scroll box is measured where it is laid out, so what a scroll box hides
    // counts as sticking out.
    const mainBox = main.getBoundingClientRect();
    const mainStyle = getComputedStyle(main);
    const col = {
      left: mainBox.left + parseFloat(mainStyle.paddingLeft),
      right: mainBox.right - parseFloat(mainStyle.paddingRight),
    };
    const reported = new Set();
    const clipped = [];
    for (const el of main.querySelectorAll('*')) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
      const region = codeRegion(el) ?? tableRegion(el) ?? dataRegion(el);
      if (region && region !== el) continue;
      // Visually hidden (a stacked table's headings, kept for screen readers): a
      // clipped box of a pixel, and everything in it.
      if (clipped.some((c) => c.contains(el))) continue;
      const box = el.getBoundingClientRect();
      if (box.width <= 1 && box.height <= 1 && getComputedStyle(el).overflow === 'hidden') {
        clipped.push(el);
        continue;
      }
      if (box.width === 0 && box.height === 0) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.position === 'fixed') continue;
      const over = Math.max(col.left - box.left, 0) + Math.max(box.right - col.right, 0);
      // An ancestor already reported explains its descendants.
      if (over > 0.5 && ![...reported].some((r) => r.contains(el))) {
        reported.add(el);
        out.push(`${name(el)} is ${px(box.width)} wide, ${px(over)} beyond its ${px(col.right - col.left)} column`);
      }
      // Content clipped or scrolled out of view inside a box, other than a code region.
      if (!region && el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'visible'
          && !(el.tagName.toLowerCase() === 'textarea')
          && ![...reported].some((r) => r.contains(el))) {
        reported.add(el);
        out.push(`${name(el)} hides ${px(el.scrollWidth - el.clientWidth)} of its content sideways`);
      }
    }

    // Chart text as drawn: its font size times the scale the SVG is drawn at.
    for (const svg of main.querySelectorAll('figure svg')) {
      if (svg.parentElement.closest('svg') || getComputedStyle(svg).display === 'none') continue;
      let smallest = Infinity;
      let sample = '';
      for (const t of svg.querySelectorAll('text')) {
        if (!t.textContent.trim() || t.getBBox().width === 0) continue;
        const m = t.getScreenCTM();
        const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
        if (size < smallest) { smallest = size; sample = t.textContent.trim().slice(0, 30); }
      }
      if (smallest < minText - 0.05) {
        out.push(`chart text too small: ${name(svg.closest('figure'))} draws "${sample}" at ${px(smallest)} (at least ${minText} px)`);
      }
    }

    // Code keeps its lines: no wrapping, a focusable, labelled region that scrolls.
    for (const pre of main.querySelectorAll('pre')) {
      const ws = getComputedStyle(pre).whiteSpace;
      if (ws !== 'pre') out.push(`code block wraps: ${name(pre)} has white-space: ${ws}`);
      const region = codeRegion(pre);
      if (!region) out.push(`code block without a focusable, labelled region: ${name(pre)}`);
      else if (getComputedStyle(region).overflowX !== 'auto') out.push(`code region does not scroll: ${name(region)}`);
    }
    return out;
  }, MIN_CHART_TEXT));
}

/** A screenshot of every figure and results table of the page (with its `<details>`
 * open, as measured), as `BASE-figure-N.png` and `BASE-table-N.png`. */
async function figureShots(page, base) {
  const figures = await page.$$('main figure:not([hidden])');
  for (const [i, f] of figures.entries()) {
    if (await f.isVisible()) await elementShot(page, f, `${base}-figure-${i + 1}.png`);
  }
  const tables = await page.$$('main .sim-results-wrap, main .table-scroll');
  for (const [i, t] of tables.entries()) {
    if (await t.isVisible()) await elementShot(page, t, `${base}-table-${i + 1}.png`);
  }
}

/** A picture of one element. Playwright first waits for the element to stand still;
 * on a loaded machine that wait can run out while the page still lays itself out, and
 * a picture is no check, so then the page is shot at the element's box instead. */
async function elementShot(page, element, path) {
  try {
    await element.screenshot({ path, animations: 'disabled', timeout: 10000 });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    const clip = await element.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height };
    });
    if (clip.width > 0 && clip.height > 0) await page.screenshot({ path, fullPage: true, clip });
  }
}

const files = await htmlFiles(site);
if (files.length === 0) {
  console.error(`no HTML files under ${site}: build the site first`);
  process.exit(2);
}
const server = await serve(site);
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath,
  // Playwright adds --headless and a fresh profile; these keep Chromium off the network.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
console.log(`Chromium ${browser.version()}, axe-core ${JSON.parse(await readFile(require.resolve('axe-core/package.json'), 'utf8')).version}`);

let failures = 0;
try {
  for (const scheme of SCHEMES) {
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({
        colorScheme: scheme,
        viewport: { width: viewport.width, height: viewport.height },
      });
      const folder = path.join(screenshots, `${scheme}-${viewport.name}`);
      await mkdir(folder, { recursive: true });
      for (const file of files) {
        const shot = path.join(folder, `${file.replace(/\/?index\.html$/, '').replaceAll('/', '_') || 'home'}.png`);
        const problems = await checkPage(context, origin, file, shot);
        const label = `${file} (${scheme}, ${viewport.name} ${viewport.width}×${viewport.height})`;
        if (problems.length === 0) {
          console.log(`ok   ${label}`);
        } else {
          failures += problems.length;
          console.log(`FAIL ${label}`);
          for (const p of problems) console.log(`     ${p}`);
        }
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${files.length} pages × ${SCHEMES.length} schemes × ${VIEWPORTS.length} widths; screenshots in ${screenshots}`);
if (failures > 0) {
  console.error(`${failures} problem(s) found in the browser`);
  process.exit(1);
}
