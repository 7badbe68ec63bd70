"""fmha.attention_backward without a GPU: its spec (rendering, checks,
cache form), the argument checks of the front door, and, with the built
tools, the op's text through fmha-opt and its kernels' manifest through the
runtime (a manifest of several launches whose tensors the front door
provides)."""

import subprocess
import tempfile
import unittest
from pathlib import Path

import fmha
from fmha import backward, compiler, tools
from fmha.runtime import Kernel
from fmha.specs import AttentionBackwardSpec, spec_from_dict

from .fakes import FakeDriver, view

TOOLS = tools.find_tools()
NEEDS_TOOLS = unittest.skipUnless(
    TOOLS.compiler and TOOLS.ptxas,
    f"needs fmha-opt, fmha-translate and ptxas "
    f"({TOOLS.missing() or TOOLS.ptxas.problem})")


class SpecTest(unittest.TestCase):
    def test_default_rendering(self):
        spec = AttentionBackwardSpec()
        self.assertEqual(spec.name, "attention_backward_bf16_d128")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention_backward @attention_backward_bf16_d128 "
            "(tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, "
            "tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, "
            "tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) -> "
            "(tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, "
            "tensor<?x?x?x128xbf16>)\n    target sm_90a\n")

    def test_full_rendering(self):
        spec = AttentionBackwardSpec(dtype="f16", head_dim=64, heads_q=32,
                                     heads_kv=8, causal=True,
                                     window=[256, 0], scale=0.125,
                                     tile=[64, 128])
        self.assertEqual(spec.window, (256, 0))
        self.assertEqual(spec.name, "attention_backward_f16_d64_hq32_hkv8_"
                         "causal_w256_0_64x128")
        text = spec.to_mlir()
        self.assertIn("(tensor<?x32x?x64xf16>, tensor<?x8x?x64xf16>, "
                      "tensor<?x8x?x64xf16>, tensor<?x32x?x64xf16>, "
                      "tensor<?x32x?x64xf16>, tensor<?x32x?xf32>) -> "
                      "(tensor<?x32x?x64xf16>, tensor<?x8x?x64xf16>, "
                      "tensor<?x8x?x64xf16>)", text)
        self.assertTrue(text.endswith(
            "    causal window [256, 0] scale 0.125 tile [64, 128] "
            "target sm_90a\n"))

    def test_dict_round_trip(self):
        spec = AttentionBackwardSpec(causal=True, window=(8, 0), scale=0.1)
        data = spec.to_dict()
        self.assertEqual(data["kind"], "attention_backward")
        self.assertEqual(spec_from_dict(data), spec)

    def test_validation(self):
        for fields, error, pattern in (
                ({"head_dim": 256}, ValueError,
                 "head_dim 256 has no attention backward yet"),
                ({"head_dim": 96}, ValueError, "head_dim must be one of"),
                ({"target": "sm_100a"}, ValueError,
                 "target sm_100a has no attention backward yet"),
                ({"dtype": "f8e4m3"}, ValueError, "dtype must be one of"),
                ({"causal": 1}, TypeError, "causal must be a bool"),
                ({"window": (-1, 0)}, ValueError, "window\\[0\\]"),
                ({"scale": 0.0}, ValueError, "scale must be > 0"),
                ({"tile": (64,)}, ValueError, "tile must have 2 entries"),
                ({"seq_q": 0}, ValueError, "seq_q must be in")):
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(error, pattern):
                    AttentionBackwardSpec(**fields)

    def test_fused_dq_rendering(self):
        spec = AttentionBackwardSpec(causal=True, fused_dq=True,
                                     tile=(64, 128))
        self.assertEqual(spec.name,
                         "attention_backward_bf16_d128_causal_fdq_64x128")
        self.assertTrue(spec.to_mlir().endswith(
            "    causal fused_dq tile [64, 128] target sm_90a\n"))
        self.assertTrue(AttentionBackwardSpec(fused_dq=True).to_mlir()
                        .endswith("    fused_dq target sm_90a\n"))
        with self.assertRaisesRegex(TypeError, "fused_dq must be a bool"):
            AttentionBackwardSpec(fused_dq=1)

    def test_varlen_rendering(self):
        spec = AttentionBackwardSpec(causal=True, varlen=True)
        self.assertEqual(spec.name,
                         "attention_backward_bf16_d128_varlen_causal")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention_backward "
            "@attention_backward_bf16_d128_varlen_causal "
            "(tensor<?x?x128xbf16>, tensor<?x?x128xbf16>, "
            "tensor<?x?x128xbf16>, tensor<?x?x128xbf16>, "
            "tensor<?x?x128xbf16>, tensor<?x?xf32>, tensor<?xi32>, "
            "tensor<?xi32>) -> (tensor<?x?x128xbf16>, "
            "tensor<?x?x128xbf16>, tensor<?x?x128xbf16>)\n"
            "    varlen causal target sm_90a\n")
        # Static head counts, and varlen before every other keyword.
        spec = AttentionBackwardSpec(dtype="f16", head_dim=64, heads_q=32,
                                     heads_kv=8, window=(128, 0),
                                     scale=0.125, tile=(64, 128),
                                     varlen=True)
        self.assertEqual(spec.name, "attention_backward_f16_d64_hq32_hkv8_"
                         "varlen_w128_0_64x128")
        text = spec.to_mlir()
        self.assertIn("(tensor<?x32x64xf16>, tensor<?x8x64xf16>, "
                      "tensor<?x8x64xf16>, tensor<?x32x64xf16>, "
                      "tensor<?x32x64xf16>, tensor<32x?xf32>, "
                      "tensor<?xi32>, tensor<?xi32>) -> "
                      "(tensor<?x32x64xf16>, tensor<?x8x64xf16>, "
                      "tensor<?x8x64xf16>)", text)
        self.assertTrue(text.endswith(
            "    varlen window [128, 0] scale 0.125 tile [64, 128] "
            "target sm_90a\n"))

    def test_varlen_dict(self):
        # A dense spec's cache key does not change with the field's
        # arrival; a varlen one round-trips.
        self.assertNotIn("varlen", AttentionBackwardSpec().to_dict())
        spec = AttentionBackwardSpec(varlen=True, window=(8, 0))
        self.assertTrue(spec.to_dict()["varlen"])
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)

    def test_varlen_validation(self):
        for fields, error, pattern in (
                ({"fused_dq": True}, ValueError,
                 "fused_dq and varlen exclude each other"),
                ({"batch": 2}, ValueError, "batch must be None with "
                 "varlen=True"),
                ({"seq_q": 128}, ValueError, "seq_q must be None"),
                ({"seq_k": 128}, ValueError, "seq_k must be None"),
                ({"varlen": 1}, TypeError, "varlen must be a bool")):
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(error, pattern):
                    AttentionBackwardSpec(**{"varlen": True, **fields})

    def test_front_door_spec(self):
        # The default scale, however spelled, is the default kernel; dq is
        # fused at head dim 64, and at 128 from 1024 keys, unless the call
        # is deterministic.
        self.assertEqual(backward.backward_spec("bf16", 128, scale=128**-0.5),
                         AttentionBackwardSpec())
        self.assertEqual(backward.backward_spec("bf16", 64),
                         AttentionBackwardSpec(head_dim=64, fused_dq=True))
        self.assertEqual(backward.backward_spec("f16", 64, True, [4, 0],
                                                0.3, deterministic=True),
                         AttentionBackwardSpec(dtype="f16", head_dim=64,
                                               causal=True, window=(4, 0),
                                               scale=0.3))
        self.assertEqual(
            [s.fused_dq for s in backward.backward_kernel_specs("bf16", 64)],
            [True, False])
        self.assertEqual(
            [s.fused_dq for s in backward.backward_kernel_specs("bf16", 128)],
            [False, True])
        # Head dim 128 fuses dq from 1024 keys (FUSED_DQ_MIN_KEYS).
        self.assertTrue(backward.backward_spec("bf16", 128,
                                               seq_k=1024).fused_dq)
        self.assertFalse(backward.backward_spec("bf16", 128,
                                                seq_k=1023).fused_dq)
        self.assertFalse(backward.backward_spec(
            "bf16", 128, deterministic=True, seq_k=4096).fused_dq)
        self.assertTrue(backward.backward_spec("bf16", 64, seq_k=1).fused_dq)
        # varlen: dQ by its own kernel, deterministic or not.
        self.assertEqual(backward.backward_spec("bf16", 64, True,
                                                varlen=True),
                         AttentionBackwardSpec(head_dim=64, causal=True,
                                               varlen=True))
        self.assertEqual(
            backward.backward_kernel_specs("f16", 64, varlen=True),
            [AttentionBackwardSpec(dtype="f16", head_dim=64, varlen=True)])


