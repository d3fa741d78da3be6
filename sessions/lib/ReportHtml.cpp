//===- ReportHtml.cpp - A report as one self-contained HTML page ----------------===//
//
// Renders the report document (Report.h) with inline SVG, no script and no external file, so
// the page can be attached to a CI run and opened anywhere: the comparison's change per row
// with its 95% interval, then per run its dispatch medians (IQR whiskers), the timeline of its
// median repetition, its pass times and a roofline (Williams et al. 2009) of its kernels under
// this host's measured roofs (MachinePeaks.h). Colours: verdicts where there is a comparison,
// else backends.
//
//===----------------------------------------------------------------------===//
#include "loupe/sessions/Report.h"

#include "ReportText.h"

#include "loupe/profiler/Run.h"
#include "loupe/profiler/RunProvenance.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

using nlohmann::json;
using loupe::sessions::report::escapeXml;
using loupe::sessions::report::plain;

namespace loupe::sessions {

namespace {

constexpr int kWidth = 960, kLabel = 260, kRow = 18;

std::string num(double v, const char *fmt = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string timeText(double ns) {
  if (!std::isfinite(ns))
    return "-";
  if (ns >= 1e6)
    return num(ns / 1e6, "%.3f ms");
  if (ns >= 1e3)
    return num(ns / 1e3, "%.2f us");
  return num(ns, "%.0f ns");
}

std::string verdictColour(const std::string &verdict) {
  if (verdict == "FASTER")
    return "#2e9e5b";
  if (verdict == "SLOWER")
    return "#d64545";
  if (verdict == "AMBIGUOUS")
    return "#e0a030";
  return "#8a8f98";
}

std::string backendColour(const std::string &backend) {
  static const std::map<std::string, std::string> colours = {
      {"codegen", "#4c78a8"}, {"onednn", "#f58518"}, {"openblas", "#72b7b2"},
      {"cublas", "#54a24b"},  {"cublaslt", "#b279a2"}, {"cudnn", "#eeca3b"}};
  auto it = colours.find(backend);
  return it == colours.end() ? "#9d755d" : it->second;
}

std::string svgOpen(int height, const std::string &title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(kWidth) +
         " " + std::to_string(height) + "\" role=\"img\" aria-label=\"" + escapeXml(title) +
         "\">\n";
}

std::string text(double x, double y, const std::string &s, const char *anchor = "start",
                 const char *cls = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor +
         "\" class=\"" + cls + "\">" + escapeXml(s) + "</text>\n";
}

std::string rect(double x, double y, double w, double h, const std::string &fill,
                 const std::string &tooltip) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.5)) +
         "\" height=\"" + num(h) + "\" fill=\"" + fill + "\"><title>" + escapeXml(tooltip) +
         "</title></rect>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char *stroke = "#333",
                 double width = 1) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" stroke=\"" + stroke + "\" stroke-width=\"" + num(width) + "\"/>\n";
}

double number(const json &v, double fallback = NAN) {
  return v.is_number() ? v.get<double>() : fallback;
}

