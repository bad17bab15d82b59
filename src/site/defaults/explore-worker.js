// The worker of an explorable page (explore.js): loads the site's engine with the
// playground's loader and reruns a figure's scenario for each message, so that the page
// itself never waits on a simulation.

import { load } from "./playground.js";

const engine = load(fetch(new URL("retrylab.wasm", import.meta.url)));

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
