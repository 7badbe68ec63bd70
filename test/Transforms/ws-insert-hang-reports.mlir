// RUN: fmha-opt %s -split-input-file --ws-insert-hang-reports=wait-timeout=1000 | FileCheck %s
// RUN: fmha-opt %s -split-input-file --ws-insert-hang-reports=wait-timeout=0 | FileCheck %s --check-prefix=OFF

// Every wait gets a report: a format string, a global of the gpu.module, that
// names the role, the wait's location, and the ring (from ws-insert-mbarriers'
// attributes, or else the location of the barrier array; '%' in a name is
// doubled); the stage, the parity, the thread and the CTA are printed from
// their runtime values. The wait names its report and carries the timeout,
// which convert-ws-to-nvvm lowers (test/Conversion/convert-ws-to-nvvm.mlir).
// CHECK-LABEL: gpu.module @hang attributes {ws.hang_reports}
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global internal constant @__fmha_hang_report_0("fmha: hang in role 'producer': ws.mbarrier_wait at ws-insert-hang-reports.mlir:[[#]]:[[#]] on the empty barrier of channel 0, stage %u, phase parity %u, not completed after 1000 us; thread %u, CTA (%u, %u, %u)\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @__fmha_hang_report_1("fmha: hang in role 'con%%sumer': ws.mbarrier_wait at ws-insert-hang-reports.mlir:[[#]]:[[#]] on the mbarrier array allocated at ws-insert-hang-reports.mlir:[[#]]:[[#]], stage %u, phase parity %u, not completed after 1000 us; thread %u, CTA (%u, %u, %u)\0A\00")
// CHECK: ws.role "producer"
// CHECK: ws.mbarrier_wait %{{.*}} {ws.channel = 0 : i32, ws.hang_report = @__fmha_hang_report_0, ws.ring = "empty", ws.wait_timeout = 1000 : i64}
// CHECK: ws.role "con%sumer"
// CHECK: ws.mbarrier_wait %{{.*}} {ws.hang_report = @__fmha_hang_report_1, ws.wait_timeout = 1000 : i64}
// wait-timeout=0 changes nothing.
// OFF-LABEL: gpu.module @hang {
// OFF-NOT: vprintf
// OFF-NOT: ws.hang_report
// OFF: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hang {
    gpu.func @k() kernel {
      %full = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 16 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          ws.mbarrier_wait %empty[%c0], %c1 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader : !ws.mbarrier<2>
        }
        ws.role "con%sumer" warps 4 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<2>
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}

// -----

// A wait outside any role names none; a module without waits gets no
// vprintf. A name already taken is skipped.
// CHECK-LABEL: gpu.module @outside
// CHECK: llvm.mlir.global internal constant @__fmha_hang_report_1("fmha: hang in role '(none)': ws.mbarrier_wait at ws-insert-hang-reports.mlir:[[#]]:[[#]] on the mbarrier array of block argument #0,
// CHECK: ws.mbarrier_wait %{{.*}} {ws.hang_report = @__fmha_hang_report_1, ws.wait_timeout = 1000 : i64}
// CHECK-LABEL: gpu.module @none attributes {ws.hang_reports}
// CHECK-NOT: vprintf
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @outside {
    llvm.mlir.global internal constant @__fmha_hang_report_0("taken\00") {addr_space = 0 : i32}
    gpu.func @f(%bar: !ws.mbarrier<2>) {
      %c0 = arith.constant 0 : i32
      ws.mbarrier_wait %bar[%c0], %c0 : !ws.mbarrier<2>
      gpu.return
    }
  }
  gpu.module @none {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