/// Change per compared row: a bar from 0 to the estimate, a whisker over the interval.
std::string changeChart(const json &c) {
  struct Item {
    std::string label, verdict, reason;
    double change, low, high;
  };
  std::vector<Item> items;
  auto add = [&](const std::string &label, const json &n) {
    items.push_back({label, plain(n["verdict"]), plain(n["reason"]), number(n["change"]),
                     number(n.value("change_low", json())), number(n.value("change_high", json()))});
  };
  add("whole repetition", c["run"]);
  for (const json &d : c["dispatches"])
    if (!d.contains("group") && d["in_baseline"].get<bool>() && d["in_candidate"].get<bool>())
      add(plain(d["name"]), d);
  if (c.contains("groups"))
    for (const json &g : c["groups"])
      add("source ops " + plain(g["loc"]), g);
  double lo = -0.1, hi = 0.1;
  for (const Item &i : items)
    for (double v : {i.change, i.low, i.high})
      if (std::isfinite(v))
        lo = std::min(lo, v), hi = std::max(hi, v);
  lo = std::max(lo, -1.0), hi = std::min(hi, 4.0);
  int height = static_cast<int>(items.size()) * kRow + 40;
  double x0 = kLabel + 10, w = kWidth - x0 - 20;
  auto x = [&](double v) { return x0 + (std::clamp(v, lo, hi) - lo) / (hi - lo) * w; };
  std::string svg = svgOpen(height, "change per dispatch with 95% interval");
  svg += line(x(0), 10, x(0), height - 22, "#999");
  svg += text(x(lo), height - 6, num(100 * lo, "%+.0f%%"), "start", "axis");
  svg += text(x(0), height - 6, "0", "middle", "axis");
  svg += text(x(hi), height - 6, num(100 * hi, "%+.0f%%"), "end", "axis");
  for (size_t k = 0; k < items.size(); ++k) {
    const Item &i = items[k];
    double y = 12 + k * kRow;
    svg += text(kLabel, y + 12, i.label.substr(0, 40), "end");
    if (!std::isfinite(i.change))
      continue;
    std::string tip = i.label + ": " + i.verdict + ", " + i.reason;
    svg += rect(std::min(x(0), x(i.change)), y + 3, std::fabs(x(i.change) - x(0)), kRow - 6,
                verdictColour(i.verdict), tip);
    if (std::isfinite(i.low) && std::isfinite(i.high))
      svg += line(x(i.low), y + kRow / 2.0, x(i.high), y + kRow / 2.0, "#222", 1.5) +
             line(x(i.low), y + 4, x(i.low), y + kRow - 4, "#222") +
             line(x(i.high), y + 4, x(i.high), y + kRow - 4, "#222");
  }
  return svg + "</svg>\n";
}

/// Dispatch medians with IQR whiskers.
std::string dispatchChart(const json &dispatches, const std::map<std::string, std::string> &verdictOf) {
  double top = 0;
  for (const json &d : dispatches)
    top = std::max(top, number(d["median_ns"], 0) + number(d["iqr_ns"], 0) / 2);
  if (top <= 0)
    return "";
  int height = static_cast<int>(dispatches.size()) * kRow + 30;
  double x0 = kLabel + 10, w = kWidth - x0 - 90;
  std::string svg = svgOpen(height, "dispatch medians with interquartile range");
  for (size_t k = 0; k < dispatches.size(); ++k) {
    const json &d = dispatches[k];
    double y = 8 + k * kRow, median = number(d["median_ns"], 0), iqr = number(d["iqr_ns"], 0);
    std::string name = plain(d["name"]);
    auto v = verdictOf.find(name);
    std::string colour = v != verdictOf.end() ? verdictColour(v->second) : backendColour(plain(d["backend"]));
    svg += text(kLabel, y + 12, name.substr(0, 40), "end");
    svg += rect(x0, y + 3, median / top * w, kRow - 6, colour,
                name + " (" + plain(d["backend"]) + "): median " + timeText(median) + ", IQR " +
                    timeText(iqr) + (v != verdictOf.end() ? ", " + v->second : ""));
    svg += line(x0 + (median - iqr / 2) / top * w, y + kRow / 2.0,
                x0 + (median + iqr / 2) / top * w, y + kRow / 2.0, "#222");
    svg += text(x0 + median / top * w + 6, y + 12, timeText(median), "start", "axis");
  }
  return svg + "</svg>\n";
}

/// The median repetition: one rectangle per dispatch at its time.
std::string timelineChart(const json &timeline, const json &dispatches) {
  double duration = number(timeline["duration_ns"], 0);
  if (duration <= 0 || timeline["spans"].empty())
    return "";
  std::map<int64_t, const json *> byId;
  for (const json &d : dispatches)
    byId[d["id"].get<int64_t>()] = &d;
  double x0 = 10, w = kWidth - 20;
  std::string svg = svgOpen(70, "timeline of the median repetition");
  svg += line(x0, 44, x0 + w, 44, "#999");
  for (const json &s : timeline["spans"]) {
    double start = s[1].get<double>(), end = s[2].get<double>();
    auto it = byId.find(s[0].get<int64_t>());
    std::string name = it != byId.end() ? plain((*it->second)["name"]) : "dispatch";
    std::string backend = it != byId.end() ? plain((*it->second)["backend"]) : "";
    svg += rect(x0 + start / duration * w, 12, (end - start) / duration * w, 30,
                backendColour(backend),
                name + " (" + backend + "): " + timeText(end - start) + " at " + timeText(start));
  }
  svg += text(x0, 62, "0", "start", "axis") + text(x0 + w, 62, timeText(duration), "end", "axis");
  return svg + "</svg>\n";
}

