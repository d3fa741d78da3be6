//===- FormClusters.cpp - Backend choice and clustering into loupe.fusion regions ---===//
//
// See Passes.td. Union-find clustering with a cycle check on every merge after OneFlow XRT
// (seed 002); op patterns after TVM/RAF FuseOps (seed 004); fusion kinds and their rules after
// BladeDISC (seed 003); rematerialisation of cheap producers after IREE (seed 001).
//
//===----------------------------------------------------------------------===//
#include "OpPatterns.h"
#include "StitchFusion.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace loupe {
#define GEN_PASS_DEF_FORMCLUSTERS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe;
namespace backends = loupe::backends;

namespace {

/// One clusterable op of the entry function.
struct Node {
  Operation *op;
  OpPattern pattern;
  backends::Selection backend; ///< codegen unless a library backend runs the op.
  bool library() const { return backend.backend != backends::kCodegen && !backend.kernel.empty(); }
};

/// How far a library cluster's fuse pattern (matmul_bias_act, conv_bias_act) has got.
enum class EpilogueStage { kNone, kView, kBias, kChain, kActivation };

/// A multi-op activation read from one value, as the ONNX importer lowers it (several
/// elementwise ops, the value read twice): its ops and the fuse-pattern op covering it.
struct ActivationChain {
  llvm::SmallPtrSet<Operation *, 8> ops;
  const char *name = ""; ///< "gelu_erf", "hardswish" or "silu" (the fuse patterns' op names).
  const char *title = ""; ///< For reasons: "GELU", "hardswish", "SiLU".
};

/// What the rules need to know about a cluster (kept at its union-find leader).
struct ClusterState {
  llvm::SmallVector<int> members; ///< Node ids, ascending (program order).
  int library = -1;               ///< Node id of the library op, if any.
  EpilogueStage epilogue = EpilogueStage::kNone;
  bool bias = false; ///< The epilogue adds a bias (a ReLU may follow C directly).
  bool residual = false; ///< The epilogue adds a tensor of C's shape (then perhaps a ReLU).
  ActivationChain chain; ///< The activation after the result, its view or its bias, if any.
  std::set<std::string> reductions; ///< kRowReduction, kColReduction, kInput.
  bool stitch = false;              ///< kStitch: a reduction's result is read inside.
  /// Kernel arguments: values read from outside (through cheap producers, which are cloned
  /// in) and values read outside. Kept up to date on every merge.
  llvm::SmallSetVector<Value, 8> inputs, outputs;
};

struct Refusal {
  int producer, consumer; ///< Node ids.
  std::string rule;
};

/// True when the all-parallel `op` reads `operand` at the index it writes: its map is the
/// identity up to unit dims pinned to 0 (TOSA reads a batch of 1 that way) and its shape is the
/// output's.
bool readsInPlace(linalg::LinalgOp op, OpOperand *operand) {
  auto type = dyn_cast<RankedTensorType>(operand->get().getType());
  return type && op->getNumResults() == 1 && type == op->getResult(0).getType() &&
         readsAtOutputIndex(op.getMatchingIndexingMap(operand), type);
}

/// `C + bias` (or `bias + C`, as TOSA adds a depthwise convolution's) with C read in place and
/// the bias along the last dim (a 1x1 convolution's per-channel bias on the NHWC view of its
/// matmul): the bias step of matmul_bias_act and of a depthwise conv's conv_bias_act.
bool isBiasAdd(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 || generic.getNumReductionLoops() ||
      generic.getNumLoops() < 2)
    return false;
  Block *body = generic.getBlock();
  auto *add = &body->front();
  if (body->getOperations().size() != 2 || !isa<arith::AddFOp>(add) ||
      add->getOperand(0) == add->getOperand(1))
    return false;
  for (unsigned c : {0u, 1u}) {
    OpOperand *bias = generic.getDpsInputOperand(1 - c);
    if (readsInPlace(generic, generic.getDpsInputOperand(c)) &&
        readsLastDimBias(generic.getMatchingIndexingMap(bias),
                         cast<ShapedType>(bias->get().getType())))
      return true;
  }
  return false;
}

/// `C + R` or `relu(C + R)` (then `*relu` is set) with C and R read in place (a residual
/// connection: ResNet's `relu(conv3 + shortcut)` after a 1x1 conv's matmul): the bias step of
/// matmul_bias_act, its kernel adding R as a post-op; a ReLU may follow.
bool isResidualAdd(Operation *op, bool *relu = nullptr) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 || generic.getNumReductionLoops() ||
      !readsInPlace(generic, generic.getDpsInputOperand(0)) ||
      !readsInPlace(generic, generic.getDpsInputOperand(1)))
    return false;
  Block *body = generic.getBlock();
  auto *add = &body->front();
  Value yielded = body->getTerminator()->getOperand(0);
  bool isAdd = isa<arith::AddFOp>(add) && body->getOperations().size() <= 4 &&
               llvm::is_contained(add->getOperands(), body->getArgument(0)) &&
               llvm::is_contained(add->getOperands(), body->getArgument(1));
  bool withRelu = isAdd && isReluOf(yielded, add->getResult(0));
  if (relu)
    *relu = withRelu;
  return isAdd && (yielded == add->getResult(0) || withRelu);
}

