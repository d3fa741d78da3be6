//===- Session.cpp - Session JSON v1 and v2 ------------------------------------===//
#include "loupe/sessions/Session.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/Pipelines/Compiler.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using loupe::ral::Status;
using loupe::ral::StatusOr;
using nlohmann::json;

namespace loupe::sessions {

namespace {
// --- The fields -------------------------------------------------------------------------
// Each field of the `pipeline` and `run` objects is listed once, as (JSON name, member,
// kind). Reading, validation pointers, writing, variant overrides (diffs against the top
// level), equality and run configs all go through these lists: a new field is one line here
// (plus its member), and variants can override it at once.

/// Value: always written at the top level. Path: resolved against the session file, left out
/// when empty. Optional: left out of the top level while it has its default value, so
/// sessions that do not use it read as they did before the field existed.
enum class FieldKind { Value, Path, Optional };

/// A field's member, or a member of a member: field(settings) is a reference to it.
template <auto... Path> struct Field {
  template <typename S> auto &operator()(S &s) const { return (s .* ... .* Path); }
};
template <auto... Path> constexpr Field<Path...> field{};

template <typename Visit> void pipelineFields(Visit &&visit) {
  visit("target", field<&PipelineSettings::target>, FieldKind::Value);
  visit("gpu_arch", field<&PipelineSettings::gpuArch>, FieldKind::Optional);
  visit("phase_to", field<&PipelineSettings::phaseTo>, FieldKind::Value);
  visit("backends", field<&PipelineSettings::backends>, FieldKind::Optional);
  visit("fusion", field<&PipelineSettings::fusion>, FieldKind::Optional);
  visit("exact_math", field<&PipelineSettings::exactMath>, FieldKind::Optional);
  visit("overrides", field<&PipelineSettings::backendOverrides>, FieldKind::Optional);
  visit("input_shapes", field<&PipelineSettings::inputShapes>, FieldKind::Optional);
}

/// A field of RunSettings::measure.
template <auto Member> constexpr auto measureField = field<&RunSettings::measure, Member>;

template <typename Visit> void runFields(Visit &&visit) {
  visit("warmup", measureField<&profiler::MeasureOptions::warmupReps>, FieldKind::Value);
  visit("reps", measureField<&profiler::MeasureOptions::reps>, FieldKind::Value);
  visit("warmup_ms", measureField<&profiler::MeasureOptions::warmupMs>, FieldKind::Optional);
  visit("min_reps", measureField<&profiler::MeasureOptions::minReps>, FieldKind::Optional);
  visit("max_reps", measureField<&profiler::MeasureOptions::maxReps>, FieldKind::Optional);
  visit("max_ms", measureField<&profiler::MeasureOptions::maxMs>, FieldKind::Optional);
  visit("noise", measureField<&profiler::MeasureOptions::noise>, FieldKind::Optional);
  visit("mode", field<&RunSettings::mode>, FieldKind::Optional);
  visit("seed", field<&RunSettings::seed>, FieldKind::Value);
  visit("inputs", field<&RunSettings::inputsDir>, FieldKind::Path);
  visit("check", field<&RunSettings::checkDir>, FieldKind::Path);
  visit("rtol", field<&RunSettings::rtol>, FieldKind::Value);
  visit("atol", field<&RunSettings::atol>, FieldKind::Value);
  visit("inject_delay_us", field<&RunSettings::injectDelayUs>, FieldKind::Optional);
}

/// Calls `visit` with the field list of settings type S.
template <typename S, typename Visit> void fieldsOf(Visit &&visit) {
  if constexpr (std::is_same_v<S, PipelineSettings>)
    pipelineFields(visit);
  else
    runFields(visit);
}

template <typename S> bool sameFields(const S &a, const S &b) {
  bool same = true;
  fieldsOf<S>([&](const char *, auto member, FieldKind) { same = same && member(a) == member(b); });
  return same;
}

/// "~" and "/" escaped as RFC 6901 requires of a JSON pointer token.
std::string pointerToken(const std::string &key) {
  std::string out;
  for (char c : key)
    out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

/// Reads typed fields of one JSON object, rejecting unknown ones; the first error sticks.
class ObjectReader {
public:
  ObjectReader(const json &object, std::string pointer, const std::string &file, Status &status)
      : object_(object), pointer_(std::move(pointer)), file_(file), status_(status) {
    if (status_ && !object_.is_object())
      failHere(pointer_.empty() ? "the session must be a JSON object" : "must be an object");
  }

  const std::string &pointer() const { return pointer_; }
  bool ok() const { return status_.isOk() && object_.is_object(); }

  /// The value of `key` (marked as known), or null when absent or after an error.
  const json *field(const char *key) {
    seen_.insert(key);
    if (!ok())
      return nullptr;
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  template <typename T> void read(const char *key, T &out, bool required = false) {
    const json *value = field(key);
    if (!value) {
      if (required && ok())
        fail(std::string("missing required field '") + key + "'");
      return;
    }
    if (!matches<T>(*value))
      return fail(std::string("field '") + key + "' must be " + typeName<T>(), key);
    out = value->template get<T>();
  }

  /// Reads every field of settings `s` that the object has (the others keep their value).
  template <typename S> void readFields(S &s) {
    fieldsOf<S>([&](const char *key, auto member, FieldKind) { read(key, member(s)); });
  }

  /// A nested object: calls `body` with a reader for it, when present.
  template <typename Fn> void object(const char *key, Fn body) {
    const json *value = field(key);
    if (!value)
      return;
    ObjectReader nested(*value, pointer_ + "/" + pointerToken(key), file_, status_);
    body(nested);
    nested.finish();
  }

  /// An array of objects: calls `body` with a reader for each element, when present.
  template <typename Fn> void array(const char *key, Fn body) {
    const json *value = field(key);
    if (!value)
      return;
    std::string pointer = pointer_ + "/" + pointerToken(key);
    if (!value->is_array())
      return failAt(pointer, "must be an array");
    for (size_t i = 0; i < value->size() && status_; ++i) {
      ObjectReader nested((*value)[i], pointer + "/" + std::to_string(i), file_, status_);
      body(nested);
      nested.finish();
    }
  }

  /// Rejects fields nobody asked for.
  void finish() {
    if (!ok())
      return;
    for (auto it = object_.begin(); it != object_.end(); ++it)
      if (!seen_.count(it.key()))
        return fail("unknown field '" + it.key() + "'", it.key());
  }

  /// An error about field `key` of this object (or the object itself when `key` is empty).
  void fail(const std::string &message, const std::string &key = "") {
    failAt(pointer_ + (key.empty() ? "" : "/" + pointerToken(key)), message);
  }
  void failHere(const std::string &message) { failAt(pointer_, message); }
  /// An error at JSON pointer `where`.
  void failAt(const std::string &where, const std::string &message) {
    if (status_)
      status_ = ral::invalidArgument(file_ + ": " + (where.empty() ? "" : where + ": ") + message);
  }

private:
  template <typename T> static bool matches(const json &v) {
    if constexpr (std::is_same_v<T, std::string>)
      return v.is_string();
    else if constexpr (std::is_same_v<T, bool>)
      return v.is_boolean();
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      return v.is_array() && std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_string(); });
    else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
      return v.is_object() && std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_string(); });
    else if constexpr (std::is_same_v<T, std::map<std::string, std::vector<int64_t>>>)
      return v.is_object() && std::all_of(v.begin(), v.end(), [](const json &dims) {
               return dims.is_array() && dims.size() <= kMaxShapeRank &&
                      std::all_of(dims.begin(), dims.end(), [](const json &d) {
                        return d.is_number_integer() && d.get<int64_t>() >= 0 &&
                               d.get<int64_t>() < kMaxShapeDim;
                      });
             });
    else if constexpr (std::is_same_v<T, double>)
      return v.is_number();
    else if constexpr (std::is_same_v<T, uint64_t>)
      return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    else // An integer that fits T: 2^62 reps is an error, never a silent wrap.
      return v.is_number_unsigned()
                 ? v.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())
                 : v.is_number_integer() && v.get<int64_t>() >= std::numeric_limits<T>::min() &&
                       v.get<int64_t>() <= std::numeric_limits<T>::max();
  }
  template <typename T> static const char *typeName() {
    if constexpr (std::is_same_v<T, std::string>)
      return "a string";
    else if constexpr (std::is_same_v<T, bool>)
      return "true or false";
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      return "an array of strings";
    else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
      return "an object of strings";
    else if constexpr (std::is_same_v<T, std::map<std::string, std::vector<int64_t>>>)
      return "an object of shapes (input name -> array of at most 16 dims in [0, 2^40))";
    else if constexpr (std::is_same_v<T, double>)
      return "a number";
    else if constexpr (std::is_same_v<T, uint64_t>)
      return "a non-negative integer";
    else
      return "an integer in [-2^31, 2^31)";
  }

  const json &object_;
  std::string pointer_;
  const std::string &file_;
  Status &status_;
  std::set<std::string> seen_;
};

