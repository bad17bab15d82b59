// The site's search as a reader uses it, in headless Chromium at a phone's and a
// desktop's width: nothing of the search is loaded until the box is opened; `/` opens
// it; a word found on one page only gives that page first, at the heading of the
// section that holds the word, and following the result opens it there; Escape clears
// the box and then leaves it.
//
//   node search.mjs SITE_DIR --base-url http://localhost:PORT/PATH/ [--chromium PATH]
//     [--word thundering --page backoff-and-jitter/]
//
// The site is built with that base URL (`retrylab build --base-url …`) and served at its
// path, as GitHub Pages serves a project site.

import path from 'node:path';
import { chromium } from 'playwright-core';
import { commandLine } from './options.mjs';
import { serve } from './serve.mjs';

const { args, option } = commandLine();
const chromePath = option('--chromium', '/usr/bin/chromium');
const baseUrl = option('--base-url', null);
const word = option('--word', 'thundering');
const expected = option('--page', 'backoff-and-jitter/');
if (args.length !== 1 || !baseUrl) {
  console.error('usage: node search.mjs SITE_DIR --base-url http://localhost:PORT/PATH/ [--chromium PATH] [--word W --page P]');
  process.exit(2);
}
const site = path.resolve(args[0]);
const base = new URL(baseUrl);
if (!base.pathname.endsWith('/')) base.pathname += '/';

const server = await serve(site, base);
const browser = await chromium.launch({ executablePath: chromePath });
const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`FAIL ${what}`);
};

for (const width of [390, 1280]) {
  const page = await browser.newPage({ viewport: { width, height: 844 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  // Another page than the one looked for: the model's.
  await page.goto(new URL('model/', base).href);
  const at = `${width} px`;
  if (asked.some((u) => u.includes('/pagefind/'))) fail(`${at}: the search loaded before the box was opened`);
  await page.keyboard.press('/');
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
  if (focused !== 'site-search-input') fail(`${at}: "/" did not open the search box (focus on ${focused})`);
  await page.keyboard.type(word, { delay: 20 });
  const first = page.locator('.search-results li a').first();
  await first.waitFor({ timeout: 10000 }).catch(() => {});
  const status = await page.locator('.search-status').textContent().catch(() => '');
  const href = await first.getAttribute('href').catch(() => null);
  const panel = await page.locator('.search-results').boundingBox().catch(() => null);
  if (!panel || panel.x < 0 || panel.x + panel.width > width) {
    fail(`${at}: the results are not within the screen (${JSON.stringify(panel)})`);
  }
  console.log(`${at}: "${word}": ${status} first: ${href}`);
  const wanted = new URL(expected, base).pathname;
  if (!href || new URL(href, base).pathname !== wanted) {
    fail(`${at}: the first result for "${word}" is ${href}, not ${wanted}`);
  } else if (!new URL(href, base).hash) {
    fail(`${at}: the result ${href} opens the page at its top, not at a heading`);
  } else {
    await first.click();
    await page.waitForURL((u) => u.pathname === wanted);
    const section = await page.evaluate(() => {
      const heading = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (!heading) return null;
      const box = heading.getBoundingClientRect();
      // The section: the heading and what follows it up to the next heading of its level or above.
      let text = '';
      for (let e = heading.nextElementSibling; e && !/^H[1-3]$/.test(e.tagName); e = e.nextElementSibling) {
        text += e.textContent;
      }
      return { tag: heading.tagName, top: box.top, text };
    });
    if (!section) fail(`${at}: ${href} names no element on its page`);
    else {
      if (!/^H[2-6]$/.test(section.tag)) fail(`${at}: ${href} opens at a ${section.tag}, not a heading`);
      if (!section.text.toLowerCase().includes(word.toLowerCase())) fail(`${at}: the section at ${href} does not hold "${word}"`);
      if (section.top < -1 || section.top > 844) fail(`${at}: the heading of ${href} is not in view (top ${section.top})`);
    }
    // Escape clears the box, then leaves it.
    await page.keyboard.press('/');
    await page.keyboard.type(word);
    await page.locator('.search-results li').first().waitFor({ timeout: 10000 }).catch(() => {});
    await page.keyboard.press('Escape');
    const cleared = await page.evaluate(() => ({
      value: document.getElementById('site-search-input').value,
      shown: !document.querySelector('.search-results')?.hidden,
    }));
    if (cleared.value !== '' || cleared.shown) fail(`${at}: Escape left ${JSON.stringify(cleared)}`);
    await page.keyboard.press('Escape');
    const left = await page.evaluate(() => document.activeElement && document.activeElement.id);
    if (left === 'site-search-input') fail(`${at}: a second Escape did not leave the box`);
  }
  for (const e of errors) fail(`${at}: ${e}`);
  await page.close();
}

await browser.close();
server.close();
if (failures.length) {
  console.log(`${failures.length} failures`);
  process.exit(1);
}
console.log('the search works at 390 and 1280 px');
