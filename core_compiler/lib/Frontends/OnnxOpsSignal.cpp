//===- OnnxOpsSignal.cpp - Windows, DFT, STFT and MelWeightMatrix -> TOSA ---===//
//
// The ONNX signal-processing ops (opset 17, onnx/defs/math/defs.cc):
//
// - HannWindow, HammingWindow, BlackmanWindow: generalized cosine windows
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or
//   size - 1 (symmetric), with the spec's coefficients (Hann 1/2, 1/2; Hamming
//   25/46, 21/46; Blackman 0.42, 0.5, 0.08; Harris, "On the use of windows for
//   harmonic analysis with the DFT", Proc. IEEE 66(1), 1978). The size is a
//   shape tensor, so the window is a constant computed here in double.
// - DFT (DFT-17; DFT-20's axis input is refused): the textbook O(n^2)
//   transform X[k] = sum_n x[n] e^(s 2 pi i k n / N), s = -1 (forward) or +1
//   (inverse, also scaled by 1/N), as one tosa.matmul of the signal, viewed as
//   rows [real | imag], by a constant twiddle matrix [[cos, s sin], [-s sin,
//   cos]] computed here in double with k*n reduced mod N; f16/bf16 compute in
//   f32. Fine for the transform lengths of inference models; refused above
//   kMaxDftLength.
// - STFT: frames gathered with one tosa.gather, multiplied by the window, then
//   the same DFT along the frame axis.
// - MelWeightMatrix: a constant, computed exactly as the ONNX reference
//   (onnx/backend/test/case/node/melweightmatrix.py) does, quirks included:
//   the mel step divides by num_mel_bins + 2, bin edges are numpy's floor
//   division of (dft_length + 1) * hz by sample_rate.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// Longest DFT built as a matmul: its twiddle matrix has up to
/// 2n x 2n elements (64 Mi f32 = 256 MiB at n = 4096).
constexpr int64_t kMaxDftLength = 4096;

/// A constant of `shape` holding `values` converted to `elementType`: floats
/// rounded to nearest, integers truncated toward zero (bool: nonzero).
Value createConstFromDoubles(ImplicitLocOpBuilder &b, Type elementType,
                             ArrayRef<int64_t> shape, ArrayRef<double> values) {
  auto type = getTensorType(shape, elementType);
  if (elementType.isF32()) {
    SmallVector<float> floats(values.begin(), values.end());
    return createConst(b, DenseElementsAttr::get(type, ArrayRef<float>(floats)));
  }
  if (elementType.isF64())
    return createConst(b, DenseElementsAttr::get(type, values));
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> floats;
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      floats.push_back(f);
    }
    return createConst(b, DenseElementsAttr::get(type, floats));
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> ints;
  for (double v : values)
    ints.push_back(width == 1 ? APInt(1, v != 0)
                              : APInt(width, static_cast<int64_t>(v), /*isSigned=*/true));
  return createConst(b, DenseElementsAttr::get(type, ints));
}

/// Element type from the `output_datatype` attribute (default float).
FailureOr<Type> getOutputDatatype(NodeContext &ctx) {
  if (!ctx.hasAttr("output_datatype"))
    return Type(ctx.b.getF32Type());
  return ctx.getElementTypeAttr("output_datatype");
}

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

/// Coefficients a0, a1, a2 of w[n] = a0 - a1 cos(2 pi n/N) + a2 cos(4 pi n/N).
struct CosineWindow {
  double a0, a1, a2;
};

template <const CosineWindow &window>
LogicalResult convertWindow(NodeContext &ctx) {
  auto size = ctx.constantScalarInput(0);
  auto elementType = getOutputDatatype(ctx);
  if (failed(size) || failed(elementType))
    return failure();
  auto n = static_cast<int64_t>(*size);
  if (n < 1)
    return ctx.fail("window size must be positive, got " + Twine(n));
  bool periodic = ctx.getInt("periodic", 1);
  // A symmetric window of size 1 would divide 0 by 0; numpy and torch give [1].
  SmallVector<double> values(n, 1.0);
  double period = periodic ? n : n - 1;
  for (int64_t i = 0; i < n && period > 0; ++i) {
    double angle = 2 * llvm::numbers::pi * i / period;
    values[i] = window.a0 - window.a1 * std::cos(angle) + window.a2 * std::cos(2 * angle);
  }
  ctx.setOutput(0, createConstFromDoubles(ctx.b, *elementType, {n}, values));
  return success();
}

