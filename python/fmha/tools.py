"""Finding the compiler's tools: ``fmha-opt``, ``fmha-translate``, ``ptxas``.

``fmha-opt`` and ``fmha-translate`` are looked for, each on its own, in
this order:

1. next to the package, when it was installed with them: ``fmha/bin/``;
2. the ``FMHA_OPT`` / ``FMHA_TRANSLATE`` environment variables. A variable
   that is set wins over what follows even when its file does not exist:
   the tool then counts as missing (so ``FMHA_OPT=/nonexistent`` turns the
   compiler off and fmha.compile serves from the cache alone);
3. ``$FMHA_BUILD_DIR/bin``, a build folder of the compiler, whether the
   package runs from the source tree or is installed;
4. ``PATH``;
5. the source tree's ``build/bin``, when the package runs from it.

``ptxas``: ``FMHA_PTXAS`` (same rule as above), ``$CUDA_HOME/bin``,
``/usr/local/cuda/bin``, ``PATH``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGE_BIN = PACKAGE_DIR / "bin"
# The repository root when the package runs from the source tree
# (<repo>/python/fmha).
SOURCE_ROOT = PACKAGE_DIR.parent.parent

ENV_VARS = {"fmha-opt": "FMHA_OPT", "fmha-translate": "FMHA_TRANSLATE",
            "ptxas": "FMHA_PTXAS"}


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def build_dir_bin() -> Optional[Path]:
    """``$FMHA_BUILD_DIR/bin``, or None when the variable is not set."""
    build = os.environ.get("FMHA_BUILD_DIR")
    return Path(build).expanduser() / "bin" if build else None


def source_tree_bin() -> Optional[Path]:
    """``<repo>/build/bin`` of the source tree the package runs from, or
    None when it does not run from one."""
    if not ((SOURCE_ROOT / "CMakeLists.txt").is_file()
            and (SOURCE_ROOT / "python" / "fmha").is_dir()):
        return None
    return SOURCE_ROOT / "build" / "bin"


@dataclass
class Tool:
    """Where a tool was found (``path``, ``origin``), or why not
    (``path`` None, ``problem``)."""

    name: str
    path: Optional[str] = None
    origin: str = ""
    problem: str = ""

    def __bool__(self) -> bool:
        return self.path is not None


def find_tool(name: str) -> Tool:
    """Finds ``fmha-opt``, ``fmha-translate`` or ``ptxas`` (module doc)."""
    env = ENV_VARS[name]
    candidates: list[tuple[str, Path]] = []
    if name != "ptxas":
        candidates.append(("package", PACKAGE_BIN / name))
    value = os.environ.get(env)
    if value:
        path = Path(value).expanduser()
        for origin, candidate in candidates:
            if _executable(candidate):
                return Tool(name, str(candidate), origin)
        if _executable(path):
            return Tool(name, str(path), env)
        return Tool(name, problem=f"{env}={value} is not an executable file")
    if name == "ptxas":
        cuda_home = os.environ.get("CUDA_HOME")
        if cuda_home:
            candidates.append(("CUDA_HOME", Path(cuda_home) / "bin" / name))
        candidates.append(("/usr/local/cuda",
                           Path("/usr/local/cuda/bin") / name))
    else:
        build = build_dir_bin()
        if build is not None:
            candidates.append(("FMHA_BUILD_DIR", build / name))
    which = shutil.which(name)
    candidates.append(("PATH", Path(which) if which else None))
    if name != "ptxas":
        tree = source_tree_bin()
        if tree is not None:
            candidates.append(("source tree", tree / name))
    for origin, candidate in candidates:
        if candidate is not None and _executable(candidate):
            return Tool(name, str(candidate), origin)
    where = ", ".join("PATH" if c is None else str(c)
                      for _, c in candidates)
    if name == "ptxas":
        hint = f"set {env} or CUDA_HOME, or add it to PATH"
    else:
        hint = (f"set {env}, or FMHA_BUILD_DIR to the compiler's build "
                f"folder (with bin/{name}), or add it to PATH")
    return Tool(name, problem=f"{name} not found (looked in: {where}; "
                f"{hint})")


@dataclass
class Tools:
    """The compiler's tools as found now."""

    opt: Tool
    translate: Tool
    ptxas: Tool
    notes: list[str] = field(default_factory=list)

    @property
    def compiler(self) -> bool:
        """Whether fmha-opt and fmha-translate were both found."""
        return bool(self.opt) and bool(self.translate)

    def missing(self) -> str:
        """Why the compiler is missing (empty when it is not)."""
        return "; ".join(t.problem for t in (self.opt, self.translate)
                         if not t)


def find_tools() -> Tools:
    return Tools(find_tool("fmha-opt"), find_tool("fmha-translate"),
                 find_tool("ptxas"))


_VERSIONS: dict[tuple, str] = {}


def tool_version(path: str) -> str:
    """``path --version``'s output, stripped (memoized per file and
    modification time). Raises OSError or subprocess.SubprocessError when
    the tool cannot run."""
    st = os.stat(path)
    memo = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    version = _VERSIONS.get(memo)
    if version is None:
        result = subprocess.run([path, "--version"], capture_output=True,
                                text=True, timeout=60, check=False)
        if result.returncode != 0:
            raise subprocess.SubprocessError(
                f"{path} --version exited with {result.returncode}: "
                f"{result.stderr.strip()}")
        version = _VERSIONS[memo] = result.stdout.strip()
    return version


_DIGESTS: dict[tuple, str] = {}


def file_digest(path: str) -> str:
    """The sha256 of a file (hex), memoized per file and modification
    time."""
    st = os.stat(path)
    memo = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    digest = _DIGESTS.get(memo)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        digest = _DIGESTS[memo] = h.hexdigest()
    return digest


def compiler_identity(opt: str, translate: str) -> str:
    """What the cache key takes as the compiler's version: ``fmha-opt
    --version`` and the hashes of the fmha-opt and fmha-translate
    binaries (the version text stays the same from one commit to the
    next; the binaries do not). Raises like tool_version."""
    return (f"{tool_version(opt)}\n"
            f"fmha-opt sha256:{file_digest(opt)}\n"
            f"fmha-translate sha256:{file_digest(translate)}")
