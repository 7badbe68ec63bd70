// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// Units of the lowering on IR that is not a whole protocol: the rings are
// not model-checked first (verify-phases=false; the default check is tested
// in test/Transforms/ws-lower-roles.mlir).

// Roles become branches on the warp index after per-warpgroup setmaxnreg;
// barriers are initialised by thread 0; the TMA descriptor is a by-value
// grid-constant parameter and its coordinates are reversed for PTX.
// CHECK-LABEL: gpu.module @roles
// CHECK: llvm.mlir.global external @__fmha_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @k(%[[DESC:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[ROW:.*]]: i32, %[[COL:.*]]: i32)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]], %{{.*}}, box[%[[COL]], %[[ROW]]] {isCTAOnly = true}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
module attributes {gpu.container_module} {
  gpu.module @roles {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16>>, %row: i32, %col: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 32784 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %empty[%c0], %c0 : !ws.mbarrier<2>
          %buf = ws.slot %ring[%c0] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
          ws.tma_load_mbarrier %desc[%row, %col], %buf, %full[%c0] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<2>
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.fence_async_shared
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
          ws.barrier_sync 1 threads 128
          ws.barrier_arrive 2 threads 128
        }
      }
      gpu.return
    }
  }
}

// -----

// The compute ops of a GEMM consumer: a 128x128 accumulator over 128x64 bf16
// operands read in place from swizzled shared memory is 2 (M) x 4 (K) wgmmas
// of m64n128k16 between a fence and a commit; the epilogue converts to bf16,
// writes pairs of elements to the staging buffer, fences the async proxy,
// syncs the warpgroup and has its leader TMA-store the tile (coordinates
// reversed) and wait until the buffer has been read.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
// CHECK-LABEL: gpu.module @compute
// CHECK: llvm.func @k(%[[C:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[ROW:.*]]: i32)
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.wgmma.fence.aligned
// The accumulator starts at zero: the first k-step's wgmmas (one per 64
// rows) ignore D (scale-d false), the other six add to it.
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK: llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[C]], %{{.*}}, box[%[[N]], %[[ROW]]]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: ws.
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @compute {
    gpu.func @k(%c: !tile.desc<tensor<128x128xbf16>>, %row: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 65536 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<128x64xbf16, 3>
      %b = ws.buffer_alloc offset 16384 : memref<128x64xbf16, 3>
      %s = ws.buffer_alloc offset 32768 : memref<128x128xbf16, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %x = ws.as_tensor %a : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %y = ws.as_tensor %b : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
          %d = tile.dot %x, %y, %zero {transpose_b}
              : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          %t = arith.truncf %d : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
          ws.store_shared %t, %s : tensor<128x128xbf16, #acc>, memref<128x128xbf16, 3>
          ws.fence_async_shared
          ws.barrier_sync 1 threads 128
          %n = tile.program_id y : i32
          ws.tma_store %c[%row, %n], %s : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
          ws.tma_store_wait
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.transpose of a wgmma accumulator (a swapped GEMM's 64x8 C^T) moves no
// data: the stored struct is the accumulator's. Its #tile.transposed layout
// has runs of one value along the rows of C, so ws.store_shared writes the
// thread's 4 values one f32 (a vector of one) at a time.
#acc8 = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
#acc8t = #tile.transposed<parent = #acc8>
// CHECK-LABEL: gpu.module @transpose
// CHECK: %[[ACC:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[0, 3] : !llvm.struct<(struct<(f32, f32, f32, f32)>)>
// CHECK-NOT: llvm.insertvalue
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @transpose {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 2048 : i64} {
      %c = ws.buffer_alloc offset 0 : memref<8x64xf32, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %cols = tile.iota axis 1 : tensor<64x8xi32, #acc8>
          %acc = arith.sitofp %cols : tensor<64x8xi32, #acc8> to tensor<64x8xf32, #acc8>
          %t = tile.transpose %acc : tensor<64x8xf32, #acc8> -> tensor<8x64xf32, #acc8t>
          ws.store_shared %t, %c : tensor<8x64xf32, #acc8t>, memref<8x64xf32, 3>
        }
      }
      gpu.return
    }
  }
}

// -----

