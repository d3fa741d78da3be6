//===- OnnxOpsEinsum.cpp - Einsum as transposes, sums and batched matmuls -===//
//
// Einsum (opset 12+) with numpy's equation semantics (numpy.einsum, which the
// ONNX reference onnx/backend/test/case/node/einsum.py calls): an explicit
// output ("ij,jk->ik") or an implicit one ("ij,jk": the ellipsis dims, then
// the labels used exactly once, in ASCII order); "..." stands for the dims
// the letters leave over and broadcasts from the right; a label repeated
// within one operand takes the diagonal; labels absent from the output are
// summed. As in numpy, a size-1 dim broadcasts against the same label's size
// in another operand (here by tiling).
//
// Operands are contracted pairwise from left to right (numpy's unoptimized
// order): labels needed neither by the partner, nor by a later operand, nor by
// the output are summed first (tosa.reduce_sum); the pair then becomes one
// batched tosa.matmul, [batch, M, K] x [batch, K, N], between transposes and
// reshapes. A diagonal is the every-(n+1)-th element of the two dims merged.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <array>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// Label ids: a letter is its ASCII code; the ellipsis dim `i` places from
/// the right is kEllipsis + i, so ellipses of different ranks align right.
constexpr int kEllipsis = 256;

/// One side of an equation as written: letters around at most one "...".
struct Subscript {
  std::string head, tail;
  bool ellipsis = false;
};

/// Splits `text`; nullopt on any character but letters and one "...".
std::optional<Subscript> parseSubscript(StringRef text) {
  Subscript sub;
  size_t dots = text.find("...");
  sub.ellipsis = dots != StringRef::npos;
  sub.head = text.substr(0, dots).str();
  if (sub.ellipsis)
    sub.tail = text.substr(dots + 3).str();
  if (!llvm::all_of(sub.head + sub.tail, [](char c) { return llvm::isAlpha(c); }))
    return std::nullopt;
  return sub;
}

/// One label per dim, the ellipsis standing for `ellipsisRank` dims.
SmallVector<int> expandLabels(const Subscript &sub, int64_t ellipsisRank) {
  SmallVector<int> labels(sub.head.begin(), sub.head.end());
  for (int64_t i = ellipsisRank - 1; i >= 0; --i)
    labels.push_back(kEllipsis + i);
  labels.append(sub.tail.begin(), sub.tail.end());
  return labels;
}

/// A parsed equation: the labels of each input's dims and of the output's.
struct Equation {
  SmallVector<SmallVector<int>> inputs;
  SmallVector<int> output;
};

/// Parses `text` (whitespace ignored) for inputs of `ranks`; fails, naming
/// the equation and the reason, when it is malformed.
FailureOr<Equation> parseEquation(NodeContext &ctx, StringRef text,
                                  ArrayRef<int64_t> ranks) {
  auto malformed = [&](const Twine &why) {
    return ctx.fail("malformed equation '" + text + "': " + why);
  };
  std::string compact;
  for (char c : text)
    if (!llvm::isSpace(c))
      compact += c;
  StringRef lhs = compact, rhs;
  size_t arrow = lhs.find("->");
  bool explicitOutput = arrow != StringRef::npos;
  if (explicitOutput) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.take_front(arrow);
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return malformed(Twine(terms.size()) + " operand(s) for " +
                     Twine(ranks.size()) + " input(s)");

  Equation eq;
  int64_t ellipsisRank = 0;
  std::array<int, 128> uses{};
  for (auto [i, term] : llvm::enumerate(terms)) {
    auto sub = parseSubscript(term);
    if (!sub)
      return malformed("operand " + Twine(i) +
                       " holds something other than letters and one '...'");
    int64_t letters = sub->head.size() + sub->tail.size();
    int64_t rest = ranks[i] - letters;
    if (rest < 0 || (rest > 0 && !sub->ellipsis))
      return malformed("operand " + Twine(i) + " has " + Twine(letters) +
                       " label(s) for rank " + Twine(ranks[i]));
    ellipsisRank = std::max(ellipsisRank, rest);
    eq.inputs.push_back(expandLabels(*sub, rest));
    for (char c : sub->head + sub->tail)
      ++uses[c];
  }

  if (!explicitOutput) {
    eq.output = expandLabels(Subscript{"", "", true}, ellipsisRank);
    for (int c = 0; c < 128; ++c)
      if (uses[c] == 1)
        eq.output.push_back(c);
    return eq;
  }
  auto sub = parseSubscript(rhs);
  if (!sub)
    return malformed("the output holds something other than letters and "
                     "one '...'");
  if (ellipsisRank > 0 && !sub->ellipsis)
    return malformed("the output drops the dims of '...'");
  std::string letters = sub->head + sub->tail;
  for (char c : letters) {
    if (!uses[c])
      return malformed("output label '" + Twine(c) + "' is in no operand");
    if (llvm::count(letters, c) > 1)
      return malformed("output label '" + Twine(c) + "' repeats");
  }
  eq.output = expandLabels(*sub, ellipsisRank);
  return eq;
}

