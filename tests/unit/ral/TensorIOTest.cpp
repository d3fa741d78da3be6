//===- TensorIOTest.cpp - TensorProto .pb and .npy readers/writers ---------===//
//
// Round trips, hand-built protobuf encodings of every field form, the ONNX test data shipped
// by Debian's libonnx-testdata, truncated and garbage input. The cross-check against the ONNX
// library itself is TensorIOOnnxTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/TensorIO.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

using namespace loupe::ral;
namespace fs = std::filesystem;

namespace {

const char *kOnnxData = "/usr/share/libonnx-testdata/data";

const DType kAllDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                            DType::I8,  DType::I16, DType::I32, DType::I64,  DType::U8,
                            DType::U16, DType::U32, DType::U64};

/// A fresh temporary folder, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("loupe_tensorio_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string &name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

private:
  fs::path path_;
};

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Fills `t` with distinct, exactly representable values.
void fillPattern(Tensor &t) {
  uint8_t *p = t.dataAs<uint8_t>();
  size_t sz = dtypeSize(t.dtype());
  for (int64_t i = 0; i < t.numElements(); ++i) {
    uint8_t *e = p + i * sz;
    double v = (i % 2 ? -1.0 : 1.0) * static_cast<double>(i % 50) * 0.5;
    switch (t.dtype()) {
    case DType::F32: { float f = static_cast<float>(v); std::memcpy(e, &f, 4); break; }
    case DType::F64: std::memcpy(e, &v, 8); break;
    case DType::F16: { uint16_t h = floatToHalf(static_cast<float>(v)); std::memcpy(e, &h, 2); break; }
    case DType::BF16: { uint16_t h = floatToBFloat16(static_cast<float>(v)); std::memcpy(e, &h, 2); break; }
    case DType::I1: *e = i % 3 == 0; break;
    default: {
      uint64_t x = static_cast<uint64_t>(i * 2654435761u) ^ 0xa5a5a5a5a5a5a5a5ull;
      std::memcpy(e, &x, sz); // any bit pattern is a valid integer
    }
    }
  }
}

void expectSameTensor(const Tensor &a, const Tensor &b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.byteSize(), b.byteSize());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0) << a.typeString();
}

//===----------------------------------------------------------------------===//
// A tiny protobuf writer, to build every encoding the reader must accept or reject.
//===----------------------------------------------------------------------===//

struct Proto {
  std::string bytes;
  Proto &varint(uint64_t v) {
    while (v >= 0x80) {
      bytes += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes += static_cast<char>(v);
    return *this;
  }
  Proto &key(uint32_t field, uint32_t wire) { return varint((uint64_t(field) << 3) | wire); }
  Proto &v(uint32_t field, uint64_t value) { return key(field, 0).varint(value); }
  Proto &fixed32(uint32_t field, uint32_t value) {
    key(field, 5);
    bytes.append(reinterpret_cast<const char *>(&value), 4);
    return *this;
  }
  Proto &fixed64(uint32_t field, uint64_t value) {
    key(field, 1);
    bytes.append(reinterpret_cast<const char *>(&value), 8);
    return *this;
  }
  Proto &len(uint32_t field, const std::string &payload) {
    key(field, 2).varint(payload.size());
    bytes += payload;
    return *this;
  }
  Proto &packedVarints(uint32_t field, const std::vector<uint64_t> &vals) {
    Proto inner;
    for (uint64_t x : vals)
      inner.varint(x);
    return len(field, inner.bytes);
  }
  template <typename T> Proto &packedFixed(uint32_t field, const std::vector<T> &vals) {
    return len(field, std::string(reinterpret_cast<const char *>(vals.data()),
                                  vals.size() * sizeof(T)));
  }
  Proto &dims(const std::vector<int64_t> &ds) {
    for (int64_t d : ds)
      v(1, static_cast<uint64_t>(d));
    return *this;
  }
};

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

StatusOr<Tensor> parse(const Proto &p) { return parseTensorProto(p.bytes, "t.pb"); }

::testing::AssertionResult failsWith(const StatusOr<Tensor> &r, const std::string &needle) {
  if (r.isOk())
    return ::testing::AssertionFailure() << "parsed OK, expected an error with '" << needle << "'";
  if (r.status().message().find(needle) == std::string::npos)
    return ::testing::AssertionFailure()
           << "error '" << r.status().message() << "' lacks '" << needle << "'";
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// TensorProto: round trips and field forms
//===----------------------------------------------------------------------===//

TEST(TensorProtoTest, RoundTripAllDTypes) {
  TempDir tmp;
  for (DType d : kAllDTypes) {
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{}, {1}, {2, 3}, {1, 3, 4, 5}, {0, 7}}) {
      Tensor t(d, shape);
      fillPattern(t);
      StatusOr<Tensor> back = parseTensorProto(serializeTensorProto(t, "x"), "mem");
      ASSERT_TRUE(back.isOk()) << back.status().message();
      expectSameTensor(t, *back);

      std::string path = tmp.file("t.pb");
      ASSERT_TRUE(writeTensorProto(path, t, "named").isOk());
      StatusOr<Tensor> fromFile = readTensorProto(path);
      ASSERT_TRUE(fromFile.isOk()) << fromFile.status().message();
      expectSameTensor(t, *fromFile);
    }
  }
}

