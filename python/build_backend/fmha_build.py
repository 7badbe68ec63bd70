"""A PEP 517 build backend for the fmha package, standard library only.

``pip install ./python`` builds in an isolated environment into which pip
would first install the build backend's requirements; with setuptools that
needs a package index. This backend needs nothing, so the install works
offline. It builds a pure-Python wheel of the ``fmha`` package (and an
sdist, and an editable wheel for ``pip install -e``) from the ``[project]``
table of pyproject.toml.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "fmha"
# Zip entries need a date; a fixed one keeps builds reproducible.
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01


def _project() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib
        return tomllib.loads(data.decode())["project"]
    except ImportError:  # Python 3.10: the few plain string keys we need
        table = data.decode().split("[project]", 1)[1].split("\n[", 1)[0]
        return dict(re.findall(r'^(\w[\w-]*)\s*=\s*"([^"]*)"', table, re.M))


def _scripts() -> dict[str, str]:
    """The ``[project.scripts]`` table: command -> ``module:function``."""
    p = _project()
    if isinstance(p.get("scripts"), dict):
        return dict(p["scripts"])
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    if "[project.scripts]" not in text:
        return {}
    table = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([\w.-]+)\s*=\s*"([^"]*)"', table, re.M))


def _entry_points() -> str:
    scripts = _scripts()
    if not scripts:
        return ""
    lines = ["[console_scripts]"]
    lines += [f"{name} = {target}" for name, target in scripts.items()]
    return "\n".join(lines) + "\n"


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}",
             f"Version: {p['version']}"]
    if p.get("description"):
        lines.append(f"Summary: {p['description']}")
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    return "\n".join(lines) + "\n"


def _dist_info() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}.dist-info"


def _package_files() -> list[str]:
    """The package's files, relative to ROOT, in a stable order."""
    files = []
    for folder, dirs, names in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith((".pyc", ".pyo")):
                files.append(os.path.relpath(os.path.join(folder, name),
                                             ROOT).replace(os.sep, "/"))
    return files


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{path},sha256={digest.decode().rstrip('=')},{len(data)}"


def _write_wheel(wheel_directory: str, contents: dict[str, bytes]) -> str:
    p = _project()
    name = f"{p['name']}-{p['version']}-py3-none-any.whl"
    info = _dist_info()
    contents = dict(contents)
    contents[f"{info}/METADATA"] = _metadata().encode()
    if _entry_points():
        contents[f"{info}/entry_points.txt"] = _entry_points().encode()
    contents[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: fmha_build\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n").encode()
    record = [_record_line(k, v) for k, v in contents.items()]
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    date = time.gmtime(max(EPOCH, 315532800))[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for path, data in contents.items():
            entry = zipfile.ZipInfo(path, date)
            # Tools bundled in fmha/bin (fmha.tools looks there) stay
            # executable.
            executable = path.startswith(f"{PACKAGE}/bin/")
            entry.external_attr = (0o755 if executable else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return name


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings=None) -> str:
    info = _dist_info()
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w",
              encoding="utf-8") as f:
        f.write(_metadata())
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings=None,
                metadata_directory=None) -> str:
    contents = {}
    for path in _package_files():
        with open(os.path.join(ROOT, path), "rb") as f:
            contents[path] = f.read()
    return _write_wheel(wheel_directory, contents)


def build_editable(wheel_directory: str, config_settings=None,
                   metadata_directory=None) -> str:
    """A wheel whose .pth file puts this source folder on sys.path."""
    return _write_wheel(wheel_directory,
                        {f"_{PACKAGE}_editable.pth": (ROOT + "\n").encode()})


def build_sdist(sdist_directory: str, config_settings=None) -> str:
    p = _project()
    base = f"{p['name']}-{p['version']}"
    files = ["pyproject.toml", "build_backend/fmha_build.py"]
    files += [f for f in ("README.md",) if os.path.exists(
        os.path.join(ROOT, f))]
    files += _package_files()
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        def add(path: str, data: bytes) -> None:
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size, entry.mtime, entry.mode = len(data), EPOCH, 0o644
            tar.addfile(entry, io.BytesIO(data))
        add("PKG-INFO", _metadata().encode())
        for path in files:
            with open(os.path.join(ROOT, path), "rb") as f:
                add(path, f.read())
    return name
