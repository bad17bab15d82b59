// The worker of an explorable page (explore.js): loads the site's engine with the
// playground's loader and reruns a figure's scenario for each message, so that the page
// itself never waits on a simulation.

import { load } from "./playground.js";

// From its bytes rather than streamed, which needs the host to name the file's type
// (application/wasm), as not every host does.
const engine = fetch(new URL("retrylab.wasm", import.meta.url))
  .then((response) => {
    if (!response.ok) throw new Error(`retrylab.wasm: ${response.status}`);
    return response.arrayBuffer();
  })
  .then(load);
// A page whose engine cannot be had says so at once, and keeps its figures as built.
engine.catch((e) => self.postMessage({ failed: String(e) }));

self.onmessage = async ({ data }) => {
  const { id, seq, yaml, window, caption, knobs, asks } = data;
  let loaded;
  try {
    loaded = await engine;
  } catch (e) {
    self.postMessage({ id, seq, failed: String(e) });
    return;
  }
  self.postMessage({ id, seq, json: loaded.explore(yaml, window, caption, knobs, asks) });
};
