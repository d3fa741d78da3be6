//===- FuzzNsysImport.cpp - libFuzzer: an Nsight Systems SQLite export --------===//
//
// The bytes are the export file; readNsysExport must read it or refuse it, never crash.
//
//===----------------------------------------------------------------------===//
#include "loupe/profiler/NsysImport.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = "/tmp/loupe-fuzz-" + std::to_string(::getpid()) + ".sqlite";
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)loupe::profiler::readNsysExport(path);
  return 0;
}
