//===- TensorIOOnnxTest.cpp - Our TensorProto decoder vs. the ONNX library -===//
//
// Parses every input_N.pb / output_N.pb of ONNX's own backend test data (node/, simple/,
// pytorch-converted/, pytorch-operator/) with both loupe::ral::parseTensorProto and
// onnx::TensorProto (protobuf), and compares dtype, dims and every value bit for bit. Only
// this test links protobuf/ONNX; it is compiled with RTTI, which protobuf needs.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/TensorIO.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace loupe::ral;
namespace fs = std::filesystem;

namespace {

const char *kOnnxData = "/usr/share/libonnx-testdata/data";

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The value of element `i` of `p` as ONNX defines it, as raw little-endian bytes of the
/// element type (so that comparisons are bit-exact, NaNs included).
std::string onnxElementBytes(const onnx::TensorProto &p, int64_t i, size_t elemSize) {
  if (p.has_raw_data())
    return p.raw_data().substr(static_cast<size_t>(i) * elemSize, elemSize);
  std::string out(elemSize, '\0');
  auto put = [&](uint64_t v) { std::memcpy(out.data(), &v, elemSize); };
  switch (p.data_type()) {
  case onnx::TensorProto::FLOAT: {
    float f = p.float_data(static_cast<int>(i));
    std::memcpy(out.data(), &f, 4);
    break;
  }
  case onnx::TensorProto::DOUBLE: {
    double d = p.double_data(static_cast<int>(i));
    std::memcpy(out.data(), &d, 8);
    break;
  }
  case onnx::TensorProto::INT64: put(static_cast<uint64_t>(p.int64_data(static_cast<int>(i)))); break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64: put(p.uint64_data(static_cast<int>(i))); break;
  case onnx::TensorProto::BOOL: put(p.int32_data(static_cast<int>(i)) != 0); break;
  default: // INT32, INT16, INT8, UINT16, UINT8, FLOAT16, BFLOAT16
    put(static_cast<uint64_t>(static_cast<int64_t>(p.int32_data(static_cast<int>(i)))));
    break;
  }
  return out;
}

const char *onnxTypeName(int t) {
  return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t)).c_str();
}

std::optional<DType> expectedDType(int onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT: return DType::F32;
  case onnx::TensorProto::UINT8: return DType::U8;
  case onnx::TensorProto::INT8: return DType::I8;
  case onnx::TensorProto::UINT16: return DType::U16;
  case onnx::TensorProto::INT16: return DType::I16;
  case onnx::TensorProto::INT32: return DType::I32;
  case onnx::TensorProto::INT64: return DType::I64;
  case onnx::TensorProto::BOOL: return DType::I1;
  case onnx::TensorProto::FLOAT16: return DType::F16;
  case onnx::TensorProto::DOUBLE: return DType::F64;
  case onnx::TensorProto::UINT32: return DType::U32;
  case onnx::TensorProto::UINT64: return DType::U64;
  case onnx::TensorProto::BFLOAT16: return DType::BF16;
  default: return std::nullopt;
  }
}

/// `p` re-encoded by protobuf with the typed *_data field of its data type instead of raw_data
/// (values taken from `t`, which was checked equal to `p`), so that the real test tensors
/// exercise the typed-field decoding too.
onnx::TensorProto toTypedFields(const onnx::TensorProto &p, const Tensor &t) {
  onnx::TensorProto q = p;
  q.clear_raw_data();
  const uint8_t *d = t.dataAs<uint8_t>();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const uint8_t *e = d + i * dtypeSize(t.dtype());
    auto get = [&](auto v) {
      std::memcpy(&v, e, sizeof v);
      return v;
    };
    switch (t.dtype()) {
    case DType::F32: q.add_float_data(get(float())); break;
    case DType::F64: q.add_double_data(get(double())); break;
    case DType::I64: q.add_int64_data(get(int64_t())); break;
    case DType::U32: q.add_uint64_data(get(uint32_t())); break;
    case DType::U64: q.add_uint64_data(get(uint64_t())); break;
    case DType::I32: q.add_int32_data(get(int32_t())); break;
    case DType::I16: q.add_int32_data(get(int16_t())); break;
    case DType::I8: q.add_int32_data(get(int8_t())); break;
    case DType::I1:
    case DType::U8: q.add_int32_data(get(uint8_t())); break;
    case DType::U16:
    case DType::F16:
    case DType::BF16: q.add_int32_data(get(uint16_t())); break;
    }
  }
  return q;
}

struct TestFile {
  fs::path path;
  bool isTensor; // per the model's graph input/output type (sequence/optional/map otherwise)
};

