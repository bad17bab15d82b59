// The loader of retrylab's engine compiled to WebAssembly (`wasm/`), for the browser
// playground and for the test that compares it with the native build under Node.
//
// The module exports alloc(len), dealloc(ptr, len), run(ptr, len),
// page(ptr, len, window_len, caption_len), settings(ptr, len) and
// explore(ptr, len, window_len, caption_len, knobs_len, asks_len).
// A scenario's YAML goes in as UTF-8 bytes in a buffer from alloc, which run, page and
// settings free (page's buffer holds the figure's window and caption before it); the
// JSON comes back as a buffer whose address and length are packed into one u64
// (address high), which is read here and freed with dealloc.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Instantiates the engine from the module's bytes (an ArrayBuffer or typed array), from
 * a fetch() response or from the compiled WebAssembly.Module, and returns { run(yaml), page(yaml, window, caption),
 * settings(yaml) }, each giving JSON text: `retrylab sim --json --lanes` for run;
 * {figure, table, report, settings} for page, from one simulation: the parts of the
 * article's figure of the scenario (its lane charts, caption and data table as HTML,
 * the ticks shown and the plots' edges), the site's results table, run's JSON and the
 * settings; the form's settings for settings; or
 * {"errors": [{line, column, width, message, help}]} when the scenario is wrong, with
 * "stopped": true when it ran and was stopped at the limit of work.
 */
export async function load(source) {
  const bytes = source instanceof ArrayBuffer || ArrayBuffer.isView(source);
  const { instance } = source instanceof WebAssembly.Module
    ? { instance: await WebAssembly.instantiate(source, {}) }
    : bytes
      ? await WebAssembly.instantiate(source, {})
      : await WebAssembly.instantiateStreaming(source, {});
  const wasm = instance.exports;

  // Each text goes in as UTF-8, one after the other in one buffer; `exported` gets the
  // buffer and the byte lengths of all but the last.
  const call = (exported, ...texts) => {
    const parts = texts.map((text) => encoder.encode(text));
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    const at = wasm.alloc(length);
    const memory = new Uint8Array(wasm.memory.buffer, at, length);
    let offset = 0;
    for (const part of parts) {
      memory.set(part, offset);
      offset += part.length;
    }
    const packed = BigInt.asUintN(64, exported(at, length, ...parts.slice(0, -1).map((p) => p.length)));
    const ptr = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    // Read before freeing; memory.buffer may have been replaced by a growth during the call.
    const json = decoder.decode(new Uint8Array(wasm.memory.buffer, ptr, len));
    wasm.dealloc(ptr, len);
    return json;
  };

  return {
    run: (yaml) => call(wasm.run, yaml),
    page: (yaml, window = "", caption = "") => call(wasm.page, window, caption, yaml),
    settings: (yaml) => call(wasm.settings, yaml),
    // An explorable figure's rerun with a reader's knobs (`retrylab::wasm_api::explore`).
    explore: (yaml, window, caption, knobs, asks) => call(wasm.explore, window, caption, knobs, asks, yaml),
  };
}
