//===- TensorIO.cpp - Test-data tensors: ONNX TensorProto .pb and .npy ----===//
//
// The TensorProto reader is a protobuf wire-format decoder of our own (no protobuf/ONNX
// library): every read is bounds-checked, so truncated or garbage input yields an error naming
// the file and the byte offset, never a crash. Host byte order is assumed little-endian, which
// is what both formats store.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/TensorIO.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "TensorIO copies little-endian payloads straight into host memory");

namespace loupe::ral {

namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

StatusOr<std::string> readWholeFile(const std::string &path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return notFound(path + ": no such file");
  if (!fs::is_regular_file(st))
    return invalidArgument(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound(path + ": cannot open for reading");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    return invalidArgument(path + ": read error");
  return bytes;
}

Status writeWholeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return invalidArgument(path + ": cannot open for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return invalidArgument(path + ": write error");
  return Status::ok();
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Protobuf wire format
//===----------------------------------------------------------------------===//

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

/// A bounds-checked cursor over [pos, end) of a buffer; offsets are absolute.
class WireReader {
public:
  WireReader(const std::string &bytes, const std::string &name, size_t pos, size_t end)
      : bytes_(reinterpret_cast<const uint8_t *>(bytes.data())), name_(name), pos_(pos),
        end_(end) {}

  bool atEnd() const { return pos_ >= end_; }
  size_t offset() const { return pos_; }

  Status error(size_t offset, const std::string &msg) const {
    return invalidArgument(name_ + ": byte " + std::to_string(offset) + ": " + msg);
  }

  Status readVarint(uint64_t &out) {
    size_t start = pos_;
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= end_)
        return error(start, "truncated varint");
      uint8_t b = bytes_[pos_++];
      if (shift == 63 && (b & 0x7e))
        return error(start, "varint overflows 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        out = v;
        return Status::ok();
      }
    }
    return error(start, "varint longer than 10 bytes");
  }

  Status readFixed32(uint32_t &out) {
    if (end_ - pos_ < 4)
      return error(pos_, "truncated fixed32");
    std::memcpy(&out, bytes_ + pos_, 4);
    pos_ += 4;
    return Status::ok();
  }

  Status readFixed64(uint64_t &out) {
    if (end_ - pos_ < 8)
      return error(pos_, "truncated fixed64");
    std::memcpy(&out, bytes_ + pos_, 8);
    pos_ += 8;
    return Status::ok();
  }

  /// Reads a length prefix and returns the absolute [begin, end) of the payload.
  Status readLengthDelimited(size_t &begin, size_t &end) {
    size_t start = pos_;
    uint64_t len;
    if (Status s = readVarint(len); !s)
      return s;
    if (len > end_ - pos_)
      return error(start, "length " + std::to_string(len) + " runs past the end (" +
                              std::to_string(end_ - pos_) + " bytes left)");
    begin = pos_;
    end = pos_ + static_cast<size_t>(len);
    pos_ = end;
    return Status::ok();
  }

  /// Reads a field key; `field` is its number, `wire` its wire type.
  Status readKey(uint32_t &field, uint32_t &wire) {
    size_t start = pos_;
    uint64_t key;
    if (Status s = readVarint(key); !s)
      return s;
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
      return error(start, "invalid field number " + std::to_string(key >> 3));
    field = static_cast<uint32_t>(key >> 3);
    wire = static_cast<uint32_t>(key & 7);
    return Status::ok();
  }

  /// Skips the payload of a field whose key was just read (any wire type, groups included).
  Status skipField(uint32_t field, uint32_t wire, size_t keyOffset, int depth = 0) {
    switch (wire) {
    case kVarint: {
      uint64_t v;
      return readVarint(v);
    }
    case kFixed64: {
      uint64_t v;
      return readFixed64(v);
    }
    case kFixed32: {
      uint32_t v;
      return readFixed32(v);
    }
    case kLengthDelimited: {
      size_t b, e;
      return readLengthDelimited(b, e);
    }
    case kStartGroup: {
      if (depth >= 64)
        return error(keyOffset, "groups nested too deeply");
      while (true) {
        if (atEnd())
          return error(keyOffset, "unterminated group (field " + std::to_string(field) + ")");
        size_t innerKey = pos_;
        uint32_t f = 0, w = 0;
        if (Status s = readKey(f, w); !s)
          return s;
        if (w == kEndGroup) {
          if (f != field)
            return error(innerKey, "end of group " + std::to_string(f) + " inside group " +
                                       std::to_string(field));
          return Status::ok();
        }
        if (Status s = skipField(f, w, innerKey, depth + 1); !s)
          return s;
      }
    }
    case kEndGroup:
      return error(keyOffset, "unexpected end-group (field " + std::to_string(field) + ")");
    default:
      return error(keyOffset, "invalid wire type " + std::to_string(wire) + " (field " +
                                  std::to_string(field) + ")");
    }
  }

  /// A repeated varint field, packed (wire type 2) or not (wire type 0).
  Status readRepeatedVarint(uint32_t wire, size_t keyOffset, const char *fieldName,
                            std::vector<uint64_t> &out) {
    if (wire == kVarint) {
      uint64_t v;
      if (Status s = readVarint(v); !s)
        return s;
      out.push_back(v);
      return Status::ok();
    }
    if (wire != kLengthDelimited)
      return wrongWire(keyOffset, fieldName, wire);
    size_t b, e;
    if (Status s = readLengthDelimited(b, e); !s)
      return s;
    size_t saveEnd = end_;
    pos_ = b;
    end_ = e; // varints of a packed field must not cross its end
    while (pos_ < end_) {
      uint64_t v;
      if (Status s = readVarint(v); !s) {
        end_ = saveEnd;
        return s;
      }
      out.push_back(v);
    }
    end_ = saveEnd;
    return Status::ok();
  }

  /// A repeated fixed-width field (float/double), packed or not.
  template <typename Word>
  Status readRepeatedFixed(uint32_t wire, size_t keyOffset, const char *fieldName,
                           std::vector<Word> &out) {
    constexpr uint32_t single = sizeof(Word) == 4 ? kFixed32 : kFixed64;
    if (wire == single) {
      if (end_ - pos_ < sizeof(Word))
        return error(pos_, std::string("truncated ") + fieldName + " element");
      Word w;
      std::memcpy(&w, bytes_ + pos_, sizeof(Word));
      pos_ += sizeof(Word);
      out.push_back(w);
      return Status::ok();
    }
    if (wire != kLengthDelimited)
      return wrongWire(keyOffset, fieldName, wire);
    size_t lenOffset = pos_;
    size_t b, e;
    if (Status s = readLengthDelimited(b, e); !s)
      return s;
    if ((e - b) % sizeof(Word))
      return error(lenOffset, std::string("packed ") + fieldName + " has " +
                                  std::to_string(e - b) + " bytes, not a multiple of " +
                                  std::to_string(sizeof(Word)));
    if (e == b)
      return Status::ok(); // an empty packed field
    size_t old = out.size();
    out.resize(old + (e - b) / sizeof(Word));
    std::memcpy(out.data() + old, bytes_ + b, e - b);
    return Status::ok();
  }

  Status wrongWire(size_t keyOffset, const char *fieldName, uint32_t wire) const {
    return error(keyOffset, std::string("field ") + fieldName + " has unexpected wire type " +
                                std::to_string(wire));
  }

private:
  const uint8_t *bytes_;
  const std::string &name_;
  size_t pos_, end_;
};

// onnx.TensorProto.DataType
enum OnnxType : int {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxUint16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUint32 = 12,
  kOnnxUint64 = 13,
  kOnnxComplex64 = 14,
  kOnnxComplex128 = 15,
  kOnnxBFloat16 = 16,
};

std::optional<DType> dtypeFromOnnx(uint64_t t) {
  switch (t) {
  case kOnnxFloat: return DType::F32;
  case kOnnxUint8: return DType::U8;
  case kOnnxInt8: return DType::I8;
  case kOnnxUint16: return DType::U16;
  case kOnnxInt16: return DType::I16;
  case kOnnxInt32: return DType::I32;
  case kOnnxInt64: return DType::I64;
  case kOnnxBool: return DType::I1;
  case kOnnxFloat16: return DType::F16;
  case kOnnxDouble: return DType::F64;
  case kOnnxUint32: return DType::U32;
  case kOnnxUint64: return DType::U64;
  case kOnnxBFloat16: return DType::BF16;
  default: return std::nullopt;
  }
}

int onnxFromDType(DType d) {
  switch (d) {
  case DType::F32: return kOnnxFloat;
  case DType::F64: return kOnnxDouble;
  case DType::F16: return kOnnxFloat16;
  case DType::BF16: return kOnnxBFloat16;
  case DType::I1: return kOnnxBool;
  case DType::I8: return kOnnxInt8;
  case DType::I16: return kOnnxInt16;
  case DType::I32: return kOnnxInt32;
  case DType::I64: return kOnnxInt64;
  case DType::U8: return kOnnxUint8;
  case DType::U16: return kOnnxUint16;
  case DType::U32: return kOnnxUint32;
  case DType::U64: return kOnnxUint64;
  }
  return kOnnxUndefined;
}

const char *onnxTypeName(uint64_t t) {
  switch (t) {
  case kOnnxUndefined: return "UNDEFINED";
  case kOnnxString: return "STRING";
  case kOnnxComplex64: return "COMPLEX64";
  case kOnnxComplex128: return "COMPLEX128";
  default: return "unknown";
  }
}

/// Stores integer `v` (from int32_data/int64_data/uint64_data) as element `i` of `t`,
/// truncating to the element width as onnx.proto prescribes.
void storeInteger(Tensor &t, int64_t i, uint64_t v) {
  uint8_t *p = static_cast<uint8_t *>(t.data()) + static_cast<size_t>(i) * dtypeSize(t.dtype());
  switch (t.dtype()) {
  case DType::I1: *p = v & 0xffffffffu ? 1 : 0; break; // bool: any non-zero int32 is true
  case DType::I8:
  case DType::U8: *p = static_cast<uint8_t>(v); break;
  case DType::I16:
  case DType::U16:
  case DType::F16: // the 16-bit pattern in the low bits
  case DType::BF16: {
    uint16_t x = static_cast<uint16_t>(v);
    std::memcpy(p, &x, 2);
    break;
  }
  case DType::I32:
  case DType::U32: {
    uint32_t x = static_cast<uint32_t>(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case DType::I64:
  case DType::U64: std::memcpy(p, &v, 8); break;
  case DType::F32:
  case DType::F64: break; // not carried by integer fields
  }
}

//===----------------------------------------------------------------------===//
// .npy header
//===----------------------------------------------------------------------===//

/// The subset of Python literal syntax that .npy headers use: a dict of str keys whose values
/// are str, True/False, or tuples of non-negative ints.
class NpyHeaderParser {
public:
  struct Value {
    enum Kind { Str, Bool, Tuple } kind = Str;
    std::string str;
    bool boolean = false;
    std::vector<int64_t> ints;
  };

  explicit NpyHeaderParser(std::string_view text) : s_(text) {}

  /// Parses the dict into `out`; returns an error message or "".
  std::string parse(std::vector<std::pair<std::string, Value>> &out) {
    ws();
    if (!eat('{'))
      return "expected '{'";
    while (true) {
      ws();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return "expected a quoted key at header offset " + std::to_string(i_);
      ws();
      if (!eat(':'))
        return "expected ':' after key '" + key + "'";
      ws();
      Value v;
      std::string err = parseValue(v);
      if (!err.empty())
        return "value of '" + key + "': " + err;
      out.emplace_back(std::move(key), std::move(v));
      ws();
      if (eat(','))
        continue;
      ws();
      if (eat('}'))
        break;
      return "expected ',' or '}' at header offset " + std::to_string(i_);
    }
    ws();
    if (i_ != s_.size())
      return "trailing characters after the header dict";
    return "";
  }

private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool startsWith(std::string_view w) const { return s_.substr(i_, w.size()) == w; }

  bool parseString(std::string &out) {
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"'))
      return false;
    char q = s_[i_++];
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\')
        return false; // numpy never escapes in the keys/values we accept
      ++i_;
    }
    if (i_ >= s_.size())
      return false;
    out.assign(s_.substr(start, i_ - start));
    ++i_;
    return true;
  }

  std::string parseValue(Value &v) {
    if (i_ < s_.size() && (s_[i_] == '\'' || s_[i_] == '"')) {
      v.kind = Value::Str;
      return parseString(v.str) ? "" : "unterminated string";
    }
    if (startsWith("True")) {
      i_ += 4;
      v.kind = Value::Bool;
      v.boolean = true;
      return "";
    }
    if (startsWith("False")) {
      i_ += 5;
      v.kind = Value::Bool;
      v.boolean = false;
      return "";
    }
    if (eat('(')) {
      v.kind = Value::Tuple;
      while (true) {
        ws();
        if (eat(')'))
          return "";
        if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9')
          return "expected a non-negative integer in the tuple";
        int64_t n = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
          int d = s_[i_++] - '0';
          if (n > (std::numeric_limits<int64_t>::max() - d) / 10)
            return "integer too large";
          n = n * 10 + d;
        }
        eat('L'); // Python 2 long suffix in old files
        v.ints.push_back(n);
        ws();
        if (eat(','))
          continue;
        ws();
        if (eat(')'))
          return "";
        return "expected ',' or ')' in the tuple";
      }
    }
    if (i_ < s_.size() && s_[i_] == '[')
      return "structured dtypes are not supported";
    return "unsupported value";
  }

  std::string_view s_;
  size_t i_ = 0;
};

struct NpyType {
  const char *code; // without the byte-order character
  DType dtype;
};

constexpr NpyType kNpyTypes[] = {
    {"f4", DType::F32}, {"f8", DType::F64}, {"f2", DType::F16}, {"b1", DType::I1},
    {"i1", DType::I8},  {"i2", DType::I16}, {"i4", DType::I32}, {"i8", DType::I64},
    {"u1", DType::U8},  {"u2", DType::U16}, {"u4", DType::U32}, {"u8", DType::U64},
};

std::optional<std::string> npyDescr(DType d) {
  for (const NpyType &t : kNpyTypes)
    if (t.dtype == d)
      return std::string(dtypeSize(d) == 1 ? "|" : "<") + t.code;
  return std::nullopt;
}

void normalizeBools(Tensor &t) {
  if (t.dtype() != DType::I1)
    return;
  uint8_t *p = t.dataAs<uint8_t>();
  for (int64_t i = 0, n = t.numElements(); i < n; ++i)
    p[i] = p[i] ? 1 : 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

StatusOr<Tensor> parseTensorProto(const std::string &bytes, const std::string &name) {
  WireReader r(bytes, name, 0, bytes.size());

  std::vector<uint64_t> dims;
  uint64_t dataType = kOnnxUndefined;
  std::vector<uint32_t> floatData;  // field 4
  std::vector<uint64_t> int32Data;  // field 5
  std::vector<uint64_t> int64Data;  // field 7
  std::vector<uint64_t> doubleData; // field 10
  std::vector<uint64_t> uint64Data; // field 11
  bool hasRaw = false;
  size_t rawBegin = 0, rawEnd = 0, rawOffset = 0;
  size_t typedOffset = std::string::npos; // first typed-data field, for messages

  while (!r.atEnd()) {
    size_t keyOffset = r.offset();
    uint32_t field = 0, wire = 0;
    if (Status s = r.readKey(field, wire); !s)
      return s;
    Status s;
    switch (field) {
    case 1: // dims
      s = r.readRepeatedVarint(wire, keyOffset, "dims", dims);
      break;
    case 2: // data_type
      if (wire != kVarint)
        return r.wrongWire(keyOffset, "data_type", wire);
      s = r.readVarint(dataType);
      break;
    case 4: // float_data
      typedOffset = std::min(typedOffset, keyOffset);
      s = r.readRepeatedFixed(wire, keyOffset, "float_data", floatData);
      break;
    case 5: // int32_data
      typedOffset = std::min(typedOffset, keyOffset);
      s = r.readRepeatedVarint(wire, keyOffset, "int32_data", int32Data);
      break;
    case 6: // string_data
      return r.error(keyOffset, "string tensors (string_data) are not supported");
    case 7: // int64_data
      typedOffset = std::min(typedOffset, keyOffset);
      s = r.readRepeatedVarint(wire, keyOffset, "int64_data", int64Data);
      break;
    case 8: { // name
      if (wire != kLengthDelimited)
        return r.wrongWire(keyOffset, "name", wire);
      size_t b, e;
      s = r.readLengthDelimited(b, e);
      break;
    }
    case 9: // raw_data (the last occurrence wins, as for any proto bytes field)
      if (wire != kLengthDelimited)
        return r.wrongWire(keyOffset, "raw_data", wire);
      s = r.readLengthDelimited(rawBegin, rawEnd);
      hasRaw = true;
      rawOffset = keyOffset;
      break;
    case 10: // double_data
      typedOffset = std::min(typedOffset, keyOffset);
      s = r.readRepeatedFixed(wire, keyOffset, "double_data", doubleData);
      break;
    case 11: // uint64_data
      typedOffset = std::min(typedOffset, keyOffset);
      s = r.readRepeatedVarint(wire, keyOffset, "uint64_data", uint64Data);
      break;
    case 13: // external_data
      return r.error(keyOffset, "external data (external_data) is not supported");
    case 14: { // data_location
      if (wire != kVarint)
        return r.wrongWire(keyOffset, "data_location", wire);
      uint64_t loc;
      if (s = r.readVarint(loc); !s)
        return s;
      if (loc == 1)
        return r.error(keyOffset, "external data (data_location EXTERNAL) is not supported");
      break;
    }
    default: // segment (3), doc_string (12) and fields we do not know
      s = r.skipField(field, wire, keyOffset);
      break;
    }
    if (!s)
      return s;
  }

  auto fail = [&](size_t offset, const std::string &msg) { return r.error(offset, msg); };
  size_t end = bytes.size();

  if (dataType == kOnnxString)
    return fail(end, "string tensors (data_type STRING) are not supported");
  std::optional<DType> dtype = dtypeFromOnnx(dataType);
  if (!dtype)
    return fail(end, "unsupported data_type " + std::to_string(dataType) + " (" +
                         onnxTypeName(dataType) + ")");

  std::vector<int64_t> shape;
  shape.reserve(dims.size());
  for (uint64_t d : dims) {
    if (static_cast<int64_t>(d) < 0)
      return fail(end, "negative dimension " + std::to_string(static_cast<int64_t>(d)));
    shape.push_back(static_cast<int64_t>(d));
  }
  std::optional<int64_t> count = checkedNumElements(shape);
  if (!count)
    return fail(end, "dims " + shapeString(shape) + " overflow the element count");
  int64_t n = *count;
  size_t elem = dtypeSize(*dtype);
  std::string what = std::string(dtypeName(*dtype)) + shapeString(shape);

  bool hasTyped = !floatData.empty() || !int32Data.empty() || !int64Data.empty() ||
                  !doubleData.empty() || !uint64Data.empty();
  if (hasRaw && hasTyped)
    return fail(typedOffset, "both raw_data and a typed *_data field are set");

  if (hasRaw) {
    uint64_t have = rawEnd - rawBegin;
    if (static_cast<uint64_t>(n) > have / elem || have != static_cast<uint64_t>(n) * elem)
      return fail(rawOffset, "raw_data has " + std::to_string(have) + " bytes, " + what +
                                 " needs " + std::to_string(n) + " elements of " +
                                 std::to_string(elem) + " bytes");
    StatusOr<Tensor> t = Tensor::allocate(*dtype, shape);
    if (!t)
      return t.status();
    if (have)
      std::memcpy(t->data(), bytes.data() + rawBegin, have);
    normalizeBools(*t);
    return t;
  }

  // Typed fields: which one carries this data_type (onnx.proto's comments).
  const char *fieldName = nullptr;
  size_t have = 0;
  switch (*dtype) {
  case DType::F32: fieldName = "float_data"; have = floatData.size(); break;
  case DType::F64: fieldName = "double_data"; have = doubleData.size(); break;
  case DType::I64: fieldName = "int64_data"; have = int64Data.size(); break;
  case DType::U32:
  case DType::U64: fieldName = "uint64_data"; have = uint64Data.size(); break;
  default: fieldName = "int32_data"; have = int32Data.size(); break;
  }
  size_t otherFields = floatData.size() + int32Data.size() + int64Data.size() +
                       doubleData.size() + uint64Data.size() - have;
  if (otherFields)
    return fail(typedOffset, std::string("data_type ") + dtypeName(*dtype) +
                                 " expects its values in " + fieldName +
                                 ", but another *_data field is set");
  if (have != static_cast<uint64_t>(n))
    return fail(typedOffset == std::string::npos ? end : typedOffset,
                std::string(fieldName) + " has " + std::to_string(have) + " values, " + what +
                    " needs " + std::to_string(n));

  StatusOr<Tensor> allocated = Tensor::allocate(*dtype, shape);
  if (!allocated)
    return allocated.status();
  Tensor &t = *allocated;
  if (have == 0)
    return t;
  switch (*dtype) {
  case DType::F32: std::memcpy(t.data(), floatData.data(), have * 4); break;
  case DType::F64: std::memcpy(t.data(), doubleData.data(), have * 8); break;
  case DType::I64:
    for (size_t i = 0; i < have; ++i)
      storeInteger(t, static_cast<int64_t>(i), int64Data[i]);
    break;
  case DType::U32:
  case DType::U64:
    for (size_t i = 0; i < have; ++i)
      storeInteger(t, static_cast<int64_t>(i), uint64Data[i]);
    break;
  default:
    for (size_t i = 0; i < have; ++i)
      storeInteger(t, static_cast<int64_t>(i), int32Data[i]);
    break;
  }
  return t;
}

StatusOr<Tensor> readTensorProto(const std::string &path) {
  StatusOr<std::string> bytes = readWholeFile(path);
  if (!bytes)
    return bytes.status();
  return parseTensorProto(*bytes, path);
}

namespace {
void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
} // namespace

std::string serializeTensorProto(const Tensor &tensor, const std::string &name) {
  std::string out;
  for (int64_t d : tensor.shape()) { // proto2 `repeated int64 dims`: unpacked, as protobuf does
    putVarint(out, (1u << 3) | kVarint);
    putVarint(out, static_cast<uint64_t>(d));
  }
  putVarint(out, (2u << 3) | kVarint);
  putVarint(out, static_cast<uint64_t>(onnxFromDType(tensor.dtype())));
  if (!name.empty()) {
    putVarint(out, (8u << 3) | kLengthDelimited);
    putVarint(out, name.size());
    out += name;
  }
  size_t bytes = tensor.data() ? tensor.byteSize() : 0;
  putVarint(out, (9u << 3) | kLengthDelimited);
  putVarint(out, bytes);
  out.append(static_cast<const char *>(tensor.data()), bytes);
  return out;
}

Status writeTensorProto(const std::string &path, const Tensor &tensor, const std::string &name) {
  if (!tensor.data())
    return invalidArgument(path + ": cannot write a tensor that has no buffer");
  return writeWholeFile(path, serializeTensorProto(tensor, name));
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

StatusOr<Tensor> readNpy(const std::string &path) {
  StatusOr<std::string> file = readWholeFile(path);
  if (!file)
    return file.status();
  const std::string &b = *file;
  auto fail = [&](const std::string &msg) { return invalidArgument(path + ": " + msg); };

  static const char kMagic[] = "\x93NUMPY";
  if (b.size() < 10 || b.compare(0, 6, kMagic, 6) != 0)
    return fail("not a .npy file (bad magic)");
  uint8_t major = static_cast<uint8_t>(b[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(b[8]) | (static_cast<size_t>(static_cast<uint8_t>(b[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12)
      return fail("truncated .npy preamble");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<uint8_t>(b[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(static_cast<uint8_t>(b[7])));
  }
  if (headerLen > b.size() - headerStart)
    return fail("header of " + std::to_string(headerLen) + " bytes runs past the end of the file");

  std::string_view header(b.data() + headerStart, headerLen);
  std::vector<std::pair<std::string, NpyHeaderParser::Value>> entries;
  std::string err = NpyHeaderParser(header).parse(entries);
  if (!err.empty())
    return fail("malformed header: " + err);

  const NpyHeaderParser::Value *descr = nullptr, *fortran = nullptr, *shapeV = nullptr;
  for (const auto &[k, v] : entries) {
    if (k == "descr")
      descr = &v;
    else if (k == "fortran_order")
      fortran = &v;
    else if (k == "shape")
      shapeV = &v;
  }
  if (!descr || descr->kind != NpyHeaderParser::Value::Str)
    return fail("header lacks a string 'descr'");
  if (!fortran || fortran->kind != NpyHeaderParser::Value::Bool)
    return fail("header lacks a boolean 'fortran_order'");
  if (!shapeV || shapeV->kind != NpyHeaderParser::Value::Tuple)
    return fail("header lacks a tuple 'shape'");
  if (fortran->boolean)
    return fail("Fortran-order arrays are not supported (save with np.ascontiguousarray)");

  const std::string &d = descr->str;
  std::optional<DType> dtype;
  if (d.size() == 3 && (d[0] == '<' || d[0] == '|' || d[0] == '=' || d[0] == '>')) {
    for (const NpyType &t : kNpyTypes)
      if (d.compare(1, 2, t.code) == 0)
        dtype = t.dtype;
    if (dtype && d[0] == '>' && dtypeSize(*dtype) > 1)
      return fail("big-endian dtype '" + d + "' is not supported");
  }
  if (!dtype)
    return fail("unsupported dtype '" + d + "'");

  const std::vector<int64_t> &shape = shapeV->ints;
  std::optional<int64_t> count = checkedNumElements(shape);
  size_t elem = dtypeSize(*dtype);
  size_t dataStart = headerStart + headerLen;
  size_t have = b.size() - dataStart;
  std::string what = std::string(dtypeName(*dtype)) + shapeString(shape);
  if (!count || static_cast<uint64_t>(*count) > have / elem)
    return fail("data of " + std::to_string(have) + " bytes is too short for " + what);
  if (have != static_cast<size_t>(*count) * elem)
    return fail("data of " + std::to_string(have) + " bytes does not match " + what + " (" +
                std::to_string(static_cast<size_t>(*count) * elem) + " bytes)");
  StatusOr<Tensor> t = Tensor::allocate(*dtype, shape);
  if (!t)
    return t.status();
  if (have)
    std::memcpy(t->data(), b.data() + dataStart, have);
  normalizeBools(*t);
  return t;
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
  if (!tensor.data())
    return invalidArgument(path + ": cannot write a tensor that has no buffer");
  std::optional<std::string> descr = npyDescr(tensor.dtype());
  if (!descr)
    return invalidArgument(path + ": " + dtypeName(tensor.dtype()) +
                           " has no .npy dtype (NumPy lacks it)");
  std::string dict = "{'descr': '" + *descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(tensor.shape()[i]);
  }
  if (tensor.shape().size() == 1)
    dict += ',';
  dict += "), }";

  // Pad with spaces so that the data starts on a 64-byte boundary; the header ends in '\n'.
  auto build = [&](int major) {
    size_t prefix = major == 1 ? 10 : 12;
    size_t total = prefix + dict.size() + 1;
    size_t padded = (total + 63) / 64 * 64;
    std::string header = dict + std::string(padded - total, ' ') + "\n";
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    size_t len = header.size();
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
      out += static_cast<char>((len >> (8 * i)) & 0xff);
    return out + header;
  };
  std::string out = build(1);
  if (out.size() - 10 > 0xffff)
    out = build(2);
  out.append(static_cast<const char *>(tensor.data()), tensor.byteSize());
  return writeWholeFile(path, out);
}

//===----------------------------------------------------------------------===//
// Test-data folders
//===----------------------------------------------------------------------===//

StatusOr<std::vector<Tensor>> readTensorDir(const std::string &dir, const std::string &prefix) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return notFound("test-data folder " + dir + " does not exist");
  if (!fs::is_directory(dir, ec))
    return invalidArgument("test-data folder " + dir + " is not a folder");
  std::vector<Tensor> tensors;
  for (size_t i = 0;; ++i) {
    std::string stem = (fs::path(dir) / (prefix + "_" + std::to_string(i))).string();
    bool pb = fs::is_regular_file(stem + ".pb", ec);
    if (!pb && !fs::is_regular_file(stem + ".npy", ec))
      break;
    StatusOr<Tensor> t = pb ? readTensorProto(stem + ".pb") : readNpy(stem + ".npy");
    if (!t)
      return t.status();
    tensors.push_back(std::move(*t));
  }
  if (tensors.empty())
    return notFound("test-data folder " + dir + " has no " + prefix + "_0.pb or " + prefix +
                    "_0.npy");
  return tensors;
}

} // namespace loupe::ral
