//===- FuzzSession.cpp - libFuzzer: session JSON -> Session --------------------===//
#include "loupe/sessions/Session.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto session = loupe::sessions::parseSession(
      std::string(reinterpret_cast<const char *>(data), size), "/fuzz/session.json");
  if (!session && session.status().message().find("session.json") == std::string::npos)
    std::abort(); // Errors name the file.
  return 0;
}
