//===- PackGemvWeights.cpp - Constant GEMV weights in 64-column panels --------===//
//
// See Passes.td. A code-generated GEMV tiles N into 64-float vectors, one workgroup per tile;
// read from a row-major KxN weight, a tile is K pieces of 256 bytes, N * 4 bytes apart. Packed
// into panels [N / 64, K, 64] once, at compile time, each workgroup reads one contiguous block
// (the layout GEMM libraries pack B into: Goto and van de Geijn, "Anatomy of high-performance
// matrix multiplication", ACM TOMS 2008).
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "loupe/Dialect/Ral/IR/RalDialect.h"
#include "../Support/ConstantBytes.h"
#include "DispatchTable.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <map>

namespace loupe {
#define GEN_PASS_DEF_PACKGEMVWEIGHTS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
/// Floats of a panel: the vector tile loupe-vectorize-cpu gives an accumulating op.
constexpr int64_t kPanel = 64;
using loupe::kWeightSlotAlignment;

/// A GEMV this pass packs: C[1, N] += A[1, K] * B[K, N] (matmul, or batch_matmul of batch 1),
/// f32, static, B a weight of the blob, N more than one panel wide.
struct Gemv {
  linalg::LinalgOp op;
  loupe::ralir::ConstantOp weight;
  int64_t k = 0, n = 0;
  int64_t panels() const { return n / kPanel; }
  int64_t tail() const { return n % kPanel; } ///< Columns after the last whole panel.
};

std::optional<Gemv> matchGemv(linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  auto backend = op->getAttrOfType<StringAttr>("loupe.backend");
  if (!backend || backend.getValue() != "codegen")
    return std::nullopt;
  auto a = cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto b = cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto c = cast<MemRefType>(op.getDpsInits()[0].getType());
  for (MemRefType t : {a, b, c})
    if (!t.hasStaticShape() || !t.getElementType().isF32() ||
        llvm::any_of(t.getShape().drop_back(2), [](int64_t d) { return d != 1; }))
      return std::nullopt;
  auto weight = op.getDpsInputs()[1].getDefiningOp<loupe::ralir::ConstantOp>();
  int64_t k = b.getShape().end()[-2], n = b.getShape().back();
  if (!weight || a.getShape().end()[-2] != 1 || n <= kPanel)
    return std::nullopt;
  // A and C become 1-D views: their unit dims must fold away.
  auto flat = [](MemRefType t) {
    return memref::CollapseShapeOp::isGuaranteedCollapsible(
        t, {llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()))});
  };
  if (!flat(a) || !flat(c))
    return std::nullopt;
  return Gemv{op, weight, k, n};
}

/// The blob's table (`ral.weights`), editable: slots by offset.
struct WeightTable {
  int64_t bytes = 0;
  std::map<int64_t, DictionaryAttr> slots;

  /// The bytes of the slot at `offset`, if it has them.
  std::optional<ArrayRef<char>> read(int64_t offset) const {
    auto slot = slots.find(offset);
    return slot == slots.end() ? std::nullopt : loupe::elementBytes(slot->second.get("value"));
  }
  std::string name(int64_t offset) const {
    auto slot = slots.find(offset);
    auto name = slot == slots.end() ? StringAttr() : slot->second.getAs<StringAttr>("name");
    return name ? name.str() : "weight";
  }
  /// Appends an f32 slot of `shape` holding `data` (a resource blob named `key`); its offset.
  int64_t add(Builder &b, const std::string &key, ArrayRef<int64_t> shape,
              ArrayRef<char> data) {
    int64_t offset = llvm::alignTo(bytes, kWeightSlotAlignment);
    auto value = DenseResourceElementsAttr::get(
        RankedTensorType::get(shape, b.getF32Type()), key,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(data, kWeightSlotAlignment));
    slots[offset] = b.getDictionaryAttr({b.getNamedAttr("name", b.getStringAttr(key)),
                                         b.getNamedAttr("offset", b.getI64IntegerAttr(offset)),
                                         b.getNamedAttr("value", value)});
    bytes = offset + static_cast<int64_t>(data.size());
    return offset;
  }
};

/// Where a weight's packed parts lie in the blob: its panels [N / 64, K, 64] and, when N is
/// no multiple of 64, its last N % 64 columns [K, N % 64].
struct PackedWeight {
  int64_t panels = -1, tail = -1;
};

