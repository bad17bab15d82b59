// Explorable figures: a scenario figure whose directive says `figure.explore` has a
// slider per thing a reader may vary. A change reruns the scenario with the site's own
// engine in a worker (explore-worker.js), so the page never waits on it, and the last
// change wins: while a run is under way, only the newest setting of each figure waits
// for the next. The answer redraws the figure's charts and caption, its results table
// and its data table, and every reference to the scenario on the page
// (`<span data-ref="…">`), each as the site's build writes it; a sentence marked with
// a condition (`data-if`) shows only while the condition holds. Setting every slider back
// to the article's value (or Reset) puts back the page as it was built. The settings
// are in the address (`#crowd:clients=50,capacity=5`), so a link shares them.
//
// With `strategies: true`, a box per strategy chooses the strategies the figure and its
// tables compare (`strategies=fixed+full-jitter` in the address); the engine runs the
// scenario's own strategies beside them, so the prose that quotes those stays.
//
// Each finished update dispatches `retrylab:explored` on its figure, with the time from
// the change to the redrawn page in `detail.ms`.

import { holdData } from "./ticks.js";

const figures = [...document.querySelectorAll("figure[data-scenario]")]
  .filter((figure) => figure.querySelector(".sim-explore"));

// A value of a knob in its unit (µs, a whole number, thousandths) as YAML writes it.
const yamlOf = (kind, v) => {
  if (kind === "whole") return String(v);
  if (kind === "milli") return decimal(v, 1000, false);
  for (const [unit, scale] of [["h", 3_600_000_000], ["m", 60_000_000], ["s", 1_000_000], ["ms", 1000]]) {
    if (v % scale === 0) return `${v / scale}${unit}`;
  }
  return `${v}us`;
};

// `v / scale` exactly, with a comma every three whole digits when `commas`.
const decimal = (v, scale, commas = true) => {
  const whole = Math.floor(v / scale);
  const frac = v % scale;
  const head = commas ? whole.toLocaleString("en-US") : String(whole);
  if (frac === 0) return head;
  return `${head}.${String(frac).padStart(String(scale).length - 1, "0").replace(/0+$/, "")}`;
};

// A value as the control shows it, with its unit: as the build writes the first.
const shownOf = (kind, unit, v) => {
  if (kind === "duration") {
    if (v === 0) return "0 s";
    if (v % 3_600_000_000 === 0) return `${decimal(v, 3_600_000_000)} h`;
    if (v % 60_000_000 === 0) return `${decimal(v, 60_000_000)} min`;
    if (v >= 1_000_000) return `${decimal(v, 1_000_000)} s`;
    if (v >= 1000) return `${decimal(v, 1000)} ms`;
    return `${v} µs`;
  }
  return `${kind === "whole" ? decimal(v, 1) : decimal(v, 1000)} ${unit}`;
};

const states = new Map();
let worker = null;
let busy = false;
const waiting = new Map();


function start() {
  for (const figure of figures) states.set(figure.dataset.scenario, stateOf(figure));
  try {
    worker = new Worker(new URL("explore-worker.js", import.meta.url), { type: "module" });
  } catch {
    for (const state of states.values()) unavailable(state);
    return;
  }
  worker.onmessage = ({ data }) => answered(data);
  worker.onerror = () => { for (const state of states.values()) unavailable(state); };
  fromAddress();
}

