// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// The verifier's rules for fp8 attention: dense q, k and v in f8E4M3FN, v
// transposed with its keys padded to a multiple of 16, three f32 descales
// of one factor each or of one per sequence and KV head, o in bf16 or f16,
// sm_90a.

// Descales missing.
// expected-error @+1 {{fp8 q, k and v need descale factors: expected 6 inputs (q, k, v, descale_q, descale_k, descale_v), got 3}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// Descales given for 16-bit inputs.
// expected-error @+1 {{expects 3 inputs (q, k, v), got 6 (descales are for fp8 q, k, v)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// e5m2 is not supported for attention.
// expected-error @+1 {{q element type 'f8E5M2' is not supported: fp8 attention takes f8E4M3FN q, k and v}}
fmha.attention @attn (tensor<?x32x?x128xf8E5M2>, tensor<?x8x?x128xf8E5M2>,
                      tensor<?x8x128x?xf8E5M2>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// k in another type than q.
// expected-error @+1 {{k element type 'bf16' does not match q element type 'f8E4M3FN'}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// An fp8 output.
// expected-error @+1 {{o element type 'f8E4M3FN' is not supported with fp8 q, k and v: expected bf16 or f16}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xf8E4M3FN>
    target sm_90a

// -----

// A descale that is not f32.
// expected-error @+1 {{descale_k element type 'bf16' is not supported: expected f32}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xbf16>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// A rank-1 descale with several values.
// expected-error @+1 {{descale_v has 8 values: expected 1 (one factor per tensor; per KV head, descales are [batch, heads_kv])}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<8xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// A descale of the wrong rank.
// expected-error @+1 {{descale_q must be a tensor [1] (one factor per tensor) or [batch, heads_kv] (one per sequence and KV head), got 'tensor<1x1x1xf32>'}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1x1x1xf32>,
                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// Per-tensor and per-head descales mixed.
// expected-error @+1 {{descale_v is 'tensor<1xf32>' but descale_q is 'tensor<?x8xf32>': the three descales are all [1] or all [batch, heads_kv]}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<?x8xf32>,
                      tensor<?x8xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// Per-head descales for another number of KV heads.
// expected-error @+1 {{descale_k heads_kv 32 does not match k heads_kv 8}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<?x8xf32>,
                      tensor<?x32xf32>, tensor<?x8xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// Per-head descales for another batch.
// expected-error @+1 {{descale_q batch 4 does not match q batch 2}}
fmha.attention @attn (tensor<2x32x?x128xf8E4M3FN>, tensor<2x8x?x128xf8E4M3FN>,
                      tensor<2x8x128x?xf8E4M3FN>, tensor<4x8xf32>,
                      tensor<4x8xf32>, tensor<4x8xf32>)
    -> tensor<2x32x?x128xbf16>
    target sm_90a

// -----

// A per-head descale that is not f32.
// expected-error @+1 {{descale_v element type 'f16' is not supported: expected f32}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<?x8xf32>,
                      tensor<?x8xf32>, tensor<?x8xf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// v not transposed: its dim 2 must be the head dim.
// expected-error @+1 {{v head_dim 256 does not match k head_dim 128}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x256x128xf8E4M3FN>,
                      tensor<?x8x256x128xf8E4M3FN>, tensor<1xf32>,
                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// transpose_v: v is shaped as k.
// expected-error @+1 {{v seq_k 32 does not match k seq_k 17}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x17x128xf8E4M3FN>,
                      tensor<?x8x32x128xf8E4M3FN>, tensor<1xf32>,
                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    transpose_v target sm_90a

// -----

// transpose_v: the transposer's warps beside three consumers.
// expected-error @+1 {{transpose_v needs at most 2 consumers: beside 3 the transposer's warps get the producer's 24 registers, too few}}
fmha.attention @attn (tensor<?x32x?x64xf8E4M3FN>, tensor<?x8x?x64xf8E4M3FN>,
                      tensor<?x8x?x64xf8E4M3FN>, tensor<1xf32>,
                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x64xbf16>
    transpose_v consumers 3 target sm_90a

// -----

// transpose_v is for fp8 inputs.
// expected-error @+1 {{transpose_v transposes fp8 V tiles in shared memory; with 'bf16' inputs wgmma reads V as it is}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    transpose_v target sm_90a

// -----

// v's keys not padded to a multiple of 16.
// expected-error @+1 {{v has 17 keys (dim 3) but k has seq_k 17: fp8 v is transposed with its keys padded to a multiple of 16, expected 32}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x17x128xf8E4M3FN>,
                      tensor<?x8x128x17xf8E4M3FN>, tensor<1xf32>,
                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// Varlen is not supported with fp8 yet.
// expected-error @+1 {{fp8 q, k and v are supported in the dense layout only so far, not with varlen}}
fmha.attention @attn (tensor<?x32x128xf8E4M3FN>, tensor<?x8x128xf8E4M3FN>,
                      tensor<?x8x128xf8E4M3FN>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen
    target sm_90a

// -----

// The P V product's K is the keys: 32 per fp8 wgmma.
// expected-error @+1 {{block_n 48 is not supported: expected a multiple of 32 from 32 to 256}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16> tile [64, 48]
    target sm_90a

// -----

// The register model counts fp8's P at a byte a value (a quarter of S)
// and no softmax temporaries (the conversion packs P in place): 64 x 224
// fits at head dim 128, 64 x 256 does not (128 S + 32 P + 64 O + 32 row
// and loop state).
// expected-error @+1 {{consumer warpgroup needs 256 registers per thread (64x256 fp32 S + 64x256 f8E4M3FN P + 64x128 fp32 O tiles + 32 for the row and loop state), sm_90a consumer warpgroups get at most 240}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16> tile [64, 256]
    target sm_90a

// -----

// sm_100a.
// expected-error @+1 {{fp8 attention is supported on sm_90a only so far (its P V product reads P from registers, which tcgen05.mma cannot)}}
fmha.attention @attn (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>,
                      tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>,
                      tensor<1xf32>)
    -> tensor<?x32x?x128xbf16>
    target sm_100a

// -----

// Nor against a KV cache.
// expected-error @+1 {{fp8 q, k and v are supported in the dense layout only so far, not with kvcache}}
fmha.attention @attn (tensor<?x1x32x128xf8E4M3FN>, tensor<?x?x8x128xf8E4M3FN>,
                      tensor<?x?x8x128xf8E4M3FN>, tensor<?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache
    target sm_90a
