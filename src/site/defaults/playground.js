// The loader of retrylab's engine compiled to WebAssembly (`wasm/`), for the browser
// playground and for the test that compares it with the native build under Node.
//
// The module exports alloc(len), dealloc(ptr, len), run(ptr, len),
// page(ptr, len, window_len, caption_len), settings(ptr, len),
// explore(ptr, len, window_len, caption_len, knobs_len, asks_len), and for a page's
// runs split among workers jobs(ptr, len), run_jobs(ptr, len, from, to) and
// page_of_runs(ptr, len, window_len, caption_len, yaml_len).
// A scenario's YAML goes in as UTF-8 bytes in a buffer from alloc, which run, page and
// settings free (page's buffer holds the figure's window and caption before it); the
// JSON comes back as a buffer whose address and length are packed into one u64
// (address high), which is read here and freed with dealloc.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Instantiates the engine from the module's bytes (an ArrayBuffer or typed array), from
 * a fetch() response or from the compiled WebAssembly.Module, and returns { module,
 * run(yaml), page(yaml, window, caption), settings(yaml), explore(…), jobs(yaml),
 * runJobs(yaml, from, to), pageOfRuns(yaml, window, caption, runs) }, the text ones
 * giving JSON text: `retrylab sim --json --lanes` for run;
 * {figure, table, report, settings} for page, from one simulation: the parts of the
 * article's figure of the scenario (its lane charts, caption and data table as HTML,
 * the ticks shown and the plots' edges), the site's results table, run's JSON and the
 * settings; the form's settings for settings; or
 * {"errors": [{line, column, width, message, help}]} when the scenario is wrong, with
 * "stopped": true when it ran and was stopped at the limit of work.
 */
export async function load(source) {
  const bytes = source instanceof ArrayBuffer || ArrayBuffer.isView(source);
  const { module, instance } = source instanceof WebAssembly.Module
    ? { module: source, instance: await WebAssembly.instantiate(source, {}) }
    : bytes
      ? await WebAssembly.instantiate(source, {})
      : await WebAssembly.instantiateStreaming(source, {});
  const wasm = instance.exports;

  // Each part goes in one after the other in one buffer, a text as UTF-8 and bytes as
  // they are: the buffer's address and length, then the byte lengths of all but the
  // last part, as the module's functions take them.
  const write = (parts) => {
    const encoded = parts.map((part) => typeof part === "string" ? encoder.encode(part) : part);
    const length = encoded.reduce((sum, part) => sum + part.length, 0);
    const at = wasm.alloc(length);
    const memory = new Uint8Array(wasm.memory.buffer, at, length);
    let offset = 0;
    for (const part of encoded) {
      memory.set(part, offset);
      offset += part.length;
    }
    return [at, length, ...encoded.slice(0, -1).map((p) => p.length)];
  };
  // `exported` gets the parts; its answer is read as text, or with `raw` as a copy of
  // its bytes.
  const send = (exported, raw, ...parts) => {
    const packed = BigInt.asUintN(64, exported(...write(parts)));
    const ptr = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    // Read before freeing; memory.buffer may have been replaced by a growth during the call.
    const answer = new Uint8Array(wasm.memory.buffer, ptr, len);
    const out = raw ? answer.slice() : decoder.decode(answer);
    wasm.dealloc(ptr, len);
    return out;
  };
  const call = (exported, ...texts) => send(exported, false, ...texts);

  return {
    // The compiled module, for the page's workers to run it too.
    module,
    run: (yaml) => call(wasm.run, yaml),
    page: (yaml, window = "", caption = "") => call(wasm.page, window, caption, yaml),
    settings: (yaml) => call(wasm.settings, yaml),
    // An explorable figure's rerun with a reader's knobs (`retrylab::wasm_api::explore`).
    explore: (yaml, window, caption, knobs, asks) => call(wasm.explore, window, caption, knobs, asks, yaml),
    // A page's runs split among workers (`retrylab::wasm_api::jobs`, `run_jobs` and
    // `page_of_runs`): how many there are to split (0: run the page with `page`), a
    // worker's share from..to as bytes, and the page drawn from every share, in order.
    jobs: (yaml) => wasm.jobs(...write([yaml])),
    runJobs: (yaml, from, to) => send((at, length) => wasm.run_jobs(at, length, from, to), true, yaml),
    // The module takes the lengths of the window, the caption and the YAML; the runs'
    // lengths after them are not its arguments (the empty part keeps the YAML's length
    // among them whatever the runs).
    pageOfRuns: (yaml, window, caption, runs) => send(
      (at, length, ...lengths) => wasm.page_of_runs(at, length, ...lengths.slice(0, 3)),
      false, window, caption, yaml, ...runs, new Uint8Array(0)),
  };
}
