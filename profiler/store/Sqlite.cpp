//===- Sqlite.cpp - Thin RAII layer over the SQLite C API -------------------===//

#include "Sqlite.h"

#include <cmath>

namespace loupe::profiler::sqlite {

namespace {
ral::StatusCode codeFor(int rc) {
  switch (rc & 0xff) {
  case SQLITE_NOTADB:
  case SQLITE_CORRUPT:
  case SQLITE_CONSTRAINT:
  case SQLITE_MISMATCH:
  case SQLITE_RANGE:
    return ral::StatusCode::kInvalidArgument;
  case SQLITE_CANTOPEN:
    return ral::StatusCode::kNotFound;
  default:
    return ral::StatusCode::kInternal;
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// Stmt
//===----------------------------------------------------------------------===//

Stmt::Stmt(Stmt &&other) noexcept
    : conn_(other.conn_), stmt_(other.stmt_), bindError_(other.bindError_) {
  other.stmt_ = nullptr;
}

Stmt::~Stmt() {
  if (stmt_) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Stmt &Stmt::bind(int idx, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, idx, value);
  if (rc != SQLITE_OK && bindError_ == SQLITE_OK)
    bindError_ = rc;
  return *this;
}

Stmt &Stmt::bind(int idx, double value) {
  if (std::isnan(value))
    return bindNull(idx);
  int rc = sqlite3_bind_double(stmt_, idx, value);
  if (rc != SQLITE_OK && bindError_ == SQLITE_OK)
    bindError_ = rc;
  return *this;
}

Stmt &Stmt::bind(int idx, std::string_view text) {
  int rc = sqlite3_bind_text64(stmt_, idx, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bindError_ == SQLITE_OK)
    bindError_ = rc;
  return *this;
}

Stmt &Stmt::bindNull(int idx) {
  int rc = sqlite3_bind_null(stmt_, idx);
  if (rc != SQLITE_OK && bindError_ == SQLITE_OK)
    bindError_ = rc;
  return *this;
}

Stmt &Stmt::bindTextOrNull(int idx, std::string_view text) {
  return text.empty() ? bindNull(idx) : bind(idx, text);
}

StatusOr<bool> Stmt::step() {
  if (bindError_ != SQLITE_OK)
    return conn_->error(std::string("binding parameters of \"") + sqlite3_sql(stmt_) + "\"",
                        bindError_);
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  return conn_->error(std::string("running \"") + sqlite3_sql(stmt_) + "\"", rc);
}

Status Stmt::run() {
  StatusOr<bool> row = step();
  reset();
  if (!row)
    return row.status();
  return Status::ok();
}

void Stmt::reset() { sqlite3_reset(stmt_); }

int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }

double Stmt::real(int col) const {
  if (isNull(col))
    return std::nan("");
  return sqlite3_column_double(stmt_, col);
}

std::string Stmt::text(int col) const {
  const unsigned char *p = sqlite3_column_text(stmt_, col);
  if (!p)
    return {};
  return std::string(reinterpret_cast<const char *>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

bool Stmt::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

int Stmt::columnCount() const { return sqlite3_column_count(stmt_); }

std::string Stmt::columnName(int col) const {
  const char *name = sqlite3_column_name(stmt_, col);
  return name ? name : "";
}

int Stmt::columnType(int col) const { return sqlite3_column_type(stmt_, col); }

//===----------------------------------------------------------------------===//
// Connection
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<Connection>> Connection::open(const std::string &path, int flags,
                                                       const std::string &label) {
  sqlite3 *db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status(codeFor(rc), label + " '" + path + "': cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(path, db, label));
}

Connection::~Connection() {
  for (auto &entry : cache_)
    sqlite3_finalize(entry.second);
  sqlite3_close(db_);
}

Status Connection::exec(const std::string &sql) {
  char *msg = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg);
  if (rc == SQLITE_OK)
    return Status::ok();
  std::string text = msg ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return Status(codeFor(rc), label_ + " '" + path_ + "': " + text);
}

StatusOr<Stmt> Connection::prepare(const std::string &sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end())
    return Stmt(*this, it->second);
  sqlite3_stmt *stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK)
    return error("preparing \"" + sql + "\"", rc);
  cache_.emplace(sql, stmt);
  return Stmt(*this, stmt);
}

StatusOr<int64_t> Connection::queryInt(const std::string &sql) {
  StatusOr<Stmt> stmt = prepare(sql);
  if (!stmt)
    return stmt.status();
  StatusOr<bool> row = stmt->step();
  if (!row)
    return row.status();
  return *row ? stmt->int64(0) : int64_t(0);
}

StatusOr<std::string> Connection::queryText(const std::string &sql) {
  StatusOr<Stmt> stmt = prepare(sql);
  if (!stmt)
    return stmt.status();
  StatusOr<bool> row = stmt->step();
  if (!row)
    return row.status();
  return *row ? stmt->text(0) : std::string();
}

int64_t Connection::lastInsertRowId() { return sqlite3_last_insert_rowid(db_); }

int64_t Connection::changes() { return sqlite3_changes(db_); }

Status Connection::error(std::string_view what) { return error(what, sqlite3_extended_errcode(db_)); }

Status Connection::error(std::string_view what, int code) {
  std::string msg = sqlite3_errcode(db_) != SQLITE_OK ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  return Status(codeFor(code), label_ + " '" + path_ + "': " + std::string(what) + ": " + msg);
}

//===----------------------------------------------------------------------===//
// Transaction
//===----------------------------------------------------------------------===//

StatusOr<Transaction> Transaction::begin(Connection &conn) {
  Status s = conn.exec("BEGIN IMMEDIATE");
  if (!s)
    return s;
  return Transaction(conn);
}

Transaction::~Transaction() {
  if (!conn_)
    return;
  // Not committed: undo everything. ROLLBACK fails only when SQLite already rolled back.
  sqlite3_exec(conn_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  if (conn_->onRollback)
    conn_->onRollback();
}

Status Transaction::commit() {
  Status s = conn_->exec("COMMIT");
  if (!s)
    return s; // still open: the destructor rolls back
  conn_ = nullptr;
  return Status::ok();
}

} // namespace loupe::profiler::sqlite