// What a figure needs: its controls, the parts a rerun replaces, as built.
function stateOf(figure) {
  const box = figure.querySelector(".sim-explore");
  const id = figure.dataset.scenario;
  const results = figure.nextElementSibling?.classList.contains("sim-results-wrap") ? figure.nextElementSibling : null;
  const data = results?.nextElementSibling?.classList.contains("sim-data") ? results.nextElementSibling : null;
  const state = {
    id, figure, box, results, data,
    yaml: box.dataset.yaml, window: box.dataset.window, caption: box.dataset.caption,
    inputs: [...box.querySelectorAll("input[type=range]")],
    boxes: [...box.querySelectorAll("input[type=checkbox][name=strategies]")],
    note: box.querySelector(".sim-explore-changed"),
    reset: box.querySelector(".sim-explore-reset"),
    live: box.querySelector(".sim-explore-live"),
    seq: 0, shown: 0, changedAt: 0,
    // The figure's number and its table's ("Figure 2:"), which a rerun keeps.
    numbers: [figure, results].map((e) => e?.querySelector(":is(figcaption, caption) > .caption-number")?.outerHTML ?? ""),
    refs: [...document.querySelectorAll("[data-ref]")].filter((e) => e.dataset.ref.startsWith(`${id}.`)),
    conditions: [...document.querySelectorAll("[data-if]")].filter((e) => scenarioOf(e.dataset.if) === id),
  };
  state.built = {
    charts: [...figure.children].filter((e) => e.localName === "svg").map((e) => e.outerHTML),
    caption: figure.querySelector("figcaption").innerHTML,
    results: results?.innerHTML,
    data: data?.innerHTML,
    refs: state.refs.map((e) => e.textContent),
    values: state.inputs.map((input) => input.value),
    checked: state.boxes.map((b) => b.checked),
  };
  for (const input of state.inputs) {
    input.addEventListener("input", () => { label(input); changed(state); });
  }
  for (const b of state.boxes) {
    b.addEventListener("change", () => {
      // A figure compares at least one strategy: the last box stays checked.
      if (!state.boxes.some((other) => other.checked)) {
        b.checked = true;
        state.live.textContent = "The figure compares at least one strategy.";
        return;
      }
      changed(state);
    });
  }
  state.reset.addEventListener("click", () => {
    state.inputs.forEach((input, i) => { input.value = state.built.values[i]; label(input); });
    state.boxes.forEach((b, i) => { b.checked = state.built.checked[i]; });
    changed(state);
    (state.inputs[0] ?? state.boxes[0])?.focus();
  });
  return state;
}

// What to ask the engine for a figure: each reference of the page to its scenario as
// the page marks it, then each reference its conditions compare, as `| raw` quotes it.
function asksOf(state) {
  const refs = state.refs.map((e) => e.dataset.ref);
  const compared = state.conditions.flatMap((e) => comparisons(e.dataset.if))
    .flatMap(([left, , right]) => [left, right]).filter((side) => !isNumber(side)).map((path) => `${path}|raw`);
  return [...new Set([...refs, ...compared])];
}

// A condition's comparisons, each [left, operator, right], as the build reads them:
// joined by ` and `, each split at its first operator, the longer of two at one place.
const comparisons = (condition) => condition.split(" and ").map((part) => {
  const [, left, op, right] = /^(.*?)(<=|>=|==|!=|<|>)(.*)$/s.exec(part) ?? [, part, "", ""];
  return [left.trim(), op, right.trim()];
});

const isNumber = (text) => /^[0-9.]+$/.test(text);

// The number a raw quote stands for, as the build reads it: the number written, or
// infinity for the words that say there is none.
const numberOf = (text) => ["never", "no limit", "no timeout", "no queue"].includes(text) ? Infinity
  : isNumber(text ?? "") ? Number(text) : NaN;

// Whether a condition holds for the values of a rerun.
function holds(condition, value) {
  const side = (text) => (isNumber(text) ? Number(text) : numberOf(value.get(`${text}|raw`)));
  return comparisons(condition).every(([left, op, right]) => {
    const [l, r] = [side(left), side(right)];
    return { "<=": l <= r, ">=": l >= r, "==": l === r, "!=": l !== r, "<": l < r, ">": l > r }[op] ?? false;
  });
}

// The id of the scenario a condition is about: its first reference's.
function scenarioOf(condition) {
  return /(?:^|\s)([A-Za-z0-9_-]+)\.[A-Za-z]/.exec(condition)?.[1];
}

function label(input) {
  const text = shownOf(input.dataset.kind, input.dataset.unit, Number(input.value));
  input.setAttribute("aria-valuetext", text);
  const output = input.parentElement.querySelector("output");
  if (output) output.textContent = text;
}