/// Pass times, coloured by phase.
std::string passChart(const json &pipeline) {
  static const std::map<std::string, std::string> phaseColour = {
      {"import", "#4c78a8"}, {"graph", "#72b7b2"}, {"cluster", "#54a24b"}, {"lower", "#eeca3b"},
      {"ral", "#f58518"},    {"llvm", "#e45756"},  {"artifact", "#b279a2"}};
  const json &passes = pipeline["passes"];
  double top = 0;
  for (const json &p : passes)
    top = std::max(top, number(p["duration_ns"], 0));
  if (top <= 0)
    return "";
  int height = static_cast<int>(passes.size()) * 12 + 16;
  double x0 = kLabel + 10, w = kWidth - x0 - 90;
  std::string svg = svgOpen(height, "time of every pass");
  for (size_t k = 0; k < passes.size(); ++k) {
    const json &p = passes[k];
    double y = 4 + k * 12, ns = number(p["duration_ns"], 0);
    std::string phase = plain(p["phase"]);
    auto c = phaseColour.find(phase);
    svg += "<text x=\"" + num(kLabel) + "\" y=\"" + num(y + 10) +
           "\" text-anchor=\"end\" class=\"small\">" + escapeXml(plain(p["pass"]).substr(0, 44)) +
           "</text>\n";
    svg += rect(x0, y + 1, ns / top * w, 10, c == phaseColour.end() ? "#999" : c->second,
                plain(p["pass"]) + " (" + phase + "): " + timeText(ns) +
                    (p.value("changed", false) ? ", changed the IR" : ""));
    svg += "<text x=\"" + num(x0 + ns / top * w + 4) + "\" y=\"" + num(y + 10) +
           "\" class=\"small\">" + timeText(ns) + "</text>\n";
  }
  return svg + "</svg>\n";
}