/// Checks that span several fields or that types do not express; `r` reads the object.
std::string knownBackends() {
  std::string names;
  for (const auto &b : backends::BackendRegistry::global().backends())
    names += (names.empty() ? "" : ", ") + b->name();
  return names;
}

/// Backend names must be registered (whether one runs an op on the target is the compiler's
/// call: it skips such preferences and says why, so one session serves several targets).
void validate(const PipelineSettings &pipeline, ObjectReader &r) {
  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  std::string at = r.pointer() + "/backends/";
  for (size_t i = 0; i < pipeline.backends.size(); ++i) {
    const std::string &name = pipeline.backends[i];
    if (name != backends::kAuto && !registry.find(name))
      return r.failAt(at + std::to_string(i),
                      "unknown backend '" + name + "' (known: " + knownBackends() +
                          ", and auto: the tuning table)");
    for (size_t j = 0; j < i; ++j)
      if (pipeline.backends[j] == name)
        return r.failAt(at + std::to_string(i), "backend '" + name + "' listed twice (also at " +
                                                    at + std::to_string(j) + ")");
  }
  if (!compiler::isPhase(pipeline.phaseTo))
    return r.fail("'phase_to' must be one of import, graph, cluster, lower, ral, llvm, artifact",
                  "phase_to");
  if (pipeline.target != "cpu" && pipeline.target != "cuda")
    return r.fail("'target' must be \"cpu\" or \"cuda\"", "target");
  if (!compiler::isGpuArch(pipeline.gpuArch))
    return r.fail("'gpu_arch' must be \"sm_80\" or \"sm_90\"", "gpu_arch");
  for (const auto &[loc, backend] : pipeline.backendOverrides) {
    std::string where = r.pointer() + "/overrides/" + pointerToken(loc);
    if (loc.empty())
      return r.failAt(where, "an override needs a non-empty loc");
    if (!registry.find(backend))
      return r.failAt(where, "unknown backend '" + backend + "' (known: " + knownBackends() + ")");
  }
}
void validate(const RunSettings &run, ObjectReader &r) {
  for (const profiler::MeasureOptionError &e : profiler::rangeErrors(run.measure))
    r.fail("'" + e.field + "' " + e.rule, e.field);
  if (run.mode != "hot" && run.mode != "cold" && run.mode != "both")
    r.fail("'mode' must be \"hot\", \"cold\" or \"both\"", "mode");
  if (!profiler::validTolerance(run.rtol))
    r.fail("'rtol' must be finite and >= 0", "rtol");
  if (!profiler::validTolerance(run.atol))
    r.fail("'atol' must be finite and >= 0", "atol");
  if (!(run.injectDelayUs >= 0 && run.injectDelayUs <= 1e9))
    r.fail("'inject_delay_us' must be in [0, 1e9]", "inject_delay_us");
}

