//===- DispatchTable.h - The entry's dispatch table, for CPU passes --*- C++ -*-===//
//
// loupe-instrument-dispatches gives the entry a `loupe.dispatches` table (one dictionary per
// dispatch, at the position of its id) and puts a `ral_dispatch_begin` marker before each
// dispatch's top-level op; later passes add what they decided to a dispatch's row.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_DISPATCHTABLE_H
#define LOUPE_TRANSFORMS_DISPATCHTABLE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace loupe {

/// The dispatch `op` belongs to: the id of the `ral_dispatch_begin` before its top-level op in
/// `func` (which a rewrite such as loupe-linearize-elementwise may have replaced since).
std::optional<int64_t> dispatchOf(mlir::Operation *op, mlir::func::FuncOp func);

/// Lets `update(id, fields)` edit each row of `func`'s dispatch table; does nothing when
/// `func` has none.
void updateDispatchRows(mlir::func::FuncOp func,
                        llvm::function_ref<void(int64_t id, mlir::NamedAttrList &fields)> update);

} // namespace loupe

#endif // LOUPE_TRANSFORMS_DISPATCHTABLE_H
