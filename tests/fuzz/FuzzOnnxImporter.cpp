//===- FuzzOnnxImporter.cpp - libFuzzer: ONNX bytes -> TOSA module -------------===//
//
// Any bytes: the importer (parse, checker, shape inference, shape folding, converters) must
// return a verified module or an error, never crash.
//
//===----------------------------------------------------------------------===//
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context;
  context.disableMultithreading();
  loupe::frontends::registerOnnxImporterDialects(context);
  std::string error;
  auto module = loupe::frontends::importOnnxBytes(
      std::string(reinterpret_cast<const char *>(data), size), "fuzz.onnx", context, error);
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort(); // The importer returned an invalid module.
  if (!module && error.empty())
    std::abort(); // A failure must say why.
  return 0;
}
