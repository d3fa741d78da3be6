//===- FuzzTensorReader.cpp - libFuzzer: .pb and .npy tensors ------------------===//
//
// The first byte picks the reader (even: TensorProto, odd: .npy); the rest is the file.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/TensorIO.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    (void)loupe::ral::parseTensorProto(bytes, "fuzz.pb");
    return 0;
  }
  static const std::string path = "/tmp/loupe-fuzz-" + std::to_string(::getpid()) + ".npy";
  if (FILE *f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    (void)loupe::ral::readNpy(path);
  }
  return 0;
}
