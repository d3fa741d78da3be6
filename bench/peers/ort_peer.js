// Times an ONNX model in ONNX Runtime (npm onnxruntime-node, CPU execution provider, 2 intra-op
// threads: the machine's cores) on uniform random float32 inputs; prints one JSON line with the
// median, min and max of REPS runs in ms, after 3 warm-up runs.
// usage: node ort_peer.js MODEL REPS NAME=D0,D1,... [NAME=...]
const { openSession, randomFeeds } = require('./ort_session.js');

async function main() {
  const [model, reps, ...bindings] = process.argv.slice(2);
  const session = await openSession(model);
  const feeds = randomFeeds(bindings);
  for (let i = 0; i < 3; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(reps); i++) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ median: times[times.length >> 1], min: times[0],
                               max: times[times.length - 1] }));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
