// RUN: fmha-opt %s --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// ws.tma_store reduce add: the role's leader branches into
// nvvm.cp.async.bulk.tensor.reduce add (it takes no predicate), every
// thread commits the bulk group; coordinates reversed for PTX.
// CHECK-LABEL: gpu.module @reduce
// CHECK: llvm.cond_br
// CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%arg2, %arg1] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
module attributes {gpu.container_module} {
  gpu.module @reduce {
    gpu.func @k(%c: !tile.desc<tensor<64x128xf32>>, %m: i32, %n: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32768 : i64} {
      %s = ws.buffer_alloc offset 0 : memref<64x128xf32, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          ws.tma_store %c[%m, %n], %s reduce add : !tile.desc<tensor<64x128xf32>>, memref<64x128xf32, 3>
          ws.tma_store_wait
        }
      }
      gpu.return
    }
  }
}