def shapes(B=2, H=8, HKV=2, SQ=300, SK=17, D=128):
    q = (B, H, SQ, D)
    return {"q": q, "k": (B, HKV, SK, D), "v": (B, HKV, SK, D), "o": q,
            "do": q, "lse": (B, H, SQ)}


DTYPES = {"q": "bf16", "k": "bf16", "v": "bf16", "o": "bf16", "do": "bf16",
          "lse": "f32"}


class CheckTest(unittest.TestCase):
    def check(self, error, pattern, changes=None, dtypes=None, **options):
        s = shapes()
        s.update(changes or {})
        d = dict(DTYPES)
        d.update(dtypes or {})
        with self.assertRaisesRegex(error, pattern):
            backward.check_backward_args(s, d, **options)

    def test_valid(self):
        backward.check_backward_args(shapes(), DTYPES)
        backward.check_backward_args(shapes(HKV=1, D=64), DTYPES,
                                     causal=True, window=(16, 0), scale=0.2)

    def test_errors(self):
        self.check(ValueError, "head_dim must be 64 or 128 \\(256 has no "
                   "backward yet", shapes(D=256))
        self.check(ValueError, "head_dim must be 64 or 128",
                   shapes(D=96))
        self.check(TypeError, "fp8 attention has no backward",
                   dtypes={"q": "f8e4m3"})
        self.check(TypeError, "q, k, v must have one dtype",
                   dtypes={"k": "f16"})
        self.check(TypeError, "do must have q's dtype bf16, got f16",
                   dtypes={"do": "f16"})
        self.check(TypeError, "o must have q's dtype bf16, got another "
                   "type", dtypes={"o": None})
        self.check(TypeError, "lse must be float32", dtypes={"lse": "bf16"})
        self.check(ValueError, "o must have q's shape",
                   {"o": (2, 8, 299, 128)})
        self.check(ValueError, "do must be \\[batch, heads_q, seq_q, "
                   "head_dim\\]", {"do": (8, 300, 128)})
        self.check(ValueError, "lse must be \\[batch, heads_q, seq_q\\] = "
                   "\\[2, 8, 300\\], got \\[2, 8, 301\\]",
                   {"lse": (2, 8, 301)})
        self.check(ValueError, "lse must be \\[batch, heads_q, seq_q\\] "
                   "\\(the forward's", {"lse": (2, 8, 300, 1)})
        self.check(ValueError, "heads_q \\(8\\) must be a multiple of "
                   "heads_kv \\(3\\)", shapes(HKV=3))
        self.check(ValueError, "a causal window sees no key after",
                   causal=True, window=(4, 2))
        self.check(ValueError, "scale must be > 0", scale=-1.0)


