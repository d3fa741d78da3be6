# lit configuration for Loupe's pass and phase tests.
import os
import lit.formats

config.name = "Loupe"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.loupe_tools_dir), "tests", "lit-out")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

# loupe-opt and loupe first, then FileCheck/not from LLVM 19.
config.environment["PATH"] = os.pathsep.join(
    [config.loupe_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%loupe_src", config.loupe_src_root))
