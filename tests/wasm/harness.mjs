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

// Headless Chromium: $CHROMIUM, else the system's.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
}