/// ReLU of one input (`max(x, 0)`, or a clamp to [0, max]; isReluOf): the activation step of
/// matmul_bias_act and conv_bias_act.
bool isRelu(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumReductionLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)).isIdentity() ||
      !readsInPlace(generic, generic.getDpsInputOperand(0)))
    return false;
  Block *body = generic.getBlock();
  return body->getOperations().size() <= 3 &&
         isReluOf(body->getTerminator()->getOperand(0), body->getArgument(0));
}

/// The NHWC -> NCHW transpose TOSA puts after a convolution.
bool isChannelsFirstView(Operation *op) {
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  return transpose && transpose.getPermutation() == llvm::ArrayRef<int64_t>{0, 3, 1, 2};
}

/// The one op of an elementwise generic's body, if it has exactly one besides the yield.
Operation *singleBodyOp(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() || generic.getBlock()->getOperations().size() != 2)
    return nullptr;
  return &generic.getBlock()->front();
}

/// The only user of `op`'s result, or null.
Operation *onlyUser(Operation *op) {
  return op->getNumResults() == 1 && op->getResult(0).hasOneUse()
             ? *op->getResult(0).getUsers().begin()
             : nullptr;
}

/// A clamp: an elementwise generic of one input whose body is a min and a max (TOSA's clamp).
bool isClamp(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() || generic.getNumDpsInputs() != 1 ||
      generic.getBlock()->getOperations().size() != 3)
    return false;
  Operation &first = generic.getBlock()->front(), *second = first.getNextNode();
  return (isa<arith::MinimumFOp>(first) && isa<arith::MaximumFOp>(second)) ||
         (isa<arith::MaximumFOp>(first) && isa<arith::MinimumFOp>(second));
}

/// The sigmoid TOSA lowers to an elementwise generic of one input (isSigmoidOf).
bool isSigmoid(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() || generic.getNumDpsInputs() != 1)
    return false;
  Block *body = generic.getBlock();
  return isSigmoidOf(body->getTerminator()->getOperand(0), body->getArgument(0));
}

/// The activation read from `x`'s result as the ONNX importer lowers it, each op its own
/// elementwise generic: the exact GELU `x * 0.5 * (1 + erf(x * 0.7071))` (mul, erf, add, mul
/// by x, mul), hardswish `x * clamp(x * 1/6 + 1/2, 0, 1)` (mul, add, clamp, mul by x) or SiLU
/// `x * sigmoid(x)` (sigmoid, mul by x). The ops are matched by kind; the constants are checked
/// when the library call is lowered (LibraryCallPatterns). No ops when they form none.
ActivationChain activationAfter(Operation *x) {
  llvm::SmallVector<Operation *> users(x->getUsers());
  if (users.size() != 2)
    return {};
  auto is = [](Operation *op, auto kind) {
    Operation *body = singleBodyOp(op);
    return body && isa<decltype(kind)>(body);
  };
  for (int first : {0, 1}) {
    Operation *scale = users[first], *times = users[1 - first];
    if (isSigmoid(scale) && is(times, arith::MulFOp()) && onlyUser(scale) == times)
      return {{scale, times}, "silu", "SiLU"};
    if (!is(scale, arith::MulFOp()) || !is(times, arith::MulFOp()))
      continue;
    Operation *next = onlyUser(scale);
    Operation *plus = next ? onlyUser(next) : nullptr;
    Operation *half = onlyUser(times);
    if (is(next, math::ErfOp()) && is(plus, arith::AddFOp()) && onlyUser(plus) == times &&
        is(half, arith::MulFOp()))
      return {{scale, next, plus, times, half}, "gelu_erf", "GELU"};
    Operation *clamp = plus;
    if (is(next, arith::AddFOp()) && isClamp(clamp) && onlyUser(clamp) == times)
      return {{scale, next, clamp, times}, "hardswish", "hardswish"};
  }
  return {};
}

bool hasStaticF32Operands(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto shaped = dyn_cast<RankedTensorType>(t);
    return shaped && shaped.hasStaticShape() && shaped.getElementType().isF32();
  });
}

class Clusterer {
public:
  Clusterer(func::FuncOp entry, const backends::Preferences &prefs, bool fusion, bool stitch,
            int64_t maxOperands, int64_t maxOps)
      : entry(entry), prefs(prefs), fusion(fusion), stitch(stitch), maxOperands(maxOperands),
        maxOps(maxOps) {}

