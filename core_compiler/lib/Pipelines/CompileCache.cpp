//===- CompileCache.cpp - Compile results by model IR and options -----------------===//
#include "CompileCache.h"
#include "SnapshotRecorder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace loupe::compiler {

// CompileResult <-> JSON (the disk form of an entry).
static void to_json(json &j, const PassSnapshot &s) {
  j = {{"index", s.index},   {"pass", s.pass},         {"options", s.options},
       {"phase", s.phase},   {"anchor", s.anchor},     {"duration_ns", s.durationNs},
       {"ir_hash", s.irHash}, {"changed", s.changed},  {"failed", s.failed},
       {"ir_kind", int(s.irKind)}, {"ir", s.ir}, {"loc_hashes", s.locHashes}};
}
static void from_json(const json &j, PassSnapshot &s) {
  s = {j.at("index"), j.at("pass"), j.at("options"), j.at("phase"), j.at("anchor"),
       j.at("duration_ns"), j.at("ir_hash"), j.at("changed"), j.at("failed"),
       IrKind(j.at("ir_kind").get<int>()), j.at("ir")};
  if (j.contains("loc_hashes"))
    j.at("loc_hashes").get_to(s.locHashes);
}
static void to_json(json &j, const DispatchSummary &d) {
  j = {{"id", d.id},         {"name", d.name},     {"op", d.op},
       {"loc", d.loc},       {"backend", d.backend}, {"kind", d.kind},
       {"reason", d.reason}, {"cluster", d.cluster}, {"fallbacks", d.fallbacks},
       {"schedule", d.schedule}, {"launch", d.launch}, {"bytes", d.bytes}, {"flops", d.flops},
       {"signature", d.signature}, {"candidates", d.candidates}, {"selected_loc", d.selectedLoc},
       {"math", d.math}};
}
static void from_json(const json &j, DispatchSummary &d) {
  d = {j.at("id"), j.at("name"), j.at("op"), j.at("loc"), j.at("backend"), j.at("kind"),
       j.at("reason"), j.at("cluster"), j.at("fallbacks"), j.at("schedule"), j.at("launch"),
       j.at("bytes"), j.at("flops"), j.at("signature"), j.at("candidates"),
       j.at("selected_loc"), j.at("math")};
}
static void to_json(json &j, const ClusterSummary &c) {
  j = {{"id", c.id},         {"kind", c.kind},     {"backend", c.backend}, {"pattern", c.pattern},
       {"plevel", c.plevel}, {"reason", c.reason}, {"ops", c.ops},         {"loc", c.loc}};
}
static void from_json(const json &j, ClusterSummary &c) {
  c = {j.at("id"), j.at("kind"), j.at("backend"), j.at("pattern"), j.at("plevel"),
       j.at("reason"), j.at("ops"), j.at("loc")};
}
static void to_json(json &j, const RefusedMerge &r) {
  j = {r.producer, r.producerOp, r.producerCluster, r.consumer, r.consumerOp, r.consumerCluster,
       r.rule};
}
static void from_json(const json &j, RefusedMerge &r) {
  r = {j.at(0), j.at(1), j.at(2), j.at(3), j.at(4), j.at(5), j.at(6)};
}
static void to_json(json &j, const GraphNode &n) { j = {n.id, n.op, n.name, n.type}; }
static void from_json(const json &j, GraphNode &n) { n = {j.at(0), j.at(1), j.at(2), j.at(3)}; }

static json resultJson(const CompileResult &r) {
  return {{"snapshots", r.snapshots},     {"last_phase", r.lastPhase},
          {"final_ir", r.finalIr},        {"final_ir_kind", int(r.finalIrKind)},
          {"graph_nodes", r.graph.nodes}, {"graph_edges", r.graph.edges},
          {"clusters", r.clusters},       {"refused_merges", r.refusedMerges},
          {"dispatches", r.dispatches},   {"ptx", r.ptx}};
}
static CompileResult resultFromJson(const json &j) {
  CompileResult r;
  r.snapshots = j.at("snapshots").get<std::vector<PassSnapshot>>();
  r.lastPhase = j.at("last_phase");
  r.finalIr = j.at("final_ir");
  r.finalIrKind = IrKind(j.at("final_ir_kind").get<int>());
  r.graph.nodes = j.at("graph_nodes").get<std::vector<GraphNode>>();
  r.graph.edges = j.at("graph_edges").get<std::vector<std::pair<int, int>>>();
  r.clusters = j.at("clusters").get<std::vector<ClusterSummary>>();
  r.refusedMerges = j.at("refused_merges").get<std::vector<RefusedMerge>>();
  r.dispatches = j.at("dispatches").get<std::vector<DispatchSummary>>();
  r.ptx = j.at("ptx");
  return r;
}

