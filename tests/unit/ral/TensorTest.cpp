//===- TensorTest.cpp - loupe::ral::Tensor ----------------------------------===//
#include "loupe/ral/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <new>

using namespace loupe::ral;

namespace {

const DType kAllDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                            DType::I8,  DType::I16, DType::I32, DType::I64,  DType::U8,
                            DType::U16, DType::U32, DType::U64};

TEST(DTypeTest, NamesSizesAndParse) {
  struct Row {
    DType d;
    const char *name;
    size_t size;
  };
  const Row rows[] = {{DType::F32, "f32", 4},   {DType::F64, "f64", 8},  {DType::F16, "f16", 2},
                      {DType::BF16, "bf16", 2}, {DType::I1, "i1", 1},    {DType::I8, "i8", 1},
                      {DType::I16, "i16", 2},   {DType::I32, "i32", 4},  {DType::I64, "i64", 8},
                      {DType::U8, "ui8", 1},    {DType::U16, "ui16", 2}, {DType::U32, "ui32", 4},
                      {DType::U64, "ui64", 8}};
  for (const Row &r : rows) {
    EXPECT_STREQ(dtypeName(r.d), r.name);
    EXPECT_EQ(dtypeSize(r.d), r.size) << r.name;
    std::optional<DType> parsed = parseDType(r.name);
    ASSERT_TRUE(parsed.has_value()) << r.name;
    EXPECT_EQ(*parsed, r.d);
  }
  EXPECT_FALSE(parseDType("float32"));
  EXPECT_FALSE(parseDType("u8"));
  EXPECT_FALSE(parseDType(""));
  EXPECT_FALSE(parseDType("F32"));
}

TEST(TensorTest, ZeroedAlignedBuffer) {
  for (DType d : kAllDTypes) {
    Tensor t(d, {3, 5, 7});
    EXPECT_EQ(t.numElements(), 105);
    EXPECT_EQ(t.byteSize(), 105 * dtypeSize(d));
    ASSERT_NE(t.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u) << dtypeName(d);
    const uint8_t *p = t.dataAs<uint8_t>();
    for (size_t i = 0; i < t.byteSize(); ++i)
      ASSERT_EQ(p[i], 0) << dtypeName(d) << " byte " << i;
    for (int64_t i = 0; i < t.numElements(); ++i)
      ASSERT_EQ(t.elementAsDouble(i), 0.0);
  }
}

TEST(TensorTest, ScalarEmptyAndDefault) {
  Tensor scalar(DType::F32, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.byteSize(), 4u);
  EXPECT_EQ(scalar.typeString(), "f32[]");
  *scalar.dataAs<float>() = 2.5f;
  EXPECT_EQ(scalar.elementAsDouble(0), 2.5);

  Tensor empty(DType::I64, {4, 0, 3});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.byteSize(), 0u);
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_EQ(empty.typeString(), "i64[4x0x3]");
  EXPECT_TRUE(std::isnan(empty.elementAsDouble(0)));

  Tensor none;
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.numElements(), 0);
  EXPECT_EQ(none.byteSize(), 0u);
  EXPECT_EQ(none.clone().data(), nullptr);
}

TEST(TensorTest, NegativeDimsStoredAsZeroAndOverflowThrows) {
  Tensor t(DType::F32, {2, -3});
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(t.numElements(), 0);
  EXPECT_THROW(Tensor(DType::F32, {int64_t(1) << 40, int64_t(1) << 40}), std::bad_alloc);
  EXPECT_THROW(Tensor(DType::F64, {std::numeric_limits<int64_t>::max() / 4}), std::bad_alloc);
}

// The runtime allocates through Tensor::allocate: a size that overflows, or memory that runs
// out, is a Status naming the tensor, never an exception or an abort.
TEST(TensorTest, AllocateReportsFailureAsAStatus) {
  StatusOr<Tensor> overflow = Tensor::allocate(DType::F32, {int64_t(1) << 40, int64_t(1) << 40});
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(overflow.status().message(),
            "cannot allocate f32[1099511627776x1099511627776]: its size overflows");
  StatusOr<Tensor> huge = Tensor::allocate(DType::F32, {int64_t(1) << 50}); // 4 PiB
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.status().message().find("cannot allocate f32[1125899906842624] "
                                         "(4503599627370496 bytes): out of memory"),
            std::string::npos)
      << huge.status().message();
  StatusOr<Tensor> ok = Tensor::allocate(DType::I8, {3, 5});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->byteSize(), 15u);
  EXPECT_EQ(ok->dataAs<int8_t>()[14], 0);
}

TEST(TensorTest, CheckedNumElements) {
  EXPECT_EQ(checkedNumElements({}), 1);
  EXPECT_EQ(checkedNumElements({2, 3, 4}), 24);
  EXPECT_EQ(checkedNumElements({5, 0}), 0);
  EXPECT_FALSE(checkedNumElements({2, -1}));
  EXPECT_FALSE(checkedNumElements({int64_t(1) << 32, int64_t(1) << 32}));
  EXPECT_EQ(checkedNumElements({0, int64_t(1) << 62, int64_t(1) << 62}), 0);
}

TEST(TensorTest, TypeString) {
  EXPECT_EQ(Tensor(DType::F32, {1, 3, 8, 8}).typeString(), "f32[1x3x8x8]");
  EXPECT_EQ(Tensor(DType::U8, {7}).typeString(), "ui8[7]");
  EXPECT_EQ(Tensor(DType::I1, {2, 2}).typeString(), "i1[2x2]");
  EXPECT_EQ(Tensor(DType::BF16, {}).typeString(), "bf16[]");
}

