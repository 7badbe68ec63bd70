"""Triton peer baseline for bench/attention.py: flash-attention forward.

o = softmax(scale * q k^T + causal mask) v for q, k, v of shape [B, H, S, D]
(bf16 or f16), fp32 softmax statistics and accumulation. One program owns
BLOCK_M query rows of one (batch, head) and streams the K/V blocks its rows
can see: an online softmax in base 2 (the row max and the row sum are
rescaled as larger scores arrive; P stays unnormalised and O is divided by
the row sum once, at the end). With a causal mask the key blocks left of
the diagonal run without any mask and only the blocks the diagonal crosses
(or the sequence tail) build one, so most iterations are plain GEMMs.

best_triton_attention(q, k, v, causal, ref) sweeps a few tile configurations,
checks each against a reference output, times them with
triton.testing.do_bench and returns the best median.

    python3 bench/triton_attention.py     # self-test on the GPU
"""

import math

import torch
import triton
import triton.language as tl
import triton.testing

# (BLOCK_M, BLOCK_N, num_warps, num_stages) by head dim: tiles whose Q block,
# K/V pipeline and fp32 accumulator fit the shared memory and registers.
CONFIGS = {
    64: [(128, 64, 4, 3), (128, 128, 8, 3), (64, 64, 4, 4)],
    128: [(128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3)],
    256: [(128, 64, 8, 2), (64, 64, 4, 2), (128, 32, 8, 2)],
}


@triton.jit
def _key_blocks(acc, row_max, row_sum, q, k_base, v_base, rows, lo, hi,
                seq_k, stride_ks, stride_vs, qk_scale,
                BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                MASKED: tl.constexpr, CAUSAL: tl.constexpr):
    """Folds key blocks [lo, hi) into the running (acc, row_max, row_sum).
    MASKED blocks hide keys past seq_k and, when CAUSAL, keys after each
    row's diagonal (rows are already shifted to key positions)."""
    dims = tl.arange(0, HEAD_DIM)
    for start in range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        keys = start + tl.arange(0, BLOCK_N)
        if MASKED:
            inside = keys < seq_k
            k = tl.load(k_base + keys[:, None] * stride_ks + dims[None, :],
                        mask=inside[:, None], other=0.0)
        else:
            k = tl.load(k_base + keys[:, None] * stride_ks + dims[None, :])
        # Scores in base 2: exp(x * scale) = exp2(x * scale * log2(e)).
        s = tl.dot(q, tl.trans(k)) * qk_scale
        if MASKED:
            visible = inside[None, :]
            if CAUSAL:
                visible = visible & (keys[None, :] <= rows[:, None])
            s = tl.where(visible, s, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(s, 1))
        # A row with nothing visible yet keeps a finite reference point, so
        # that exp2(-inf - reference) is 0 rather than NaN.
        ref = tl.where(new_max == float("-inf"), 0.0, new_max)
        p = tl.math.exp2(s - ref[:, None])
        alpha = tl.math.exp2(row_max - ref)
        row_sum = row_sum * alpha + tl.sum(p, 1)
        if MASKED:
            v = tl.load(v_base + keys[:, None] * stride_vs + dims[None, :],
                        mask=inside[:, None], other=0.0)
        else:
            v = tl.load(v_base + keys[:, None] * stride_vs + dims[None, :])
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        row_max = new_max
    return acc, row_max, row_sum