/// The compiler build: the binary holding this code, by path, size and modification time, so
/// a rebuilt compiler never reuses an older build's artifacts.
static const std::string &buildId() {
  static const std::string id = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&buildId), &info) || !info.dli_fname)
      return std::string("unknown");
    std::error_code ec;
    fs::path binary = fs::canonical(info.dli_fname, ec);
    auto size = fs::file_size(binary, ec);
    auto time = fs::last_write_time(binary, ec).time_since_epoch().count();
    return binary.string() + ":" + std::to_string(size) + ":" + std::to_string(time);
  }();
  return id;
}

std::string compileCacheKey(const std::string &moduleText, const CompileOptions &o) {
  std::ostringstream key;
  key << "loupe-compile-cache 5\nbuild " << buildId() << "\ntarget " << o.target
      << "\ngpu-arch " << o.gpuArch << "\nphase-to "
      << o.phaseTo << "\nkeep-ir-text " << o.keepIrText << "\nrecord-passes " << o.recordPasses
      << "\nfusion " << o.fusion << "\nexact-math " << o.exactMath << "\nbackends";
  for (const std::string &b : o.backends)
    key << " " << b;
  key << "\noverrides";
  for (const auto &[loc, backend] : o.backendOverrides)
    key << " " << loc << "=" << backend;
  key << "\ntuned";
  for (const auto &[signature, backend] : o.tunedBackends)
    key << " " << signature << "=" << backend;
  key << "\nmodule\n" << moduleText;
  return key.str();
}

std::string compileCacheDir(const CompileOptions &options) {
  if (!options.cacheDir.empty())
    return options.cacheDir;
  if (const char *dir = std::getenv("LOUPE_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/loupe/compile";
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/loupe/compile";
}

namespace {
constexpr const char *kEntryExtensions[] = {".key", ".json", ".so"};

int64_t cacheCapBytes() {
  if (const char *env = std::getenv("LOUPE_CACHE_MAX_BYTES"); env && *env) {
    char *end = nullptr;
    long long value = std::strtoll(env, &end, 10);
    if (end && !*end && value >= 0)
      return value;
  }
  return int64_t(4) << 30;
}

/// One disk entry: its hash (the file stem), bytes and last use (the .key's time, touched on
/// every disk hit).
struct DiskEntry {
  std::string hash;
  int64_t bytes = 0;
  fs::file_time_type used;
};

std::vector<DiskEntry> diskEntries(const std::string &dir) {
  std::map<std::string, DiskEntry> byHash;
  std::error_code ec;
  for (const auto &file : fs::directory_iterator(dir, ec)) {
    std::string ext = file.path().extension().string();
    if (!file.is_regular_file(ec) ||
        std::find(std::begin(kEntryExtensions), std::end(kEntryExtensions), ext) ==
            std::end(kEntryExtensions))
      continue;
    DiskEntry &entry = byHash[file.path().stem().string()];
    entry.hash = file.path().stem().string();
    entry.bytes += static_cast<int64_t>(file.file_size(ec));
    if (ext == ".key")
      entry.used = file.last_write_time(ec);
  }
  std::vector<DiskEntry> entries;
  for (auto &[hash, entry] : byHash)
    entries.push_back(std::move(entry));
  return entries;
}

void removeEntry(const std::string &dir, const std::string &hash) {
  std::error_code ec;
  for (const char *ext : kEntryExtensions) // The .key first: a half-removed entry is a miss.
    fs::remove(fs::path(dir) / (hash + ext), ec);
}

/// Removes the least recently used entries until the cache fits its cap.
void evictLeastRecentlyUsed(const std::string &dir) {
  std::vector<DiskEntry> entries = diskEntries(dir);
  int64_t total = 0, cap = cacheCapBytes();
  for (const DiskEntry &e : entries)
    total += e.bytes;
  std::sort(entries.begin(), entries.end(),
            [](const DiskEntry &a, const DiskEntry &b) { return a.used < b.used; });
  for (const DiskEntry &e : entries) {
    if (total <= cap)
      break;
    removeEntry(dir, e.hash);
    total -= e.bytes;
  }
}

struct MemoryEntry {
  std::string key;
  CompileResult result; ///< artifactPath: the copy in the cache directory.
};
std::mutex memoryMutex;
std::map<std::string, MemoryEntry> memory; // By "<dir>/<hash>".
std::atomic<int64_t> memoryHits{0}, diskHits{0}, misses{0};

std::string hashText(const std::string &text) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
  return buf;
}

std::optional<std::string> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes `path` through a unique temporary in the same directory and a rename.
bool writeAtomically(const fs::path &path, const std::string &bytes) {
  fs::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid()) + "-" +
         std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out.write(bytes.data(), std::streamsize(bytes.size())))
      return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

std::optional<CompileResult> withArtifact(CompileResult result, const std::string &artifactPath) {
  std::error_code ec;
  if (!artifactPath.empty() && result.artifactPath != artifactPath) {
    fs::copy_file(result.artifactPath, artifactPath, fs::copy_options::overwrite_existing, ec);
    if (ec)
      return std::nullopt;
    result.artifactPath = artifactPath;
  }
  return result;
}
} // namespace