/// Every input_N.pb/output_N.pb under `root`, classified by the model's declared types.
std::vector<TestFile> collectTestFiles(const fs::path &root) {
  std::vector<TestFile> files;
  for (const fs::directory_entry &testDir : fs::directory_iterator(root)) {
    fs::path modelPath = testDir.path() / "model.onnx";
    if (!fs::exists(modelPath))
      continue;
    onnx::ModelProto model;
    std::string modelBytes = readFile(modelPath);
    if (!model.ParseFromString(modelBytes))
      continue;
    const onnx::GraphProto &g = model.graph();
    std::set<std::string> initializers;
    for (const onnx::TensorProto &t : g.initializer())
      initializers.insert(t.name());
    std::vector<const onnx::ValueInfoProto *> inputs, outputs;
    for (const onnx::ValueInfoProto &v : g.input())
      if (!initializers.count(v.name()))
        inputs.push_back(&v);
    for (const onnx::ValueInfoProto &v : g.output())
      outputs.push_back(&v);
    for (const fs::directory_entry &set : fs::directory_iterator(testDir.path())) {
      if (!set.is_directory())
        continue;
      for (const auto &[prefix, infos] : {std::make_pair("input", &inputs), std::make_pair("output", &outputs)}) {
        for (size_t i = 0;; ++i) {
          fs::path pb = set.path() / (std::string(prefix) + "_" + std::to_string(i) + ".pb");
          if (!fs::exists(pb))
            break;
          bool tensor = i < infos->size() && (*infos)[i]->type().has_tensor_type();
          files.push_back({pb, tensor});
        }
      }
    }
  }
  std::sort(files.begin(), files.end(),
            [](const TestFile &a, const TestFile &b) { return a.path < b.path; });
  return files;
}

class OnnxCrossCheck : public ::testing::TestWithParam<const char *> {};

TEST_P(OnnxCrossCheck, MatchesOnnxLibrary) {
  fs::path root = fs::path(kOnnxData) / GetParam();
  if (!fs::exists(root))
    GTEST_SKIP() << root << " not installed (libonnx-testdata)";
  std::vector<TestFile> files = collectTestFiles(root);
  ASSERT_FALSE(files.empty());

  std::map<std::string, int> perType; // compared files per ONNX data type
  int compared = 0, typedFields = 0, reencoded = 0, rejected = 0;
  for (const TestFile &f : files) {
    if (!f.isTensor)
      continue; // sequence/optional/map values: not a TensorProto
    std::string bytes = readFile(f.path);
    onnx::TensorProto ref;
    ASSERT_TRUE(ref.ParseFromString(bytes)) << f.path;
    StatusOr<Tensor> ours = parseTensorProto(bytes, f.path.string());
    std::optional<DType> want = expectedDType(ref.data_type());
    if (!want) {
      // STRING (and anything else Tensor.h cannot hold) must be a clean error.
      EXPECT_FALSE(ours.isOk()) << f.path;
      if (!ours.isOk())
        EXPECT_NE(ours.status().message().find(f.path.string()), std::string::npos);
      ++rejected;
      continue;
    }
    ASSERT_TRUE(ours.isOk()) << f.path << ": " << ours.status().message();
    const Tensor &t = *ours;
    ASSERT_EQ(t.dtype(), *want) << f.path;
    std::vector<int64_t> dims(ref.dims().begin(), ref.dims().end());
    ASSERT_EQ(t.shape(), dims) << f.path;
    size_t elem = dtypeSize(t.dtype());
    const char *data = static_cast<const char *>(t.data());
    for (int64_t i = 0; i < t.numElements(); ++i) {
      std::string expect = onnxElementBytes(ref, i, elem);
      if (t.dtype() == DType::I1)
        expect[0] = expect[0] ? 1 : 0;
      ASSERT_EQ(std::string(data + i * elem, elem), expect)
          << f.path << " element " << i << " of " << t.typeString();
    }
    if (ref.has_raw_data()) {
      StatusOr<Tensor> typed =
          parseTensorProto(toTypedFields(ref, t).SerializeAsString(), f.path.string() + "#typed");
      ASSERT_TRUE(typed.isOk()) << typed.status().message();
      ASSERT_EQ(typed->typeString(), t.typeString());
      ASSERT_EQ(std::memcmp(typed->data(), t.data(), t.byteSize()), 0)
          << f.path << " re-encoded with typed fields";
      ++reencoded;
    }
    ++compared;
    typedFields += !ref.has_raw_data();
    ++perType[onnxTypeName(ref.data_type())];
  }
  std::string summary;
  for (const auto &[name, n] : perType)
    summary += name + "=" + std::to_string(n) + " ";
  std::cout << "[ cross-check ] " << GetParam() << ": " << compared << " tensors compared ("
            << typedFields << " with typed *_data fields, " << reencoded
            << " also re-encoded with typed fields), " << rejected
            << " unsupported rejected; " << summary << "\n";
  EXPECT_GT(compared, 0);
  if (std::string(GetParam()) == "node") {
    // The node tests cover every dtype that the brief requires the reader to handle.
    for (const char *name : {"FLOAT", "DOUBLE", "FLOAT16", "BOOL", "INT8", "INT16", "INT32",
                             "INT64", "UINT8", "UINT16", "UINT32", "UINT64"})
      EXPECT_GT(perType[name], 0) << "no " << name << " tensor in the node test data";
    EXPECT_GT(compared, 1000);
  }
}