/// Packs the row-major [K, N] f32 weight `bytes` of `gemv` into two new slots of `table`.
PackedWeight pack(Builder &b, WeightTable &table, const Gemv &gemv, ArrayRef<char> bytes,
                  const std::string &name) {
  constexpr size_t kFloat = sizeof(float);
  int64_t k = gemv.k, n = gemv.n, tail = gemv.tail(), whole = n - tail;
  std::vector<char> panels(k * whole * kFloat), rest(k * tail * kFloat);
  for (int64_t p = 0; p < gemv.panels(); ++p)
    for (int64_t row = 0; row < k; ++row)
      std::memcpy(&panels[(p * k + row) * kPanel * kFloat],
                  &bytes[(row * n + p * kPanel) * kFloat], kPanel * kFloat);
  for (int64_t row = 0; row < k; ++row)
    std::memcpy(&rest[row * tail * kFloat], &bytes[(row * n + whole) * kFloat], tail * kFloat);
  PackedWeight packed;
  packed.panels = table.add(b, name + ".panels", {gemv.panels(), k, kPanel}, panels);
  if (tail)
    packed.tail = table.add(b, name + ".tail", {k, tail}, rest);
  return packed;
}

std::optional<WeightTable> readTable(ModuleOp module) {
  auto table = module->getAttrOfType<DictionaryAttr>("ral.weights");
  if (!table)
    return std::nullopt;
  auto bytes = table.getAs<IntegerAttr>("bytes");
  auto constants = table.getAs<ArrayAttr>("constants");
  if (!bytes || !constants)
    return std::nullopt;
  WeightTable out{bytes.getInt(), {}};
  for (auto slot : constants.getAsRange<DictionaryAttr>())
    if (auto offset = slot.getAs<IntegerAttr>("offset"))
      out.slots[offset.getInt()] = slot;
  return out;
}

/// Re-lays the blob out with only the slots some ral.constant still reads, in offset order,
/// and moves those reads to the new offsets: a weight every GEMV of it reads packed leaves.
void writeTable(ModuleOp module, func::FuncOp entry, const WeightTable &table) {
  Builder b(module.getContext());
  std::map<int64_t, SmallVector<loupe::ralir::ConstantOp>> reads;
  entry.walk([&](loupe::ralir::ConstantOp read) {
    reads[static_cast<int64_t>(read.getOffset())].push_back(read);
  });
  SmallVector<Attribute> constants;
  int64_t bytes = 0;
  for (auto [offset, slot] : table.slots) {
    auto found = reads.find(offset);
    if (found == reads.end())
      continue;
    int64_t size = loupe::elementBytes(slot.get("value")).value_or(ArrayRef<char>()).size();
    int64_t moved = llvm::alignTo(bytes, kWeightSlotAlignment);
    bytes = moved + size;
    NamedAttrList fields(slot);
    fields.set("offset", b.getI64IntegerAttr(moved));
    constants.push_back(fields.getDictionary(module.getContext()));
    for (loupe::ralir::ConstantOp read : found->second)
      read.setOffset(static_cast<uint64_t>(moved));
  }
  module->setAttr("ral.weights",
                  b.getDictionaryAttr({b.getNamedAttr("bytes", b.getI64IntegerAttr(bytes)),
                                       b.getNamedAttr("constants", b.getArrayAttr(constants))}));
}

/// `value` (a memref with foldable unit dims) as a 1-D view.
Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  if (type.getRank() == 1)
    return value;
  return b.create<memref::CollapseShapeOp>(
      loc, value,
      SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
}

/// A generic `out += a * w` (the named op's body, `body`) with `maps` and `iterators`.
linalg::GenericOp accumulate(OpBuilder &b, Location loc, Region &body, Value a, Value w,
                             Value out, ArrayRef<SmallVector<AffineExpr>> maps,
                             ArrayRef<utils::IteratorType> iterators) {
  SmallVector<ArrayRef<AffineExpr>> exprs(maps.begin(), maps.end());
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{}, ValueRange{a, w}, ValueRange{out},
      AffineMap::inferFromExprList(exprs, b.getContext()), iterators);
  IRMapping same;
  body.cloneInto(&generic.getRegion(), same);
  return generic;
}