const boxesBuilt = (state) => state.boxes.every((b, i) => b.checked === state.built.checked[i]);
const isBuilt = (state) => boxesBuilt(state) && state.inputs.every((input, i) => input.value === state.built.values[i]);

// The strategies the reader chose, in the boxes' order.
const chosen = (state) => state.boxes.filter((b) => b.checked).map((b) => b.value);

// The settings of a figure that differ from the article's, as `name=value`, with
// `joiner` between the strategies chosen.
const settingsOf = (state, joiner) => [
  ...state.inputs.filter((input, i) => input.value !== state.built.values[i])
    .map((input) => `${input.name}=${yamlOf(input.dataset.kind, Number(input.value))}`),
  ...(boxesBuilt(state) ? [] : [`strategies=${chosen(state).join(joiner)}`]),
];

// A reader's change: back to the article at once, or a rerun.
function changed(state) {
  state.seq += 1;
  state.changedAt = performance.now();
  toAddress();
  if (isBuilt(state)) {
    waiting.delete(state.id);
    restore(state);
    return;
  }
  waiting.set(state.id, state.seq);
  send();
}

function send() {
  if (busy || waiting.size === 0) return;
  const [id, seq] = waiting.entries().next().value;
  waiting.delete(id);
  const state = states.get(id);
  const knobs = settingsOf(state, ",").join("\n");
  const asks = asksOf(state);
  busy = true;
  worker.postMessage({ id, seq, yaml: state.yaml, window: state.window, caption: state.caption, knobs, asks: asks.join("\n") });
}

function answered({ id, seq, json, failed }) {
  busy = false;
  const state = states.get(id);
  if (failed) {
    for (const s of states.values()) unavailable(s);
    return;
  }
  // The last change wins: an answer to an older one is passed over.
  if (state && seq === state.seq && !isBuilt(state)) apply(state, JSON.parse(json));
  send();
}

function apply(state, out) {
  if (out.errors) {
    state.live.textContent = `This setting cannot be simulated: ${out.errors[0].message}.`;
    return;
  }
  const { figure } = state;
  charts(figure, out.figure.charts);
  const [number, tableNumber] = state.numbers;
  figure.querySelector("figcaption").innerHTML = number ? `${number} ${out.figure.caption}` : out.figure.caption;
  if (state.results) {
    state.results.innerHTML = `\n${out.table}`;
    if (tableNumber) state.results.querySelector("caption")?.insertAdjacentHTML("afterbegin", `${tableNumber} `);
  }
  if (state.data) {
    const summary = state.data.querySelector("summary").outerHTML;
    state.data.innerHTML = `\n${summary}\n${out.figure.ticks}`;
    holdData(state.data, out.figure.csv, out.figure.replicas_csv);
  }
  const asks = asksOf(state);
  const value = new Map(asks.map((ask, i) => [ask, out.values[i]]));
  // A total the rerun cannot have (goodput without arrivals, say) is quoted as none.
  for (const e of state.refs) e.textContent = value.get(e.dataset.ref) ?? "—";
  for (const e of state.conditions) e.hidden = !holds(e.dataset.if, value);
  marked(state, true);
  const setting = [
    ...state.inputs.filter((input, i) => input.value !== state.built.values[i])
      .map((input) => `${input.name} at ${input.getAttribute("aria-valuetext")}`),
    ...(boxesBuilt(state) ? [] : [`the strategies ${chosen(state).join(", ")}`]),
  ].join(", ");
  const numbers = state.refs.length === 1 ? "1 number" : `${state.refs.length} numbers`;
  // Only the strategies changed: the prose quotes the article's, as before.
  const shows = state.inputs.every((input, i) => input.value === state.built.values[i])
    ? "the chart and its tables show them; the numbers in the text are the article's"
    : `the chart, its tables and ${numbers} in the text show it`;
  const hidden = state.conditions.filter((e) => e.hidden).length;
  const sentences = hidden === 0 ? "" : `; ${hidden === 1 ? "1 sentence that no longer holds is" : `${hidden} sentences that no longer hold are`} hidden`;
  state.live.textContent = `Rerun with ${setting}: ${shows}${sentences}.`;
  done(state);
}