// Hang detection. A wait with a hang report and a timeout
// (ws-insert-hang-reports, here 1000 microseconds) is a loop of single
// try_waits that, once %globaltimer says 1 ms has passed since the first
// failed try, prints the wait's report with vprintf and traps; a wait
// without is one try_wait.parity loop.
// CHECK-LABEL: gpu.module @hang
// CHECK: llvm.func @k()
// The reports' arguments: one stack slot per wait, in the entry block.
// CHECK-COUNT-2: llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, i32, i32)> {alignment = 4 : i64} : (i64) -> !llvm.ptr
// A first try, then the slow path: the start time, more tries, the bound.
// CHECK: %[[OK0:.*]] = nvvm.mbarrier.try_wait %[[BAR:.*]], %[[PARITY:.*]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: llvm.cond_br %[[OK0]], ^[[DONE:.*]], ^[[SLOW:[^ ]*]]
// CHECK-NEXT: ^[[SLOW]]:
// CHECK-NEXT: %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.br ^[[RETRY:[^ ]*]]
// CHECK-NEXT: ^[[RETRY]]:
// CHECK-NEXT: %[[OK:.*]] = nvvm.mbarrier.try_wait %[[BAR]], %[[PARITY]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: llvm.cond_br %[[OK]], ^[[DONE]], ^[[TIMER:[^ ]*]]
// CHECK-NEXT: ^[[TIMER]]:
// CHECK-NEXT: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: %[[ELAPSED:.*]] = llvm.sub %[[NOW]], %[[START]] : i64
// CHECK-NEXT: %[[LIMIT:.*]] = llvm.mlir.constant(1000000 : i64) : i64
// CHECK-NEXT: %[[OVER:.*]] = llvm.icmp "ugt" %[[ELAPSED]], %[[LIMIT]] : i64
// CHECK-NEXT: llvm.cond_br %[[OVER]], ^[[FAIL:[^ ]*]], ^[[RETRY]]
// The report: stage, parity, thread, CTA, then vprintf and trap.
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT: %[[F0:.*]] = llvm.getelementptr %[[ARGS:.*]][0, 0]
// CHECK-NEXT: llvm.store %{{.*}}, %[[F0]] : i32, !llvm.ptr
// CHECK-NEXT: %[[F1:.*]] = llvm.getelementptr %[[ARGS]][0, 1]
// CHECK-NEXT: llvm.store %[[PARITY]], %[[F1]] : i32, !llvm.ptr
// CHECK-NEXT: %[[F2:.*]] = llvm.getelementptr %[[ARGS]][0, 2]
// CHECK-NEXT: llvm.store %[[TID]], %[[F2]] : i32, !llvm.ptr
// CHECK: llvm.store %[[Z]], %{{.*}} : i32, !llvm.ptr
// CHECK-NEXT: %[[FORMAT:.*]] = llvm.mlir.addressof @__fmha_hang_report_0 : !llvm.ptr
// CHECK-NEXT: llvm.call @vprintf(%[[FORMAT]], %[[ARGS]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: llvm.intr.trap
// CHECK-NEXT: llvm.unreachable
// CHECK-NEXT: ^[[DONE]]:
// A wait without a report spins.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.mlir.addressof @__fmha_hang_report_1 : !llvm.ptr
// CHECK: llvm.intr.trap
// CHECK-NOT: ws.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @hang {
    llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
    llvm.mlir.global internal constant @__fmha_hang_report_0("report 0\0A\00") {addr_space = 0 : i32}
    llvm.mlir.global internal constant @__fmha_hang_report_1("report 1\0A\00") {addr_space = 0 : i32}
    gpu.func @k() kernel attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 40 : i64} {
      %full = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 16 : !ws.mbarrier<2>
      %done = ws.mbarrier_alloc arrivals 1 offset 32 : !ws.mbarrier<1>
      ws.warp_specialize {
        ws.role "producer" warps 1 first_warp 0 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          ws.mbarrier_wait %empty[%c0], %c1 {ws.hang_report = @__fmha_hang_report_0, ws.wait_timeout = 1000 : i64} : !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader : !ws.mbarrier<2>
          ws.mbarrier_wait %done[%c0], %c0 : !ws.mbarrier<1>
        }
        ws.role "con%sumer" warps 4 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %full[%c0], %c0 {ws.hang_report = @__fmha_hang_report_1, ws.wait_timeout = 1000 : i64} : !ws.mbarrier<2>
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.iota in the wgmma accumulator layout (128x32, instr_n = 16: 2 x 2
// fragments of 8 values per thread) and in its row vector layout. Thread t
// of the warpgroup (%tid.x % 128, warp w, lane l) starts at row
// 16w + l/4 and column 2(l%4); value v of fragment (mr, nr) adds row
// 64mr + 8((v/2)%2) and column 16nr + 8(v/4) + v%2. A row vector holds
// rows +0, +8, +64, +72.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: gpu.module @iota
// The role dispatch reads %tid.x first, then the first iota.
// CHECK: nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[T:.*]] = llvm.urem %[[TID]], %[[C128]] : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[WARP:.*]] = llvm.udiv %[[T]], %[[C32]] : i32
// CHECK-NEXT: %[[C32B:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[LANE:.*]] = llvm.urem %[[T]], %[[C32B]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[QUAD:.*]] = llvm.udiv %[[LANE]], %[[C4]] : i32
// CHECK-NEXT: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[W16:.*]] = llvm.mul %[[WARP]], %[[C16]] : i32
// CHECK-NEXT: %[[ROW:.*]] = llvm.add %[[W16]], %[[QUAD]] : i32
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[ROW]], %{{.*}}[0, 0] : !llvm.struct<(struct<(i32, i32, i32, i32, i32, i32, i32, i32)>, struct<(i32, i32, i32, i32, i32, i32, i32, i32)>, struct<(i32, i32, i32, i32, i32, i32, i32, i32)>, struct<(i32, i32, i32, i32, i32, i32, i32, i32)>)>
// CHECK-NEXT: %[[R1:.*]] = llvm.insertvalue %[[ROW]], %[[R0]][0, 1]
// CHECK-NEXT: %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[ROW8:.*]] = llvm.add %[[ROW]], %[[C8]] : i32
// CHECK-NEXT: llvm.insertvalue %[[ROW8]], %[[R1]][0, 2]
// CHECK: %[[C72:.*]] = llvm.mlir.constant(72 : i32) : i32
// CHECK-NEXT: %[[ROW72:.*]] = llvm.add %[[ROW]], %[[C72]] : i32
// CHECK-NEXT: llvm.insertvalue %[[ROW72]], %{{.*}}[2, 2]
// Columns (the second iota's own thread origin).
// CHECK: nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[T2:.*]] = llvm.urem
// CHECK: %[[LANE2:.*]] = llvm.urem %[[T2]], %{{.*}} : i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[C4B:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[L4:.*]] = llvm.urem %[[LANE2]], %[[C4B]] : i32
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %[[L4]], %[[TWO]] : i32
// CHECK: llvm.insertvalue %[[COL]], %{{.*}}[0, 0]
// CHECK: %[[C9:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-NEXT: %[[COL9:.*]] = llvm.add %[[COL]], %[[C9]] : i32
// CHECK-NEXT: llvm.insertvalue %[[COL9]], %{{.*}}[0, 5]
// CHECK: %[[C25:.*]] = llvm.mlir.constant(25 : i32) : i32
// CHECK-NEXT: %[[COL25:.*]] = llvm.add %[[COL]], %[[C25]] : i32
// CHECK-NEXT: llvm.insertvalue %[[COL25]], %{{.*}}[1, 5]
// The row vector: a struct of 4 rows.
// CHECK: nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[VROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[V0:.*]] = llvm.insertvalue %[[VROW]], %{{.*}}[0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[VROW8:.*]] = llvm.add %[[VROW]], %{{.*}} : i32
// CHECK-NEXT: %[[V1:.*]] = llvm.insertvalue %[[VROW8]], %[[V0]][1]
// CHECK-NEXT: llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[VROW64:.*]] = llvm.add %[[VROW]], %{{.*}} : i32
// CHECK-NEXT: %[[V2:.*]] = llvm.insertvalue %[[VROW64]], %[[V1]][2]
// CHECK-NEXT: llvm.mlir.constant(72 : i32) : i32
// CHECK-NEXT: %[[VROW72:.*]] = llvm.add %[[VROW]], %{{.*}} : i32
// CHECK-NEXT: llvm.insertvalue %[[VROW72]], %[[V2]][3]
// A causal mask compares them register by register.
// CHECK: llvm.icmp "sgt" %{{.*}}, %{{.*}} : i32
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @iota {
    gpu.func @k() kernel attributes {ws.num_threads = 256 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 4 {
          %rows = tile.iota axis 0 : tensor<128x32xi32, #acc>
          %cols = tile.iota axis 1 : tensor<128x32xi32, #acc>
          %r = tile.iota axis 0 : tensor<128xi32, #row>
          %future = arith.cmpi sgt, %cols, %rows : tensor<128x32xi32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// Online-softmax row operations on a 128x16 accumulator (instr_n = 16: two
// m64 fragments of 8 values per thread). A row vector (#tile.slice<dim = 1>)
// is a struct of the thread's 4 rows (+0, +8, +64, +72). A row reduction
// combines a row's values of every fragment (values 0, 1, 4, 5 for row +0;
// 2, 3, 6, 7 for row +8) in a tree, then across the quad with
// shfl.sync.bfly 1 and 2; a broadcast gives each value its row's; row
// vectors take elementwise ops (maximumf, subf, mulf; f32 exp2 as
// ex2.approx.ftz, not a call to libdevice's __nv_exp2f) and splats; select takes an i1 tensor or a scalar
// condition. Changing instr_n renumbers values only: a row vector is
// unchanged, value 4 of a 16-column fragment becomes value 0 of the next
// 8-column one.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#acc8 = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
#row8 = #tile.slice<dim = 1, parent = #acc8>
// CHECK-LABEL: gpu.module @rows
// CHECK-NOT: __nv_exp2f
// CHECK: llvm.func @k(%[[SCALE:.*]]: f32, %[[FLAG:.*]]: i1)
// CHECK: %[[S:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1, 7] : !llvm.struct<(struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)>
// CHECK-NEXT: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[A:.*]] = llvm.extractvalue %[[S]][0, 0]
// CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %[[S]][0, 1]
// CHECK-NEXT: %[[C:.*]] = llvm.extractvalue %[[S]][0, 4]
// CHECK-NEXT: %[[D:.*]] = llvm.extractvalue %[[S]][0, 5]
// CHECK-NEXT: %[[AB:.*]] = llvm.intr.maximum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[CD:.*]] = llvm.intr.maximum(%[[C]], %[[D]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[T:.*]] = llvm.intr.maximum(%[[AB]], %[[CD]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[X1:.*]] = nvvm.shfl.sync bfly %[[ALL]], %[[T]], %[[ONE]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[M1:.*]] = llvm.intr.maximum(%[[T]], %[[X1]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[X2:.*]] = nvvm.shfl.sync bfly %[[ALL]], %[[M1]], %[[TWO]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[M2:.*]] = llvm.intr.maximum(%[[M1]], %[[X2]]) : (f32, f32) -> f32
// CHECK-NEXT: llvm.insertvalue %[[M2]], %{{.*}}[0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.extractvalue %[[S]][0, 2]
// CHECK-NEXT: llvm.extractvalue %[[S]][0, 3]
// CHECK-NEXT: llvm.extractvalue %[[S]][0, 6]
// CHECK-NEXT: llvm.extractvalue %[[S]][0, 7]
// CHECK-COUNT-3: llvm.intr.maximum
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.insertvalue %{{.*}}, %{{.*}}[1] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.extractvalue %[[S]][1, 0]
// CHECK: %[[M:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// The splat scale, then maximumf and subf on the row vectors.
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.insertvalue %[[SCALE]], %{{.*}}[0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[SCALE_R:.*]] = llvm.insertvalue %[[SCALE]], %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[M0:.*]] = llvm.extractvalue %[[M]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[S0:.*]] = llvm.extractvalue %[[SCALE_R]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.intr.maximum(%[[M0]], %[[S0]]) : (f32, f32) -> f32
// CHECK: %[[MNEW:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.fsub %{{.*}}, %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK: %[[ALPHA:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// The broadcast of the new maximum: row +0 to values 0, 1, 4, 5; row +8 to
// values 2, 3, 6, 7; rows +64 and +72 to the second fragment.
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)>
// CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[MNEW]][0]
// CHECK-NEXT: %[[R8:.*]] = llvm.extractvalue %[[MNEW]][1]
// CHECK-NEXT: llvm.insertvalue %[[R0]], %{{.*}}[0, 0]
// CHECK-NEXT: llvm.insertvalue %[[R0]], %{{.*}}[0, 1]
// CHECK-NEXT: llvm.insertvalue %[[R8]], %{{.*}}[0, 2]
// CHECK-NEXT: llvm.insertvalue %[[R8]], %{{.*}}[0, 3]
// CHECK-NEXT: llvm.insertvalue %[[R0]], %{{.*}}[0, 4]
// CHECK-NEXT: llvm.insertvalue %[[R0]], %{{.*}}[0, 5]
// CHECK-NEXT: llvm.insertvalue %[[R8]], %{{.*}}[0, 6]
// CHECK-NEXT: llvm.insertvalue %[[R8]], %{{.*}}[0, 7]
// CHECK-NEXT: %[[R64:.*]] = llvm.extractvalue %[[MNEW]][2]
// CHECK-NEXT: %[[R72:.*]] = llvm.extractvalue %[[MNEW]][3]
// CHECK-NEXT: llvm.insertvalue %[[R64]], %{{.*}}[1, 0]
// CHECK-NEXT: llvm.insertvalue %[[R64]], %{{.*}}[1, 1]
// CHECK-NEXT: llvm.insertvalue %[[R72]], %{{.*}}[1, 2]
// CHECK-COUNT-16: llvm.fsub
// The row sum: fadd, the same shuffles.
// CHECK: llvm.fadd
// CHECK: nvvm.shfl.sync bfly %[[ALL2:.*]], %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: llvm.fadd
// CHECK: nvvm.shfl.sync bfly %[[ALL2]]
// CHECK-NEXT: llvm.fadd
// CHECK: %[[L:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// A splat constant in the row layout, then l * alpha + 1.
// CHECK-NEXT: %[[C1F:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.insertvalue %[[C1F]], %{{.*}}[0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[L0:.*]] = llvm.extractvalue %[[L]][0]
// CHECK-NEXT: %[[A0:.*]] = llvm.extractvalue %[[ALPHA]][0]
// CHECK-NEXT: llvm.fmul %[[L0]], %[[A0]] : f32
// CHECK: llvm.fadd
// CHECK: %[[LB:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// The i1 splat and the selects.
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(struct<(i1, i1, i1, i1, i1, i1, i1, i1)>, struct<(i1, i1, i1, i1, i1, i1, i1, i1)>)>
// CHECK-NEXT: llvm.insertvalue %[[FLAG]], %{{.*}}[0, 0]
// CHECK: %[[FLAGS:.*]] = llvm.insertvalue %[[FLAG]], %{{.*}}[1, 7]
// CHECK: %[[F0:.*]] = llvm.extractvalue %[[FLAGS]][0, 0]
// CHECK-NEXT: %[[S00:.*]] = llvm.extractvalue %[[S]][0, 0]
// CHECK-NEXT: %[[P00:.*]] = llvm.extractvalue %{{.*}}[0, 0]
// CHECK-NEXT: llvm.select %[[F0]], %[[S00]], %[[P00]] : i1, f32
// CHECK: llvm.select %[[FLAG]], %{{.*}}, %{{.*}} : i1, f32
// CHECK: %[[SEL2:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1, 7] : !llvm.struct<(struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)>
// instr_n 16 -> 8.
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(struct<(f32, f32, f32, f32)>, struct<(f32, f32, f32, f32)>, struct<(f32, f32, f32, f32)>, struct<(f32, f32, f32, f32)>)>
// CHECK: %[[V4:.*]] = llvm.extractvalue %[[SEL2]][0, 4]
// CHECK-NEXT: llvm.insertvalue %[[V4]], %{{.*}}[1, 0]
// CHECK: %[[V10:.*]] = llvm.extractvalue %[[SEL2]][1, 0]
// CHECK-NEXT: llvm.insertvalue %[[V10]], %{{.*}}[2, 0]
// CHECK: %[[V17:.*]] = llvm.extractvalue %[[SEL2]][1, 7]
// CHECK-NEXT: llvm.insertvalue %[[V17]], %{{.*}}[3, 3]
// The row vector keeps its registers.
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.extractvalue %[[LB]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @rows {
    gpu.func @k(%scale: f32, %flag: i1) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %cols = tile.iota axis 1 : tensor<128x16xi32, #acc>
          %s = arith.sitofp %cols : tensor<128x16xi32, #acc> to tensor<128x16xf32, #acc>
          %m = tile.reduce max %s axis 1 : tensor<128x16xf32, #acc> -> tensor<128xf32, #row>
          %scale_r = tensor.splat %scale : tensor<128xf32, #row>
          %m_new = arith.maximumf %m, %scale_r : tensor<128xf32, #row>
          %d = arith.subf %m, %m_new : tensor<128xf32, #row>
          %alpha = math.exp2 %d : tensor<128xf32, #row>
          %mb = tile.broadcast %m_new axis 1 : tensor<128xf32, #row> -> tensor<128x16xf32, #acc>
          %p = arith.subf %s, %mb : tensor<128x16xf32, #acc>
          %l = tile.reduce sum %p axis 1 : tensor<128x16xf32, #acc> -> tensor<128xf32, #row>
          %one = arith.constant dense<1.0> : tensor<128xf32, #row>
          %la = arith.mulf %l, %alpha : tensor<128xf32, #row>
          %lb = arith.addf %la, %one : tensor<128xf32, #row>
          %flag_b = tensor.splat %flag : tensor<128x16xi1, #acc>
          %sel = arith.select %flag_b, %s, %p : tensor<128x16xi1, #acc>, tensor<128x16xf32, #acc>
          %sel2 = arith.select %flag, %sel, %s : tensor<128x16xf32, #acc>
          %lb8 = tile.convert_layout %lb : tensor<128xf32, #row> -> tensor<128xf32, #row8>
          %s8 = tile.convert_layout %sel2 : tensor<128x16xf32, #acc> -> tensor<128x16xf32, #acc8>
          %b8 = tile.broadcast %lb8 axis 1 : tensor<128xf32, #row8> -> tensor<128x16xf32, #acc8>
          %o8 = arith.mulf %s8, %b8 : tensor<128x16xf32, #acc8>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.dot with A in registers (O += P V): nvvm.wgmma.mma_async reads A from
// shared memory only, so each m64nNk16 is inline PTX with A as four 32-bit
// registers: for k-step kk, the thread's 8 values of columns 16kk..16kk+15
// in P's accumulator layout (with instr_n = 32, values 0..7 then 8..15 of
// the fragment), in pairs, the lower column in the low half. The A
// registers (and a nonzero accumulator's) are pinned (empty asm) before
// wgmma.fence. B as
// [K, N] is transposed (imm-trans-b 1), as [N, K] not; an f16 A with
// instr_n = 8 takes a k-step's second 8 columns from its next fragment.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#acc32 = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
#acc8 = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
#smem = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 16>
// CHECK-LABEL: gpu.module @register_a
// CHECK: %[[P:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[0, 15] : !llvm.struct<(struct<(bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)>)>
// CHECK: %[[E0:.*]] = llvm.extractvalue %[[P]][0, 0]
// CHECK-NEXT: %[[H0:.*]] = llvm.insertelement %[[E0]], %{{.*}}[%{{.*}} : i32] : vector<2xbf16>
// CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %[[P]][0, 1]
// CHECK-NEXT: %[[H1:.*]] = llvm.insertelement %[[E1]], %[[H0]][%{{.*}} : i32] : vector<2xbf16>
// CHECK-NEXT: %[[A0:.*]] = llvm.bitcast %[[H1]] : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %[[P]][0, 2]
// CHECK: llvm.extractvalue %[[P]][0, 3]
// CHECK: %[[A1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %[[P]][0, 4]
// CHECK: llvm.extractvalue %[[P]][0, 5]
// CHECK: %[[A2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %[[P]][0, 6]
// CHECK: llvm.extractvalue %[[P]][0, 7]
// CHECK: %[[A3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %[[P]][0, 8]
// CHECK: llvm.extractvalue %[[P]][0, 9]
// CHECK: %[[A4:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %[[P]][0, 15]
// CHECK: %[[A7:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-NEXT: %[[PIN:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7" %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %{{.*}}, %{{.*}}, %[[A7]] : (i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-NEXT: %[[K0R0:.*]] = llvm.extractvalue %[[PIN]][0]
// CHECK-NEXT: %[[K0R1:.*]] = llvm.extractvalue %[[PIN]][1]
// CHECK-NEXT: %[[K0R2:.*]] = llvm.extractvalue %[[PIN]][2]
// CHECK-NEXT: %[[K0R3:.*]] = llvm.extractvalue %[[PIN]][3]
// CHECK-NEXT: %[[K1R0:.*]] = llvm.extractvalue %[[PIN]][4]
// The accumulator starts at zero: it is not pinned, and the first k-step
// ignores it (scale-d false: `setp.ne.b32 p, 0, 0`).
// CHECK-NOT: asm_dialect = att "", "=f
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DESC0:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$16, $17, $18, $19}, $20, p, 1, 1, 1;\0A}\0A", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,r,r,r,r,l" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[K0R0]], %[[K0R1]], %[[K0R2]], %[[K0R3]], %[[DESC0]] : (f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32, i64) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// The second k-step: B 16 rows (of 32 bytes) further.
// CHECK: llvm.mlir.constant(512 : i64) : i64
// CHECK: %[[DESC1:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK: llvm.inline_asm {{.*}}setp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {{.*}} %[[K1R0]], %{{.*}}, %{{.*}}, %{{.*}}, %[[DESC1]] :
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// f16, instr_n = 8: registers 2 and 3 come from the second fragment.
// CHECK: %[[Q:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1, 3] : !llvm.struct<(struct<(f16, f16, f16, f16)>, struct<(f16, f16, f16, f16)>)>
// CHECK: llvm.extractvalue %[[Q]][0, 0]
// CHECK: llvm.extractvalue %[[Q]][0, 1]
// CHECK: llvm.extractvalue %[[Q]][0, 2]
// CHECK: llvm.extractvalue %[[Q]][0, 3]
// CHECK: llvm.extractvalue %[[Q]][1, 0]
// CHECK: llvm.extractvalue %[[Q]][1, 1]
// CHECK: llvm.extractvalue %[[Q]][1, 2]
// CHECK: llvm.extractvalue %[[Q]][1, 3]
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,0,1,2,3"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$16, $17, $18, $19}, $20, p, 1, 1, 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @register_a {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 2048 : i64} {
      %v = ws.buffer_alloc offset 0 : memref<32x16xbf16, 3>
      %w = ws.buffer_alloc offset 1024 : memref<16x16xf16, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %zero = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
          %cols = tile.iota axis 1 : tensor<64x32xi32, #acc32>
          %pf = arith.sitofp %cols : tensor<64x32xi32, #acc32> to tensor<64x32xf32, #acc32>
          %p = arith.truncf %pf : tensor<64x32xf32, #acc32> to tensor<64x32xbf16, #acc32>
          %vt = ws.as_tensor %v : memref<32x16xbf16, 3> -> tensor<32x16xbf16, #smem>
          %o = tile.dot %p, %vt, %zero : tensor<64x32xbf16, #acc32>, tensor<32x16xbf16, #smem>, tensor<64x16xf32, #acc>
          %cols8 = tile.iota axis 1 : tensor<64x16xi32, #acc8>
          %q = arith.sitofp %cols8 : tensor<64x16xi32, #acc8> to tensor<64x16xf16, #acc8>
          %wt = ws.as_tensor %w : memref<16x16xf16, 3> -> tensor<16x16xf16, #smem>
          %o2 = tile.dot %q, %wt, %o {transpose_b} : tensor<64x16xf16, #acc8>, tensor<16x16xf16, #smem>, tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// An fp8 A in registers (FP8 attention's P): arith.truncf to f8E4M3FN
// converts each pair of adjacent columns with one cvt.rn.satfinite.e4m3x2
// (nvvm.convert.f32x2.to.f8x2 into an i16; the first value goes to the low
// byte, so it is the second operand). In #tile.wgmma_acc the tensor is
// lowered packed: a struct per fragment of i32 words, each the row's pairs
// of two 8-column groups as the two halves of one word (values 0, 1 | 4, 5
// and 2, 3 | 6, 7 of each 16 columns: the k_quad16 order the 8-bit A
// fragment reads, K positions 4t..4t+3 holding columns 2t, 2t+1, 2t+8,
// 2t+9). The m64nNk32 A operand takes the words as they are, with no byte
// moves. The wgmma is k32 on e4m3 with B K-major: no imm-trans-b.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#acc32 = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
#smem8 = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
// CHECK-LABEL: gpu.module @register_a_fp8
// CHECK: %[[LO:.*]] = nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[V0:.*]] = llvm.insertelement %[[LO]], %{{.*}}[%{{.*}} : i32] : vector<2xi16>
// CHECK: %[[HI:.*]] = nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[V1:.*]] = llvm.insertelement %[[HI]], %[[V0]][%{{.*}} : i32] : vector<2xi16>
// CHECK: %[[W0:.*]] = llvm.bitcast %[[V1]] : vector<2xi16> to i32
// CHECK: llvm.insertvalue %[[W0]], %{{.*}}[0, 0] : !llvm.struct<(struct<(i32, i32, i32, i32)>)>
// CHECK-NOT: llvm.trunc
// CHECK-NOT: llvm.lshr
// CHECK: %[[P:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[0, 3] : !llvm.struct<(struct<(i32, i32, i32, i32)>)>
// CHECK: %[[R0:.*]] = llvm.extractvalue %[[P]][0, 0]
// CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[P]][0, 1]
// CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[P]][0, 2]
// CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[P]][0, 3]
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,0,1,2,3" %[[R0]], %[[R1]], %[[R2]], %[[R3]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {$0, $1, $2, $3, $4, $5, $6, $7}, {$16, $17, $18, $19}, $20, p, 1, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @register_a_fp8 {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 1024 : i64} {
      %v = ws.buffer_alloc offset 0 : memref<16x32xf8E4M3FN, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %zero = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
          %cols = tile.iota axis 1 : tensor<64x32xi32, #acc32>
          %pf = arith.sitofp %cols : tensor<64x32xi32, #acc32> to tensor<64x32xf32, #acc32>
          %p = arith.truncf %pf : tensor<64x32xf32, #acc32> to tensor<64x32xf8E4M3FN, #acc32>
          %vt = ws.as_tensor %v : memref<16x32xf8E4M3FN, 3> -> tensor<16x32xf8E4M3FN, #smem8>
          %o = tile.dot %p, %vt, %zero {k_quad16, transpose_b} : tensor<64x32xf8E4M3FN, #acc32>, tensor<16x32xf8E4M3FN, #smem8>, tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// Asynchronous dots are only committed (no wait, A in registers included);
// tile.dot_wait waits for all but `pending` groups and passes the values
// through an empty asm after the wait, so their uses stay behind it.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#acc32 = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
#smem = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 16>
// CHECK-LABEL: gpu.module @async_dots
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: llvm.extractvalue
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7"
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @async_dots {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 2048 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<64x16xbf16, 3>
      %w = ws.buffer_alloc offset 0 : memref<16x16xbf16, 3>
      %v = ws.buffer_alloc offset 0 : memref<32x16xbf16, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %zero = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
          %at = ws.as_tensor %a : memref<64x16xbf16, 3> -> tensor<64x16xbf16, #smem>
          %wt = ws.as_tensor %w : memref<16x16xbf16, 3> -> tensor<16x16xbf16, #smem>
          %vt = ws.as_tensor %v : memref<32x16xbf16, 3> -> tensor<32x16xbf16, #smem>
          %cols = tile.iota axis 1 : tensor<64x32xi32, #acc32>
          %pf = arith.sitofp %cols : tensor<64x32xi32, #acc32> to tensor<64x32xf32, #acc32>
          %p = arith.truncf %pf : tensor<64x32xf32, #acc32> to tensor<64x32xbf16, #acc32>
          %s = tile.dot %at, %wt, %zero {async, transpose_b} : tensor<64x16xbf16, #smem>, tensor<16x16xbf16, #smem>, tensor<64x16xf32, #acc>
          %o = tile.dot %p, %vt, %zero {async} : tensor<64x32xbf16, #acc32>, tensor<32x16xbf16, #smem>, tensor<64x16xf32, #acc>
          %s1 = tile.dot_wait %s pending 1 : tensor<64x16xf32, #acc>
          %o1 = tile.dot_wait %o pending 0 : tensor<64x16xf32, #acc>
          %sum = arith.addf %s1, %o1 : tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @reduce_columns {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %s = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
          // expected-error @+2 {{'tile.reduce' op lowers row reductions (axis 1) of a #tile.wgmma_acc tensor only}}
          // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
          %m = tile.reduce max %s axis 0 : tensor<64x16xf32, #acc> -> tensor<16xf32>
        }
      }
      gpu.return
    }
  }
}

