"""The kernel cache: keys, directory, lookups, atomic publishing, clearing.
No compiler needed: entries are written by hand."""

import hashlib
import json
import os
import shutil
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
                cubin: bytes = b"\x7fELF fake cubin", replace=False,
                manifest=None) -> cache.Entry:
    """Writes a complete cache entry for ``spec`` as the compiler would."""
    key = cache.cache_key(spec, compiler)
    tmp = cache.new_tmp_dir(root, key)
    if manifest is None:
        manifest = gemm_json()
        manifest["name"] = manifest["entry"] = spec.name
        manifest["cubin"] = f"{spec.name}.{spec.target}.cubin"
    names = {"manifest": f"{spec.name}.json",
             "cubin": f"{spec.name}.{spec.target}.cubin",
             "ptx": f"{spec.name}.{spec.target}.ptx"}
    (tmp / names["manifest"]).write_text(json.dumps(manifest))
    (tmp / names["cubin"]).write_bytes(cubin)
    (tmp / names["ptx"]).write_text(f"// PTX of {spec.name}\n")
    (tmp / "kernel.mlir").write_text(spec.to_mlir())
    info = {"format": cache.FORMAT, "key": key,
            "spec_key": cache.spec_key(spec), "spec": spec.to_dict(),
            "name": spec.name, "target": spec.target, "compiler": compiler,
            "created": time.time() if created is None else created,
            **names, "sha256": cache.hashes(tmp, list(names.values()))}
    return cache.publish(tmp, root, spec, key, info, replace=replace)


def rehash(entry: cache.Entry, name: str) -> None:
    """Records the current hash of ``name`` in entry.json, as if the file
    had been written so (damage the hashes do not catch)."""
    info = json.loads((entry.path / cache.ENTRY_FILE).read_text())
    info["sha256"][name] = hashlib.sha256(
        (entry.files / name).read_bytes()).hexdigest()
    (entry.path / cache.ENTRY_FILE).write_text(json.dumps(info))


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
        self.assertEqual(entry.cubin, b"\x7fELF fake cubin")
        self.assertEqual(entry.manifest.name, spec.name)
        found = cache.lookup(self.root, spec, cache.cache_key(spec, "fmha 1"))
        self.assertEqual(found.path, entry.path)
        self.assertIsNone(cache.lookup(self.root, spec,
                                       cache.cache_key(spec, "fmha 2")))
        # No temporary folders are left behind; the entry holds its
        # pointer and one generation.
        self.assertEqual([p.name for p in self.root.iterdir()],
                         [entry.path.name])
        self.assertEqual(sorted(p.name for p in entry.path.iterdir()),
                         sorted([cache.ENTRY_FILE, entry.info["dir"]]))

    def test_lookup_checks_the_spec(self):
        spec = GemmSpec()
        entry = write_entry(self.root, spec, "fmha 1")
        # An entry.json that holds another spec (copied by hand, say).
        other = GemmSpec(stages=2)
        info = json.loads((entry.path / cache.ENTRY_FILE).read_text())
        info["spec"] = other.to_dict()
        (entry.path / cache.ENTRY_FILE).write_text(json.dumps(info))
        with self.assertRaisesRegex(cache.EntryError,
                                    "not the spec gemm_bf16_bf16"):
            cache.lookup(self.root, spec, entry.key)

    def test_lookup_spec_takes_the_newest(self):
        spec = GemmSpec()
        write_entry(self.root, spec, "fmha 1", created=100)
        new = write_entry(self.root, spec, "fmha 2", created=200)
        write_entry(self.root, GemmSpec(stages=2), "fmha 3", created=300)
        self.assertEqual(cache.lookup_spec(self.root, spec).path, new.path)
        self.assertIsNone(cache.lookup_spec(self.root, GemmSpec(stages=4)))
        self.assertIsNone(cache.lookup_spec(self.root / "none", spec))
        # A damaged newest entry: the newest valid one serves.
        new.cubin_path.write_bytes(b"truncated")
        self.assertEqual(cache.lookup_spec(self.root, spec).info["compiler"],
                         "fmha 1")

    def damaged(self, damage, reason):
        """``damage(entry)`` makes lookups raise EntryError matching
        ``reason``, with the exact key and without (lookup_spec)."""
        spec = GemmSpec()
        entry = write_entry(self.root, spec)
        damage(entry)
        with self.assertRaisesRegex(cache.EntryError, reason):
            cache.lookup(self.root, spec, entry.key)
        with self.assertRaisesRegex(cache.EntryError, reason):
            cache.lookup_spec(self.root, spec)
        self.assertIsNone(cache.read_entry(entry.path))
        # Publishing over it (a recompile) repairs it.
        repaired = write_entry(self.root, spec)
        self.assertEqual(repaired.path, entry.path)
        self.assertIsNotNone(cache.lookup(self.root, spec, entry.key))

    def test_truncated_cubin(self):
        self.damaged(lambda e: e.cubin_path.write_bytes(b"\x7fEL"),
                     r"\.cubin does not match the sha256 recorded when it "
                     r"was written \(3 bytes now\): truncated or modified")

    def test_truncated_ptx(self):
        self.damaged(lambda e: e.ptx_path.write_text("// PT"),
                     r"\.ptx does not match the sha256")

    def test_garbage_manifest(self):
        self.damaged(lambda e: e.manifest_path.write_text("garbage"),
                     r"\.json does not match the sha256")

    def test_manifest_that_does_not_parse(self):
        def damage(entry):
            entry.manifest_path.write_text("{}")
            rehash(entry, entry.info["manifest"])
        self.damaged(damage, "the manifest does not parse: .*format")

    def test_manifest_of_another_kernel(self):
        def damage(entry):
            data = gemm_json()  # names gemm_bf16, not the spec's kernel
            entry.manifest_path.write_text(json.dumps(data))
            rehash(entry, entry.info["manifest"])
        self.damaged(damage, "the manifest describes gemm_bf16")

    def test_missing_cubin(self):
        self.damaged(lambda e: e.cubin_path.unlink(), r"\.cubin is missing")

    def test_garbage_entry_json(self):
        self.damaged(lambda e: (e.path / cache.ENTRY_FILE).write_text("{x"),
                     "entry.json is not valid JSON")
        self.damaged(lambda e: (e.path / cache.ENTRY_FILE).write_text("{}"),
                     "entry.json has format None")

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
        second = write_entry(self.root, spec, cubin=b"second", replace=True)
        self.assertEqual(second.path, first.path)
        self.assertEqual(second.cubin, b"second")
        self.assertEqual(cache.lookup(self.root, spec, first.key).cubin,
                         b"second")
        self.assertEqual(len(list(self.root.iterdir())), 1)
        # The replaced generation stays for readers that still read it...
        self.assertTrue(first.files.is_dir())
        self.assertEqual(first.cubin_path.read_bytes(), b"first")
        # ... and goes once it was replaced GRACE_SECONDS ago.
        old = time.time() - cache.GRACE_SECONDS - 1
        os.utime(first.files, (old, old))
        third = write_entry(self.root, spec, cubin=b"third", replace=True)
        self.assertFalse(first.files.exists())
        self.assertEqual(sorted(p.name for p in third.path.iterdir()),
                         sorted([cache.ENTRY_FILE, second.info["dir"],
                                 third.info["dir"]]))

    def test_reader_retries_when_replaced_meanwhile(self):
        """A reader whose entry.json was replaced and whose generation
        removed while it read reads the new entry."""
        spec = GemmSpec()
        first = write_entry(self.root, spec, cubin=b"first")
        real = cache._read_checked
        calls = []

        def replaced_during_read(path, info, field):
            if not calls:
                calls.append(1)
                write_entry(self.root, spec, cubin=b"second", replace=True)
                shutil.rmtree(first.files)
            return real(path, info, field)

        with mock.patch.object(cache, "_read_checked", replaced_during_read):
            entry = cache.lookup(self.root, spec, first.key)
        self.assertEqual(entry.cubin, b"second")

    def test_root_that_is_a_file(self):
        path = Path(self._tmp.name) / "file"
        path.write_text("x")
        for call in (lambda: cache.lookup(path, GemmSpec(), "0" * 64),
                     lambda: cache.lookup_spec(path, GemmSpec()),
                     lambda: cache.clear(path),
                     lambda: cache.new_tmp_dir(path, "0" * 64)):
            with self.assertRaisesRegex(cache.CacheError,
                                        f"the kernel cache {path} is not a "
                                        "directory: point FMHA_CACHE_DIR"):
                call()

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


class LockTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name) / "cache"

    def tearDown(self):
        self._tmp.cleanup()

    def test_timeout_names_the_holder(self):
        with cache.entry_lock(self.root, "gemm-x"):
            start = time.monotonic()
            with self.assertRaisesRegex(
                    cache.CacheError,
                    r"timed out after 0 s waiting for .*gemm-x\.lock, held "
                    rf"by pid {os.getpid()} on .* since .*; if no such "
                    "process runs, remove the file"):
                with cache.entry_lock(self.root, "gemm-x", timeout=0.3):
                    pass
            self.assertGreater(time.monotonic() - start, 0.25)
            # Another entry's lock is independent.
            with cache.entry_lock(self.root, "gemm-y", timeout=0):
                pass
        with cache.entry_lock(self.root, "gemm-x", timeout=0):
            pass

    def test_waits_for_the_holder(self):
        code = ("import sys, time; from pathlib import Path; "
                "from fmha import cache\n"
                "with cache.entry_lock(Path(sys.argv[1]), 'k'):\n"
                "    print('held', flush=True); time.sleep(1)\n")
        holder = subprocess.Popen([sys.executable, "-c", code,
                                   str(self.root)], stdout=subprocess.PIPE,
                                  text=True, env=dict(os.environ,
                                                      PYTHONPATH=ROOT))
        self.assertEqual(holder.stdout.readline().strip(), "held")
        start = time.monotonic()
        with cache.entry_lock(self.root, "k", timeout=30):
            waited = time.monotonic() - start
        holder.wait()
        holder.stdout.close()
        self.assertGreater(waited, 0.3)

    def test_stale_lock_of_a_dead_process(self):
        # A process that took the lock and died without releasing it (a
        # SIGKILL): its lock file stays, the lock does not.
        code = ("import os, sys; from pathlib import Path; "
                "from fmha import cache\n"
                "with cache.entry_lock(Path(sys.argv[1]), 'k'):\n"
                "    os.kill(os.getpid(), 9)\n")
        subprocess.run([sys.executable, "-c", code, str(self.root)],
                       env=dict(os.environ, PYTHONPATH=ROOT), check=False)
        lock = self.root / cache.LOCK_DIR / "k.lock"
        self.assertIn("pid", lock.read_text())
        start = time.monotonic()
        with cache.entry_lock(self.root, "k", timeout=5):
            pass
        self.assertLess(time.monotonic() - start, 1)


if __name__ == "__main__":
    unittest.main()
