"""``fmha.compile(spec)``: a kernel spec to a launchable, cached kernel.

The steps, with the tools of fmha.tools:

1. ``fmha-opt kernel.mlir --<pipeline>=binary=none -o kernel.llvm.mlir``
2. ``fmha-translate --fmha-manifest kernel.llvm.mlir -o <entry>.json``
3. ``fmha-opt kernel.llvm.mlir --gpu-module-to-binary=format=isa``
   ``| fmha-translate --fmha-extract-object -o <entry>.<target>.ptx``
4. ``ptxas -arch=<target> -v <ptx> -o <entry>.<target>.cubin``; without a
   ptxas, ``--gpu-module-to-binary=format=bin`` instead (MLIR's own route
   to a cubin, which needs the CUDA toolkit or libnvptxcompiler).

Artifacts go to the cache (fmha.cache). A cache hit runs no tool when no
compiler is found (the newest entry of the spec is used); with a compiler
at hand it runs ``fmha-opt --version`` once per process for the key.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional, Union

from . import cache as _cache
from . import tools as _tools
from .specs import Spec

Progress = Callable[[str], None]


class CompileError(RuntimeError):
    """A kernel could not be compiled (or found in the cache). The message
    is the compiler's diagnostic, with the step that failed.

    Attributes: ``spec``, ``step`` (``"fmha-opt"``, ``"ptxas"``, ...,
    ``"tools"`` when the compiler is missing), ``stderr`` (the tool's
    error output, empty when no tool ran), ``command``.
    """

    def __init__(self, message: str, spec: Optional[Spec] = None,
                 step: str = "", stderr: str = "",
                 command: Optional[list] = None) -> None:
        super().__init__(message)
        self.spec = spec
        self.step = step
        self.stderr = stderr
        self.command = command or []


class CompiledKernel:
    """A compiled kernel in the cache: its artifacts and the runtime's
    Kernel (loaded on first use; no GPU needed until a launch).

    Attributes: ``spec``, ``key``, ``directory`` (the cache entry),
    ``manifest_path``, ``cubin_path``, ``ptx_path``, ``info`` (the entry's
    entry.json), ``cache_hit`` (whether this call found it compiled).
    """

    def __init__(self, spec: Spec, entry: _cache.Entry,
                 cache_hit: bool) -> None:
        self.spec = spec
        self.entry = entry
        self.cache_hit = cache_hit
        self._kernel: Any = None
        self._lock = threading.Lock()

    @property
    def key(self) -> str:
        return self.entry.key

    @property
    def info(self) -> dict:
        return self.entry.info

    @property
    def directory(self) -> Path:
        return self.entry.path

    @property
    def manifest_path(self) -> Path:
        return self.entry.manifest_path

    @property
    def cubin_path(self) -> Path:
        return self.entry.cubin_path

    @property
    def ptx_path(self) -> Optional[Path]:
        return self.entry.ptx_path

    @property
    def kernel(self) -> Any:
        """The ``fmha.runtime.Kernel`` of the manifest and cubin, as the
        cache lookup validated them (not read again)."""
        if self._kernel is None:
            with self._lock:
                if self._kernel is None:
                    from .runtime import Kernel
                    entry = self.entry
                    if entry.manifest is None or entry.cubin is None:
                        self._kernel = Kernel.load(self.manifest_path)
                    else:
                        self._kernel = Kernel(entry.manifest, entry.cubin)
        return self._kernel

    @property
    def manifest(self) -> Any:
        """The parsed manifest (fmha.runtime.Manifest)."""
        return self.kernel.manifest

    def __call__(self, /, **tensors: Any) -> None:
        """Launches on the tensors, by name (the manifest's: ``a``, ``b``,
        ``c`` for a GEMM), on PyTorch's current stream."""
        self.kernel.launch(tensors)

    def launch(self, tensors: Any, stream: Any = None) -> None:
        self.kernel.launch(tensors, stream)

    def __repr__(self) -> str:
        return (f"<fmha CompiledKernel {self.spec.name} ({self.spec.target})"
                f" at {self.directory}>")


# -- progress -------------------------------------------------------------


def _env_verbose() -> bool:
    return os.environ.get("FMHA_VERBOSE", "").lower() not in (
        "", "0", "false", "no")


def stderr_progress(message: str) -> None:
    try:
        print(f"fmha: {message}", file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):  # stderr closed: keep compiling
        pass


# -- compiling ------------------------------------------------------------

_MEMO: dict[tuple, CompiledKernel] = {}
_MEMO_LOCK = threading.Lock()


