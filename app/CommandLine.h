//===- CommandLine.h - Minimal flag parsing for the thin mains --*- C++ -*-===//
#ifndef LOUPE_APP_COMMANDLINE_H
#define LOUPE_APP_COMMANDLINE_H

#include <map>
#include <set>
#include <string>
#include <vector>

namespace loupe::app {

/// Parses "--flag value", "--flag=value", "-o value" and "--switch" into flags and positionals.
/// Unknown flags are errors, so typos never pass silently.
class CommandLine {
public:
  /// `valued`: flags that take a value; `switches`: flags that do not.
  CommandLine(std::set<std::string> valued, std::set<std::string> switches)
      : valued_(std::move(valued)), switches_(std::move(switches)) {}

  /// Returns false with `error` set on an unknown flag or a missing value.
  bool parse(int argc, char **argv, int first, std::string &error) {
    for (int i = first; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.size() < 2 || arg[0] != '-') {
        positionals_.push_back(arg);
        continue;
      }
      std::string value;
      size_t eq = arg.find('=');
      bool inlineValue = eq != std::string::npos;
      if (inlineValue) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
      if (switches_.count(arg) && !inlineValue) {
        flags_[arg] = "1";
      } else if (valued_.count(arg)) {
        if (!inlineValue) {
          if (i + 1 >= argc) {
            error = "flag " + arg + " needs a value";
            return false;
          }
          value = argv[++i];
        }
        flags_[arg] = value;
        all_[arg].push_back(value);
      } else {
        error = "unknown flag '" + arg + "'";
        return false;
      }
    }
    return true;
  }

  bool has(const std::string &flag) const { return flags_.count(flag) != 0; }
  std::string get(const std::string &flag, const std::string &fallback = "") const {
    auto it = flags_.find(flag);
    return it == flags_.end() ? fallback : it->second;
  }
  /// Integer flag; false with `error` set when it is not a number.
  bool getInt(const std::string &flag, int &out, std::string &error) const {
    if (!has(flag))
      return true;
    try {
      size_t used = 0;
      out = std::stoi(get(flag), &used);
      if (used == get(flag).size())
        return true;
    } catch (...) {
    }
    error = "flag " + flag + " expects an integer, got '" + get(flag) + "'";
    return false;
  }
  /// Every value of a repeatable flag, in order (get() returns the last).
  std::vector<std::string> getAll(const std::string &flag) const {
    auto it = all_.find(flag);
    return it == all_.end() ? std::vector<std::string>() : it->second;
  }
  const std::vector<std::string> &positionals() const { return positionals_; }

private:
  std::set<std::string> valued_, switches_;
  std::map<std::string, std::string> flags_;
  std::map<std::string, std::vector<std::string>> all_;
  std::vector<std::string> positionals_;
};

} // namespace loupe::app

#endif // LOUPE_APP_COMMANDLINE_H
