#!/usr/bin/env python3
"""A/A false-positive rate and detection rate of `loupe replay` verdicts (issue 16, item 1).

Replays a two-variant session N times with identical variants (A/A) and N times with a
candidate slowed by a known fraction (`run.inject_delay_us`: a busy-wait inside every
repetition, sized from the A/A medians), and counts the whole-model verdicts. Every replay runs
its variants as interleaved trials (A B A B ..., `--trials`), exactly as CI would.

usage: aa_bench.py BUILD_DIR [--model M.onnx] [--n 100] [--slowdown 0.10] [--trials 5]
                             [--reps 20] [--threshold 5] [--out results.json]
Not a ctest: it takes minutes to hours. docs/profiler.md ("Verdicts") gives the method and
the last measured rates.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def session(path, model, reps, candidate_run):
    text = {
        "loupe_session": 2, "name": "aa", "model": model,
        "run": {"warmup": 3, "reps": reps},
        "variants": [{"name": "a"}, {"name": "b", "run": candidate_run}],
        "compare": ["a", "b"],
    }
    with open(path, "w") as f:
        json.dump(text, f)


def replay(loupe, sess, db, report, trials, threshold):
    cmd = [loupe, "replay", sess, "--db", db, "--report", report, "--trials", str(trials),
           "--threshold", str(threshold)]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("replay failed (%d): %s" % (done.returncode, done.stderr[-2000:]))
    with open(report) as f:
        return json.load(f)["comparison"]


def series(name, loupe, sess, work, n, trials, threshold):
    rows = []
    start = time.time()
    for i in range(n):
        c = replay(loupe, sess, os.path.join(work, "%s.db" % name),
                   os.path.join(work, "r.json"), trials, threshold)
        r = c["run"]
        rows.append({"verdict": c["verdict"], "change": r["change"], "low": r.get("change_low"),
                     "high": r.get("change_high"), "base_ns": r["baseline_median_ns"],
                     "under_load": c.get("under_load", False), "load": c.get("load", "")})
        if (i + 1) % 10 == 0:
            counts = {v: sum(x["verdict"] == v for x in rows) for v in ("SAME", "FASTER", "SLOWER", "AMBIGUOUS")}
            print("  %s %3d/%d %s (%.0f s)" % (name, i + 1, n, counts, time.time() - start), flush=True)
    return rows


def rate(rows, pred):
    return sum(1 for r in rows if pred(r)) / len(rows) if rows else float("nan")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--model", default=os.path.join(SRC, "examples/models/cnn.onnx"))
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--slowdown", type=float, default=0.10)
    p.add_argument("--trials", type=int, default=7)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--threshold", type=float, default=5)
    p.add_argument("--out", default=None)
    a = p.parse_args()
    loupe = os.path.join(a.build, "bin", "loupe")
    with tempfile.TemporaryDirectory() as work:
        sess = os.path.join(work, "aa.json")
        session(sess, os.path.abspath(a.model), a.reps, {})
        print("A/A: %d replays of %s, %d vs %d trials of %d reps" % (a.n, a.model, a.trials, a.trials, a.reps), flush=True)
        aa = series("aa", loupe, sess, work, a.n, a.trials, a.threshold)
        base_ns = statistics.median(r["base_ns"] for r in aa)
        delay_us = a.slowdown * base_ns / 1000
        session(sess, os.path.abspath(a.model), a.reps, {"inject_delay_us": delay_us})
        print("A/B: candidate +%.0f%% (%.1f us per repetition of %.1f us)" % (100 * a.slowdown, delay_us, base_ns / 1000), flush=True)
        ab = series("ab", loupe, sess, work, a.n, a.trials, a.threshold)
    result = {
        "model": a.model, "n": a.n, "trials": a.trials, "reps": a.reps, "threshold_pct": a.threshold,
        "slowdown": a.slowdown, "baseline_median_ns": base_ns,
        "aa_false_positive_rate": rate(aa, lambda r: r["verdict"] in ("FASTER", "SLOWER")),
        "aa_ambiguous_rate": rate(aa, lambda r: r["verdict"] == "AMBIGUOUS"),
        "aa_under_load": rate(aa, lambda r: r["under_load"]),
        "ab_detection_rate": rate(ab, lambda r: r["verdict"] == "SLOWER"),
        "ab_under_load": rate(ab, lambda r: r["under_load"]),
        "ab_change_median": statistics.median(r["change"] for r in ab),
        "aa_change_spread": [min(r["change"] for r in aa), max(r["change"] for r in aa)],
        "aa": aa, "ab": ab,
    }
    print("| measure | value |\n|---|---|")
    print("| A/A false positives (FASTER or SLOWER) | %.1f%% of %d |" % (100 * result["aa_false_positive_rate"], a.n))
    print("| A/A AMBIGUOUS | %.1f%% |" % (100 * result["aa_ambiguous_rate"]))
    print("| A/A change, min .. max | %+.1f%% .. %+.1f%% |" % tuple(100 * x for x in result["aa_change_spread"]))
    print("| +%.0f%% detected as SLOWER | %.1f%% of %d |" % (100 * a.slowdown, 100 * result["ab_detection_rate"], a.n))
    print("| +%.0f%% measured change, median | %+.1f%% |" % (100 * a.slowdown, 100 * result["ab_change_median"]))
    print("| replays measured under load (A/A, A/B) | %.0f%%, %.0f%% |" % (100 * result["aa_under_load"], 100 * result["ab_under_load"]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
