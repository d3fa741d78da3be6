//===- FuzzMlirParser.cpp - libFuzzer: .mlir text -> module --------------------===//
//
// Any text: the MLIR front end must return a verified module or an error naming the file.
// Upstream parser crashes are listed in tests/fuzz/README.md.
//
//===----------------------------------------------------------------------===//
#include "loupe/Frontends/MlirImporter.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context;
  context.disableMultithreading();
  std::string error;
  auto module = loupe::frontends::importMlirText(
      std::string(reinterpret_cast<const char *>(data), size), "fuzz.mlir", context, error);
  if (!module && error.empty())
    std::abort(); // A failure must say why.
  return 0;
}
