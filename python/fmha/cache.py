"""The on-disk kernel cache (docs/Cache.md has the design).

Layout (``cache_dir()``: ``$FMHA_CACHE_DIR``, else
``$XDG_CACHE_HOME/fmha``, else ``~/.cache/fmha``)::

    <cache dir>/
      gemm-<spec key, 12 hex>-<key, 12 hex>/   one entry per compiled kernel
        entry.json        the pointer: which generation, hashes, metadata
        g-<generation>/   the artifacts, never changed once in place
          kernel.mlir     the fmha op that was compiled
          <entry>.json    the launch manifest (docs/Manifest.md)
          <entry>.<target>.cubin
          <entry>.<target>.ptx
      .locks/<entry folder>.lock   one compile per entry across processes
      .tmp-...            artifacts being written

``key`` hashes the spec (its fields and the MLIR it renders), the target,
the pipeline and the compiler's identity; ``spec key`` the same without
the compiler. A lookup with the compiler at hand asks for the exact key;
without a compiler (a GPU machine that only has a copied cache) it takes
the newest valid entry of the spec key.

Writing: the artifacts go to a temporary folder, which is renamed into the
entry folder as a new generation; then ``entry.json`` is replaced (a new
file renamed over it). Both renames are atomic, so a reader sees the old
entry.json or the new one, and the generation either names exists: never
no entry, never half of one. A replaced generation stays ``GRACE_SECONDS``
(readers that read the old entry.json are still reading it), and a reader
that finds a file gone re-reads entry.json and tries again.

Reading validates: entry.json parses, its key and spec match the lookup,
the manifest, cubin and PTX match the sha256 recorded when they were
written and the manifest parses (fmha.runtime.parse_manifest) and names
the spec's kernel and target. A damaged entry raises EntryError (with the
reason); fmha.compile then recompiles it, or reports it without a
compiler. The validated manifest and cubin bytes are kept in the Entry, so
a kernel is loaded from exactly what was checked.

``entry.json``::

    {"format": "fmha-cache/2", "key": ..., "spec_key": ...,
     "spec": {"kind": "gemm", ...}, "name": ..., "target": "sm_90a",
     "pipeline": ..., "compiler": "<compiler identity>", "ptxas": ...,
     "package": "0.1.0", "created": <unix time>, "dir": "g-...",
     "manifest": "<entry>.json", "cubin": "<entry>.sm_90a.cubin",
     "ptx": "<entry>.sm_90a.ptx", "sha256": {<file name>: <hex>},
     "ptxas_info": "...", "seconds": {...}}
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .specs import Spec

FORMAT = "fmha-cache/2"
ENTRY_FILE = "entry.json"
TMP_PREFIX = ".tmp-"
GEN_PREFIX = "g-"
LOCK_DIR = ".locks"
# How long a replaced generation stays for readers that still read it.
GRACE_SECONDS = 60.0
# How long fmha.compile waits for another process compiling the same
# kernel (FMHA_CACHE_LOCK_TIMEOUT overrides it).
LOCK_TIMEOUT = 900.0
_ENTRY_DIR = re.compile(r"^[a-z]+-[0-9a-f]{12}-[0-9a-f]{12}$")
# The pipeline each target compiles with; part of the key.
PIPELINES = {"sm_90a": "fmha-sm90-pipeline",
             "sm_100a": "fmha-sm100-pipeline"}
# Files entry.json records a hash of (its fields naming them).
HASHED = ("manifest", "cubin", "ptx")


class CacheError(RuntimeError):
    """The cache cannot be used: its path is not a folder, it cannot be
    written, or a lock was not obtained in time."""


class EntryError(ValueError):
    """A damaged cache entry: ``path`` (its folder) and ``reason``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"the cache entry {path} is damaged: {reason}")
        self.path = path
        self.reason = reason


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


def check_root(root: Path) -> None:
    """Raises CacheError when ``root`` exists but is not a folder."""
    if root.exists() and not root.is_dir():
        raise CacheError(
            f"the kernel cache {root} is not a directory: point "
            f"FMHA_CACHE_DIR (or --cache-dir, or cache_dir=) at a folder")


