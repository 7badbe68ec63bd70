"""fmha.attention_varlen_backward without a GPU: the argument checks of
the front door, the check that a varlen forward autograd records has a
backward, the launch arguments (caller sizes B, MAXQ, MAXK and the scratch
tensor they size) on a varlen backward manifest through the runtime, and,
with the built tools, the op's text through fmha-opt and its compiled
manifest."""

import copy
import subprocess
import tempfile
import unittest
from pathlib import Path

import fmha
from fmha import compiler, tools, varlen_backward
from fmha.runtime import Kernel
from fmha.runtime.manifest import parse_manifest
from fmha.specs import AttentionBackwardSpec
from fmha.varlen_backward import check_varlen_backward_args, launch_args

from .fakes import FakeDriver, view
from .test_backward import FakeTensor, FakeTorch

TOOLS = tools.find_tools()
NEEDS_TOOLS = unittest.skipUnless(
    TOOLS.compiler and TOOLS.ptxas,
    f"needs fmha-opt, fmha-translate and ptxas "
    f"({TOOLS.missing() or TOOLS.ptxas.problem})")


def shapes(TQ=300, TK=170, B=3, H=8, HKV=2, D=128):
    q = (TQ, H, D)
    return {"q": q, "k": (TK, HKV, D), "v": (TK, HKV, D), "o": q, "do": q,
            "lse": (H, TQ), "cu_seqlens_q": (B + 1,),
            "cu_seqlens_k": (B + 1,)}


DTYPES = {"q": "bf16", "k": "bf16", "v": "bf16", "o": "bf16", "do": "bf16",
          "lse": "f32", "cu_seqlens_q": "i32", "cu_seqlens_k": "i32"}


class ArgsTest(unittest.TestCase):
    def check(self, error, pattern, changes=None, dtypes=None, maxima=(200,
              100), **options):
        s = shapes()
        s.update(changes or {})
        d = dict(DTYPES)
        d.update(dtypes or {})
        with self.assertRaisesRegex(error, pattern):
            check_varlen_backward_args(s, d, *maxima, **options)

    def test_valid(self):
        check_varlen_backward_args(shapes(), DTYPES, 200, 100)
        check_varlen_backward_args(shapes(HKV=1, D=64), DTYPES, 0, 0,
                                   causal=True, window=(16, 0), scale=0.2)
        # Empty batches and heads pass the checks (the front door returns
        # zeros without a launch).
        check_varlen_backward_args(shapes(TQ=0, TK=0, B=0, H=0), DTYPES, 0,
                                   0)

    def test_errors(self):
        what = "fmha.attention_varlen_backward: "
        self.check(ValueError, what + "head_dim must be 64 or 128 \\(256 "
                   "has no backward yet", shapes(D=256))
        self.check(ValueError, "head_dim must be 64 or 128", shapes(D=96))
        self.check(TypeError, "fp8 attention has no backward",
                   dtypes={"q": "f8e4m3"})
        self.check(TypeError, what + "q, k, v must have one dtype",
                   dtypes={"k": "f16"})
        self.check(TypeError, what + "cu_seqlens_k must be int32",
                   dtypes={"cu_seqlens_k": None})
        self.check(TypeError, "max_seqlen_k must be an int",
                   maxima=(200, 1.5))
        self.check(ValueError, what + "q must be \\[total_q, heads_q, "
                   "head_dim\\]", {"q": (1, 300, 8, 128)})
        self.check(ValueError, "heads_q \\(8\\) must be a multiple of "
                   "heads_kv \\(3\\)", shapes(HKV=3))
        self.check(ValueError, "cu_seqlens_q and cu_seqlens_k must have one "
                   "size", {"cu_seqlens_k": (5,)})
        self.check(TypeError, "do must have q's dtype bf16, got f16",
                   dtypes={"do": "f16"})
        self.check(TypeError, "o must have q's dtype bf16, got another "
                   "type", dtypes={"o": None})
        self.check(ValueError, "o must have q's shape \\[300, 8, 128\\], "
                   "got \\[299, 8, 128\\]", {"o": (299, 8, 128)})
        self.check(ValueError, "do must be \\[total_q, heads_q, "
                   "head_dim\\] as q", {"do": (1, 300, 8, 128)})
        self.check(ValueError, what + "lse must be \\[heads_q, total_q\\] = "
                   "\\[8, 300\\], got \\[300, 8\\]", {"lse": (300, 8)})
        self.check(ValueError, "lse must be \\[heads_q, total_q\\] \\(the "
                   "forward's", {"lse": (1, 8, 300)})
        self.check(TypeError, "lse must be float32", dtypes={"lse": "bf16"})
        self.check(ValueError, "a causal window sees no key after",
                   causal=True, window=(4, 2))
        self.check(ValueError, "scale must be > 0", scale=-1.0)


