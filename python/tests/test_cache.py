"""The kernel cache: keys, directory, lookups, atomic publishing, clearing.
No compiler needed: entries are written by hand."""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

from fmha import cache
from fmha.specs import AttentionSpec, GemmSpec

from .fakes import gemm_json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_entry(root: Path, spec, compiler: str = "fmha 1", created=None,
                cubin: bytes = b"\x7fELF fake cubin") -> cache.Entry:
    """Writes a complete cache entry for ``spec`` as the compiler would."""
    key = cache.cache_key(spec, compiler)
    tmp = cache.new_tmp_dir(root, key)
    manifest = gemm_json()
    manifest["name"] = manifest["entry"] = spec.name
    manifest["cubin"] = f"{spec.name}.{spec.target}.cubin"
    (tmp / f"{spec.name}.json").write_text(json.dumps(manifest))
    (tmp / manifest["cubin"]).write_bytes(cubin)
    (tmp / "kernel.mlir").write_text(spec.to_mlir())
    info = {"format": cache.FORMAT, "key": key,
            "spec_key": cache.spec_key(spec), "spec": spec.to_dict(),
            "name": spec.name, "target": spec.target, "compiler": compiler,
            "created": time.time() if created is None else created,
            "manifest": f"{spec.name}.json", "cubin": manifest["cubin"],
            "cubin_sha256": hashlib.sha256(cubin).hexdigest()}
    (tmp / cache.ENTRY_FILE).write_text(json.dumps(info))
    return cache.publish(tmp, root, spec, key)


class KeyTest(unittest.TestCase):
    def test_stable(self):
        spec = GemmSpec()
        key = cache.cache_key(spec, "fmha 1")
        self.assertRegex(key, "^[0-9a-f]{64}$")
        self.assertEqual(key, cache.cache_key(GemmSpec(tile=[128, 128, 64]),
                                              "fmha 1"))
        # The same in a fresh interpreter (no hash randomization involved).
        code = ("from fmha.specs import GemmSpec; from fmha import cache; "
                "print(cache.cache_key(GemmSpec(), 'fmha 1'))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                             text=True, env=dict(os.environ, PYTHONPATH=ROOT,
                                                 PYTHONHASHSEED="123"),
                             check=True).stdout.strip()
        self.assertEqual(out, key)

    def test_changes_with_spec_and_compiler(self):
        base = cache.cache_key(GemmSpec(), "fmha 1")
        variants = [GemmSpec(dtype="f16"), GemmSpec(out_dtype="f32"),
                    GemmSpec(tile=(128, 64, 64)), GemmSpec(stages=4),
                    GemmSpec(consumers=1), GemmSpec(target="sm_100a"),
                    GemmSpec(m=128), GemmSpec(n=128), GemmSpec(k=128)]
        keys = {cache.cache_key(s, "fmha 1") for s in variants}
        self.assertEqual(len(keys), len(variants))
        self.assertNotIn(base, keys)
        self.assertNotEqual(cache.cache_key(GemmSpec(), "fmha 2"), base)
        # The spec key ignores the compiler.
        self.assertEqual(cache.spec_key(GemmSpec()), cache.spec_key(GemmSpec()))
        self.assertNotEqual(cache.spec_key(GemmSpec()),
                            cache.spec_key(GemmSpec(stages=2)))

    def test_attention_keys(self):
        a = cache.cache_key(AttentionSpec(), "v")
        self.assertNotEqual(a, cache.cache_key(AttentionSpec(causal=True),
                                               "v"))
        self.assertNotEqual(a, cache.cache_key(AttentionSpec(scale=0.1), "v"))

    def test_dirname(self):
        spec = GemmSpec()
        key = cache.cache_key(spec, "x")
        name = cache.entry_dirname(spec, key)
        self.assertEqual(name, f"gemm-{cache.spec_key(spec)[:12]}-{key[:12]}")


class CacheDirTest(unittest.TestCase):
    def env(self, **values):
        clean = {k: v for k, v in os.environ.items()
                 if k not in ("FMHA_CACHE_DIR", "XDG_CACHE_HOME")}
        clean.update(values)
        return mock.patch.dict(os.environ, clean, clear=True)

    def test_order(self):
        with self.env(FMHA_CACHE_DIR="/a/b", XDG_CACHE_HOME="/x"):
            self.assertEqual(cache.cache_dir(), Path("/a/b"))
            self.assertEqual(cache.cache_dir("/o"), Path("/o"))
        with self.env(XDG_CACHE_HOME="/x"):
            self.assertEqual(cache.cache_dir(), Path("/x/fmha"))
        with self.env(HOME="/home/u"):
            self.assertEqual(cache.cache_dir(), Path("/home/u/.cache/fmha"))


class EntryTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name) / "cache"

    def tearDown(self):
        self._tmp.cleanup()

    def test_publish_and_lookup(self):
        spec = GemmSpec()
        entry = write_entry(self.root, spec, "fmha 1")
        self.assertEqual(entry.path.name,
                         cache.entry_dirname(spec, entry.key))
        self.assertEqual(entry.manifest_path.name, f"{spec.name}.json")
        self.assertTrue(entry.cubin_path.is_file())
        found = cache.lookup(self.root, spec, cache.cache_key(spec, "fmha 1"))
        self.assertEqual(found.path, entry.path)
        self.assertIsNone(cache.lookup(self.root, spec,
                                       cache.cache_key(spec, "fmha 2")))
        self.assertIsNone(cache.lookup(self.root, GemmSpec(stages=2),
                                       cache.cache_key(spec, "fmha 1")))
        # No temporary folders are left behind.
        self.assertEqual([p.name for p in self.root.iterdir()],
                         [entry.path.name])

    def test_lookup_spec_takes_the_newest(self):
        spec = GemmSpec()
        write_entry(self.root, spec, "fmha 1", created=100)
        new = write_entry(self.root, spec, "fmha 2", created=200)
        write_entry(self.root, GemmSpec(stages=2), "fmha 3", created=300)
        self.assertEqual(cache.lookup_spec(self.root, spec).path, new.path)
        self.assertIsNone(cache.lookup_spec(self.root, GemmSpec(stages=4)))
        self.assertIsNone(cache.lookup_spec(self.root / "none", spec))

    def test_broken_entries_are_misses(self):
        spec = GemmSpec()
        entry = write_entry(self.root, spec)
        entry.cubin_path.write_bytes(b"truncated")
        self.assertIsNone(cache.lookup_spec(self.root, spec))
        self.assertIsNone(cache.lookup(self.root, spec, entry.key))
        (entry.path / cache.ENTRY_FILE).write_text("{not json")
        self.assertIsNone(cache.read_entry(entry.path))

    def test_publish_over_a_broken_entry(self):
        spec = GemmSpec()
        first = write_entry(self.root, spec)
        first.cubin_path.write_bytes(b"truncated")
        second = write_entry(self.root, spec)
        self.assertEqual(second.path, first.path)
        self.assertIsNotNone(cache.read_entry(second.path))

    def test_publish_race_keeps_the_first(self):
        spec = GemmSpec()
        first = write_entry(self.root, spec, cubin=b"first")
        second = write_entry(self.root, spec, cubin=b"second")
        self.assertEqual(second.path, first.path)
        self.assertEqual(second.cubin_path.read_bytes(), b"first")
        self.assertEqual(len(list(self.root.iterdir())), 1)

    def test_publish_replace(self):
        spec = GemmSpec()
        first = write_entry(self.root, spec, cubin=b"first")
        key = first.key
        tmp = cache.new_tmp_dir(self.root, key)
        for f in first.path.iterdir():
            (tmp / f.name).write_bytes(f.read_bytes())
        (tmp / first.info["cubin"]).write_bytes(b"second")
        info = dict(first.info, cubin_sha256=hashlib.sha256(
            b"second").hexdigest())
        (tmp / cache.ENTRY_FILE).write_text(json.dumps(info))
        entry = cache.publish(tmp, self.root, spec, key, replace=True)
        self.assertEqual(entry.cubin_path.read_bytes(), b"second")
        self.assertEqual(len(list(self.root.iterdir())), 1)

    def test_iter_and_clear(self):
        write_entry(self.root, GemmSpec(), created=2)
        write_entry(self.root, GemmSpec(stages=2), created=1)
        other = self.root / "not-ours"
        other.mkdir()
        (self.root / "notes.txt").write_text("keep")
        stale = cache.new_tmp_dir(self.root, "0" * 64)
        os.utime(stale, (0, 0))
        fresh = cache.new_tmp_dir(self.root, "1" * 64)
        names = [e.info["name"] for e in cache.iter_entries(self.root)]
        self.assertEqual(names, [GemmSpec(stages=2).name, GemmSpec().name])
        removed, freed = cache.clear(self.root)
        self.assertEqual(removed, 3)  # two entries and the stale tmp
        self.assertGreater(freed, 0)
        self.assertEqual(sorted(p.name for p in self.root.iterdir()),
                         sorted(["not-ours", "notes.txt", fresh.name]))
        self.assertEqual(list(cache.iter_entries(self.root)), [])
        self.assertEqual(cache.clear(self.root / "missing"), (0, 0))


if __name__ == "__main__":
    unittest.main()