def clean_diagnostics(stderr: str, tmp: Optional[Path] = None) -> str:
    """The compiler's error output for a user: paths into the temporary
    folder shortened to the file name, MLIR's "see current operation"
    notes (the op in generic form) dropped."""
    if tmp is not None:
        stderr = stderr.replace(f"{tmp}{os.sep}", "")
    lines = [line for line in stderr.splitlines()
             if "note: see current operation" not in line]
    return "\n".join(lines).strip()


def _run(step: str, command: list, spec: Spec, stdin: Optional[bytes] = None,
         timeout: float = 600.0,
         tmp: Optional[Path] = None) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(command, input=stdin, capture_output=True,
                                timeout=timeout, check=False)
    except OSError as e:
        raise CompileError(f"{spec.name}: {step}: cannot run {command[0]}: "
                           f"{e.strerror or e}", spec, step,
                           command=command) from None
    except subprocess.TimeoutExpired:
        raise CompileError(f"{spec.name}: {step} timed out after "
                           f"{timeout:.0f} s", spec, step,
                           command=command) from None
    if result.returncode != 0:
        stderr = result.stderr.decode(errors="replace").strip()
        message = clean_diagnostics(stderr, tmp)
        raise CompileError(
            f"{spec.name}: {step} failed (exit {result.returncode}):\n"
            f"{message or '(no message)'}", spec, step, stderr, command)
    return result


def pass_list(opt: str, pipeline: str) -> list[str]:
    """The passes of ``--<pipeline>`` as fmha-opt runs them (its
    ``--dump-pass-pipeline``), one per entry."""
    result = subprocess.run(
        [opt, f"--{pipeline}=binary=none", "--dump-pass-pipeline", "-o",
         os.devnull], input=b"", capture_output=True, timeout=60, check=False)
    text = (result.stderr + result.stdout).decode(errors="replace")
    start = text.find("builtin.module(")
    if start < 0:
        return []
    body = text[start + len("builtin.module("):]
    passes, depth, current = [], 0, ""
    for ch in body:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            passes.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        passes.append(current.strip())
    return passes


def ptxas_info(text: str) -> str:
    """A summary of ``ptxas -v``'s report: ``168 registers, 3 barriers,
    0 bytes spill stores, 0 bytes spill loads, 0 bytes stack frame``."""
    import re
    parts = []
    for pattern, label in ((r"Used (\d+) registers", "registers"),
                           (r"used (\d+) barriers", "barriers"),
                           (r"(\d+) bytes spill stores", "bytes spill stores"),
                           (r"(\d+) bytes spill loads", "bytes spill loads"),
                           (r"(\d+) bytes stack frame", "bytes stack frame")):
        m = re.search(pattern, text)
        if m:
            parts.append(f"{m.group(1)} {label}")
    return ", ".join(parts)


