"""fmha.attention with float8_e4m3fn q, k, v and descales (per tensor, and
per sequence and KV head) on a Hopper GPU, against a float64 reference
computed from the dequantized inputs (``q * descale_q`` etc.,
tests.test_gpu_ops.attention_reference).

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here
(``python3 test/GPU/prepare_cache.py DIR`` compiles them: kernel_specs
below).

Accuracy. Each case reports the relative RMSE ``||o - ref|| / ||ref||`` of
fp8 attention and, on the same (dequantized) inputs cast to bf16, of
fmha's bf16 attention; both are printed. fp8 rounds P to e4m3 (3 mantissa
bits: a relative error up to 2^-4 per probability, random in sign) before
its product with V, so its error is larger than bf16's: the bound, 0.08
for N(0, 1) inputs and 0.12 with outliers, is about 2.5x the worst value
expected from e4m3's rounding of P and of the output's rounding, not a
bound fitted to a measurement. The log-sum-exp does not pass through P:
its bound is that of bf16 attention's (1e-3 absolute) plus fp32's error
of descale products.
"""

import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import fp8_attention

from tests.test_gpu_ops import (NEEDS_HOPPER, attention_reference,
                                compile_or_skip, rel_err)

# (batch, heads_q, heads_kv, seq_q, seq_k): odd lengths, GQA and MQA.
CASES = [(1, 2, 2, 1, 1), (2, 4, 1, 17, 17), (1, 4, 2, 300, 300),
         (1, 2, 2, 1000, 1000), (2, 4, 4, 17, 300), (1, 8, 1, 300, 1000),
         (1, 2, 1, 1000, 17)]
HEAD_DIMS = (64, 128, 256)
# (causal, window, scale) the tests run: those of test/GPU/stress.py's
# ATTENTION_OPTIONS, whose bf16 kernels the comparison with bf16
# attention needs (prepare_cache has them).
MASKS = [(False, None, None), (True, None, None), (False, (64, 16), 0.05),
         (True, (128, 0), None)]
TOL = {"normal": 0.08, "outliers": 0.12}
# lse's error relative to max(1, |lse|): the fp8 wgmma that computes S
# accumulates with reduced precision (about 13 bits, the fp8 GEMM's fast
# accumulation), so where outliers make the logits large (|s| in the
# hundreds) the absolute error grows with them. Measured on an H100: at
# most 2.7e-3 (head dim 256, outliers), below 2e-3 on N(0, 1) inputs.
LSE_TOL = 4e-3
# Descales per sequence and KV head ([batch, heads_kv]): (batch, heads_q,
# heads_kv, seq_q, seq_k) with GQA, MQA and one head per group, the masks
# and head dims they run with.
HEAD_CASES = [(2, 8, 2, 300, 300), (3, 4, 1, 17, 1000), (2, 4, 4, 1000, 17)]
HEAD_MASKS = [(False, None, None), (True, None, None)]


# Tiles whose V^T rows (block_n bytes) fill only 32-byte swizzle spans:
# (head dim, tile), launched directly by test_key_spans.
KEY_SPAN_TILES = [(128, (64, 96)), (64, (64, 160))]


# transpose_v kernels (V as k is laid out, transposed in shared memory by
# the kernel): (head dim, tile or None for the default), launched directly
# by test_transpose_v, causal and not.
TRANSPOSE_V_TILES = [(64, None), (64, (64, 160)), (128, None),
                     (128, (64, 192)), (256, None)]


def transpose_v_specs(target="sm_90a"):
    return [fp8_attention.spec(d, "bf16", causal, None, None, False, target,
                               {"tile": tile, "transpose_v": True})
            for d, tile in TRANSPOSE_V_TILES for causal in (False, True)]


def key_span_specs(target="sm_90a"):
    return [fp8_attention.spec(d, "bf16", causal, None, None, False, target,
                               {"tile": tile})
            for d, tile in KEY_SPAN_TILES for causal in (False, True)]