TEST(TensorProtoTest, SerializedLayoutMatchesProtobuf) {
  // What onnx.numpy_helper.from_array(np.array([[1, 2]], np.float32), "a") serializes to.
  Tensor t(DType::F32, {1, 2});
  t.dataAs<float>()[0] = 1.0f;
  t.dataAs<float>()[1] = 2.0f;
  std::string want("\x08\x01\x08\x02\x10\x01\x42\x01"
                   "a"
                   "\x4a\x08\x00\x00\x80\x3f\x00\x00\x00\x40",
                   19);
  EXPECT_EQ(serializeTensorProto(t, "a"), want);
}

TEST(TensorProtoTest, PackedAndUnpackedDims) {
  std::vector<float> vals = {1, 2, 3, 4, 5, 6};
  Proto unpacked;
  unpacked.dims({2, 3}).v(2, 1).packedFixed(4, vals);
  Proto packed;
  packed.packedVarints(1, {2, 3}).v(2, 1).packedFixed(4, vals);
  Proto mixed; // proto parsers must accept both forms, even interleaved
  mixed.v(1, 2).packedVarints(1, {3}).v(2, 1).packedFixed(4, vals);
  for (const Proto *p : {&unpacked, &packed, &mixed}) {
    StatusOr<Tensor> t = parse(*p);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), "f32[2x3]");
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(t->elementAsDouble(i), i + 1);
  }
}

TEST(TensorProtoTest, FloatDataUnpackedAndSplitPacked) {
  Proto p;
  p.dims({4}).v(2, 1);
  p.fixed32(4, bitsOf(1.5f));
  p.packedFixed<float>(4, {-2.0f, 3.25f});
  p.fixed32(4, bitsOf(-0.0f));
  StatusOr<Tensor> t = parse(p);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(t->elementAsDouble(0), 1.5);
  EXPECT_EQ(t->elementAsDouble(1), -2.0);
  EXPECT_EQ(t->elementAsDouble(2), 3.25);
  EXPECT_TRUE(std::signbit(t->elementAsDouble(3)));
}

TEST(TensorProtoTest, Int32DataCarriesSmallTypes) {
  // int32 values are varints sign-extended to 64 bits (10 bytes for negatives).
  auto negative = [](int32_t x) { return static_cast<uint64_t>(static_cast<int64_t>(x)); };
  {
    Proto p;
    p.dims({3}).v(2, 6).packedVarints(5, {negative(-7), 0, 2147483647});
    StatusOr<Tensor> t = parse(p);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), "i32[3]");
    EXPECT_EQ(t->elementAsDouble(0), -7);
    EXPECT_EQ(t->elementAsDouble(2), 2147483647);
  }
  {
    Proto p; // INT8, unpacked
    p.dims({2}).v(2, 3).v(5, negative(-128)).v(5, 127);
    StatusOr<Tensor> t = parse(p);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), "i8[2]");
    EXPECT_EQ(t->elementAsDouble(0), -128);
    EXPECT_EQ(t->elementAsDouble(1), 127);
  }
  {
    Proto p; // INT16, UINT8, UINT16
    p.dims({1}).v(2, 5).v(5, negative(-300));
    EXPECT_EQ(parse(p)->elementAsDouble(0), -300);
    Proto q;
    q.dims({1}).v(2, 2).v(5, 200);
    EXPECT_EQ(parse(q)->elementAsDouble(0), 200);
    Proto r;
    r.dims({1}).v(2, 4).v(5, 65000);
    EXPECT_EQ(parse(r)->elementAsDouble(0), 65000);
  }
  {
    Proto p; // BOOL: any non-zero is true, stored as 1
    p.dims({3}).v(2, 9).packedVarints(5, {0, 1, 5});
    StatusOr<Tensor> t = parse(p);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), "i1[3]");
    EXPECT_EQ(t->dataAs<uint8_t>()[0], 0);
    EXPECT_EQ(t->dataAs<uint8_t>()[1], 1);
    EXPECT_EQ(t->dataAs<uint8_t>()[2], 1);
  }
  {
    Proto p; // FLOAT16 and BFLOAT16: the bit pattern in the low 16 bits
    p.dims({2}).v(2, 10).packedVarints(5, {0x3c00, 0xc000});
    StatusOr<Tensor> t = parse(p);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), "f16[2]");
    EXPECT_EQ(t->elementAsDouble(0), 1.0);
    EXPECT_EQ(t->elementAsDouble(1), -2.0);
    Proto q;
    q.dims({1}).v(2, 16).v(5, 0x3fc0);
    EXPECT_EQ(parse(q)->typeString(), "bf16[1]");
    EXPECT_EQ(parse(q)->elementAsDouble(0), 1.5);
  }
}

