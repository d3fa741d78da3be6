#!/usr/bin/python3
"""Prints NAME=D0,D1,... for --input-shape: the model's first graph input that is not an
initializer, with the shape of a test-data tensor. usage: input_binding.py MODEL INPUT.pb"""
import sys

import onnx

model = onnx.load(sys.argv[1], load_external_data=False)
initializers = {t.name for t in model.graph.initializer}
name = next(i.name for i in model.graph.input if i.name not in initializers)
tensor = onnx.load_tensor(sys.argv[2])
print(name + "=" + ",".join(str(d) for d in tensor.dims))