/// Achieved FLOP/s against arithmetic intensity, log-log, under min(peak, bandwidth x AI).
std::string roofline(const json &dispatches, const json &machine,
                     const std::map<std::string, std::string> &verdictOf) {
  double peak = number(machine.value("peak_flops", json()), 0);
  double bw = number(machine.value("bandwidth_bytes", json()), 0);
  if (peak <= 0 || bw <= 0)
    return "";
  const double aiLo = 1.0 / 64, aiHi = 512, fLo = 1e6, fHi = peak * 4;
  double x0 = 70, y0 = 20, w = kWidth - x0 - 30, h = 300;
  auto x = [&](double ai) { return x0 + std::log(ai / aiLo) / std::log(aiHi / aiLo) * w; };
  auto y = [&](double f) { return y0 + h - std::log(f / fLo) / std::log(fHi / fLo) * h; };
  std::string svg = svgOpen(static_cast<int>(h + 60), "roofline of every kernel");
  svg += line(x0, y0 + h, x0 + w, y0 + h, "#999") + line(x0, y0, x0, y0 + h, "#999");
  double ridge = peak / bw;
  svg += "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" points=\"" +
         num(x(aiLo)) + "," + num(y(std::max(fLo, bw * aiLo))) + " " + num(x(ridge)) + "," +
         num(y(peak)) + " " + num(x(aiHi)) + "," + num(y(peak)) + "\"><title>" +
         escapeXml("roofs: " + num(peak / 1e9, "%.0f GFLOP/s") + ", " + num(bw / 1e9, "%.1f GB/s")) +
         "</title></polyline>\n";
  svg += text(x(aiHi), y(peak) - 6, num(peak / 1e9, "%.0f GFLOP/s peak"), "end", "axis");
  svg += text(x(aiLo) + 4, y(std::max(fLo, bw * aiLo)) - 6, num(bw / 1e9, "%.1f GB/s"), "start", "axis");
  for (double ai : {1.0 / 16, 0.25, 1.0, 4.0, 16.0, 64.0, 256.0})
    svg += text(x(ai), y0 + h + 16, ai < 1 ? "1/" + num(1 / ai, "%.0f") : num(ai, "%.0f"), "middle", "axis");
  for (double f : {1e6, 1e8, 1e10, 1e12})
    if (f <= fHi)
      svg += text(x0 - 6, y(f) + 4, num(f / 1e9, f < 1e9 ? "%.2g G" : "%.0f G"), "end", "axis");
  svg += text(x0 + w / 2, y0 + h + 36, "arithmetic intensity (FLOP/byte)", "middle", "axis");
  svg += "<text x=\"14\" y=\"" + num(y0 + h / 2) + "\" transform=\"rotate(-90 14 " + num(y0 + h / 2) +
         ")\" text-anchor=\"middle\" class=\"axis\">FLOP/s</text>\n";
  for (const json &d : dispatches) {
    double flops = number(d["flops"], 0), bytes = number(d["bytes"], 0), ns = number(d["median_ns"], 0);
    if (flops <= 0 || bytes <= 0 || ns <= 0)
      continue;
    double ai = std::clamp(flops / bytes, aiLo, aiHi), rate = std::clamp(flops / (ns * 1e-9), fLo, fHi);
    std::string name = plain(d["name"]);
    auto v = verdictOf.find(name);
    std::string colour = v != verdictOf.end() ? verdictColour(v->second) : backendColour(plain(d["backend"]));
    double roof = std::min(peak, bw * flops / bytes);
    svg += "<circle cx=\"" + num(x(ai)) + "\" cy=\"" + num(y(rate)) + "\" r=\"5\" fill=\"" + colour +
           "\" fill-opacity=\"0.8\"><title>" +
           escapeXml(name + " (" + plain(d["backend"]) + "): " + num(rate / 1e9, "%.2f GFLOP/s") +
                     ", " + num(flops / bytes, "%.3g FLOP/B") + ", " +
                     num(100 * rate / roof, "%.1f%% of its roof")) +
           "</title></circle>\n";
  }
  return svg + "</svg>\n";
}

std::string runSection(const json &body, const json &machine, const std::string &title,
                       const std::map<std::string, std::string> &verdictOf) {
  std::string html = "<section>\n<h2>" + escapeXml(title) + "</h2>\n<ul>\n";
  if (body.contains("run_id"))
    html += "<li>Run " + plain(body["run_id"]) + "</li>\n";
  if (body.contains("run"))
    html += "<li>Whole repetition: median " + timeText(number(body["run"]["median_ns"])) +
            ", IQR " + timeText(number(body["run"]["iqr_ns"])) + " over " +
            plain(body["run"]["count"]) + " repetitions</li>\n";
  if (body.contains("memory"))
    html += "<li>Transient memory: " + escapeXml(profiler::describeMemory(body["memory"])) +
            "</li>\n";
  if (body.contains("thread_stalls"))
    html += "<li>Thread stalls: " +
            escapeXml(profiler::describeThreadStalls(body["thread_stalls"])) + "</li>\n";
  if (body.contains("environment"))
    html += "<li>Environment: " + escapeXml(profiler::describeEnvironment(body["environment"].dump())) + "</li>\n";
  if (body.contains("correctness") && body["correctness"].value("checked", false))
    html += std::string("<li>Correctness: ") +
            (body["correctness"].value("passed", false) ? "pass" : "<b>FAIL</b>") + "</li>\n";
  if (body.contains("error"))
    html += "<li><b>Error</b>: " + escapeXml(plain(body["error"])) + "</li>\n";
  html += "</ul>\n";
  const json dispatches = body.value("dispatches", json::array());
  if (std::string chart = dispatchChart(dispatches, verdictOf); !chart.empty())
    html += "<h3>Dispatches: median and IQR</h3>\n" + chart;
  if (body.contains("timeline") && !body["timeline"].is_null())
    if (std::string chart = timelineChart(body["timeline"], dispatches); !chart.empty())
      html += "<h3>Timeline of the median repetition (rep " + plain(body["timeline"]["rep"]) +
              ")</h3>\n" + chart;
  if (std::string chart = roofline(dispatches, machine, verdictOf); !chart.empty())
    html += "<h3>Roofline</h3>\n" + chart;
  if (body.contains("pipeline"))
    if (std::string chart = passChart(body["pipeline"]); !chart.empty())
      html += "<h3>Pass times (" + timeText(number(body["pipeline"]["total_ns"])) + " in all)</h3>\n" + chart;
  return html + "</section>\n";
}

