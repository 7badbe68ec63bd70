"""The on-disk kernel cache.

Layout (``cache_dir()``: ``$FMHA_CACHE_DIR``, else
``$XDG_CACHE_HOME/fmha``, else ``~/.cache/fmha``)::

    <cache dir>/
      gemm-<spec key, 12 hex>-<key, 12 hex>/   one entry per compiled kernel
        entry.json        what it is (below); written last
        kernel.mlir       the fmha op that was compiled
        <entry>.json      the launch manifest (docs/Manifest.md)
        <entry>.<target>.cubin
        <entry>.<target>.ptx
      .tmp-...            an entry being written (renamed into place)

``key`` hashes the spec (its fields and the MLIR it renders), the target,
the pipeline and the compiler's version (``fmha-opt --version``);
``spec key`` hashes the same without the compiler version. A lookup with
the compiler at hand asks for the exact key; without a compiler (a GPU
machine that only has a copied cache) it takes the newest entry of the
spec key. Entries are written into a temporary folder and renamed into
place, so a reader sees a whole entry or none. ``entry.json``::

    {"format": "fmha-cache/1", "key": ..., "spec_key": ...,
     "spec": {"kind": "gemm", ...}, "name": ..., "target": "sm_90a",
     "pipeline": ..., "compiler": "<fmha-opt --version>", "ptxas": ...,
     "package": "0.1.0", "created": <unix time>, "manifest": "<entry>.json",
     "cubin": "<entry>.sm_90a.cubin", "cubin_sha256": ..., "ptx": ...,
     "ptxas_info": "...", "seconds": {...}}
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .specs import Spec

FORMAT = "fmha-cache/1"
ENTRY_FILE = "entry.json"
TMP_PREFIX = ".tmp-"
_ENTRY_DIR = re.compile(r"^[a-z]+-[0-9a-f]{12}-[0-9a-f]{12}$")
# The pipeline each target compiles with; part of the key.
PIPELINES = {"sm_90a": "fmha-sm90-pipeline"}


def cache_dir(override: Union[str, os.PathLike, None] = None) -> Path:
    """The cache directory: ``override``, ``$FMHA_CACHE_DIR``,
    ``$XDG_CACHE_HOME/fmha`` or ``~/.cache/fmha``."""
    if override is not None:
        return Path(override).expanduser()
    env = os.environ.get("FMHA_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "fmha"


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def spec_identity(spec: Spec) -> dict:
    """What a kernel's artifacts depend on, without the compiler."""
    return {"format": FORMAT, "spec": spec.to_dict(),
            "target": spec.target, "mlir": spec.to_mlir(),
            "pipeline": PIPELINES.get(spec.target, "")}


def spec_key(spec: Spec) -> str:
    """The hash of the spec and target alone (hex)."""
    return _digest(spec_identity(spec))


def cache_key(spec: Spec, compiler_version: str) -> str:
    """The cache key (hex): the hash of the spec, its target and the
    compiler's version. Stable across runs and machines."""
    return _digest({**spec_identity(spec), "compiler": compiler_version})


def entry_dirname(spec: Spec, key: str) -> str:
    return f"{spec.kind}-{spec_key(spec)[:12]}-{key[:12]}"


@dataclass
class Entry:
    """A complete cache entry: its folder and its entry.json."""

    path: Path
    info: dict

    @property
    def key(self) -> str:
        return self.info["key"]

    @property
    def manifest_path(self) -> Path:
        return self.path / self.info["manifest"]

    @property
    def cubin_path(self) -> Path:
        return self.path / self.info["cubin"]

    @property
    def ptx_path(self) -> Optional[Path]:
        ptx = self.info.get("ptx")
        return self.path / ptx if ptx else None

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.path.iterdir()
                   if f.is_file())