TEST(TensorTest, CopiesShareCloneIsDeep) {
  Tensor a(DType::I32, {4});
  a.dataAs<int32_t>()[2] = 42;
  Tensor shared = a;
  EXPECT_EQ(shared.data(), a.data());
  Tensor deep = a.clone();
  EXPECT_NE(deep.data(), a.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(deep.data()) % 64, 0u);
  EXPECT_EQ(deep.shape(), a.shape());
  EXPECT_EQ(deep.dtype(), DType::I32);
  EXPECT_EQ(deep.elementAsDouble(2), 42.0);
  a.dataAs<int32_t>()[2] = 7;
  EXPECT_EQ(shared.elementAsDouble(2), 7.0);
  EXPECT_EQ(deep.elementAsDouble(2), 42.0);
}

TEST(TensorTest, BufferOutlivesOriginal) {
  Tensor copy;
  {
    Tensor t(DType::F64, {3});
    t.dataAs<double>()[1] = -1.25;
    copy = t;
  }
  EXPECT_EQ(copy.elementAsDouble(1), -1.25);
}

TEST(TensorTest, ElementAsDoubleAllTypes) {
  auto one = [](DType d, const void *bytes) {
    Tensor t(d, {2});
    std::memcpy(t.dataAs<uint8_t>() + dtypeSize(d), bytes, dtypeSize(d));
    return t.elementAsDouble(1);
  };
  float f = -3.5f;
  double g = 1e300;
  int8_t i8 = -128;
  int16_t i16 = -30000;
  int32_t i32 = -2000000000;
  int64_t i64 = -(int64_t(1) << 53);
  uint8_t u8 = 255, b = 1;
  uint16_t u16 = 65535;
  uint32_t u32 = 4000000000u;
  uint64_t u64 = uint64_t(1) << 63;
  uint16_t h = 0x3c00;  // 1.0
  uint16_t bf = 0xc040; // -3.0
  EXPECT_EQ(one(DType::F32, &f), -3.5);
  EXPECT_EQ(one(DType::F64, &g), 1e300);
  EXPECT_EQ(one(DType::I8, &i8), -128.0);
  EXPECT_EQ(one(DType::I16, &i16), -30000.0);
  EXPECT_EQ(one(DType::I32, &i32), -2000000000.0);
  EXPECT_EQ(one(DType::I64, &i64), -9007199254740992.0);
  EXPECT_EQ(one(DType::U8, &u8), 255.0);
  EXPECT_EQ(one(DType::I1, &b), 1.0);
  EXPECT_EQ(one(DType::U16, &u16), 65535.0);
  EXPECT_EQ(one(DType::U32, &u32), 4000000000.0);
  EXPECT_EQ(one(DType::U64, &u64), 9223372036854775808.0);
  EXPECT_EQ(one(DType::F16, &h), 1.0);
  EXPECT_EQ(one(DType::BF16, &bf), -3.0);

  Tensor t(DType::F32, {2});
  EXPECT_TRUE(std::isnan(t.elementAsDouble(-1)));
  EXPECT_TRUE(std::isnan(t.elementAsDouble(2)));
}

TEST(HalfTest, KnownEncodings) {
  struct Row {
    uint16_t bits;
    float value;
  };
  const Row rows[] = {
      {0x0000, 0.0f},           {0x3c00, 1.0f},          {0xc000, -2.0f},
      {0x3555, 0.333251953125f}, {0x7bff, 65504.0f},      {0x0400, 6.103515625e-05f},
      {0x0001, 5.960464477539063e-08f}, {0x03ff, 6.097555160522461e-05f}, {0x3800, 0.5f},
  };
  for (const Row &r : rows) {
    EXPECT_EQ(halfToFloat(r.bits), r.value) << std::hex << r.bits;
    EXPECT_EQ(floatToHalf(r.value), r.bits) << r.value;
  }
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);   // overflow -> inf
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // rounds up past the largest finite half
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e-9f), 0x0000);  // underflow -> 0
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);        // tie to even (0)
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);        // above the tie
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);        // 1.5 ulp -> tie to even (2)
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie to even (down)
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02); // tie to even (up)
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    uint16_t bits = static_cast<uint16_t>(b);
    float f = halfToFloat(bits);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToHalf(f), bits) << std::hex << b;
  }
}

TEST(HalfTest, RoundsToNearestAgainstDoubleReference) {
  // For floats between adjacent halves, the chosen half must be the nearest one.
  for (uint32_t b = 0x0000; b < 0x7bff; b += 7) {
    float lo = halfToFloat(static_cast<uint16_t>(b));
    float hi = halfToFloat(static_cast<uint16_t>(b + 1));
    for (float x : {lo + (hi - lo) * 0.25f, lo + (hi - lo) * 0.75f}) {
      uint16_t got = floatToHalf(x);
      uint16_t want = (double(x) - lo < hi - double(x)) ? b : b + 1;
      ASSERT_EQ(got, want) << x;
    }
  }
}

TEST(BFloat16Test, Conversions) {
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc040), -3.0f);
  EXPECT_EQ(bfloat16ToFloat(0x7f80), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7fc0)));
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(3.140625f), 0x4049);
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie to even (down)
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(3.0f, -8)), 0x3f82); // tie to even (up)
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(1.0f, -9) * 3), 0x3f81);
  uint16_t nan = floatToBFloat16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(nan)));
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    float f = bfloat16ToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f))
      ASSERT_EQ(floatToBFloat16(f), b);
  }
}

} // namespace