INSTANTIATE_TEST_SUITE_P(OnnxTestData, OnnxCrossCheck,
                         ::testing::Values("node", "simple", "pytorch-converted",
                                           "pytorch-operator"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(OnnxCrossCheck, OurSerializationParsesWithOnnx) {
  // The other direction: what serializeTensorProto writes, protobuf reads identically.
  Tensor t(DType::I64, {2, 3});
  for (int i = 0; i < 6; ++i)
    t.dataAs<int64_t>()[i] = (i - 3) * 1000000007LL;
  onnx::TensorProto p;
  ASSERT_TRUE(p.ParseFromString(serializeTensorProto(t, "ours")));
  EXPECT_EQ(p.name(), "ours");
  EXPECT_EQ(p.data_type(), onnx::TensorProto::INT64);
  ASSERT_EQ(p.dims_size(), 2);
  EXPECT_EQ(p.dims(0), 2);
  EXPECT_EQ(p.dims(1), 3);
  EXPECT_EQ(p.raw_data(), std::string(static_cast<const char *>(t.data()), t.byteSize()));
  EXPECT_EQ(p.SerializeAsString(), serializeTensorProto(t, "ours"));
}

TEST(OnnxCrossCheck, TypedFieldsWrittenByProtobuf) {
  // Protobuf's own encodings of the typed fields (packed float_data, int32_data with negative
  // values, int64_data, double_data, uint64_data), for every type that uses them.
  struct Case {
    onnx::TensorProto::DataType type;
    std::vector<double> values;
  };
  const Case cases[] = {
      {onnx::TensorProto::FLOAT, {1.5, -2, 1e30}},
      {onnx::TensorProto::DOUBLE, {0.1, -1e300, 3}},
      {onnx::TensorProto::INT8, {-128, 0, 127}},
      {onnx::TensorProto::INT16, {-32768, 1, 32767}},
      {onnx::TensorProto::INT32, {-2147483648.0, 5, 2147483647}},
      {onnx::TensorProto::INT64, {-1099511627776.0, 0, 1}},
      {onnx::TensorProto::UINT8, {0, 128, 255}},
      {onnx::TensorProto::UINT16, {0, 1, 65535}},
      {onnx::TensorProto::UINT32, {0, 1, 4294967295.0}},
      {onnx::TensorProto::UINT64, {0, 1, 18446744073709549568.0}},
      {onnx::TensorProto::BOOL, {1, 0, 1}},
      {onnx::TensorProto::FLOAT16, {1, -2, 0.5}},
      {onnx::TensorProto::BFLOAT16, {1, -3, 0.5}},
  };
  for (const Case &c : cases) {
    onnx::TensorProto p;
    p.set_data_type(c.type);
    p.add_dims(3);
    p.set_name("typed");
    for (double v : c.values) {
      switch (c.type) {
      case onnx::TensorProto::FLOAT: p.add_float_data(static_cast<float>(v)); break;
      case onnx::TensorProto::DOUBLE: p.add_double_data(v); break;
      case onnx::TensorProto::INT64: p.add_int64_data(static_cast<int64_t>(v)); break;
      case onnx::TensorProto::UINT32:
      case onnx::TensorProto::UINT64: p.add_uint64_data(static_cast<uint64_t>(v)); break;
      case onnx::TensorProto::FLOAT16: p.add_int32_data(floatToHalf(static_cast<float>(v))); break;
      case onnx::TensorProto::BFLOAT16:
        p.add_int32_data(floatToBFloat16(static_cast<float>(v)));
        break;
      default: p.add_int32_data(static_cast<int32_t>(v)); break;
      }
    }
    StatusOr<Tensor> t = parseTensorProto(p.SerializeAsString(), "typed.pb");
    ASSERT_TRUE(t.isOk()) << onnxTypeName(c.type) << ": " << t.status().message();
    EXPECT_EQ(t->dtype(), *expectedDType(c.type));
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(t->elementAsDouble(i), c.type == onnx::TensorProto::FLOAT
                                           ? static_cast<double>(static_cast<float>(c.values[i]))
                                           : c.values[i])
          << onnxTypeName(c.type) << " element " << i;
  }
}

} // namespace
