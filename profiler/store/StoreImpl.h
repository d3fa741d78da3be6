//===- StoreImpl.h - Store internals shared by the store sources (private) -===//
#ifndef LOUPE_PROFILER_STORE_STOREIMPL_H
#define LOUPE_PROFILER_STORE_STOREIMPL_H

#include "Sqlite.h"

#include "loupe/profiler/Store.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace loupe::profiler {

class Store::Impl {
public:
  explicit Impl(std::unique_ptr<sqlite::Connection> conn);

  /// Id of `value` in strings, inserting it if new. Cached; the cache is dropped on rollback.
  ral::StatusOr<int64_t> intern(std::string_view value);
  /// As intern, but 0 (bound as NULL by bindId) for an empty value.
  ral::StatusOr<int64_t> internOrNull(std::string_view value);
  ral::StatusOr<int64_t> deviceId(const RunInfo &info);
  ral::StatusOr<int64_t> configId(const std::string &json);
  /// kNotFound unless run `runId` exists.
  ral::Status requireRun(int64_t runId);

  std::unique_ptr<sqlite::Connection> conn;

private:
  std::unordered_map<std::string, int64_t> strings_;
};

/// Binds a row id, or NULL for 0.
inline void bindId(sqlite::Stmt &stmt, int idx, int64_t id) {
  if (id == 0)
    stmt.bindNull(idx);
  else
    stmt.bind(idx, id);
}

/// Wall-clock ns since the Unix epoch.
int64_t wallNowNs();

} // namespace loupe::profiler

/// Evaluates a StatusOr expression; returns its Status from the enclosing function on error,
/// else assigns the value to `lhs`.
#define LOUPE_PROF_ASSIGN_OR_RETURN(lhs, expr)                                                      \
  LOUPE_PROF_ASSIGN_OR_RETURN_IMPL(LOUPE_PROF_CONCAT(statusOr_, __LINE__), lhs, expr)
#define LOUPE_PROF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                                            \
  auto tmp = (expr);                                                                           \
  if (!tmp)                                                                                    \
    return tmp.status();                                                                       \
  lhs = std::move(*tmp)
#define LOUPE_PROF_CONCAT(a, b) LOUPE_PROF_CONCAT_IMPL(a, b)
#define LOUPE_PROF_CONCAT_IMPL(a, b) a##b
/// Returns a failed Status from the enclosing function.
#define LOUPE_PROF_RETURN_IF_ERROR(expr)                                                            \
  do {                                                                                         \
    ::loupe::ral::Status status_ = (expr);                                                     \
    if (!status_)                                                                              \
      return status_;                                                                          \
  } while (0)

#endif // LOUPE_PROFILER_STORE_STOREIMPL_H