class FakeTorch:
    """What backward.needs_grad asks of torch."""

    def __init__(self, grad):
        self.grad = grad

    def is_grad_enabled(self):
        return self.grad


class FakeTensor:
    def __init__(self, shape, requires_grad):
        self.shape = shape
        self.requires_grad = requires_grad

    def dim(self):
        return len(self.shape)


class GradCheckTest(unittest.TestCase):
    """Calls without a backward raise when autograd would record them,
    before anything runs."""

    def test_head_dim(self):
        big = FakeTensor((1, 4, 64, 256), True)
        plain = FakeTensor((1, 4, 64, 256), False)
        with self.assertRaisesRegex(NotImplementedError, "fmha.attention: "
                                    "head_dim 256 has no backward yet"):
            backward.check_grad_supported(FakeTorch(True), plain, big, plain)
        # No gradient recorded: inference is fine.
        backward.check_grad_supported(FakeTorch(False), big, big, big)
        backward.check_grad_supported(FakeTorch(True), plain, plain, plain)
        ok = FakeTensor((1, 4, 64, 128), True)
        backward.check_grad_supported(FakeTorch(True), ok, ok, ok)

    def test_reject(self):
        t = FakeTensor((1, 4, 64, 128), True)
        with self.assertRaisesRegex(NotImplementedError, "fp8 attention "
                                    "has no backward yet .*torch.no_grad"):
            backward.reject_grad(FakeTorch(True), "fmha.attention",
                                 "fp8 attention", t)
        backward.reject_grad(FakeTorch(False), "x", "y", t)


