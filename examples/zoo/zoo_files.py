"""The zoo's file layout, shared by export_zoo.py and export_real.py."""
import os
import sys

import numpy as np
from onnx import numpy_helper


def data_dir(out_dir, name):
    """OUT_DIR/<name>/test_data_set_0: the ONNX backend-test layout."""
    return os.path.join(out_dir, name, "test_data_set_0")


def present(out_dir, name):
    """True when <name>.onnx and its expected output exist (the build tree keeps them)."""
    return os.path.exists(os.path.join(out_dir, name + ".onnx")) and \
        os.path.exists(os.path.join(data_dir(out_dir, name), "output_0.pb"))


def write_test_data(out_dir, name, x, y):
    """Writes input_0.pb and output_0.pb (float32 TensorProtos) for model `name`."""
    os.makedirs(data_dir(out_dir, name), exist_ok=True)
    for role, array in (("input", x), ("output", y)):
        tensor = numpy_helper.from_array(np.asarray(array, dtype=np.float32), role)
        with open(os.path.join(data_dir(out_dir, name), role + "_0.pb"), "wb") as f:
            f.write(tensor.SerializeToString())


def parse_args(doc, models):
    """OUT_DIR [MODEL ...] from the command line: the folder and the models to export."""
    if len(sys.argv) < 2:
        sys.exit(doc)
    names = sys.argv[2:] or list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        sys.exit(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(models)}")
    os.makedirs(sys.argv[1], exist_ok=True)
    return sys.argv[1], names
