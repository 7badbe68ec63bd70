// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-allocate-registers | FileCheck %s

// A one-warp producer gets warpgroup 0 to itself (setmaxnreg acts on whole
// warpgroups); each consumer warpgroup starts on a boundary.
// CHECK-LABEL: func.func @gemm_roles
// CHECK-SAME: ws.num_threads = 384 : i64
// CHECK: ws.role "producer" warps 1 regs 40 first_warp 0
// CHECK: ws.role "consumer0" warps 4 regs 232 first_warp 4
// CHECK: ws.role "consumer1" warps 4 regs 232 first_warp 8
func.func @gemm_roles() {
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
    }
    ws.role "consumer0" warps 4 regs 232 {
    }
    ws.role "consumer1" warps 4 regs 232 {
    }
  }
  return
}

// -----

// A small role after the consumers goes back into the producer's
// warpgroup, which has room and the same budget (fp8 attention's three
// transposer warps), rather than opening a fourth warpgroup.
// CHECK-LABEL: func.func @transposer_roles
// CHECK-SAME: ws.num_threads = 384 : i64
// CHECK: ws.role "producer" warps 1 regs 40 first_warp 0
// CHECK: ws.role "consumer0" warps 4 regs 232 first_warp 4
// CHECK: ws.role "consumer1" warps 4 regs 232 first_warp 8
// CHECK: ws.role "transposer" warps 3 regs 40 first_warp 1
func.func @transposer_roles() {
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
    }
    ws.role "consumer0" warps 4 regs 232 {
    }
    ws.role "consumer1" warps 4 regs 232 {
    }
    ws.role "transposer" warps 3 regs 40 {
    }
  }
  return
}

// -----

// A small role whose budget differs from the small roles' warpgroup gets
// a warpgroup of its own.
// CHECK-LABEL: func.func @other_budget
// CHECK-SAME: ws.num_threads = 512 : i64
// CHECK: ws.role "producer" warps 1 regs 40 first_warp 0
// CHECK: ws.role "consumer0" warps 4 regs 152 first_warp 4
// CHECK: ws.role "consumer1" warps 4 regs 152 first_warp 8
// CHECK: ws.role "helper" warps 2 regs 24 first_warp 12
func.func @other_budget() {
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
    }
    ws.role "consumer0" warps 4 regs 152 {
    }
    ws.role "consumer1" warps 4 regs 152 {
    }
    ws.role "helper" warps 2 regs 24 {
    }
  }
  return
}

// -----

// Without budgets, small roles pack into one warpgroup and the CTA is not
// rounded up.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: ws.num_threads = 192 : i64
// CHECK: ws.role "softmax" warps 4 first_warp 0
// CHECK: ws.role "mma" warps 1 first_warp 4
// CHECK: ws.role "load" warps 1 first_warp 5
func.func @packed() {
  ws.warp_specialize {
    ws.role "softmax" warps 4 {
    }
    ws.role "mma" warps 1 {
    }
    ws.role "load" warps 1 {
    }
  }
  return
}

// -----

func.func @shared_group() {
  ws.warp_specialize {
    ws.role "load" warps 1 regs 40 {
    }
    // expected-error @+1 {{'ws.role' op shares warpgroup 0 with role 'load' but has another register budget (48 vs 40)}}
    ws.role "mma" warps 1 regs 48 {
    }
  }
  return
}

// -----

func.func @missing_budget() {
  ws.warp_specialize {
    ws.role "load" warps 4 regs 40 {
    }
    // expected-error @+1 {{'ws.role' op has no register budget while other roles have one; give every role a budget}}
    ws.role "mma" warps 4 {
    }
  }
  return
}

// -----

func.func @too_many_warps() {
  // expected-error @+1 {{'ws.warp_specialize' op roles need 33 warps; a CTA has at most 32}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
    }
    ws.role "b" warps 32 {
    }
  }
  return
}
