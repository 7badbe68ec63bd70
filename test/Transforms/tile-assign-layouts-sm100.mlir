// RUN: fmha-opt %s -split-input-file -verify-diagnostics --tile-assign-layouts | FileCheck %s

// A GEMM main loop on sm100: operands in swizzled shared memory as on sm90;
// the accumulator lives in tensor memory, from the zero it starts at (no
// store: the first MMA does not accumulate) through the loop; after the
// loop one tcgen05.ld (a convert_layout to the 32x32b register layout)
// brings it into registers for the epilogue.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[TMEM:[a-z0-9_]+]] = #tile.tmem<block = [128, 256], unpacked = true>
// CHECK-DAG: #[[REGS:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, %{{.*}}: !tile.desc<tensor<256x64xbf16, #[[SMEM]]>>, %[[C:.*]]: !tile.desc<tensor<128x256xbf16>>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #[[TMEM]]>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<128x256xf32, #[[TMEM]]>) : i32 {
// CHECK:   %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]] {transpose_b} : tensor<128x64xbf16, #[[SMEM]]>, tensor<256x64xbf16, #[[SMEM]]>, tensor<128x256xf32, #[[TMEM]]>
// CHECK:   scf.yield %[[D]] : tensor<128x256xf32, #[[TMEM]]>
// CHECK: }
// CHECK: %[[V:.*]] = tile.convert_layout %[[R]] : tensor<128x256xf32, #[[TMEM]]> -> tensor<128x256xf32, #[[REGS]]>
// CHECK: %[[T:.*]] = arith.truncf %[[V]] : tensor<128x256xf32, #[[REGS]]> to tensor<128x256xbf16, #[[REGS]]>
// CHECK: tile.store %[[C]][%{{.*}}, %{{.*}}], %[[T]] : !tile.desc<tensor<128x256xbf16>>, tensor<128x256xbf16, #[[REGS]]>
gpu.module @gemm [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16>>,
                 %b: !tile.desc<tensor<256x64xbf16>>,
                 %c: !tile.desc<tensor<128x256xbf16>>, %k: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x256xf32>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<128x64xbf16>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<256x64xbf16>>
      %d = tile.dot %x, %y, %acc {transpose_b}
          : tensor<128x64xbf16>, tensor<256x64xbf16>, tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %t = arith.truncf %r : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.store %c[%m, %n], %t : !tile.desc<tensor<128x256xbf16>>
    gpu.return
  }
}

// -----