  void run();

private:
  void sinkReluThroughResultViews();
  void splitMatmulBias();
  void collectNodes();
  backends::Selection selectBackend(Operation *op);
  std::string whyNot(int producer, int consumer);
  std::string libraryRule(const ClusterState &lib, const Node &consumer, int producer);
  ActivationChain chainOf(const ClusterState &lib);
  std::optional<std::string> chainRule(const ClusterState &lib, const Node &consumer,
                                       const backends::FusePattern &pattern,
                                       const std::string &who, const std::string &what);
  std::string stitchRule(const ClusterState &a, const ClusterState &b);
  bool createsCycle(int a, int b);
  void addInputs(Value v, llvm::SmallSetVector<Value, 8> &inputs);
  void mergedArguments(const ClusterState &a, const ClusterState &b, ClusterState &into);
  int64_t operandCount(int a, int b);
  void merge(int producer, int consumer);
  void materialize();

  int leader(int node) { return clusters.getLeaderValue(node); }
  llvm::SmallVector<int> producersOf(const Node &node);

  func::FuncOp entry;
  const backends::Preferences &prefs;
  bool fusion;
  bool stitch; ///< kStitch fusions are generated (the CPU).
  int64_t maxOperands;
  int64_t maxOps;
  std::vector<Node> nodes;
  llvm::DenseMap<Operation *, int> nodeOf;
  llvm::EquivalenceClasses<int> clusters;
  std::map<int, ClusterState> state; ///< By leader.
  std::vector<Refusal> refusals;
};

/// The registry's backend for `op` (codegen for an op no library runs); a library backend
/// also needs static f32 operands, else codegen, saying so.
backends::Selection Clusterer::selectBackend(Operation *op) {
  std::string kind = libraryOpKind(op);
  if (kind.empty())
    return {backends::kCodegen, "", 10, ""};
  backends::Selection sel = backends::BackendRegistry::global().select(
      kind, describeLoc(op->getLoc()), prefs, opSignature(op, kind));
  if (!sel.kernel.empty() && !hasStaticF32Operands(op))
    return {backends::kCodegen, "", 10,
            sel.backend + " needs static f32 operands (" + sel.reason + ")"};
  return sel;
}

void Clusterer::collectNodes() {
  for (Operation &op : entry.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>() || isCheapProducer(&op))
      continue;
    Node node{&op, classifyOp(&op), selectBackend(&op)};
    int id = nodes.size();
    nodes.push_back(node);
    nodeOf[&op] = id;
    clusters.insert(id);
    ClusterState &s = state[id];
    s.members = {id};
    for (Value v : op.getOperands())
      addInputs(v, s.inputs);
    for (Value r : op.getResults())
      if (!r.use_empty())
        s.outputs.insert(r);
    if (node.library())
      s.library = id;
    else if (const char *kind = reductionKind(&op))
      s.reductions.insert(kind);
  }
}

/// The node ids whose results `node` reads directly, in operand order.
llvm::SmallVector<int> Clusterer::producersOf(const Node &node) {
  llvm::SetVector<int> out;
  for (Value v : node.op->getOperands())
    if (Operation *def = v.getDefiningOp(); def && nodeOf.count(def))
      out.insert(nodeOf[def]);
  return out.takeVector();
}

/// The activations `pattern` covers, for refusals: "ReLU or GELU or hardswish or SiLU".
static std::string activationsOf(const backends::FusePattern &pattern) {
  std::string text = "ReLU";
  for (auto [op, title] : {std::pair{"gelu_erf", "GELU"}, std::pair{"hardswish", "hardswish"},
                           std::pair{"silu", "SiLU"}})
    if (llvm::is_contained(pattern.ops, op))
      text += std::string(" or ") + title;
  return text;
}

/// The activation chain a library cluster may take next: the one after its result, its
/// result view or its bias.
ActivationChain Clusterer::chainOf(const ClusterState &lib) {
  if (lib.epilogue == EpilogueStage::kNone)
    return activationAfter(nodes[lib.library].op);
  return lib.epilogue == EpilogueStage::kActivation ? ActivationChain() : lib.chain;
}

/// For a consumer in the library cluster's next activation chain (chainOf): "" when the fuse
/// pattern covers the activation, else the refusal; nullopt for any other consumer.
std::optional<std::string> Clusterer::chainRule(const ClusterState &lib, const Node &consumer,
                                                const backends::FusePattern &pattern,
                                                const std::string &who,
                                                const std::string &what) {
  ActivationChain chain = chainOf(lib);
  if (!chain.ops.contains(consumer.op))
    return std::nullopt;
  if (llvm::is_contained(pattern.ops, chain.name))
    return ""; // oneDNN's eltwise_gelu_erf / eltwise_hardswish / eltwise_swish post-op.
  return who + ": " + pattern.name + " has no " +
         (chain.name == llvm::StringRef("gelu_erf") ? "exact (erf) GELU" : chain.title) +
         "; not " + what + " here";
}

