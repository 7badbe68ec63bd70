"""The ``fmha`` command (``python -m fmha``), run as a subprocess with a
temporary cache. The compile tests skip themselves without the tools."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from fmha import tools
from fmha.specs import GemmSpec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = tools.find_tools()
NEEDS_TOOLS = unittest.skipUnless(TOOLS.compiler and TOOLS.ptxas,
                                  "needs fmha-opt, fmha-translate and ptxas")


class CliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.cache = self.tmp / "cache"

    def tearDown(self):
        self._tmp.cleanup()

    def fmha(self, *args, env=None):
        full_env = dict(os.environ, PYTHONPATH=ROOT,
                        FMHA_CACHE_DIR=str(self.cache), **(env or {}))
        return subprocess.run([sys.executable, "-m", "fmha", *args],
                              capture_output=True, text=True, env=full_env,
                              timeout=300, check=False)

    def test_version(self):
        r = self.fmha("version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("fmha 0.1.0", r.stdout)
        self.assertIn(f"cache: {self.cache}", r.stdout)
        self.assertIn("compiler:", r.stdout)
        r = self.fmha("version", env={"FMHA_OPT": "/nonexistent"})
        self.assertIn("compiler: not found", r.stdout)
        self.assertIn("FMHA_OPT=/nonexistent", r.stdout)

    def test_empty_cache(self):
        r = self.fmha("cache", "list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(0 entries, 0 B)", r.stdout)
        r = self.fmha("cache", "clear")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("removed 0 entries", r.stdout)
        r = self.fmha("cache", "dir", "--cache-dir", str(self.tmp / "x"))
        self.assertEqual(r.stdout.strip(), str(self.tmp / "x"))

    def test_usage_errors(self):
        r = self.fmha("compile", "gemm", "--tile", "1,2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("tile must have 3 entries", r.stderr)
        r = self.fmha("compile", "gemm", "--dtype", "f32")
        self.assertEqual(r.returncode, 2)
        r = self.fmha("frobnicate")
        self.assertEqual(r.returncode, 2)

    def test_ranges(self):
        """Every number is range-checked with the field and the limit (exit
        2, no traceback); negative values are values, not options."""
        for args, text in (
                (("--window", "-1,0"), "window[0] must be in [0, 2147483647], "
                 "got -1: no negative value means unbounded"),
                (("--window", "4294967296,0"), "window[0] must be in [0, "
                 "2147483647] (an i32 in the kernel and its manifest), got "
                 "4294967296"),
                (("--window=0,-5",), "window[1] must be in [0, 2147483647]"),
                (("--scale", "1e300"), "scale must be a normal float32, in "
                 "[1.1754944e-38, 3.4028235e+38] (the kernel computes in "
                 "float32), got 1e+300"),
                (("--scale", "4.9e-324"), "scale must be a normal float32"),
                (("--scale", "-0.5"), "scale must be > 0 and finite"),
                (("--scale", "nan"), "scale must be > 0 and finite"),
                (("--seq-q", "2147483648"), "seq_q must be in [1, 2147483647]"),
                (("--batch", "-3"), "batch must be in [1, 2147483647]"),
                (("--tile", "64,-16"), "tile[1] must be in [1, 2147483647]")):
            with self.subTest(args=args):
                r = self.fmha("compile", "attention", *args,
                              env={"FMHA_OPT": "/nonexistent"})
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(text, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
        r = self.fmha("compile", "attention", "--varlen", "--seq-q", "128",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 2)
        self.assertIn("seq_q must be None with varlen=True", r.stderr)
        r = self.fmha("compile", "attention", "--varlen", "--causal",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_bf16_d128_causal_varlen (sm_90a) is not in "
                      "the cache", r.stderr)
        r = self.fmha("compile", "attention", "--page-size", "64",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 2)
        self.assertIn("page_size needs kvcache=True", r.stderr)
        r = self.fmha("compile", "attention", "--kvcache", "--page-size",
                      "16", "--causal", env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_bf16_d128_causal_kvcache_p16 (sm_90a) is "
                      "not in the cache", r.stderr)
        r = self.fmha("compile", "attention", "--kvcache", "--pack-gqa",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 2)
        self.assertIn("pack_gqa needs static heads_q and heads_kv", r.stderr)
        r = self.fmha("compile", "attention", "--kvcache", "--pack-gqa",
                      "--split-kv", "--heads-q", "32", "--heads-kv", "8",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_bf16_d128_hq32_hkv8_kvcache_pk_skv (sm_90a) "
                      "is not in the cache", r.stderr)
        r = self.fmha("compile", "gemm", "--k", "4294967296",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 2)
        self.assertIn("k must be in [1, 2147483647]", r.stderr)

    def test_defaults_are_the_api_rule(self):
        # `--dtype f16` alone is GemmSpec(dtype="f16"): an f16 output, as
        # fmha.gemm on f16 tensors gives; looked up without a compiler the
        # miss names that kernel.
        r = self.fmha("compile", "gemm", "--dtype", "f16",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"{GemmSpec(dtype='f16').name} (sm_90a) is not in the "
                      "cache", r.stderr)
        self.assertIn("gemm_f16_f16_128x128x64_c2", r.stderr)
        r = self.fmha("compile", "gemm", "--help")
        self.assertIn("sm_100a", r.stdout)

    def test_attention_backward(self):
        # The spec's checks name the field (exit 2); without a compiler the
        # miss names the kernel (exit 1).
        r = self.fmha("compile", "attention-backward", "--head-dim", "256")
        self.assertEqual(r.returncode, 2)
        self.assertIn("head_dim 256 has no attention backward yet", r.stderr)
        r = self.fmha("compile", "attention-backward", "--target", "sm_100a")
        self.assertEqual(r.returncode, 2)
        self.assertIn("target sm_100a has no attention backward", r.stderr)
        r = self.fmha("compile", "attention-backward", "--dtype", "f16",
                      "--head-dim", "64", "--causal", "--window", "64,0",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_backward_f16_d64_causal_w64_0 (sm_90a) is "
                      "not in the cache", r.stderr)
        r = self.fmha("compile", "attention-backward", "--varlen",
                      "--seq-q", "128")
        self.assertEqual(r.returncode, 2)
        self.assertIn("seq_q must be None with varlen=True", r.stderr)
        r = self.fmha("compile", "attention-backward", "--varlen", "--causal",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_backward_bf16_d128_varlen_causal (sm_90a) "
                      "is not in the cache", r.stderr)

    def test_attention_fp8(self):
        # fp8 attention's fields: without a compiler the miss names the
        # kernel (exit 1); fp8-only options on bf16 are usage errors (2).
        r = self.fmha("compile", "attention", "--dtype", "f8e4m3",
                      "--causal", "--transpose-v", "--out-dtype", "f16",
                      env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_f8e4m3_d128_f16_causal_tv (sm_90a) is not "
                      "in the cache", r.stderr)
        r = self.fmha("compile", "attention", "--dtype", "f8e4m3",
                      "--head-descales", env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("attention_f8e4m3_d128_bf16_hdesc (sm_90a)", r.stderr)
        r = self.fmha("compile", "attention", "--transpose-v")
        self.assertEqual(r.returncode, 2)
        self.assertIn("transpose_v is for fp8 attention only", r.stderr)

    def test_miss_without_compiler(self):
        r = self.fmha("compile", "gemm", env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("not in the cache", r.stderr)

    @NEEDS_TOOLS
    def test_compile_list_clear(self):
        out = self.tmp / "out"
        r = self.fmha("compile", "gemm", "--dtype", "bf16", "-o", str(out))
        self.assertEqual(r.returncode, 0, r.stderr)
        name = GemmSpec().name
        self.assertIn(f"{name} (sm_90a): compiled in", r.stdout)
        self.assertIn("block [384, 1, 1]", r.stdout)
        self.assertIn("dynamic smem", r.stdout)
        self.assertIn("registers", r.stdout)
        self.assertIn(f"[1/4] {name} (sm_90a): fmha-opt", r.stderr)
        self.assertIn(f"[4/4] {name} (sm_90a): ptxas", r.stderr)
        self.assertNotIn("pass  1", r.stderr)
        manifest = json.loads((out / f"{name}.json").read_text())
        self.assertTrue((out / manifest["cubin"]).is_file())
        # The same spec again: a cache hit, nothing compiled.
        r = self.fmha("compile", "gemm")
        self.assertIn("found in the cache", r.stdout)
        self.assertNotIn("[1/4]", r.stderr)
        # Also with no compiler at all (a GPU machine with a copied cache).
        r = self.fmha("compile", "gemm", env={"FMHA_OPT": "/nonexistent"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("found in the cache", r.stdout)
        # An f32 output with the default stages (the compiler's: the most
        # that fit) compiles.
        r = self.fmha("compile", "gemm", "--out-dtype", "f32", "--m", "?",
                      "--n", "256")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gemm_bf16_f32_128x128x64_c2_n256 (sm_90a)",
                      r.stdout)
        r = self.fmha("cache", "list")
        self.assertIn("(2 entries", r.stdout)
        self.assertIn(name, r.stdout)
        self.assertIn("fmha version", r.stdout)
        r = self.fmha("cache", "clear")
        self.assertIn("removed 2 entries", r.stdout)
        self.assertIn("(0 entries", self.fmha("cache", "list").stdout)

    @NEEDS_TOOLS
    def test_verbose_lists_the_passes(self):
        r = self.fmha("compile", "gemm", "--dtype", "f16", "-v")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pass  1: fmha-verify-target", r.stderr)
        self.assertIn("pass  2: fmha-expand-kernels", r.stderr)
        self.assertIn("convert-ws-to-nvvm", r.stderr)

    @NEEDS_TOOLS
    def test_compile_error(self):
        r = self.fmha("compile", "attention", "--head-dim", "256",
                      "--stages", "8")
        self.assertEqual(r.returncode, 1)
        self.assertIn("error:", r.stderr)
        r = self.fmha("compile", "gemm", "--out-dtype", "f32", "--stages", "3")
        self.assertEqual(r.returncode, 1)
        self.assertIn("bytes of shared memory", r.stderr)


if __name__ == "__main__":
    unittest.main()
