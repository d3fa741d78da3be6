//===- BackendRegistry.cpp - Backend registration and selection ----------------------===//
#include "loupe/Backends/BackendRegistry.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace loupe::backends {

Backend &Backend::set_enable(const std::string &device) {
  if (!enabledOn(device))
    devices_.push_back(device);
  return *this;
}

bool Backend::enabledOn(const std::string &device) const {
  return std::find(devices_.begin(), devices_.end(), device) != devices_.end();
}

Backend &BackendRegistry::addBackend(const std::string &name) {
  if (const Backend *existing = find(name)) {
    errors_.push_back("backend '" + name + "' registered twice");
    return const_cast<Backend &>(*existing);
  }
  backends_.push_back(std::make_unique<Backend>(name));
  return *backends_.back();
}

BackendOp &BackendRegistry::addOp(const std::string &backend, const std::string &op, int plevel) {
  if (!find(backend))
    errors_.push_back("op '" + op + "' registered for unknown backend '" + backend + "'");
  ops_.push_back(std::make_unique<BackendOp>(BackendOp{backend, op, "", plevel}));
  return *ops_.back();
}

FusePattern &BackendRegistry::addFusePattern(const std::string &backend, const std::string &name,
                                             int plevel) {
  if (!find(backend))
    errors_.push_back("fuse pattern '" + name + "' registered for unknown backend '" + backend +
                      "'");
  patterns_.push_back(std::make_unique<FusePattern>(FusePattern{backend, name, "", {}, plevel}));
  return *patterns_.back();
}

const Backend *BackendRegistry::find(const std::string &name) const {
  for (const auto &b : backends_)
    if (b->name() == name)
      return b.get();
  return nullptr;
}

const FusePattern *BackendRegistry::findFusePattern(const std::string &backend,
                                                    const std::string &name) const {
  for (const auto &p : patterns_)
    if (p->backend == backend && p->name == name)
      return p.get();
  return nullptr;
}

std::vector<Selection> BackendRegistry::candidates(const std::string &op,
                                                   const std::string &device) const {
  std::vector<Selection> out;
  for (const auto &entry : ops_) {
    const Backend *backend = find(entry->backend);
    if (entry->op == op && backend && backend->enabledOn(device))
      out.push_back({entry->backend, entry->kernel, entry->plevel, ""});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Selection &a, const Selection &b) { return a.plevel > b.plevel; });
  const Backend *codegen = find(kCodegen);
  bool listed = std::any_of(out.begin(), out.end(),
                            [](const Selection &s) { return s.backend == kCodegen; });
  if (codegen && codegen->enabledOn(device) && !listed) {
    out.push_back({kCodegen, "", 10, ""});
    std::stable_sort(out.begin(), out.end(),
                     [](const Selection &a, const Selection &b) { return a.plevel > b.plevel; });
  }
  return out;
}

/// "onednn 15, openblas 12, codegen 10".
static std::string describe(const std::vector<Selection> &all) {
  std::ostringstream s;
  for (size_t i = 0; i < all.size(); ++i)
    s << (i ? ", " : "") << all[i].backend << " " << all[i].plevel;
  return s.str();
}

