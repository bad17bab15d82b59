// Native and WebAssembly agree: runs each scenario file with the native binary
// (`retrylab sim FILE --json --lanes`) and with the WebAssembly module through the
// playground's own loader, and requires byte-identical JSON (the module writes it
// without the whitespace between tokens, which is taken out of the native JSON before
// comparing); the page's call must give the same report, and the page drawn from the
// scenario's runs split among workers (`runJobs`, `pageOfRuns`) the very same page.
//
// usage: node tests/wasm/compare.mjs RETRYLAB_BINARY MODULE.wasm SCENARIO.yaml...

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { load } from "../../src/site/defaults/playground.js";

const [binary, module, ...files] = process.argv.slice(2);
if (!binary || !module || files.length === 0) {
  console.error("usage: node tests/wasm/compare.mjs RETRYLAB_BINARY MODULE.wasm SCENARIO.yaml...");
  process.exit(2);
}

// JSON without the whitespace between its tokens: what the module writes.
const compact = (json) => {
  let out = "", quoted = false, escaped = false;
  for (const c of json) {
    if (quoted) {
      quoted = escaped || c !== '"';
      escaped = !escaped && c === "\\";
    } else if (c === '"') {
      quoted = true;
    } else if (/\s/.test(c)) {
      continue;
    }
    out += c;
  }
  return out;
};

const engine = await load(readFileSync(module));
let failed = 0;
let split = 0;
for (const file of files) {
  const native = compact(execFileSync(binary, ["sim", file, "--json", "--lanes"], { encoding: "utf8" }));
  const started = performance.now();
  const wasm = engine.run(readFileSync(file, "utf8"));
  const ms = (performance.now() - started).toFixed(1);
  // The page's call gives the same report, beside the site's results table.
  const yaml = readFileSync(file, "utf8");
  const pageText = engine.page(yaml, "", "");
  const page = JSON.parse(pageText);
  // Its runs split among workers, three shares here, draw the same page to the byte.
  const jobs = engine.jobs(yaml);
  if (jobs > 0) {
    const cuts = [0, Math.floor(jobs / 3), Math.floor(2 * jobs / 3), jobs];
    const shares = cuts.slice(1).map((to, i) => engine.runJobs(yaml, cuts[i], to));
    if (engine.pageOfRuns(yaml, "", "", shares) !== pageText) {
      failed += 1;
      console.log(`DIFFER ${file}: the page from its ${jobs} runs in three shares is not the page`);
    }
    split += 1;
  }
  if (JSON.stringify(page.report) !== JSON.stringify(JSON.parse(native)) || !page.table.startsWith("<table class=\"sim-results")) {
    failed += 1;
    console.log(`DIFFER ${file}: the page's report or table is not the run's`);
  } else if (native === wasm) {
    console.log(`same   ${file} (${native.length.toLocaleString("en")} bytes of JSON; ${ms} ms in WebAssembly)`);
  } else {
    failed += 1;
    const at = [...native].findIndex((c, i) => c !== wasm[i]);
    console.log(`DIFFER ${file}: first difference at byte ${at}`);
    console.log(`  native: ${JSON.stringify(native.slice(Math.max(0, at - 60), at + 60))}`);
    console.log(`  wasm:   ${JSON.stringify(wasm.slice(Math.max(0, at - 60), at + 60))}`);
  }
}
if (failed > 0) {
  console.error(`${failed} of ${files.length} scenarios differ`);
  process.exit(1);
}
console.log(`all ${files.length} scenarios give the same JSON natively and in WebAssembly, and ${split} the same page from their runs split in three`);