/// The rule that refuses merging a library cluster with its consumer, or "".
std::string Clusterer::libraryRule(const ClusterState &lib, const Node &consumer, int producer) {
  const Node &op = nodes[lib.library];
  std::string kind = libraryOpKind(op.op);
  const backends::FusePattern *pattern = backends::BackendRegistry::global().findFusePattern(
      op.backend.backend, fusePatternName(kind));
  std::string who = op.backend.backend + " " + op.op->getName().getStringRef().str();
  std::string what = consumer.op->getName().getStringRef().str();
  if (!pattern)
    return who + " takes no other op (" + op.backend.backend + " registers no fuse pattern for " +
           kind + ")";
  if (kind == "conv2d") {
    // TOSA's convolution carries its bias (the broadcast its output starts from, which
    // lowering hands to the kernel): the epilogue is the ReLU (moved before TOSA's transpose
    // by sinkReluThroughResultViews) or hardswish of the NHWC result.
    if (std::optional<std::string> rule = chainRule(lib, consumer, *pattern, who, what))
      return *rule;
    if (!nodes[producer].op->hasOneUse())
      return who + ": its result has other readers, so no epilogue can take it";
    if (isRelu(consumer.op) && lib.epilogue == EpilogueStage::kNone)
      return "";
    return who + ": " + pattern->name + " covers the " + activationsOf(*pattern) +
           " of the NHWC result; not " + what + " here";
  }
  // The epilogue kernels are 2-D: a batch matmul takes one only with a batch of 1.
  if (int64_t batch = cast<ShapedType>(op.op->getResult(0).getType()).getDimSize(0);
      isa<linalg::BatchMatmulOp>(op.op) && batch != 1)
    return who + ": its batch is " + std::to_string(batch) + ", and " + pattern->name +
           " is 2-D";
  if (std::optional<std::string> rule = chainRule(lib, consumer, *pattern, who, what))
    return *rule;
  if (!nodes[producer].op->hasOneUse())
    return who + ": its result has other readers, so no epilogue can take it";
  bool view = isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(consumer.op);
  if (view && lib.epilogue == EpilogueStage::kNone)
    return "";
  if (isBiasAdd(consumer.op) && lib.epilogue < EpilogueStage::kBias)
    return "";
  if (isRelu(consumer.op) && lib.epilogue <= EpilogueStage::kBias)
    return "";
  // A residual after the bias too: a trained ResNet's relu(conv3 + bias + shortcut). The conv
  // kernel takes none.
  bool residuals = kind != "depthwise_conv2d";
  if (residuals && isResidualAdd(consumer.op) && !lib.residual &&
      (lib.epilogue < EpilogueStage::kBias || (lib.epilogue == EpilogueStage::kBias && lib.bias)))
    return "";
  return who + ": " + pattern->name + " covers a result view, C + bias, then " +
         activationsOf(*pattern) +
         (residuals ? ", or relu(C + residual)" : "") + "; not " + what + " here";
}

std::string Clusterer::whyNot(int producer, int consumer) {
  const Node &p = nodes[producer], &c = nodes[consumer];
  if (!fusion)
    return "fusion off";
  for (const Node *n : {&p, &c}) {
    if (n->pattern == OpPattern::kOpaque)
      return n->op->getName().getStringRef().str() + " is opaque: never fused";
    if (isa<tensor::PadOp>(n->op))
      return "tensor.pad has no linalg.generic form: it stays its own kernel";
  }
  ClusterState &ps = state[leader(producer)], &cs = state[leader(consumer)];
  bool view = isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(p.op);
  if (cs.library >= 0 && view && ps.members.size() == 1 && p.op->hasOneUse())
    return ""; // A view of a library kernel's operand: no kernel of its own.
  if (cs.library >= 0 && ps.library < 0)
    return "inputs of a library kernel (" + nodes[cs.library].backend.backend + " " +
           nodes[cs.library].op->getName().getStringRef().str() + ") are materialised";
  if (ps.library >= 0 && cs.library >= 0)
    return "two library kernels never share a fusion";
  if (ps.library >= 0) {
    if (std::string rule = libraryRule(ps, c, producer); !rule.empty())
      return rule;
  } else {
    for (const Node *n : {&p, &c})
      if (n->pattern == OpPattern::kOutElemwiseFusable)
        return "codegen " + n->op->getName().getStringRef().str() +
               ": linalg elementwise fusion does not fuse named contractions";
    if (p.pattern == OpPattern::kReduce || ps.stitch || cs.stitch)
      if (std::string rule = stitchRule(ps, cs); !rule.empty())
        return rule;
    auto consumerLinalg = dyn_cast<linalg::LinalgOp>(c.op);
    if (consumerLinalg && llvm::any_of(consumerLinalg.getDpsInits(), [&](Value v) {
          return v.getDefiningOp() == p.op;
        }))
      return "the producer initialises the consumer's output (only inputs are fused)";
    std::set<std::string> reductions = ps.reductions;
    reductions.insert(cs.reductions.begin(), cs.reductions.end());
    if (reductions.size() > 1)
      return "mixes " + *reductions.begin() + " and " + *std::next(reductions.begin()) +
             " (DISC: one reduction kind per fusion)";
  }
  if (int64_t n = int64_t(ps.members.size() + cs.members.size()); n > maxOps)
    return "would fuse " + std::to_string(n) + " ops (cap " + std::to_string(maxOps) + ")";
  if (int64_t n = operandCount(producer, consumer); n > maxOperands)
    return "would take " + std::to_string(n) + " kernel arguments (cap " +
           std::to_string(maxOperands) + ")";
  if (createsCycle(producer, consumer))
    return "would create a cycle: a path between the two clusters leaves them";
  return "";
}

