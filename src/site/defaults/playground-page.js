// The playground page: a form over a scenario, the engine run in the browser, the lanes
// of each strategy's typical run filled tick by tick, then the results table. The page's
// address carries the scenario (`?s=`, base64url of its YAML), so a setup can be shared.
// The chart and the table use the classes of the site's own figures (chart.css).

import { load } from "./playground.js";
import { DEFAULTS } from "./playground-defaults.js";
import { STRATEGIES, fleetOf, readYaml, settingsOf } from "./playground-yaml.js";
import { SCENARIOS } from "./playground-scenarios.js";
import { holdData } from "./ticks.js";

const root = document.getElementById("playground");
const form = document.getElementById("pg-form");
const runButton = document.getElementById("pg-run");
const endButton = document.getElementById("pg-end");
const status = document.getElementById("pg-status");
const errorsBox = document.getElementById("pg-errors");
const figure = document.getElementById("pg-figure");
const chartBox = document.getElementById("pg-chart");
const caption = document.getElementById("pg-caption");
const resultsBox = document.getElementById("pg-results");
const yamlBox = document.getElementById("pg-yaml");
const share = document.getElementById("pg-share");
const yamlDetails = document.getElementById("pg-yaml-details");
const ticksDetails = document.getElementById("pg-ticks-details");
const ticksBox = document.getElementById("pg-ticks");
const fieldsets = [...form.querySelectorAll("fieldset")];
root.hidden = false;

// The crowd of the articles: a hundred clients fail together.
const START = `id: crowd
clients: 100
server: {capacity: 10, tick: 100ms, rejection_cost: 0.1}
retry: {base: 100ms, cap: 10s}
strategies: [fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter]
runs: 200
seed: 1
`;

