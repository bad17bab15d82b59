// What the playground's browser test and its benchmark share: a static server for a
// built site, and headless Chromium.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const types = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript",
  ".wasm": "application/wasm", ".svg": "image/svg+xml" };

// Serves the built site in `site` on a free local port; `override(path)` may give the
// body of a path instead of the file (or undefined to read the file). Returns the
// server and its origin.
export async function serveSite(site, override = () => undefined) {
  const server = createServer(async (req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path.endsWith("/")) path += "index.html";
    try {
      const body = override(path) ?? await readFile(join(site, path));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

// Headless Chromium builds its address bar's drop-down as a web page of its own (a
// WebUI) and preloads it at start and beside every new page: hundreds of requests that
// take the same cores as the page measured, and that no reader's browser makes while a
// page loads. Puppeteer turns it off by default too. Chromium keeps only the last
// --disable-features, so these are added to the list Playwright passes, which is read
// off a first launch, rather than replacing it.
const QUIET = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

// Headless Chromium: $CHROMIUM, else the system's.
export async function launchChromium() {
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  const probe = await chromium.launchServer({ executablePath, args: ARGS });
  const defaults = probe.process().spawnargs.filter((arg) => arg.startsWith("--disable-features="));
  await probe.close();
  const features = [...defaults.flatMap((arg) => arg.split("=")[1].split(",")), ...QUIET];
  return chromium.launch({
    executablePath,
    ignoreDefaultArgs: defaults,
    args: [...ARGS, `--disable-features=${features.join(",")}`],
  });
}

/**
 * Presses the playground's preset button `id` on `page` and gives, once its chart is
 * drawn (the runs come back from the page's workers), [from Run to the finished chart,
 * the engine's share], in ms, from the page's marks "playground-run" and
 * "playground-chart" and its status's `data-ms`.
 */
export function presetToChart(page, id) {
  return page.evaluate((id) => new Promise((resolve) => {
    performance.clearMarks();
    performance.clearMeasures();
    new PerformanceObserver((marks, observer) => {
      if (marks.getEntriesByName("playground-chart").length === 0) return;
      observer.disconnect();
      resolve([performance.measure("m", "playground-run", "playground-chart").duration,
        Number(document.getElementById("pg-status").dataset.ms)]);
    }).observe({ type: "mark" });
    document.querySelector(`#pg-presets button[data-preset="${id}"]`).click();
  }), id);
}