/// Reads the `pipeline` and `run` objects of `r` over `pipeline` and `run`.
void readSettings(ObjectReader &r, PipelineSettings &pipeline, RunSettings &run) {
  r.object("pipeline", [&](ObjectReader &p) {
    p.readFields(pipeline);
    validate(pipeline, p);
  });
  r.object("run", [&](ObjectReader &o) {
    o.readFields(run);
    validate(run, o);
  });
}

std::string resolve(const std::string &p, const fs::path &base) {
  if (p.empty() || fs::path(p).is_absolute())
    return p;
  return (base / p).lexically_normal().string();
}

template <typename S> void resolvePaths(S &s, const fs::path &base) {
  fieldsOf<S>([&](const char *, auto member, FieldKind kind) {
    if constexpr (std::is_same_v<std::decay_t<decltype(member(s))>, std::string>)
      if (kind == FieldKind::Path)
        member(s) = resolve(member(s), base);
  });
}

/// The fields of `s` as JSON: all of them (empty paths left out; Optional fields at their
/// default too, unless `allFields`) when `base` is null, else those that differ from `base`
/// (an emptied path as ""). `path` maps a path for writing.
template <typename S, typename PathFn>
json fieldsJson(const S &s, const S *base, const PathFn &path, bool allFields = false) {
  json out = json::object();
  const S defaults;
  fieldsOf<S>([&](const char *key, auto member, FieldKind kind) {
    const auto &value = member(s);
    if (base && value == member(*base))
      return;
    if (!base && !allFields && kind == FieldKind::Optional && value == member(defaults))
      return;
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
      if (kind == FieldKind::Path) {
        if (!value.empty())
          out[key] = path(value);
        else if (base)
          out[key] = "";
        return;
      }
    }
    out[key] = value;
  });
  return out;
}