// -----

#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @reduce_unlaid {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %s = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
          // expected-error @+2 {{'tile.reduce' op needs its result laid out by #tile.slice<dim = 1> of the input's layout, got 'tensor<64xf32>'}}
          // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
          %m = tile.reduce sum %s axis 1 : tensor<64x16xf32, #acc> -> tensor<64xf32>
        }
      }
      gpu.return
    }
  }
}

// -----

#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
module attributes {gpu.container_module} {
  gpu.module @reduce_bf16 {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %s = arith.constant dense<1.0> : tensor<64x16xbf16, #acc>
          // expected-error @+2 {{'tile.reduce' op lowers f32 reductions only, got 'bf16'}}
          // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
          %m = tile.reduce max %s axis 1 : tensor<64x16xbf16, #acc> -> tensor<64xbf16, #row>
        }
      }
      gpu.return
    }
  }
}

// -----

// K-major operands whose rows are wider than the swizzle span (here 128 bf16
// = 256 bytes with 128-byte swizzling) sit in shared memory as two column
// blocks of 64 rows x 128 bytes: the K steps of the second half start one
// block (64 x 128 = 8192 bytes) further, at the same offset within it.
#wide = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.module @wide_k
// CHECK: nvvm.wgmma.fence.aligned
// K steps 0..3 of A: offsets 0, 32, 64, 96 within the first block...
// CHECK-DAG: llvm.mlir.constant(96 : i64) : i64
// ...and 4..7 in the second: 8192, 8224, 8256, 8288.
// CHECK-DAG: llvm.mlir.constant(8192 : i64) : i64
// CHECK-DAG: llvm.mlir.constant(8288 : i64) : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>
module attributes {gpu.container_module} {
  gpu.module @wide_k {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 32768 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<64x128xbf16, 3>
      %b = ws.buffer_alloc offset 16384 : memref<64x128xbf16, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %x = ws.as_tensor %a : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #wide>
          %y = ws.as_tensor %b : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #wide>
          %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc64>
          %d = tile.dot %x, %y, %zero {transpose_b}
              : tensor<64x128xbf16, #wide>, tensor<64x128xbf16, #wide>, tensor<64x64xf32, #acc64>
          %t = arith.truncf %d : tensor<64x64xf32, #acc64> to tensor<64x64xbf16, #acc64>
          %s = ws.buffer_alloc offset 0 : memref<64x64xbf16, 3>
          ws.store_shared %t, %s : tensor<64x64xbf16, #acc64>, memref<64x64xbf16, 3>
        }
      }
      gpu.return
    }
  }
}

