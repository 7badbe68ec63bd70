// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of fmha.attention_backward. The signature and
// softmax rules are fmha.attention's (AttentionChecks.h): one case each
// shows that they apply here too.

// Five inputs.
// expected-error @+1 {{expects 6 inputs (q, k, v, o, do, lse), got 5}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// dq and dk only.
// expected-error @+1 {{expects 3 results (dq, dk, dv), got 2}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// lse of rank 4.
// expected-error @+1 {{lse must be a rank-3 tensor [batch, heads_q, seq_q]}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x1xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// A zero size.
// expected-error @+1 {{do seq_q is 0}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x0x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// dO of another element type than q.
// expected-error @+1 {{do element type 'f16' does not match q element type 'bf16'}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// dk of another element type than q.
// expected-error @+1 {{dk element type 'f32' does not match q element type 'bf16'}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// q in f32.
// expected-error @+1 {{q element type 'f32' is not supported}}
fmha.attention_backward @bwd (tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>,
    tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>)
    target sm_90a

// -----

// lse in bf16.
// expected-error @+1 {{lse element type 'bf16' is not supported: expected f32}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// dO of another sequence length than q.
// expected-error @+1 {{do seq_q 100 does not match q seq_q 300}}
fmha.attention_backward @bwd (tensor<?x8x300x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x100x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// dv of another sequence length than k.
// expected-error @+1 {{dv seq_k 16 does not match k seq_k 17}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x17x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x16x128xbf16>)
    target sm_90a

// -----

// dq with the heads of k.
// expected-error @+1 {{dq heads_q 2 does not match q heads_q 8}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>,
    tensor<?x2x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
    target sm_90a

// -----

// lse of another sequence length than q.
// expected-error @+1 {{lse seq_q 299 does not match q seq_q 300}}
fmha.attention_backward @bwd (tensor<?x8x300x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x299xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// k of another batch than q.
// expected-error @+1 {{k batch 3 does not match q batch 2}}
fmha.attention_backward @bwd (tensor<2x8x?x128xbf16>, tensor<3x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    target sm_90a

// -----

// Head dim 256: not built yet.
// expected-error @+1 {{head dim 256 is not supported: expected 64 or 128 (the backward at head dim 256 is not built yet}}
fmha.attention_backward @bwd (tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>,
    tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>)
    target sm_90a

// -----

// A dynamic head dim.
// expected-error @+1 {{head dim must be static: expected 64 or 128, got ? in every tensor but lse}}
fmha.attention_backward @bwd (tensor<?x8x?x?xbf16>, tensor<?x8x?x?xbf16>,
    tensor<?x8x?x?xbf16>, tensor<?x8x?x?xbf16>, tensor<?x8x?x?xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x?xbf16>, tensor<?x8x?x?xbf16>, tensor<?x8x?x?xbf16>)
    target sm_90a

// -----

// 12 query heads on 8 KV heads.
// expected-error @+1 {{GQA ratio: 12 query heads are not a multiple of 8 KV heads}}
fmha.attention_backward @bwd (tensor<?x12x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>,
    tensor<?x12x?xf32>)
    -> (tensor<?x12x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    target sm_90a

// -----

// A causal window that looks right of the diagonal.
// expected-error @+1 {{window right size must be 0 with causal, got 4}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    causal window [16, 4] target sm_90a

// -----

// A negative scale.
// expected-error @+1 {{softmax scale must be positive, got -0.125}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    scale -0.125 target sm_90a

// -----

// sm_100a.
// expected-error @+1 {{target sm_100a is not supported: the backward's kernels are built for sm_90a only so far}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    target sm_100a

// -----

// Three tile sizes.
// expected-error @+1 {{tile needs 2 sizes [block_m, block_n], got 3}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    tile [64, 128, 64] target sm_90a

// -----

// block_m not a multiple of 16.
// expected-error @+1 {{block_m 24 is not supported: expected a multiple of 16 from 16 to 128}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    tile [24, 128] target sm_90a

// -----

// fused_dq with block_m 48: dQ's part is a wgmma accumulator of block_m
// rows.
// expected-error @+1 {{block_m 48 is not supported with fused_dq: expected a multiple of 64 (the rows of dQ's part, a wgmma accumulator's M)}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    fused_dq tile [48, 128] target sm_90a

// -----

// fused_dq with block_m 128 at head dim 64: the registers of the two
// phases (S and dP, then dQ's part once they are gone) are counted apart,
// and the first takes more than a consumer has.
// expected-error @+1 {{consumer warpgroup needs 272 registers per thread (dK and dV 64x64 fp32 + S and dP 128x64 fp32 + P and dS 128x64 bf16 + 16 for the loop's state; then, with the fused dQ, dK, dV, dS and dQ's part 128x64 fp32: 176), sm_90a consumer warpgroups get at most 240}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    fused_dq tile [128, 128] target sm_90a

// -----

// block_n 64: one consumer's keys.
// expected-error @+1 {{block_n 64 is not supported: expected 128 (2 consumer warpgroups of 64 keys, a wgmma's M)}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    tile [64, 64] target sm_90a

// -----

// 70000 query heads: the grid's y.
// expected-error @+1 {{heads_q 70000 is too large: the kernels' grids have the heads along y and batch along z, at most 65535}}
fmha.attention_backward @bwd (tensor<?x70000x?x64xbf16>, tensor<?x1x?x64xbf16>,
    tensor<?x1x?x64xbf16>, tensor<?x70000x?x64xbf16>,
    tensor<?x70000x?x64xbf16>, tensor<?x70000x?xf32>)
    -> (tensor<?x70000x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16>)
    target sm_90a

// -----

// fused_dq with block_m 128 at head dim 128: two slots each of 128-row Q
// and dO tiles, dK's second column part, P and dS and the f32 dQ column
// parts staged per consumer, and each consumer's dS handed to the other
// take more shared memory than sm_90a has.
// expected-error @+1 {{needs 376880 bytes of shared memory (K/V 65536, Q/dO 131072, dK staged 16384, P/dS 65536, dQ 65536, dS handed 32768, barriers 48), sm_90a has 232448}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    fused_dq tile [128, 128] target sm_90a

// -----

// block_m 128 at head dim 64 fits in shared memory, but S and dP of
// 128 x 64 beside dK and dV take too many registers.
// expected-error @+1 {{consumer warpgroup needs 272 registers per thread (dK and dV 64x64 fp32 + S and dP 128x64 fp32 + P and dS 128x64 bf16 + 16 for the loop's state), sm_90a consumer warpgroups get at most 240}}
fmha.attention_backward @bwd (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
    tile [128, 128] target sm_90a

// -----

// block_m 112 (not a multiple of 64: the transposed products S^T and dP^T,
// 64 x 112) at head dim 128.
// expected-error @+1 {{consumer warpgroup needs 312 registers per thread (dK and dV 64x128 fp32 + S^T and dP^T 64x112 fp32 + P^T and dS^T 64x112 bf16 + 16 for the loop's state), sm_90a consumer warpgroups get at most 240}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
    tensor<?x8x?xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
    tile [112, 128] target sm_90a

// -----

// varlen without the cu_seqlens.
// expected-error @+1 {{varlen expects 8 inputs (q, k, v, o, do, lse, cu_seqlens_q, cu_seqlens_k), got 6}}
fmha.attention_backward @bwd (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>,
    tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>,
    tensor<8x?xf32>)
    -> (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen target sm_90a

// -----

// cu_seqlens without varlen.
// expected-error @+1 {{expects 6 inputs (q, k, v, o, do, lse), got 8 (cu_seqlens need varlen)}}
fmha.attention_backward @bwd (tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
     target sm_90a

// -----

// A varlen lse in the dense layout.
// expected-error @+1 {{lse must be a rank-2 tensor [heads_q, total_q]}}
fmha.attention_backward @bwd (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen target sm_90a

// -----

// cu_seqlens of i64.
// expected-error @+1 {{cu_seqlens_q element type 'i64' is not supported: expected i32 (prefix sums of the sequence lengths)}}
fmha.attention_backward @bwd (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<8x?xf32>, tensor<?xi64>, tensor<?xi32>)
    -> (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen target sm_90a

// -----

// cu_seqlens of different sizes.
// expected-error @+1 {{cu_seqlens_k batch + 1 4 does not match cu_seqlens_q batch + 1 3}}
fmha.attention_backward @bwd (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<8x?xf32>, tensor<3xi32>, tensor<4xi32>)
    -> (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen target sm_90a

// -----

// lse's tokens are not q's.
// expected-error @+1 {{lse total_q 99 does not match q total_q 100}}
fmha.attention_backward @bwd (tensor<100x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<100x8x128xbf16>, tensor<100x8x128xbf16>, tensor<8x99xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<100x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen target sm_90a

// -----

// fused_dq with varlen.
// expected-error @+1 {{fused_dq is not supported with varlen: a varlen backward computes dQ by a kernel of its own}}
fmha.attention_backward @bwd (tensor<?x8x64xbf16>, tensor<?x2x64xbf16>, tensor<?x2x64xbf16>, tensor<?x8x64xbf16>, tensor<?x8x64xbf16>, tensor<8x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x8x64xbf16>, tensor<?x2x64xbf16>, tensor<?x2x64xbf16>)
    varlen fused_dq target sm_90a

// -----

// block_m 64 at head dim 128: the sequence's bounds do not fit beside dK,
// dV, S and dP.
// expected-error @+1 {{consumer warpgroup needs 248 registers per thread (dK and dV 64x128 fp32 + S and dP 64x64 fp32 + P and dS 64x64 bf16 + 16 for the loop's state + 8 for the sequence's bounds), sm_90a consumer warpgroups get at most 240}}
fmha.attention_backward @bwd (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<8x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>)
    varlen tile [64, 128] target sm_90a