std::optional<CompileResult> lookupCompile(const std::string &key, const std::string &dir,
                                           const std::string &artifactPath) {
  std::string hash = hashText(key);
  fs::path base = fs::path(dir) / hash;
  {
    std::lock_guard<std::mutex> lock(memoryMutex);
    auto it = memory.find(base.string());
    if (it != memory.end() && it->second.key == key && fs::exists(it->second.result.artifactPath))
      if (auto hit = withArtifact(it->second.result, artifactPath)) {
        ++memoryHits;
        hit->cache = "memory";
        return hit;
      }
  }
  std::optional<std::string> storedKey = readFile(fs::path(base) += ".key");
  std::optional<std::string> stored = readFile(fs::path(base) += ".json");
  fs::path so = fs::path(base) += ".so";
  if (storedKey && *storedKey == key && stored && fs::exists(so)) {
    try {
      json entry = json::parse(*stored);
      // A truncated or replaced artifact is never served (it would crash the loader): the
      // entry goes, and the compile runs again.
      std::error_code ec;
      if (!entry.contains("artifact_bytes") ||
          entry.at("artifact_bytes").get<int64_t>() != int64_t(fs::file_size(so, ec)) || ec) {
        removeEntry(dir, hash);
        ++misses;
        return std::nullopt;
      }
      CompileResult result = resultFromJson(entry);
      result.artifactPath = so.string();
      {
        std::lock_guard<std::mutex> lock(memoryMutex);
        memory[base.string()] = {key, result};
      }
      fs::last_write_time(fs::path(base) += ".key", fs::file_time_type::clock::now(), ec);
      if (auto hit = withArtifact(result, artifactPath)) {
        ++diskHits;
        hit->cache = "disk";
        return hit;
      }
    } catch (const json::exception &) {
      // A corrupt entry is a miss; storeCompile overwrites it.
    }
  }
  ++misses;
  return std::nullopt;
}

std::string storeCompile(const std::string &key, const std::string &dir,
                         const CompileResult &result) {
  if (!result.ok() || result.artifactPath.empty())
    return "";
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path base = fs::path(dir) / hashText(key);
  std::optional<std::string> artifact = readFile(result.artifactPath);
  fs::path so = fs::path(base) += ".so";
  // The .key goes last: an entry counts only once its key matches.
  json entry = resultJson(result);
  entry["artifact_bytes"] = artifact ? int64_t(artifact->size()) : int64_t(-1);
  if (!artifact || !writeAtomically(so, *artifact) ||
      !writeAtomically(fs::path(base) += ".json", entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) ||
      !writeAtomically(fs::path(base) += ".key", key))
    return "";
  CompileResult cached = result;
  cached.artifactPath = so.string();
  {
    std::lock_guard<std::mutex> lock(memoryMutex);
    memory[base.string()] = {key, std::move(cached)};
  }
  evictLeastRecentlyUsed(dir);
  return so.string();
}

CompileCacheUsage compileCacheUsage(const std::string &dir) {
  CompileCacheUsage usage;
  usage.dir = dir.empty() ? compileCacheDir(CompileOptions()) : dir;
  usage.capBytes = cacheCapBytes();
  for (const DiskEntry &e : diskEntries(usage.dir)) {
    ++usage.entries;
    usage.bytes += e.bytes;
  }
  return usage;
}

CompileCacheUsage clearCompileCache(const std::string &dir) {
  CompileCacheUsage removed;
  removed.dir = dir.empty() ? compileCacheDir(CompileOptions()) : dir;
  removed.capBytes = cacheCapBytes();
  clearCompileCacheMemory();
  for (const DiskEntry &e : diskEntries(removed.dir)) {
    removeEntry(removed.dir, e.hash);
    ++removed.entries;
    removed.bytes += e.bytes;
  }
  return removed;
}

CompileCacheStats compileCacheStats() { return {memoryHits, diskHits, misses}; }

void clearCompileCacheMemory() {
  std::lock_guard<std::mutex> lock(memoryMutex);
  memory.clear();
}

} // namespace loupe::compiler
