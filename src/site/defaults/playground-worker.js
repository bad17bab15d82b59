// A worker of the playground page (playground-page.js): runs a share of a scenario's
// runs with the engine module the page compiled, and hands their totals back as bytes,
// so that the runs of a Run spread over the reader's cores as the native build's do.

import { load } from "./playground.js";

let engine = null;

self.onmessage = async ({ data }) => {
  if (data.module) {
    engine = load(data.module);
    // A worker that cannot run the engine says so, and the page runs without it.
    engine.catch((e) => self.postMessage({ failed: String(e) }));
    return;
  }
  const { seq, yaml, from, to } = data;
  try {
    const runs = (await engine).runJobs(yaml, from, to);
    self.postMessage({ seq, runs }, [runs.buffer]);
  } catch (e) {
    self.postMessage({ seq, failed: String(e) });
  }
};