def ensure_root(root: Path) -> None:
    """Creates ``root`` (and its parents); CacheError when it cannot."""
    check_root(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CacheError(f"cannot create the kernel cache {root}: "
                         f"{e.strerror or e}") from None


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    """A cache entry: its folder, its entry.json and, once validated
    (check_entry), the parsed manifest, its JSON and the cubin's bytes."""

    path: Path
    info: dict
    manifest: Any = None
    manifest_data: Optional[dict] = None
    cubin: Optional[bytes] = None

    @property
    def key(self) -> str:
        return self.info["key"]

    @property
    def files(self) -> Path:
        """The generation folder that holds the artifacts."""
        return self.path / self.info["dir"]

    @property
    def manifest_path(self) -> Path:
        return self.files / self.info["manifest"]

    @property
    def cubin_path(self) -> Path:
        return self.files / self.info["cubin"]

    @property
    def ptx_path(self) -> Optional[Path]:
        ptx = self.info.get("ptx")
        return self.files / ptx if ptx else None

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*")
                   if f.is_file())


def _read_info(path: Path) -> Optional[dict]:
    """entry.json of the entry folder ``path``: None when there is none
    (no entry); EntryError when it is not an entry.json of this format."""
    try:
        text = (path / ENTRY_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise EntryError(path, f"cannot read {ENTRY_FILE}: "
                         f"{e.strerror or e}") from None
    try:
        info = json.loads(text)
    except ValueError as e:
        raise EntryError(path, f"{ENTRY_FILE} is not valid JSON "
                         f"({e})") from None
    if not isinstance(info, dict):
        raise EntryError(path, f"{ENTRY_FILE} is not a JSON object")
    if info.get("format") != FORMAT:
        raise EntryError(path, f"{ENTRY_FILE} has format "
                         f"{info.get('format')!r}, not {FORMAT!r}")
    for field in ("key", "spec_key", "name", "target", "dir", *HASHED):
        value = info.get(field)
        if not isinstance(value, str) or not value or "/" in value or \
                value in (".", ".."):
            raise EntryError(path, f"{ENTRY_FILE}: {field} is {value!r}, "
                             "not a plain name")
    if not isinstance(info.get("sha256"), dict):
        raise EntryError(path, f"{ENTRY_FILE} records no sha256 hashes")
    return info


def _read_checked(path: Path, info: dict, field: str) -> bytes:
    """The bytes of the artifact ``info[field]``, checked against the hash
    recorded for it. FileNotFoundError propagates (the caller retries)."""
    name = info[field]
    data = (path / info["dir"] / name).read_bytes()
    if sha256(data) != info["sha256"].get(name):
        raise EntryError(path, f"{name} does not match the sha256 recorded "
                         f"when it was written ({len(data)} bytes now): "
                         "truncated or modified")
    return data


def _validate(path: Path, info: dict, spec: Optional[Spec],
              key: Optional[str]) -> Entry:
    from .runtime.errors import ManifestError
    from .runtime.manifest import parse_manifest
    if key is not None and info["key"] != key:
        raise EntryError(path, f"its key {info['key'][:12]} is not the "
                         f"folder's {key[:12]}")
    if spec is not None and (info.get("spec") != spec.to_dict()
                             or info["spec_key"] != spec_key(spec)):
        raise EntryError(path, f"it holds {info.get('spec')!r}, not the "
                         f"spec {spec.name}")
    data = {field: _read_checked(path, info, field) for field in HASHED}
    files = path / info["dir"]
    try:
        manifest_data = json.loads(data["manifest"])
        manifest = parse_manifest(manifest_data, str(files /
                                                     info["manifest"]),
                                  str(files))
    except (ValueError, ManifestError) as e:
        raise EntryError(path, f"the manifest does not parse: {e}") from None
    if (manifest.name, manifest.target, manifest.cubin) != (
            info["name"], info["target"], info["cubin"]):
        raise EntryError(
            path, f"the manifest describes {manifest.name} "
            f"({manifest.target}, {manifest.cubin}), not {info['name']} "
            f"({info['target']}, {info['cubin']})")
    return Entry(path, info, manifest, manifest_data, data["cubin"])


def check_entry(path: Path, spec: Optional[Spec] = None,
                key: Optional[str] = None, attempts: int = 5) \
        -> Optional[Entry]:
    """The validated entry in folder ``path``; None when there is none;
    EntryError (with the reason) when it is damaged or does not match
    ``spec`` / ``key``. An artifact that vanished because the entry was
    replaced meanwhile makes it read the new entry.json again."""
    for _ in range(attempts):
        info = _read_info(path)
        if info is None:
            return None
        try:
            return _validate(path, info, spec, key)
        except FileNotFoundError as e:
            missing = e.filename
            try:
                again = _read_info(path)
            except EntryError:
                again = None
            if again == info:
                raise EntryError(path, f"{missing} is missing") from None
    raise EntryError(path, f"replaced {attempts} times while being read")


def read_entry(path: Path, check: bool = True) -> Optional[Entry]:
    """The entry in folder ``path``, or None when it has none or it is
    damaged. ``check=False`` reads entry.json alone (listing)."""
    try:
        if not check:
            info = _read_info(path)
            return None if info is None else Entry(path, info)
        return check_entry(path)
    except EntryError:
        return None


def lookup(root: Path, spec: Spec, key: str) -> Optional[Entry]:
    """The validated entry of exactly ``key``; None when there is none;
    EntryError when it is damaged."""
    check_root(root)
    return check_entry(root / entry_dirname(spec, key), spec, key)


def lookup_spec(root: Path, spec: Spec) -> Optional[Entry]:
    """The newest valid entry for ``spec`` by any compiler version; None
    when there is none; EntryError (the newest's) when every entry of the
    spec is damaged."""
    check_root(root)
    skey = spec_key(spec)
    prefix = f"{spec.kind}-{skey[:12]}-"
    try:
        names = [n for n in os.listdir(root) if n.startswith(prefix)]
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CacheError(f"cannot list the kernel cache {root}: "
                         f"{e.strerror or e}") from None
    candidates = []
    for name in names:
        entry = read_entry(root / name, check=False)
        created = entry.info.get("created", 0) if entry else 0
        candidates.append((created if isinstance(created, (int, float))
                           else 0, name))
    error: Optional[EntryError] = None
    for _, name in sorted(candidates, reverse=True):
        try:
            entry = check_entry(root / name, spec)
        except EntryError as e:
            error = error or e
            continue
        if entry is not None:
            return entry
    if error is not None:
        raise error
    return None


def new_tmp_dir(root: Path, key: str) -> Path:
    """A fresh temporary folder in ``root`` for artifacts being written."""
    ensure_root(root)
    path = root / f"{TMP_PREFIX}{key[:12]}-{os.getpid()}-{os.urandom(4).hex()}"
    path.mkdir()
    return path


def hashes(folder: Path, names: list) -> dict:
    """``{name: sha256}`` of the files ``names`` in ``folder``."""
    return {name: sha256((folder / name).read_bytes()) for name in names}


def _write_pointer(final: Path, info: dict) -> None:
    """Replaces ``final/entry.json`` atomically (written, flushed to disk,
    renamed over the old one)."""
    tmp = final / f".{ENTRY_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final / ENTRY_FILE)


def _collect(final: Path, keep: set, now: float) -> None:
    """Removes the generations and pointer files of ``final`` not in
    ``keep`` that were replaced more than GRACE_SECONDS ago."""
    for child in final.iterdir():
        if child.name in keep or child.name == ENTRY_FILE:
            continue
        try:
            if now - child.stat().st_mtime < GRACE_SECONDS:
                continue
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink()
        except OSError:
            pass


def publish(tmp: Path, root: Path, spec: Spec, key: str, info: dict,
            replace: bool = False) -> Entry:
    """Makes the artifacts in ``tmp`` (the files entry.json ``info``
    names, hashed in ``info["sha256"]``) the entry of ``key``: renames
    ``tmp`` into the entry folder as a new generation, then points
    entry.json at it. When a valid entry is there already it is kept and
    ``tmp`` removed, unless ``replace``. Call it holding the entry's lock
    (fmha.compile does)."""
    final = root / entry_dirname(spec, key)
    try:
        final.mkdir(exist_ok=True)
        if not replace:
            try:
                existing = check_entry(final, spec, key)
            except EntryError:
                existing = None
            if existing is not None:
                shutil.rmtree(tmp, ignore_errors=True)
                return existing
        try:
            old = _read_info(final)
        except EntryError:
            old = None
        gen = f"{GEN_PREFIX}{time.time_ns():x}-{os.urandom(4).hex()}"
        os.rename(tmp, final / gen)
        _write_pointer(final, dict(info, dir=gen))
        now = time.time()
        keep = {gen}
        if old is not None and (final / old["dir"]).is_dir():
            os.utime(final / old["dir"], (now, now))  # replaced just now
            keep.add(old["dir"])
        _collect(final, keep, now)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CacheError(f"cannot write the cache entry {final}: "
                         f"{e.strerror or e}") from None
    entry = check_entry(final, spec, key)
    if entry is None:
        raise CacheError(f"the cache entry {final} vanished while written")
    return entry


def iter_entries(root: Path) -> Iterator[Entry]:
    """Every entry in ``root`` (entry.json read, not validated), oldest
    first."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return
    entries = []
    for name in names:
        if _ENTRY_DIR.match(name):
            entry = read_entry(root / name, check=False)
            if entry is not None:
                entries.append(entry)
    entries.sort(key=lambda e: e.info.get("created", 0))
    yield from entries


def clear(root: Path, stale_seconds: float = 3600.0) -> tuple[int, int]:
    """Removes every entry folder of ``root`` (complete or not) and the
    temporary folders older than ``stale_seconds`` (younger ones may be
    artifacts another process is writing); leaves anything else alone
    (the lock files, the autotuner's records). Returns (folders removed,
    bytes freed)."""
    check_root(root)
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


# -- one compile per entry across processes -----------------------------------


def lock_timeout() -> float:
    """``$FMHA_CACHE_LOCK_TIMEOUT`` (seconds), else LOCK_TIMEOUT."""
    try:
        return float(os.environ.get("FMHA_CACHE_LOCK_TIMEOUT", LOCK_TIMEOUT))
    except ValueError:
        return LOCK_TIMEOUT


@contextlib.contextmanager
def entry_lock(root: Path, name: str,
               timeout: Optional[float] = None) -> Iterator[None]:
    """Holds ``<root>/.locks/<name>.lock`` exclusively (``flock``) while
    the block runs. Waits up to ``timeout`` seconds (default
    lock_timeout()), then raises CacheError naming the holder (the lock
    file says which process took it and when). A lock whose holder died is
    no obstacle: the kernel drops a flock with its process, so a stale
    lock file is simply taken. Where flock is not available (no fcntl, a
    file system without locks) the block runs unlocked: entries stay
    atomic, two processes may then both compile."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    timeout = lock_timeout() if timeout is None else timeout
    ensure_root(root)
    path = root / LOCK_DIR / f"{name}.lock"
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise CacheError(f"cannot create the lock file {path}: "
                         f"{e.strerror or e}") from None
    try:
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 200, 0).decode(
                        errors="replace").strip() or "an unknown process"
                    raise CacheError(
                        f"timed out after {timeout:.0f} s waiting for "
                        f"{path}, held by {holder}, which compiles the "
                        f"same kernel; if no such process runs, remove "
                        f"the file (FMHA_CACHE_LOCK_TIMEOUT sets the "
                        f"wait)") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
            except OSError:  # no locks on this file system: go unlocked
                break
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                  f"{stamp}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # drops the flock
