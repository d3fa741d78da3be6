// ONNX Runtime's own per-node times for a model (the session of ort_session.js), from its
// profiler (`enableProfiling`): prints one JSON object mapping each node ORT ran (after its
// graph optimizations: fused and layout-transformed nodes keep the names ORT gives them) to
// the median of its kernel time over REPS runs, in us.
// usage: node ort_profile.js MODEL REPS NAME=D0,D1,... [NAME=...]
const fs = require('fs');
const os = require('os');
const path = require('path');
const { openSession, randomFeeds } = require('./ort_session.js');

async function main() {
  const [model, reps, ...bindings] = process.argv.slice(2);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const session = await openSession(
      model, { enableProfiling: true, profileFilePrefix: path.join(dir, 'profile') });
  const feeds = randomFeeds(bindings);
  for (let i = 0; i < Number(reps); i++) await session.run(feeds);
  session.endProfiling();
  const file = fs.readdirSync(dir).map((f) => path.join(dir, f))[0];
  const times = {};
  for (const e of JSON.parse(fs.readFileSync(file, 'utf8'))) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const node = e.name.slice(0, -'_kernel_time'.length);
    (times[node] = times[node] || []).push(e.dur);
  }
  fs.rmSync(dir, { recursive: true });
  const medians = {};
  for (const [node, t] of Object.entries(times)) {
    t.sort((a, b) => a - b);
    medians[node] = t[t.length >> 1];
  }
  console.log(JSON.stringify(medians));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