/// `loupe tune`'s matrix: a row per op signature, a cell per backend (its time, change and
/// verdict against the default, coloured by verdict), and the backend kept.
std::string tuningSection(const json &t) {
  std::vector<std::string> backends;
  for (const json &s : t["signatures"])
    for (const json &m : s["measured"])
      if (std::find(backends.begin(), backends.end(), plain(m["backend"])) == backends.end())
        backends.push_back(plain(m["backend"]));
  std::string html = "<h2>Tuning</h2>\n<p>" + std::to_string(t["signatures"].size()) +
                     " op signatures run by more than one backend, " +
                     std::to_string(t.value("trials", 0)) + " interleaved trials per backend, " +
                     num(number(t["seconds"], 0), "%.1f s") +
                     (t.contains("session") ? "; tuned session <code>" + escapeXml(plain(t["session"])) + "</code>" : "") +
                     ".</p>\n<table>\n<tr><th>op</th><th>source ops</th>";
  for (const std::string &b : backends)
    html += "<th>" + escapeXml(b) + "</th>";
  html += "<th>kept</th></tr>\n";
  for (const json &s : t["signatures"]) {
    std::string locs;
    for (const json &l : s["locs"])
      locs += (locs.empty() ? "" : ", ") + plain(l);
    html += "<tr title=\"" + escapeXml(plain(s["signature"]) + "\n" + plain(s["why"])) + "\"><td>" +
            escapeXml(plain(s["op"])) + "</td><td>" + escapeXml(locs) + "</td>";
    for (const std::string &b : backends) {
      const json *m = nullptr;
      for (const json &x : s["measured"])
        if (plain(x["backend"]) == b)
          m = &x;
      std::string verdict = m ? plain((*m)["verdict"]) : "";
      if (!m)
        html += "<td>-</td>";
      else if (!plain((*m)["note"]).empty())
        html += "<td>" + escapeXml(plain((*m)["note"])) + "</td>";
      else
        html += "<td style=\"background:" +
                (verdict == "default" ? std::string("#eee") : verdictColour(verdict)) +
                (verdict == "default" ? "" : ";color:#fff") + "\">" +
                timeText(number((*m)["median_ns"])) +
                (verdict == "default" ? " (default)"
                                      : " " + num(100 * number((*m)["change"], 0), "%+.1f%%")) +
                "</td>";
    }
    html += "<td><b>" + escapeXml(plain(s["backend"])) + "</b></td></tr>\n";
  }
  return html + "</table>\n";
}