@triton.jit
def _flash_forward(Q, K, V, O, qk_scale, heads, seq_q, seq_k,
                   stride_qb, stride_qh, stride_qs,
                   stride_kb, stride_kh, stride_ks,
                   stride_vb, stride_vh, stride_vs,
                   stride_ob, stride_oh, stride_os,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    block = tl.program_id(0)
    batch = tl.program_id(1) // heads
    head = tl.program_id(1) % heads
    m0 = block * BLOCK_M
    offs = m0 + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q_rows = Q + batch * stride_qb + head * stride_qh
    q = tl.load(q_rows + offs[:, None] * stride_qs + dims[None, :],
                mask=(offs < seq_q)[:, None], other=0.0)
    k_base = K + batch * stride_kb + head * stride_kh
    v_base = V + batch * stride_vb + head * stride_vh

    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    row_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    row_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    # Query i sits at key position i + seq_k - seq_q (bottom-right aligned).
    shift = seq_k - seq_q
    rows = offs + shift
    if CAUSAL:
        # Keys the whole block sees, then the ones its diagonal crosses.
        end = tl.maximum(tl.minimum(seq_k, m0 + BLOCK_M + shift), 0)
        clear = tl.maximum(m0 + shift + 1, 0) // BLOCK_N * BLOCK_N
        clear = tl.minimum(clear, end // BLOCK_N * BLOCK_N)
    else:
        end = seq_k
        clear = seq_k // BLOCK_N * BLOCK_N
    acc, row_max, row_sum = _key_blocks(
        acc, row_max, row_sum, q, k_base, v_base, rows, 0, clear, seq_k,
        stride_ks, stride_vs, qk_scale, BLOCK_N, HEAD_DIM, False, CAUSAL)
    acc, row_max, row_sum = _key_blocks(
        acc, row_max, row_sum, q, k_base, v_base, rows, clear, end, seq_k,
        stride_ks, stride_vs, qk_scale, BLOCK_N, HEAD_DIM, True, CAUSAL)

    # Rows that saw no key: o = 0.
    out = acc / tl.where(row_sum > 0.0, row_sum, 1.0)[:, None]
    o_rows = O + batch * stride_ob + head * stride_oh
    tl.store(o_rows + offs[:, None] * stride_os + dims[None, :],
             out.to(O.dtype.element_ty), mask=(offs < seq_q)[:, None])


def launcher(q, k, v, o, causal, config, scale=None):
    """A zero-argument callable computing o = attention(q, k, v) with one
    config. q, k, v, o: [B, H, S, D], innermost dimension contiguous; k and
    v have q's heads."""
    block_m, block_n, warps, stages = config
    b, h, seq_q, d = q.shape
    seq_k = k.shape[2]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    grid = (triton.cdiv(seq_q, block_m), b * h)
    args = (q, k, v, o, scale * math.log2(math.e), h, seq_q, seq_k,
            q.stride(0), q.stride(1), q.stride(2),
            k.stride(0), k.stride(1), k.stride(2),
            v.stride(0), v.stride(1), v.stride(2),
            o.stride(0), o.stride(1), o.stride(2))
    meta = dict(BLOCK_M=block_m, BLOCK_N=block_n, HEAD_DIM=d, CAUSAL=causal,
                num_warps=warps, num_stages=stages)
    return lambda: _flash_forward[grid](*args, **meta)


def config_name(config):
    block_m, block_n, warps, stages = config
    return f"{block_m}x{block_n} w{warps} s{stages}"


def best_triton_attention(q, k, v, causal, ref, warmup=25, rep=100,
                          verbose=False):
    """Sweeps CONFIGS[head_dim]: each config must compile and match ``ref``
    (relative Frobenius error < 2e-2), then is timed with do_bench
    (median, L2 flushed between runs). Returns (best median ms, config
    name), or (nan, reason) when none works."""
    best = (float("inf"), None)
    o = torch.empty_like(q)
    for config in CONFIGS.get(q.shape[-1], []):
        name = config_name(config)
        try:
            fn = launcher(q, k, v, o, causal, config)
            o.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - a failing config is skipped
            if verbose:
                print(f"  {name}: skipped ({type(e).__name__}: "
                      f"{str(e)[:100]!r})")
            continue
        err = ((o.float() - ref.float()).norm()
               / ref.float().norm().clamp_min(1e-30)).item()
        if not err < 2e-2:
            if verbose:
                print(f"  {name}: wrong (rel err {err:.2e})")
            continue
        ms = triton.testing.do_bench(fn, warmup=warmup, rep=rep,
                                     return_mode="median")
        if verbose:
            print(f"  {name}: {ms:.4f} ms (rel err {err:.1e})")
        if ms < best[0]:
            best = (ms, name)
    if best[1] is None:
        return float("nan"), "no valid Triton config"
    return best


def _reference(q, k, v, causal):
    s = q.double() @ k.double().transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        rows = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
        cols = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(cols > rows, float("-inf"))
    return torch.nan_to_num(torch.softmax(s, dim=-1)) @ v.double()


if __name__ == "__main__":
    torch.manual_seed(0)
    print(f"device: {torch.cuda.get_device_name()}, triton "
          f"{triton.__version__}")
    # Odd lengths and seq_q != seq_k exercise the masks and the tails.
    for b, h, sq, sk, d, causal in [(2, 4, 1000, 1000, 64, True),
                                    (1, 2, 300, 77, 128, True),
                                    (1, 2, 77, 300, 128, False),
                                    (1, 2, 513, 513, 256, True)]:
        q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, h, sk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, h, sk, d, device="cuda", dtype=torch.bfloat16)
        ref = _reference(q, k, v, causal)
        print(f"B={b} H={h} SQ={sq} SK={sk} D={d} causal={causal}:")
        ms, name = best_triton_attention(q, k, v, causal, ref, verbose=True)
        print(f"  best: {ms:.4f} ms [{name}]")