TEST(TensorProtoTest, Int64DoubleUint64Data) {
  Proto i64;
  i64.dims({2}).v(2, 7).v(7, static_cast<uint64_t>(int64_t(-5))).v(7, uint64_t(1) << 40);
  StatusOr<Tensor> a = parse(i64);
  ASSERT_TRUE(a.isOk()) << a.status().message();
  EXPECT_EQ(a->dataAs<int64_t>()[0], -5);
  EXPECT_EQ(a->dataAs<int64_t>()[1], int64_t(1) << 40);

  Proto f64;
  f64.dims({3}).v(2, 11).packedFixed<double>(10, {0.1, -1e300});
  double third = 2.5;
  uint64_t bits;
  std::memcpy(&bits, &third, 8);
  f64.fixed64(10, bits);
  StatusOr<Tensor> b = parse(f64);
  ASSERT_TRUE(b.isOk()) << b.status().message();
  EXPECT_EQ(b->typeString(), "f64[3]");
  EXPECT_EQ(b->elementAsDouble(0), 0.1);
  EXPECT_EQ(b->elementAsDouble(1), -1e300);
  EXPECT_EQ(b->elementAsDouble(2), 2.5);

  Proto u32;
  u32.dims({2}).v(2, 12).packedVarints(11, {4000000000u, 7});
  StatusOr<Tensor> c = parse(u32);
  ASSERT_TRUE(c.isOk()) << c.status().message();
  EXPECT_EQ(c->typeString(), "ui32[2]");
  EXPECT_EQ(c->dataAs<uint32_t>()[0], 4000000000u);

  Proto u64;
  u64.dims({1}).v(2, 13).v(11, ~uint64_t(0));
  StatusOr<Tensor> d = parse(u64);
  ASSERT_TRUE(d.isOk()) << d.status().message();
  EXPECT_EQ(d->dataAs<uint64_t>()[0], ~uint64_t(0));
}

TEST(TensorProtoTest, ScalarAndEmpty) {
  Proto scalar; // no dims: a scalar with one element
  scalar.v(2, 1).fixed32(4, bitsOf(4.0f));
  StatusOr<Tensor> s = parse(scalar);
  ASSERT_TRUE(s.isOk()) << s.status().message();
  EXPECT_EQ(s->typeString(), "f32[]");
  EXPECT_EQ(s->elementAsDouble(0), 4.0);

  Proto empty; // zero elements, no data at all
  empty.dims({3, 0}).v(2, 7);
  StatusOr<Tensor> e = parse(empty);
  ASSERT_TRUE(e.isOk()) << e.status().message();
  EXPECT_EQ(e->typeString(), "i64[3x0]");
  EXPECT_EQ(e->numElements(), 0);
}

TEST(TensorProtoTest, SkipsUnknownFieldsOfEveryWireType) {
  Proto p;
  p.len(8, "the_name");                        // name
  p.len(12, "doc string");                     // doc_string
  p.len(3, Proto().v(1, 0).v(2, 4).bytes);     // segment submessage
  p.v(14, 0);                                  // data_location DEFAULT
  p.v(100, 12345);                             // unknown varint
  p.fixed64(101, 0x1122334455667788ull);       // unknown fixed64
  p.fixed32(102, 0xdeadbeef);                  // unknown fixed32
  p.len(103, std::string("\x00\xff\x08", 3));  // unknown bytes
  p.key(104, 3).v(1, 9).fixed32(2, 1).key(5, 3).key(5, 4).key(104, 4); // nested groups
  p.dims({2}).v(2, 1).packedFixed<float>(4, {7.0f, 8.0f});
  p.v(536870911, 1);                           // the largest field number
  StatusOr<Tensor> t = parse(p);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(t->typeString(), "f32[2]");
  EXPECT_EQ(t->elementAsDouble(1), 8.0);
}

TEST(TensorProtoTest, LastRawDataAndDataTypeWin) {
  Proto p;
  p.dims({1}).v(2, 6).v(2, 1);
  p.len(9, std::string("\x01\x02\x03\x04\x05\x06", 6));
  p.len(9, std::string("\x00\x00\x20\x41", 4)); // 10.0f
  StatusOr<Tensor> t = parse(p);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(t->typeString(), "f32[1]");
  EXPECT_EQ(t->elementAsDouble(0), 10.0);
}