def kernel_specs(target="sm_90a"):
    """Every fp8 AttentionSpec these tests select (defaults, each with and
    without lse, bf16 and f16 outputs) plus fmha.attention's fp8
    candidates for bf16 output, causal and not, with lse and without (what
    the tuning table and the autotuner can pick: a call with lse takes the
    table's tile too, and its o must be the same bits as without)."""
    specs = []
    for head_dim in HEAD_DIMS:
        for causal, window, scale in MASKS:
            for lse in (False, True):
                specs.append(fp8_attention.spec(head_dim, "bf16", causal,
                                                window, scale, lse, target))
        specs.append(fp8_attention.spec(head_dim, "f16", False, None, None,
                                        False, target))
        for causal in (False, True):
            for lse in (False, True):
                specs.extend(fp8_attention.kernel_specs(
                    head_dim, causal=causal, return_lse=lse, target=target))
        for causal, window, scale in HEAD_MASKS:
            for lse in (False, True):
                specs.append(fp8_attention.spec(
                    head_dim, "bf16", causal, window, scale, lse, target,
                    head_descales=True))
    specs.extend(key_span_specs(target))
    specs.extend(transpose_v_specs(target))
    specs.extend(transpose_specs(target))
    return list(dict.fromkeys(specs))


def transpose_specs(target="sm_90a"):
    """The fmha.transpose_values kernels fp8 calls launch (V^T)."""
    return [fp8_attention.transpose_spec("f8e4m3", d, target)
            for d in HEAD_DIMS]


def quantize(x):
    """``x`` in e4m3 with a per-tensor descale (headroom: no saturation)."""
    amax = x.abs().amax().clamp_min(1e-12).item()
    descale = amax / torch.finfo(torch.float8_e4m3fn).max * 2
    return ((x / descale).to(torch.float8_e4m3fn),
            torch.tensor([descale], device=x.device, dtype=torch.float32))