// Attention's inner loop on sm100. S = Q K^T lands in tensor memory and is
// loaded (32x32b) for the softmax; the row max takes the row slice of the
// register layout; P is stored back into tensor memory packed (two bf16 per
// column), where P @ V reads its A operand; O stays in tensor memory across
// iterations, and its rescaling (the correction) loads it, multiplies in
// registers and stores it back as the accumulator of P @ V.
// CHECK-DAG: #[[S:[a-z0-9_]+]] = #tile.tmem<block = [128, 128], unpacked = true>
// CHECK-DAG: #[[O:[a-z0-9_]+]] = #tile.tmem<block = [128, 64], unpacked = true>
// CHECK-DAG: #[[P:[a-z0-9_]+]] = #tile.tmem<block = [128, 128], unpacked = false>
// CHECK-DAG: #[[REGS:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-DAG: #[[ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[REGS]]>
// CHECK-LABEL: gpu.func @attention(
// CHECK: %[[ZS:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[S]]>
// CHECK: %[[ZO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #[[O]]>
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32, #[[ROW]]>
// CHECK: scf.for {{.*}} iter_args(%[[OI:.*]] = %[[ZO]], %[[MI:.*]] = %[[NINF]]) -> (tensor<128x64xf32, #[[O]]>, tensor<128xf32, #[[ROW]]>)
// CHECK:   %[[OR:.*]] = tile.convert_layout %[[OI]] : tensor<128x64xf32, #[[O]]> -> tensor<128x64xf32, #[[REGS]]>
// CHECK:   %[[SD:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ZS]] {transpose_b} : {{.*}}, tensor<128x128xf32, #[[S]]>
// CHECK:   %[[SR:.*]] = tile.convert_layout %[[SD]] : tensor<128x128xf32, #[[S]]> -> tensor<128x128xf32, #[[REGS]]>
// CHECK:   tile.reduce max %[[SR]] axis 1 : tensor<128x128xf32, #[[REGS]]> -> tensor<128xf32, #[[ROW]]>
// CHECK:   %[[OS:.*]] = arith.mulf %[[OR]], %{{.*}} : tensor<128x64xf32, #[[REGS]]>
// CHECK:   %[[OST:.*]] = tile.convert_layout %[[OS]] : tensor<128x64xf32, #[[REGS]]> -> tensor<128x64xf32, #[[O]]>
// CHECK:   %[[PB:.*]] = arith.truncf %{{.*}} : tensor<128x128xf32, #[[REGS]]> to tensor<128x128xbf16, #[[REGS]]>
// CHECK:   %[[PT:.*]] = tile.convert_layout %[[PB]] : tensor<128x128xbf16, #[[REGS]]> -> tensor<128x128xbf16, #[[P]]>
// CHECK:   %[[ON:.*]] = tile.dot %[[PT]], %{{.*}}, %[[OST]] : tensor<128x128xbf16, #[[P]]>, tensor<128x64xbf16, #{{.*}}>, tensor<128x64xf32, #[[O]]>
// CHECK:   scf.yield %[[ON]], %{{.*}} : tensor<128x64xf32, #[[O]]>, tensor<128xf32, #[[ROW]]>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @attention(%q: !tile.desc<tensor<128x64xbf16>>, %k: !tile.desc<tensor<128x64xbf16>>,
                      %v: !tile.desc<tensor<128x64xbf16>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = tile.load %q[%c0, %c0] : !tile.desc<tensor<128x64xbf16>>
    %zs = arith.constant dense<0.0> : tensor<128x128xf32>
    %zo = arith.constant dense<0.0> : tensor<128x64xf32>
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zo, %m = %ninf)
        -> (tensor<128x64xf32>, tensor<128xf32>) : i32 {
      %y = tile.load %k[%i, %c0] : !tile.desc<tensor<128x64xbf16>>
      %z = tile.load %v[%i, %c0] : !tile.desc<tensor<128x64xbf16>>
      %s = tile.dot %x, %y, %zs {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
      %mx = tile.reduce max %s axis 1 : tensor<128x128xf32> -> tensor<128xf32>
      %mn = arith.maximumf %m, %mx : tensor<128xf32>
      %dm = arith.subf %m, %mn : tensor<128xf32>
      %alpha = math.exp2 %dm : tensor<128xf32>
      %ab = tile.broadcast %alpha axis 1 : tensor<128xf32> -> tensor<128x64xf32>
      %os = arith.mulf %o, %ab : tensor<128x64xf32>
      %mb = tile.broadcast %mn axis 1 : tensor<128xf32> -> tensor<128x128xf32>
      %d = arith.subf %s, %mb : tensor<128x128xf32>
      %e = math.exp2 %d : tensor<128x128xf32>
      %p = arith.truncf %e : tensor<128x128xf32> to tensor<128x128xbf16>
      %on = tile.dot %p, %z, %os : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
      scf.yield %on, %mn : tensor<128x64xf32>, tensor<128xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
// The accumulator is a multiple of 128 rows (lanes); 64-row tcgen05.mma
// accumulators have no register layout for their readers yet.
func.func @acc_rows(%x: tensor<64x64xbf16>, %y: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op an sm100 accumulator tile is a multiple of 128 rows and 8 to 256 columns in steps of 8 (64-row accumulators are not supported yet), got 64x64}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
// At most 256 accumulator columns (one tcgen05.mma's N).
func.func @acc_wide(%x: tensor<128x64xbf16>, %y: tensor<264x64xbf16>) -> tensor<128x264xf32> {
  %zero = arith.constant dense<0.0> : tensor<128x264xf32>
  // expected-error @+1 {{'tile.dot' op an sm100 accumulator tile is a multiple of 128 rows and 8 to 256 columns in steps of 8 (64-row accumulators are not supported yet), got 128x264}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<128x64xbf16>, tensor<264x64xbf16>, tensor<128x264xf32>
  return %d : tensor<128x264xf32>
}
}

// -----

// A program without dots (fmha.merge_states) on sm100: no tensor memory;
// the tile loaded by tile.load_direct gets #tile.blocked as on sm90.
// CHECK-DAG: #[[BLK:[a-z0-9_]+]] = #tile.blocked<vector = 8, lanes = 16, warps = 4>
// CHECK-DAG: #[[BLK_ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[BLK]]>
// CHECK-LABEL: gpu.func @merge(
// CHECK: tile.load_direct {{.+}} -> tensor<32xf32, #[[BLK_ROW]]>
// CHECK: tile.load_direct {{.+}} -> tensor<32x128xbf16, #[[BLK]]>
// CHECK: tile.broadcast {{.+}} axis 1 : tensor<32xf32, #[[BLK_ROW]]> -> tensor<32x128xf32, #[[BLK]]>
// CHECK: tile.store_direct {{.+}} : memref<?x128xbf16, strided<[?, 1]>>, tensor<32x128xbf16, #[[BLK]]>
module attributes {gpu.container_module} {
  gpu.module @merge_module [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">] {
    gpu.func @merge(%states: memref<?x?x128xbf16, strided<[?, ?, 1]>>,
                    %lse: memref<?x?xf32, strided<[?, ?]>>,
                    %o: memref<?x128xbf16, strided<[?, 1]>>,
                    %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %pid = tile.program_id x : i32
      %row0 = arith.muli %pid, %c32 : i32
      %zero = arith.constant dense<0.0> : tensor<32x128xf32>
      %r = scf.for %s = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<32x128xf32>) : i32 {
        %w = tile.load_direct %lse[%s, %row0] : memref<?x?xf32, strided<[?, ?]>> -> tensor<32xf32>
        %e = math.exp2 %w : tensor<32xf32>
        %t = tile.load_direct %states[%s, %row0, %c0] : memref<?x?x128xbf16, strided<[?, ?, 1]>> -> tensor<32x128xbf16>
        %f = arith.extf %t : tensor<32x128xbf16> to tensor<32x128xf32>
        %eb = tile.broadcast %e axis 1 : tensor<32xf32> -> tensor<32x128xf32>
        %p = arith.mulf %f, %eb : tensor<32x128xf32>
        %a = arith.addf %acc, %p : tensor<32x128xf32>
        scf.yield %a : tensor<32x128xf32>
      }
      %out = arith.truncf %r : tensor<32x128xf32> to tensor<32x128xbf16>
      tile.store_direct %o[%row0, %c0], %out : memref<?x128xbf16, strided<[?, 1]>>, tensor<32x128xbf16>
      gpu.return
    }
  }
}