TEST(TensorProtoTest, Errors) {
  EXPECT_TRUE(failsWith(parse(Proto().dims({2}).len(6, "a").len(6, "b")), "string"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 8)), "STRING"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 1).len(13, Proto().len(1, "k").bytes)),
                        "external data"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 1).v(14, 1)), "external data"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).fixed32(4, 0)), "unsupported data_type 0"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 14)), "unsupported data_type 14"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 99)), "unsupported data_type 99"));
  // Element count against dims.
  EXPECT_TRUE(failsWith(parse(Proto().dims({2, 3}).v(2, 1).packedFixed<float>(4, {1, 2})),
                        "float_data has 2 values, f32[2x3] needs 6"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({2}).v(2, 7).len(9, std::string(12, '\0'))),
                        "raw_data has 12 bytes, i64[2] needs 2 elements of 8 bytes"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({4}).v(2, 1)), "float_data has 0 values"));
  EXPECT_TRUE(failsWith(parse(Proto().v(1, static_cast<uint64_t>(int64_t(-1))).v(2, 1)),
                        "negative dimension -1"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({int64_t(1) << 40, int64_t(1) << 40}).v(2, 1)),
                        "overflow"));
  // Huge but representable dims never allocate before the size check.
  EXPECT_TRUE(failsWith(parse(Proto().dims({int64_t(1) << 40}).v(2, 1).len(9, "abcd")),
                        "raw_data has 4 bytes"));
  // Data in the wrong field, or both raw and typed.
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 1).v(7, 1)), "expects its values in float_data"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 1).fixed32(4, 0).len(9, "abcd")),
                        "both raw_data"));
  // Wire-level damage.
  EXPECT_TRUE(failsWith(parse(Proto().key(2, 2).varint(0)), "data_type has unexpected wire type"));
  EXPECT_TRUE(failsWith(parse(Proto().dims({1}).v(2, 1).packedFixed<uint8_t>(4, {1, 2, 3})),
                        "not a multiple of 4"));
  EXPECT_TRUE(failsWith(parse(Proto().key(50, 6)), "invalid wire type 6"));
  EXPECT_TRUE(failsWith(parse(Proto().key(50, 4)), "unexpected end-group"));
  EXPECT_TRUE(failsWith(parse(Proto().key(50, 3).v(1, 1)), "unterminated group"));
  EXPECT_TRUE(failsWith(parse(Proto().key(50, 3).key(51, 4)), "end of group 51 inside group 50"));
  EXPECT_TRUE(failsWith(parse(Proto().varint(0)), "invalid field number 0"));
  std::string elevenBytes(10, '\xff');
  elevenBytes += '\x01';
  EXPECT_TRUE(failsWith(parseTensorProto("\x08" + elevenBytes, "t.pb"), "byte 1: varint"));
}

TEST(TensorProtoTest, ErrorsNameFileAndOffset) {
  Proto p;
  p.dims({1}).v(2, 1);          // bytes 0-3
  p.len(9, "abcd");             // bytes 4-9
  p.key(7, 2).varint(100);      // byte 10: a packed field claiming 100 bytes
  StatusOr<Tensor> t = parseTensorProto(p.bytes, "dir/input_0.pb");
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "dir/input_0.pb: byte 11: length 100 runs past the end (0 bytes left)");

  StatusOr<Tensor> missing = readTensorProto("/nonexistent/loupe/x.pb");
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/loupe/x.pb"), std::string::npos);
  StatusOr<Tensor> dir = readTensorProto("/tmp");
  ASSERT_FALSE(dir.isOk());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos);
}

TEST(TensorProtoTest, TruncatedAtEveryByteNeverCrashes) {
  // Every proper prefix of a typed-field tensor and of a raw_data tensor: errors, no crash.
  Proto typed;
  typed.dims({2, 2}).v(2, 1).len(8, "nm").packedFixed<float>(4, {1, 2, 3, 4});
  Tensor t(DType::F64, {3, 2});
  fillPattern(t);
  std::string raw = serializeTensorProto(t, "some_name");
  for (const std::string &full : {typed.bytes, raw}) {
    ASSERT_TRUE(parseTensorProto(full, "full").isOk());
    for (size_t n = 0; n < full.size(); ++n) {
      StatusOr<Tensor> r = parseTensorProto(full.substr(0, n), "cut.pb");
      EXPECT_FALSE(r.isOk()) << "prefix of " << n << " bytes parsed";
      if (!r.isOk())
        EXPECT_EQ(r.status().message().rfind("cut.pb: byte ", 0), 0u) << r.status().message();
    }
  }
}

