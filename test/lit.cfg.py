# -*- Python -*-
# lit configuration for fmha's tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FMHA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fmha_obj_root, "test")
config.excludes = ["Inputs", "GPU", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["fmha-opt", "fmha-translate"]
llvm_config.add_tool_substitutions(tools, [config.fmha_tools_dir])

# `ptxas`: the CUDA assembler is present, so target tests can check that it
# accepts what the pipelines emit.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
