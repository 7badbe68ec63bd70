"""fmha.gemm with fp8 inputs and scales on a Hopper GPU, against a float64
reference computed from the dequantized inputs,
``(a.double() * scale_a) @ (b.double() * scale_b).T``.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here
(``python3 test/GPU/prepare_cache.py DIR`` compiles every kernel these
tests and fmha.gemm's selection can pick: fp8_kernel_specs below).

Tolerance. The error of each element is measured against the scale of its
terms, ``|c - ref| / (|a| * scale_a @ (|b| * scale_b).T)`` (so that
cancellation does not make a relative error meaningless), and must stay
below the output type's rounding (2^-8 for bf16, 2^-11 for f16, 0 for f32)
plus an accumulation allowance of ``2^-10 * sqrt(K / 32)``: Hopper's fp8
wgmma adds its products at reduced precision (DeepSeek-V3 reports ~14 bits
kept, up to 2% relative error at K = 4096 on random inputs, against an
|ref|, not our |a||b| scale). fmha accumulates by default like
``torch._scaled_mm(use_fast_accum=True)`` (no promotion); each test prints
its measured maximum and, where torch._scaled_mm takes the types, that of
cuBLAS's fast and promoted accumulation on the same inputs.

Accumulate promotion (``use_fast_accum=False``, PromotionTest): measured
at K = 8192 and 16384 with an f32 output (no output rounding, so the
error is the accumulation's) against the same float64 reference, with
and without promotion; promotion's error must not be worse, by maximum
and by root mean square.
"""

import math
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import ops, torch_ops, tuning

from tests.test_gpu_ops import NEEDS_HOPPER, Poisoned, compile_or_skip

E4M3 = "float8_e4m3fn"
E5M2 = "float8_e5m2"
OUT_EPS = {"bf16": 2.0**-8, "f16": 2.0**-11, "f32": 0.0}

# The tests' sizes: M 1, 7, 300, 1000; N multiples of 8 and odd (C's rows
# padded as for bf16); K multiples of 16 from 16 to 8192.
SIZES = [(1, 8, 16), (7, 40, 48), (300, 136, 1008), (1000, 1000, 4096),
         (300, 77, 8192), (7, 333, 512), (1000, 24, 64), (1, 4096, 8192)]
# (a, b, out, scale kinds) the tests run; (e4m3, e4m3, bf16) with both kinds
# of scales also runs every candidate configuration (test_candidates).
OPTIONS = [(E4M3, E4M3, out, kinds)
           for out in ("bf16", "f16", "f32")
           for kinds in (("tensor", "tensor"), ("row", "column"))] + [
    (E4M3, E5M2, "bf16", ("tensor", "tensor")),
    (E4M3, E5M2, "bf16", ("row", "column")),
    (E5M2, E4M3, "bf16", ("row", "column")),
    (E4M3, E4M3, "bf16", ("row", "tensor")),
    (E4M3, E4M3, "bf16", ("tensor", "column"))]


# Output dtypes by name, as torch names them.
OUT = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}


def table_specs(a, b, out, kind_a, kind_b, target="sm_90a"):
    """The default and the tuning table's fp8 configurations for one
    option: what fmha.gemm's selection can pick for it."""
    dtype, b_dtype = ops.FP8_TORCH_TO_FMHA[a], ops.FP8_TORCH_TO_FMHA[b]
    configs = [{}, *tuning.table().configs(("gemm_fp8",))]
    return [ops.gemm_spec(dtype, out, target, c, True, b_dtype, kind_a,
                          kind_b) for c in configs]


# Accumulate promotion: (out, scale kinds) of the error comparison, whose
# kernels (every promotion candidate) test_promotion_candidates runs too.
PROMOTE_OPTIONS = [(out, kinds) for out in ("f32", "bf16")
                   for kinds in (("tensor", "tensor"), ("row", "column"))]
PROMOTE_K = (8192, 16384)


def promote_specs(target="sm_90a"):
    """The kernels with accumulate promotion these tests run: every
    promotion candidate (ops.gemm_kernel_specs with promote) for e4m3 x
    e4m3 with PROMOTE_OPTIONS' outputs and scales."""
    specs = []
    for out, (sa, sb) in PROMOTE_OPTIONS:
        specs.extend(ops.gemm_kernel_specs("f8e4m3", out, target, True,
                                           "f8e4m3", sa, sb, promote=True))
    return specs


