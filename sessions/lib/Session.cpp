//===- Session.cpp - Session JSON v1 -------------------------------------------===//
#include "loupe/sessions/Session.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using loupe::ral::Status;
using loupe::ral::StatusOr;
using nlohmann::json;

namespace loupe::sessions {

namespace {
/// Reads typed fields of one JSON object, rejecting unknown ones; the first error sticks.
class ObjectReader {
public:
  ObjectReader(const json &object, std::string pointer, const std::string &file, Status &status)
      : object_(object), pointer_(std::move(pointer)), file_(file), status_(status) {
    if (status_ && !object_.is_object())
      fail(pointer_.empty() ? "the session must be a JSON object" : "must be an object");
  }

  template <typename T> void read(const char *key, T &out, bool required = false) {
    seen_.insert(key);
    if (!status_ || !object_.is_object())
      return;
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required)
        fail(std::string("missing required field '") + key + "'");
      return;
    }
    if (!matches<T>(*it))
      return fail(std::string("field '") + key + "' must be " + typeName<T>(), key);
    out = it->template get<T>();
  }

  /// A nested object: calls `body` with a reader for it, when present.
  template <typename Fn> void object(const char *key, Fn body) {
    seen_.insert(key);
    if (!status_ || !object_.is_object() || !object_.contains(key))
      return;
    ObjectReader nested(object_.at(key), pointer_ + "/" + key, file_, status_);
    body(nested);
    nested.finish();
  }

  /// Rejects fields nobody asked for.
  void finish() {
    if (!status_ || !object_.is_object())
      return;
    for (auto it = object_.begin(); it != object_.end(); ++it)
      if (!seen_.count(it.key()))
        return fail("unknown field '" + it.key() + "'", it.key());
  }

  void fail(const std::string &message, const std::string &key = "") {
    if (!status_)
      return;
    std::string where = pointer_ + (key.empty() ? "" : "/" + key);
    status_ = ral::invalidArgument(file_ + ": " + (where.empty() ? "" : where + ": ") + message);
  }

private:
  template <typename T> static bool matches(const json &v) {
    if constexpr (std::is_same_v<T, std::string>)
      return v.is_string();
    else if constexpr (std::is_same_v<T, double>)
      return v.is_number();
    else if constexpr (std::is_same_v<T, uint64_t>)
      return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    else
      return v.is_number_integer();
  }
  template <typename T> static const char *typeName() {
    if constexpr (std::is_same_v<T, std::string>)
      return "a string";
    else if constexpr (std::is_same_v<T, double>)
      return "a number";
    else if constexpr (std::is_same_v<T, uint64_t>)
      return "a non-negative integer";
    else
      return "an integer";
  }

  const json &object_;
  std::string pointer_;
  const std::string &file_;
  Status &status_;
  std::set<std::string> seen_;
};

std::string resolve(const std::string &p, const fs::path &base) {
  if (p.empty() || fs::path(p).is_absolute())
    return p;
  return (base / p).lexically_normal().string();
}

std::string relativeTo(const std::string &p, const fs::path &base) {
  if (p.empty())
    return p;
  return fs::path(p).lexically_relative(base).string();
}
} // namespace

StatusOr<Session> parseSession(const std::string &text, const std::string &path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error &e) {
    return ral::invalidArgument(path + ": malformed JSON at byte " + std::to_string(e.byte) +
                                ": " + e.what());
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
  root.object("pipeline", [&](ObjectReader &r) {
    r.read("target", session.target);
    r.read("phase_to", session.phaseTo);
  });
  root.object("run", [&](ObjectReader &r) {
    RunSettings &run = session.run;
    r.read("warmup", run.warmup);
    r.read("reps", run.reps);
    r.read("seed", run.seed);
    r.read("inputs", run.inputsDir);
    r.read("check", run.checkDir);
    r.read("rtol", run.rtol);
    r.read("atol", run.atol);
    if (run.reps < 1)
      r.fail("'reps' must be >= 1", "reps");
    if (run.warmup < 0)
      r.fail("'warmup' must be >= 0", "warmup");
  });
  root.finish();
  if (!status)
    return status;
  fs::path base = fs::path(path).parent_path();
  session.model = resolve(session.model, base);
  session.run.inputsDir = resolve(session.run.inputsDir, base);
  session.run.checkDir = resolve(session.run.checkDir, base);
  return session;
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
  auto rel = [&](const std::string &p) { return relativeTo(fs::absolute(p).string(), base); };
  json run = {{"warmup", session.run.warmup}, {"reps", session.run.reps},
              {"seed", session.run.seed},     {"rtol", session.run.rtol},
              {"atol", session.run.atol}};
  if (!session.run.inputsDir.empty())
    run["inputs"] = rel(session.run.inputsDir);
  if (!session.run.checkDir.empty())
    run["check"] = rel(session.run.checkDir);
  json doc = {{"loupe_session", kSessionVersion},
              {"name", session.name},
              {"model", rel(session.model)},
              {"pipeline", {{"target", session.target}, {"phase_to", session.phaseTo}}},
              {"run", run}};
  return doc.dump(2) + "\n";
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

} // namespace loupe::sessions