def read_entry(path: Path, check_cubin: bool = True) -> Optional[Entry]:
    """The entry in folder ``path``, or None when it is not a complete,
    readable entry (a half-copied cache, say). ``check_cubin`` checks the
    cubin against its recorded hash."""
    try:
        with open(path / ENTRY_FILE, encoding="utf-8") as f:
            info = json.load(f)
        if not isinstance(info, dict) or info.get("format") != FORMAT:
            return None
        entry = Entry(path, info)
        if not entry.manifest_path.is_file():
            return None
        if check_cubin:
            data = entry.cubin_path.read_bytes()
            if hashlib.sha256(data).hexdigest() != info.get("cubin_sha256"):
                return None
        return entry
    except (OSError, ValueError, KeyError, TypeError):
        return None


def lookup(root: Path, spec: Spec, key: str) -> Optional[Entry]:
    """The entry of exactly ``key``, or None."""
    entry = read_entry(root / entry_dirname(spec, key))
    if entry is not None and entry.info.get("key") == key:
        return entry
    return None


def lookup_spec(root: Path, spec: Spec) -> Optional[Entry]:
    """The newest entry for ``spec`` by any compiler version, or None."""
    skey = spec_key(spec)
    prefix = f"{spec.kind}-{skey[:12]}-"
    best: Optional[Entry] = None
    try:
        names = os.listdir(root)
    except OSError:
        return None
    for name in names:
        if not name.startswith(prefix):
            continue
        entry = read_entry(root / name)
        if entry is None or entry.info.get("spec_key") != skey:
            continue
        if best is None or entry.info.get("created", 0) > best.info.get(
                "created", 0):
            best = entry
    return best


def new_tmp_dir(root: Path, key: str) -> Path:
    """A fresh temporary folder in ``root`` for an entry being written."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{TMP_PREFIX}{key[:12]}-{os.getpid()}-{os.urandom(4).hex()}"
    path.mkdir()
    return path


def publish(tmp: Path, root: Path, spec: Spec, key: str,
            replace: bool = False) -> Entry:
    """Renames the finished entry ``tmp`` (entry.json written last) into
    place. When another process got there first, keeps its entry and
    removes ``tmp`` (``replace``: replaces it instead); a broken entry in
    the way is replaced."""
    final = root / entry_dirname(spec, key)
    for _ in range(3):
        try:
            os.rename(tmp, final)
            break
        except OSError:
            existing = read_entry(final)
            if existing is not None and not replace:
                shutil.rmtree(tmp, ignore_errors=True)
                return existing
            # A broken or partial entry: move it aside, then retry.
            aside = root / f"{TMP_PREFIX}broken-{os.getpid()}-" \
                           f"{os.urandom(4).hex()}"
            try:
                os.rename(final, aside)
                shutil.rmtree(aside, ignore_errors=True)
            except OSError:
                pass
    entry = read_entry(final)
    if entry is None:
        raise OSError(f"could not publish the cache entry {final}")
    return entry


def iter_entries(root: Path) -> Iterator[Entry]:
    """Every complete entry in ``root``, oldest first."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return
    entries = []
    for name in names:
        if _ENTRY_DIR.match(name):
            entry = read_entry(root / name, check_cubin=False)
            if entry is not None:
                entries.append(entry)
    entries.sort(key=lambda e: e.info.get("created", 0))
    yield from entries


def clear(root: Path, stale_seconds: float = 3600.0) -> tuple[int, int]:
    """Removes every entry folder of ``root`` (complete or not) and the
    temporary folders older than ``stale_seconds`` (younger ones may be an
    entry another process is writing); leaves anything else alone. Returns
    (folders removed, bytes freed)."""
    removed = freed = 0
    try:
        names = os.listdir(root)
    except OSError:
        return 0, 0
    now = time.time()
    for name in names:
        path = root / name
        if not path.is_dir() or path.is_symlink():
            continue
        if name.startswith(TMP_PREFIX):
            try:
                if now - path.stat().st_mtime < stale_seconds:
                    continue
            except OSError:
                continue
        elif not _ENTRY_DIR.match(name):
            continue
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed += 1
            freed += size
    return removed, freed