constexpr CosineWindow kHann{0.5, 0.5, 0};
constexpr CosineWindow kHamming{25.0 / 46, 21.0 / 46, 0};
constexpr CosineWindow kBlackman{0.42, 0.5, 0.08};

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

/// Twiddle matrix [C*m, 2*bins] mapping one row [re(x[0..m)) | im(x[0..m))]
/// (the imaginary half only when C = 2) to [re(X[0..bins)) | im(X[0..bins))]
/// for a transform of length `length` (rows m..length-1 would multiply the
/// zero padding, so they are left out).
SmallVector<double> twiddleMatrix(int64_t c, int64_t m, int64_t bins, int64_t length,
                                  bool inverse) {
  double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / length : 1;
  SmallVector<double> w(c * m * 2 * bins);
  for (int64_t n = 0; n < m; ++n)
    for (int64_t k = 0; k < bins; ++k) {
      double angle = 2 * llvm::numbers::pi * ((k * n) % length) / length;
      double cosine = std::cos(angle) * scale, sine = sign * std::sin(angle) * scale;
      // (re + i im)(cos + i sin) = (re cos - im sin) + i (re sin + im cos).
      w[n * 2 * bins + k] = cosine;
      w[n * 2 * bins + bins + k] = sine;
      if (c == 2) {
        w[(m + n) * 2 * bins + k] = -sine;
        w[(m + n) * 2 * bins + bins + k] = cosine;
      }
    }
  return w;
}

/// The DFT of `x` [..., L (at `axis`), ..., C] (C = 1 real, 2 complex,
/// float) along `axis` with transform length `length` (x truncated or
/// zero-padded to it): [..., bins (at `axis`), ..., 2], bins = length/2 + 1
/// when `onesided`, else length. One tosa.matmul [1, rows, C*m] x
/// [1, C*m, 2*bins] with m = min(L, length), in f64 for f64 and in f32
/// otherwise (f16 and bf16 sums of n terms would lose too much).
Value createDft(ImplicitLocOpBuilder &b, Value x, int64_t axis, int64_t length,
                bool onesided, bool inverse) {
  Type resultType = getElementType(x);
  x = createCast(b, x, resultType.isF64() ? resultType : b.getF32Type());
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size(), c = shape.back();
  int64_t m = std::min(shape[axis], length);
  int64_t bins = onesided ? length / 2 + 1 : length;
  x = createSliceAxis(b, x, axis, 0, m);
  // [others..., C, m] -> rows of C*m.
  SmallVector<int64_t> perm, others;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) {
      perm.push_back(d);
      others.push_back(shape[d]);
    }
  perm.append({rank - 1, axis});
  int64_t rows = getNumElements(others);
  Value lhs = createReshape(b, createTranspose(b, x, perm), {1, rows, c * m});
  Type elementType = getElementType(x);
  Value rhs = createConstFromDoubles(b, elementType, {1, c * m, 2 * bins},
                                     twiddleMatrix(c, m, bins, length, inverse));
  Value y = b.create<tosa::MatMulOp>(getTensorType({1, rows, 2 * bins}, elementType),
                                     lhs, rhs);
  // [others..., 2, bins] -> back to x's dim order.
  others.append({2, bins});
  SmallVector<int64_t> inversePerm(rank);
  for (int64_t d = 0; d < rank; ++d)
    inversePerm[perm[d]] = d;
  return createCast(b, createTranspose(b, createReshape(b, y, others), inversePerm),
                    resultType);
}

