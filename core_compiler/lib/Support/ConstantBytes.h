//===- ConstantBytes.h - The row-major bytes of a constant value -*- C++ -*-===//
//
// Weights reach the artifact, the compile-time transposes and the blob table as bytes. A
// constant holds them either as a resource blob (dense_resource, the importer's weights) or as
// a dense attribute; this is the one place that tells which bytes a value has.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SUPPORT_CONSTANTBYTES_H
#define LOUPE_SUPPORT_CONSTANTBYTES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>

namespace loupe {

/// Every slot of the artifact's weight blob starts on a cache line (and any SIMD width):
/// ral-externalize-constants lays the blob out, loupe-pack-gemv-weights adds packed slots.
constexpr int64_t kWeightSlotAlignment = 64;

/// The row-major bytes of a constant value: a resource blob's (none when the blob has no bytes,
/// e.g. parsed from IR printed with its weights elided), or a non-splat dense value's whose
/// elements are whole bytes. nullopt for anything else (splats, i1, other attributes).
inline std::optional<llvm::ArrayRef<char>> elementBytes(mlir::Attribute value) {
  if (auto resource = llvm::dyn_cast_or_null<mlir::DenseResourceElementsAttr>(value)) {
    if (mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
    return std::nullopt;
  }
  auto dense = llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(value);
  if (!dense || dense.isSplat() || !dense.getElementType().isIntOrFloat() ||
      dense.getElementType().getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  return dense.getRawData();
}

} // namespace loupe

#endif // LOUPE_SUPPORT_CONSTANTBYTES_H
