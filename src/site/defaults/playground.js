// The loader of retrylab's engine compiled to WebAssembly (`wasm/`), for the browser
// playground and for the test that compares it with the native build under Node.
//
// The module exports alloc(len), dealloc(ptr, len), run(ptr, len), page(ptr, len) and
// settings(ptr, len).
// A scenario's YAML goes in as UTF-8 bytes in a buffer from alloc, which run, page and
// settings free; the JSON comes back as a buffer whose address and length are packed into one
// u64 (address high), which is read here and freed with dealloc.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Instantiates the engine from the module's bytes (an ArrayBuffer or typed array) or
 * from a fetch() response, and returns { run(yaml), page(yaml), settings(yaml) }, each
 * giving JSON text: `retrylab sim --json --lanes` for run; {table, report} for page, the
 * site's results table as HTML and run's JSON, from one simulation; the form's settings
 * for settings; or
 * {"errors": [{line, column, width, message, help}]} when the scenario is wrong.
 */
export async function load(source) {
  const bytes = source instanceof ArrayBuffer || ArrayBuffer.isView(source);
  const { instance } = bytes
    ? await WebAssembly.instantiate(source, {})
    : await WebAssembly.instantiateStreaming(source, {});
  const wasm = instance.exports;

  const call = (exported, text) => {
    const input = encoder.encode(text);
    const at = wasm.alloc(input.length);
    new Uint8Array(wasm.memory.buffer, at, input.length).set(input);
    const packed = BigInt.asUintN(64, exported(at, input.length));
    const ptr = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    // Read before freeing; memory.buffer may have been replaced by a growth during the call.
    const json = decoder.decode(new Uint8Array(wasm.memory.buffer, ptr, len));
    wasm.dealloc(ptr, len);
    return json;
  };

  return {
    run: (yaml) => call(wasm.run, yaml),
    page: (yaml) => call(wasm.page, yaml),
    settings: (yaml) => call(wasm.settings, yaml),
  };
}