std::string knownVariants(const Session &s) {
  std::string names = kBaseVariant;
  for (const Variant &v : s.variants)
    names += ", " + v.name;
  return names;
}

void readVariants(ObjectReader &root, Session &session) {
  std::map<std::string, std::string> pointerOf; // name -> pointer of its first use
  root.array("variants", [&](ObjectReader &r) {
    Variant v = session.base();
    r.read("name", v.name, /*required=*/true);
    if (!r.ok())
      return;
    if (v.name.empty())
      return r.fail("a variant needs a non-empty name", "name");
    if (v.name == kBaseVariant)
      return r.fail("'base' names the top-level settings; give the variant another name",
                    "name");
    auto [it, fresh] = pointerOf.emplace(v.name, r.pointer());
    if (!fresh)
      return r.fail("duplicate variant name '" + v.name + "' (also at " + it->second + ")",
                    "name");
    readSettings(r, v.pipeline, v.run);
    session.variants.push_back(std::move(v));
  });
}

void readCompare(ObjectReader &root, Session &session) {
  const json *compare = root.field("compare");
  if (!compare)
    return;
  std::string pointer = root.pointer() + "/compare";
  if (!compare->is_array() || compare->size() != 2 || !(*compare)[0].is_string() ||
      !(*compare)[1].is_string())
    return root.failAt(pointer, "must be two variant names: [\"baseline\", \"candidate\"]");
  for (size_t i = 0; i < 2; ++i) {
    std::string name = (*compare)[i].get<std::string>();
    if (!session.variant(name))
      return root.failAt(pointer + "/" + std::to_string(i),
                         "unknown variant '" + name + "' (the session has: " +
                             knownVariants(session) + ")");
    session.compare.push_back(name);
  }
  if (session.compare[0] == session.compare[1])
    root.failAt(pointer + "/1", "compares '" + session.compare[0] +
                                    "' with itself; define two variants to compare equal settings");
}
} // namespace

} // namespace loupe::sessions

bool loupe::compiler::operator==(const PipelineOptions &a, const PipelineOptions &b) {
  return sessions::sameFields(a, b);
}

bool loupe::profiler::operator==(const RunSettings &a, const RunSettings &b) {
  return sessions::sameFields(a, b);
}

namespace loupe::sessions {

std::optional<Variant> Session::variant(const std::string &name) const {
  if (name == kBaseVariant)
    return base();
  for (const Variant &v : variants)
    if (v.name == name)
      return v;
  return std::nullopt;
}

std::vector<Variant> Session::runList() const {
  std::vector<Variant> list;
  if (variants.empty() ||
      std::find(compare.begin(), compare.end(), kBaseVariant) != compare.end())
    list.push_back(base());
  list.insert(list.end(), variants.begin(), variants.end());
  return list;
}

StatusOr<Session> parseSession(const std::string &text, const std::string &path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error &e) {
    return ral::invalidArgument(path + ": malformed JSON at byte " + std::to_string(e.byte) +
                                ": " + e.what());
  } catch (const json::exception &e) { // A number beyond a double's range (1e400).
    return ral::invalidArgument(path + ": malformed JSON: " + e.what());
  }
  Status status;
  Session session;
  session.path = path;
  session.name = fs::path(path).stem().string();
  ObjectReader root(doc, "", path, status);
  int version = 0;
  root.read("loupe_session", version, /*required=*/true);
  if (status && version > kSessionVersion)
    return ral::invalidArgument(path + ": session version " + std::to_string(version) +
                                " was written by a newer Loupe (this one reads up to " +
                                std::to_string(kSessionVersion) + ")");
  if (status && version < 1)
    root.fail("'loupe_session' must be >= 1", "loupe_session");
  root.read("name", session.name);
  root.read("model", session.model, /*required=*/true);
  // The session format's own values for a file that leaves out warmup or reps (every version
  // so far), so old files keep their meaning; without a file (the CLI, a new GUI session) the
  // profiler's defaults apply.
  session.run.measure.warmupReps = kFileWarmupReps;
  session.run.measure.reps = kFileReps;
  readSettings(root, session.pipeline, session.run);
  if (status && version < 2)
    for (const char *key : {"variants", "compare"})
      if (root.field(key))
        root.fail(std::string("'") + key + "' needs \"loupe_session\": 2 (this file says " +
                      std::to_string(version) + ")",
                  key);
  readVariants(root, session);
  readCompare(root, session);
  root.finish();
  if (!status)
    return status;
  fs::path base = fs::path(path).parent_path();
  session.model = resolve(session.model, base);
  resolvePaths(session.pipeline, base);
  resolvePaths(session.run, base);
  for (Variant &v : session.variants) {
    resolvePaths(v.pipeline, base);
    resolvePaths(v.run, base);
  }
  return session;
}

