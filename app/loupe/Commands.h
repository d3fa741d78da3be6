//===- Commands.h - loupe's subcommands -------------------------*- C++ -*-===//
#ifndef LOUPE_APP_COMMANDS_H
#define LOUPE_APP_COMMANDS_H

namespace loupe::app {

/// Each returns the process exit code (0 ok, 1 mismatch/regression, 2 bad input, 3 internal).
/// `argv[first]` is the first argument after the subcommand name.
int compileCommand(int argc, char **argv, int first);
int runCommand(int argc, char **argv, int first);
int replayCommand(int argc, char **argv, int first);
int compareCommand(int argc, char **argv, int first); ///< loupe compare RUN_A RUN_B
int reportCommand(int argc, char **argv, int first);  ///< loupe report --run ID -o OUT
int tuneCommand(int argc, char **argv, int first);    ///< loupe tune MODEL|SESSION
int ralCommand(int argc, char **argv, int first); ///< loupe ral list (RalCommand.cpp)
int dbCommand(int argc, char **argv, int first);  ///< loupe db import-nsys (DbCommand.cpp)
int backendsCommand(int argc, char **argv, int first); ///< loupe backends list
int cacheCommand(int argc, char **argv, int first);    ///< loupe cache stats|clear

} // namespace loupe::app

#endif // LOUPE_APP_COMMANDS_H
