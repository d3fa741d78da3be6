//===- TestData.h - Fixture files of the text-engine tests -----------*- C++ -*-===//
#ifndef LOUPE_TESTS_VISUALIZER_TEXT_TESTDATA_H
#define LOUPE_TESTS_VISUALIZER_TEXT_TESTDATA_H

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace loupe::visualizer::text::testing {

/// Contents of tests/unit/visualizer_text/data/<name>. The .mlir fixtures are real output of
/// `loupe compile examples/models/cnn.onnx --dump-dir` with dense payloads shortened.
inline std::string readTestData(const std::string &name) {
  std::string path = std::string(LOUPE_TEXT_TEST_DATA) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace loupe::visualizer::text::testing

#endif // LOUPE_TESTS_VISUALIZER_TEXT_TESTDATA_H