def _build(spec: Spec, tools: _tools.Tools, version: str, key: str,
           root: Path, progress: Progress, verbose: bool,
           replace: bool = False) -> _cache.Entry:
    pipeline = _cache.PIPELINES.get(spec.target)
    if pipeline is None:
        raise CompileError(
            f"{spec.name}: no compilation pipeline for target {spec.target} "
            f"yet (known: {', '.join(_cache.PIPELINES)})", spec, "pipeline")
    opt, translate = tools.opt.path, tools.translate.path
    assert opt and translate
    tmp = _cache.new_tmp_dir(root, key)
    seconds: dict[str, float] = {}
    total_steps = 4

    def step(n: int, what: str) -> float:
        progress(f"[{n}/{total_steps}] {spec.name} ({spec.target}): {what}")
        return time.monotonic()

    try:
        mlir = tmp / "kernel.mlir"
        mlir.write_text(spec.to_mlir(), encoding="utf-8")
        llvm = tmp / "kernel.llvm.mlir"

        t = step(1, f"fmha-opt --{pipeline}")
        if verbose:
            for i, name in enumerate(pass_list(opt, pipeline), 1):
                progress(f"      pass {i:2d}: {name}")
        _run("fmha-opt", [opt, str(mlir), f"--{pipeline}=binary=none",
                          "-o", str(llvm)], spec, tmp=tmp)
        seconds["pipeline"] = time.monotonic() - t

        t = step(2, "fmha-translate --fmha-manifest")
        manifest_tmp = tmp / "manifest.json"
        _run("fmha-translate --fmha-manifest",
             [translate, "--fmha-manifest", str(llvm), "-o",
              str(manifest_tmp)], spec)
        try:
            manifest = json.loads(manifest_tmp.read_text(encoding="utf-8"))
            if not isinstance(manifest, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            raise CompileError(f"{spec.name}: fmha-translate --fmha-manifest "
                               f"wrote no valid manifest: {e}", spec,
                               "fmha-translate") from None
        entry_name = str(manifest.get("entry") or spec.name)
        cubin_name = str(manifest.get("cubin")
                         or f"{entry_name}.{spec.target}.cubin")
        if os.path.dirname(cubin_name) or cubin_name in ("", ".", ".."):
            raise CompileError(f"{spec.name}: the manifest names the cubin "
                               f"{cubin_name!r}, not a plain file name",
                               spec, "fmha-translate")
        manifest_name = f"{entry_name}.json"
        os.replace(manifest_tmp, tmp / manifest_name)
        seconds["manifest"] = time.monotonic() - t

        t = step(3, "gpu-module-to-binary (PTX)")
        isa = _run("fmha-opt --gpu-module-to-binary",
                   [opt, str(llvm), "--gpu-module-to-binary=format=isa"],
                   spec)
        ptx_name = f"{entry_name}.{spec.target}.ptx"
        _run("fmha-translate --fmha-extract-object",
             [translate, "--fmha-extract-object", "-o", str(tmp / ptx_name)],
             spec, stdin=isa.stdout)
        seconds["ptx"] = time.monotonic() - t

        ptxas_version = ""
        info = ""
        if tools.ptxas:
            t = step(4, f"ptxas -arch={spec.target}")
            result = _run("ptxas", [tools.ptxas.path, f"-arch={spec.target}",
                                    "-v", str(tmp / ptx_name), "-o",
                                    str(tmp / cubin_name)], spec)
            info = ptxas_info(result.stderr.decode(errors="replace")
                               + result.stdout.decode(errors="replace"))
            try:
                ptxas_version = _tools.tool_version(tools.ptxas.path) \
                    .splitlines()[-1]
            except (OSError, subprocess.SubprocessError, IndexError):
                pass
        else:
            t = step(4, "gpu-module-to-binary (cubin; no ptxas found: "
                     f"{tools.ptxas.problem})")
            binary = _run("fmha-opt --gpu-module-to-binary=format=bin",
                          [opt, str(llvm),
                           "--gpu-module-to-binary=format=bin"], spec)
            _run("fmha-translate --fmha-extract-object",
                 [translate, "--fmha-extract-object", "-o",
                  str(tmp / cubin_name)], spec, stdin=binary.stdout)
        seconds["cubin"] = time.monotonic() - t
        llvm.unlink()

        from . import __version__
        info_json = {
            "format": _cache.FORMAT,
            "key": key,
            "spec_key": _cache.spec_key(spec),
            "spec": spec.to_dict(),
            "name": spec.name,
            "target": spec.target,
            "pipeline": pipeline,
            "compiler": version,
            "ptxas": ptxas_version,
            "package": __version__,
            "created": time.time(),
            "manifest": manifest_name,
            "cubin": cubin_name,
            "ptx": ptx_name,
            "sha256": _cache.hashes(tmp, [manifest_name, cubin_name,
                                          ptx_name]),
            "ptxas_info": info,
            "seconds": {k: round(v, 3) for k, v in seconds.items()},
        }
        return _cache.publish(tmp, root, spec, key, info_json,
                              replace=replace)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def compile(spec: Spec, *, cache_dir: Union[str, os.PathLike, None] = None,
            force: bool = False, progress: Optional[Progress] = None,
            verbose: Optional[bool] = None) -> CompiledKernel:
    """Compiles ``spec`` (a GemmSpec or AttentionSpec), or finds it in the
    cache, and returns the CompiledKernel.

    ``cache_dir``: the cache (default: fmha.cache.cache_dir()).
    ``force``: compile even when cached. ``progress``: called with a line
    per step (default: one line on stderr when a compile starts, every
    step with ``FMHA_VERBOSE=1``). ``verbose``: also list the pipeline's
    passes (default: ``FMHA_VERBOSE``).

    Cache entries are validated on lookup (fmha.cache): a damaged one is
    compiled again, or without a compiler reported. Processes compiling
    the same kernel at once take turns (a lock per entry): one compiles,
    the others find its entry.

    Raises CompileError with the compiler's message when the spec does not
    compile (``step``: the tool), when no compiler is found and the cache
    holds no valid entry for the spec (``step`` ``"tools"``, or
    ``"cache"`` for a damaged entry), or when the cache cannot be used (a
    path that is not a folder, a lock not obtained in time: ``"cache"``).
    """
    if not hasattr(spec, "to_mlir") or not hasattr(spec, "kind"):
        raise TypeError(f"fmha.compile takes a GemmSpec or AttentionSpec, "
                        f"got {type(spec).__name__}")
    root = _cache.cache_dir(cache_dir).resolve()
    memo = (spec, str(root))
    if not force:
        hit = _MEMO.get(memo)
        if hit is not None:
            return hit
    if verbose is None:
        verbose = _env_verbose()
    try:
        result = _compile(spec, root, force, progress, bool(verbose))
    except _cache.CacheError as e:
        raise CompileError(f"{spec.name} ({spec.target}): {e}", spec,
                           "cache") from None
    with _MEMO_LOCK:
        _MEMO[memo] = result
    return result


def _compile(spec: Spec, root: Path, force: bool,
             progress: Optional[Progress], verbose: bool) -> CompiledKernel:
    """fmha.compile after the memo: validated lookups, and a compile under
    the entry's lock when they miss."""
    _cache.check_root(root)
    tools = _tools.find_tools()
    if not tools.compiler:
        try:
            entry = None if force else _cache.lookup_spec(root, spec)
        except _cache.EntryError as e:
            raise CompileError(
                f"{spec.name} ({spec.target}): {e}; no compiler was found "
                f"to rebuild it ({tools.missing()}). Compile it again where "
                f"fmha-opt is (`fmha compile ... --force`) and copy the "
                f"cache, or remove the entry (`fmha cache clear`).",
                spec, "cache") from None
        if entry is None:
            raise CompileError(
                f"{spec.name} ({spec.target}) is not in the cache {root} and "
                f"no compiler was found: {tools.missing()}. Compile it where "
                f"fmha-opt is (`fmha compile ...` or fmha.compile with "
                f"FMHA_CACHE_DIR pointing at a folder you then copy here).",
                spec, "tools")
        return CompiledKernel(spec, entry, cache_hit=True)
    try:
        version = _tools.compiler_identity(
            tools.opt.path, tools.translate.path)  # type: ignore
    except (OSError, subprocess.SubprocessError) as e:
        raise CompileError(f"cannot run {tools.opt.path} --version: {e}",
                           spec, "tools") from None
    key = _cache.cache_key(spec, version)
    if progress is None:
        progress = stderr_progress if verbose else _Once(
            f"compiling {spec.name} for {spec.target} (cached in {root})")

    def find() -> Optional[_cache.Entry]:
        try:
            return _cache.lookup(root, spec, key)
        except _cache.EntryError as e:
            report = stderr_progress if isinstance(progress, _Once) \
                else progress
            report(f"{e}; compiling it again")  # type: ignore[misc]
            return None

    entry = None if force else find()
    if entry is not None:
        return CompiledKernel(spec, entry, cache_hit=True)
    with _cache.entry_lock(root, _cache.entry_dirname(spec, key)):
        # Another process may have compiled it while this one waited.
        entry = None if force else find()
        if entry is not None:
            return CompiledKernel(spec, entry, cache_hit=True)
        try:
            entry = _build(spec, tools, version, key, root, progress,
                           verbose, replace=True)
        except _cache.EntryError as e:
            raise CompileError(f"{spec.name} ({spec.target}): the compiler's "
                               f"artifacts do not check out: {e}", spec,
                               "cache") from None
    return CompiledKernel(spec, entry, cache_hit=False)


class _Once:
    """A progress callback that prints one line on stderr, on the first
    message (a compile starts), and nothing after."""

    def __init__(self, line: str) -> None:
        self.line: Optional[str] = line

    def __call__(self, message: str) -> None:
        if self.line is not None:
            stderr_progress(self.line)
            self.line = None


def _quiet(message: str) -> None:
    pass


def clear_memo() -> None:
    """Forgets the kernels fmha.compile returned in this process (the disk
    cache stays)."""
    with _MEMO_LOCK:
        _MEMO.clear()


def copy_artifacts(kernel: CompiledKernel,
                   out_dir: Union[str, os.PathLike]) -> list[Path]:
    """Copies a kernel's artifacts (manifest, cubin, PTX, kernel.mlir,
    entry.json) to ``out_dir``; returns the copies."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    copied = []
    files = [*kernel.entry.files.iterdir(), kernel.directory /
             _cache.ENTRY_FILE]
    for path in sorted(files, key=lambda p: p.name):
        if path.is_file():
            target = out / path.name
            tmp = out / f".tmp-{os.getpid()}-{path.name}"
            shutil.copyfile(path, tmp)
            os.replace(tmp, target)
            copied.append(target)
    return copied
