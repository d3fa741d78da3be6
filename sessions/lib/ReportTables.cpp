//===- ReportTables.cpp - Reports as CSV and JUnit XML --------------------------===//
//
// Both render the report document (Report.h): CSV for spreadsheets and scripts, JUnit XML for
// CI systems that show test results (one test case per compared row, a failure per SLOWER
// verdict; the JUnit schema as Jenkins and GitLab read it: testsuites > testsuite > testcase
// > failure).
//
//===----------------------------------------------------------------------===//
#include "loupe/sessions/Report.h"

#include "ReportText.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using nlohmann::json;
using loupe::sessions::report::escapeXml;
using loupe::sessions::report::plain;

namespace loupe::sessions {

namespace {

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csvLine(const std::vector<std::string> &fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i)
    line += (i ? "," : "") + csvField(fields[i]);
  return line + "\n";
}

/// The compared rows of a comparison: (kind, id, name, loc, backends, row JSON).
struct Row {
  std::string kind, id, name, loc, baselineBackend, candidateBackend;
  const json *numbers;
};

std::vector<Row> comparedRows(const json &c) {
  std::vector<Row> rows;
  rows.push_back({"whole", "", "whole repetition", "", "", "", &c["run"]});
  for (const json &d : c["dispatches"])
    if (!d.contains("group"))
      rows.push_back({"dispatch", plain(d["id"]), plain(d["name"]), plain(d["loc"]),
                      plain(d["baseline_backend"]), plain(d["candidate_backend"]), &d});
  if (c.contains("groups"))
    for (const json &g : c["groups"])
      rows.push_back({"group", "", "source ops " + plain(g["loc"]), plain(g["loc"]), "", "", &g});
  return rows;
}

} // namespace

std::string renderCsv(const json &r) {
  std::string out;
  if (r.contains("comparison") && r["comparison"].contains("run")) {
    out = csvLine({"kind", "id", "name", "loc", "baseline_backend", "candidate_backend",
                   "baseline_median_ns", "candidate_median_ns", "change", "change_low",
                   "change_high", "p_value", "verdict"});
    for (const Row &row : comparedRows(r["comparison"])) {
      const json &n = *row.numbers;
      out += csvLine({row.kind, row.id, row.name, row.loc, row.baselineBackend,
                      row.candidateBackend, plain(n["baseline_median_ns"]),
                      plain(n["candidate_median_ns"]), plain(n["change"]),
                      plain(n.value("change_low", json())), plain(n.value("change_high", json())),
                      plain(n["p_value"]), plain(n["verdict"])});
    }
    return out;
  }
  out = csvLine({"variant", "id", "name", "op", "loc", "backend", "calls", "median_ns", "iqr_ns",
                 "share"});
  auto body = [&](const json &v, const std::string &variant) {
    for (const json &d : v.value("dispatches", json::array()))
      out += csvLine({variant, plain(d["id"]), plain(d["name"]), plain(d["op"]), plain(d["loc"]),
                      plain(d["backend"]), plain(d["calls"]), plain(d["median_ns"]),
                      plain(d["iqr_ns"]), plain(d["share"])});
  };
  if (r.contains("variants"))
    for (const json &v : r["variants"])
      body(v, plain(v["name"]));
  else
    body(r, "");
  return out;
}

std::string renderJunit(const json &r) {
  std::string suiteName = r.value("session", "").empty() ? plain(r.value("model", json()))
                                                         : plain(r["session"]);
  std::string cases;
  int tests = 0, failures = 0;
  auto testCase = [&](const std::string &name, double seconds, const std::string &failure,
                      const std::string &detail) {
    char time[32];
    std::snprintf(time, sizeof time, "%.9f", seconds);
    ++tests;
    cases += "    <testcase classname=\"" + escapeXml(suiteName) + "\" name=\"" + escapeXml(name) +
             "\" time=\"" + time + "\"";
    if (failure.empty()) {
      cases += "/>\n";
      return;
    }
    ++failures;
    cases += ">\n      <failure message=\"" + escapeXml(failure) + "\" type=\"regression\">" +
             escapeXml(detail) + "</failure>\n    </testcase>\n";
  };
  if (r.contains("comparison") && r["comparison"].contains("run")) {
    const json &c = r["comparison"];
    suiteName += ": " + plain(c["candidate"]) + " vs " + plain(c["baseline"]);
    for (const Row &row : comparedRows(c)) {
      const json &n = *row.numbers;
      std::string verdict = plain(n["verdict"]);
      double ns = n["candidate_median_ns"].is_number() ? n["candidate_median_ns"].get<double>() : 0;
      char change[64] = "";
      if (n["change"].is_number())
        std::snprintf(change, sizeof change, " %+.1f%%", 100 * n["change"].get<double>());
      testCase(row.id.empty() ? row.name : row.id + " " + row.name, ns * 1e-9,
               verdict == "SLOWER" ? "SLOWER" + std::string(change) : "", plain(n["reason"]));
    }
  } else {
    auto variantCase = [&](const json &v, const std::string &name) {
      double ns = v.contains("run") ? v["run"].value("median_ns", 0.0) : 0.0;
      std::string failure;
      if (v.value("exit_code", 0) != 0)
        failure = v.value("error", std::string("exit code ") + std::to_string(v.value("exit_code", 0)));
      else if (v.contains("correctness") && v["correctness"].value("checked", false) &&
               !v["correctness"].value("passed", true))
        failure = "numerical mismatch";
      testCase(name, ns * 1e-9, failure, failure);
    };
    if (r.contains("variants"))
      for (const json &v : r["variants"])
        variantCase(v, plain(v["name"]));
    else
      variantCase(r, "run");
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"loupe\" tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\">\n  <testsuite name=\"" + escapeXml(suiteName) + "\" tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"0\" skipped=\"0\">\n" + cases + "  </testsuite>\n</testsuites>\n";
}

} // namespace loupe::sessions