TEST(TensorProtoTest, TruncatedRealFiles) {
  std::string path = std::string(kOnnxData) + "/node/test_relu/test_data_set_0/input_0.pb";
  if (!fs::exists(path))
    GTEST_SKIP() << "libonnx-testdata not installed";
  std::string full = readFile(path);
  ASSERT_TRUE(parseTensorProto(full, path).isOk());
  for (size_t n = 0; n < full.size(); n += 1 + n / 16)
    EXPECT_FALSE(parseTensorProto(full.substr(0, n), path).isOk()) << n;
}

TEST(TensorProtoTest, GarbageNeverCrashes) {
  std::mt19937 rng(1234);
  Tensor base(DType::F32, {2, 3});
  fillPattern(base);
  std::string valid = serializeTensorProto(base, "g");
  size_t ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s;
    if (iter % 2) {
      // Pure random bytes of random length.
      s.resize(rng() % 64);
      for (char &c : s)
        c = static_cast<char>(rng());
    } else {
      // A valid encoding with a few bytes flipped, inserted or dropped.
      s = valid;
      for (int k = 0, m = 1 + rng() % 4; k < m && !s.empty(); ++k) {
        size_t at = rng() % s.size();
        switch (rng() % 3) {
        case 0: s[at] = static_cast<char>(rng()); break;
        case 1: s.insert(s.begin() + at, static_cast<char>(rng())); break;
        case 2: s.erase(s.begin() + at); break;
        }
      }
    }
    StatusOr<Tensor> r = parseTensorProto(s, "garbage.pb");
    if (r.isOk()) {
      ++ok;
      // Whatever parsed must be self-consistent.
      EXPECT_GE(r->numElements(), 0);
      EXPECT_NE(r->data(), nullptr);
    } else {
      EXPECT_EQ(r.status().message().rfind("garbage.pb: byte ", 0), 0u) << r.status().message();
    }
  }
  EXPECT_LT(ok, 20000u);
}

//===----------------------------------------------------------------------===//
// TensorProto: ONNX's own test data
//===----------------------------------------------------------------------===//

TEST(TensorProtoTest, ReadsOnnxReluTestData) {
  std::string dir = std::string(kOnnxData) + "/node/test_relu/test_data_set_0";
  if (!fs::exists(dir))
    GTEST_SKIP() << "libonnx-testdata not installed";
  StatusOr<Tensor> in = readTensorProto(dir + "/input_0.pb");
  StatusOr<Tensor> out = readTensorProto(dir + "/output_0.pb");
  ASSERT_TRUE(in.isOk()) << in.status().message();
  ASSERT_TRUE(out.isOk()) << out.status().message();
  EXPECT_EQ(in->typeString(), "f32[3x4x5]");
  EXPECT_EQ(out->typeString(), "f32[3x4x5]");
  // The test's own semantics: output = max(input, 0).
  int negatives = 0;
  for (int64_t i = 0; i < in->numElements(); ++i) {
    double x = in->elementAsDouble(i);
    negatives += x < 0;
    EXPECT_EQ(out->elementAsDouble(i), x > 0 ? x : 0.0) << i;
  }
  EXPECT_GT(negatives, 0);
}

TEST(TensorProtoTest, ReadsPytorchConv2dTestData) {
  std::string dir = std::string(kOnnxData) + "/pytorch-converted/test_Conv2d/test_data_set_0";
  if (!fs::exists(dir))
    GTEST_SKIP() << "libonnx-testdata not installed";
  StatusOr<std::vector<Tensor>> in = readTensorDir(dir, "input");
  StatusOr<std::vector<Tensor>> out = readTensorDir(dir, "output");
  ASSERT_TRUE(in.isOk()) << in.status().message();
  ASSERT_TRUE(out.isOk()) << out.status().message();
  ASSERT_EQ(in->size(), 1u);
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*in)[0].dtype(), DType::F32);
  EXPECT_EQ((*in)[0].shape().size(), 4u);
  EXPECT_EQ((*out)[0].shape().size(), 4u);
  EXPECT_EQ((*in)[0].shape()[0], (*out)[0].shape()[0]); // batch
  for (int64_t i = 0; i < (*out)[0].numElements(); ++i)
    ASSERT_TRUE(std::isfinite((*out)[0].elementAsDouble(i)));
}

TEST(TensorProtoTest, ReadsOnnxTestDataOfManyDTypes) {
  // One file per dtype (inputs and outputs of ONNX node tests), with known shapes.
  struct Case {
    const char *file;
    const char *type;
  };
  const Case cases[] = {
      {"node/test_cast_FLOAT_to_DOUBLE/test_data_set_0/output_0.pb", "f64[3x4]"},
      {"node/test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb", "f16[3x4]"},
      {"node/test_and2d/test_data_set_0/input_0.pb", "i1[3x4]"},
      {"node/test_argmax_default_axis_example/test_data_set_0/output_0.pb", "i64[1x2]"},
  };
  int found = 0;
  for (const Case &c : cases) {
    std::string path = std::string(kOnnxData) + "/" + c.file;
    if (!fs::exists(path))
      continue;
    ++found;
    StatusOr<Tensor> t = readTensorProto(path);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), c.type) << c.file;
  }
  if (!found)
    GTEST_SKIP() << "libonnx-testdata not installed";
}