std::string comparisonSection(const json &c) {
  std::string a = plain(c["baseline"]), b = plain(c["candidate"]);
  std::string html = "<section>\n<h2>Comparison: " + escapeXml(b) + " against " + escapeXml(a) + "</h2>\n";
  if (!c.contains("run"))
    return html + "<p>Not compared: " + escapeXml(plain(c["error"])) + "</p>\n</section>\n";
  std::string verdict = plain(c["verdict"]);
  const json &run = c["run"];
  html += "<p class=\"verdict\" style=\"background:" + verdictColour(verdict) + "\">Whole repetition: " +
          escapeXml(verdict) + " " + num(100 * number(run["change"], 0), "%+.1f%%") +
          (run["change_low"].is_number()
               ? " [" + num(100 * number(run["change_low"]), "%+.1f%%") + ", " +
                     num(100 * number(run["change_high"]), "%+.1f%%") + "]"
               : std::string()) +
          " (" + timeText(number(run["baseline_median_ns"])) + " -> " +
          timeText(number(run["candidate_median_ns"])) + ")</p>\n<p>" + escapeXml(plain(run["reason"])) + "</p>\n";
  if (c.value("under_load", false))
    html += "<p><b>Measured under load</b> (" + escapeXml(plain(c.value("load", json()))) +
            "): these verdicts cannot be trusted.</p>\n";
  html += changeChart(c);
  html += "<table>\n<tr><th>row</th><th>" + escapeXml(a) + "</th><th>" + escapeXml(b) +
          "</th><th>change [95% CI]</th><th>verdict</th></tr>\n";
  auto row = [&](const std::string &name, const json &n) {
    std::string v = plain(n["verdict"]);
    html += "<tr><td>" + escapeXml(name) + "</td><td>" + timeText(number(n["baseline_median_ns"])) +
            "</td><td>" + timeText(number(n["candidate_median_ns"])) + "</td><td>" +
            (n["change"].is_number() ? num(100 * number(n["change"]), "%+.1f%%") : std::string("-")) +
            (n.value("change_low", json()).is_number()
                 ? " [" + num(100 * number(n["change_low"]), "%+.1f%%") + ", " +
                       num(100 * number(n["change_high"]), "%+.1f%%") + "]"
                 : std::string()) +
            "</td><td style=\"color:" + verdictColour(v) + "\"><b>" + escapeXml(v) + "</b></td></tr>\n";
  };
  row("whole repetition", run);
  for (const json &d : c["dispatches"])
    if (!d.contains("group"))
      row(plain(d["name"]) + (plain(d["candidate_name"]) != plain(d["name"]) && !plain(d["candidate_name"]).empty()
                                  ? " vs " + plain(d["candidate_name"])
                                  : ""),
          d);
  if (c.contains("groups"))
    for (const json &g : c["groups"])
      row("source ops " + plain(g["loc"]), g);
  return html + "</table>\n</section>\n";
}

} // namespace

std::string renderHtml(const json &r) {
  std::string title = r.value("session", "").empty() ? plain(r.value("model", json())) : plain(r["session"]);
  const json machine = r.value("machine", json::object());
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Loupe report: " +
      escapeXml(title) +
      "</title>\n<style>\nbody{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}"
      "svg{display:block;margin:8px 0 20px}text{font-size:12px;fill:#222}text.axis{fill:#555;font-size:11px}"
      "text.small{font-size:10px}table{border-collapse:collapse;font-size:13px}"
      "td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
      ".verdict{color:#fff;padding:8px 12px;font-weight:bold;display:inline-block}\n</style>\n</head>\n<body>\n"
      "<h1>Loupe report: " + escapeXml(title) + "</h1>\n<ul>\n<li>Model: <code>" +
      escapeXml(plain(r.value("model", json()))) + "</code></li>\n<li>Device: " +
      escapeXml(plain(r.value("device", json()))) + "</li>\n";
  if (machine.contains("peak_flops"))
    html += "<li>Roofs: " + num(number(machine["peak_flops"], 0) / 1e9, "%.0f GFLOP/s") + ", " +
            num(number(machine["bandwidth_bytes"], 0) / 1e9, "%.1f GB/s") + " (" +
            escapeXml(plain(machine.value("how", json()))) + ")</li>\n";
  html += "</ul>\n";
  if (r.contains("tuning"))
    html += tuningSection(r["tuning"]);
  std::map<std::string, std::string> verdictOf; // candidate dispatch name -> verdict
  if (r.contains("comparison")) {
    const json &c = r["comparison"];
    html += comparisonSection(c);
    if (c.contains("dispatches"))
      for (const json &d : c["dispatches"])
        if (!d.contains("group") && d.value("in_candidate", false))
          verdictOf[plain(d["candidate_name"]).empty() ? plain(d["name"]) : plain(d["candidate_name"])] =
              plain(d["verdict"]);
  }
  if (r.contains("variants")) {
    std::string candidate = r.contains("comparison") ? plain(r["comparison"]["candidate"]) : "";
    for (const json &v : r["variants"])
      html += runSection(v, machine, "Variant " + plain(v["name"]),
                         plain(v["name"]) == candidate ? verdictOf : std::map<std::string, std::string>());
  } else if (r.contains("dispatches")) {
    html += runSection(r, machine, "Run", verdictOf);
  }
  return html + "</body>\n</html>\n";
}

} // namespace loupe::sessions
