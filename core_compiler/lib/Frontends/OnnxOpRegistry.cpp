//===- OnnxOpRegistry.cpp - The ONNX ops Loupe converts, and those out of scope -----===//
//
// One place for which ONNX op becomes what: the converter of each op of the default domain
// (OnnxOps*.cpp) and, for the ops Loupe does not convert on purpose, why. The importer asks
// it for converters and for the reason in its error; docs/onnx-coverage.md is generated from
// it (tests/unit/frontends/OnnxCoverageTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "OnnxOps.h"
#include "loupe/Frontends/OnnxImporter.h"

namespace loupe::frontends {
namespace onnx_import {

const ConverterMap &converters() {
  static const ConverterMap map = [] {
    ConverterMap m;
    registerElementwiseOps(m);
    registerMathOps(m);
    registerNNOps(m);
    registerNormalizationOps(m);
    registerTensorOps(m);
    registerIndexingOps(m);
    registerRecurrentOps(m);
    registerEinsumOps(m);
    registerScatterOps(m);
    registerSamplingOps(m);
    registerSignalOps(m);
    registerQuantizationOps(m);
    registerControlFlowOps(m);
    registerTrainingOps(m);
    registerUniqueOps(m);
    registerDetectionOps(m);
    registerSequenceOps(m); // after registerTensorOps: extends its Identity
    return m;
  }();
  return map;
}

} // namespace onnx_import

namespace {
struct Gap {
  const char *why;
  bool inScope; ///< False: out of scope on purpose (issue #14); true: still to do.
};
constexpr Gap kStrings{"strings: no string tensors in compiled code", false};
constexpr Gap kOptionals{"optionals: no optional values in compiled code", false};
constexpr Gap kRandom{"random numbers: results cannot be checked against a reference", false};
constexpr Gap kGradient{"automatic differentiation is a training feature", false};

/// The ops Loupe does not convert, and why (other domains as "domain.OpType").
const llvm::StringMap<Gap> &gaps() {
  static const llvm::StringMap<Gap> table = {
      {"StringNormalizer", kStrings}, {"TfIdfVectorizer", kStrings},
      {"Optional", kOptionals},
      {"OptionalGetElement", kOptionals}, {"OptionalHasElement", kOptionals},
      {"Bernoulli", kRandom}, {"Multinomial", kRandom}, {"RandomNormal", kRandom},
      {"RandomNormalLike", kRandom}, {"RandomUniform", kRandom},
      {"RandomUniformLike", kRandom},
      {"ai.onnx.preview.training.Gradient", kGradient},
  };
  return table;
}
} // namespace

OnnxOpSupport onnxOpSupport(const std::string &opType) {
  OnnxOpSupport support;
  support.converted = onnx_import::converters().count(opType) > 0;
  if (!support.converted)
    if (auto it = gaps().find(opType); it != gaps().end()) {
      support.why = it->second.why;
      support.outOfScope = !it->second.inScope;
    }
  return support;
}

} // namespace loupe::frontends
