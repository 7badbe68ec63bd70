// C = A @ B^T in bf16 with fp32 accumulation: A [M, K], B [N, K], C [M, N],
// M and N dynamic. scripts/compile-examples.sh compiles it with
// --fmha-sm90-pipeline.
fmha.gemm @gemm_bf16 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 256, 64] stages 3 consumers 2 target sm_90a
