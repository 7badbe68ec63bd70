// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of fmha.attention and fmha.gemm, then parser
// errors and malformed IR that must be diagnosed without crashing.

//===----------------------------------------------------------------------===//
// fmha.attention
//===----------------------------------------------------------------------===//

// An empty signature.
// expected-error @+1 {{expects 3 inputs (q, k, v), got 0}}
fmha.attention @attn () -> () target sm_90a

// -----

// Two inputs.
// expected-error @+1 {{expects 3 inputs (q, k, v), got 2}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// cu_seqlens without varlen.
// expected-error @+1 {{expects 3 inputs (q, k, v), got 5 (cu_seqlens need varlen)}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> target sm_90a

// -----

// varlen without cu_seqlens.
// expected-error @+1 {{varlen expects 5 inputs (q, k, v, cu_seqlens_q, cu_seqlens_k), got 3}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// varlen with the dense (rank-4) layout.
// expected-error @+1 {{q must be a rank-3 tensor [total_q, heads_q, head_dim], got 'tensor<?x32x?x128xbf16>'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x?x128xbf16> varlen target sm_90a

// -----

// A rank-2 cu_seqlens.
// expected-error @+1 {{cu_seqlens_k must be a rank-1 tensor [batch + 1], got 'tensor<?x2xi32>'}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?x2xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// cu_seqlens of i64.
// expected-error @+1 {{cu_seqlens_q element type 'i64' is not supported: expected i32 (prefix sums of the sequence lengths)}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi64>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// One entry: no sequence.
// expected-error @+1 {{cu_seqlens_q has 1 entries: expected batch + 1, at least 2}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<1xi32>, tensor<1xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// Different batches.
// expected-error @+1 {{cu_seqlens_k batch + 1 5 does not match cu_seqlens_q batch + 1 3}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<3xi32>, tensor<5xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// The varlen LSE is [heads_q, total_q].
// expected-error @+1 {{lse heads_q 16 does not match q heads_q 32}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<16x?xf32>) varlen target sm_90a

// -----

// v's total differs from k's.
// expected-error @+1 {{v total_k 100 does not match k total_k 200}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<200x8x128xbf16>,
                      tensor<100x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// The varlen LSE's total is q's.
// expected-error @+1 {{lse total_q 100 does not match q total_q 200}}
fmha.attention @attn (tensor<200x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<200x32x128xbf16>, tensor<32x100xf32>) varlen target sm_90a

// -----

// o has q's heads.
// expected-error @+1 {{o heads_q 16 does not match q heads_q 32}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x16x128xbf16> varlen target sm_90a

// -----

// k's head dim is q's.
// expected-error @+1 {{k head_dim 64 does not match q head_dim 128}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x64xbf16>,
                      tensor<?x8x64xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_90a

// -----

// A rank-3 lse (the dense layout's) with varlen.
// expected-error @+1 {{lse must be a rank-2 tensor [heads_q, total_q], got 'tensor<1x32x?xf32>'}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<1x32x?xf32>) varlen target sm_90a

// -----

// No result.
// expected-error @+1 {{expects 1 or 2 results (o and optionally lse), got 0}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> ()
    target sm_90a

// -----

// Three results.
// expected-error @+1 {{expects 1 or 2 results (o and optionally lse), got 3}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>, tensor<?x32x?xf32>)
    target sm_90a

// -----

