//===- FuzzManifest.cpp - libFuzzer: an artifact's manifest JSON ---------------===//
#include "loupe/ral/Artifact.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto manifest =
      loupe::ral::parseManifest(std::string(reinterpret_cast<const char *>(data), size));
  // What a loaded artifact does with a manifest: name its tensors.
  if (manifest)
    for (const loupe::ral::TensorSpec &t : manifest->inputs)
      (void)t.typeString();
  return 0;
}
