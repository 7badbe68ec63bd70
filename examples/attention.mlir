// Attention forward, bf16, head dim 128, causal: q [B, H, SQ, 128],
// k and v [B, HKV, SK, 128] (GQA/MQA when HKV < H), o like q; batch, heads and
// lengths dynamic. Persistent (the sm_90a default): at most one CTA per SM
// walks pairs of query blocks. Each CTA has two ping-ponged consumer
// warpgroups with 64-row Q tiles (two slots, the next item's loading ahead)
// sharing one stream of 128-key K and V tiles (2-stage rings).
// scripts/compile-examples.sh compiles it with --fmha-sm90-pipeline.
fmha.attention @attn_fwd_d128 (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                               tensor<?x?x?x128xbf16>)
    -> tensor<?x?x?x128xbf16> causal tile [64, 128] consumers 2 target sm_90a
