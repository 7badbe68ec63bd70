// A deliberately broken warp-specialized kernel, written at the level of
// explicit rings (as ws-insert-mbarriers would write it, with its ws.ring and
// ws.channel attributes): the producer fills one slot of a 2-stage ring per
// iteration, but the consumer takes two slots per iteration. After the
// producer's last slot the consumer waits forever on a full barrier. Compiled
// with hang detection, the wait gives up after 200 ms, prints what it waited
// for and traps; test/GPU/ws_hang.py runs it (test/GPU/run-ws-hang.sh).
//
// RUN: fmha-opt %s --ws-allocate-smem --ws-allocate-registers \
// RUN:   --ws-insert-hang-reports=wait-timeout=200000 \
// RUN:   --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm \
// RUN:   --convert-nvvm-to-llvm \
// RUN:   --reconcile-unrealized-casts --gpu-module-to-binary=format=isa \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
//
// ws-verify-phases finds the bug before the kernel runs (the same kernel is
// in test/Transforms/ws-verify-phases.mlir with the error it reports):
// RUN: not fmha-opt %s --ws-verify-phases -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=PHASES
// PHASES: ws-hang-detection.mlir:{{[0-9]+}}:13: error: deadlock: role 'consumer' waits here forever on full[1] of channel 0 for parity 0
//
// So does ws-lower-roles on its own, unless told not to
// (verify-phases=false above, to build the broken kernel on purpose):
// RUN: not fmha-opt %s --ws-allocate-smem --ws-allocate-registers \
// RUN:   --ws-lower-roles -o /dev/null 2>&1 | FileCheck %s --check-prefix=PHASES
//
// The whole pipeline passes wait-timeout on: every wait of the GEMM example
// (which ws-verify-phases accepts) reports its role and ring.
// RUN: fmha-opt %S/../../../examples/gemm.mlir --fmha-sm90-pipeline=wait-timeout=5000000 \
// RUN: | fmha-translate --fmha-extract-object > %t.gemm.ptx
// RUN: FileCheck %s --check-prefix=PIPELINE < %t.gemm.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.gemm.ptx -o %t.gemm.cubin %}
// PIPELINE-COUNT-3: .global .align 1 .b8 __fmha_hang_report_{{[0-9]}}[
// PIPELINE-COUNT-3: call.uni (retval0), vprintf, (param0, param1);

// The format strings, one per wait, name the role, the wait and the ring.
// CHECK: .target sm_90a
// CHECK-DAG: .extern .func  (.param .b32 func_retval0) vprintf
// CHECK-DAG: .global .align 1 .b8 __fmha_hang_report_0[
// CHECK-DAG: .global .align 1 .b8 __fmha_hang_report_1[
// CHECK-DAG: .global .align 1 .b8 __fmha_hang_report_2[
// CHECK-LABEL: .entry hang(
// CHECK: .maxntid 256, 1, 1
// Every wait is a loop of single try_waits bounded by %globaltimer; past the
// bound, the thread prints its report and traps.
// CHECK: mbarrier.try_wait.parity.shared.b64 %p{{[0-9]+}}, [%rd{{[0-9]+}}+16], %r{{[0-9]+}};
// CHECK: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// CHECK: sub.s64
// CHECK-NEXT: {{setp.lt.u64 .*, 200000001|setp.gt.u64 .*, 200000000}};
// CHECK: %ctaid.x
// CHECK: st.local.b32
// CHECK: mov.b64 %rd{{[0-9]+}}, __fmha_hang_report_{{[0-9]}};
// CHECK: call.uni (retval0), vprintf, (param0, param1);
// CHECK: trap;

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @hang(%n: i32) kernel {
      %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c2 = arith.constant 2 : i32
          %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
            %np = arith.xori %p, %c1 : i32
            ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
            ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
            %s1 = arith.addi %s, %c1 : i32
            %wrap = arith.cmpi eq, %s1, %c2 : i32
            %s2 = arith.select %wrap, %c0, %s1 : i32
            %p2 = arith.select %wrap, %np, %p : i32
            scf.yield %s2, %p2 : i32, i32
          }
        }
        ws.role "consumer" warps 4 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c2 = arith.constant 2 : i32
          %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
            ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
            ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
            %s1 = arith.addi %s, %c1 : i32
            %wrap = arith.cmpi eq, %s1, %c2 : i32
            %s2 = arith.select %wrap, %c0, %s1 : i32
            %np = arith.xori %p, %c1 : i32
            %p2 = arith.select %wrap, %np, %p : i32
            // The bug: a second slot per iteration.
            ws.mbarrier_wait %full[%s2], %p2 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
            ws.mbarrier_arrive %empty[%s2] : !ws.mbarrier<2>
            %s3 = arith.addi %s2, %c1 : i32
            %wrap2 = arith.cmpi eq, %s3, %c2 : i32
            %s4 = arith.select %wrap2, %c0, %s3 : i32
            %np2 = arith.xori %p2, %c1 : i32
            %p4 = arith.select %wrap2, %np2, %p2 : i32
            scf.yield %s4, %p4 : i32, i32
          }
        }
      }
      gpu.return
    }
  }
}