TEST(TensorProtoTest, ReadsExampleModelTestData) {
  // examples/models/*/test_data_set_0, written by examples/models/make_models.py.
  struct Case {
    const char *model;
    const char *input;
    const char *output;
  };
  const Case cases[] = {
      {"mlp", "f32[8x64]", "f32[8x10]"},
      {"cnn", "f32[1x3x32x32]", "f32[1x10]"},
      {"transformer_block", "f32[1x8x32]", "f32[1x32]"},
      {"mlp_tosa", "f32[4x16]", "f32[4x10]"},
  };
  for (const Case &c : cases) {
    std::string dir =
        std::string(LOUPE_SOURCE_DIR) + "/examples/models/" + c.model + "/test_data_set_0";
    StatusOr<std::vector<Tensor>> in = readTensorDir(dir, "input");
    StatusOr<std::vector<Tensor>> out = readTensorDir(dir, "output");
    ASSERT_TRUE(in.isOk()) << in.status().message();
    ASSERT_TRUE(out.isOk()) << out.status().message();
    ASSERT_EQ(in->size(), 1u);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ((*in)[0].typeString(), c.input) << c.model;
    EXPECT_EQ((*out)[0].typeString(), c.output) << c.model;
    if (std::string(c.model) != "transformer_block") {
      // Softmax outputs: rows of probabilities.
      const Tensor &p = (*out)[0];
      int64_t cols = p.shape().back();
      for (int64_t r = 0; r < p.numElements() / cols; ++r) {
        double sum = 0;
        for (int64_t k = 0; k < cols; ++k)
          sum += p.elementAsDouble(r * cols + k);
        EXPECT_NEAR(sum, 1.0, 1e-5) << c.model << " row " << r;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

std::string npyBytes(int major, const std::string &dict, const std::string &data,
                     bool pad = true) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  if (pad) {
    while ((prefix + header.size() + 1) % 64)
      header += ' ';
    header += '\n';
  }
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(NpyTest, RoundTripAllNumpyDTypes) {
  TempDir tmp;
  for (DType d : kAllDTypes) {
    if (d == DType::BF16)
      continue;
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{}, {5}, {2, 3}, {1, 3, 4, 5}, {2, 0}}) {
      Tensor t(d, shape);
      fillPattern(t);
      std::string path = tmp.file("a.npy");
      Status w = writeNpy(path, t);
      ASSERT_TRUE(w.isOk()) << w.message();
      std::string bytes = readFile(path);
      // Data starts on a 64-byte boundary after a '\n'-terminated v1 header.
      size_t headerLen = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
      EXPECT_EQ((10 + headerLen) % 64, 0u);
      EXPECT_EQ(bytes[9 + headerLen], '\n');
      StatusOr<Tensor> back = readNpy(path);
      ASSERT_TRUE(back.isOk()) << back.status().message();
      expectSameTensor(t, *back);
    }
  }
}

TEST(NpyTest, HeaderTextMatchesNumpy) {
  TempDir tmp;
  Tensor t(DType::F32, {3});
  ASSERT_TRUE(writeNpy(tmp.file("v.npy"), t).isOk());
  std::string bytes = readFile(tmp.file("v.npy"));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(bytes.substr(10, 60), "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }   ");
  Tensor s(DType::I1, {});
  ASSERT_TRUE(writeNpy(tmp.file("s.npy"), s).isOk());
  std::string scalarDict = "{'descr': '|b1', 'fortran_order': False, 'shape': (), }";
  EXPECT_EQ(readFile(tmp.file("s.npy")).substr(10, scalarDict.size()), scalarDict);
}

TEST(NpyTest, WriteErrors) {
  TempDir tmp;
  Status bf = writeNpy(tmp.file("b.npy"), Tensor(DType::BF16, {2}));
  EXPECT_FALSE(bf.isOk());
  EXPECT_NE(bf.message().find("bf16"), std::string::npos);
  EXPECT_FALSE(writeNpy(tmp.file("n.npy"), Tensor()).isOk());
  Status dir = writeNpy("/nonexistent/loupe/out.npy", Tensor(DType::F32, {1}));
  EXPECT_FALSE(dir.isOk());
  EXPECT_NE(dir.message().find("/nonexistent/loupe/out.npy"), std::string::npos);
}

TEST(NpyTest, HeaderVariants) {
  TempDir tmp;
  std::string data(24, '\0');
  double vals[3] = {1.5, -2.0, 3.0};
  std::memcpy(data.data(), vals, 24);
  const std::string dicts[] = {
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
      "{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(3,)}",
      "{'shape': (3,), 'fortran_order': False, 'descr': '<f8'}",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,), 'extra': 'ignored', }",
      "{ 'descr' : '=f8' , 'fortran_order' : False , 'shape' : ( 3 , ) }",
  };
  int k = 0;
  for (int major : {1, 2, 3}) {
    for (const std::string &d : dicts) {
      std::string path = tmp.file("h" + std::to_string(k++) + ".npy");
      writeFile(path, npyBytes(major, d, data));
      StatusOr<Tensor> t = readNpy(path);
      ASSERT_TRUE(t.isOk()) << major << " " << d << ": " << t.status().message();
      EXPECT_EQ(t->typeString(), "f64[3]");
      EXPECT_EQ(t->elementAsDouble(0), 1.5);
      EXPECT_EQ(t->elementAsDouble(1), -2.0);
    }
  }
  // Unpadded header without a trailing newline is still accepted.
  writeFile(tmp.file("np.npy"), npyBytes(1, dicts[0], data, /*pad=*/false));
  EXPECT_TRUE(readNpy(tmp.file("np.npy")).isOk());
  // Multi-dimensional and 1-byte big-endian marker.
  writeFile(tmp.file("u8.npy"),
            npyBytes(1, "{'descr': '>u1', 'fortran_order': False, 'shape': (2, 1, 3), }",
                     std::string("\x01\x02\x03\x04\x05\xff", 6)));
  StatusOr<Tensor> u8 = readNpy(tmp.file("u8.npy"));
  ASSERT_TRUE(u8.isOk()) << u8.status().message();
  EXPECT_EQ(u8->typeString(), "ui8[2x1x3]");
  EXPECT_EQ(u8->elementAsDouble(5), 255);
}

