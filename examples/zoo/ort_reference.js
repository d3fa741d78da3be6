// Runs an ONNX model with ONNX Runtime (the npm package onnxruntime-node, CPU execution
// provider) on one float32 input and writes its first output, for the zoo's real models.
// usage: node ort_reference.js MODEL INPUT_NAME D0,D1,... INPUT.bin OUTPUT.bin OUTPUT.json
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, name, dims, input, output, meta] = process.argv.slice(2);
  const shape = dims.split(',').map(Number);
  const bytes = fs.readFileSync(input);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'] });
  const result = await session.run({ [name]: new ort.Tensor('float32', data, shape) });
  const first = result[session.outputNames[0]];
  fs.writeFileSync(output, Buffer.from(first.data.buffer, first.data.byteOffset,
                                       first.data.byteLength));
  fs.writeFileSync(meta, JSON.stringify({ name: session.outputNames[0], dims: first.dims,
                                          type: first.type }));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
