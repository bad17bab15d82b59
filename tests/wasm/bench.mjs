// The playground's speed targets in headless Chromium, as figures: from Run to the
// finished chart for the crowd preset (five strategies, 200 runs) and the metastable
// preset (50 runs of two minutes), with the engine's share of each, and from page load
// to a possible Run on a phone-class CPU (4x CPU throttling). Each round opens fresh
// pages, and with several modules the rounds alternate between them, so that a busy
// machine slows each alike; the figures are medians over every round.
//
// usage: node tests/wasm/bench.mjs SITE_DIR [--rounds N] [--module FILE.wasm]...
// With --module, the site's retrylab.wasm is served from FILE instead, once per FILE
// given, to compare builds of the engine on the same pages. CHROMIUM names the browser
// (default /usr/bin/chromium).

import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { launchChromium, presetToChart, serveSite } from "./harness.mjs";

const args = process.argv.slice(2);
let site = args.shift();
let rounds = 7;
const modules = [];
while (args.length) {
  const flag = args.shift();
  const value = args.shift();
  if (flag === "--rounds" && Number(value) > 0) rounds = Number(value);
  else if (flag === "--module" && value) modules.push(value);
  else site = undefined;
}
if (!site || site.startsWith("--")) {
  console.error("usage: node tests/wasm/bench.mjs SITE_DIR [--rounds N] [--module FILE.wasm]...");
  process.exit(2);
}
if (modules.length === 0) modules.push(join(site, "retrylab.wasm"));
const bytes = await Promise.all(modules.map((m) => readFile(m)));

// The module served: the one of the variant measured at the moment.
let current = 0;
const { server, origin } = await serveSite(site, (path) =>
  path === "/retrylab.wasm" ? bytes[current] : undefined);
const browser = await launchChromium();

const PRESETS = ["crowd", "metastable"];
// Per variant: the samples of each figure.
const samples = modules.map(() => ({ crowd: [], "crowd engine": [], "crowd cpu": [],
  metastable: [], "metastable engine": [], "metastable cpu": [], form: [], compiled: [], ready: [] }));
const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
console.log(`load average before: ${load()}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (let v = 0; v < modules.length; v++) {
      current = v;
      // Run to chart, on a desktop page: one run of each preset to warm up, then one
      // measured.
      const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await desktop.newPage();
      await page.goto(`${origin}/playground/`);
      await page.waitForFunction(() => !document.getElementById("pg-run").disabled);
      // The page's main thread's CPU time too (thread ticks, not the clock): what a
      // busy machine's other processes take while the page waits adds none.
      const session = await desktop.newCDPSession(page);
      await session.send("Performance.enable", { timeDomain: "threadTicks" });
      const busy = async () => (await session.send("Performance.getMetrics")).metrics
        .find((m) => m.name === "TaskDuration").value * 1000;
      for (const id of PRESETS) {
        for (const measured of [false, true]) {
          const before = await busy();
          const [total, engine] = await presetToChart(page, id);
          const cpu = await busy() - before;
          if (measured) {
            samples[v][id].push(total);
            samples[v][`${id} cpu`].push(cpu);
            samples[v][`${id} engine`].push(engine);
          }
        }
      }
      await desktop.close();
      // Page load to a possible Run on a phone-class CPU.
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      const slow = await phone.newPage();
      const cdp = await phone.newCDPSession(slow);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      await slow.goto(`${origin}/playground/`);
      await slow.waitForFunction(() => !document.getElementById("pg-run").disabled);
      const marks = await slow.evaluate(() => ["playground-form", "playground-engine", "playground-ready"]
        .map((name) => performance.getEntriesByName(name)[0].startTime));
      samples[v].form.push(marks[0]);
      samples[v].compiled.push(marks[1]);
      samples[v].ready.push(marks[2]);
      await phone.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`load average after: ${load()}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const figures = [["crowd", "the crowd, Run to chart", 100], ["crowd engine", "  of which the engine", null],
  ["crowd cpu", "  main thread's CPU time", null],
  ["metastable", "metastable, Run to chart", 300], ["metastable engine", "  of which the engine", null],
  ["metastable cpu", "  main thread's CPU time", null],
  ["ready", "page load to Run, 4x CPU throttling", 500], ["form", "  the form filled", null],
  ["compiled", "  the engine compiled", null]];
for (let v = 0; v < modules.length; v++) {
  const gzipped = gzipSync(bytes[v], { level: 9 }).length;
  console.log(`\n${modules[v]}: ${bytes[v].length} bytes, ${gzipped} gzipped (budget 184320 bytes gzipped)`);
  for (const [key, name, budget] of figures) {
    const xs = samples[v][key];
    console.log(`${name.padEnd(38)} median ${median(xs).toFixed(1).padStart(6)} ms` +
      `  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n ${xs.length})` +
      (budget ? `  budget ${budget} ms` : ""));
  }
}
