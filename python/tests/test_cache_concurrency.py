"""The cache under damage and under concurrent processes, through
fmha.compile and the fmha command: damaged entries are recompiled or
reported, one process compiles a kernel while the others wait for it, and
processes that compile, force-recompile and look up the same kernels at
once for a while see no failure. A fake compiler (fake_compiler.py) makes
compiles fast; one test compiles with the real tools when they are here.

FMHA_CACHE_STRESS_SECONDS sets the length of the concurrent run (20 s)."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

import fmha
from fmha import cache, compiler, tools
from fmha.specs import GemmSpec

from . import cache_worker
from .fake_compiler import write_tools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_COMPILER = {"FMHA_OPT": "/nonexistent/fmha-opt",
               "FMHA_TRANSLATE": "/nonexistent/fmha-translate"}
STRESS_SECONDS = float(os.environ.get("FMHA_CACHE_STRESS_SECONDS", "20"))


class FakeCompilerCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.root = self.tmp / "cache"
        self.log = self.tmp / "compiles.log"
        self.env = dict(write_tools(self.tmp / "tools"),
                        FAKE_COMPILER_LOG=str(self.log))
        compiler.clear_memo()

    def tearDown(self):
        compiler.clear_memo()
        self._tmp.cleanup()

    def compiles(self) -> list:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def compile(self, spec, env=None, **kwargs):
        compiler.clear_memo()
        with mock.patch.dict(os.environ, dict(self.env, **(env or {}))):
            return fmha.compile(spec, cache_dir=self.root,
                                progress=kwargs.pop("progress",
                                                    lambda m: None),
                                **kwargs)

    def run_env(self, **extra) -> dict:
        return {**os.environ, "PYTHONPATH": ROOT, **self.env, **extra}

    def fmha(self, *args, **extra):
        return subprocess.run([sys.executable, "-m", "fmha", *args,
                               "--cache-dir", str(self.root)],
                              capture_output=True, text=True, timeout=120,
                              env=self.run_env(**extra), check=False)


class DamageTest(FakeCompilerCase):
    def test_damaged_entries_are_recompiled(self):
        spec = GemmSpec()
        first = self.compile(spec)
        self.assertEqual(len(self.compiles()), 1)
        for damage in (
                lambda k: k.manifest_path.write_text("garbage"),
                lambda k: k.ptx_path.write_text(k.ptx_path.read_text()[:5]),
                lambda k: k.cubin_path.write_bytes(b""),
                lambda k: (k.directory / cache.ENTRY_FILE).write_text("{}")):
            kernel = self.compile(spec)
            damage(kernel)
            messages = []
            again = self.compile(spec, progress=messages.append)
            self.assertFalse(again.cache_hit)
            self.assertIn("is damaged", messages[0])
            self.assertIn("compiling it again", messages[0])
            self.assertEqual(again.directory, first.directory)
            self.assertTrue(self.compile(spec).cache_hit)
        self.assertEqual(len(self.compiles()), 5)

    def test_damaged_entry_without_a_compiler(self):
        spec = GemmSpec()
        kernel = self.compile(spec)
        kernel.ptx_path.write_text("// trunc")
        with self.assertRaises(fmha.CompileError) as cm:
            self.compile(spec, env=NO_COMPILER)
        e = cm.exception
        self.assertEqual(e.step, "cache")
        self.assertIn(".ptx does not match the sha256", str(e))
        self.assertIn("no compiler was found", str(e))
        self.assertIn("fmha cache clear", str(e))

    def test_cache_path_that_is_a_file(self):
        self.root.parent.mkdir(exist_ok=True)
        self.root.write_text("not a folder")
        with self.assertRaises(fmha.CompileError) as cm:
            self.compile(GemmSpec())
        self.assertEqual(cm.exception.step, "cache")
        self.assertIn("is not a directory", str(cm.exception))
        for args in (("compile", "gemm"), ("cache", "list"),
                     ("cache", "clear")):
            r = self.fmha(*args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(f"the kernel cache {self.root} is not a directory",
                          r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def test_cli_reports_damage_without_a_traceback(self):
        r = self.fmha("compile", "gemm")
        self.assertEqual(r.returncode, 0, r.stderr)
        kernel = self.compile(GemmSpec())
        kernel.manifest_path.write_text("{}")
        r = self.fmha("compile", "gemm", **NO_COMPILER)
        self.assertEqual(r.returncode, 1)
        self.assertIn("is damaged", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotIn("grid null", r.stdout)
        # With the compiler: recompiled, a valid manifest printed.
        r = self.fmha("compile", "gemm")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("compiling it again", r.stderr)
        self.assertIn("block [384, 1, 1]", r.stdout)

    def test_cli_honours_fmha_verbose(self):
        r = self.fmha("compile", "gemm", FMHA_VERBOSE="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pass  1: fake-pass", r.stderr)
        r = self.fmha("compile", "gemm", "--force", FMHA_VERBOSE="0")
        self.assertNotIn("pass  1", r.stderr)


class ConcurrencyTest(FakeCompilerCase):
    def start(self, role, seconds, seed, **extra):
        return subprocess.Popen(
            [sys.executable, "-m", "tests.cache_worker", role, str(seconds),
             str(seed), str(self.root)], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=self.run_env(**extra),
            cwd=ROOT)

    def results(self, procs) -> list:
        out = []
        for p in procs:
            stdout, stderr = p.communicate(timeout=STRESS_SECONDS + 120)
            self.assertEqual(p.returncode, 0, stderr)
            out.append(json.loads(stdout.strip().splitlines()[-1]))
        return out

    def test_one_compile_per_spec_across_processes(self):
        # Four processes ask for the same two kernels at once; each compile
        # takes 1 s: one process compiles each, the others wait for it.
        procs = [self.start("compile", 0.01, seed, FAKE_COMPILER_DELAY="1")
                 for seed in range(4)]
        results = self.results(procs)
        self.assertEqual([r["failures"] for r in results], [[]] * 4)
        names = [line.split()[1] for line in self.compiles()]
        self.assertEqual(len(names), len(set(names)), names)

    def test_compile_force_and_lookup_at_once(self):
        # Every kernel in the cache first, so a lookup without a compiler
        # must always find one; then compiles, forced recompiles and
        # compiler-less lookups of the same kernels for a while.
        for spec in cache_worker.SPECS:
            self.compile(spec)
        before = len(self.compiles())
        procs = [self.start(role, STRESS_SECONDS, seed, **env)
                 for seed, (role, env) in enumerate(
                     [("compile", {}), ("force", {}), ("force", {}),
                      ("lookup", NO_COMPILER), ("lookup", NO_COMPILER),
                      ("compile", {})])]
        results = self.results(procs)
        failures = [f for r in results for f in r["failures"]]
        ops = {r["role"]: 0 for r in results}
        for r in results:
            ops[r["role"]] += r["ops"]
        print(f"\ncache stress, {STRESS_SECONDS:.0f} s: {ops} operations, "
              f"{len(self.compiles()) - before} compiles, "
              f"{len(failures)} failures", file=sys.stderr)
        self.assertEqual(failures, [])
        # Each kind ran (counts vary with the machine's load).
        self.assertEqual(sorted(ops), ["compile", "force", "lookup"])
        self.assertTrue(all(n >= 1 for n in ops.values()), ops)
        # Every entry is valid at the end, and nothing temporary is left.
        for spec in cache_worker.SPECS:
            self.assertTrue(self.compile(spec, env=NO_COMPILER).cache_hit)
        self.assertEqual([p.name for p in self.root.iterdir()
                          if p.name.startswith(cache.TMP_PREFIX)], [])


TOOLS = tools.find_tools()


@unittest.skipUnless(TOOLS.compiler and TOOLS.ptxas,
                     "needs fmha-opt, fmha-translate and ptxas")
class RealCompilerTest(unittest.TestCase):
    def test_two_processes_compile_once(self):
        """Two `fmha compile` of one spec at once with the real tools: one
        compiles, the other waits and finds the entry."""
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=ROOT)
            cmd = [sys.executable, "-m", "fmha", "compile", "gemm", "--dtype",
                   "f16", "--cache-dir", str(Path(tmp) / "cache")]
            procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True,
                                      env=env) for _ in range(2)]
            outs = [p.communicate(timeout=600) for p in procs]
            self.assertEqual([p.returncode for p in procs], [0, 0], outs)
            text = " ".join(o for o, _ in outs)
            self.assertEqual(text.count("compiled in"), 1, text)
            self.assertEqual(text.count("found in the cache"), 1, text)


if __name__ == "__main__":
    unittest.main()
