// The attention of attention.mlir for Blackwell: bf16, head dim 128, causal,
// GQA/MQA by index arithmetic. Two softmax warpgroups with 128-row Q tiles
// (S, P over S, and O in tensor memory: all 512 columns), an MMA warp and a
// load warp; one K/V stage of 128-key tiles (with the output staging, more
// would not fit in shared memory). scripts/compile-examples.sh compiles it
// with --fmha-sm100-pipeline. No Blackwell GPU has run it yet: it is
// compiled and checked by ptxas only.
fmha.attention @attn_fwd_d128_sm100 (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                                     tensor<?x?x?x128xbf16>)
    -> tensor<?x?x?x128xbf16> causal stages 1 target sm_100a