// q of the wrong rank.
// expected-error @+1 {{q must be a rank-4 tensor [batch, heads_q, seq_q, head_dim], got 'tensor<8x128xbf16>'}}
fmha.attention @attn (tensor<8x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// k that is not a tensor.
// expected-error @+1 {{k must be a rank-4 tensor [batch, heads_kv, seq_k, head_dim], got 'memref<?x8x?x128xbf16>'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, memref<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// An unranked v.
// expected-error @+1 {{v must be a rank-4 tensor [batch, heads_kv, seq_k, head_dim], got 'tensor<*xbf16>'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<*xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// A scalar o.
// expected-error @+1 {{o must be a rank-4 tensor [batch, heads_q, seq_q, head_dim], got 'bf16'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> bf16
    target sm_90a

// -----

// lse of the wrong rank.
// expected-error @+1 {{lse must be a rank-3 tensor [batch, heads_q, seq_q], got 'tensor<?x32x?x1xf32>'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?x1xf32>)
    target sm_90a

// -----

// A static size of 0.
// expected-error @+1 {{k seq_k is 0; sizes must be positive or dynamic (?)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x0x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// A size the kernel's i32 parameters (and the manifest) cannot hold: 2^31.
// expected-error @+1 {{q seq_q 2147483648 is too large: sizes are i32 in the kernel and its manifest, at most 2147483647}}
fmha.attention @attn (tensor<?x32x2147483648x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// The largest i32 size passes that check (2^31 - 1), here as heads_q of a
// persistent kernel, whose grid does not hold heads.
fmha.attention @attn (tensor<?x2147483647x?x128xbf16>, tensor<?x1x?x128xbf16>,
                      tensor<?x1x?x128xbf16>)
    -> tensor<?x2147483647x?x128xbf16>
    schedule persistent target sm_90a

// -----

// Too many heads for the grid of a per_block kernel (heads_q is its y).
// expected-error @+1 {{heads_q 65536 is too large for the per_block schedule, whose grid has heads_q CTAs along y and batch along z: at most 65535 (the persistent schedule has no such limit)}}
fmha.attention @attn (tensor<?x65536x?x128xbf16>, tensor<?x1x?x128xbf16>,
                      tensor<?x1x?x128xbf16>)
    -> tensor<?x65536x?x128xbf16>
    schedule per_block target sm_90a

// -----

// Too large a batch for the grid of a per_block kernel (batch is its z).
// expected-error @+1 {{batch 70000 is too large for the per_block schedule}}
fmha.attention @attn (tensor<70000x8x?x128xbf16>, tensor<70000x8x?x128xbf16>,
                      tensor<70000x8x?x128xbf16>)
    -> tensor<70000x8x?x128xbf16>
    target sm_100a

// -----

// An unsupported element type.
// expected-error @+1 {{q element type 'f32' is not supported: expected bf16 or f16}}
fmha.attention @attn (tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>,
                      tensor<?x8x?x128xf32>)
    -> tensor<?x32x?x128xf32>
    target sm_90a

// -----

// A non-numeric element type.
// expected-error @+1 {{q element type 'complex<f32>' is not supported: expected bf16 or f16}}
fmha.attention @attn (tensor<?x32x?x128xcomplex<f32>>,
                      tensor<?x8x?x128xcomplex<f32>>, tensor<?x8x?x128xcomplex<f32>>)
    -> tensor<?x32x?x128xcomplex<f32>>
    target sm_90a

// -----

// k and q element types differ.
// expected-error @+1 {{k element type 'f16' does not match q element type 'bf16'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// v and q element types differ.
// expected-error @+1 {{v element type 'f16' does not match q element type 'bf16'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// o and q element types differ.
// expected-error @+1 {{o element type 'f32' does not match q element type 'bf16'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xf32>
    target sm_90a

// -----

// lse is not f32.
// expected-error @+1 {{lse element type 'bf16' is not supported: expected f32}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xbf16>)
    target sm_90a

// -----

// Static batch sizes that differ.
// expected-error @+1 {{k batch 4 does not match q batch 2}}
fmha.attention @attn (tensor<2x32x?x128xbf16>, tensor<4x8x?x128xbf16>,
                      tensor<4x8x?x128xbf16>)
    -> tensor<2x32x?x128xbf16>
    target sm_90a

// -----

// k head dim differs from q head dim.
// expected-error @+1 {{k head_dim 64 does not match q head_dim 128}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x64xbf16>,
                      tensor<?x8x?x64xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// v shape differs from k shape.
// expected-error @+1 {{v seq_k 512 does not match k seq_k 1024}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x1024x128xbf16>,
                      tensor<?x8x512x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// o shape differs from q shape.
// expected-error @+1 {{o heads_q 16 does not match q heads_q 32}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x16x?x128xbf16>
    target sm_90a

// -----

// lse shape is not [batch, heads_q, seq_q].
// expected-error @+1 {{lse seq_q 256 does not match q seq_q 512}}
fmha.attention @attn (tensor<?x32x512x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x512x128xbf16>, tensor<?x32x256xf32>)
    target sm_90a

// -----

// A head dim unknown in every tensor.
// expected-error @+1 {{head dim must be static: expected 64, 128 or 256, got ? in q, k, v and o}}
fmha.attention @attn (tensor<?x32x?x?xbf16>, tensor<?x8x?x?xbf16>,
                      tensor<?x8x?x?xbf16>)
    -> tensor<?x32x?x?xbf16>
    target sm_90a

// -----

// An unsupported head dim.
// expected-error @+1 {{head dim 96 is not supported: expected 64, 128 or 256}}
fmha.attention @attn (tensor<?x32x?x96xbf16>, tensor<?x8x?x96xbf16>,
                      tensor<?x8x?x96xbf16>)
    -> tensor<?x32x?x96xbf16>
    target sm_90a

// -----

// Query heads not a multiple of KV heads.
// expected-error @+1 {{GQA ratio: 32 query heads are not a multiple of 6 KV heads}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x6x?x128xbf16>,
                      tensor<?x6x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    target sm_90a

// -----

// A window with three sizes.
// expected-error @+1 {{window needs 2 sizes [left, right], got 3}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [1, 2, 3] target sm_90a

// -----

// A negative window size.
// expected-error @+1 {{window left size must be non-negative, got -1}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [-1, 0] target sm_90a

// -----

// A window size beyond i32, which the kernel would cut to 32 bits.
// expected-error @+1 {{window left size 4294967296 is too large: the kernel computes with i32, at most 2147483647 (a window as long as the sequence is no bound: omit it)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [4294967296, 0] target sm_90a

// -----

// 2^31 on the right.
// expected-error @+1 {{window right size 2147483648 is too large}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [0, 2147483648] target sm_90a

// -----

// INT64_MAX, which once became -1.
// expected-error @+1 {{window left size 9223372036854775807 is too large}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [9223372036854775807, 9223372036854775807] target sm_90a

// -----

// A causal window that looks right of the diagonal.
// expected-error @+1 {{causal attention sees no keys to the right of the diagonal: window right size must be 0 with causal, got 16}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    causal window [128, 16] target sm_90a

// -----

// A zero scale.
// expected-error @+1 {{softmax scale must be positive, got 0}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 0.0 target sm_90a

// -----

// A negative scale.
// expected-error @+1 {{softmax scale must be positive, got -0.125}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale -0.125 target sm_90a

// -----

// An infinite scale (written as its bit pattern).
// expected-error @+1 {{softmax scale must be finite, got +Inf}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 0x7FF0000000000000 target sm_90a

// -----

// A NaN scale.
// expected-error @+1 {{softmax scale must be finite, got NaN}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 0x7FF8000000000000 target sm_90a

// -----

// A scale finite in f64 that overflows f32 in the kernel (scale * log2(e)).
// expected-error @+1 {{softmax scale 1e+300 is out of range: the kernel multiplies scores by scale * log2(e) in f32, so scale must be from 8.15e-39 to 2.36e+38}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 1.0e300 target sm_90a

// -----

// A scale that is 0 in f32 (the smallest f64 subnormal).
// expected-error @+1 {{softmax scale 4.94066e-324 is out of range}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 4.9e-324 target sm_90a

// -----

// A scale whose product with log2(e) is an f32 subnormal.
// expected-error @+1 {{softmax scale 1e-40 is out of range}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    scale 1.0e-40 target sm_90a

// -----

// A tile with three sizes.
// expected-error @+1 {{tile needs 2 sizes [block_m, block_n], got 3}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [64, 128, 64] target sm_90a

// -----

// block_m is not 64 or 128.
// expected-error @+1 {{block_m 96 is not supported: expected 64 or 128 (a wgmma covers 64 rows of a warpgroup's tile)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [96, 128] target sm_90a

// -----

// block_n not a multiple of 16.
// expected-error @+1 {{block_n 72 is not supported: expected a multiple of 16 from 16 to 256}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [64, 72] target sm_90a

// -----

// block_n larger than one MMA.
// expected-error @+1 {{block_n 512 is not supported: expected a multiple of 16 from 16 to 256}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [64, 512] target sm_90a

// -----

// No stage.
// expected-error @+1 {{stages 0 is out of range: expected 1 to 32}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    stages 0 target sm_90a

// -----

// Too many stages.
// expected-error @+1 {{stages 33 is out of range: expected 1 to 32}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    stages 33 target sm_90a

// -----

// One stage on sm_90a: a consumer holds two K/V slots at a time.
// expected-error @+1 {{stages 1 is not supported on sm_90a: expected at least 2 (a consumer releases a slot only after it has waited for the next one)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    stages 1 target sm_90a

// -----

// Four consumer warpgroups.
// expected-error @+1 {{consumers 4 is not supported: expected 1 to 3 consumer warpgroups}}
fmha.attention @attn (tensor<?x32x?x64xbf16>, tensor<?x8x?x64xbf16>,
                      tensor<?x8x?x64xbf16>)
    -> tensor<?x32x?x64xbf16>
    consumers 4 target sm_90a

// -----

// No consumer warpgroup.
// expected-error @+1 {{consumers 0 is not supported: expected 1 to 3 consumer warpgroups}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    consumers 0 target sm_90a

// -----

// Three consumer warpgroups are for wgmma (sm_90a).
// expected-error @+1 {{consumers 3 is not supported: expected 1 or 2 consumer warpgroups}}
fmha.attention @attn (tensor<?x32x?x64xbf16>, tensor<?x8x?x64xbf16>,
                      tensor<?x8x?x64xbf16>)
    -> tensor<?x32x?x64xbf16>
    consumers 3 target sm_100a

// -----

// Three consumers: not for KV caches.
// expected-error @+1 {{consumers 3 is for the dense and varlen layouts; kvcache kernels take 1 or 2 consumer warpgroups}}
fmha.attention @attn (tensor<?x1x32x64xbf16>, tensor<?x?x8x64xbf16>,
                      tensor<?x?x8x64xbf16>, tensor<?xi32>)
    -> tensor<?x1x32x64xbf16>
    kvcache consumers 3 target sm_90a

// -----

// Three consumers share the register file at 160 a thread: 64 x 160 at
// head dim 64 needs more (64 x 128 fits).
// expected-error @+1 {{consumer warpgroup needs 184 registers per thread (64x160 fp32 S + 64x160 bf16 P and softmax temporaries + 64x64 fp32 O tiles + 32 for the row and loop state), sm_90a consumer warpgroups get at most 160 with 3 of them}}
fmha.attention @attn (tensor<?x32x?x64xbf16>, tensor<?x8x?x64xbf16>,
                      tensor<?x8x?x64xbf16>)
    -> tensor<?x32x?x64xbf16>
    tile [64, 160] consumers 3 target sm_90a

// -----

// Shared memory: two 128-key K/V stages of head dim 256 do not fit.
// expected-error @+1 {{needs 327760 bytes of shared memory (Q/O 65536, K/V 262144, barriers 80), sm_90a has 232448}}
fmha.attention @attn (tensor<?x32x?x256xbf16>, tensor<?x8x?x256xbf16>,
                      tensor<?x8x?x256xbf16>)
    -> tensor<?x32x?x256xbf16>
    tile [64, 128] stages 2 target sm_90a

// -----

// Shared memory: three 64-key K/V stages of head dim 256 do not fit, though
// O is staged in the Q buffers.
// expected-error @+1 {{needs 262256 bytes of shared memory (Q/O 65536, K/V 196608, barriers 112), sm_90a has 232448}}
fmha.attention @attn (tensor<?x32x?x256xbf16>, tensor<?x8x?x256xbf16>,
                      tensor<?x8x?x256xbf16>)
    -> tensor<?x32x?x256xbf16>
    tile [64, 64] stages 3 consumers 2 target sm_90a

// -----

// Persistent attention exists on sm_90a only.
// expected-error @+1 {{schedule persistent is supported on sm_90a only}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16> schedule persistent target sm_100a

// -----

// An unknown schedule.
// expected-error @+4 {{expected ::mlir::fmha::Schedule to be one of: per_block, persistent}}
// expected-error @+3 {{failed to parse FMHA_ScheduleAttr parameter 'value'}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16> schedule dynamic target sm_90a

// -----

// Shared memory on sm_100a: too many stages.
// expected-error @+1 {{needs 458960 bytes of shared memory (Q/O 65536, K/V 393216, barriers 208), sm_100a has 232448}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [128, 128] stages 6 target sm_100a

// -----

// Registers (sm_90a): S and O of a 128x128 tile with head dim 128.
// expected-error @+1 {{consumer warpgroup needs 400 registers per thread (128x128 fp32 S + 128x128 bf16 P and softmax temporaries + 128x128 fp32 O tiles + 48 for the row and loop state), sm_90a consumer warpgroups get at most 240 (setmaxnreg, the producer at 24)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [128, 128] target sm_90a

// -----

// Registers (sm_90a): a 128-row tile at head dim 128 (the O tile alone takes
// 128 registers).
// expected-error @+1 {{consumer warpgroup needs 288 registers per thread (128x64 fp32 S + 128x64 bf16 P and softmax temporaries + 128x128 fp32 O tiles + 48 for the row and loop state), sm_90a consumer warpgroups get at most 240 (setmaxnreg, the producer at 24)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    tile [128, 64] target sm_90a

// -----

// Registers (sm_90a): the smallest K/V step at head dim 128 with 64-row
// tiles that does not fit (ptxas spills it).
// expected-error @+1 {{consumer warpgroup needs 250 registers per thread (64x176 fp32 S + 64x176 bf16 P and softmax temporaries + 64x128 fp32 O tiles + 32 for the row and loop state), sm_90a consumer warpgroups get at most 240 (setmaxnreg, the producer at 24)}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [37, 5] tile [64, 176] stages 2 target sm_90a

// -----

// Tensor memory (sm_100a): two consumer tiles of head dim 256.
// expected-error @+1 {{needs 640 tensor memory columns (2 consumer tiles x (64 S/P + 256 O) fp32 columns), sm_100a has 512}}
fmha.attention @attn (tensor<?x32x?x256xbf16>, tensor<?x8x?x256xbf16>,
                      tensor<?x8x?x256xbf16>)
    -> tensor<?x32x?x256xbf16>
    tile [128, 64] consumers 2 target sm_100a

// -----

//===----------------------------------------------------------------------===//
// fmha.gemm
//===----------------------------------------------------------------------===//

// An empty signature.
// expected-error @+1 {{expects 2 inputs (a, b) or 4 (a, b, scale_a, scale_b), got 0}}
fmha.gemm @gemm () -> () target sm_90a

// -----

// One input.
// expected-error @+1 {{expects 2 inputs (a, b) or 4 (a, b, scale_a, scale_b), got 1}}
fmha.gemm @gemm (tensor<?x?xbf16>) -> tensor<?x?xbf16> target sm_90a

// -----

// Two results.
// expected-error @+1 {{expects 1 result (c), got 2}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> (tensor<?x?xbf16>, tensor<?x?xbf16>)
    target sm_90a

// -----

// a of the wrong rank.
// expected-error @+1 {{a must be a rank-2 tensor [M, K], got 'tensor<?x?x?xbf16>'}}
fmha.gemm @gemm (tensor<?x?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    target sm_90a

// -----

// b that is not a tensor.
// expected-error @+1 {{b must be a rank-2 tensor [K, N], got 'f32'}}
fmha.gemm @gemm (tensor<?x?xbf16>, f32) -> tensor<?x?xbf16> target sm_90a

// -----

// b of the wrong rank, given as [N, K].
// expected-error @+1 {{b must be a rank-2 tensor [N, K], got 'tensor<?xbf16>'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// An unranked c.
// expected-error @+1 {{c must be a rank-2 tensor [M, N], got 'tensor<*xbf16>'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<*xbf16>
    target sm_90a

// -----

// A static size of 0.
// expected-error @+1 {{a M is 0; sizes must be positive or dynamic (?)}}
fmha.gemm @gemm (tensor<0x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    target sm_90a

// -----

// An unsupported input element type.
// expected-error @+1 {{a element type 'f32' is not supported: expected bf16 or f16}}
fmha.gemm @gemm (tensor<?x?xf32>, tensor<?x?xf32>)
    -> tensor<?x?xf32>
    target sm_90a

// -----

// fp8 without scales.
// expected-error @+1 {{fp8 a and b need scales: expected 4 inputs (a, b, scale_a, scale_b), got 2}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// Three inputs.
// expected-error @+1 {{expects 2 inputs (a, b) or 4 (a, b, scale_a, scale_b), got 3}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// Scales on bf16 inputs.
// expected-error @+1 {{scale_a and scale_b are for fp8 a and b only, not 'bf16'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// A scale of the wrong rank.
// expected-error @+1 {{scale_a must be a rank-1 tensor [1 or M], got 'tensor<?x1xf32>'}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<?x1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// A scale of the wrong element type.
// expected-error @+1 {{scale_b element type 'bf16' is not supported: expected f32}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xbf16>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// A scale that is neither one value nor one per row.
// expected-error @+1 {{scale_a has 64 values: expected 1 (one scale for the tensor) or M = 128 (one per row of a)}}
fmha.gemm @gemm (tensor<128x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<64xf32>,
                 tensor<?xf32>)
    -> tensor<128x?xbf16>
    transpose_b target sm_90a

// -----

// A scale that is neither one value nor one per column.
// expected-error @+1 {{scale_b has 64 values: expected 1 (one scale for the tensor) or N = 256 (one per column of b)}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<256x?xf8E4M3FN>, tensor<?xf32>,
                 tensor<64xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// fp8 with b given as [K, N].
// expected-error @+1 {{fp8 needs transpose_b (b as [N, K]): fp8 MMAs read both operands K-major}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    target sm_90a

// -----

// fp8 a with a bf16 b.
// expected-error @+1 {{b element type 'bf16' does not match a's fp8 'f8E4M3FN': expected f8E4M3FN or f8E5M2}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xbf16>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// fp8 b with a bf16 a.
// expected-error @+1 {{b is fp8 ('f8E5M2') but a is 'bf16': expected both fp8 or neither}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xf8E5M2>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// Both fp8 operands e5m2.
// expected-error @+1 {{a and b are both f8E5M2: at most one fp8 operand may be f8E5M2 (as torch._scaled_mm), the other f8E4M3FN}}
fmha.gemm @gemm (tensor<?x?xf8E5M2>, tensor<?x?xf8E5M2>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// fp8 rows that TMA cannot address.
// expected-error @+1 {{rows of A are 200 bytes; TMA needs a multiple of 16 (pad K to a multiple of 16)}}
fmha.gemm @gemm (tensor<?x200xf8E4M3FN>, tensor<?x200xf8E4M3FN>,
                 tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

// fp8 block_k not a multiple of the fp8 MMA K.
// expected-error @+1 {{block_k 16 is not supported: expected a multiple of 32 (the MMA K step of fp8 inputs)}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 16] target sm_90a

// -----

// fp8 block_k of two swizzle spans.
// expected-error @+1 {{block_k 256 spans two 128-byte swizzle spans, which needs 16-bit inputs on sm_90a without multicast or schedule pingpong}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 256] target sm_90a

// -----

// Accumulate promotion every 0 K steps.
// expected-error @+1 {{promote_every 0 is not supported: expected at least 1 (K steps per promotion)}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 128] promote_every 0 target sm_90a

// -----

// Accumulate promotion of a bf16 GEMM.
// expected-error @+1 {{promote_every is for fp8 a and b only, not 'bf16' (16-bit wgmma accumulates in f32)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] promote_every 4 target sm_90a

// -----

// Accumulate promotion with the ping-pong schedule.
// expected-error @+1 {{promote_every cannot be combined with schedule pingpong: the consumers' main loops take turns whole, not in groups of K steps}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 128] consumers 2 schedule pingpong
    promote_every 4 target sm_90a

// -----

// Accumulate promotion doubles the accumulator registers: a 128 x 128 tile
// does not fit.
// expected-error @+1 {{consumer warpgroup needs 264 registers per thread (128x128 fp32 tile x 2 (promote_every: the wgmma chain's and the running sum) + 8 for addresses and loop state)}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 128] promote_every 4 target sm_90a

// -----

// Accumulate promotion on sm_100a.
// expected-error @+1 {{promote_every is supported on sm_90a only, not sm_100a (tcgen05.mma accumulates fp8 products in f32)}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>)
    -> tensor<?x?xbf16>
    transpose_b promote_every 4 target sm_100a

// -----

// Per-column scales whose registers do not fit beside the accumulator.
// expected-error @+1 {{consumer warpgroup needs 248 registers per thread (128x192 fp32 tile + 8 for addresses and loop state + 48 for per-column scales), sm_90a consumer warpgroups get at most 240}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<?xf32>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 192, 64] stages 2 target sm_90a

// -----

// a and b element types differ.
// expected-error @+1 {{b element type 'f16' does not match a element type 'bf16'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xf16>)
    -> tensor<?x?xbf16>
    target sm_90a

// -----

// An unsupported result element type.
// expected-error @+1 {{c element type 'i32' is not supported: expected bf16, f16 or f32}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xi32>
    target sm_90a

// -----

// An fp8 result.
// expected-error @+1 {{c: fp8 ('f8E4M3FN') is not supported: expected bf16, f16 or f32}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xf8E4M3FN>
    target sm_90a

// -----

// K of a and b differ.
// expected-error @+1 {{b K 1024 does not match a K 4096 (b is [K, N]; use transpose_b for [N, K])}}
fmha.gemm @gemm (tensor<?x4096xbf16>, tensor<1024x4096xbf16>)
    -> tensor<?x4096xbf16>
    target sm_90a

// -----

// K of a and b differ, b given as [N, K].
// expected-error @+1 {{b K 1024 does not match a K 4096 (b is [N, K] with transpose_b)}}
fmha.gemm @gemm (tensor<?x4096xbf16>, tensor<4096x1024xbf16>)
    -> tensor<?x4096xbf16>
    transpose_b target sm_90a

// -----

// M of c differs from M of a.
// expected-error @+1 {{c M 256 does not match a M 128}}
fmha.gemm @gemm (tensor<128x?xbf16>, tensor<?x?xbf16>)
    -> tensor<256x?xbf16>
    target sm_90a

// -----

// N of c differs from N of b.
// expected-error @+1 {{c N 512 does not match b N 1024}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<1024x?xbf16>)
    -> tensor<?x512xbf16>
    transpose_b target sm_90a

// -----

// TMA: rows of A are not a multiple of 16 bytes.
// expected-error @+1 {{rows of A are 2002 bytes; TMA needs a multiple of 16 (pad K to a multiple of 8)}}
fmha.gemm @gemm (tensor<?x1001xbf16>, tensor<1001x?xbf16>)
    -> tensor<?x?xbf16>
    target sm_90a

// -----

// TMA: rows of B ([K, N]) are not a multiple of 16 bytes.
// expected-error @+1 {{rows of B are 2002 bytes; TMA needs a multiple of 16 (pad N to a multiple of 8)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x1001xbf16>)
    -> tensor<?x1001xbf16>
    target sm_90a

// -----

// TMA: rows of an f32 C are not a multiple of 16 bytes.
// expected-error @+1 {{rows of C are 4008 bytes; TMA needs a multiple of 16 (pad N to a multiple of 4)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<1002x?xbf16>)
    -> tensor<?x1002xf32>
    transpose_b target sm_90a

// -----

// A tile with two sizes.
// expected-error @+1 {{tile needs 3 sizes [block_m, block_n, block_k], got 2}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 128] target sm_90a

// -----

// block_m is not 64 or 128.
// expected-error @+1 {{block_m 256 is not supported: expected 64 or 128 (a wgmma covers 64 rows of a warpgroup's tile)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [256, 128, 64] target sm_90a

// -----

// block_n not a multiple of 8.
// expected-error @+1 {{block_n 100 is not supported: expected a multiple of 8 from 8 to 256}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 100, 64] target sm_90a

// -----

// block_n larger than one MMA.
// expected-error @+1 {{block_n 264 is not supported: expected a multiple of 8 from 8 to 256}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [64, 264, 64] target sm_90a

// -----

// block_k not a multiple of the MMA K.
// expected-error @+1 {{block_k 24 is not supported: expected a multiple of 16 (the MMA K step of 16-bit inputs)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 128, 24] target sm_90a

// -----

// block_k wider than two swizzle spans.
// expected-error @+1 {{block_k 256 spans 512 bytes of 'bf16': expected 32, 64 or 128 bytes (one TMA swizzle span), i.e. block_k 16, 32 or 64, or two 128-byte spans (block_k 128)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [64, 64, 256] target sm_90a

// -----

// Two swizzle spans of K with TMA multicast.
// expected-error @+1 {{block_k 128 spans two 128-byte swizzle spans, which needs 16-bit inputs on sm_90a without multicast or schedule pingpong}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 128] stages 2 multicast 2 target sm_90a

// -----

// block_k that is no swizzle span.
// expected-error @+1 {{block_k 48 spans 96 bytes of 'bf16': expected 32, 64 or 128 bytes (one TMA swizzle span), i.e. block_k 16, 32 or 64, or two 128-byte spans (block_k 128)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 128, 48] target sm_90a

// -----

// Too many stages.
// expected-error @+1 {{stages 33 is out of range: expected 1 to 32}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    stages 33 target sm_90a

// -----

// One stage on sm_90a.
// expected-error @+1 {{stages 1 is not supported on sm_90a: expected at least 2 (a consumer releases a slot only after it has waited for the next one)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    stages 1 target sm_90a

// -----

// Negative stages.
// expected-error @+1 {{stages -1 is out of range: expected 1 to 32}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    stages -1 target sm_90a

// -----

// Four consumer warpgroups (a GEMM has at most three on sm_90a).
// expected-error @+1 {{consumers 4 is not supported: expected 1 to 3 consumer warpgroups}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [64, 128, 64] consumers 4 target sm_90a

// -----

// Three consumer warpgroups on sm_100a (two at most there).
// expected-error @+1 {{consumers 3 is not supported: expected 1 or 2 consumer warpgroups}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 128, 64] consumers 3 target sm_100a

// -----

// Three consumers keep within the 128 registers a thread of a 512-thread
// CTA starts with: a 64 x 256 tile needs more.
// expected-error @+1 {{consumer warpgroup needs 136 registers per thread (64x256 fp32 tile + 8 for addresses and loop state), sm_90a consumer warpgroups get at most 128 with 3 of them}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b tile [64, 256, 64] consumers 3 target sm_90a

// -----

// Shared memory: 4 stages of 2 x 128x256 tiles.
// expected-error @+1 {{needs 393280 bytes of shared memory (A 131072, B 131072, C staging 131072, barriers 64), sm_90a has 232448}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 256, 64] stages 4 target sm_90a

// -----

// Shared memory: the f32 C staging of the default tile leaves no room for 4 stages.
// expected-error @+1 {{needs 327744 bytes of shared memory (A 131072, B 65536, C staging 131072, barriers 64), sm_90a has 232448}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xf32>
    stages 4 target sm_90a

// -----

// Registers (sm_90a): a 128x256 accumulator per consumer.
// expected-error @+1 {{consumer warpgroup needs 264 registers per thread (128x256 fp32 tile + 8 for addresses and loop state), sm_90a consumer warpgroups get at most 240 (setmaxnreg, the producer at 24)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 256, 64] stages 2 consumers 1 target sm_90a

// -----

// Tensor memory (sm_100a): two double-buffered 256-column accumulators.
// expected-error @+1 {{needs 1024 tensor memory columns (2 consumer tiles x 2 x 256 double-buffered fp32 accumulator columns), sm_100a has 512}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 256, 64] target sm_100a

// -----

// 2-CTA mode: three CTAs per MMA.
// expected-error @+1 {{ctas 3 is not supported: expected 1 or 2 CTAs per MMA}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 256, 64] consumers 1 ctas 3 target sm_100a

// -----

// 2-CTA mode on sm_90a.
// expected-error @+1 {{ctas 2 needs sm_100a (tcgen05.mma.cta_group::2), not sm_90a}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 128, 64] ctas 2 target sm_90a

// -----

// 2-CTA mode: 64 rows per CTA are not half of an M = 256 MMA.
// expected-error @+1 {{block_m 64 is not supported with ctas 2: expected 128 (each CTA holds 128 rows of the pair's M = 256 MMA)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [64, 128, 64] ctas 2 target sm_100a

// -----

// 2-CTA mode: N of a cta_group::2 MMA is a multiple of 16.
// expected-error @+1 {{block_n 24 is not supported with ctas 2: expected a multiple of 16 (each CTA loads block_n / 2 rows of B)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    tile [128, 24, 64] ctas 2 target sm_100a

// -----

// TMA multicast: three CTAs sharing B.
// expected-error @+1 {{multicast 3 is not supported: expected 1 or 2 CTAs sharing each B tile}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b multicast 3 target sm_100a

// -----

// TMA multicast with 2-CTA mode.
// expected-error @+1 {{multicast 2 cannot be combined with ctas 2: in 2-CTA mode the CTAs already load separate halves of B}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 256, 64] consumers 1 ctas 2 multicast 2 target sm_100a

// -----

// TMA multicast, B as [N, K]: halves of 12 rows split a swizzle pattern.
// expected-error @+1 {{block_n 24 is not supported with multicast 2: each CTA loads block_n / 2 rows of B, which must be a multiple of 8 (a swizzle pattern), so block_n a multiple of 16}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16>
    transpose_b tile [128, 24, 64] multicast 2 target sm_100a


// -----

// Ping-pong on sm_100a, whose epilogue warpgroups overlap the MMAs already.
// expected-error @+1 {{schedule pingpong is supported on sm_90a only, not sm_100a (its epilogue warpgroups already overlap the MMAs)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b schedule pingpong target sm_100a

// -----

// Ping-pong with one consumer: nobody to take turns with.
// expected-error @+1 {{schedule pingpong needs consumers 2 (the consumer warpgroups take turns), got 1}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 1 schedule pingpong
    target sm_90a

// -----

// Ping-pong with TMA multicast.
// expected-error @+1 {{schedule pingpong cannot be combined with multicast 2: the CTAs of a cluster compute their tiles in step}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] multicast 2 schedule pingpong target sm_90a

// -----

// Ping-pong: a slot holds one A and one B tile, so five stages of
// 128x128x64 fit beside the two C tiles, six do not.
// expected-error @+1 {{'fmha.gemm' op needs 262240 bytes of shared memory (A 98304, B 98304, C staging 65536, barriers 96), sm_90a has 232448}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] stages 6 schedule pingpong target sm_90a

// -----

// Split-K with no K range.
// expected-error @+1 {{splits 0 is not supported: expected at least 1 (the K ranges of each tile)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b splits 0 target sm_90a

// -----

// Split-K with more K ranges than K steps: K = 200 is four steps of 64.
// expected-error @+1 {{splits 5 exceeds the 4 K steps of block_k 64 (K = 200): every K range needs a step}}
fmha.gemm @gemm (tensor<?x200xbf16>, tensor<?x200xbf16>) -> tensor<?x?xbf16>
    transpose_b splits 5 target sm_90a

// -----

// Split-K on sm_100a: not built.
// expected-error @+1 {{splits 2 is supported on sm_90a only, not sm_100a}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b splits 2 target sm_100a

// -----

// Split-K with TMA multicast.
// expected-error @+1 {{splits 2 cannot be combined with multicast 2: a split-K work item is one CTA's tile and K range}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] multicast 2 splits 2 target sm_90a

// -----

// Split-K with the ping-pong schedule.
// expected-error @+1 {{splits 2 cannot be combined with schedule pingpong: a split-K work item is one CTA's tile and K range}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] stages 4 schedule pingpong splits 2
    target sm_90a

// -----

// Swapped operands with fp8 inputs.
// expected-error @+1 {{swap_ab is for bf16 and f16 inputs, not 'f8E4M3FN'}}
fmha.gemm @gemm (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>,
                 tensor<1xf32>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 128] target sm_90a

// -----

// Swapped operands on sm_100a.
// expected-error @+1 {{swap_ab is supported on sm_90a only, not sm_100a}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] target sm_100a

// -----

// Swapped operands with two consumers.
// expected-error @+1 {{swap_ab needs consumers 1 (the consumer's columns of c are the MMA's M), got 2}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] consumers 2 target sm_90a

// -----

// Swapped operands with the ping-pong schedule.
// expected-error @+1 {{swap_ab cannot be combined with schedule pingpong: a swapped tile is computed by one consumer of one CTA}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] consumers 1 schedule pingpong
    target sm_90a

// -----

// Swapped operands with TMA multicast.
// expected-error @+1 {{swap_ab cannot be combined with multicast 2: a swapped tile is computed by one consumer of one CTA}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] multicast 2 target sm_90a

// -----

// Swapped operands: block_m is the MMA's N, a multiple of 8.
// expected-error @+1 {{block_m 12 is not supported with swap_ab: expected a multiple of 8 from 8 to 256 (the rows of a are the MMA's N)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [12, 64, 64] target sm_90a

// -----

// Swapped operands: block_n is the MMA's M, a multiple of 64.
// expected-error @+1 {{block_n 32 is not supported with swap_ab: expected a multiple of 64 up to 256 (the rows of b are the MMA's M, 64 per wgmma)}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 32, 64] target sm_90a

// -----

// Swapped operands: 26 stages of 9 KiB (64 rows of B, 8 of A) do not fit.
// expected-error @+1 {{needs 241056 bytes of shared memory (A 26624, B 212992, C staging 1024, barriers 416), sm_90a has 232448}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] stages 26 target sm_90a

// -----

//===----------------------------------------------------------------------===//
// Structure, parsing and malformed IR
//===----------------------------------------------------------------------===//

// Kernels are module-level symbols.
func.func @not_in_a_module() {
  // expected-error @+1 {{'fmha.gemm' op expects parent op 'builtin.module'}}
  fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
      target sm_90a
  return
}

// -----

// An unknown target.
// expected-error @+3 {{expected ::mlir::fmha::Target to be one of: sm_90a, sm_100a}}
// expected-error @+2 {{failed to parse FMHA_TargetAttr parameter 'value'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    target sm_80 {sym_visibility = "private"}

// -----

// The target is required.
// expected-error @+2 {{expected 'target'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    tile [128, 128, 64] {sym_visibility = "private"}

// -----

// Configuration keywords come in their documented order.
// expected-error @+2 {{expected 'target'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    stages 2 transpose_b target sm_90a

// -----

// A keyword without its value.
// expected-error @+3 {{expected '['}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16>
    window target sm_90a

// -----

// The scale is a floating-point literal.
// expected-error @+4 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+3 {{add a trailing dot to make the literal a float}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16>
    scale 2 target sm_90a

// -----

// The signature is a function type.
// expected-error @+1 {{'fmha.gemm' op attribute 'function_type' failed to satisfy constraint: type attribute of function type}}
fmha.gemm @gemm tensor<?x?xbf16> target sm_90a

// -----

// A configuration value too large for an i64.
// expected-error @+2 {{integer constant out of range for attribute}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    stages 99999999999999999999 target sm_90a

// -----

// Tile sizes that would overflow the resource arithmetic are rejected first.
// expected-error @+1 {{block_m 9223372036854775807 is not supported}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    tile [9223372036854775807, 9223372036854775807, -9223372036854775808] target sm_90a

// -----

// Generic form: no attributes at all.
// expected-error @+1 {{'fmha.gemm' op requires attribute 'function_type'}}
"fmha.gemm"() : () -> ()

// -----

// Generic form: a signature that is not a function type.
// expected-error @+1 {{'fmha.gemm' op attribute 'function_type' failed to satisfy constraint: type attribute of function type}}
"fmha.gemm"() <{function_type = i32, sym_name = "gemm", target = #fmha<target sm_90a>}> : () -> ()

// -----

// Generic form: a target that is not an fmha target attribute.
// expected-error @+1 {{invalid properties}}
"fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>, sym_name = "gemm", target = 3 : i32}> : () -> ()

// -----

// Generic form: a tile that is not an i64 array.
// expected-error @+1 {{invalid properties}}
"fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>, sym_name = "gemm", target = #fmha<target sm_90a>, tile = [128, 128, 64]}> : () -> ()

// -----

// Generic form: stages of the wrong integer type.
// expected-error @+1 {{'fmha.gemm' op attribute 'stages' failed to satisfy constraint: 64-bit signless integer attribute}}
"fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>, stages = 2 : i32, sym_name = "gemm", target = #fmha<target sm_90a>}> : () -> ()

// -----

// Generic form: an f32 scale.
// expected-error @+1 {{'fmha.attention' op attribute 'scale' failed to satisfy constraint: 64-bit float attribute}}
"fmha.attention"() <{function_type = (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16>, scale = 1.250000e-01 : f32, sym_name = "attn", target = #fmha<target sm_90a>}> : () -> ()

// -----

// Generic form: every input and result of the wrong kind.
// expected-error @+1 {{q must be a rank-4 tensor [batch, heads_q, seq_q, head_dim], got 'none'}}
"fmha.attention"() <{function_type = (none, index, vector<4xf32>) -> (i1, tensor<f32>), sym_name = "attn", target = #fmha<target sm_90a>}> : () -> ()

// -----

// Two kernels with the same name.
// expected-note @+1 {{see existing symbol definition here}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    target sm_90a
// expected-error @+1 {{redefinition of symbol named 'gemm'}}
fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    target sm_100a

// -----

// kvcache without cache_seqlens.
// expected-error @+1 {{kvcache expects 4 inputs (q, k_cache, v_cache, cache_seqlens) or 5 (and block_table), got 3}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// varlen and kvcache together.
// expected-error @+1 {{varlen and kvcache exclude each other: a kernel reads packed sequences or caches, not both}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen kvcache target sm_90a

// -----

// kvcache with the varlen (rank-3) layout.
// expected-error @+1 {{q must be a rank-4 tensor [batch, seq_q, heads_q, head_dim], got 'tensor<?x32x128xbf16>'}}
fmha.attention @attn (tensor<?x32x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> kvcache target sm_90a

// -----

// A rank-2 cache_seqlens.
// expected-error @+1 {{cache_seqlens must be a rank-1 tensor [batch], got 'tensor<?x1xi32>'}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?x1xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A rank-1 block_table.
// expected-error @+1 {{block_table must be a rank-2 tensor [batch, max_pages], got 'tensor<?xi32>'}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// Paged caches of rank 3.
// expected-error @+1 {{k must be a rank-4 tensor [num_pages, page_size, heads_kv, head_dim], got 'tensor<?x8x128xbf16>'}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// cache_seqlens of i64.
// expected-error @+1 {{cache_seqlens element type 'i64' is not supported: expected i32}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?xi64>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A block_table of i64.
// expected-error @+1 {{block_table element type 'i64' is not supported: expected i32}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?x?xi64>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A dynamic page size.
// expected-error @+1 {{page_size (dim 1 of k and v) must be static: the kernel's K/V boxes are cut to pages}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A page size that is not a power of two.
// expected-error @+1 {{page_size 48 is not supported: expected a power of two from 16 to 256}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x48x8x128xbf16>,
                      tensor<?x48x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// Pages of 8 rows: too small.
// expected-error @+1 {{page_size 8 is not supported: expected a power of two from 16 to 256}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x8x8x128xbf16>,
                      tensor<?x8x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// Pages of 512 rows: too large.
// expected-error @+1 {{page_size 512 is not supported: expected a power of two from 16 to 256}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x512x8x128xbf16>,
                      tensor<?x512x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A K/V tile across pages.
// expected-error @+1 {{block_n 128 is larger than page_size 64: a K/V tile must lie inside one page}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache tile [64, 128] target sm_90a

// -----

// Pages of k and v of different sizes.
// expected-error @+1 {{v page_size 32 does not match k page_size 64}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x32x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// A dense cache of another batch.
// expected-error @+1 {{k batch 3 does not match q batch 2}}
fmha.attention @attn (tensor<2x1x32x128xbf16>, tensor<3x?x8x128xbf16>,
                      tensor<3x?x8x128xbf16>, tensor<?xi32>)
    -> tensor<2x1x32x128xbf16> kvcache target sm_90a

// -----

// cache_seqlens of another batch.
// expected-error @+1 {{cache_seqlens batch 3 does not match q batch 2}}
fmha.attention @attn (tensor<2x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<3xi32>, tensor<?x?xi32>)
    -> tensor<2x1x32x128xbf16> kvcache target sm_90a

// -----

// A block_table of another batch.
// expected-error @+1 {{block_table batch 3 does not match q batch 2}}
fmha.attention @attn (tensor<2x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<3x?xi32>)
    -> tensor<2x1x32x128xbf16> kvcache target sm_90a

// -----

// The kvcache LSE is [batch, heads_q, seq_q].
// expected-error @+1 {{lse seq_q 32 does not match q seq_q 4}}
fmha.attention @attn (tensor<?x4x32x128xbf16>, tensor<?x64x8x128xbf16>,
                      tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x4x32x128xbf16>, tensor<?x32x32xf32>) kvcache
    target sm_90a

// -----

// GQA with the kvcache layout: heads are dim 2.
// expected-error @+1 {{GQA ratio: 32 query heads are not a multiple of 5 KV heads}}
fmha.attention @attn (tensor<?x1x32x128xbf16>, tensor<?x64x5x128xbf16>,
                      tensor<?x64x5x128xbf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x1x32x128xbf16> kvcache target sm_90a

// -----

// pack_gqa without a KV cache.
// expected-error @+1 {{pack_gqa needs kvcache: it shapes decode against a KV cache}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16> pack_gqa target sm_90a

// -----

// split_kv without a KV cache.
// expected-error @+1 {{split_kv needs kvcache: it shapes decode against a KV cache}}
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16> split_kv target sm_90a

// -----

// pack_gqa with a dynamic number of query heads.
// expected-error @+1 {{pack_gqa needs static heads_q and heads_kv: the group size sets the kernel's Q and O boxes}}
fmha.attention @attn (tensor<?x1x?x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?xi32>)
    -> tensor<?x1x?x128xbf16> kvcache pack_gqa target sm_90a

// -----

// pack_gqa with a group that does not divide block_m.
// expected-error @+1 {{pack_gqa: the group of 3 query heads per KV head must divide block_m 64 (a Q tile holds block_m / group positions of the group)}}
fmha.attention @attn (tensor<?x1x24x128xbf16>, tensor<?x?x8x128xbf16>,
                      tensor<?x?x8x128xbf16>, tensor<?xi32>)
    -> tensor<?x1x24x128xbf16> kvcache pack_gqa target sm_90a

// -----

// split_kv with 64 packed query heads at head dim 256: the merge's chunks
// hold whole groups (64 rows), and five of them do not fit.
// expected-error @+1 {{consumer warpgroup needs 688 registers per thread (split_kv's merge: 5 64x256 fp32 chunks (the running sum and the partials loaded together) + 16 for their addresses + 32 for the row and loop state)}}
fmha.attention @attn (tensor<?x1x64x256xbf16>, tensor<?x?x1x256xbf16>,
                      tensor<?x?x1x256xbf16>, tensor<?xi32>)
    -> tensor<?x1x64x256xbf16> kvcache pack_gqa split_kv consumers 1
    target sm_90a

//===----------------------------------------------------------------------===//
// fmha.merge_states
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expects 2 inputs (o_states, lse_states), got 1}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{expects 2 results (o, lse), got 1}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> tensor<?x?x?x128xbf16> target sm_90a

// -----

// The states without their leading dimension.
// expected-error @+1 {{o_states must be a rank-5 tensor [states, batch, seq, heads, head_dim], got 'tensor<?x?x?x128xbf16>'}}
fmha.merge_states @m (tensor<?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{lse must be a rank-3 tensor [batch, heads, seq], got 'tensor<?x?xf32>'}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{o_states heads is 0; sizes must be positive or dynamic (?)}}
fmha.merge_states @m (tensor<?x?x?x0x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{o_states element type 'f32' is not supported: expected bf16 or f16}}
fmha.merge_states @m (tensor<?x?x?x?x128xf32>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xf32>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{o element type 'f16' does not match o_states element type 'bf16'}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{lse_states element type 'bf16' is not supported: expected f32}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xbf16>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{lse element type 'f16' is not supported: expected f32}}
fmha.merge_states @m (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf16>) target sm_90a

// -----

// expected-error @+1 {{lse_states states 3 does not match o_states states 2}}
fmha.merge_states @m (tensor<2x?x?x?x128xbf16>, tensor<3x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// lse_states is [states, batch, heads, seq]: heads before seq.
// expected-error @+1 {{lse_states heads 100 does not match o_states heads 8}}
fmha.merge_states @m (tensor<?x?x100x8x128xbf16>, tensor<?x?x100x8xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{o seq 7 does not match o_states seq 5}}
fmha.merge_states @m (tensor<?x?x5x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x7x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{lse batch 3 does not match o_states batch 2}}
fmha.merge_states @m (tensor<?x2x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<3x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{head_dim must be static (in o_states or o)}}
fmha.merge_states @m (tensor<?x?x?x?x?xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x?xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{head_dim 100 is not supported: expected a multiple of 8 (rows move in 16-byte pieces) up to 512}}
fmha.merge_states @m (tensor<?x?x?x?x100xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x100xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{head_dim 1024 is not supported}}
fmha.merge_states @m (tensor<?x?x?x?x1024xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x1024xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{heads 70000 is too large: the grid has heads CTAs along y and batch along z, at most 65535}}
fmha.merge_states @m (tensor<?x?x?x70000x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// expected-error @+1 {{batch 70000 is too large}}
fmha.merge_states @m (tensor<?x70000x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

//===----------------------------------------------------------------------===//
// fmha.append_kv
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expects 3 inputs (k_new, v_new, cache_seqlens) or 4 (and block_table), got 2}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{expects 2 results (k_cache, v_cache), got 1}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>) -> tensor<?x?x8x128xbf16> target sm_90a

// -----

// expected-error @+1 {{cache_seqlens must be a rank-1 tensor [batch], got 'tensor<?x?xi32>'}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?x?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{k_new element type 'f32' is not supported: expected bf16 or f16}}
fmha.append_kv @a (tensor<?x?x8x128xf32>, tensor<?x?x8x128xf32>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x128xf32>, tensor<?x?x8x128xf32>) target sm_90a

// -----

// expected-error @+1 {{v_cache element type 'f16' does not match k_new element type 'bf16'}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf16>) target sm_90a

// -----

// expected-error @+1 {{cache_seqlens element type 'i64' is not supported: expected i32}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi64>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{block_table element type 'i64' is not supported: expected i32}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>, tensor<?x?xi64>)
    -> (tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{v_new seq_new 2 does not match k_new seq_new 1}}
fmha.append_kv @a (tensor<?x1x8x128xbf16>, tensor<?x2x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{v_cache capacity 512 does not match k_cache capacity 256}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x256x8x128xbf16>, tensor<?x512x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{cache_seqlens batch 3 does not match k_new batch 2}}
fmha.append_kv @a (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>,
                   tensor<3xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{k_cache heads_kv 4 does not match k_new heads_kv 8}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{k_cache head_dim 64 does not match k_new head_dim 128}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>) target sm_90a

// -----

// expected-error @+1 {{block_table batch 3 does not match k_new batch 2}}
fmha.append_kv @a (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>,
                   tensor<?xi32>, tensor<3x?xi32>)
    -> (tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>) target sm_90a

// -----

// A dense cache holds one sequence per batch entry.
// expected-error @+1 {{k_cache batch 3 does not match k_new batch 2}}
fmha.append_kv @a (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<3x?x8x128xbf16>, tensor<3x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{page_size (k_cache dimension 1) must be a static power of two of at least 16, got 48}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x48x8x128xbf16>, tensor<?x48x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{page_size (k_cache dimension 1) must be a static power of two of at least 16, got ?}}
fmha.append_kv @a (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                   tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// expected-error @+1 {{head_dim must be static (in k_new or k_cache)}}
fmha.append_kv @a (tensor<?x?x8x?xbf16>, tensor<?x?x8x?xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x?xbf16>, tensor<?x?x8x?xbf16>) target sm_90a

// -----

// expected-error @+1 {{head_dim 100 is not supported: expected a multiple of 8 (rows move in 16-byte pieces) up to 512}}
fmha.append_kv @a (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>) target sm_90a

// -----

// expected-error @+1 {{heads_kv 70000 is too large: the grid has heads_kv CTAs along y and batch along z, at most 65535}}
fmha.append_kv @a (tensor<?x?x70000x128xbf16>, tensor<?x?x70000x128xbf16>,
                   tensor<?xi32>)
    -> (tensor<?x?x70000x128xbf16>, tensor<?x?x70000x128xbf16>) target sm_90a

//===----------------------------------------------------------------------===//
// fmha.transpose_values
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expects 1 input (v) and 1 result (vt), got 0 and 1}}
fmha.transpose_values @t () -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{expects 1 input (v) and 1 result (vt), got 2 and 1}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>,
                          tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{expects 1 input (v) and 1 result (vt), got 1 and 0}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>) -> () target sm_90a

// -----

// expected-error @+1 {{expects 1 input (v) and 1 result (vt), got 1 and 2}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> (tensor<?x8x128x?xf8E4M3FN>, tensor<?x8x128x?xf8E4M3FN>) target sm_90a

// -----

// v without its batch dimension.
// expected-error @+1 {{v must be a rank-4 tensor [batch, heads_kv, seq_k, head_dim], got 'tensor<8x?x128xf8E4M3FN>'}}
fmha.transpose_values @t (tensor<8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{v must be a rank-4 tensor [batch, heads_kv, seq_k, head_dim], got 'tensor<*xf8E4M3FN>'}}
fmha.transpose_values @t (tensor<*xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{vt must be a rank-4 tensor [batch, heads_kv, head_dim, keys], got 'tensor<8x128x?xf8E4M3FN>'}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{v seq_k is 0; sizes must be positive or dynamic (?)}}
fmha.transpose_values @t (tensor<?x8x0x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{vt keys is 0; sizes must be positive or dynamic (?)}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x0xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{v seq_k 3000000000 is too large: sizes are i32 in the kernel and its manifest, at most 2147483647}}
fmha.transpose_values @t (tensor<?x8x3000000000x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{v element type 'bf16' is not supported: expected f8E4M3FN or f8E5M2}}
fmha.transpose_values @t (tensor<?x8x?x128xbf16>)
    -> tensor<?x8x128x?xbf16> target sm_90a

// -----

// expected-error @+1 {{vt element type 'f8E5M2' does not match v element type 'f8E4M3FN'}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E5M2> target sm_90a

// -----

// expected-error @+1 {{vt batch 3 does not match v batch 2}}
fmha.transpose_values @t (tensor<2x8x?x128xf8E4M3FN>)
    -> tensor<3x8x128x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{vt heads_kv 4 does not match v heads_kv 8}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x4x128x?xf8E4M3FN> target sm_90a

// -----

// vt is [batch, heads_kv, head_dim, keys]: head_dim before keys.
// expected-error @+1 {{vt head_dim 64 does not match v head_dim 128}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x64x128xf8E4M3FN> target sm_90a

// -----

// Padded past the last group of 16 keys.
// expected-error @+1 {{vt keys 128 must be seq_k 100 rounded up to a multiple of 16, 112}}
fmha.transpose_values @t (tensor<?x8x100x128xf8E4M3FN>)
    -> tensor<?x8x128x128xf8E4M3FN> target sm_90a

// -----

// Not padded.
// expected-error @+1 {{vt keys 100 must be seq_k 100 rounded up to a multiple of 16, 112}}
fmha.transpose_values @t (tensor<?x8x100x128xf8E4M3FN>)
    -> tensor<?x8x128x100xf8E4M3FN> target sm_90a

// -----

// seq_k dynamic: keys alone must still be whole groups of 16.
// expected-error @+1 {{vt keys 100 must be a multiple of 16}}
fmha.transpose_values @t (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x100xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{head_dim must be static (in v or vt)}}
fmha.transpose_values @t (tensor<?x8x?x?xf8E4M3FN>)
    -> tensor<?x8x?x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{head_dim 40 is not supported: expected a multiple of 16 (rows move in 16-byte pieces) up to 256}}
fmha.transpose_values @t (tensor<?x8x?x40xf8E4M3FN>)
    -> tensor<?x8x40x?xf8E4M3FN> target sm_90a

// -----

// A row of v is held in one thread's registers.
// expected-error @+1 {{head_dim 512 is not supported: expected a multiple of 16 (rows move in 16-byte pieces) up to 256}}
fmha.transpose_values @t (tensor<?x8x?x512xf8E4M3FN>)
    -> tensor<?x8x512x?xf8E4M3FN> target sm_90a

// -----

// expected-error @+1 {{heads_kv 70000 is too large: the grid has heads_kv CTAs along y and batch along z, at most 65535}}
fmha.transpose_values @t (tensor<?x70000x?x128xf8E4M3FN>)
    -> tensor<?x?x128x?xf8E4M3FN> target sm_90a

// -----

// The batch of vt counts as well as v's.
// expected-error @+1 {{batch 70000 is too large: the grid has heads_kv CTAs along y and batch along z, at most 65535}}
fmha.transpose_values @t (tensor<?x?x?x128xf8E4M3FN>)
    -> tensor<70000x?x128x?xf8E4M3FN> target sm_90a
