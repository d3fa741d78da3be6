//===- main.cpp - loupe: the workbench's command line ------------------------===//
#include "gui/GuiCommand.h"
#include "loupe/Commands.h"
#include "loupe/ral/CpuDriver.h"

#include <cstdio>
#include <cstring>
#include <string>

static const char *kUsage =
    "usage: loupe [gui] [--session S.json] [--db DB] [MODEL] [--screenshot PNG --frames N]\n"
    "       loupe <command> [options]\n"
    "  gui (the default)  the desktop workbench; `loupe gui --help` lists its flags\n"
    "  compile MODEL [--target cpu|cuda] [--gpu-arch sm_80|sm_90] [--phase-to P] [--dump-dir D]\n"
    "                [--emit mlir|llvm|ptx|artifact] [-o OUT]\n"
    "                [--backends B1,B2|auto,...] [--override LOC=B,...] [--fusion on|off]\n"
    "                [--cache on|off] [--db DB]  (--db: the tuning table `auto` reads)\n"
    "                [--input-shape NAME=D0,D1,...]  (repeatable: binds symbolic input dims)\n"
    "                [--inputs DIR]  (the run's tensors: bind free dims and shape-tensor inputs)\n"
    "  run MODEL|ARTIFACT [--inputs DIR] [--check DIR] [--seed S] [--rtol X] [--atol X]\n"
    "                     [--db DB] [--json] [--device cpu|cuda] [--gpu-arch sm_80|sm_90]\n"
    "                     [backend flags as compile]\n"
    "                     [--warmup N | --warmup-ms MS] [--reps N | --min-reps N --max-reps N\n"
    "                      --max-ms MS --noise X] [--mode hot|cold|both]   (docs/cli.md)\n"
    "  replay SESSION [--db DB] [--report OUT] [--trials N] [--shard I/N]\n"
    "                 [--threshold PCT] [--fail-on slower,ambiguous]\n"
    "                 [--baseline RUN [--baseline-db DB]]\n"
    "  compare RUN_A RUN_B [--db DB] [--baseline-db DB] [--threshold PCT]\n"
    "                 [--fail-on slower,ambiguous] [--report OUT] [--json]\n"
    "  report --run ID [--compare BASELINE_ID] [--db DB] [--threshold PCT] -o OUT\n"
    "                 OUT: .md, .json, .html (inline SVG charts), .csv or .xml (JUnit)\n"
    "  tune MODEL|SESSION [--db DB] [--trials N] [--reps N] [--try B1,B2] [--threshold PCT]\n"
    "                 [-o TUNED.json] [--report OUT] [--json] [backend flags, MODEL only]\n"
    "                 every backend of every op measured; winners kept as overrides and in\n"
    "                 the DB's tuning table, which `--backends auto` reads\n"
    "  ral list [--verbose]   every registered RAL API name (what artifacts call)\n"
    "  backends list          backends, their ops and plevels, and what runs on this machine\n"
    "  db list [--db DB] [--model TEXT] [--json]   the profile DB's runs, newest first\n"
    "  db show RUN [--db DB] [--json]   one run: where, how measured, dispatches by median\n"
    "  db import-nsys FILE.sqlite [--db DB]   an Nsight Systems SQLite export as a new run\n"
    "  db merge OUT.db IN.db... | db export RUN... -o OUT.db|.csv | db gc   (`loupe db --help`)\n"
    "  cache stats [--json] | cache clear     the compile cache (shared by the CLI and GUI)\n"
    "exit codes: 0 ok, 1 numerical mismatch or a --fail-on verdict, 2 bad usage or input,\n"
    "            3 internal error\n";

/// `loupe MODEL.onnx` / `loupe S.json`: an existing model or session opens the workbench.
static bool isOpenable(const char *arg) {
  std::string s = arg;
  auto ends = [&](const char *ext) {
    size_t n = std::strlen(ext);
    return s.size() > n && s.compare(s.size() - n, n, ext) == 0;
  };
  if (!(ends(".mlir") || ends(".onnx") || ends(".json") || ends(".so")))
    return false;
  std::FILE *f = std::fopen(arg, "rb");
  if (f)
    std::fclose(f);
  return f != nullptr;
}

int main(int argc, char **argv) {
  loupe::ral::execWithoutOpenMpWaitPolicy(argv);
  if (argc < 2)
    return loupe::app::guiCommand(argc, argv, 1);
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const char *command = argv[1];
  if (!std::strcmp(command, "gui"))
    return loupe::app::guiCommand(argc, argv, 2);
  if (command[0] == '-' || isOpenable(command))
    return loupe::app::guiCommand(argc, argv, 1);
  if (!std::strcmp(command, "compile"))
    return loupe::app::compileCommand(argc, argv, 2);
  if (!std::strcmp(command, "ral"))
    return loupe::app::ralCommand(argc, argv, 2);
  if (!std::strcmp(command, "backends"))
    return loupe::app::backendsCommand(argc, argv, 2);
  if (!std::strcmp(command, "db"))
    return loupe::app::dbCommand(argc, argv, 2);
  if (!std::strcmp(command, "cache"))
    return loupe::app::cacheCommand(argc, argv, 2);
  if (!std::strcmp(command, "run"))
    return loupe::app::runCommand(argc, argv, 2);
  if (!std::strcmp(command, "replay"))
    return loupe::app::replayCommand(argc, argv, 2);
  if (!std::strcmp(command, "compare"))
    return loupe::app::compareCommand(argc, argv, 2);
  if (!std::strcmp(command, "report"))
    return loupe::app::reportCommand(argc, argv, 2);
  if (!std::strcmp(command, "tune"))
    return loupe::app::tuneCommand(argc, argv, 2);
  std::fprintf(stderr, "loupe: unknown command '%s'\n%s", command, kUsage);
  return 2;
}
