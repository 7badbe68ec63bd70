// The GEMM of gemm.mlir for Blackwell: C = A @ B^T in bf16 with fp32
// accumulation in tensor memory. scripts/compile-examples.sh compiles it
// with --fmha-sm100-pipeline (a load warp, an MMA warp, two epilogue
// warpgroups, a double-buffered accumulator: 2 x 2 x 128 = 512 columns).
// No Blackwell GPU has run it yet: it is compiled and checked by ptxas only.
fmha.gemm @gemm_bf16_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 target sm_100a