def fp8_kernel_specs(target="sm_90a"):
    """Every fp8 GemmSpec these tests and fmha.gemm's selection can pick for
    OPTIONS: all of ops.gemm_kernel_specs (the candidates) for e4m3 x e4m3
    to bf16 with tensor and with row / column scales, the default and the
    tuning table's configurations for the others. With M = 1 a row scale
    of A is one value: the kernels with one scale for A too. Then those
    with accumulate promotion (promote_specs)."""
    specs = promote_specs(target)
    for a, b, out, (sa, sb) in OPTIONS:
        dtype, b_dtype = ops.FP8_TORCH_TO_FMHA[a], ops.FP8_TORCH_TO_FMHA[b]
        for kind_a in {sa, "tensor"}:
            full = (a, b, out) == (E4M3, E4M3, "bf16") and \
                (kind_a, sb) in (("tensor", "tensor"), ("row", "column"))
            specs.extend(ops.gemm_kernel_specs(dtype, out, target, True,
                                               b_dtype, kind_a, sb)
                         if full else table_specs(a, b, out, kind_a, sb,
                                                  target))
    return list(dict.fromkeys(specs))


def quantize(x, dtype):
    """``x`` scaled into fp8's range and rounded: (fp8 tensor, the scale
    that dequantizes it)."""
    amax = x.abs().amax().clamp_min(1e-12).item()
    limit = torch.finfo(dtype).max
    scale = amax / limit * 2  # headroom: no saturation
    return (x / scale).to(dtype), scale


