// The GEMM of gemm-sm100.mlir with TMA multicast: C = A @ B^T in bf16,
// launched in clusters of two CTAs along x that compute neighbouring row
// tiles on the same columns and share each 128 x 64 B tile. Each CTA loads
// its own A tiles and half of B (64 rows) into both CTAs
// (cp.async.bulk.tensor...multicast::cluster); a B slot is refilled once
// both CTAs' MMAs released it (tcgen05.commit multicast to both). So B is
// read from L2 once per cluster instead of once per CTA.
// scripts/compile-examples.sh compiles it with --fmha-sm100-pipeline.
// No Blackwell GPU has run it yet: it is compiled and checked by ptxas only.
fmha.gemm @gemm_bf16_sm100_multicast (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] consumers 2
    multicast 2 target sm_100a