/// Checks what createDft needs of a signal [..., C]: a float element type,
/// C of 1 or 2, a length in [1, kMaxDftLength], onesided only for real input.
LogicalResult checkDftOperands(NodeContext &ctx, Value x, int64_t length,
                               bool onesided, bool inverse) {
  if (!isFloat(x))
    return ctx.fail("the signal must be floating point");
  int64_t c = getShape(x).back();
  if (c != 1 && c != 2)
    return ctx.fail("the signal's last dim must be 1 (real) or 2 (complex), got " +
                    Twine(c));
  if (length < 1 || length > kMaxDftLength)
    return ctx.fail("DFT length " + Twine(length) + " is outside [1, " +
                    Twine(kMaxDftLength) + "] (it is built as an O(n^2) matmul)");
  if (onesided && (c == 2 || inverse))
    return ctx.fail("onesided output needs a real signal and a forward transform");
  return success();
}

/// DFT-17 (`axis` attribute; DFT-20 takes it as input 2).
LogicalResult convertDft(NodeContext &ctx) {
  if (ctx.opset() >= 20)
    return ctx.fail("DFT-20 (axis as an input) is not supported; export with opset 17-19");
  Value x = ctx.input(0);
  int64_t rank = getShape(x).size();
  int64_t axis = ctx.getInt("axis", 1);
  std::optional<int64_t> dim = normalizeAxis(axis, rank);
  if (rank < 2 || !dim || *dim == rank - 1)
    return ctx.unsupportedAttr("axis", Twine(axis) + " (not a signal dim of rank " +
                                           Twine(rank) + ")");
  int64_t length = getShape(x)[*dim];
  if (ctx.hasInput(1)) {
    auto value = ctx.constantScalarInput(1);
    if (failed(value))
      return failure();
    length = static_cast<int64_t>(*value);
  }
  bool onesided = ctx.getInt("onesided", 0), inverse = ctx.getInt("inverse", 0);
  if (failed(checkDftOperands(ctx, x, length, onesided, inverse)))
    return failure();
  ctx.setOutput(0, createDft(ctx.b, x, *dim, length, onesided, inverse));
  return success();
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

/// Frames [B, F, frameLength, C] of `signal` [B, L, C], frame f starting at
/// f * step, as one tosa.gather with constant indices.
Value gatherFrames(ImplicitLocOpBuilder &b, Value signal, int64_t frames,
                   int64_t frameLength, int64_t step) {
  ArrayRef<int64_t> shape = getShape(signal);
  int64_t batch = shape[0], c = shape[2];
  SmallVector<int32_t> indices;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t n = 0; n < frameLength; ++n)
      indices.push_back(f * step + n);
  int64_t w = indices.size();
  Value idx = createTile(b, createI32Const(b, indices, {1, w}), {batch, 1});
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({batch, w, c}, getElementType(signal)), signal, idx);
  return createReshape(b, gathered, {batch, frames, frameLength, c});
}