TEST(NpyTest, ReadErrors) {
  TempDir tmp;
  auto err = [&](const std::string &bytes) {
    std::string path = tmp.file("e.npy");
    writeFile(path, bytes);
    StatusOr<Tensor> r = readNpy(path);
    EXPECT_FALSE(r.isOk());
    if (r.isOk())
      return std::string();
    EXPECT_EQ(r.status().message().rfind(path + ": ", 0), 0u) << r.status().message();
    return r.status().message();
  };
  auto has = [](const std::string &msg, const std::string &needle) {
    return msg.find(needle) != std::string::npos;
  };
  std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string eight(8, '\0');
  EXPECT_TRUE(has(err("PK\x03\x04 not numpy at all"), "bad magic"));
  EXPECT_TRUE(has(err(""), "bad magic"));
  EXPECT_TRUE(has(err(std::string("\x93NUMPY\x04\x00\x10\x00", 10) + f4), "version 4.0"));
  EXPECT_TRUE(has(err(npyBytes(1, f4, eight).substr(0, 40)), "runs past the end"));
  EXPECT_TRUE(has(err(npyBytes(1, f4, eight.substr(0, 5))), "too short for f32[2]"));
  EXPECT_TRUE(has(err(npyBytes(1, f4, eight + "xx")), "does not match f32[2]"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", eight)),
                  "Fortran"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", eight)),
                  "big-endian"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", eight)),
                  "unsupported dtype '<c8'"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", eight)),
                  "structured"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'shape': (2,), }", eight)), "fortran_order"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': False}", eight)), "'shape'"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", eight)),
                  "malformed header"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,) ", eight)),
                  "malformed header"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", eight)),
                  "too large"));
  EXPECT_TRUE(has(err(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", eight)),
                  "too short"));
  StatusOr<Tensor> missing = readNpy(tmp.file("missing.npy"));
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);

  // Every prefix of a valid file is an error, never a crash.
  std::string full = npyBytes(1, f4, eight);
  for (size_t n = 0; n < full.size(); ++n)
    err(full.substr(0, n));
}

