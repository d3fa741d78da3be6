//===- main.cpp - loupe: the workbench's command line ------------------------===//
#include "loupe/Commands.h"

#include <cstdio>
#include <cstring>

static const char *kUsage =
    "usage: loupe <command> [options]\n"
    "  compile MODEL [--target cpu] [--phase-to P] [--dump-dir D] [--emit mlir|llvm|artifact] [-o OUT]\n"
    "  run MODEL|ARTIFACT [--inputs DIR] [--check DIR] [--reps N] [--warmup N] [--seed S]\n"
    "                     [--rtol X] [--atol X] [--db DB] [--json]\n"
    "  replay SESSION [--db DB] [--report OUT.md|OUT.json]\n"
    "  ral list [--verbose]   every registered RAL API name (what artifacts call)\n"
    "exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error\n";

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *command = argv[1];
  if (!std::strcmp(command, "compile"))
    return loupe::app::compileCommand(argc, argv, 2);
  if (!std::strcmp(command, "ral"))
    return loupe::app::ralCommand(argc, argv, 2);
  if (!std::strcmp(command, "run"))
    return loupe::app::runCommand(argc, argv, 2);
  if (!std::strcmp(command, "replay"))
    return loupe::app::replayCommand(argc, argv, 2);
  std::fprintf(stderr, "loupe: unknown command '%s'\n%s", command, kUsage);
  return 2;
}