/// The bytes of B when `signature` (opSignature) is an f32 matmul or batch-1 batch_matmul of
/// one row (M = 1), a GEMV; nullopt otherwise. Two cost rules rest on it (on the CPU, where
/// onednn would run it):
/// - B of at most kSmallGemvBytes: openblas. Measured on MobileNetV3-small's 18
///   squeeze-and-excitation FCs (K x N from 16 x 8 to 576 x 144, B up to 330 KB): oneDNN's
///   brgemm took 4.6-20 us per call, OpenBLAS 2-8 us (173 -> 72 us in all, the model 1.68 ->
///   1.55 ms, 6 interleaved rounds of `loupe run --reps 500`); its 2.4 and 4 MB classifier
///   GEMVs ran 1.5-8x slower on OpenBLAS.
/// - Larger: codegen, B packed at compile time into 64-column panels (loupe-pack-gemv-weights),
///   each workgroup streaming one contiguous panel. Alone, B hot in the L2s (dispatch medians):
///   256x1024 oneDNN 6.2-6.4 us, codegen 5.7; 512x1024 10.6-12.2 vs 10.8-11.5; 1024x1024 75 vs
///   48-51; only 960x240 (3 panels and 48 columns: too few workgroups) stays faster on oneDNN,
///   5.7 vs 7.0-7.5. In the models: lstm_speech's recurrent 256x1024 (100 calls a run) 7.45 ->
///   5.7-6.1 us, the model 1.38-1.47 -> 1.16-1.27 ms (5 alternations); MobileNetV3-large's
///   squeeze-and-excitation 960x240 31.6 -> 23.0 us, 240x960 27.4 -> 15.5 (B read once per
///   execution: from L3); classifiers 960x1280 and 1280x1000 oneDNN 134 and 154, codegen 80-83
///   and 110-112.
static constexpr int64_t kSmallGemvBytes = 512 << 10;
static std::optional<int64_t> gemvBytes(const std::string &op, const std::string &signature) {
  if ((op != "matmul" && op != "batch_matmul") || signature.rfind(op + ":", 0) != 0)
    return std::nullopt;
  // "<op>:AxBxf32:..." -> the dims of A and B.
  std::vector<std::vector<int64_t>> shapes;
  std::stringstream operands(signature.substr(op.size() + 1));
  for (std::string operand; std::getline(operands, operand, ':');) {
    std::vector<int64_t> dims;
    std::stringstream parts(operand);
    for (std::string part; std::getline(parts, part, 'x');) {
      if (part == "f32")
        break;
      if (part.empty() || part.size() > 18 ||
          part.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt; // Dynamic ("?"), another element type, or past int64.
      dims.push_back(std::stoll(part));
    }
    shapes.push_back(dims);
  }
  size_t rank = op == "matmul" ? 2 : 3;
  if (shapes.size() < 2 || shapes[0].size() != rank || shapes[1].size() != rank ||
      (rank == 3 && (shapes[0][0] != 1 || shapes[1][0] != 1)))
    return std::nullopt;
  int64_t m = shapes[0][rank - 2], k = shapes[1][rank - 2], n = shapes[1][rank - 1];
  constexpr int64_t kMaxDim = int64_t(1) << 30; // 4 * k * n does not overflow
  if (m != 1 || k > kMaxDim || n > kMaxDim)
    return std::nullopt;
  return 4 * k * n;
}

Selection BackendRegistry::select(const std::string &op, const std::string &loc,
                                  const Preferences &prefs, const std::string &signature) const {
  std::vector<Selection> all = candidates(op, prefs.device);
  auto lookup = [&](const std::string &name) -> const Selection * {
    for (const Selection &s : all)
      if (s.backend == name)
        return &s;
    return nullptr;
  };
  std::string skipped;
  // Per-op override (RAF's with_dialect around one op), keyed by any name in `loc`.
  for (const auto &[key, backend] : prefs.overrides) {
    if (loc != key && loc.find(key + ",") != 0 && loc.find("," + key) == std::string::npos)
      continue;
    if (const Selection *s = lookup(backend)) {
      Selection chosen = *s;
      chosen.reason = "override for '" + key + "'";
      return chosen;
    }
    skipped = "override '" + key + "=" + backend + "' cannot run " + op + " on " + prefs.device +
              "; ";
  }
  if (auto tuned = prefs.tuned.find(signature); !signature.empty() && tuned != prefs.tuned.end()) {
    if (const Selection *s = lookup(tuned->second)) {
      Selection chosen = *s;
      chosen.reason = skipped + "tuned: loupe tune measured " + tuned->second + " fastest for " +
                      signature + " (candidates: " + describe(all) + ")";
      return chosen;
    }
    skipped += "tuned " + tuned->second + " cannot run " + op + " on " + prefs.device + "; ";
  }
  if (!prefs.order.empty()) {
    for (const std::string &name : prefs.order)
      if (const Selection *s = lookup(name)) {
        Selection chosen = *s;
        std::string list;
        for (const std::string &n : prefs.order)
          list += (list.empty() ? "" : ",") + n;
        chosen.reason = skipped + "first of --backends " + list + " that runs " + op +
                        " (candidates: " + describe(all) + ")";
        return chosen;
      }
    skipped += "no preferred backend runs " + op + " on " + prefs.device + "; ";
  }
  if (all.empty())
    return {kCodegen, "", 10, skipped + "no backend enabled on " + prefs.device};
  if (std::optional<int64_t> bytes = gemvBytes(op, signature);
      bytes && prefs.device == "cpu" && all.front().backend == "onednn") {
    std::string gemv = "(one row, B of " + std::to_string(*bytes) + " bytes)";
    const Selection *s = nullptr;
    if (*bytes <= kSmallGemvBytes && (s = lookup("openblas")))
      gemv = "a small GEMV " + gemv + ": openblas per call is faster than onednn's";
    else if (*bytes > kSmallGemvBytes && (s = lookup(kCodegen)))
      gemv = "a GEMV " + gemv + ": the generated kernel, B packed into 64-column panels, "
             "streams it faster than onednn's";
    if (s) {
      Selection chosen = *s;
      chosen.reason = skipped + gemv + " (" + describe(all) + ")";
      return chosen;
    }
  }
  Selection chosen = all.front();
  chosen.reason = skipped + "highest plevel for " + op + " on " + prefs.device + " (" +
                  describe(all) + ")";
  return chosen;
}

std::vector<Selection> BackendRegistry::fallbacks(const std::string &op, const Selection &chosen,
                                                  const Preferences &prefs) const {
  std::vector<Selection> all = candidates(op, prefs.device);
  std::vector<Selection> ranked;
  for (const std::string &name : prefs.order)
    for (const Selection &s : all)
      if (s.backend == name)
        ranked.push_back(s);
  if (ranked.empty()) // select() fell back to plevels (or no order was given).
    ranked = all;
  std::vector<Selection> out;
  if (chosen.kernel.empty())
    return out;
  for (const Selection &s : ranked)
    if (!s.kernel.empty() && s.backend != chosen.backend)
      out.push_back(s);
  return out;
}

std::vector<std::string> parseBackendList(const std::string &text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace loupe::backends