TEST(NpyTest, ReadsNumpyMadeFixtures) {
  // Tiny files written by numpy itself (tests/unit/ral/data/make_npy_fixtures.py).
  std::string dir = std::string(LOUPE_SOURCE_DIR) + "/tests/unit/ral/data";
  struct Case {
    const char *file;
    const char *type;
    std::vector<double> values;
  };
  const Case cases[] = {
      {"f32_2x3.npy", "f32[2x3]", {0, 1.5, -2, 3.25, 4, -5}},
      {"f64_scalar.npy", "f64[]", {3.141592653589793}},
      {"f16_4.npy", "f16[4]", {1, -0.5, 65504, 0.0001220703125}},
      {"bool_2x2.npy", "i1[2x2]", {1, 0, 0, 1}},
      {"i8_3.npy", "i8[3]", {-128, 0, 127}},
      {"i16_2.npy", "i16[2]", {-32768, 32767}},
      {"i32_2x1.npy", "i32[2x1]", {-7, 2147483647}},
      {"i64_3.npy", "i64[3]", {-1, 0, 1099511627776}},
      {"u8_4.npy", "ui8[4]", {0, 1, 128, 255}},
      {"u16_2.npy", "ui16[2]", {0, 65535}},
      {"u32_2.npy", "ui32[2]", {0, 4294967295}},
      {"u64_2.npy", "ui64[2]", {0, 18446744073709551615.0}},
      {"f32_empty_0x3.npy", "f32[0x3]", {}},
      {"f32_v2_2.npy", "f32[2]", {1, 2}},
      {"f32_v3_2.npy", "f32[2]", {3, 4}},
  };
  for (const Case &c : cases) {
    StatusOr<Tensor> t = readNpy(dir + "/" + c.file);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->typeString(), c.type) << c.file;
    ASSERT_EQ(t->numElements(), static_cast<int64_t>(c.values.size())) << c.file;
    for (size_t i = 0; i < c.values.size(); ++i)
      EXPECT_EQ(t->elementAsDouble(static_cast<int64_t>(i)), c.values[i]) << c.file << " " << i;
  }
  // numpy refuses nothing we write: the fixture for f32[2x3] equals what writeNpy produces.
  Tensor t(DType::F32, {2, 3});
  const float v[] = {0, 1.5f, -2, 3.25f, 4, -5};
  std::memcpy(t.data(), v, sizeof v);
  TempDir tmp;
  ASSERT_TRUE(writeNpy(tmp.file("mine.npy"), t).isOk());
  EXPECT_EQ(readFile(tmp.file("mine.npy")), readFile(dir + "/f32_2x3.npy"));
}

//===----------------------------------------------------------------------===//
// Test-data folders
//===----------------------------------------------------------------------===//

TEST(TensorDirTest, ReadsByPositionMixingPbAndNpy) {
  TempDir tmp;
  Tensor a(DType::F32, {2});
  a.dataAs<float>()[1] = 1.0f;
  Tensor b(DType::I64, {1, 2});
  b.dataAs<int64_t>()[0] = 7;
  Tensor c(DType::U8, {3});
  c.dataAs<uint8_t>()[2] = 9;
  ASSERT_TRUE(writeTensorProto(tmp.file("input_0.pb"), a).isOk());
  ASSERT_TRUE(writeNpy(tmp.file("input_1.npy"), b).isOk());
  ASSERT_TRUE(writeTensorProto(tmp.file("input_2.pb"), c).isOk());
  ASSERT_TRUE(writeTensorProto(tmp.file("input_4.pb"), c).isOk()); // after a gap: not read
  ASSERT_TRUE(writeTensorProto(tmp.file("output_0.pb"), b).isOk());
  StatusOr<std::vector<Tensor>> in = readTensorDir(tmp.str(), "input");
  ASSERT_TRUE(in.isOk()) << in.status().message();
  ASSERT_EQ(in->size(), 3u);
  expectSameTensor((*in)[0], a);
  expectSameTensor((*in)[1], b);
  expectSameTensor((*in)[2], c);
  StatusOr<std::vector<Tensor>> out = readTensorDir(tmp.str(), "output");
  ASSERT_TRUE(out.isOk()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  expectSameTensor((*out)[0], b);

  // .pb wins over .npy for the same index.
  ASSERT_TRUE(writeNpy(tmp.file("input_0.npy"), c).isOk());
  in = readTensorDir(tmp.str(), "input");
  ASSERT_TRUE(in.isOk());
  expectSameTensor((*in)[0], a);
}

TEST(TensorDirTest, Errors) {
  TempDir tmp;
  StatusOr<std::vector<Tensor>> none = readTensorDir(tmp.str(), "input");
  ASSERT_FALSE(none.isOk());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find(tmp.str()), std::string::npos);
  EXPECT_NE(none.status().message().find("input_0"), std::string::npos);

  ASSERT_TRUE(writeTensorProto(tmp.file("input_1.pb"), Tensor(DType::F32, {1})).isOk());
  none = readTensorDir(tmp.str(), "input"); // _1 without _0
  ASSERT_FALSE(none.isOk());
  EXPECT_NE(none.status().message().find(tmp.str()), std::string::npos);

  StatusOr<std::vector<Tensor>> missing = readTensorDir(tmp.file("no_such_dir"), "input");
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no_such_dir"), std::string::npos);

  // A damaged file's error names that file.
  writeFile(tmp.file("input_0.pb"), std::string("\x0a\x05\x01", 3));
  StatusOr<std::vector<Tensor>> bad = readTensorDir(tmp.str(), "input");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("input_0.pb: byte"), std::string::npos)
      << bad.status().message();
}

} // namespace
