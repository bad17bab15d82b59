// A reader for the plain YAML of a simple scenario, so that the playground's form is
// filled from the address before the engine has loaded. It knows block maps, flow maps
// and lists, quoted and plain scalars and comments; for anything else, or a key the form
// does not show, it gives up (null) and the engine, once loaded, fills the form. The
// engine stays the judge: what is read here is only shown, never run.

// A scalar as the author wrote it: quotes removed, nothing converted.
function scalar(text) {
  const t = text.trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$|^'((?:[^']|'')*)'$/.exec(t);
  if (quoted) {
    return quoted[1] !== undefined
      ? quoted[1].replace(/\\(.)/g, "$1")
      : quoted[2].replace(/''/g, "'");
  }
  if (t === "" || /^[\[\]{}&*!|>%@`]/.test(t)) return undefined;
  return t;
}

// Splits a flow collection's inside at its top-level commas.
function items(inside) {
  const out = [];
  let depth = 0, quote = null, start = 0;
  for (let i = 0; i < inside.length; i++) {
    const c = inside[i];
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 0) { out.push(inside.slice(start, i)); start = i + 1; }
  }
  const last = inside.slice(start);
  if (last.trim()) out.push(last);
  return out;
}

// A value on one line: a flow map, a flow list or a scalar; undefined if not understood.
function flow(text) {
  const t = text.trim();
  if (t.startsWith("{") && t.endsWith("}")) {
    const map = Object.create(null);
    for (const item of items(t.slice(1, -1))) {
      const m = /^\s*([A-Za-z_][\w-]*)\s*:\s(.*)$/s.exec(item);
      const value = m && flow(m[2]);
      if (value === undefined) return undefined;
      map[m[1]] = value;
    }
    return map;
  }
  if (t.startsWith("[") && t.endsWith("]")) {
    const list = items(t.slice(1, -1)).map(flow);
    return list.includes(undefined) ? undefined : list;
  }
  return scalar(t);
}

// The line without its comment (a `#` after a space, outside quotes).
function uncommented(line) {
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}

/** The scenario's YAML as nested objects of strings, or null when it is not plain. */
export function readYaml(text) {
  // Maps without a prototype: a key such as `__proto__` is a key like any other.
  const root = Object.create(null);
  const open = [{ indent: -1, map: root }];
  for (const raw of text.split(/\r?\n/)) {
    const line = uncommented(raw).replace(/\s+$/, "");
    if (!line.trim()) continue;
    if (line.includes("\t")) return null;
    const indent = line.length - line.trimStart().length;
    const m = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(line.trim());
    if (!m) return null;
    while (open[open.length - 1].indent >= indent) open.pop();
    const parent = open[open.length - 1].map;
    if (m[1] in parent) return null;
    if (m[2] === undefined) {
      parent[m[1]] = Object.create(null);
      open.push({ indent, map: parent[m[1]] });
    } else {
      const value = flow(m[2]);
      if (value === undefined) return null;
      parent[m[1]] = value;
    }
  }
  return root;
}

// The keys the form shows, and nothing else: a scenario with any other key is edited as
// YAML, with the form set aside, so that no rewrite by the form can drop it. Among those
// left out on purpose are the overload model's server.queue, server.slowdowns,
// retry.timeout, retry.throttle and retry.jitter, which have no field, a fleet's
// server.overrides, each replica's own, and the server's pushback and cache.
const KNOWN = {
  "": ["id", "clients", "spread", "horizon", "server", "retry", "strategies", "runs", "seed", "figure"],
  server: ["model", "capacity", "tick", "rejection_cost", "outages", "replicas", "balancer"],
  retry: ["base", "cap", "multiplier", "max_attempts", "deadline", "elsewhere"],
  figure: ["window", "caption"],
};
/** The balancers of a server of several replicas, the default first. */
export const BALANCERS = ["round-robin", "random", "least-loaded", "power-of-two"];

/**
 * A fleet's settings, `{replicas, balancer, elsewhere}`, from the scenario read by
 * `readYaml` (or null): as written, the defaults for what is left out; null when a value
 * is not one the form can show (the engine names the mistake). The defaults are the
 * engine's where its settings give them, else one replica, round-robin, no elsewhere.
 */
export function fleetOf(doc, defaults) {
  const server = isMap(doc?.server) ? doc.server : {};
  const retry = isMap(doc?.retry) ? doc.retry : {};
  const replicas = server.replicas ?? String(defaults?.server?.replicas ?? 1);
  const balancer = server.balancer ?? defaults?.server?.balancer ?? BALANCERS[0];
  const elsewhere = retry.elsewhere ?? String(defaults?.retry?.elsewhere ?? false);
  if (typeof replicas !== "string" || !BALANCERS.includes(balancer) ||
      (elsewhere !== "true" && elsewhere !== "false")) return null;
  return { replicas, balancer, elsewhere: elsewhere === "true" };
}
/** The generic strategies the form has a box for, which its retry settings shape. */
export const STRATEGIES = ["fixed", "exponential", "full-jitter", "equal-jitter", "decorrelated-jitter",
  "proportional-jitter"];
/** The library strategies it has a box for, which keep their library's own settings. */
export const LIBRARY_STRATEGIES = ["aws-standard", "aws-legacy", "google-cloud", "python-backoff", "urllib3", "tenacity", "polly", "resilience4j", "spring-retry", "spring-retryable", "go-backoff"];
const isMap = (v) => v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);
const only = (map, keys) => isMap(map) && Object.keys(map).every((k) => keys.includes(k));

/**
 * The form's settings (as the engine's `settings` gives them) for a scenario, starting
 * from `defaults`, or null when the scenario says more than the form shows.
 */
export function settingsOf(yaml, defaults) {
  const doc = readYaml(yaml);
  if (!only(doc, KNOWN[""]) || !("clients" in doc)) return null;
  for (const part of ["server", "retry", "figure"]) {
    if (part in doc && !only(doc[part], KNOWN[part])) return null;
  }
  const scalars = (map, keys) => keys.every((k) => !(k in map) || typeof map[k] === "string");
  if (!scalars(doc, ["id", "clients", "spread", "horizon", "runs", "seed"]) ||
      !scalars(doc.server ?? {}, ["model", "capacity", "tick", "rejection_cost", "replicas", "balancer"]) ||
      !scalars(doc.retry ?? {}, KNOWN.retry)) return null;
  const fleet = fleetOf(doc, defaults);
  if (!fleet) return null;
  const strategies = doc.strategies === undefined ? defaults.strategies
    : Array.isArray(doc.strategies) ? doc.strategies : [doc.strategies];
  // A strategy without a box (misspelt, or newer than this page) would be lost when the
  // form writes the scenario: the engine names it, and the form stays aside.
  const known = (s) => STRATEGIES.includes(s) || LIBRARY_STRATEGIES.includes(s);
  if (strategies.some((s) => typeof s !== "string" || !known(s))) return null;
  const outages = doc.server?.outages ?? defaults.server.outages;
  const isOutage = (o) => only(o, ["from", "to"]) && typeof o.from === "string" && typeof o.to === "string";
  if (!Array.isArray(outages) || !outages.every(isOutage)) return null;
  const pick = (part, key) => {
    const value = part ? doc[part]?.[key] : doc[key];
    return value === undefined ? (part ? defaults[part][key] : defaults[key]) : value;
  };
  const s = { server: { outages }, retry: {}, strategies };
  for (const key of ["id", "clients", "spread", "horizon", "runs", "seed"]) s[key] = pick(null, key);
  for (const key of ["model", "capacity", "tick", "rejection_cost"]) s.server[key] = pick("server", key);
  for (const key of KNOWN.retry) s.retry[key] = pick("retry", key);
  s.server.replicas = fleet.replicas;
  s.server.balancer = fleet.balancer;
  s.retry.elsewhere = fleet.elsewhere;
  return s;
}
