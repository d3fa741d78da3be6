//===- Tensor.cpp - Host tensors bound to artifact inputs/outputs ---------===//
#include "loupe/ral/Tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace loupe::ral {

namespace {

struct DTypeInfo {
  DType dtype;
  const char *name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4},  {DType::F64, "f64", 8},   {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2}, {DType::I1, "i1", 1},    {DType::I8, "i8", 1},
    {DType::I16, "i16", 2},  {DType::I32, "i32", 4},   {DType::I64, "i64", 8},
    {DType::U8, "ui8", 1},   {DType::U16, "ui16", 2},  {DType::U32, "ui32", 4},
    {DType::U64, "ui64", 8},
};

const DTypeInfo *info(DType dtype) {
  for (const DTypeInfo &i : kDTypes)
    if (i.dtype == dtype)
      return &i;
  return nullptr;
}

template <typename T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

} // namespace

size_t dtypeSize(DType dtype) {
  const DTypeInfo *i = info(dtype);
  return i ? i->size : 0;
}

const char *dtypeName(DType dtype) {
  const DTypeInfo *i = info(dtype);
  return i ? i->name : "?";
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

std::optional<int64_t> checkedNumElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13); // inf / NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13); // 112 = 127 - 15
  } else if (mant == 0) {
    bits = sign; // +-0
  } else {
    // Subnormal half: mant * 2^-24, exactly representable as a normal float.
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return bitsFloat(bits);
}

uint16_t floatToHalf(float value) {
  uint32_t f = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  uint32_t exp = (f >> 23) & 0xffu;
  uint32_t mant = f & 0x7fffffu;
  if (exp == 0xff) // inf / NaN (keep NaN a quiet NaN)
    return sign | 0x7c00u | (mant ? (0x200u | (mant >> 13)) : 0u);
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 0x1f)
    return sign | 0x7c00u; // overflow -> inf
  if (e <= 0) {
    // Subnormal half or zero. The value is (1.mant) * 2^(exp-127); the half subnormal unit
    // is 2^-24, so the result is round(full_mant * 2^(exp-127+24-23)).
    if (e < -10)
      return sign; // below half the smallest subnormal: rounds to zero
    uint32_t full = mant | 0x800000u;
    int shift = 14 - e; // 23 - 10 + 1 - e
    uint32_t half = full >> shift;
    uint32_t rem = full & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u)))
      ++half; // may carry into the smallest normal, which is the right encoding
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
    ++half; // carry may roll into the exponent, up to inf: correct
  return sign | static_cast<uint16_t>(half);
}

float bfloat16ToFloat(uint16_t bits) { return bitsFloat(static_cast<uint32_t>(bits) << 16); }

uint16_t floatToBFloat16(float value) {
  uint32_t f = floatBits(value);
  if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu)) // NaN: keep it a (quiet) NaN
    return static_cast<uint16_t>((f >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

StatusOr<Tensor> Tensor::allocate(DType dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  for (int64_t &d : t.shape_)
    if (d < 0)
      d = 0;
  std::optional<int64_t> n = checkedNumElements(t.shape_);
  size_t elem = dtypeSize(dtype);
  if (!n || elem == 0 ||
      static_cast<uint64_t>(*n) > (std::numeric_limits<size_t>::max() - kTensorAlignment) / elem)
    return invalidArgument("cannot allocate " + t.typeString() + ": its size overflows");
  size_t bytes = static_cast<size_t>(*n) * elem;
  // aligned_alloc wants a multiple of the alignment; never allocate zero bytes so that data()
  // is non-null for empty tensors too.
  size_t alloc = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  if (alloc == 0)
    alloc = kTensorAlignment;
  void *p = std::aligned_alloc(kTensorAlignment, alloc);
  if (!p)
    return invalidArgument("cannot allocate " + t.typeString() + " (" + std::to_string(bytes) +
                           " bytes): out of memory");
  std::memset(p, 0, alloc);
  t.data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p), [](uint8_t *q) { std::free(q); });
  return t;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) {
  StatusOr<Tensor> t = allocate(dtype, std::move(shape));
  if (!t)
    throw std::bad_alloc();
  *this = std::move(*t);
}

int64_t Tensor::numElements() const {
  if (!data_)
    return 0;
  // The constructor checked the product.
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

double Tensor::elementAsDouble(int64_t i) const {
  if (!data_ || i < 0 || i >= numElements())
    return std::numeric_limits<double>::quiet_NaN();
  const uint8_t *p = data_.get() + static_cast<size_t>(i) * dtypeSize(dtype_);
  switch (dtype_) {
  case DType::F32: return load<float>(p);
  case DType::F64: return load<double>(p);
  case DType::F16: return halfToFloat(load<uint16_t>(p));
  case DType::BF16: return bfloat16ToFloat(load<uint16_t>(p));
  case DType::I1: return *p ? 1.0 : 0.0;
  case DType::I8: return load<int8_t>(p);
  case DType::I16: return load<int16_t>(p);
  case DType::I32: return load<int32_t>(p);
  case DType::I64: return static_cast<double>(load<int64_t>(p));
  case DType::U8: return load<uint8_t>(p);
  case DType::U16: return load<uint16_t>(p);
  case DType::U32: return load<uint32_t>(p);
  case DType::U64: return static_cast<double>(load<uint64_t>(p));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool sameStorage(DType a, DType b) {
  auto signless = [](DType t) {
    switch (t) {
    case DType::U8: return DType::I8;
    case DType::U16: return DType::I16;
    case DType::U32: return DType::I32;
    case DType::U64: return DType::I64;
    default: return t;
    }
  };
  return signless(a) == signless(b);
}

void Tensor::setElementFromDouble(int64_t i, double value) {
  if (!data_ || i < 0 || i >= numElements())
    return;
  uint8_t *p = data_.get() + static_cast<size_t>(i) * dtypeSize(dtype_);
  auto store = [p](auto v) { std::memcpy(p, &v, sizeof v); };
  switch (dtype_) {
  case DType::F32: return store(static_cast<float>(value));
  case DType::F64: return store(value);
  case DType::F16: return store(floatToHalf(static_cast<float>(value)));
  case DType::BF16: return store(floatToBFloat16(static_cast<float>(value)));
  case DType::I1: return store(static_cast<uint8_t>(value != 0));
  case DType::I8: return store(static_cast<int8_t>(value));
  case DType::I16: return store(static_cast<int16_t>(value));
  case DType::I32: return store(static_cast<int32_t>(value));
  case DType::I64: return store(static_cast<int64_t>(value));
  case DType::U8: return store(static_cast<uint8_t>(value));
  case DType::U16: return store(static_cast<uint16_t>(value));
  case DType::U32: return store(static_cast<uint32_t>(value));
  case DType::U64: return store(static_cast<uint64_t>(value));
  }
}

Tensor Tensor::clone() const {
  if (!data_)
    return Tensor();
  Tensor copy(dtype_, shape_);
  std::memcpy(copy.data(), data(), byteSize());
  return copy;
}

std::string Tensor::typeString() const {
  std::string s = dtypeName(dtype_);
  s += '[';
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape_[i]);
  }
  s += ']';
  return s;
}

} // namespace loupe::ral