// The charts of the figure (each in its layouts, wide then narrow) replaced by those of
// `html`, in their place, so that the figure is otherwise untouched. Their number may
// change: a fleet's figure has its replicas' chart too, which one server's has not.
function charts(figure, html) {
  const made = document.createElement("template");
  made.innerHTML = html;
  const fresh = [...made.content.children].filter((e) => e.localName === "svg");
  const old = [...figure.children].filter((e) => e.localName === "svg");
  const after = old.length ? old[old.length - 1].nextSibling : figure.firstChild;
  for (const svg of old) svg.remove();
  for (const svg of fresh) figure.insertBefore(svg, after);
}

// The page as built, from what was kept of it.
function restore(state) {
  const { figure, built } = state;
  charts(figure, built.charts.join("\n"));
  figure.querySelector("figcaption").innerHTML = built.caption;
  if (state.results) state.results.innerHTML = built.results;
  if (state.data) {
    state.data.innerHTML = built.data;
    holdData(state.data, null);
  }
  state.refs.forEach((e, i) => { e.textContent = built.refs[i]; });
  for (const e of state.conditions) e.hidden = false;
  marked(state, false);
  state.live.textContent = "Back to the article's setting.";
  done(state);
}

function marked(state, changed) {
  state.figure.classList.toggle("sim-changed", changed);
  state.reset.disabled = !changed;
}

function done(state) {
  const ms = performance.now() - state.changedAt;
  state.figure.dispatchEvent(new CustomEvent("retrylab:explored", { detail: { ms, seq: state.seq } }));
}

function unavailable(state) {
  for (const input of [...state.inputs, ...state.boxes]) input.disabled = true;
  state.reset.disabled = true;
  state.live.textContent = "This browser cannot run the simulation, so the figure stays as the article shows it.";
}

// `#crowd:clients=50,capacity=5&outage:outage=5s`: each changed figure's settings.
function toAddress() {
  const parts = [];
  for (const state of states.values()) {
    const set = settingsOf(state, "+");
    if (set.length > 0) parts.push(`${state.id}:${set.join(",")}`);
  }
  const hash = parts.length > 0 ? `#${parts.join("&")}` : "";
  if (hash !== location.hash && !(hash === "" && !isState(location.hash))) {
    history.replaceState(history.state, "", `${location.pathname}${location.search}${hash}`);
  }
}

const isState = (hash) => /^#[A-Za-z0-9_-]+:/.test(hash);

// The settings an address gives, each set where it is a value of its slider.
function fromAddress() {
  if (!isState(location.hash)) return;
  let first = null;
  for (const part of decodeURIComponent(location.hash.slice(1)).split("&")) {
    const [id, settings = ""] = part.split(/:(.*)/s);
    const state = states.get(id);
    if (!state) continue;
    for (const setting of settings.split(",")) {
      const [name, text] = setting.split("=");
      if (name === "strategies" && state.boxes.length > 0) {
        const names = (text ?? "").split("+");
        if (state.boxes.some((b) => names.includes(b.value))) {
          for (const b of state.boxes) b.checked = names.includes(b.value);
        }
        continue;
      }
      const input = state.inputs.find((i) => i.name === name);
      if (!input) continue;
      const value = [...Array(1 + (Number(input.max) - Number(input.min)) / Number(input.step)).keys()]
        .map((k) => Number(input.min) + k * Number(input.step))
        .find((v) => yamlOf(input.dataset.kind, v) === text);
      if (value === undefined) continue;
      input.value = String(value);
      label(input);
    }
    if (!isBuilt(state)) {
      changed(state);
      first ??= state.figure;
    }
  }
  first?.scrollIntoView();
}

if (figures.length > 0) start();