class GradCheckTest(unittest.TestCase):
    """A varlen forward without a backward raises when autograd would
    record it, before anything runs."""

    def test_head_dim(self):
        big = FakeTensor((64, 4, 256), True)
        plain = FakeTensor((64, 4, 256), False)
        with self.assertRaisesRegex(NotImplementedError,
                                    "fmha.attention_varlen: head_dim 256 "
                                    "has no backward yet"):
            varlen_backward.check_grad_supported(FakeTorch(True), big, plain,
                                                 plain)
        varlen_backward.check_grad_supported(FakeTorch(False), big, big, big)
        varlen_backward.check_grad_supported(FakeTorch(True), plain, plain,
                                             plain)
        for head_dim in (64, 128):
            ok = FakeTensor((64, 4, head_dim), True)
            varlen_backward.check_grad_supported(FakeTorch(True), ok, ok, ok)


def _map(tensor, box):
    return {"kind": "tensor_map", "tensor": tensor, "box": box,
            "swizzle": 128, "dims": [1, 0, 2]}


_SCALARS = [{"kind": "scalar", "dtype": "i32", "value": v}
            for v in ("B", "MAXQ", "MAXK", "TQ", "TK")]

# A manifest of the varlen backward's shape (bf16, head dim 128, 8 query
# heads on 2 KV heads): the prep, dK/dV and dQ kernels, caller sizes B,
# MAXQ, MAXK and the scratch d_lse sized by them.
VARLEN_BACKWARD = {
    "format": "fmha-manifest/1",
    "name": "attention_backward_bf16_d128_varlen",
    "target": "sm_90a",
    "cubin": "attention_backward_bf16_d128_varlen.sm_90a.cubin",
    "tensors": {
        "q": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "input"},
        "k": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "input"},
        "v": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "input"},
        "o": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "input"},
        "do": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "input"},
        "lse": {"shape": [8, "TQ"], "dtype": "f32", "role": "input"},
        "cu_seqlens_q": {"shape": ["B1"], "dtype": "i32", "role": "input"},
        "cu_seqlens_k": {"shape": ["B1"], "dtype": "i32", "role": "input"},
        "dq": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "output"},
        "dk": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "output"},
        "dv": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "output"},
        "d_lse": {"shape": ["B", 8, 2, {"mul": [{"ceildiv": ["MAXQ", 64]},
                                                64]}],
                  "dtype": "f32", "role": "scratch"},
    },
    "sizes": ["B", "MAXQ", "MAXK"],
    "launches": [
        {"entry": "attention_backward_bf16_d128_varlen_prep",
         "block": [128, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 0,
         "grid": [{"ceildiv": ["MAXQ", 64]}, 8, "B"],
         "params": [{"kind": "memref", "tensor": n}
                    for n in ("o", "do", "lse", "cu_seqlens_q", "d_lse")]
         + _SCALARS},
        {"entry": "attention_backward_bf16_d128_varlen_dkdv",
         "block": [384, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 131120,
         "grid": [{"ceildiv": ["MAXK", 128]}, 2, "B"],
         "params": [_map(n, [64, 64]) for n in ("q", "k", "v", "do")]
         + [{"kind": "memref", "tensor": n}
            for n in ("d_lse", "cu_seqlens_q", "cu_seqlens_k", "dk", "dv")]
         + _SCALARS},
        {"entry": "attention_backward_bf16_d128_varlen_dq",
         "block": [384, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 131120,
         "grid": [{"ceildiv": ["MAXQ", 128]}, 8, "B"],
         "params": [_map(n, [64, 64]) for n in ("q", "k", "v", "do")]
         + [{"kind": "memref", "tensor": n}
            for n in ("d_lse", "cu_seqlens_q", "cu_seqlens_k", "dq")]
         + _SCALARS},
    ],
}


def given(TQ=1100, TK=1300, B=3, H=8, HKV=2, D=128):
    """The front door's tensors of a call (fake views)."""
    return {n: view(s, DTYPES.get(n, "bf16"))
            for n, s in dict(shapes(TQ, TK, B, H, HKV, D),
                             dq=(TQ, H, D), dk=(TK, HKV, D),
                             dv=(TK, HKV, D)).items()}


class LaunchArgsTest(unittest.TestCase):
    def kernel(self, manifest=VARLEN_BACKWARD):
        self.driver = FakeDriver()
        return Kernel(parse_manifest(copy.deepcopy(manifest)), b"CUBIN",
                      self.driver)

    def test_sizes_and_scratch(self):
        kernel = self.kernel()
        tensors, sizes, scratch = launch_args(
            kernel, given(), {"B": 3, "MAXQ": 1000, "MAXK": 700})
        self.assertEqual(list(tensors), list(varlen_backward._TENSORS))
        self.assertEqual(sizes, {"B": 3, "MAXQ": 1000, "MAXK": 700})
        # d_lse: [B, heads_q, 2, MAXQ rounded up to 64].
        self.assertEqual(scratch, {"d_lse": ((3, 8, 2, 1024), "scratch",
                                             "f32")})
        for name, (shape, _, dtype) in scratch.items():
            tensors[name] = view(shape, dtype)
        kernel.launch({**tensors, **sizes})
        grids = [c[2] for c in self.driver.calls if c[0] == "launch"]
        self.assertEqual(grids, [(16, 8, 3), (6, 2, 3), (8, 8, 3)])

    def test_only_what_the_manifest_names(self):
        manifest = copy.deepcopy(VARLEN_BACKWARD)
        manifest["sizes"] = ["B", "MAXQ"]
        for step in manifest["launches"]:
            step["params"] = [p for p in step["params"]
                              if p.get("value") != "MAXK"]
        manifest["launches"][1]["grid"][0] = {"ceildiv": ["TK", 128]}
        del manifest["tensors"]["o"]
        manifest["launches"][0]["params"].pop(0)
        kernel = self.kernel(manifest)
        tensors, sizes, scratch = launch_args(
            kernel, given(), {"B": 3, "MAXQ": 17, "MAXK": 700})
        self.assertNotIn("o", tensors)
        self.assertEqual(sizes, {"B": 3, "MAXQ": 17})
        self.assertEqual(scratch["d_lse"][0], (3, 8, 2, 64))

    def test_bound_launch(self):
        """The fast path's binding: the caller's tensors then the scratch
        tensors in order, the sizes fixed for later runs."""
        kernel = self.kernel()
        tensors, sizes, scratch = launch_args(
            kernel, given(), {"B": 3, "MAXQ": 1000, "MAXK": 700})
        for name, (shape, _, dtype) in scratch.items():
            tensors[name] = view(shape, dtype)
        order = tuple(tensors)
        bound = kernel.bind({**tensors, **sizes}, order=order)
        ptrs = tuple(0x7F0000000000 + 0x1000000 * i
                     for i in range(len(order)))
        bound.run(ptrs, 0)
        launched = [c for c in self.driver.calls if c[0] == "launch"]
        self.assertEqual(len(launched), 3)


@NEEDS_TOOLS
class CompiledTest(unittest.TestCase):
    """The op's text through the compiler; the manifest of its kernels
    through the runtime, with the front door's tensors and sizes."""

    def test_op_text_verifies(self):
        spec = AttentionBackwardSpec(dtype="f16", head_dim=64, heads_q=8,
                                     heads_kv=2, causal=True,
                                     window=(32, 0), scale=0.2, varlen=True)
        subprocess.run([TOOLS.opt.path, "-"], input=spec.to_mlir().encode(),
                       check=True, capture_output=True)

    def test_front_door_arguments_cover_the_manifest(self):
        with tempfile.TemporaryDirectory() as tmp:
            compiler.clear_memo()
            kernel = fmha.compile(
                AttentionBackwardSpec(causal=True, varlen=True),
                cache_dir=Path(tmp) / "cache",
                progress=lambda message: None)
            compiler.clear_memo()
        m = kernel.manifest
        self.assertEqual([s.entry.rsplit("_", 1)[-1] for s in m.steps],
                         ["prep", "dkdv", "dq"])
        caller = {n for n, t in m.tensors.items() if not t.scratch}
        self.assertLessEqual(caller, set(varlen_backward._TENSORS))
        self.assertLessEqual(set(m.sizes), {"B", "MAXQ", "MAXK"})
        self.assertEqual(m.tensors["d_lse"].role, "scratch")
        driver = FakeDriver()
        runtime = Kernel(m, b"CUBIN", driver)
        tensors, sizes, scratch = launch_args(
            runtime, given(), {"B": 3, "MAXQ": 1000, "MAXK": 700})
        self.assertEqual(scratch["d_lse"][0][:3], (3, 8, 2))
        self.assertGreaterEqual(scratch["d_lse"][0][3], 1000)
        for name, (shape, _, dtype) in scratch.items():
            tensors[name] = view(shape, dtype)
        runtime.launch({**tensors, **sizes})
        launched = [c for c in driver.calls if c[0] == "launch"]
        self.assertEqual(len(launched), len(m.steps))


if __name__ == "__main__":
    unittest.main()