/// An operand during the contraction: its value and one label per dim.
struct Operand {
  Value value;
  SmallVector<int> labels;

  bool has(int label) const { return llvm::is_contained(labels, label); }
  int64_t size(int label) const {
    return getShape(value)[llvm::find(labels, label) - labels.begin()];
  }
  SmallVector<int64_t> sizes(ArrayRef<int> of) const {
    return llvm::map_to_vector(of, [&](int label) { return size(label); });
  }
};

/// Sums `op` over the dims whose label `keep` rejects, dropping them.
void sumOut(ImplicitLocOpBuilder &b, Operand &op,
            llvm::function_ref<bool(int)> keep) {
  SmallVector<int> labels;
  SmallVector<int64_t> shape;
  for (auto [d, label] : llvm::enumerate(op.labels)) {
    if (keep(label)) {
      labels.push_back(label);
      shape.push_back(getShape(op.value)[d]);
    } else {
      op.value = createReduce<tosa::ReduceSumOp>(b, op.value, d);
    }
  }
  op.value = createReshape(b, op.value, shape);
  op.labels = labels;
}

/// Transposes `op` so its (distinct) labels come in `order`.
void permute(ImplicitLocOpBuilder &b, Operand &op, ArrayRef<int> order) {
  SmallVector<int64_t> perm;
  for (int label : order)
    perm.push_back(llvm::find(op.labels, label) - op.labels.begin());
  op.value = createTranspose(b, op.value, perm);
  op.labels.assign(order.begin(), order.end());
}

/// Replaces each pair of dims sharing a label by their diagonal: the two
/// dims move last and merge into n*n elements, of which every (n+1)-th is on
/// the diagonal.
LogicalResult takeDiagonals(NodeContext &ctx, Operand &op) {
  auto findTwins = [&]() -> std::optional<std::pair<size_t, size_t>> {
    for (size_t i = 0; i < op.labels.size(); ++i)
      for (size_t j = i + 1; j < op.labels.size(); ++j)
        if (op.labels[i] == op.labels[j])
          return std::make_pair(i, j);
    return std::nullopt;
  };
  while (auto twins = findTwins()) {
    auto [i, j] = *twins;
    ArrayRef<int64_t> shape = getShape(op.value);
    int64_t n = shape[i];
    int label = op.labels[i];
    if (shape[j] != n)
      return ctx.fail("label '" + Twine(char(label)) + "' has sizes " +
                      Twine(n) + " and " + Twine(shape[j]) +
                      " within one operand");
    SmallVector<int64_t> perm, merged;
    SmallVector<int> labels;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (d == i || d == j)
        continue;
      perm.push_back(d);
      merged.push_back(shape[d]);
      labels.push_back(op.labels[d]);
    }
    perm.append({static_cast<int64_t>(i), static_cast<int64_t>(j)});
    merged.push_back(n * n);
    labels.push_back(label);
    Value flat = createReshape(ctx.b, createTranspose(ctx.b, op.value, perm),
                               merged);
    op.value = subsample(ctx.b, flat, merged.size() - 1, n + 1);
    op.labels = labels;
  }
  return success();
}