/// STFT: signal [B, L, 1 or 2], frame_step, optional window [frame_length],
/// optional frame_length -> [B, frames, bins, 2].
LogicalResult convertStft(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value signal = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(signal);
  if (shape.size() != 3)
    return ctx.fail("the signal must be [batch, length, 1 or 2]");
  auto step = ctx.constantScalarInput(1);
  if (failed(step))
    return failure();
  Value window = ctx.hasInput(2) ? ctx.input(2) : nullptr;
  int64_t frameLength = window ? getNumElements(getShape(window)) : 0;
  if (ctx.hasInput(3)) {
    auto value = ctx.constantScalarInput(3);
    if (failed(value))
      return failure();
    if (window && static_cast<int64_t>(*value) != frameLength)
      return ctx.fail("frame_length " + Twine(static_cast<int64_t>(*value)) +
                      " differs from the window's length " + Twine(frameLength));
    frameLength = static_cast<int64_t>(*value);
  } else if (!window) {
    return ctx.fail("needs a window or a frame_length");
  }
  auto frameStep = static_cast<int64_t>(*step);
  if (frameStep < 1 || frameLength < 1 || frameLength > shape[1])
    return ctx.fail("frame_step " + Twine(frameStep) + " and frame length " +
                    Twine(frameLength) + " do not frame a signal of length " +
                    Twine(shape[1]));
  bool onesided = ctx.getInt("onesided", 1);
  if (failed(checkDftOperands(ctx, signal, frameLength, onesided, false)))
    return failure();
  int64_t frames = (shape[1] - frameLength) / frameStep + 1;
  Value x = gatherFrames(b, signal, frames, frameLength, frameStep);
  if (window)
    x = createMul(b, x,
                  createReshape(b, createCast(b, window, getElementType(x)),
                                {1, 1, frameLength, 1}));
  ctx.setOutput(0, createDft(b, x, 2, frameLength, onesided, false));
  return success();
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

/// numpy's float floor division a // b (npy_divmod in npymath).
double numpyFloorDivide(double a, double b) {
  double mod = std::fmod(a, b), div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1;
  if (div == 0)
    return std::copysign(0.0, a / b);
  double floorDiv = std::floor(div);
  return div - floorDiv > 0.5 ? floorDiv + 1 : floorDiv;
}

/// The ONNX reference's triangular filters, [dftLength/2 + 1, numMelBins]
/// row-major; fails when a filter edge lands outside the spectrogram bins.
FailureOr<SmallVector<double>> melWeights(NodeContext &ctx, int64_t numMelBins,
                                          int64_t dftLength, double sampleRate,
                                          double lowerHz, double upperHz) {
  auto hzToMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double lowMel = hzToMel(lowerHz);
  double melStep = (hzToMel(upperHz) - lowMel) / (numMelBins + 2);
  int64_t spectrogramBins = dftLength / 2 + 1;
  SmallVector<int64_t> edges;
  for (int64_t i = 0; i < numMelBins + 2; ++i) {
    double hz = 700 * (std::pow(10.0, (i * melStep + lowMel) / 2595) - 1);
    edges.push_back(static_cast<int64_t>(numpyFloorDivide((dftLength + 1) * hz, sampleRate)));
    if (edges.back() < 0 || edges.back() >= spectrogramBins)
      return ctx.fail("mel filter edge " + Twine(edges.back()) +
                      " is outside the " + Twine(spectrogramBins) +
                      " spectrogram bins (check the edge frequencies)");
  }
  SmallVector<double> out(spectrogramBins * numMelBins, 0);
  auto at = [&](int64_t j, int64_t i) -> double & { return out[j * numMelBins + i]; };
  for (int64_t i = 0; i < numMelBins; ++i) {
    int64_t low = edges[i], center = edges[i + 1], high = edges[i + 2];
    if (center == low)
      at(center, i) = 1;
    else
      for (int64_t j = low; j <= center; ++j)
        at(j, i) = double(j - low) / double(center - low);
    for (int64_t j = center; j < high; ++j)
      at(j, i) = double(high - j) / double(high - center);
  }
  return out;
}

LogicalResult convertMelWeightMatrix(NodeContext &ctx) {
  SmallVector<double> args;
  for (unsigned i = 0; i < 5; ++i) {
    auto value = ctx.constantScalarInput(i);
    if (failed(value))
      return failure();
    args.push_back(*value);
  }
  auto elementType = getOutputDatatype(ctx);
  if (failed(elementType))
    return failure();
  auto numMelBins = static_cast<int64_t>(args[0]);
  auto dftLength = static_cast<int64_t>(args[1]);
  if (numMelBins < 1 || dftLength < 1 || args[2] <= 0)
    return ctx.fail("num_mel_bins, dft_length and sample_rate must be positive");
  auto weights = melWeights(ctx, numMelBins, dftLength, args[2], args[3], args[4]);
  if (failed(weights))
    return failure();
  ctx.setOutput(0, createConstFromDoubles(ctx.b, *elementType,
                                          {dftLength / 2 + 1, numMelBins}, *weights));
  return success();
}

} // namespace

void registerSignalOps(ConverterMap &map) {
  map["HannWindow"] = convertWindow<kHann>;
  map["HammingWindow"] = convertWindow<kHamming>;
  map["BlackmanWindow"] = convertWindow<kBlackman>;
  map["DFT"] = convertDft;
  map["STFT"] = convertStft;
  map["MelWeightMatrix"] = convertMelWeightMatrix;
}

} // namespace loupe::frontends::onnx_import
