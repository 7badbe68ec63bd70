// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm

// What convert-ws-to-nvvm checks before it lowers anything: it converts
// only, so what the passes before it lower must be gone. The checks of the
// roles (one ws.warp_specialize per kernel, in its body; the phase model) are
// ws-lower-roles' (test/Transforms/ws-lower-roles.mlir).

// Roles that ws-lower-roles has not lowered.
module attributes {gpu.container_module} {
  gpu.module @unlowered {
    gpu.func @k() kernel attributes {ws.num_threads = 32 : i64} {
      // expected-error @+1 {{'ws.warp_specialize' op is not lowered: run ws-lower-roles before convert-ws-to-nvvm}}
      ws.warp_specialize {
        ws.role "a" warps 1 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

// ws ops outside a gpu.module are not lowered.
func.func @host() {
  // expected-error @+1 {{'ws.warp_specialize' op is outside a gpu.module: convert-ws-to-nvvm lowers the kernels of gpu.module ops only}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
    }
  }
  return
}

// -----

// A CTA-pair kernel that ws-lower-cta-pairs has not lowered: its barriers
// would expect the arrivals of one CTA.
module attributes {gpu.container_module} {
  gpu.module @pair {
    // expected-error @+1 {{'gpu.func' op is not lowered: run ws-lower-cta-pairs before convert-ws-to-nvvm}}
    gpu.func @k() kernel attributes {ws.cta_pair, ws.num_threads = 32 : i64} {
      gpu.return
    }
  }
}

// -----

// Structured control flow: upstream convert-scf-to-cf lowers it first.
module attributes {gpu.container_module} {
  gpu.module @scf {
    gpu.func @k(%c: i1) kernel {
      // expected-error @+1 {{'scf.if' op is not lowered: run convert-scf-to-cf before convert-ws-to-nvvm}}
      scf.if %c {
        nvvm.barrier
      }
      gpu.return
    }
  }
}