// -----

// With fmha.descriptors_at_use on the kernel, each operand's address goes
// through an opaque move where the dot is, so LLVM cannot hoist its
// descriptors out of a loop; the low word (start address and constant
// fields) is encoded once, and each k-step adds its offset in 16-byte
// units to it (A's second k-step: 32 bytes, 2 units; its fifth, in the
// second column block of 64 x 128 bytes: 8192 bytes, 512 units).
#wide = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.module @descriptors_at_use
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.ptrtoint
// CHECK-NEXT: %[[ADDR:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b64 $0, $1;", "=l,l"
// CHECK: %[[LOW:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[WIDE0:.*]] = llvm.zext %[[LOW]] : i32 to i64
// CHECK: %[[DESC0:.*]] = llvm.or %[[WIDE0]], %{{.*}} : i64
// CHECK: nvvm.wgmma.mma_async %[[DESC0]], %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[LOW1:.*]] = llvm.add %[[LOW]], %[[TWO]] : i32
// CHECK: %[[C512:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT: llvm.add %[[LOW]], %[[C512]] : i32
// CHECK: nvvm.wgmma.mma_async
module attributes {gpu.container_module} {
  gpu.module @descriptors_at_use {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 32768 : i64, fmha.descriptors_at_use} {
      %a = ws.buffer_alloc offset 0 : memref<64x128xbf16, 3>
      %b = ws.buffer_alloc offset 16384 : memref<64x128xbf16, 3>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %x = ws.as_tensor %a : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #wide>
          %y = ws.as_tensor %b : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #wide>
          %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc64>
          %d = tile.dot %x, %y, %zero {transpose_b}
              : tensor<64x128xbf16, #wide>, tensor<64x128xbf16, #wide>, tensor<64x64xf32, #acc64>
          %t = arith.truncf %d : tensor<64x64xf32, #acc64> to tensor<64x64xbf16, #acc64>
          %s = ws.buffer_alloc offset 0 : memref<64x64xbf16, 3>
          ws.store_shared %t, %s : tensor<64x64xbf16, #acc64>, memref<64x64xbf16, 3>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.store_direct of a row vector (128 rows: the thread's rows +0, +8,
// +64, +72) into the innermost dimension of a memref<?x?x?xf32> (the
// expanded descriptor: pointers, offset, 3 sizes, 3 strides). Only the
// quad's first lane stores (column 0); the outer coordinates and each row
// are compared with the sizes (unsigned: negative ones are outside too);
// each row's store is branched around when outside. An f32 log2 (of the
// log-sum-exp) is lg2.approx, not a call to libdevice's __nv_log2f.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: gpu.module @store_direct
// CHECK-NOT: __nv_log2f
// CHECK: llvm.func @k(%[[ALLOC:.*]]: !llvm.ptr, %[[PTR:.*]]: !llvm.ptr, %[[OFF:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[S2:.*]]: i64, %[[T0:.*]]: i64, %[[T1:.*]]: i64, %[[T2:.*]]: i64, %[[B:.*]]: i32, %[[H:.*]]: i32, %[[M:.*]]: i32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: %[[LOG:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[ROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: %[[COL:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[LEAD:.*]] = llvm.icmp "eq" %[[COL]], %{{.*}} : i32
// CHECK: %[[BI:.*]] = llvm.sext %[[B]] : i32 to i64
// CHECK: %[[BOK:.*]] = llvm.icmp "ult" %[[BI]], %{{.*}} : i64
// CHECK: llvm.and %[[LEAD]], %[[BOK]] : i1
// CHECK: llvm.mul %[[BI]], %{{.*}} : i64
// CHECK: %[[HI:.*]] = llvm.sext %[[H]] : i32 to i64
// CHECK: llvm.icmp "ult" %[[HI]], %{{.*}} : i64
// CHECK: %[[OK:.*]] = llvm.and
// CHECK: llvm.mul %[[HI]], %{{.*}} : i64
// CHECK: %[[OFFSET:.*]] = llvm.add
// CHECK: %[[BASE:.*]] = llvm.extractvalue %{{.*}}[1]
// Row +0: the row coordinate plus the thread's row, against the size.
// CHECK: %[[R0:.*]] = llvm.sext %[[ROW]] : i32 to i64
// CHECK: %[[MI:.*]] = llvm.sext %[[M]] : i32 to i64
// CHECK: %[[G0:.*]] = llvm.add %[[MI]], %[[R0]] : i64
// CHECK: %[[SIZE:.*]] = llvm.extractvalue %{{.*}}[3, 2]
// CHECK: %[[IN0:.*]] = llvm.icmp "ult" %[[G0]], %[[SIZE]] : i64
// CHECK: %[[OK0:.*]] = llvm.and %[[OK]], %[[IN0]] : i1
// CHECK: %[[STRIDE:.*]] = llvm.extractvalue %{{.*}}[4, 2]
// CHECK: %[[E0:.*]] = llvm.mul %[[G0]], %[[STRIDE]] : i64
// CHECK: %[[AT0:.*]] = llvm.add %[[OFFSET]], %[[E0]] : i64
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[BASE]][%[[AT0]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[V0:.*]] = llvm.extractvalue %[[LOG]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.cond_br %[[OK0]], ^[[STORE0:.*]], ^[[NEXT0:.*]]
// CHECK: ^[[STORE0]]:
// CHECK-NEXT: llvm.store %[[V0]], %[[P0]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[NEXT0]]
// Rows +8, +64, +72.
// CHECK: ^[[NEXT0]]:
// CHECK-NEXT: llvm.mlir.constant(8 : i32) : i32
// CHECK: llvm.extractvalue %[[LOG]][1]
// CHECK: llvm.cond_br
// CHECK: llvm.store
// CHECK: llvm.mlir.constant(64 : i32) : i32
// CHECK: llvm.extractvalue %[[LOG]][2]
// CHECK: llvm.cond_br
// CHECK: llvm.store
// CHECK: llvm.mlir.constant(72 : i32) : i32
// CHECK: llvm.extractvalue %[[LOG]][3]
// CHECK: llvm.cond_br
// CHECK: llvm.store
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct {
    gpu.func @k(%lse: memref<?x?x?xf32>, %b: i32, %h: i32, %m: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %rows = tile.iota axis 0 : tensor<128xi32, #row>
          %f = arith.sitofp %rows : tensor<128xi32, #row> to tensor<128xf32, #row>
          %v = math.log2 %f : tensor<128xf32, #row>
          tile.store_direct %lse[%b, %h, %m], %v : memref<?x?x?xf32>, tensor<128xf32, #row>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.store_direct of a 2-d wgmma accumulator tile (64x16 bf16: per
// thread 8 values, pairs of contiguous columns at rows +0 and +8, columns
// +0 and +8) into a view whose sizes end early (memref.reinterpret_cast):
// each pair is one 4-byte vector store, branched around where its row or
// its last column is past the view's sizes or the outer coordinate past
// dimension 0's (unsigned compares).
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
// CHECK-LABEL: gpu.module @store_direct_tile
// The view's descriptor (after its row stride, heads * heads), then the
// outer coordinate against its size.
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: %[[VIEW:.*]] = llvm.insertvalue %{{.*}}[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: %[[H:.*]] = llvm.sext %{{.*}} : i32 to i64
// CHECK: %[[HEADS:.*]] = llvm.extractvalue %[[VIEW]][3, 0]
// CHECK: %[[HOK:.*]] = llvm.icmp "ult" %[[H]], %[[HEADS]] : i64
// CHECK: %[[COLS:.*]] = llvm.extractvalue %[[VIEW]][3, 2]
// The first pair: its row and its last column inside.
// CHECK: %[[ROWS:.*]] = llvm.extractvalue %[[VIEW]][3, 1]
// CHECK: %[[RIN:.*]] = llvm.icmp "ult" %{{.*}}, %[[ROWS]] : i64
// CHECK: %[[ROK:.*]] = llvm.and %[[HOK]], %[[RIN]] : i1
// CHECK: %[[CIN:.*]] = llvm.icmp "ult" %{{.*}}, %[[COLS]] : i64
// CHECK: %[[IN:.*]] = llvm.and %[[ROK]], %[[CIN]] : i1
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
// CHECK: llvm.insertelement {{.*}} : vector<2xbf16>
// CHECK: llvm.insertelement {{.*}} : vector<2xbf16>
// CHECK: llvm.cond_br %[[IN]]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct_tile {
    gpu.func @k(%o: memref<?x?x64xbf16>, %h: i32, %m: i32, %first: index,
                %rows: index, %heads: index) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %x = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
          %t = arith.truncf %x : tensor<64x16xf32, #acc> to tensor<64x16xbf16, #acc>
          %stride = arith.muli %heads, %heads : index
          %view = memref.reinterpret_cast %o to offset: [%first],
              sizes: [%heads, %rows, 64], strides: [64, %stride, 1]
              : memref<?x?x64xbf16> to memref<?x?x64xbf16, strided<[64, ?, 1], offset: ?>>
          %c0 = arith.constant 0 : i32
          tile.store_direct %view[%h, %m, %c0], %t
              : memref<?x?x64xbf16, strided<[64, ?, 1], offset: ?>>, tensor<64x16xbf16, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.store_direct of a 16-bit wgmma accumulator whose rows are whole
// 32-column groups (64x32 bf16) into rows of a static size that is a
// multiple of 8, at column 0: each group of a row is transposed across its
// quad (three shfl.sync.idx rounds), thread q of the quad storing 8-column
// block q as one 16-byte vector, branched around where its row or its
// last column is outside: one store per row of the thread (rows +0 and +8).
#acc = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
// CHECK-LABEL: gpu.module @store_direct_quad
// CHECK-COUNT-3: nvvm.shfl.sync idx
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-COUNT-3: nvvm.shfl.sync idx
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct_quad {
    gpu.func @k(%o: memref<?x?x64xbf16>, %h: i32, %m: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %x = arith.constant dense<1.0> : tensor<64x32xf32, #acc>
          %t = arith.truncf %x : tensor<64x32xf32, #acc> to tensor<64x32xbf16, #acc>
          %c0 = arith.constant 0 : i32
          tile.store_direct %o[%h, %m, %c0], %t
              : memref<?x?x64xbf16>, tensor<64x32xbf16, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// math.fma on register tensors becomes the fma instruction per register,
// not a call to libdevice's __nv_fmaf (kernels do not depend on libdevice).
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
// CHECK-LABEL: gpu.module @fma
// CHECK-NOT: __nv_fmaf
// CHECK: llvm.intr.fma
// CHECK-NOT: __nv_fmaf
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @fma {
    gpu.func @k(%c: f32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %cols = tile.iota axis 1 : tensor<64x16xi32, #acc>
          %x = arith.sitofp %cols : tensor<64x16xi32, #acc> to tensor<64x16xf32, #acc>
          %y = tensor.splat %c : tensor<64x16xf32, #acc>
          %z = math.fma %x, %y, %x : tensor<64x16xf32, #acc>
          %e = math.exp2 %z : tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.scale_rows of a wgmma accumulator (64x16: each thread holds rows
// r and r + 8, 4 values each) by its row factors: a compare of each of the
// thread's two factors with 1, and a branch around the 8 multiplies that
// threads whose factors are both 1 skip; the result is a block argument,
// the input on the skipping edge.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: gpu.module @scale_rows
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK: %[[F0:.*]] = llvm.extractvalue %[[ROWS:.*]][0] : !llvm.struct<(f32, f32)>
// CHECK: %[[NE0:.*]] = llvm.fcmp "une" %[[F0]], %[[ONE]] : f32
// CHECK: %[[F1:.*]] = llvm.extractvalue %[[ROWS]][1] : !llvm.struct<(f32, f32)>
// CHECK: %[[NE1:.*]] = llvm.fcmp "une" %[[F1]], %[[ONE]] : f32
// CHECK: %[[ANY:.*]] = llvm.or %[[NE0]], %[[NE1]] : i1
// CHECK: llvm.cond_br %[[ANY]], ^[[SCALE:.*]], ^[[DONE:.*]](%[[IN:.*]] : !llvm.struct
// CHECK: ^[[SCALE]]:
// CHECK-COUNT-8: llvm.fmul
// CHECK: llvm.br ^[[DONE]](%{{.*}} : !llvm.struct
// CHECK: ^[[DONE]](%[[OUT:.*]]: !llvm.struct
// CHECK: llvm.extractvalue %[[OUT]][0, 0]
module attributes {gpu.container_module} {
  gpu.module @scale_rows {
    gpu.func @k(%c: f32, %p: !llvm.ptr) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %cols = tile.iota axis 1 : tensor<64x16xi32, #acc>
          %x = arith.sitofp %cols : tensor<64x16xi32, #acc> to tensor<64x16xf32, #acc>
          %r = tile.iota axis 0 : tensor<64xi32, #row>
          %f = arith.sitofp %r : tensor<64xi32, #row> to tensor<64xf32, #row>
          %y = tile.scale_rows %x, %f : tensor<64x16xf32, #acc>, tensor<64xf32, #row>
          %e = math.exp2 %y : tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.store_direct of a 2-d register tensor into a memref whose innermost
// stride is not 1 (here a static 2) stores value by value: the 8 f32
// values of a thread (pairs of contiguous columns in the accumulator) are 8
// one-value stores, each column multiplied by the innermost stride read
// from the descriptor, none merged into a vector.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
// CHECK-LABEL: gpu.module @store_direct_2d
// CHECK: %[[CSTRIDE:.*]] = llvm.extractvalue %[[OUT:.*]][4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[RSTRIDE:.*]] = llvm.extractvalue %[[OUT]][4, 0]
// CHECK: %[[ROFF:.*]] = llvm.mul %{{.*}}, %[[RSTRIDE]] : i64
// CHECK: %[[COFF:.*]] = llvm.mul %{{.*}}, %[[CSTRIDE]] : i64
// CHECK: llvm.add %[[ROFF]], %[[COFF]] : i64
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr
// The next column of the pair, one stride on.
// CHECK: llvm.mul %{{.*}}, %[[CSTRIDE]] : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr
// CHECK-COUNT-6: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct_2d {
    gpu.func @k(%out: memref<?x16xf32, strided<[32, 2]>>, %m: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %s = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
          tile.store_direct %out[%m, %m], %s : memref<?x16xf32, strided<[32, 2]>>, tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// A tile with a lane per row (#tile.blocked, lanes = 1: each thread holds
// one row of 16 bytes, loaded by one predicated 128-bit load) stored into
// a memref whose strides are all dynamic (fmha.transpose_values' view of
// V^T: the columns far apart): 16 one-byte stores per thread, branched
// around where outside, at row * row stride + column * column stride, the
// strides read from the descriptor.
#blocked = #tile.blocked<vector = 16, lanes = 1, warps = 4>
// CHECK-LABEL: gpu.module @store_direct_columns
// CHECK: @p ld.global.v4.b32
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<16xi8>
// CHECK: %[[VALUES:.*]] = llvm.insertvalue %{{.*}}[15] : !llvm.struct<(i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8)>
// The destination's innermost size and stride (the columns').
// CHECK: %[[COLS:.*]] = llvm.extractvalue %[[DEST:.*]][3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: %[[CSTRIDE:.*]] = llvm.extractvalue %[[DEST]][4, 2]
// CHECK: %[[BASE:.*]] = llvm.extractvalue %[[DEST]][1]
// Value 0: the thread's row, column 0.
// CHECK: %[[RSTRIDE:.*]] = llvm.extractvalue %[[DEST]][4, 1]
// CHECK: %[[ROFF:.*]] = llvm.mul %{{.*}}, %[[RSTRIDE]] : i64
// CHECK: %[[COL0:.*]] = llvm.add %[[FIRST:.*]], %{{.*}} : i64
// CHECK: llvm.icmp "ult" %{{.*}}, %[[COLS]] : i64
// CHECK: %[[COFF0:.*]] = llvm.mul %[[COL0]], %[[CSTRIDE]] : i64
// CHECK: llvm.add %[[ROFF]], %[[COFF0]] : i64
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.extractvalue %[[VALUES]][0]
// CHECK: %[[V0:.*]] = llvm.insertelement %{{.*}} : vector<1xi8>
// CHECK: llvm.cond_br
// CHECK: llvm.store %[[V0]], %[[P0]] {alignment = 1 : i64} : vector<1xi8>, !llvm.ptr
// Value 1: column 1, one column stride on.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[COL1:.*]] = llvm.add %[[FIRST]], %[[ONE]] : i64
// CHECK: llvm.mul %[[COL1]], %[[CSTRIDE]] : i64
// CHECK: llvm.extractvalue %[[VALUES]][1]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : vector<1xi8>, !llvm.ptr
// CHECK-COUNT-14: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : vector<1xi8>, !llvm.ptr
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct_columns {
    gpu.func @k(%in: memref<?x16xi8>, %out: memref<?x?x16xi8, strided<[?, ?, ?]>>,
                %b: i32, %m: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %c0 = arith.constant 0 : i32
          %t = tile.load_direct %in[%m, %c0]
              : memref<?x16xi8> -> tensor<128x16xi8, #blocked>
          tile.store_direct %out[%b, %m, %c0], %t
              : memref<?x?x16xi8, strided<[?, ?, ?]>>, tensor<128x16xi8, #blocked>
        }
      }
      gpu.return
    }
  }
}

// -----

// Row vectors of a wgmma accumulator through shared memory, as the same
// pattern lowers them for every register layout: value 1 of a thread is its
// row + 8 (16 w + l / 4 + 8), read and written at that index by all 4 lanes
// of the quad that hold it.
// CHECK-LABEL: llvm.func @wgmma_rows(
// CHECK: %[[ROW:.*]] = llvm.add
// CHECK: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[ROW8:.*]] = llvm.add %[[ROW]], %[[EIGHT]] : i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.getelementptr %{{.*}}[%[[ROW8]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[ADDR]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.insertvalue %[[V]], %{{.*}}[1] : !llvm.struct<(f32, f32)>
// CHECK: %[[SROW:.*]] = llvm.add
// CHECK: %[[SEIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[SROW8:.*]] = llvm.add %[[SROW]], %[[SEIGHT]] : i32
// CHECK-NEXT: %[[SADDR:.*]] = llvm.getelementptr %{{.*}}[%[[SROW8]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: %[[SV:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT: llvm.store %[[SV]], %[[SADDR]] : f32, !llvm.ptr<3>
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @wgmma_rows() kernel attributes {ws.smem_bytes = 1024 : i64} {
      %buf = ws.buffer_alloc offset 0 : memref<64xf32, 3>
      %r = ws.load_shared %buf : memref<64xf32, 3> -> tensor<64xf32, #row>
      ws.store_shared %r, %buf : tensor<64xf32, #row>, memref<64xf32, 3>
      gpu.return
    }
  }
}

// -----

// Split-K's pieces in a role of one warpgroup: tile.load_direct of a 64x16
// f32 accumulator tile (pairs of columns as 8-byte vector loads predicated
// on being inside the memref, zeros otherwise, no branch), and
// ws.counter_arrive (after ws-lower-roles: the leader's predicate): a
// gpu-scope fence and bar.sync on the role's barrier in every thread, the
// leader's atomic add and reset, bar.red.or.pred handing the answer to
// all, and the fence again.
#acc16 = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
// CHECK-LABEL: gpu.module @split_k
// CHECK: %[[IN:.*]] = llvm.zext %{{.*}} : i1 to i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b32 $0, 0; mov.b32 $1, 0; @p ld.global.v2.b32 {$0, $1}, [$3]; }", "=r,=r,r,l" %[[IN]], %{{.*}} : (i32, !llvm.ptr) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.bitcast %{{.*}} : vector<2xi32> to vector<2xf32>
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.acq_rel.gpu;"
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred l, z;{{.*}}@l atom.relaxed.gpu.global.add.u32 old, [$2], 1;{{.*}}@z st.relaxed.gpu.global.b32 [$2], 0;\0Abar.red.or.pred z, 1, 128, z;{{.*}}", "=r,r,l,r,~{memory}"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.acq_rel.gpu;"
// CHECK: llvm.icmp "ne"
module attributes {gpu.container_module} {
  gpu.module @split_k {
    gpu.func @k(%ws: memref<?x?x?xf32>, %counters: memref<?xi32>, %s: i32, %m: i32, %n: i32, %t: i32, %splits: i32, %leader: i1) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %p = tile.load_direct %ws[%s, %m, %n] : memref<?x?x?xf32> -> tensor<64x16xf32, #acc16>
          %last = ws.counter_arrive %counters[%t], %splits barrier 1 threads 128 if %leader : memref<?xi32>
          scf.if %last {
            tile.store_direct %ws[%s, %m, %n], %p : memref<?x?x?xf32>, tensor<64x16xf32, #acc16>
          }
        }
      }
      gpu.return
    }
  }
}

// -----

// tile.store_direct of a row vector with `row_dims 2` (packed attention's
// log-sum-exp): each row's index in the row-major order of the two
// innermost dimensions, [seq, group], is split by the group size (udiv /
// urem by dimension 3's size); the position is compared with dimension 2's
// size (the head in the group is below its size by construction), and
// both parts are multiplied by their strides. tile.load_direct of a row
// vector: each row's value is a load predicated on the row being inside
// (zero otherwise), without a branch.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: gpu.module @store_direct_row_dims
// CHECK: llvm.func @k(
// The loaded rows: four per thread, each a predicated scalar load.
// CHECK: %[[LROWS:.*]] = llvm.extractvalue %{{.*}}[3, 3]
// CHECK: llvm.icmp "ult" %{{.*}}, %[[LROWS]] : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p; setp.ne.b32 p, $1, 0; mov.b32 $0, 0; @p ld.global.b32 $0, [$2]; }", "=r,r,l"
// CHECK: llvm.bitcast %{{.*}} : i32 to f32
// CHECK-COUNT-3: @p ld.global.b32
// The packed store: (position, head) = (flat / group, flat % group).
// CHECK: %[[J:.*]] = llvm.urem %[[FLAT:.*]], %[[G:.*]] : i64
// CHECK-NEXT: %[[S:.*]] = llvm.udiv %[[FLAT]], %[[G]] : i64
// CHECK: %[[JS:.*]] = llvm.extractvalue %{{.*}}[4, 3]
// CHECK: llvm.mul %[[J]], %[[JS]] : i64
// CHECK: %[[SEQ:.*]] = llvm.extractvalue %{{.*}}[3, 2]
// CHECK: llvm.icmp "ult" %[[S]], %[[SEQ]] : i64
// CHECK: %[[SS:.*]] = llvm.extractvalue %{{.*}}[4, 2]
// CHECK: llvm.mul %[[S]], %[[SS]] : i64
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT: llvm.store
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @store_direct_row_dims {
    gpu.func @k(%ws: memref<?x?x?x?xf32>, %lse: memref<?x?x?xf32>, %b: i32,
                %kv: i32, %s0: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %c0 = arith.constant 0 : i32
          %rows = tile.load_direct %ws[%c0, %b, %kv, %c0]
              : memref<?x?x?x?xf32> -> tensor<128xf32, #row>
          %i0 = arith.constant 0 : index
          %i1 = arith.constant 1 : index
          %i2 = arith.constant 2 : index
          %c4 = arith.constant 4 : index
          %nb = memref.dim %lse, %i0 : memref<?x?x?xf32>
          %nh = memref.dim %lse, %i1 : memref<?x?x?xf32>
          %ns = memref.dim %lse, %i2 : memref<?x?x?xf32>
          %nkv = arith.divui %nh, %c4 : index
          %bs = arith.muli %nh, %ns : index
          %ks = arith.muli %c4, %ns : index
          %view = memref.reinterpret_cast %lse to offset: [0],
              sizes: [%nb, %nkv, %ns, 4], strides: [%bs, %ks, 1, %ns]
              : memref<?x?x?xf32> to memref<?x?x?x4xf32, strided<[?, ?, 1, ?]>>
          tile.store_direct %view[%b, %kv, %s0, %c0], %rows row_dims 2
              : memref<?x?x?x4xf32, strided<[?, ?, 1, ?]>>, tensor<128xf32, #row>
        }
      }
      gpu.return
    }
  }
}

// -----

// An fp8 GEMM's per-column scales: tile.load_direct of a column vector
// (#tile.slice<dim = 0>) loads the thread's columns of the accumulator
// layout, 2 of every 8 (for 16 columns: 4 predicated scalar loads, zero
// past the memref), and tile.broadcast axis 0 gives each accumulator value
// its column's: columns +0, +1 to values 0, 1 and 2, 3 (the rows +0 and
// +8), columns +8, +9 to values 4, 5 and 6, 7.
#acc = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
#col = #tile.slice<dim = 0, parent = #acc>
// CHECK-LABEL: gpu.module @column_scales
// CHECK: %[[N:.*]] = llvm.extractvalue %{{.*}}[3, 0]
// CHECK: llvm.icmp "ult" %{{.*}}, %[[N]] : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p; setp.ne.b32 p, $1, 0; mov.b32 $0, 0; @p ld.global.b32 $0, [$2]; }", "=r,r,l"
// CHECK-COUNT-3: @p ld.global.b32
// CHECK: %[[C:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[V0:.*]] = llvm.extractvalue %[[C]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[V1:.*]] = llvm.extractvalue %[[C]][1] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[V2:.*]] = llvm.extractvalue %[[C]][2] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[V3:.*]] = llvm.extractvalue %[[C]][3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.insertvalue %[[V0]], %{{.*}}[0, 0]
// CHECK-NEXT: llvm.insertvalue %[[V1]], %{{.*}}[0, 1]
// CHECK-NEXT: llvm.insertvalue %[[V0]], %{{.*}}[0, 2]
// CHECK-NEXT: llvm.insertvalue %[[V1]], %{{.*}}[0, 3]
// CHECK-NEXT: llvm.insertvalue %[[V2]], %{{.*}}[0, 4]
// CHECK-NEXT: llvm.insertvalue %[[V3]], %{{.*}}[0, 5]
// CHECK-NEXT: llvm.insertvalue %[[V2]], %{{.*}}[0, 6]
// CHECK-NEXT: llvm.insertvalue %[[V3]], %{{.*}}[0, 7]
// CHECK: llvm.fmul
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @column_scales {
    gpu.func @k(%scale: memref<?xf32>, %n: i32) kernel attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %cols = tile.load_direct %scale[%n] : memref<?xf32> -> tensor<16xf32, #col>
          %b = tile.broadcast %cols axis 0 : tensor<16xf32, #col> -> tensor<64x16xf32, #acc>
          %acc = arith.constant dense<2.0> : tensor<64x16xf32, #acc>
          %scaled = arith.mulf %acc, %b : tensor<64x16xf32, #acc>
        }
      }
      gpu.return
    }
  }
}
