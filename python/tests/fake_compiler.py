"""A stand-in for fmha-opt, fmha-translate and ptxas, fast enough for cache
tests that compile hundreds of times (the cache does not look inside the
artifacts beyond the manifest and the hashes).

    python3 fake_compiler.py opt|translate|ptxas ARGS...

``write_tools(folder)`` writes the three as executables into ``folder`` and
returns the environment that makes fmha.compile use them. Each pipeline
run appends a line to ``$FAKE_COMPILER_LOG`` (when set), so a test can
count compiles; ``$FAKE_COMPILER_DELAY`` seconds of sleep in the pipeline
widen race windows.
"""

import json
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _arg(args: list, flag: str) -> str:
    return args[args.index(flag) + 1]


def _manifest(mlir: str) -> dict:
    sys.path.insert(0, str(HERE.parent))
    from tests.fakes import gemm_json
    name = re.search(r"@(\w+)", mlir).group(1)
    target = re.search(r"target (sm_\w+)", mlir).group(1)
    data = gemm_json()
    data.update(name=name, entry=name, target=target,
                cubin=f"{name}.{target}.cubin")
    return data


def opt(args: list) -> None:
    if args == ["--version"]:
        print("fmha fake compiler 1.0")
        return
    if "--dump-pass-pipeline" in args:
        print("Pass Manager with 1 passes:\nbuiltin.module(fake-pass)",
              file=sys.stderr)
        return
    source = Path(args[0]).read_text()
    if any(a.startswith("--gpu-module-to-binary=format=isa") for a in args):
        sys.stdout.write(f"// fake PTX\n{source}")
        return
    if any(a.startswith("--gpu-module-to-binary=format=bin") for a in args):
        sys.stdout.buffer.write(b"\x7fELF fake cubin\n" + source.encode())
        return
    log = os.environ.get("FAKE_COMPILER_LOG")
    if log:
        name = re.search(r"@(\w+)", source).group(1)
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {name}\n")
    time.sleep(float(os.environ.get("FAKE_COMPILER_DELAY", "0")))
    Path(_arg(args, "-o")).write_text(source)


def translate(args: list) -> None:
    if args == ["--version"]:
        print("fmha-translate fake 1.0")
        return
    out = Path(_arg(args, "-o"))
    if "--fmha-manifest" in args:
        source = Path(args[args.index("--fmha-manifest") + 1]).read_text()
        out.write_text(json.dumps(_manifest(source)))
    else:  # --fmha-extract-object: stdin to the file
        out.write_bytes(sys.stdin.buffer.read())


def ptxas(args: list) -> None:
    if args == ["--version"]:
        print("ptxas fake\nCuda compilation tools, fake")
        return
    ptx = Path([a for a in args if a.endswith(".ptx")][0]).read_bytes()
    Path(_arg(args, "-o")).write_bytes(b"\x7fELF fake cubin\n" + ptx)
    print("ptxas info    : Used 100 registers, used 1 barriers")


def write_tools(folder: Path) -> dict:
    """Writes fmha-opt, fmha-translate and ptxas wrappers into ``folder``;
    returns the environment variables that select them."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {}
    for tool, var in (("opt", "FMHA_OPT"), ("translate", "FMHA_TRANSLATE"),
                      ("ptxas", "FMHA_PTXAS")):
        path = folder / f"fake-{tool}"
        path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -S "
                        f"'{Path(__file__).resolve()}' {tool} \"$@\"\n")
        path.chmod(0o755)
        env[var] = str(path)
    return env


if __name__ == "__main__":
    {"opt": opt, "translate": translate, "ptxas": ptxas}[sys.argv[1]](
        sys.argv[2:])
