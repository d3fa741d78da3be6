//===- LocHashes.cpp - What each source op's IR looks like after a pass ------===//
#include "LocHashes.h"

#include "SnapshotRecorder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

namespace loupe::compiler {

namespace {
/// Weights and other large constants: their type says enough, their bytes would cost a print.
bool isLarge(Attribute attr) {
  if (isa<DenseResourceElementsAttr>(attr))
    return true;
  auto elements = dyn_cast<ElementsAttr>(attr);
  return elements && !elements.isSplat() && elements.getNumElements() > 16;
}

uint64_t mix(uint64_t acc, uint64_t value) { return fnv1a(&value, sizeof value, acc); }
} // namespace

uint64_t LocHasher::hashOf(Type type) {
  auto [it, fresh] = types_.try_emplace(type, 0);
  if (fresh) {
    HashingStream h;
    h << type;
    it->second = h.hash();
  }
  return it->second;
}

uint64_t LocHasher::hashOf(Attribute attr) {
  auto [it, fresh] = attributes_.try_emplace(attr, 0);
  if (fresh) {
    if (isLarge(attr)) {
      it->second = mix(fnv1a("large"), hashOf(cast<ElementsAttr>(attr).getShapedType()));
    } else {
      HashingStream h;
      h << attr;
      it->second = h.hash();
    }
  }
  return it->second;
}

const std::vector<std::string> &LocHasher::sourceOpsOf(Location loc) {
  auto [it, fresh] = names_.try_emplace(loc);
  if (!fresh)
    return it->second;
  std::vector<std::string> &names = it->second;
  loc->walk([&](Location inner) {
    std::string name;
    if (auto n = dyn_cast<NameLoc>(inner))
      name = n.getName().str();
    else if (auto file = dyn_cast<FileLineColLoc>(inner))
      name = (file.getFilename().strref() + ":" + llvm::Twine(file.getLine())).str();
    else
      return WalkResult::advance();
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
    return WalkResult::skip();
  });
  return names;
}

uint64_t LocHasher::hashOp(Operation *op) {
  uint64_t h = fnv1a(op->getName().getStringRef());
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    h = mix(h, def ? fnv1a(def->getName().getStringRef()) : 0);
    h = mix(h, hashOf(operand.getType()));
  }
  for (Type type : op->getResultTypes())
    h = mix(h, hashOf(type));
  for (NamedAttribute attr : op->getAttrs())
    h = mix(mix(h, fnv1a(attr.getName().strref())), hashOf(attr.getValue()));
  return mix(h, op->getNumRegions());
}

std::map<std::string, uint64_t> LocHasher::hashOpsBySourceOp(Operation *root) {
  std::map<std::string, uint64_t> out;
  root->walk([&](Operation *op) {
    if (op == root)
      return;
    const std::vector<std::string> &names = sourceOpsOf(op->getLoc());
    if (names.empty())
      return;
    uint64_t h = hashOp(op);
    for (const std::string &name : names) {
      uint64_t &acc = out.try_emplace(name, kFnv1aOffset).first->second;
      acc = mix(acc, h);
    }
  });
  return out;
}

} // namespace loupe::compiler