/// Tiles the size-1 dims of `op` whose label is larger in `other`.
void broadcastShared(ImplicitLocOpBuilder &b, Operand &op,
                     const Operand &other) {
  SmallVector<int64_t> multiples;
  for (int label : op.labels)
    multiples.push_back(other.has(label) && op.size(label) == 1
                            ? other.size(label)
                            : 1);
  op.value = createTile(b, op.value, multiples);
}

/// lhs x rhs as one batched tosa.matmul: labels of both that `needed` keeps
/// are the batch, those of both it rejects the contracted K, the others M
/// (lhs) and N (rhs). Result labels: batch, M, N.
FailureOr<Operand> contract(NodeContext &ctx, Operand lhs, Operand rhs,
                            llvm::function_ref<bool(int)> needed) {
  ImplicitLocOpBuilder &b = ctx.b;
  sumOut(b, lhs, [&](int label) { return rhs.has(label) || needed(label); });
  sumOut(b, rhs, [&](int label) { return lhs.has(label) || needed(label); });
  SmallVector<int> batch, m, k, n;
  for (int label : lhs.labels) {
    if (!rhs.has(label)) {
      m.push_back(label);
      continue;
    }
    int64_t l = lhs.size(label), r = rhs.size(label);
    if (l != r && l != 1 && r != 1)
      return ctx.fail("a label has sizes " + Twine(l) + " and " + Twine(r) +
                      " that do not broadcast");
    (needed(label) ? batch : k).push_back(label);
  }
  for (int label : rhs.labels)
    if (!lhs.has(label))
      n.push_back(label);
  broadcastShared(b, lhs, rhs);
  broadcastShared(b, rhs, lhs);

  permute(b, lhs, llvm::to_vector(llvm::concat<int>(batch, m, k)));
  permute(b, rhs, llvm::to_vector(llvm::concat<int>(batch, k, n)));
  int64_t p = getNumElements(lhs.sizes(batch));
  int64_t rows = getNumElements(lhs.sizes(m));
  int64_t inner = getNumElements(lhs.sizes(k));
  int64_t cols = getNumElements(rhs.sizes(n));
  Value product = b.create<tosa::MatMulOp>(
      getTensorType({p, rows, cols}, getElementType(lhs.value)),
      createReshape(b, lhs.value, {p, rows, inner}),
      createReshape(b, rhs.value, {p, inner, cols}));
  SmallVector<int64_t> shape = lhs.sizes(batch);
  llvm::append_range(shape, lhs.sizes(m));
  llvm::append_range(shape, rhs.sizes(n));
  return Operand{createReshape(b, product, shape),
                 llvm::to_vector(llvm::concat<int>(batch, m, n))};
}

LogicalResult convertEinsum(NodeContext &ctx) {
  if (!ctx.hasAttr("equation") || ctx.numInputs() == 0)
    return ctx.fail("needs an 'equation' and at least one input");
  SmallVector<int64_t> ranks;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    ranks.push_back(ctx.inputType(i).getRank());
  std::string text = ctx.getString("equation", "");
  auto eq = parseEquation(ctx, text, ranks);
  if (failed(eq))
    return failure();
  if (ranks.size() > 1 && !isFloat(ctx.input(0)))
    return ctx.fail("only floating-point Einsum of several operands is "
                    "supported (tosa.matmul)");

  SmallVector<Operand> operands;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    operands.push_back({ctx.input(i), eq->inputs[i]});
    if (failed(takeDiagonals(ctx, operands.back())))
      return failure();
  }
  auto inOutput = [&](int label) {
    return llvm::is_contained(eq->output, label);
  };
  Operand result = operands.front();
  for (size_t i = 1; i < operands.size(); ++i) {
    ArrayRef<Operand> later = ArrayRef<Operand>(operands).drop_front(i + 1);
    auto needed = [&](int label) {
      return inOutput(label) ||
             llvm::any_of(later, [&](const Operand &op) { return op.has(label); });
    };
    auto product = contract(ctx, result, operands[i], needed);
    if (failed(product))
      return failure();
    result = *product;
  }
  sumOut(ctx.b, result, inOutput);
  permute(ctx.b, result, eq->output);
  ctx.setOutput(0, result.value);
  return success();
}

} // namespace

void registerEinsumOps(ConverterMap &map) { map["Einsum"] = convertEinsum; }

} // namespace loupe::frontends::onnx_import