@NEEDS_TOOLS
class CompiledTest(unittest.TestCase):
    """The op's text through the compiler; the manifest of its kernels
    through the runtime."""

    def test_op_text_verifies(self):
        spec = AttentionBackwardSpec(dtype="f16", head_dim=64, heads_q=8,
                                     heads_kv=2, causal=True,
                                     window=(32, 0), scale=0.2)
        subprocess.run([TOOLS.opt.path, "-"], input=spec.to_mlir().encode(),
                       check=True, capture_output=True)

    def manifest(self, spec, tmp):
        """The manifest fmha.compile writes for ``spec``."""
        kernel = fmha.compile(spec, cache_dir=Path(tmp) / "cache",
                              progress=lambda message: None)
        return kernel.manifest

    def test_front_door_tensors_cover_the_manifest(self):
        with tempfile.TemporaryDirectory() as tmp:
            compiler.clear_memo()
            m = self.manifest(AttentionBackwardSpec(causal=True), tmp)
            compiler.clear_memo()
        self.assertEqual(len(m.steps), 3)
        caller = {n for n, t in m.tensors.items() if not t.scratch}
        self.assertLessEqual(caller, set(backward._TENSORS))
        self.assertIn("d_lse", m.tensors)
        self.assertEqual(m.tensors["d_lse"].role, "scratch")
        # The front door's tensors of a GQA call, with the scratch tensors
        # the kernel asks for, launch every kernel in order.
        B, H, HKV, SQ, SK, D = 2, 8, 2, 300, 1000, 128
        given = {"q": view((B, H, SQ, D)), "k": view((B, HKV, SK, D)),
                 "v": view((B, HKV, SK, D)), "o": view((B, H, SQ, D)),
                 "do": view((B, H, SQ, D)), "lse": view((B, H, SQ), "f32"),
                 "dq": view((B, H, SQ, D)), "dk": view((B, HKV, SK, D)),
                 "dv": view((B, HKV, SK, D))}
        driver = FakeDriver()
        kernel = Kernel(m, b"CUBIN", driver)
        tensors = {n: t for n, t in given.items() if n in m.tensors}
        for name, (shape, _, dtype) in kernel.scratch_shapes(
                {n: t.shape for n, t in tensors.items()}).items():
            tensors[name] = view(shape, dtype)
        kernel.launch(tensors)
        launched = [c for c in driver.calls if c[0] == "launch"]
        self.assertEqual(len(launched), len(m.steps))


if __name__ == "__main__":
    unittest.main()
