//===- Status.h - Recoverable errors of the runtime -------------*- C++ -*-===//
//
// The runtime never aborts on bad input, a missing device or a failing kernel: every fallible
// call returns a Status (or StatusOr<T>) carrying a code and a message naming the file, API or
// op involved.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_STATUS_H
#define LOUPE_RAL_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace loupe::ral {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument, ///< Bad input: malformed file, wrong shape or dtype (CLI exit code 2).
  kNotFound,        ///< A file, symbol or registered API that does not exist (exit code 2).
  kUnavailable,     ///< A device or vendor library that is not present on this machine.
  kInternal,        ///< A bug or an unexpected failure (exit code 3).
};

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status notFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status internalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

/// A value or the Status saying why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {}

  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace loupe::ral

#endif // LOUPE_RAL_STATUS_H