bool parseShape(const std::string &text, std::vector<int64_t> &dims, std::string &why) {
  dims.clear();
  for (size_t at = 0; !text.empty() && at <= text.size();) {
    size_t comma = std::min(text.find(',', at), text.size());
    std::string dim = text.substr(at, comma - at);
    if (dim.empty() || dim.size() > 13 || dim.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(dim) >= kMaxShapeDim) {
      why = "'" + dim + "' is not a dim (0 to " + std::to_string(kMaxShapeDim - 1) + ")";
      return false;
    }
    dims.push_back(std::stoll(dim));
    at = comma + 1;
  }
  if (dims.size() > kMaxShapeRank) {
    why = "more than " + std::to_string(kMaxShapeRank) + " dims";
    return false;
  }
  return true;
}

StatusOr<Session> loadSession(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ral::notFound(path + ": cannot open session file");
  std::stringstream text;
  text << in.rdbuf();
  return parseSession(text.str(), path);
}

std::string sessionToJson(const Session &session, const std::string &path) {
  fs::path base = fs::absolute(path).parent_path();
  auto rel = [&](const std::string &p) {
    return fs::absolute(p).lexically_normal().lexically_relative(base).string();
  };
  bool v2 = !session.variants.empty() || !session.compare.empty();
  json doc = {{"loupe_session", v2 ? 2 : 1},
              {"name", session.name},
              {"model", rel(session.model)},
              {"pipeline", fieldsJson<PipelineSettings>(session.pipeline, nullptr, rel)},
              {"run", fieldsJson<RunSettings>(session.run, nullptr, rel)}};
  if (!session.variants.empty()) {
    json variants = json::array();
    for (const Variant &v : session.variants) {
      json entry = {{"name", v.name}};
      json pipeline = fieldsJson(v.pipeline, &session.pipeline, rel);
      json run = fieldsJson(v.run, &session.run, rel);
      if (!pipeline.empty())
        entry["pipeline"] = pipeline;
      if (!run.empty())
        entry["run"] = run;
      variants.push_back(entry);
    }
    doc["variants"] = variants;
  }
  if (!session.compare.empty())
    doc["compare"] = session.compare;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status saveSession(const Session &session, const std::string &path) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return ral::invalidArgument(path + ": cannot write session file");
    out << sessionToJson(session, path);
    if (!out)
      return ral::internalError(path + ": write failed");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    return ral::internalError(path + ": cannot replace session file: " + ec.message());
  return Status::ok();
}

std::string runConfigJson(const PipelineSettings &pipeline, const RunSettings &run) {
  auto absolute = [](const std::string &p) { return fs::absolute(p).lexically_normal().string(); };
  json config = fieldsJson<PipelineSettings>(pipeline, nullptr, absolute, /*allFields=*/true);
  config.update(fieldsJson<RunSettings>(run, nullptr, absolute, /*allFields=*/true));
  return config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<Variant> variantFromRunConfig(const Session &session, std::string name,
                                       const std::string &configJson) {
  json config = json::parse(configJson, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object())
    return ral::invalidArgument("run config of variant '" + name + "' is not a JSON object");
  Variant v = session.base();
  v.name = std::move(name);
  Status status;
  std::string where = "run config of variant '" + v.name + "'";
  ObjectReader r(config, "", where, status);
  r.readFields(v.pipeline);
  r.readFields(v.run);
  if (!status)
    return status;
  v.pipeline.phaseTo = session.pipeline.phaseTo;
  return v;
}

} // namespace loupe::sessions
