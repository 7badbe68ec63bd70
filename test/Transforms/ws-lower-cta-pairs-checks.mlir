// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-cta-pairs

// What ws-lower-cta-pairs rejects.

// A barrier arrived on both by threads and by tcgen05 commits has no place
// in 2-CTA mode (the first live in the even CTA, the second in both).
module attributes {gpu.container_module} {
  gpu.module @mixed {
    gpu.func @k() kernel
        attributes {ws.cta_pair, ws.num_threads = 128 : i64, ws.smem_bytes = 8 : i64} {
      // expected-error @+1 {{'ws.mbarrier_alloc' op is arrived on both by threads and by tcgen05 commits: 2-CTA mode cannot place it}}
      %bar = ws.mbarrier_alloc arrivals 2 offset 0 : !ws.mbarrier<1>
      %c0 = arith.constant 0 : i32
      ws.mbarrier_arrive %bar[%c0] : !ws.mbarrier<1>
      ws.mbarrier_arrive %bar[%c0] leader tcgen05 {ws.leader_guarded} : !ws.mbarrier<1>
      gpu.return
    }
  }
}

// -----

// Roles that ws-lower-roles has not lowered: it reads the kernel's
// ws.cta_pair, which ws-lower-cta-pairs takes away.
module attributes {gpu.container_module} {
  gpu.module @unlowered {
    gpu.func @k() kernel attributes {ws.cta_pair, ws.num_threads = 32 : i64} {
      // expected-error @+1 {{'ws.warp_specialize' op is not lowered: run ws-lower-roles before ws-lower-cta-pairs}}
      ws.warp_specialize {
        ws.role "a" warps 1 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}