/// The rule that refuses a kStitch fusion of clusters `a` and `b`, or "": every reduction is
/// a row reduction over the same rows (more than one), and every op reads and writes whole rows.
std::string Clusterer::stitchRule(const ClusterState &a, const ClusterState &b) {
  if (!stitch)
    return "reduction result consumed inside its own fusion (kStitch is generated for the CPU "
           "only)";
  llvm::SmallVector<int> members(a.members);
  members.append(b.members.begin(), b.members.end());
  std::optional<llvm::SmallVector<int64_t>> rows;
  for (int m : members) {
    Operation *op = nodes[m].op;
    if (!reductionKind(op))
      continue;
    auto own = rowsOfReduction(op);
    if (!own)
      return "kStitch takes row reductions only; " + op->getName().getStringRef().str() +
             " is a " + reductionKind(op);
    if (rows && *rows != *own)
      return "kStitch reductions over different rows";
    rows = own;
  }
  if (!rows || rowCount(*rows) < 2)
    return "kStitch needs more than one row";
  llvm::SmallPtrSet<Operation *, 16> ops;
  for (int m : members)
    ops.insert(nodes[m].op);
  auto fromRows = [&](Value v) {
    Operation *def = v.getDefiningOp();
    // A cheap producer is cloned into the cluster and computed whole.
    return def && ops.contains(def);
  };
  for (int m : members)
    if (!isRowAligned(nodes[m].op, *rows, fromRows))
      return "kStitch computes whole rows; " + nodes[m].op->getName().getStringRef().str() +
             " does not read and write them in place";
  return "";
}

/// Adds `v` to a cluster's inputs; a cheap producer's own operands instead, as it is cloned.
void Clusterer::addInputs(Value v, llvm::SmallSetVector<Value, 8> &inputs) {
  Operation *def = v.getDefiningOp();
  if (def && !nodeOf.count(def) && !def->hasTrait<OpTrait::ConstantLike>()) {
    for (Value operand : def->getOperands())
      addInputs(operand, inputs);
    return;
  }
  if (!def || !matchPattern(v, m_Constant()) || isa<ShapedType>(v.getType()))
    inputs.insert(v);
}

/// The inputs and outputs of clusters `a` and `b` merged into `into`.
void Clusterer::mergedArguments(const ClusterState &a, const ClusterState &b,
                                ClusterState &into) {
  auto inside = [&](Operation *op) {
    auto it = nodeOf.find(op);
    return it != nodeOf.end() &&
           (leader(it->second) == leader(a.members[0]) || leader(it->second) == leader(b.members[0]));
  };
  llvm::SmallSetVector<Value, 8> inputs, outputs;
  for (const ClusterState *s : {&a, &b}) {
    for (Value v : s->inputs)
      if (!v.getDefiningOp() || !inside(v.getDefiningOp()))
        inputs.insert(v);
    for (Value v : s->outputs)
      if (llvm::any_of(v.getUsers(), [&](Operation *user) { return !inside(user); }))
        outputs.insert(v);
  }
  into.inputs = std::move(inputs);
  into.outputs = std::move(outputs);
}

int64_t Clusterer::operandCount(int a, int b) {
  ClusterState merged;
  mergedArguments(state[leader(a)], state[leader(b)], merged);
  return int64_t(merged.inputs.size() + merged.outputs.size());
}

/// True when some path from one cluster to the other passes through a third cluster, so the
/// merged cluster would both feed and read that third one. Nodes are in program order (a
/// topological order), so the search skips clusters that start after the target ends.
bool Clusterer::createsCycle(int a, int b) {
  auto reaches = [&](int from, int to) {
    int last = state[to].members.back();
    llvm::SmallVector<int> stack;
    llvm::DenseSet<int> seen = {from, to};
    auto push = [&](int cluster, bool skipTarget) {
      for (Value v : state[cluster].outputs)
        for (Operation *user : v.getUsers()) {
          auto it = nodeOf.find(user);
          if (it == nodeOf.end())
            continue;
          int lu = leader(it->second);
          if (lu == to && !skipTarget)
            stack.push_back(lu);
          else if (!seen.contains(lu) && state[lu].members.front() <= last) {
            seen.insert(lu);
            stack.push_back(lu);
          }
        }
    };
    push(from, /*skipTarget=*/true); // The direct edge is the merge itself.
    while (!stack.empty()) {
      int cluster = stack.pop_back_val();
      if (cluster == to)
        return true;
      push(cluster, /*skipTarget=*/false);
    }
    return false;
  };
  int la = leader(a), lb = leader(b);
  return reaches(la, lb) || reaches(lb, la);
}

