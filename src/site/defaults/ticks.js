// The chart's data under a scenario figure: the calls of each tick, per strategy. The
// page holds a link to the data as CSV (ticks/PAGE/ID.csv, written by the build) and an
// empty place for its table; when the reader opens the disclosure, this builds the
// table from the CSV, the same headings and numbers the build would have written, in a
// focusable region named by its caption. So the page carries no thousands of cells
// until they are asked for, and a screen reader gets a real table once it is open.
// Without JavaScript the link still gives the data.
//
// A figure that the browser redraws (an explorable figure, the playground) holds its
// data from the engine: `holdData` points the link at it and builds the table if open.

const esc = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// A number as the build writes it: 12,345, and 1,234.5 (the whole part grouped).
const thousands = (text) => text.replace(/^\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ","));

// The table of a CSV: a heading `time (s)`, then `NAME served`, `NAME turned away` and
// the other kinds the chart draws (failed fast, wasted, throttled, hedges, in the queue,
// capacity) for each strategy, each strategy's from its `served`; null for a CSV
// without a heading.
export function tickTable(csv, id, caption) {
  const [head, ...rows] = csv.split("\n").filter((line) => line !== "");
  if (head === undefined) return null;
  const columns = head.split(",").slice(1);
  // Each strategy's columns: from its `served` to the next strategy's.
  const next = columns.findIndex((c, i) => i > 0 && c.endsWith(" served"));
  const per = next > 0 ? next : columns.length;
  const names = [];
  for (let i = 0; i < columns.length; i += per) names.push(columns[i].replace(/ served$/, ""));
  const name = `${esc(id)}-ticks-caption`;
  let out = `<div class="sim-scroll" role="region" tabindex="0" aria-labelledby="${name}">\n`
    + `<table class="sim-ticks">\n<caption id="${name}">${esc(caption)}</caption>\n<thead>\n`
    + `<tr><th scope="col" rowspan="2" class="num">time (s)</th>`;
  for (const n of names) out += `<th scope="colgroup" colspan="${per}">${esc(n)}</th>`;
  out += "</tr>\n<tr>";
  const kinds = columns.slice(0, per).map((c) => c.slice(names[0].length + 1));
  for (let i = 0; i < names.length; i++) {
    for (const kind of kinds) out += `<th scope="col" class="num">${esc(kind)}</th>`;
  }
  out += "</tr>\n</thead>\n<tbody>\n";
  for (const row of rows) {
    const [time, ...counts] = row.split(",");
    out += `<tr><th scope="row" class="num">${esc(time)}</th>`;
    for (const count of counts) out += `<td class="num">${esc(thousands(count))}</td>`;
    out += "</tr>\n";
  }
  return `${out}</tbody>\n</table>\n</div>\n`;
}

// The data each redrawn disclosure holds, and its link's address for it.
const held = new WeakMap();

async function fill(details) {
  const box = details.querySelector(".sim-ticks-box");
  if (!box || box.dataset.filled) return;
  box.dataset.filled = "loading";
  let csv = held.get(details)?.csv;
  if (csv === undefined) {
    const link = details.querySelector(".sim-data-csv a");
    try {
      const answer = await fetch(link.href);
      if (!answer.ok) throw new Error(`${answer.status}`);
      csv = await answer.text();
    } catch {
      box.innerHTML = "<p>The table could not be loaded here; the CSV link above gives its data.</p>";
      delete box.dataset.filled;
      return;
    }
  }
  // A redraw while the file was on its way put a new place in the disclosure.
  if (!box.isConnected) return;
  const table = tickTable(csv, box.dataset.id, box.dataset.caption);
  if (table === null) {
    // An empty answer is no data: said as for a failed load.
    box.innerHTML = "<p>The table could not be loaded here; the CSV link above gives its data.</p>";
    delete box.dataset.filled;
    return;
  }
  box.innerHTML = table;
  box.dataset.filled = "yes";
  details.dispatchEvent(new CustomEvent("retrylab:ticks", { bubbles: true }));
}

// Gives a disclosure its data from the engine, after its HTML was replaced with the
// engine's, whose links have no address yet: `csv` the chart's, and `replicas` a fleet's
// each replica's, for its second link; `null` after it was put back as built, to read
// the build's files again.
export function holdData(details, csv, replicas = null) {
  const last = held.get(details);
  if (last) for (const url of last.urls) URL.revokeObjectURL(url);
  held.delete(details);
  if (csv !== null) {
    // The chart's data, and a fleet's each replica's in the second link.
    const files = [csv, replicas].filter((file) => file !== null);
    const urls = files.map((file) => URL.createObjectURL(new Blob([file], { type: "text/csv" })));
    held.set(details, { csv, urls });
    details.querySelectorAll(".sim-data-csv a").forEach((link, i) => {
      if (urls[i]) link.href = urls[i];
    });
  }
  if (details.open) fill(details);
}

// `toggle` does not bubble: it is caught on its way down.
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details instanceof HTMLDetailsElement && details.matches(".sim-data") && details.open) fill(details);
}, true);
for (const details of document.querySelectorAll("details.sim-data[open]")) fill(details);
