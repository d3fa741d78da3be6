//===- Sqlite.h - Thin RAII layer over the SQLite C API (private) -*- C++ -*-===//
//
// Private to profiler/store, the only directory of Loupe that includes sqlite3.h.
// Errors become ral::Status values whose messages name the DB file.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_STORE_SQLITE_H
#define LOUPE_PROFILER_STORE_SQLITE_H

#include "loupe/ral/Status.h"

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace loupe::profiler::sqlite {

using ral::Status;
using ral::StatusOr;

class Connection;

/// A cached prepared statement in use. Reset and unbound when destroyed, so the next user of
/// the same SQL starts clean.
class Stmt {
public:
  Stmt(Connection &conn, sqlite3_stmt *stmt) : conn_(&conn), stmt_(stmt) {}
  Stmt(Stmt &&other) noexcept;
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;
  Stmt &operator=(Stmt &&) = delete;
  ~Stmt();

  // Parameters are 1-based, as in SQLite.
  Stmt &bind(int idx, int64_t value);
  Stmt &bind(int idx, double value); ///< NaN is stored as NULL (SQLite has no NaN).
  Stmt &bind(int idx, std::string_view text);
  Stmt &bindNull(int idx);
  /// Binds `text`, or NULL when it is empty.
  Stmt &bindTextOrNull(int idx, std::string_view text);

  /// Advances: true when a row is available, false when done.
  StatusOr<bool> step();
  /// Steps to completion (no rows expected) and resets for the next set of bindings.
  Status run();
  void reset();

  // Columns of the current row, 0-based.
  int64_t int64(int col) const;
  double real(int col) const; ///< NaN for NULL.
  std::string text(int col) const; ///< "" for NULL.
  bool isNull(int col) const;
  int columnCount() const;
  std::string columnName(int col) const;
  int columnType(int col) const; ///< SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_NULL...

private:
  Connection *conn_;
  sqlite3_stmt *stmt_;
  int bindError_ = SQLITE_OK;
};

/// An open DB handle with a cache of prepared statements keyed by SQL text.
class Connection {
public:
  /// sqlite3_open_v2 with `flags`. Errors name `path`, after `label` (what the file is).
  static StatusOr<std::unique_ptr<Connection>> open(const std::string &path, int flags,
                                                    const std::string &label = "profile DB");
  ~Connection();
  Connection(const Connection &) = delete;
  Connection &operator=(const Connection &) = delete;

  sqlite3 *handle() { return db_; }
  const std::string &path() const { return path_; }

  /// Runs one or more statements that return no rows.
  Status exec(const std::string &sql);
  /// The cached statement for `sql` (prepared on first use).
  StatusOr<Stmt> prepare(const std::string &sql);
  /// Runs a single-value query (e.g. "PRAGMA user_version").
  StatusOr<int64_t> queryInt(const std::string &sql);
  StatusOr<std::string> queryText(const std::string &sql);
  int64_t lastInsertRowId();
  int64_t changes();

  /// A Status for the connection's last error: "LABEL 'PATH': WHAT: sqlite message" (LABEL:
  /// "profile DB" unless open() was given another).
  Status error(std::string_view what);
  Status error(std::string_view what, int code);

  /// Called after a transaction rolls back (caches of row ids must be dropped).
  std::function<void()> onRollback;

private:
  Connection(std::string path, sqlite3 *db, std::string label)
      : path_(std::move(path)), label_(std::move(label)), db_(db) {}
  std::string path_;
  std::string label_;
  sqlite3 *db_;
  std::unordered_map<std::string, sqlite3_stmt *> cache_;
};

/// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed uncommitted.
class Transaction {
public:
  static StatusOr<Transaction> begin(Connection &conn);
  Transaction(Transaction &&other) noexcept : conn_(other.conn_) { other.conn_ = nullptr; }
  Transaction(const Transaction &) = delete;
  Transaction &operator=(const Transaction &) = delete;
  Transaction &operator=(Transaction &&) = delete;
  ~Transaction();
  Status commit();

private:
  explicit Transaction(Connection &conn) : conn_(&conn) {}
  Connection *conn_;
};

} // namespace loupe::profiler::sqlite

#endif // LOUPE_PROFILER_STORE_SQLITE_H