void Clusterer::merge(int producer, int consumer) {
  int lp = leader(producer), lc = leader(consumer);
  ClusterState ps = std::move(state[lp]), cs = std::move(state[lc]);
  state.erase(lp);
  state.erase(lc);
  if (ps.library >= 0) { // The library kernel takes the next step of its fuse pattern.
    Operation *next = nodes[consumer].op;
    ps.chain = chainOf(ps);
    if (ps.chain.ops.contains(next))
      ps.epilogue = EpilogueStage::kChain;
    else if (isBiasAdd(next))
      ps.epilogue = EpilogueStage::kBias, ps.bias = true, ps.chain = activationAfter(next);
    else if (bool relu = false; isResidualAdd(next, &relu))
      ps.epilogue = relu ? EpilogueStage::kActivation : EpilogueStage::kBias, ps.residual = true,
      ps.chain = ActivationChain(); // Only a ReLU after a residual.
    else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(next))
      ps.epilogue = EpilogueStage::kView, ps.chain = activationAfter(next);
    else
      ps.epilogue = EpilogueStage::kActivation;
  } else {
    ps.library = cs.library;
    ps.epilogue = cs.epilogue;
    ps.chain = cs.chain;
    ps.bias = cs.bias;
    ps.residual = cs.residual;
    ps.stitch = ps.stitch || cs.stitch || nodes[producer].pattern == OpPattern::kReduce;
  }
  ps.members.append(cs.members.begin(), cs.members.end());
  llvm::sort(ps.members);
  ps.reductions.insert(cs.reductions.begin(), cs.reductions.end());
  clusters.unionSets(producer, consumer);
  mergedArguments(ps, cs, ps); // Both already answer to the new leader.
  state[leader(producer)] = std::move(ps);
}