// -----

// Split-K's reduction on the last arrival, as split-KV attention's merge
// does it on sm100: tiles read back by plain loads (tile.load_direct) of
// 128 rows take the 32x32b register layout of the warpgroup that merges
// them (a row per thread), and their row vectors its row slice.
// CHECK-DAG: #[[REGS:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-DAG: #[[ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[REGS]]>
// CHECK-LABEL: gpu.func @split_merge(
// CHECK: scf.if
// CHECK:   %[[P:.*]] = tile.load_direct %{{.*}} : memref<?x?x64xf32> -> tensor<128x64xf32, #[[REGS]]>
// CHECK:   %[[L:.*]] = tile.load_direct %{{.*}} : memref<?x?xf32> -> tensor<128xf32, #[[ROW]]>
// CHECK:   %[[W:.*]] = tile.broadcast %{{.*}} axis 1 : tensor<128xf32, #[[ROW]]> -> tensor<128x64xf32, #[[REGS]]>
// CHECK:   tile.store_direct %{{.*}} : memref<?x64xbf16>, tensor<128x64xbf16, #[[REGS]]>
gpu.module @merge [#nvvm.target<chip = "sm_100a">] {
  gpu.func @split_merge(%a: !tile.desc<tensor<128x64xbf16>>,
                  %b: !tile.desc<tensor<64x64xbf16>>,
                  %partial: memref<?x?x64xf32>, %weights: memref<?x?xf32>,
                  %counters: memref<?xi32>, %out: memref<?x64xbf16>,
                  %k: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %m = tile.program_id x : i32
    %s = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x64xf32>) : i32 {
      %x = tile.load %a[%m, %i] : !tile.desc<tensor<128x64xbf16>>
      %y = tile.load %b[%c0, %i] : !tile.desc<tensor<64x64xbf16>>
      %d = tile.dot %x, %y, %acc {transpose_b}
          : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    tile.store_direct %partial[%s, %m, %c0], %r : memref<?x?x64xf32>, tensor<128x64xf32>
    %last = tile.counter_arrive %counters[%m], %c2 : memref<?xi32>
    scf.if %last {
      %none = arith.constant dense<0.0> : tensor<128x64xf32>
      %sum = scf.for %j = %c0 to %c2 step %c1 iter_args(%acc = %none)
          -> (tensor<128x64xf32>) : i32 {
        %p = tile.load_direct %partial[%j, %m, %c0] : memref<?x?x64xf32> -> tensor<128x64xf32>
        %l = tile.load_direct %weights[%j, %m] : memref<?x?xf32> -> tensor<128xf32>
        %w = tile.broadcast %l axis 1 : tensor<128xf32> -> tensor<128x64xf32>
        %pw = arith.mulf %p, %w : tensor<128x64xf32>
        %next = arith.addf %acc, %pw : tensor<128x64xf32>
        scf.yield %next : tensor<128x64xf32>
      }
      %t = arith.truncf %sum : tensor<128x64xf32> to tensor<128x64xbf16>
      tile.store_direct %out[%m, %c0], %t : memref<?x64xbf16>, tensor<128x64xbf16>
    }
    gpu.return
  }
}

// -----

// Operands computed in registers are staged into shared memory on sm_90a
// only.
gpu.module @staged [#nvvm.target<chip = "sm_100a">] {
  gpu.func @staged(%kd: !tile.desc<tensor<128x64xbf16>>,
                   %qd: !tile.desc<tensor<128x64xbf16>>, %i: i32) kernel {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %zero2 = arith.constant dense<0.0> : tensor<128x64xf32>
    %k = tile.load %kd[%i, %i] : !tile.desc<tensor<128x64xbf16>>
    %q = tile.load %qd[%i, %i] : !tile.desc<tensor<128x64xbf16>>
    %s = tile.dot %k, %q, %zero {transpose_b}
        : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
    %t = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xbf16>
    // expected-error @+1 {{'tile.dot' op operands computed in registers are read from shared memory on sm_90a only}}
    %d = tile.dot %t, %k, %zero2 {transpose_a}
        : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
    gpu.return
  }
}