const field = (name) => form.elements.namedItem(name);
const strategyBoxes = () => [...form.querySelectorAll('input[name="strategy"]')];
const escapeHtml = (text) =>
  String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const toBase64url = (text) => {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
const fromBase64url = (code) => {
  const binary = atob(code.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

// What the form does not show is kept from the scenario it was filled from.
let kept = { id: "playground", outages: [], caption: null };

// Which writes the scenario that runs: the YAML editor (the address's scenario, until
// the form is touched) or the form.
let fromYaml = true;

// The window of the figure a try-it link came from (`&w=`), for a scenario that names
// none, so the chart shows what the article's figure showed.
let linkWindow = "";

function fill(settings, yaml) {
  const s = settings;
  kept = { id: s.id, outages: s.server.outages.slice(1), caption: yaml ? captionOf(yaml) : null };
  const values = {
    clients: s.clients, spread: s.spread, runs: s.runs, seed: s.seed,
    model: s.server.model, capacity: s.server.capacity, tick: s.server.tick,
    rejection_cost: s.server.rejection_cost,
    outage_from: s.server.outages[0]?.from ?? "", outage_to: s.server.outages[0]?.to ?? "",
    base: s.retry.base, cap: s.retry.cap, multiplier: String(s.retry.multiplier),
    max_attempts: s.retry.max_attempts ?? "", deadline: s.retry.deadline ?? "",
    horizon: s.horizon,
  };
  // The fleet's fields: from the settings when they carry them (the form's reader's
  // do), else from the scenario's YAML as written.
  const fleet = s.server.replicas !== undefined
    ? { replicas: s.server.replicas, balancer: s.server.balancer, elsewhere: s.retry.elsewhere }
    : fleetOf(yaml ? readYaml(yaml) : null, DEFAULTS) ?? fleetOf(null, DEFAULTS);
  values.replicas = String(fleet.replicas);
  values.balancer = fleet.balancer;
  for (const [name, value] of Object.entries(values)) field(name).value = value;
  field("elsewhere").checked = fleet.elsewhere === true;
  for (const box of strategyBoxes()) box.checked = s.strategies.includes(box.value);
  field("window").value = yaml ? windowOf(yaml) || linkWindow : "";
  fleetFields();
}

// The form's replicas, as a number when it is a whole number; NaN otherwise.
const replicasOf = () => {
  const text = field("replicas").value.trim();
  return /^[0-9]+$/.test(text) ? Number(text) : NaN;
};

// The balancer and retry elsewhere mean something only with 2 or more replicas: with
// one (or none yet valid) they are disabled, and the form writes neither.
function fleetFields() {
  const one = !(replicasOf() > 1);
  field("balancer").disabled = one;
  field("elsewhere").disabled = one;
}

// The chart's window and caption are the figure's, not the engine's: read from an
// author's `figure:`.
const windowOf = (yaml) => {
  const figure = readYaml(yaml)?.figure;
  if (figure && typeof figure === "object") return typeof figure.window === "string" ? figure.window : "";
  return /^\s*(?:figure:\s*\{.*)?window:\s*([^\s#,}]+)/m.exec(yaml)?.[1] ?? "";
};
const captionOf = (yaml) => {
  const caption = readYaml(yaml)?.figure?.caption;
  return typeof caption === "string" ? caption : null;
};

// The form holds the common fields; a scenario that says more is edited as YAML, and
// the form shows what it can without letting an edit drop the rest.
function formUsable(usable) {
  for (const set of fieldsets) set.disabled = !usable;
  if (!usable) yamlDetails.open = true;
  return usable ? "Change anything, then press Run."
    : "This scenario says more than the form shows: edit it as YAML below, then press Run.";
}

// The form as YAML, remembering which field wrote each line (for error messages).
function toYaml() {
  const lines = [];
  const fieldOf = [];
  const add = (text, name) => { lines.push(text); fieldOf.push(name); };
  const v = (name) => field(name).value.trim();
  add(`id: ${kept.id}`, null);
  add(`clients: ${v("clients")}`, "clients");
  if (v("spread") && v("spread") !== "0s") add(`spread: ${v("spread")}`, "spread");
  add(`horizon: ${v("horizon")}`, "horizon");
  add("server:", null);
  add(`  model: ${v("model")}`, "model");
  add(`  capacity: ${v("capacity")}`, "capacity");
  add(`  tick: ${v("tick")}`, "tick");
  add(`  rejection_cost: ${v("rejection_cost")}`, "rejection_cost");
  // One replica, the default, is the one server: nothing is written for it, so a form
  // of one server writes the scenario it always has. The balancer and retry elsewhere
  // are written only for a fleet, the balancer only when it is not the default.
  const fleet = replicasOf() > 1;
  const outages = [];
  if (v("outage_from") || v("outage_to")) {
    outages.push(`{from: ${v("outage_from") || "0s"}, to: ${v("outage_to")}}`);
  }
  outages.push(...kept.outages.map((o) => `{from: ${o.from}, to: ${o.to}}`));
  if (outages.length) add(`  outages: [${outages.join(", ")}]`, "outage_to");
  if (v("replicas") && v("replicas") !== "1") add(`  replicas: ${v("replicas")}`, "replicas");
  if (fleet && v("balancer") !== "round-robin") add(`  balancer: ${v("balancer")}`, "balancer");
  const chosen = strategyBoxes().filter((b) => b.checked).map((b) => b.value);
  // The retry settings shape the generic strategies only: a library strategy keeps its
  // library's, and the engine refuses a setting that changes no strategy. Retry
  // elsewhere is where a retry goes, for every strategy, a library's too.
  const generic = chosen.length === 0 || chosen.some((name) => STRATEGIES.includes(name));
  const elsewhere = fleet && field("elsewhere").checked;
  if (generic || elsewhere) add("retry:", null);
  if (generic) {
    add(`  base: ${v("base")}`, "base");
    add(`  cap: ${v("cap")}`, "cap");
    add(`  multiplier: ${v("multiplier")}`, "multiplier");
    if (v("max_attempts")) add(`  max_attempts: ${v("max_attempts")}`, "max_attempts");
    if (v("deadline")) add(`  deadline: ${v("deadline")}`, "deadline");
  }
  if (elsewhere) add("  elsewhere: true", "elsewhere");
  add(`strategies: [${chosen.join(", ")}]`, "strategy");
  add(`runs: ${v("runs")}`, "runs");
  add(`seed: ${v("seed")}`, "seed");
  const figureKeys = [];
  if (v("window")) figureKeys.push(`window: ${v("window")}`);
  if (kept.caption) figureKeys.push(`caption: ${JSON.stringify(kept.caption)}`);
  if (figureKeys.length) add(`figure: {${figureKeys.join(", ")}}`, "window");
  return { yaml: lines.join("\n") + "\n", fieldOf };
}

function showErrors(errors, fieldOf) {
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  errorsBox.innerHTML = "";
  for (const e of errors) {
    const name = fieldOf?.[e.line - 1];
    // The strategies are one field of several boxes: each of them carries the state.
    const inputs = !name ? [] : name === "strategy" ? strategyBoxes() : [field(name)];
    for (const box of inputs) box.setAttribute("aria-invalid", "true");
    const input = inputs[0];
    const where = name === "strategy" ? "strategies"
      : input ? (input.closest("label")?.firstChild?.textContent.trim() ||
        input.closest("label")?.textContent.trim() || name)
      : `line ${e.line}, column ${e.column}`;
    const p = document.createElement("p");
    p.innerHTML = `<strong>${escapeHtml(where)}</strong>: ${escapeHtml(e.message)}` +
      (e.help ? ` (${escapeHtml(e.help)})` : "");
    errorsBox.append(p);
  }
}

// A mistake in the YAML editor, at its line: the place as a link that selects it in the
// editor, then the line with a caret under the fault, as `retrylab` prints it.
function showYamlErrors(errors, yaml) {
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  errorsBox.innerHTML = "";
  if (errors.length) yamlBox.setAttribute("aria-invalid", "true");
  else yamlBox.removeAttribute("aria-invalid");
  const lines = yaml.split("\n");
  for (const e of errors) {
    const p = document.createElement("p");
    const where = document.createElement("a");
    where.href = "#pg-yaml";
    where.textContent = `line ${e.line}, column ${e.column}`;
    where.addEventListener("click", (event) => {
      event.preventDefault();
      const offset = lines.slice(0, e.line - 1).reduce((n, l) => n + l.length + 1, 0) + e.column - 1;
      yamlDetails.open = true;
      yamlBox.focus();
      yamlBox.setSelectionRange(offset, offset + Math.max(1, e.width));
    });
    p.append(where, `: ${e.message}` + (e.help ? ` (${e.help})` : ""));
    const line = (lines[e.line - 1] ?? "").replace(/\t/g, " ").replace(/\r$/, "");
    const number = String(e.line);
    const gutter = " ".repeat(number.length);
    const width = Math.max(1, Math.min(e.width, line.length - e.column + 1));
    const snippet = document.createElement("pre");
    snippet.className = "pg-snippet";
    snippet.textContent = `${number} | ${line}\n${gutter} | ${" ".repeat(e.column - 1)}${"^".repeat(width)}`;
    errorsBox.append(p, snippet);
  }
}

// ---- The lane chart: the article's figure, from the engine's module ------------------
// The module draws the chart with the site's own Rust code, in both its layouts, as an
// article's figure of the scenario has it; the replay shows each layout's bars up to a
// tick through a clip over its plots, whose edges the module gives with the chart.
const SVG = "http://www.w3.org/2000/svg";

function draw(figurePart, tickS) {
  chartBox.innerHTML = figurePart.charts;
  const reveals = [...chartBox.querySelectorAll("svg")].map((svg, i) => {
    const [left, right] = figurePart.plots[i];
    const { width, height } = svg.viewBox.baseVal;
    const id = `pg-reveal-${i}`;
    const clip = document.createElementNS(SVG, "clipPath");
    clip.id = id;
    const rect = document.createElementNS(SVG, "rect");
    for (const [name, value] of [["x", 0], ["y", 0], ["width", width], ["height", height]]) rect.setAttribute(name, value);
    clip.append(rect);
    const defs = document.createElementNS(SVG, "defs");
    defs.setAttribute("class", "pg-replay");
    defs.append(clip);
    svg.append(defs);
    for (const bars of svg.querySelectorAll("g.bars")) bars.setAttribute("clip-path", `url(#${id})`);
    return { rect, left, right, width };
  });
  const shown = figurePart.shown;
  // Shows the bars of the first `k` ticks; all of them, to the chart's edge, at the end.
  const show = (k) => {
    for (const { rect, left, right, width } of reveals) {
      rect.setAttribute("width", k >= shown ? width : left + ((right - left) * k) / shown);
    }
  };
  return { shown, show, seconds: shown * tickS, tickS };
}

// ---- The replay: play, pause, one tick, a scrubber; the counters follow -------------
// The counters of each strategy's typical run after its first `k` ticks, from running
// sums of its lanes: calls sent, served, turned away; with a queue, those served after
// their client stopped waiting (wasted work) and those still in the queue; with a
// breaker, the calls that failed fast; with throttling, the attempts refused at the
// client; and the clients still waiting, which only a closed crowd in which nobody can
// give up knows tick by tick (the lanes do not say when a client gives up or a request
// arrives). A call sent is served, turned away, wasted (served late) or still queued, so the
// columns add up; failed-fast and throttled attempts never reach the server and are not
// calls. A server that drops expired calls (`drop_expired: true`) discards calls the
// lanes do not count, so then the calls sent are not shown.
function countersOf(result, settings, yaml) {
  const sums = (values, n) => {
    const out = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) out[k + 1] = out[k] + (values?.[k] ?? 0);
    return out;
  };
  const has = (lane) => result.strategies.some((s) => (s.lanes[lane]?.length ?? 0) > 0);
  const fast = result.strategies.some((s) => "failed_fast" in s);
  const queue = has("queued");
  const throttled = has("throttled");
  const waiting = !settings.open && !settings.gives_up;
  const sent = !(queue && dropsExpired(yaml));
  const lanes = result.strategies.map(({ strategy, lanes: l }) => {
    const n = l.served.length;
    return { strategy, n, served: sums(l.served, n), rejected: sums(l.rejected, n), failed: sums(l.failed_fast, n),
      wasted: sums(l.wasted, n), throttled: sums(l.throttled, n), queued: l.queued ?? [] };
  });
  return { fast, queue, throttled, waiting, sent, clients: result.clients, lanes };
}

// Whether the scenario's server (or one of its replicas) discards expired queued calls.
// The form's reader knows a plain scenario; for any other, or one with replicas'
// overrides, a `drop_expired: true` anywhere counts, so the calls sent are left out
// rather than shown wrong.
function dropsExpired(yaml) {
  const doc = readYaml(yaml);
  if (doc && doc.server?.overrides === undefined) return doc.server?.queue?.drop_expired === "true";
  return /drop_expired["']?\s*:\s*["']?true/.test(yaml);
}

// The counters' columns, as the scenario has them.
function countersHeads(counters) {
  return [...(counters.sent ? ["sent"] : []), "served", "turned away",
    ...(counters.queue ? ["wasted", "in the queue"] : []),
    ...(counters.fast ? ["failed fast"] : []), ...(counters.throttled ? ["throttled"] : []),
    ...(counters.waiting ? ["still waiting"] : [])];
}

function countersTable(counters) {
  const table = document.getElementById("pg-counters");
  const heads = countersHeads(counters);
  table.tHead.innerHTML = `<tr><th scope="col">strategy</th>${heads.map((h) => `<th scope="col" class="num">${h}</th>`).join("")}</tr>`;
  table.tBodies[0].innerHTML = counters.lanes.map((l) =>
    `<tr><th scope="row">${escapeHtml(l.strategy)}</th>${heads.map(() => '<td class="num"></td>').join("")}</tr>`).join("");
  return [...table.tBodies[0].rows].map((row) => [...row.cells].slice(1));
}

// The counters after the first `k` ticks, as numbers, in the table's column order.
function countersAt(counters, k) {
  return counters.lanes.map((l) => {
    const at = Math.min(k, l.n);
    const served = l.served[at], rejected = l.rejected[at], wasted = l.wasted[at];
    const queued = at > 0 ? (l.queued[at - 1] ?? 0) : 0;
    return [...(counters.sent ? [served + rejected + wasted + queued] : []), served, rejected,
      ...(counters.queue ? [wasted, queued] : []),
      ...(counters.fast ? [l.failed[at]] : []), ...(counters.throttled ? [l.throttled[at]] : []),
      ...(counters.waiting ? [counters.clients - served] : [])];
  });
}

const replayBox = document.getElementById("pg-replay");
const playButton = document.getElementById("pg-play");
const stepButton = document.getElementById("pg-step");
const scrub = document.getElementById("pg-scrub");
const clockOut = document.getElementById("pg-clock");
const countersBox = document.getElementById("pg-counters-box");
const countersCaption = document.getElementById("pg-counters-caption");

let replay = null;

function startReplay(chart, counters, finished) {
  cancelAnimationFrame(replay?.frame);
  const cells = countersTable(counters);
  const seconds = (k) => `${(k * chart.tickS).toFixed(1)} s`;
  const state = { k: 0, frame: 0, playing: false, ended: false };
  // The whole window plays in 1.5 to 6 seconds, as long as it lasts at a quarter speed.
  const perTick = Math.min(6000, Math.max(1500, chart.seconds * 250)) / chart.shown;
  const show = (k) => {
    state.k = k;
    chart.show(k);
    scrub.value = String(k);
    const where = `${seconds(k)}, tick ${k} of ${chart.shown}`;
    scrub.setAttribute("aria-valuetext", where);
    clockOut.textContent = `t = ${seconds(k)}`;
    countersCaption.textContent = `After ${seconds(k)} (tick ${k} of ${chart.shown}), in each strategy's typical run` +
      (counters.waiting ? "" : "; still waiting is not shown: in this scenario clients give up or arrive on the way") +
      (counters.sent ? "" : "; sent is not shown: the server drops expired calls, which the lanes do not count");
    const values = countersAt(counters, k);
    values.forEach((row, i) => row.forEach((v, j) => { cells[i][j].textContent = thousands(v); }));
    stepButton.disabled = endButton.disabled = k >= chart.shown;
    if (k >= chart.shown && !state.ended) {
      state.ended = true;
      finished();
    }
  };
  const pause = () => {
    cancelAnimationFrame(state.frame);
    state.playing = false;
    playButton.textContent = "Play";
  };
  const play = () => {
    if (state.k >= chart.shown) show(0);
    state.playing = true;
    playButton.textContent = "Pause";
    const from = state.k;
    const started = performance.now();
    const frame = (now) => {
      // A frame's time may precede the call to play: never before where it started.
      const k = Math.min(chart.shown, from + Math.floor(Math.max(0, now - started) / perTick));
      if (k !== state.k) show(k);
      if (k >= chart.shown) pause();
      else state.frame = requestAnimationFrame(frame);
    };
    state.frame = requestAnimationFrame(frame);
  };
  replay = {
    toggle: () => (state.playing ? pause() : play()),
    step: () => { pause(); show(Math.min(chart.shown, state.k + 1)); },
    to: (k) => { pause(); show(Math.max(0, Math.min(chart.shown, k))); },
    end: () => { pause(); show(chart.shown); },
    get frame() { return state.frame; },
  };
  scrub.max = String(chart.shown);
  replayBox.hidden = false;
  countersBox.hidden = false;
  show(0);
  // Without motion, the replay starts at its end; Play runs it from the start.
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) replay.end();
  else play();
}

playButton.addEventListener("click", () => replay?.toggle());
stepButton.addEventListener("click", () => replay?.step());
scrub.addEventListener("input", () => replay?.to(Number(scrub.value)));
// K and L as in video players, anywhere but in a field that takes text.
document.addEventListener("keydown", (event) => {
  if (!replay || replayBox.hidden || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest?.("input:not([type=range]), textarea, select")) return;
  const key = event.key.toLowerCase();
  if (key === "k") { event.preventDefault(); replay.toggle(); }
  else if (key === "l") { event.preventDefault(); replay.step(); }
});

// ---- The results table comes from the engine's module: the site's own Rust code -----
const thousands = (n) => Math.round(n).toLocaleString("en-US");

// Under it, for a server of several replicas, each replica's calls, served and turned
// away over the runs (the report's `replicas`), as the site's tables write a count: the
// median, with the 5th–95th percentile when they differ; and, where some replica has
// any (a fleet with queues), its wasted calls, its clients' timeouts, the calls it
// discarded, those still queued at the horizon, and the 99th percentile of its
// latencies. False for one server.
const replicasBox = document.getElementById("pg-replicas-box");
const REPLICA_COLUMNS = [
  ["calls", "calls", true], ["served", "served", true], ["wasted", "wasted", false],
  ["timed_out", "timed out", false], ["dropped", "discarded", false],
  ["queued", "queued at the horizon", false], ["rejected", "turned away", true],
];
function replicasTable(result) {
  const fleet = result.strategies.filter((s) => (s.replicas?.length ?? 0) > 0);
  if (fleet.length === 0) return false;
  const all = fleet.flatMap((s) => s.replicas);
  const columns = REPLICA_COLUMNS.filter(([key, , always]) => always || all.some((r) => r[key].p95 > 0));
  const latency = all.some((r) => r.latency_runs > 0);
  const count = ({ median, p5, p95 }) => thousands(median) +
    (p5 !== median || p95 !== median ? ` <span class="range">(${thousands(p5)}–${thousands(p95)})</span>` : "");
  const time = (spread) => spread === null || spread === undefined ? "–"
    : `${spread.median.toFixed(3)} s` + (spread.p5 !== spread.median || spread.p95 !== spread.median
      ? ` <span class="range">(${spread.p5.toFixed(3)}–${spread.p95.toFixed(3)})</span>` : "");
  const table = document.getElementById("pg-replicas");
  table.tHead.rows[0].innerHTML = `<th scope="col">strategy</th><th scope="col" class="num">replica</th>` +
    columns.map(([, name]) => `<th scope="col" class="num">${name}</th>`).join("") +
    (latency ? `<th scope="col" class="num">p99 latency</th>` : "");
  table.tBodies[0].innerHTML = fleet.flatMap((s) => s.replicas.map((r) =>
    `<tr><th scope="row">${escapeHtml(s.strategy)}</th><td class="num">${thousands(r.replica)}</td>` +
    columns.map(([key]) => `<td class="num">${count(r[key])}</td>`).join("") +
    (latency ? `<td class="num">${time(r.latency_p99_s)}</td>` : "") + "</tr>")).join("");
  return true;
}

// ---- Presets -------------------------------------------------------------------------
// A link on the page to a scenario's figure (`…#sim-ID`) becomes a button that loads
// that figure's scenario, as the author wrote it, with the window the figure shows: the
// same as the figure's try-it link. The link stays, for the article itself.
const presetsBox = document.getElementById("pg-presets");
const presetButtons = [];
for (const link of document.querySelectorAll("article .content a[href*='#sim-']")) {
  const id = decodeURIComponent(new URL(link.href).hash.slice("#sim-".length));
  const preset = Object.hasOwn(SCENARIOS, id) ? SCENARIOS[id] : null;
  if (!preset) continue;
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = link.textContent;
  button.dataset.preset = id;
  button.disabled = true;
  button.setAttribute("aria-pressed", "false");
  button.addEventListener("click", () => {
    yamlBox.value = preset.yaml;
    linkWindow = preset.window;
    fromYaml = true;
    for (const b of presetButtons) b.setAttribute("aria-pressed", String(b === button));
    form.requestSubmit();
  });
  presetButtons.push(button);
  presetsBox.append(button);
}
presetsBox.hidden = presetButtons.length === 0;

// ---- The runs, spread over the reader's cores -----------------------------------------
// A scenario's runs go to workers, one per core, as the native build spreads them: each
// runs a share with the module the page compiled and hands back their totals, and the
// page's own module draws the page from them all (`pageOfRuns`), the very answer `page`
// gives. With one core, without workers, for a scenario the engine does not split (one
// run, or past the limit of work) or once a worker has failed, the page runs it itself.
let engine = null;
let workers = [];

function startWorkers(module) {
  const cores = Math.min(navigator.hardwareConcurrency || 1, 8);
  if (cores < 2 || typeof Worker !== "function") return;
  const failed = () => {
    for (const w of workers) {
      w.worker.terminate();
      for (const answer of w.waiting.splice(0)) answer({});
    }
    workers = [];
  };
  try {
    for (let i = 0; i < cores; i++) {
      const worker = new Worker(new URL("playground-worker.js", import.meta.url), { type: "module" });
      // A worker answers its shares in the order they were asked for.
      const w = { worker, waiting: [] };
      worker.onmessage = ({ data }) => (data.runs ? w.waiting.shift()?.(data) : failed());
      worker.onerror = failed;
      worker.onmessageerror = failed;
      worker.postMessage({ module });
      workers.push(w);
    }
  } catch {
    failed();
  }
}

// The page's JSON of `engine.page`, from the workers when the scenario's runs split;
// null once `stale()` says a later Run has begun, which is then left to draw its own.
async function pageOf(yaml, windowText, caption, stale) {
  const jobs = workers.length > 1 ? engine.jobs(yaml) : 0;
  if (jobs < 2) return engine.page(yaml, windowText, caption);
  const shares = workers.slice(0, jobs).map((w, i, all) => new Promise((answer) => {
    w.waiting.push(answer);
    w.worker.postMessage({
      yaml,
      from: Math.floor(jobs * i / all.length),
      to: Math.floor(jobs * (i + 1) / all.length),
    });
  }));
  const answers = await Promise.all(shares);
  if (stale()) return null;
  return answers.every((a) => a.runs)
    ? engine.pageOfRuns(yaml, windowText, caption, answers.map((a) => a.runs))
    : engine.page(yaml, windowText, caption);
}

// ---- Wiring --------------------------------------------------------------------------
// Runs begun: the answer to a Run that another has followed is not shown.
let begun = 0;

const secondsOf = (text) => {
  const m = /^\s*([0-9.]+)\s*(us|µs|ms|s|m|h)\s*$/.exec(text);
  const scale = { us: 1e-6, "µs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  return m ? Number(m[1]) * scale[m[2]] : 0;
};

async function run() {
  // From Run to the finished chart, for the speed test: "playground-run" to "playground-chart".
  performance.mark("playground-run");
  const mine = ++begun;
  let yaml = yamlBox.value;
  let fieldOf = null;
  if (!fromYaml) {
    ({ yaml, fieldOf } = toYaml());
    yamlBox.value = yaml;
  }
  const address = `${location.pathname}?s=${toBase64url(yaml)}` +
    (linkWindow && !windowOf(yaml) ? `&w=${encodeURIComponent(linkWindow)}` : "");
  history.replaceState(null, "", address);
  share.href = address;
  // The figure's window: the scenario's own, or the one its article's figure showed.
  const windowText = windowOf(yaml) || linkWindow;
  // While the runs are out, what the last Run showed stays, its chart marked busy (and
  // dimmed after a moment) until this Run's answer replaces it.
  figure.setAttribute("aria-busy", "true");
  // Whether the scenario came from the editor, as it was when Run was pressed.
  const asYaml = fromYaml;
  const started = performance.now();
  let text;
  try {
    text = await pageOf(yaml, windowText, captionOf(yaml) ?? "", () => mine !== begun);
  } finally {
    if (mine === begun) figure.removeAttribute("aria-busy");
  }
  if (mine !== begun) return;
  const ms = performance.now() - started;
  const answer = JSON.parse(text);
  if (answer.errors) {
    if (asYaml) showYamlErrors(answer.errors, yaml);
    else showErrors(answer.errors, fieldOf);
    // A scenario past the limit of work ran, and was stopped: it has no mistake.
    status.textContent = answer.stopped
      ? "The scenario needs more work than a page runs; it was stopped at the limit."
      : "The scenario has a mistake; nothing was run.";
    // The reader's attention goes to what is wrong; the message names the field.
    errorsBox.focus();
    return;
  }
  showYamlErrors([], yaml);
  // The parts of the article's figure, the results table as the site's figures have
  // it, the report with the lanes and the settings, from one call.
  const { figure: figurePart, table: resultsTable, report: result, settings } = answer;
  if (asYaml) {
    const plain = settingsOf(yaml, DEFAULTS) !== null;
    fill(settings, yaml);
    formUsable(plain);
  }
  const runs = result.runs * result.strategies.length;
  status.textContent = `${thousands(runs)} run${runs === 1 ? "" : "s"} computed in ${Math.round(ms)} ms, in your browser.`;
  status.dataset.ms = ms.toFixed(1);
  figure.hidden = false;
  resultsBox.hidden = true;
  replicasBox.hidden = true;
  ticksDetails.hidden = true;
  const chart = draw(figurePart, secondsOf(settings.server.tick));
  if (figure.getBoundingClientRect().top > innerHeight * 0.7) {
    figure.scrollIntoView({ block: "start", behavior: "smooth" });
  }
  caption.innerHTML = figurePart.caption;
  ticksBox.innerHTML = figurePart.ticks;
  holdData(ticksDetails, figurePart.csv, figurePart.replicas_csv);
  performance.mark("playground-chart");
  startReplay(chart, countersOf(result, settings, yaml), () => {
    resultsBox.innerHTML = resultsTable;
    resultsBox.hidden = false;
    replicasBox.hidden = !replicasTable(result);
    ticksDetails.hidden = false;
  });
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (engine) run();
});
// Touching the form makes it the scenario's writer; the editor shows what it writes.
form.addEventListener("input", () => {
  for (const b of presetButtons) b.setAttribute("aria-pressed", "false");
  fromYaml = false;
  fleetFields();
  yamlBox.value = toYaml().yaml;
  yamlBox.removeAttribute("aria-invalid");
});
yamlBox.addEventListener("input", () => {
  fromYaml = true;
  for (const b of presetButtons) b.setAttribute("aria-pressed", "false");
});
// Ctrl+Enter (or ⌘+Enter) in the editor runs it, as Run does.
yamlBox.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    form.requestSubmit();
  }
});
endButton.addEventListener("click", () => replay?.end());

// Without the engine nothing can run: the form goes, so no control is left that does
// nothing, and the scenario stays readable as YAML for a `sim` block or `retrylab sim`.
function unavailable(error) {
  form.hidden = true;
  presetsBox.hidden = true;
  const p = document.createElement("p");
  p.id = "pg-unavailable";
  p.textContent = `The playground's engine could not be loaded (${error.message}), so ` +
    "nothing can run here. The scenario is below as YAML: it runs in a sim block of an " +
    "article, or with retrylab sim FILE.";
  errorsBox.replaceChildren(p);
  yamlDetails.open = true;
  yamlBox.readOnly = true;
  errorsBox.focus();
}

async function start() {
  const params = new URLSearchParams(location.search);
  const shared = params.get("s");
  // Only a duration: anything else would reach the YAML the form writes.
  if (/^[0-9.]+(us|µs|ms|s|m|h)$/.test(params.get("w") ?? "")) linkWindow = params.get("w");
  let yaml = START;
  if (shared) {
    try {
      yaml = fromBase64url(shared);
    } catch {
      errorsBox.textContent = "The address does not hold a readable scenario; here is the crowd instead.";
    }
  }
  yamlBox.value = yaml;
  share.href = location.pathname + location.search;
  // The form shows the scenario at once when it is plain enough to read here; the
  // engine fills it (again) when it has loaded, unless the reader has begun to edit.
  const early = settingsOf(yaml, DEFAULTS);
  if (early) fill(early, yaml);
  performance.mark("playground-form");
  let edited = false;
  form.addEventListener("input", () => { edited = true; }, { once: true });
  try {
    // The page's head has begun to download and compile the module; without it (no
    // WebAssembly, or a template of a site's own) it starts here.
    const early = await (window.retrylabEngine ??
      fetch(root.dataset.module).then((response) => ({ response, module: Promise.resolve(null) })));
    if (early.error) throw early.error;
    const { response } = early;
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    // Compiled while it downloaded; a server that does not say application/wasm gets
    // the slower way.
    const compiled = await early.module;
    engine = compiled ? await load(compiled)
      : await load(response.clone()).catch(async () => load(await response.arrayBuffer()));
    performance.mark("playground-engine");
    startWorkers(engine.module);
  } catch (error) {
    unavailable(error);
    return;
  }
  const settings = JSON.parse(engine.settings(yaml));
  // Values the reader has begun to type stay as they are; Run checks them.
  if (!edited && settings.errors) {
    // The editor keeps the scenario with its mistake, shown at its line; the form
    // offers the crowd, and writes the scenario once it is touched.
    showYamlErrors(settings.errors, yaml);
    fill(JSON.parse(engine.settings(START)), START);
    yamlDetails.open = true;
  }
  let ready = "Change anything, then press Run.";
  if (!edited && !settings.errors) {
    fill(settings, yaml);
    ready = formUsable(early !== null);
  }
  runButton.disabled = false;
  for (const button of presetButtons) button.disabled = false;
  status.textContent = ready;
  performance.mark("playground-ready");
}

start();