/// TOSA transposes a convolution's NHWC result to NCHW before its ReLU, and an NHWC reader
/// transposes it back. For a library conv whose backend registers conv_bias_act the ReLU
/// moves before the transpose (they commute): it becomes the kernel's post-op on the NHWC
/// result, and the transpose joins its readers' cluster, where it cancels against theirs
/// (or stays a transpose kernel: measured, that beats the conv kernel writing NCHW itself).
void Clusterer::sinkReluThroughResultViews() {
  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  auto convs = llvm::to_vector(entry.getBody().front().getOps<linalg::Conv2DNhwcFhwcOp>());
  for (linalg::Conv2DNhwcFhwcOp conv : convs) {
    Operation *view = onlyUser(conv);
    auto relu = dyn_cast_or_null<linalg::GenericOp>(
        view && isChannelsFirstView(view) ? onlyUser(view) : nullptr);
    if (!relu || !isRelu(relu))
      continue;
    backends::Selection sel = selectBackend(conv);
    if (sel.kernel.empty() || !registry.findFusePattern(sel.backend, fusePatternName("conv2d")))
      continue;
    // relu(transpose(C)) -> transpose(relu(C)), the ReLU's body cloned onto the NHWC result.
    Value result = conv->getResult(0);
    auto type = cast<RankedTensorType>(result.getType());
    OpBuilder b(relu);
    Value empty = b.create<tensor::EmptyOp>(relu.getLoc(), type.getShape(), type.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(type.getRank());
    auto nhwcRelu = b.create<linalg::GenericOp>(
        relu.getLoc(), type, ValueRange{result}, ValueRange{empty}, ArrayRef<AffineMap>{id, id},
        relu.getIteratorTypesArray(), [&](OpBuilder &nested, Location loc, ValueRange args) {
          IRMapping mapping;
          mapping.map(relu.getBlock()->getArguments(), args);
          for (Operation &op : relu.getBlock()->without_terminator())
            nested.clone(op, mapping);
          Value yielded = relu.getBlock()->getTerminator()->getOperand(0);
          nested.create<linalg::YieldOp>(loc, mapping.lookupOrDefault(yielded));
        });
    auto transpose = cast<linalg::TransposeOp>(view);
    auto moved = b.create<linalg::TransposeOp>(view->getLoc(), nhwcRelu.getResult(0),
                                               transpose.getInit(), transpose.getPermutation());
    relu->replaceAllUsesWith(moved->getResults());
    relu->erase();
    view->erase();
  }
}

/// TOSA's fully_connected (every 1x1 convolution) starts its matmul from the bias broadcast
/// over the rows, and the library GEMMs overwrite C: with a trained model's non-zero bias every
/// 1x1 convolution ran as generated loops ("C is not zero-filled"). A matmul a library backend
/// runs becomes a zero-filled matmul and `C + bias` (isBiasAdd), the bias step of
/// matmul_bias_act, which the GEMM then takes as its epilogue. The add goes after the
/// matmul's one reshape (the NHWC expand of a 1x1 convolution), where the pattern expects it.
void Clusterer::splitMatmulBias() {
  llvm::SmallVector<linalg::LinalgOp> matmuls;
  for (Operation &op : entry.getBody().front())
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  for (linalg::LinalgOp matmul : matmuls) {
    // The init: `broadcast(bias)` along the last dim, into a tensor.empty.
    auto init = matmul.getDpsInits()[0].getDefiningOp<linalg::GenericOp>();
    if (!init || init.getNumDpsInputs() != 1 || init.getNumReductionLoops() ||
        !init.getMatchingIndexingMap(init.getDpsInitOperand(0)).isIdentity() ||
        !init.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
      continue;
    OpOperand *bias = init.getDpsInputOperand(0);
    Block *body = init.getBlock();
    if (body->getOperations().size() != 1 ||
        body->getTerminator()->getOperand(0) != body->getArgument(0) ||
        !readsLastDimBias(init.getMatchingIndexingMap(bias),
                          cast<ShapedType>(bias->get().getType())))
      continue;
    if (selectBackend(matmul).kernel.empty())
      continue;
    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    Value zero = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
    Value zeros = b.create<linalg::FillOp>(loc, zero, init.getDpsInits()[0]).getResult(0);
    matmul->setOperand(matmul.getDpsInitOperand(0)->getOperandNumber(), zeros);
    if (matchPattern(bias->get(), m_AnyZeroFloat())) { // A zero bias (untrained BatchNorm).
      if (init->use_empty())
        init->erase();
      continue;
    }
    // C + bias on C, or on its one reshape when that keeps the last dim and the bias is [N].
    Value c = matmul->getResult(0);
    AffineMap biasMap = init.getMatchingIndexingMap(bias);
    Operation *view = onlyUser(matmul);
    auto viewType = view && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(view)
                        ? cast<RankedTensorType>(view->getResult(0).getType())
                        : RankedTensorType();
    if (viewType && cast<ShapedType>(bias->get().getType()).getRank() == 1 &&
        viewType.getShape().back() == cast<ShapedType>(c.getType()).getShape().back()) {
      c = view->getResult(0);
      biasMap = AffineMap::get(viewType.getRank(), 0, b.getAffineDimExpr(viewType.getRank() - 1));
    }
    b.setInsertionPointAfterValue(c);
    auto type = cast<RankedTensorType>(c.getType());
    Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(type.getRank());
    auto add = b.create<linalg::GenericOp>(
        loc, type, ValueRange{c, bias->get()}, ValueRange{empty},
        ArrayRef<AffineMap>{id, biasMap, id},
        SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
        [&](OpBuilder &nested, Location at, ValueRange args) {
          nested.create<linalg::YieldOp>(
              at, nested.create<arith::AddFOp>(at, args[0], args[1]).getResult());
        });
    c.replaceAllUsesExcept(add.getResult(0), add);
    if (init->use_empty())
      init->erase();
  }
}

void Clusterer::run() {
  splitMatmulBias();
  if (fusion)
    sinkReluThroughResultViews();
  collectNodes();
  for (int consumer = 0; consumer < int(nodes.size()); ++consumer)
    for (int producer : producersOf(nodes[consumer])) {
      if (leader(producer) == leader(consumer))
        continue;
      std::string rule = whyNot(producer, consumer);
      if (rule.empty())
        merge(producer, consumer);
      else
        refusals.push_back({producer, consumer, rule});
    }
  materialize();
}

/// The cluster's fusion kind (DISC).
std::string fusionKindOf(const ClusterState &s) {
  if (s.library >= 0)
    return "kLibrary";
  if (s.stitch)
    return "kStitch";
  if (s.reductions.count("kInput"))
    return "kInput";
  return s.reductions.empty() ? "kLoop" : *s.reductions.begin();
}

/// Clones the cheap producers `op` reads (and theirs) in front of it, inside its region.
void rematerialize(Operation *op, Region &region) {
  for (OpOperand &operand : op->getOpOperands()) {
    Operation *def = operand.get().getDefiningOp();
    if (!def || !isCheapProducer(def) || region.isAncestor(def->getParentRegion()))
      continue;
    OpBuilder builder(op);
    Operation *clone = builder.clone(*def);
    operand.set(clone->getResult(cast<OpResult>(operand.get()).getResultNumber()));
    rematerialize(clone, region);
  }
}

void Clusterer::materialize() {
  MLIRContext *ctx = entry.getContext();
  Builder attrs(ctx);
  // Clusters in program order of their first op.
  std::vector<int> leaders;
  for (auto &[l, s] : state)
    leaders.push_back(l);
  llvm::sort(leaders, [&](int a, int b) { return state[a].members[0] < state[b].members[0]; });
  llvm::DenseMap<int, int64_t> clusterId; // Node -> cluster id.

  for (auto [id, l] : llvm::enumerate(leaders)) {
    ClusterState &s = state[l];
    for (int m : s.members)
      clusterId[m] = id;
    // The cluster's outputs (kept up to date by every merge), in program order.
    llvm::SmallVector<Value> outputs(s.outputs.begin(), s.outputs.end());
    llvm::sort(outputs, [&](Value a, Value b) {
      auto position = [&](Value v) {
        return std::make_pair(nodeOf[v.getDefiningOp()], cast<OpResult>(v).getResultNumber());
      };
      return position(a) < position(b);
    });

    // Backend, pattern, reason.
    int heaviest = s.members[0];
    for (int m : s.members)
      if (nodes[m].pattern > nodes[heaviest].pattern)
        heaviest = m;
    const Node &lead = nodes[s.library >= 0 ? s.library : heaviest];
    std::string pattern = opPatternName(nodes[heaviest].pattern);
    std::string reason = lead.backend.reason;
    std::string libraryKind = s.library >= 0 ? libraryOpKind(lead.op) : "";
    if (libraryKind == "conv2d" && s.epilogue >= EpilogueStage::kChain) {
      pattern = fusePatternName(libraryKind);
      reason += std::string("; takes the ") +
                (s.epilogue == EpilogueStage::kChain ? s.chain.title : "ReLU") +
                " after it as its epilogue";
    } else if (s.library >= 0 && s.epilogue >= EpilogueStage::kBias) {
      pattern = fusePatternName(libraryKind);
      const char *activation = s.epilogue == EpilogueStage::kActivation ? "ReLU"
                               : s.epilogue == EpilogueStage::kChain    ? s.chain.title
                                                                        : nullptr;
      std::string what = s.bias && s.residual ? "the bias and the residual add"
                         : s.bias              ? "the bias"
                         : s.residual          ? "the residual add"
                                               : "";
      if (activation)
        what += std::string(what.empty() ? "the " : " and ") + activation;
      reason += "; takes " + what + " after it as its epilogue";
    } else if (reason.empty()) {
      reason = "codegen: no library backend runs " + lead.op->getName().getStringRef().str();
    }
    if (s.members.size() > 1)
      reason += "; " + std::to_string(s.members.size()) + " ops fused";
    if (s.stitch)
      reason += "; kStitch: each row's reductions and their readers in one loop";

    Operation *last = nodes[s.members.back()].op;
    OpBuilder builder(last);
    auto fusion = builder.create<loupeir::FusionOp>(
        last->getLoc(), ValueRange(outputs).getTypes(), fusionKindOf(s), lead.backend.backend,
        int64_t(id), pattern, lead.backend.plevel, reason);
    Block *body = builder.createBlock(&fusion.getBody());
    builder.setInsertionPointToEnd(body);
    auto yield = builder.create<loupeir::YieldOp>(last->getLoc(), outputs);
    for (int m : s.members)
      nodes[m].op->moveBefore(yield);
    for (auto [value, result] : llvm::zip(outputs, fusion.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !fusion->isProperAncestor(use.getOwner());
      });
    for (int m : s.members)
      rematerialize(nodes[m].op, fusion.getBody());
  }
  // Cheap producers now cloned into every cluster that read them.
  auto ops = llvm::to_vector(llvm::make_pointer_range(entry.getBody().front()));
  for (Operation *op : llvm::reverse(ops))
    if (isCheapProducer(op) && op->use_empty())
      op->erase();
  // Regions sit at their last op; move readers of earlier members after them.
  (void)sortTopologically(&entry.getBody().front());

  llvm::SmallVector<Attribute> records;
  for (const Refusal &r : refusals)
    records.push_back(attrs.getDictionaryAttr({
        attrs.getNamedAttr("producer", attrs.getStringAttr(describeLoc(nodes[r.producer].op->getLoc()))),
        attrs.getNamedAttr("producer_op", attrs.getStringAttr(nodes[r.producer].op->getName().getStringRef())),
        attrs.getNamedAttr("producer_cluster", attrs.getI64IntegerAttr(clusterId[r.producer])),
        attrs.getNamedAttr("consumer", attrs.getStringAttr(describeLoc(nodes[r.consumer].op->getLoc()))),
        attrs.getNamedAttr("consumer_op", attrs.getStringAttr(nodes[r.consumer].op->getName().getStringRef())),
        attrs.getNamedAttr("consumer_cluster", attrs.getI64IntegerAttr(clusterId[r.consumer])),
        attrs.getNamedAttr("rule", attrs.getStringAttr(r.rule)),
    }));
  entry->setAttr("loupe.refused_merges", attrs.getArrayAttr(records));
}

struct FormClustersPass : loupe::impl::FormClustersBase<FormClustersPass> {
  using FormClustersBase::FormClustersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<backends::Preferences> prefs =
        parsePreferences(module, device, backendOrder, backendOverrides, tunedBackends);
    if (failed(prefs))
      return signalPassFailure();
    func::FuncOp entry = lookupEntryFunction(module);
    if (!entry || entry.isExternal() || !entry.getBody().hasOneBlock())
      return;
    if (!entry.getOps<loupeir::FusionOp>().empty())
      return; // Already clustered.
    Clusterer(entry, *prefs, fusion, /*stitch=*/device == "cpu", maxOperands, maxOps).run();
  }
};

} // namespace