def make_inputs(b, h, hkv, sq, sk, d, outliers, gen):
    """q, k, v in fp8 and their descales (N(0, 1), or with one entry in a
    thousand 50x larger)."""
    tensors = []
    for heads, seq in ((h, sq), (hkv, sk), (hkv, sk)):
        x = torch.randn(b, heads, seq, d, device="cuda", generator=gen)
        if outliers:
            idx = torch.randint(0, x.numel(), (max(1, x.numel() // 1000),),
                                device="cuda", generator=gen)
            x.view(-1)[idx] *= 50
        tensors.append(quantize(x))
    return tensors


def quantize_heads(x, heads_kv):
    """``x`` ``[batch, heads, seq, d]`` in e4m3 with a descale per sequence
    and KV head (``[batch, heads_kv]``; q's heads grouped by their KV head,
    as FlashAttention-3 quantizes them)."""
    batch, heads = x.shape[:2]
    groups = x.reshape(batch, heads_kv, -1)
    amax = groups.abs().amax(dim=2).clamp_min(1e-12)
    descale = (amax / torch.finfo(torch.float8_e4m3fn).max * 2).float()
    scaled = (groups / descale[:, :, None]).reshape(x.shape)
    return scaled.to(torch.float8_e4m3fn), descale


def make_head_inputs(b, h, hkv, sq, sk, d, gen):
    """q, k, v in fp8 with descales per sequence and KV head; each (sequence,
    KV head) of each tensor has its own magnitude (0.25 to 4), so that the
    descales differ by up to 16x between heads."""
    spread = torch.logspace(-2, 2, b * hkv, base=2.0, device="cuda")
    spread = spread[torch.randperm(b * hkv, device="cuda", generator=gen)]
    spread = spread.reshape(b, hkv)
    tensors = []
    for heads, seq in ((h, sq), (hkv, sk), (hkv, sk)):
        x = torch.randn(b, heads, seq, d, device="cuda", generator=gen)
        x *= spread.repeat_interleave(heads // hkv, dim=1)[:, :, None, None]
        tensors.append(quantize_heads(x, hkv))
    return tensors


def dequantized(t, descale):
    """``t * descale``: a descale per tensor, or per sequence and KV head
    (broadcast over the heads of its group)."""
    descale = descale.double()
    if descale.dim() == 2:
        group = t.shape[1] // descale.shape[1]
        descale = descale.repeat_interleave(group, dim=1)[:, :, None, None]
    return t.double() * descale


@NEEDS_HOPPER
class TransposeValuesTest(unittest.TestCase):
    def test_against_pytorch(self):
        """The compiled fmha.transpose_values against PyTorch's permuted
        copy, byte for byte, into memory poisoned with e4m3 NaNs: odd
        key counts (a partial last group, fewer keys than a group, a
        partial last CTA), head dims 64 / 128 / 256, a strided v (a
        [B, S, H, D] view) and one whose rows 16-byte loads cannot
        address (PyTorch's copy)."""
        for spec in transpose_specs():
            compile_or_skip(self, spec)
        gen = torch.Generator(device="cuda").manual_seed(5)
        for d in HEAD_DIMS:
            for batch, heads, keys, layout in (
                    (1, 1, 1, "dense"), (2, 3, 37, "dense"),
                    (1, 2, 130, "bshd"), (2, 1, 1000, "dense"),
                    (1, 2, 4097, "bshd"), (1, 1, 300, "offset")):
                with self.subTest(d=d, batch=batch, heads=heads, keys=keys,
                                  layout=layout):
                    shape = ((batch, keys, heads, d) if layout == "bshd"
                             else (batch, heads, keys, d))
                    extra = 1 if layout == "offset" else 0
                    raw = torch.randint(0, 256, (shape[0] * shape[1]
                                                 * shape[2] * shape[3]
                                                 + extra,),
                                        generator=gen, device="cuda",
                                        dtype=torch.uint8)
                    # No NaN bytes in v: the poison must stand out.
                    raw[(raw & 0x7F) == 0x7F] = 0
                    v = raw[extra:].view(torch.float8_e4m3fn).view(shape)
                    if layout == "bshd":
                        v = v.transpose(1, 2)
                    torch.full((1 << 24,), 0x7F, dtype=torch.uint8,
                               device="cuda")  # poison, then freed
                    vt = fp8_attention.permute_values(torch, v)
                    ref = fp8_attention.permute_values_torch(torch, v)
                    torch.cuda.synchronize()
                    self.assertEqual(vt.shape, ref.shape)
                    self.assertTrue(vt.is_contiguous())
                    self.assertTrue(torch.equal(vt.view(torch.uint8),
                                                ref.view(torch.uint8)))


@NEEDS_HOPPER
class Fp8AttentionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first

    def run_case(self, inputs, causal, window, scale=None, out_dtype=None):
        (q, dq), (k, dk), (v, dv) = inputs
        torch.full((1 << 24,), float("nan"), device="cuda")  # poison
        o, lse = fmha.attention(q, k, v, causal, window, scale,
                                return_lse=True, descale_q=dq, descale_k=dk,
                                descale_v=dv, out_dtype=out_dtype)
        o_only = fmha.attention(q, k, v, causal, window, scale, descale_q=dq,
                                descale_k=dk, descale_v=dv,
                                out_dtype=out_dtype)
        torch.cuda.synchronize()
        qd, kd, vd = (dequantized(t, s) for t, s in inputs)
        ref, ref_lse = attention_reference(qd, kd, vd, causal=causal,
                                           window=window, scale=scale)
        expected = out_dtype or torch.bfloat16
        for out in (o, o_only):
            self.assertEqual(out.shape, q.shape)
            self.assertEqual(out.dtype, expected)
            self.assertEqual(int(torch.isnan(out).sum()), 0, "unwritten o")
        self.assertEqual(int(torch.isnan(lse).sum()), 0, "unwritten lse")
        empty = torch.isinf(ref_lse)
        self.assertTrue(bool((o[empty] == 0).all()), "o of an empty row")
        self.assertTrue(bool(torch.isneginf(lse[empty]).all()))
        if (~empty).any():
            err = ((lse.double() - ref_lse).abs()
                   / ref_lse.abs().clamp_min(1.0))[~empty].max().item()
            self.assertLess(err, LSE_TOL)
        self.assertTrue(torch.equal(o, o_only))
        # bf16 attention on the same dequantized inputs.
        bf = [t.to(torch.bfloat16) for t in (qd, kd, vd)]
        o_bf16 = fmha.attention(*bf, causal, window, scale)
        return rel_err(o, ref), rel_err(o_bf16, ref)

    def test_accuracy(self):
        """Odd lengths, GQA, MQA, masks, head dims 64 / 128 / 256, N(0, 1)
        inputs and inputs with outliers: the RMSE of fp8 and of bf16
        attention printed side by side."""
        gen = torch.Generator(device="cuda").manual_seed(0)
        worst = {}
        for d in HEAD_DIMS:
            for causal, window, scale in MASKS:
                for lse in (False, True):
                    compile_or_skip(self, fp8_attention.spec(
                        d, "bf16", causal, window, scale, lse, "sm_90a"))
                for kind in ("normal", "outliers"):
                    for case in CASES:
                        with self.subTest(d=d, causal=causal, window=window,
                                          kind=kind, case=case):
                            inputs = make_inputs(*case, d, kind == "outliers",
                                                 gen)
                            fp8, bf16 = self.run_case(inputs, causal, window,
                                                      scale)
                            self.assertLess(fp8, TOL[kind])
                            key = (d, kind)
                            old = worst.get(key, (0.0, 0.0))
                            worst[key] = (max(old[0], fp8),
                                          max(old[1], bf16))
        for (d, kind), (fp8, bf16) in sorted(worst.items()):
            print(f"\nfp8 attention d{d} {kind}: worst relative RMSE "
                  f"{fp8:.4f} (bf16 attention on the same inputs: "
                  f"{bf16:.4f})", end="")

    def test_fast_path(self):
        """The eager fast path (a launch bound per layout): repeated calls
        of one layout with fresh values, lse, f16 o, descales per tensor
        and per head, each equal to the custom op's result on the same
        inputs; a q it declines (not contiguous) takes the custom op."""
        from fmha import torch_ops
        gen = torch.Generator(device="cuda").manual_seed(4)

        def custom_op(q, k, v, descales, causal, lse, out_dtype):
            dq, dk, dv = fp8_attention.kernel_descales(descales, q.shape[0],
                                                       k.shape[1])
            return torch.ops.fmha.attention_fp8(
                q.contiguous(), k.contiguous(), v, dq, dk, dv,
                out_dtype, causal, None, None, lse)

        for d, causal, lse, out_dtype, heads in (
                (128, True, False, None, False),
                (64, False, False, torch.float16, False),
                (256, True, True, None, True)):
            compile_or_skip(self, fp8_attention.spec(
                d, "f16" if out_dtype else "bf16", causal, None, None, lse,
                "sm_90a", head_descales=heads))
            for _ in range(3):
                if heads:
                    inputs = make_head_inputs(2, 4, 2, 300, 333, d, gen)
                else:
                    inputs = make_inputs(2, 4, 2, 300, 333, d, False, gen)
                (q, dq), (k, dk), (v, dv) = inputs
                with self.subTest(d=d, lse=lse, out_dtype=out_dtype):
                    fast = fmha.attention(q, k, v, causal, return_lse=lse,
                                          descale_q=dq, descale_k=dk,
                                          descale_v=dv, out_dtype=out_dtype)
                    o, ref_lse = custom_op(q, k, v, (dq, dk, dv), causal,
                                           lse, out_dtype)
                    if lse:
                        fast, fast_lse = fast
                        self.assertTrue(torch.equal(fast_lse, ref_lse))
                    self.assertTrue(torch.equal(fast, o))
        self.assertTrue(any(key[0] == "attention_fp8"
                            for key in torch_ops._FAST))
        # A q that is a transposed view: declined, the custom op's result.
        (q, dq), (k, dk), (v, dv) = make_inputs(2, 4, 2, 300, 333, 128,
                                                False, gen)
        qt = q.transpose(1, 2).contiguous().transpose(1, 2)
        out = fmha.attention(qt, k, v, True, descale_q=dq, descale_k=dk,
                             descale_v=dv)
        o, _ = custom_op(q, k, v, (dq, dk, dv), True, False, None)
        self.assertTrue(torch.equal(out, o))

    def check_launches(self, specs, cases, gen):
        """Each spec's kernel launched directly on each case (batch,
        heads_q, heads_kv, seq_q, seq_k), o poisoned, against the float64
        reference."""
        for spec in specs:
            compile_or_skip(self, spec)
            kernel = fmha.compile(spec).kernel
            for case in cases:
                with self.subTest(spec=spec.name, case=case):
                    inputs = make_inputs(*case, spec.head_dim, False, gen)
                    (q, dq), (k, dk), (v, dv) = inputs
                    o = torch.full(q.shape, float("nan"), device="cuda",
                                   dtype=torch.bfloat16)
                    descales = fp8_attention.kernel_descales(
                        (dq, dk, dv), q.shape[0], k.shape[1])
                    if not spec.transpose_v:
                        v = fp8_attention.permute_values(torch, v)
                    kernel.launch({
                        "q": q, "k": k, "v": v, "o": o,
                        **dict(zip(fp8_attention.DESCALES, descales))})
                    torch.cuda.synchronize()
                    ref, _ = attention_reference(
                        *(dequantized(t, s) for t, s in inputs),
                        causal=spec.causal)
                    self.assertEqual(int(torch.isnan(o).sum()), 0)
                    self.assertLess(rel_err(o, ref), TOL["normal"])

    def test_key_spans(self):
        """block_n 96 (head dim 128) and 160 (head dim 64): V^T's rows of
        block_n bytes fill only 32-byte swizzle spans, so the tile and the
        tensor map's box are 32 keys wide (five boxes at 160). Each kernel
        launched directly, o poisoned, against the float64 reference."""
        self.check_launches(
            key_span_specs(),
            ((2, 4, 2, 300, 333), (1, 2, 1, 17, 1000), (1, 4, 4, 1000, 1000)),
            torch.Generator(device="cuda").manual_seed(1))

    def test_transpose_v(self):
        """transpose_v: V as k is laid out, each tile transposed in shared
        memory by three warps beside the producer (tile.transpose with
        k_quad16). Lengths that end inside a group of 16 keys and inside a
        tile, GQA and MQA; each kernel launched directly, o poisoned,
        against the float64 reference."""
        self.check_launches(
            transpose_v_specs(),
            ((2, 4, 2, 300, 333), (1, 2, 1, 17, 1000), (1, 4, 4, 1000, 1033),
             (1, 2, 2, 1, 1)),
            torch.Generator(device="cuda").manual_seed(3))

    def test_every_candidate(self):
        """Each configuration fmha.attention's fp8 selection can pick (the
        candidates, causal and not), launched directly on odd lengths, o
        poisoned, against the float64 reference."""
        self.check_launches(
            [spec for d in HEAD_DIMS for causal in (False, True)
             for spec in fp8_attention.kernel_specs(d, causal=causal)],
            ((2, 4, 2, 300, 333), (1, 2, 1, 1000, 17)),
            torch.Generator(device="cuda").manual_seed(2))

    def test_head_descales(self):
        """Descales per sequence and KV head ([batch, heads_kv]), different
        for each: GQA, MQA, one head per group, head dims 64 / 128 / 256,
        causal and not; and per-tensor descales mixed in (broadcast)."""
        gen = torch.Generator(device="cuda").manual_seed(3)
        worst = {}
        for d in HEAD_DIMS:
            for causal, window, scale in HEAD_MASKS:
                for lse in (False, True):
                    compile_or_skip(self, fp8_attention.spec(
                        d, "bf16", causal, window, scale, lse, "sm_90a",
                        head_descales=True))
                for case in HEAD_CASES:
                    with self.subTest(d=d, causal=causal, case=case):
                        inputs = make_head_inputs(*case, d, gen)
                        fp8, bf16 = self.run_case(inputs, causal, window,
                                                  scale)
                        self.assertLess(fp8, TOL["normal"])
                        old = worst.get(d, (0.0, 0.0))
                        worst[d] = (max(old[0], fp8), max(old[1], bf16))
            # q's descale per tensor, k's and v's per head (the wrapper
            # broadcasts q's to [batch, heads_kv]).
            (q, dq), (k, dk), (v, dv) = make_head_inputs(2, 8, 2, 300, 300,
                                                         d, gen)
            q, dq = quantize(dequantized(q, dq).float())
            fp8, _ = self.run_case(((q, dq), (k, dk), (v, dv)), True, None)
            self.assertLess(fp8, TOL["normal"])
            same = fmha.attention(q, k, v, True,
                                  descale_q=dq.expand(2, 2).contiguous(),
                                  descale_k=dk, descale_v=dv)
            mixed = fmha.attention(q, k, v, True, descale_q=dq,
                                   descale_k=dk, descale_v=dv)
            self.assertTrue(torch.equal(mixed, same))
        for d, (fp8, bf16) in sorted(worst.items()):
            print(f"\nfp8 attention d{d} per-head descales: worst relative "
                  f"RMSE {fp8:.4f} (bf16 attention on the same inputs: "
                  f"{bf16:.4f})", end="")

    def test_f16_output(self):
        gen = torch.Generator(device="cuda").manual_seed(1)
        for d in HEAD_DIMS:
            compile_or_skip(self, fp8_attention.spec(
                d, "f16", False, None, None, False, "sm_90a"))
            compile_or_skip(self, fp8_attention.spec(
                d, "f16", False, None, None, True, "sm_90a"))
            inputs = make_inputs(2, 4, 2, 300, 257, d, False, gen)
            fp8, _ = self.run_case(inputs, False, None,
                                   out_dtype=torch.float16)
            self.assertLess(fp8, TOL["normal"])

    def test_errors(self):
        q = torch.zeros(1, 2, 8, 128, device="cuda",
                        dtype=torch.float8_e4m3fn)
        one = torch.ones(1, device="cuda")
        with self.assertRaisesRegex(ValueError, "missing descale_v"):
            fmha.attention(q, q, q, descale_q=one, descale_k=one)
        bf = q.to(torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "descale_q are for "
                                    "float8_e4m3fn"):
            fmha.attention(bf, bf, bf, descale_q=one)
        with self.assertRaisesRegex(ValueError, "descale_k must be on q's "
                                    "device"):
            fmha.attention(q, q, q, descale_q=one, descale_k=one.cpu(),
                           descale_v=one)

    def test_compile(self):
        """Under torch.compile(fullgraph=True)."""
        compile_or_skip(self, fp8_attention.spec(
            128, "bf16", True, None, None, False, "sm_90a"))
        gen = torch.Generator(device="cuda").manual_seed(2)
        (q, dq), (k, dk), (v, dv) = make_inputs(1, 4, 2, 200, 200, 128,
                                                False, gen)

        def f(q, k, v, dq, dk, dv):
            return fmha.attention(q, k, v, causal=True, descale_q=dq,
                                  descale_k=dk, descale_v=dv)

        eager = f(q, k, v, dq, dk, dv)
        compiled = torch.compile(f, fullgraph=True)(q, k, v, dq, dk, dv)
        self.assertTrue(torch.equal(eager, compiled))


if __name__ == "__main__":
    unittest.main()
