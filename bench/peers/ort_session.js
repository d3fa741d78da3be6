// What ort_peer.js and ort_profile.js share: an ONNX Runtime session (npm onnxruntime-node,
// CPU execution provider, 2 intra-op threads: the machine's cores) and uniform random float32
// inputs for NAME=D0,D1,... bindings.
const ort = require('onnxruntime-node');

function openSession(model, options = {}) {
  return ort.InferenceSession.create(
      model, { executionProviders: ['cpu'], intraOpNumThreads: 2, interOpNumThreads: 1, ...options });
}

function randomFeeds(bindings) {
  const feeds = {};
  for (const binding of bindings) {
    const [name, dims] = binding.split('=');
    const shape = dims.split(',').map(Number);
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1)).map(() => Math.random());
    feeds[name] = new ort.Tensor('float32', data, shape);
  }
  return feeds;
}

module.exports = { openSession, randomFeeds };