/// Replaces `gemv` by generics over its packed weight: C[p, l] += A[k] * panels[p, k, l] over
/// (p, k, l), then C[whole + j] += A[k] * tail[k, j] over (j, k). Both carry the op's
/// attributes (its dispatch, backend and cluster).
void rewrite(OpBuilder &b, Gemv gemv, const PackedWeight &packed) {
  linalg::LinalgOp op = gemv.op;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  auto weight = [&](int64_t offset, ArrayRef<int64_t> shape) -> Value {
    return b.create<loupe::ralir::ConstantOp>(gemv.weight.getLoc(),
                                              MemRefType::get(shape, b.getF32Type()),
                                              gemv.weight.getCtx(), uint64_t(offset));
  };
  Value a = flatten(b, loc, op.getDpsInputs()[0]);
  Value c = flatten(b, loc, op.getDpsInits()[0]);
  auto columns = [&](int64_t from, int64_t size) -> Value {
    if (from == 0 && size == gemv.n)
      return c;
    return b.create<memref::SubViewOp>(loc, c, ArrayRef<int64_t>{from}, ArrayRef<int64_t>{size},
                                       ArrayRef<int64_t>{1});
  };
  using utils::IteratorType;
  AffineExpr d0, d1, d2;
  bindDims(b.getContext(), d0, d1, d2);
  int64_t whole = gemv.n - gemv.tail();
  Value panels = weight(packed.panels, {gemv.panels(), gemv.k, kPanel});
  Value inPanels = b.create<memref::ExpandShapeOp>(
      loc, SmallVector<int64_t>{gemv.panels(), kPanel}, columns(0, whole),
      SmallVector<ReassociationIndices>{{0, 1}});
  SmallVector<Operation *> made = {
      accumulate(b, loc, op->getRegion(0), a, panels, inPanels, {{d1}, {d0, d1, d2}, {d0, d2}},
                 {IteratorType::parallel, IteratorType::reduction, IteratorType::parallel})};
  if (gemv.tail()) {
    Value tail = weight(packed.tail, {gemv.k, gemv.tail()});
    Value inTail = columns(whole, gemv.tail());
    made.push_back(accumulate(b, loc, op->getRegion(0), a, tail, inTail, {{d1}, {d1, d0}, {d0}},
                              {IteratorType::parallel, IteratorType::reduction}));
  }
  for (Operation *generic : made)
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().strref().starts_with("loupe."))
        generic->setAttr(attr.getName(), attr.getValue());
  op->erase();
}

struct PackGemvWeightsPass : loupe::impl::PackGemvWeightsBase<PackGemvWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = loupe::lookupEntryFunction(module);
    std::optional<WeightTable> table = readTable(module);
    if (!entry || entry.isExternal() || !table)
      return;
    SmallVector<Gemv> gemvs;
    entry.walk([&](linalg::LinalgOp op) {
      if (std::optional<Gemv> gemv = matchGemv(op))
        gemvs.push_back(*gemv);
    });
    if (gemvs.empty())
      return;

    OpBuilder b(&getContext());
    std::map<int64_t, PackedWeight> packedOf; // by the weight's offset: once per weight
    std::map<int64_t, std::string> schedules;
    for (Gemv &gemv : gemvs) {
      int64_t offset = static_cast<int64_t>(gemv.weight.getOffset());
      auto found = packedOf.find(offset);
      if (found == packedOf.end()) {
        std::optional<ArrayRef<char>> bytes = table->read(offset);
        if (!bytes || static_cast<int64_t>(bytes->size()) != gemv.k * gemv.n * 4)
          continue;
        found = packedOf.emplace(offset, pack(b, *table, gemv, *bytes, table->name(offset))).first;
      }
      if (std::optional<int64_t> id = loupe::dispatchOf(gemv.op, entry))
        schedules[*id] = "B packed at compile time into " + std::to_string(gemv.panels()) +
                         (gemv.panels() == 1 ? " panel" : " panels") + " of " +
                         std::to_string(gemv.k) + "x64" +
                         (gemv.tail() ? " and its last " + std::to_string(gemv.tail()) + " columns"
                                      : "");
      rewrite(b, gemv, found->second);
    }

    // Weights nothing reads any more go; the reads of the others move.
    SmallVector<loupe::ralir::ConstantOp> unread;
    entry.walk([&](loupe::ralir::ConstantOp read) {
      if (read->use_empty())
        unread.push_back(read);
    });
    for (loupe::ralir::ConstantOp read : unread)
      read->erase();
    writeTable(module, entry, *table);
    Builder attrs(&getContext());
    loupe::updateDispatchRows(entry, [&](int64_t id, NamedAttrList &fields) {
      if (auto found = schedules.find(id); found != schedules.end())
        fields.set("schedule", attrs.getStringAttr(found->second));
    });
  }
};
} // namespace
