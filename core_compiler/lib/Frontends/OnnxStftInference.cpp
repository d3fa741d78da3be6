//===- OnnxStftInference.cpp - Corrected STFT-17 shape inference ----------===//
//
// ONNX 1.12's STFT shape inference (onnx/defs/math/defs.cc) has two bugs: it
// reads an absent `onesided` as 0 although the schema's default is 1, and with
// onesided it counts frames from the one-sided bin count (frame_length/2 + 1)
// instead of the frame length. In strict mode the first rejects every model
// that relies on the default (the backend tests test_stft*), the second most
// real ones (e.g. 16000 samples, frame 400, step 160: 99 frames, not 98).
// Both are fixed upstream (onnx/onnx#4920, onnx/onnx#7731). Until the
// distribution's ONNX has the fix, the registered function is replaced by the
// spec's: [batch, (length - frame_length) / frame_step + 1,
// onesided ? frame_length/2 + 1 : frame_length, 2].
//
//===----------------------------------------------------------------------===//
#include "OnnxGraphRewrites.h"

#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"
#include "onnx/defs/tensor_proto_util.h"

#include <mutex>

namespace loupe::frontends::onnx_import {
namespace {

/// The value of a one-element int32/int64 tensor; -1 for anything else.
int64_t scalarValue(const onnx::TensorProto *tensor) {
  if (!tensor)
    return -1;
  if (tensor->data_type() == onnx::TensorProto::INT64) {
    auto values = onnx::ParseData<int64_t>(tensor);
    return values.size() == 1 ? values[0] : -1;
  }
  if (tensor->data_type() == onnx::TensorProto::INT32) {
    auto values = onnx::ParseData<int32_t>(tensor);
    return values.size() == 1 ? values[0] : -1;
  }
  return -1;
}

void inferStft(onnx::InferenceContext &ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const onnx::TensorShapeProto &signal = onnx::getInputShape(ctx, 0);
  if (signal.dim_size() != 3)
    fail_shape_inference("signal must have rank 3, [batch, length, 1 or 2]");
  int64_t frameLength = -1;
  if (ctx.getNumInputs() > 3 && ctx.getInputType(3))
    frameLength = scalarValue(ctx.getInputData(3));
  else if (const auto *window = ctx.getNumInputs() > 2 ? onnx::getOptionalInputShape(ctx, 2)
                                                       : nullptr;
           window && window->dim_size() == 1 && window->dim(0).has_dim_value())
    frameLength = window->dim(0).dim_value();
  int64_t step = scalarValue(ctx.getInputData(1));
  bool onesided = onnx::getAttribute(ctx, "onesided", 1) != 0;

  onnx::TensorShapeProto result;
  *result.add_dim() = signal.dim(0);
  auto *frames = result.add_dim();
  if (frameLength > 0 && step > 0 && signal.dim(1).has_dim_value() &&
      signal.dim(1).dim_value() >= frameLength)
    frames->set_dim_value((signal.dim(1).dim_value() - frameLength) / step + 1);
  auto *bins = result.add_dim();
  if (frameLength > 0)
    bins->set_dim_value(onesided ? frameLength / 2 + 1 : frameLength);
  result.add_dim()->set_dim_value(2);
  onnx::updateOutputShape(ctx, 0, result);
}

} // namespace

void fixOnnxShapeInference() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The registry owns its schemas as non-const objects; Schema() hands them out as const.
    if (const onnx::OpSchema *stft = onnx::OpSchemaRegistry::Schema("STFT", 17, ""))
      if (stft->SinceVersion() == 17)
        const_cast<onnx::OpSchema *>(stft)->TypeAndShapeInferenceFunction(inferStft);
  });
}

} // namespace loupe::frontends::onnx_import
