#!/usr/bin/python3
"""Exports the model zoo: real architectures with random weights, as ONNX plus test data.

Usage: /usr/bin/python3 examples/zoo/export_zoo.py OUT_DIR [MODEL ...]

Uses Debian's python3-torch (1.13) and python3-torchvision (0.14). Weights are random (fixed
seed per model): torchvision's pretrained weights need the network. For each model it writes
OUT_DIR/<name>.onnx and OUT_DIR/<name>/test_data_set_0/{input_0.pb,output_0.pb} (the ONNX
backend-test layout), the expected output computed by torch in float32. A model whose files
exist is skipped, so a build tree keeps them between runs (the ctest fixture calls this).
"""
import os

import onnx
import torch
import torchvision

import zoo_files

OPSET = 17  # the newest opset Debian's libonnx 1.12 knows


class BertEncoder(torch.nn.Module):
    """A BERT-style encoder: 6 post-LN layers, d=512, 8 heads, FFN 2048, GELU."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model=512, nhead=8, dim_feedforward=2048, dropout=0.0,
            activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=6,
                                                   enable_nested_tensor=False)
        # The layers are deep copies of one: give each its own weights.
        for p in self.parameters():
            if p.dim() > 1:
                torch.nn.init.xavier_uniform_(p)

    def forward(self, x):
        return self.encoder(x)


class SpeechLstm(torch.nn.Module):
    """An acoustic-model-style recurrent net: 2 stacked LSTM layers (80 log-mel features in,
    hidden 256) over 50 frames, then per-frame logits over 32 symbols."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(80, 256, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(256, 32)

    def forward(self, x):
        return self.head(self.lstm(x)[0])


def fake_quant(x, scale, zero_point):
    """uint8 QuantizeLinear then DequantizeLinear, as the ONNX export writes it."""
    return torch.fake_quantize_per_tensor_affine(x, scale, zero_point, 0, 255)


class QdqCnn(torch.nn.Module):
    """An int8 QDQ CNN as quantization tools export one: uint8 activations per tensor and int8
    weights per output channel (symmetric), each Conv and the classifier between
    QuantizeLinear/DequantizeLinear pairs; the expected output is torch's fake-quantized
    float computation."""

    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList([
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1),
            torch.nn.Conv2d(32, 64, 3, stride=2, padding=1)])
        self.fc = torch.nn.Linear(64, 10)

    @staticmethod
    def weight_qdq(w):
        with torch.no_grad():
            scales = w.abs().amax(dim=tuple(range(1, w.dim()))).clamp(min=1e-8) / 127
        zero_points = torch.zeros(w.shape[0], dtype=torch.int32)
        return torch.fake_quantize_per_channel_affine(w, scales, zero_points, 0, -128, 127)

    def forward(self, x):
        x = fake_quant(x, 2 / 255, 128)
        for conv in self.convs:
            x = torch.relu(torch.nn.functional.conv2d(x, self.weight_qdq(conv.weight),
                                                      conv.bias, conv.stride, conv.padding))
            x = fake_quant(x, 0.05, 0)
        x = x.mean(dim=(2, 3))
        return torch.nn.functional.linear(x, self.weight_qdq(self.fc.weight), self.fc.bias)


def vision(name):
    return lambda: (getattr(torchvision.models, name)(weights=None),
                    (1, 3, 224, 224), None)


# name -> () -> (module, input shape, dynamic axes of input and output or None)
MODELS = {
    "resnet50": vision("resnet50"),
    "mobilenet_v3_large": vision("mobilenet_v3_large"),
    "mobilenet_v3_small": vision("mobilenet_v3_small"),  # the GPU bundle's CNN (bench/gpu)
    "efficientnet_b0": vision("efficientnet_b0"),
    "convnext_tiny": vision("convnext_tiny"),
    "vit_b_16": vision("vit_b_16"),
    "bert_encoder": lambda: (BertEncoder(), (2, 16, 512),
                             {"input": {0: "batch", 1: "sequence"},
                              "output": {0: "batch", 1: "sequence"}}),
    "lstm_speech": lambda: (SpeechLstm(), (1, 50, 80), None),
    "qdq_cnn": lambda: (QdqCnn(), (1, 3, 64, 64), None),
}


def export(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    if zoo_files.present(out_dir, name):
        print(f"{name}: present")
        return
    torch.manual_seed(0)
    model, shape, dynamic = MODELS[name]()
    model.eval()
    x = torch.rand(shape, generator=torch.Generator().manual_seed(1)) * 2 - 1
    with torch.no_grad():
        y = model(x)
    # Exported with gradients on: under no_grad, attention takes torch's fused fast path
    # (aten::_native_multi_head_attention), which has no ONNX export.
    tmp = path + ".tmp"
    torch.onnx.export(model, (x,), tmp, opset_version=OPSET,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes=dynamic, do_constant_folding=True)
    onnx.checker.check_model(tmp)
    zoo_files.write_test_data(out_dir, name, x.numpy(), y.numpy())
    os.replace(tmp, path)
    print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB")


def main():
    out_dir, names = zoo_files.parse_args(__doc__, MODELS)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in names:
        export(name, out_dir)


if __name__ == "__main__":
    main()