def make_inputs(m, n, k, a_dtype, b_dtype, kinds, outliers=False, gen=None):
    """Random a [m, k] and b [n, k] in fp8 (N(0, 1), or with a few entries
    50x larger) and scales of ``kinds``, fresh each call."""
    a32 = torch.randn(m, k, device="cuda", generator=gen)
    b32 = torch.randn(n, k, device="cuda", generator=gen)
    if outliers:
        for t in (a32, b32):
            idx = torch.randint(0, t.numel(), (max(1, t.numel() // 1000),),
                                device="cuda", generator=gen)
            t.view(-1)[idx] *= 50
    a, sa = quantize(a32, getattr(torch, a_dtype))
    b, sb = quantize(b32, getattr(torch, b_dtype))
    # Scales: the quantization's, times a factor per row / column.
    if kinds[0] == "row":
        scale_a = sa * (0.5 + torch.rand(m, 1, device="cuda", generator=gen))
    else:
        scale_a = torch.tensor(sa, device="cuda")
    if kinds[1] == "column":
        scale_b = sb * (0.5 + torch.rand(1, n, device="cuda", generator=gen))
    else:
        scale_b = torch.tensor(sb, device="cuda")
    return a, b, scale_a.float().contiguous(), scale_b.float().contiguous()


def reference(a, b, scale_a, scale_b):
    """(c, |terms|): float64 ``(a * scale_a) @ (b * scale_b).T`` and the
    same of the absolute values, the scale each element's error is
    measured against."""
    sa = scale_a.double().reshape(-1, 1) if scale_a.numel() > 1 else \
        scale_a.double().reshape(())
    sb = scale_b.double().reshape(1, -1) if scale_b.numel() > 1 else \
        scale_b.double().reshape(())
    ad, bd = a.double(), b.double()
    ref = (ad @ bd.t()) * sa * sb
    terms = (ad.abs() @ bd.abs().t()) * sa.abs() * sb.abs()
    return ref, terms


def max_error(c, ref, terms):
    """The largest ``|c - ref| / |terms|`` (0 where every term is 0)."""
    err = (c.double() - ref).abs() / terms.clamp_min(1e-300)
    err = torch.where(terms > 0, err, (c.double() - ref).abs())
    return err.max().item() if err.numel() else 0.0


def rms_error(c, ref, terms):
    """The root mean square of ``|c - ref| / |terms|`` where a term is
    nonzero."""
    mask = terms > 0
    err = (c.double() - ref).abs()[mask] / terms[mask]
    return err.square().mean().sqrt().item() if err.numel() else 0.0


def tolerance(out, k):
    return OUT_EPS[out] + 2.0**-10 * math.sqrt(max(k, 32) / 32)


def scaled_mm_error(a, b, scale_a, scale_b, out_dtype, ref, terms, fast):
    """torch._scaled_mm's error on the same inputs, or None where it does
    not take them."""
    try:
        c = torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b,
                             out_dtype=out_dtype, use_fast_accum=fast)
    except (RuntimeError, TypeError):
        return None
    return max_error(c, ref, terms)


@NEEDS_HOPPER
class Fp8GemmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first

    def run_case(self, a, b, scale_a, scale_b, out):
        out_dtype = getattr(torch, OUT[out])
        with Poisoned() as p:
            c = fmha.gemm(a, b, out_dtype if out != "bf16" else None,
                          scale_a=scale_a, scale_b=scale_b)
        torch.cuda.synchronize()
        m, n, k = a.shape[0], b.shape[0], a.shape[1]
        self.assertEqual(tuple(c.shape), (m, n))
        self.assertEqual(c.dtype, out_dtype)
        self.assertEqual(int(torch.isnan(c).sum()), 0, "unwritten elements")
        self.assertTrue(p.padding_intact(c), "stray write in the padding")
        ref, terms = reference(a, b, scale_a, scale_b)
        err = max_error(c, ref, terms)
        self.assertLess(err, tolerance(out, k),
                        f"max error {err:.3g} at {m}x{n}x{k}")
        return err, ref, terms, out_dtype

    def test_random(self):
        gen = torch.Generator(device="cuda").manual_seed(0)
        for a_dtype, b_dtype, out, kinds in OPTIONS:
            dtype = ops.FP8_TORCH_TO_FMHA[a_dtype]
            compile_or_skip(self, ops.gemm_spec(
                dtype, out, b_dtype=ops.FP8_TORCH_TO_FMHA[b_dtype],
                scale_a=kinds[0], scale_b=kinds[1]))
            worst = 0.0
            for m, n, k in SIZES:
                with self.subTest(a=a_dtype, b=b_dtype, out=out, kinds=kinds,
                                  m=m, n=n, k=k):
                    a, b, sa, sb = make_inputs(m, n, k, a_dtype, b_dtype,
                                               kinds, gen=gen)
                    err, ref, terms, out_dtype = self.run_case(a, b, sa, sb,
                                                               out)
                    worst = max(worst, err)
                    if (m, n, k) == (1000, 1000, 4096):
                        fast = scaled_mm_error(a, b, sa, sb, out_dtype, ref,
                                               terms, True)
                        slow = scaled_mm_error(a, b, sa, sb, out_dtype, ref,
                                               terms, False)
                        print(f"\n  {a_dtype} x {b_dtype} -> {out} {kinds} "
                              f"1000x1000x4096: fmha {err:.3g}, "
                              f"_scaled_mm fast accum {fast}, promoted "
                              f"{slow}", file=sys.stderr)
            print(f"\n  {a_dtype} x {b_dtype} -> {out} {kinds}: max error "
                  f"{worst:.3g} (bound at K 8192: "
                  f"{tolerance(out, 8192):.3g})", file=sys.stderr)

    def test_outliers(self):
        """A few entries 50x larger: the per-row / per-column scales keep
        the rest representable."""
        gen = torch.Generator(device="cuda").manual_seed(1)
        for kinds in (("tensor", "tensor"), ("row", "column")):
            compile_or_skip(self, ops.gemm_spec("f8e4m3", "bf16",
                                                scale_a=kinds[0],
                                                scale_b=kinds[1]))
            a, b, sa, sb = make_inputs(300, 136, 4096, E4M3, E4M3, kinds,
                                       outliers=True, gen=gen)
            err, *_ = self.run_case(a, b, sa, sb, "bf16")
            print(f"\n  outliers {kinds}: max error {err:.3g}",
                  file=sys.stderr)

    def test_candidates(self):
        """Every configuration the selector may pick, on odd sizes."""
        gen = torch.Generator(device="cuda").manual_seed(2)
        for kinds in (("tensor", "tensor"), ("row", "column")):
            for spec in ops.gemm_kernel_specs("f8e4m3", "bf16", "sm_90a",
                                              True, "f8e4m3", *kinds):
                compiled = compile_or_skip(self, spec)
                for m, n, k in ((300, 136, 1008), (7, 77, 8192)):
                    with self.subTest(kernel=spec.name, m=m, n=n, k=k):
                        a, b, sa, sb = make_inputs(m, n, k, E4M3, E4M3,
                                                   kinds, gen=gen)
                        c = torch_ops.gemm_output(torch, m, n,
                                                  torch.bfloat16, "cuda")
                        c.fill_(float("nan"))
                        compiled(a=a, b=b, c=c, scale_a=sa.reshape(-1),
                                 scale_b=sb.reshape(-1))
                        torch.cuda.synchronize()
                        ref, terms = reference(a, b, sa, sb)
                        self.assertLess(max_error(c, ref, terms),
                                        tolerance("bf16", k))

    def test_table_configurations(self):
        """The tuning table's configurations for every type and scale
        option (the selection picks them for any of them), on odd sizes."""
        gen = torch.Generator(device="cuda").manual_seed(3)
        for a_dtype, b_dtype, out, kinds in OPTIONS:
            for spec in table_specs(a_dtype, b_dtype, out, *kinds)[1:]:
                compiled = compile_or_skip(self, spec)
                m, n, k = 300, 136, 1008
                with self.subTest(kernel=spec.name):
                    a, b, sa, sb = make_inputs(m, n, k, a_dtype, b_dtype,
                                               kinds, gen=gen)
                    c = torch_ops.gemm_output(torch, m, n,
                                              getattr(torch, OUT[out]),
                                              "cuda")
                    c.fill_(float("nan"))
                    compiled(a=a, b=b, c=c, scale_a=sa.reshape(-1),
                             scale_b=sb.reshape(-1))
                    torch.cuda.synchronize()
                    ref, terms = reference(a, b, sa, sb)
                    self.assertLess(max_error(c, ref, terms),
                                    tolerance(out, k))

    def test_leading_dimensions(self):
        compile_or_skip(self, ops.gemm_spec("f8e4m3", "bf16",
                                            scale_a="row",
                                            scale_b="column"))
        gen = torch.Generator(device="cuda").manual_seed(3)
        a, b, sa, sb = make_inputs(6, 40, 64, E4M3, E4M3, ("row", "column"),
                                   gen=gen)
        c = fmha.gemm(a.view(2, 3, 64), b, scale_a=sa.view(2, 3, 1),
                      scale_b=sb)
        ref, terms = reference(a, b, sa, sb)
        self.assertEqual(tuple(c.shape), (2, 3, 40))
        self.assertLess(max_error(c.view(6, 40), ref, terms),
                        tolerance("bf16", 64))

    def test_errors(self):
        """Every argument rule raises ValueError before a launch."""
        a = torch.randn(8, 32, device="cuda").to(torch.float8_e4m3fn)
        one = torch.ones((), device="cuda")
        rows = torch.ones(8, 1, device="cuda")
        for args, kwargs, text in (
                ((a, a), {}, "need scale_a and scale_b"),
                ((a, a), {"scale_a": one}, "scale_b missing"),
                ((a.bfloat16(), a.bfloat16()),
                 {"scale_a": one, "scale_b": one},
                 "for fp8 a and b only"),
                ((a, a), {"scale_a": one.double(), "scale_b": one},
                 "scale_a must be float32"),
                ((a, a), {"scale_a": one.cpu(), "scale_b": one},
                 "scale_a must be on a's device"),
                ((a, a), {"scale_a": torch.ones(3, device="cuda"),
                          "scale_b": one}, r"got shape \[3\]"),
                ((a, a), {"scale_a": one, "scale_b": rows},
                 r"scale_b .* got shape \[8, 1\]"),
                ((a, a), {"scale_a": torch.ones(1, 16, device="cuda")[:, ::2]
                          .t(), "scale_b": one}, "contiguous"),
                ((a, a), {"scale_a": one, "scale_b": one,
                          "b_transposed": False}, r"b as \[N, K\]"),
                ((a[:, :24], a[:, :24]), {"scale_a": one, "scale_b": one},
                 "K a multiple of 16"),
                ((a.to(torch.float8_e5m2), a.to(torch.float8_e5m2)),
                 {"scale_a": one, "scale_b": one}, "both float8_e5m2"),
                ((a.bfloat16(), a.bfloat16()), {"use_fast_accum": False},
                 "use_fast_accum is for fp8")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(ValueError, text):
                    fmha.gemm(*args, **kwargs)

    def test_torch_compile(self):
        compile_or_skip(self, ops.gemm_spec("f8e4m3", "bf16"))
        gen = torch.Generator(device="cuda").manual_seed(4)
        a, b, sa, sb = make_inputs(64, 48, 128, E4M3, E4M3,
                                   ("tensor", "tensor"), gen=gen)
        f = torch.compile(lambda x, w, s, t: fmha.gemm(x, w, scale_a=s,
                                                       scale_b=t),
                          fullgraph=True)
        c = f(a, b, sa, sb)
        ref, terms = reference(a, b, sa, sb)
        self.assertLess(max_error(c, ref, terms), tolerance("bf16", 128))


@NEEDS_HOPPER
class PromotionTest(unittest.TestCase):
    """fmha.gemm's accumulate promotion (``use_fast_accum=False``)."""

    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first

    def test_error_with_and_without(self):
        """At K = 8192 and 16384, f32 output: the error with promotion is
        not worse than without, by maximum and by RMS; both are printed
        with torch._scaled_mm's fast and promoted accumulation."""
        gen = torch.Generator(device="cuda").manual_seed(5)
        for kinds in (("tensor", "tensor"), ("row", "column")):
            compile_or_skip(self, ops.gemm_spec(
                "f8e4m3", "f32", scale_a=kinds[0], scale_b=kinds[1],
                promote=True))
            compile_or_skip(self, ops.gemm_spec(
                "f8e4m3", "f32", scale_a=kinds[0], scale_b=kinds[1]))
            for k in PROMOTE_K:
                with self.subTest(kinds=kinds, k=k):
                    m, n = 512, 520
                    a, b, sa, sb = make_inputs(m, n, k, E4M3, E4M3, kinds,
                                               gen=gen)
                    ref, terms = reference(a, b, sa, sb)
                    errors = {}
                    for fast in (True, False):
                        c = fmha.gemm(a, b, torch.float32, scale_a=sa,
                                      scale_b=sb, use_fast_accum=fast)
                        torch.cuda.synchronize()
                        errors[fast] = (max_error(c, ref, terms),
                                        rms_error(c, ref, terms))
                    cublas = {fast: scaled_mm_error(a, b, sa, sb,
                                                    torch.float32, ref,
                                                    terms, fast)
                              for fast in (True, False)}
                    print(f"\n  promotion {kinds} {m}x{n}x{k} (f32 out): "
                          f"fmha fast accum max {errors[True][0]:.3g} rms "
                          f"{errors[True][1]:.3g}, promoted max "
                          f"{errors[False][0]:.3g} rms "
                          f"{errors[False][1]:.3g}; _scaled_mm fast "
                          f"{cublas[True]}, promoted {cublas[False]}",
                          file=sys.stderr)
                    self.assertLessEqual(errors[False][0], errors[True][0])
                    self.assertLessEqual(errors[False][1], errors[True][1])
                    self.assertLess(errors[False][0], tolerance("f32", k))

    def test_default_is_fast(self):
        """use_fast_accum=None takes ops.DEFAULT_FP8_FAST_ACCUM: the same
        kernel, the same bits."""
        compile_or_skip(self, ops.gemm_spec("f8e4m3", "bf16"))
        gen = torch.Generator(device="cuda").manual_seed(6)
        a, b, sa, sb = make_inputs(256, 264, 2048, E4M3, E4M3,
                                   ("tensor", "tensor"), gen=gen)
        default = fmha.gemm(a, b, scale_a=sa, scale_b=sb)
        chosen = fmha.gemm(a, b, scale_a=sa, scale_b=sb,
                           use_fast_accum=ops.DEFAULT_FP8_FAST_ACCUM)
        self.assertTrue(torch.equal(default, chosen))

    def test_promotion_candidates(self):
        """Every promotion configuration, on odd sizes, K not a multiple
        of the promotion group (the last group takes the steps left)."""
        gen = torch.Generator(device="cuda").manual_seed(7)
        for out, kinds in PROMOTE_OPTIONS:
            out_dtype = getattr(torch, OUT[out])
            for spec in ops.gemm_kernel_specs("f8e4m3", out, "sm_90a", True,
                                              "f8e4m3", *kinds, promote=True):
                compiled = compile_or_skip(self, spec)
                for m, n, k in ((300, 136, 1008), (7, 77, 8192 + 384)):
                    with self.subTest(kernel=spec.name, m=m, n=n, k=k):
                        a, b, sa, sb = make_inputs(m, n, k, E4M3, E4M3,
                                                   kinds, gen=gen)
                        c = torch_ops.gemm_output(torch, m, n, out_dtype,
                                                  "cuda")
                        c.fill_(float("nan"))
                        compiled(a=a, b=b, c=c, scale_a=sa.reshape(-1),
                                 scale_b=sb.reshape(-1))
                        torch.cuda.synchronize()
                        ref, terms = reference(a, b, sa, sb)
                        self.assertLess(max_error(c, ref, terms),
                                        tolerance(out, k))

    def test_torch_compile(self):
        compile_or_skip(self, ops.gemm_spec("f8e4m3", "bf16", promote=True))
        gen = torch.Generator(device="cuda").manual_seed(8)
        a, b, sa, sb = make_inputs(64, 48, 1024, E4M3, E4M3,
                                   ("tensor", "tensor"), gen=gen)
        f = torch.compile(lambda x, w, s, t: fmha.gemm(
            x, w, scale_a=s, scale_b=t, use_fast_accum=False),
            fullgraph=True)
        c = f(a, b, sa, sb)
        ref, terms = reference(a, b, sa, sb)
        self.assertLess(max_error(c, ref, terms), tolerance("bf16", 1024))


if __name__ == "__main__":
    unittest.main()
