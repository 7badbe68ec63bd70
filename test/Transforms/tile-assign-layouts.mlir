// RUN: fmha-opt %s -split-input-file -verify-diagnostics --tile-assign-layouts | FileCheck %s

// The kernels are in sm_90a gpu.modules: wgmma layouts
// (tile-assign-layouts-target.mlir: how the target is found).

// A GEMM main loop: the 64-column bf16 operands (128-byte rows) get the
// 128-byte swizzle, on the loads and on the kernel's descriptor parameters;
// the accumulator layout flows from the dot through the zero constant, the
// loop's iteration argument, yield and result, the truncf and into the store.
// The output descriptor gets the swizzle its rows fill too, so that the
// store is staged into swizzled rows (no bank conflicts) and TMA stores it
// box by box.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[ACC:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
// CHECK-LABEL: gpu.module @gemm
// CHECK: gpu.func @gemm(%[[A:.*]]: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, %[[C:.*]]: !tile.desc<tensor<128x128xbf16, #[[SMEM]]>>, %{{.*}}: i32) kernel
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[ACC]]>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC_I:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #[[ACC]]>) : i32 {
// CHECK:   %[[X:.*]] = tile.load %[[A]][%{{.*}}, %{{.*}}] : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>
// CHECK:   %[[Y:.*]] = tile.load %[[B]][%{{.*}}, %{{.*}}] : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>
// CHECK:   %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ACC_I]] {transpose_b} : tensor<128x64xbf16, #[[SMEM]]>, tensor<128x64xbf16, #[[SMEM]]>, tensor<128x128xf32, #[[ACC]]>
// CHECK:   scf.yield %[[D]] : tensor<128x128xf32, #[[ACC]]>
// CHECK: }
// CHECK: %[[T:.*]] = arith.truncf %[[R]] : tensor<128x128xf32, #[[ACC]]> to tensor<128x128xbf16, #[[ACC]]>
// CHECK: tile.store %[[C]][%{{.*}}, %{{.*}}], %[[T]] : !tile.desc<tensor<128x128xbf16, #[[SMEM]]>>, tensor<128x128xbf16, #[[ACC]]>
// CHECK: gpu.return
gpu.module @gemm [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16>>,
                 %b: !tile.desc<tensor<128x64xbf16>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %k: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x128xf32>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<128x64xbf16>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<128x64xbf16>>
      %d = tile.dot %x, %y, %acc {transpose_b}
          : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %t = arith.truncf %r : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.store %c[%m, %n], %t : !tile.desc<tensor<128x128xbf16>>
    gpu.return
  }
}

// -----

// A swapped GEMM (C^T = B A^T): the 64x8 accumulator gets instr_n = 8; its
// transpose, and the truncf and store after it, the transposed layout of
// that accumulator (each thread keeps its registers); the store is staged
// swizzled, a value at a time.
// CHECK-DAG: #[[ACC8:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
// CHECK-DAG: #[[ACC8T:[a-z0-9_]+]] = #tile.transposed<parent = #[[ACC8]]>
// CHECK-LABEL: gpu.module @gemm_swap
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<64x8xf32, #[[ACC8]]>) : i32 {
// CHECK: %[[T:.*]] = tile.transpose %[[R]] : tensor<64x8xf32, #[[ACC8]]> -> tensor<8x64xf32, #[[ACC8T]]>
// CHECK: %[[O:.*]] = arith.truncf %[[T]] : tensor<8x64xf32, #[[ACC8T]]> to tensor<8x64xbf16, #[[ACC8T]]>
// CHECK: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %[[O]] : !tile.desc<tensor<8x64xbf16, #{{.*}}>>, tensor<8x64xbf16, #[[ACC8T]]>
gpu.module @gemm_swap [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm_swap(%a: !tile.desc<tensor<8x64xbf16>>,
                      %b: !tile.desc<tensor<64x64xbf16>>,
                      %c: !tile.desc<tensor<8x64xbf16>>, %k: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<64x8xf32>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<64x8xf32>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<8x64xbf16>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<64x64xbf16>>
      %d = tile.dot %y, %x, %acc {transpose_b}
          : tensor<64x64xbf16>, tensor<8x64xbf16>, tensor<64x8xf32>
      scf.yield %d : tensor<64x8xf32>
    }
    %t = tile.transpose %r : tensor<64x8xf32> -> tensor<8x64xf32>
    %o = arith.truncf %t : tensor<8x64xf32> to tensor<8x64xbf16>
    tile.store %c[%m, %n], %o : !tile.desc<tensor<8x64xbf16>>
    gpu.return
  }
}

// -----

// Narrower rows: 32 bf16 columns (64 bytes) take the 64-byte swizzle, 16 f16
// columns (32 bytes) the 32-byte one (and the stored f32 output, 256-byte
// rows, the 128-byte one); a 64-column accumulator gets
// instr_n = 64, and elementwise ops on it (a splat of a scalar, mulf) share
// its layout.
// CHECK-DAG: #[[S64:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 16>
// CHECK-DAG: #[[S32:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 16>
// CHECK-DAG: #[[ACC64:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: func.func @narrow
// CHECK-SAME: %[[A:[a-z0-9_]+]]: !tile.desc<tensor<64x32xbf16, #[[S64]]>>
// CHECK-SAME: %[[B:[a-z0-9_]+]]: !tile.desc<tensor<64x32xbf16, #[[S64]]>>
// CHECK-SAME: %[[E:[a-z0-9_]+]]: !tile.desc<tensor<64x16xf16, #[[S32]]>>
// CHECK-SAME: %[[F:[a-z0-9_]+]]: !tile.desc<tensor<64x16xf16, #[[S32]]>>
// CHECK-SAME: %[[O:[a-z0-9_]+]]: !tile.desc<tensor<64x64xf32, #{{[a-z0-9_]+}}>>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[ACC64]]>
// CHECK: %[[X:.*]] = tile.load %[[A]]{{.*}} : !tile.desc<tensor<64x32xbf16, #[[S64]]>>
// CHECK: %[[Y:.*]] = tile.load %[[B]]{{.*}} : !tile.desc<tensor<64x32xbf16, #[[S64]]>>
// CHECK: %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ZERO]] {transpose_b} : tensor<64x32xbf16, #[[S64]]>, tensor<64x32xbf16, #[[S64]]>, tensor<64x64xf32, #[[ACC64]]>
// CHECK: %[[U:.*]] = tile.load %[[E]]{{.*}} : !tile.desc<tensor<64x16xf16, #[[S32]]>>
// CHECK: %[[V:.*]] = tile.load %[[F]]{{.*}} : !tile.desc<tensor<64x16xf16, #[[S32]]>>
// CHECK: %[[S:.*]] = tensor.splat %{{.*}} : tensor<64x64xf32, #[[ACC64]]>
// CHECK: %[[P:.*]] = arith.mulf %[[D]], %[[S]] : tensor<64x64xf32, #[[ACC64]]>
// CHECK: %[[D2:.*]] = tile.dot %[[U]], %[[V]], %[[P]] {transpose_b} : tensor<64x16xf16, #[[S32]]>, tensor<64x16xf16, #[[S32]]>, tensor<64x64xf32, #[[ACC64]]>
// CHECK: tile.store %[[O]][%{{.*}}, %{{.*}}], %[[D2]] : !tile.desc<tensor<64x64xf32, #{{[a-z0-9_]+}}>>, tensor<64x64xf32, #[[ACC64]]>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @narrow(%a: !tile.desc<tensor<64x32xbf16>>,
                  %b: !tile.desc<tensor<64x32xbf16>>,
                  %e: !tile.desc<tensor<64x16xf16>>,
                  %f: !tile.desc<tensor<64x16xf16>>,
                  %o: !tile.desc<tensor<64x64xf32>>,
                  %i: i32, %scale: f32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x32xbf16>>
  %y = tile.load %b[%i, %i] : !tile.desc<tensor<64x32xbf16>>
  %d = tile.dot %x, %y, %zero {transpose_b}
      : tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x64xf32>
  %u = tile.load %e[%i, %i] : !tile.desc<tensor<64x16xf16>>
  %v = tile.load %f[%i, %i] : !tile.desc<tensor<64x16xf16>>
  %s = tensor.splat %scale : tensor<64x64xf32>
  %p = arith.mulf %d, %s : tensor<64x64xf32>
  %d2 = tile.dot %u, %v, %p {transpose_b}
      : tensor<64x16xf16>, tensor<64x16xf16>, tensor<64x64xf32>
  tile.store %o[%i, %i], %d2 : !tile.desc<tensor<64x64xf32>>
  return
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// The accumulator needs a multiple of 64 rows.
func.func @acc_rows(%x: tensor<32x64xbf16>, %y: tensor<64x64xbf16>) -> tensor<32x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  // expected-error @+1 {{'tile.dot' op an sm90 accumulator tile is a multiple of 64 rows and 8 to 256 columns in steps of 8, got 32x64}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<32x64xbf16>, tensor<64x64xbf16>, tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// At most 256 accumulator columns (one wgmma's N).
func.func @acc_wide(%x: tensor<64x64xbf16>, %y: tensor<264x64xbf16>) -> tensor<64x264xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x264xf32>
  // expected-error @+1 {{'tile.dot' op an sm90 accumulator tile is a multiple of 64 rows and 8 to 256 columns in steps of 8, got 64x264}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<264x64xbf16>, tensor<64x264xf32>
  return %d : tensor<64x264xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// Accumulator columns come in steps of 8.
func.func @acc_step(%x: tensor<64x64xbf16>, %y: tensor<100x64xbf16>) -> tensor<64x100xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x100xf32>
  // expected-error @+1 {{'tile.dot' op an sm90 accumulator tile is a multiple of 64 rows and 8 to 256 columns in steps of 8, got 64x100}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<100x64xbf16>, tensor<64x100xf32>
  return %d : tensor<64x100xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// Operands are read from shared memory: loaded by TMA, or stored there from
// a register layout, which a function argument does not have.
func.func @not_loaded(%a: !tile.desc<tensor<64x64xbf16>>, %y: tensor<64x64xbf16>, %i: i32) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x64xbf16>>
  // expected-error @+1 {{'tile.dot' op operand #1 is neither loaded into shared memory nor computed in a register layout it can be stored from}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// Rows of 4 bf16 (8 bytes) fill no swizzle span.
func.func @rows_8_bytes(%a: !tile.desc<tensor<64x4xbf16>>, %b: !tile.desc<tensor<64x4xbf16>>, %i: i32) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x4xbf16>>
  %y = tile.load %b[%i, %i] : !tile.desc<tensor<64x4xbf16>>
  // expected-error @+1 {{'tile.dot' op operand rows of 8 bytes fill no swizzle span (32, 64 or 128 bytes)}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x4xbf16>, tensor<64x4xbf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// Rows of 24 bf16 (48 bytes) are wider than 32 bytes but fill no span
// evenly either.
func.func @rows_48_bytes(%a: !tile.desc<tensor<64x24xbf16>>, %b: !tile.desc<tensor<64x24xbf16>>, %i: i32) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x24xbf16>>
  %y = tile.load %b[%i, %i] : !tile.desc<tensor<64x24xbf16>>
  // expected-error @+1 {{'tile.dot' op operand rows of 48 bytes fill no swizzle span (32, 64 or 128 bytes)}}
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x24xbf16>, tensor<64x24xbf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// A loaded operand that also feeds an accumulator would need both the shared
// and the register layout.
func.func @conflict(%a: !tile.desc<tensor<64x64xbf16>>, %i: i32) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x64xbf16>>
  %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  // expected-error @+1 {{'arith.extf' op needs layout #tile.wgmma_acc<instr_n = 64, warpgroups = 1> for a tensor that already has #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>}}
  %e = arith.extf %x : tensor<64x64xbf16> to tensor<64x64xf32>
  %d2 = tile.dot %x, %x, %e {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %d2 : tensor<64x64xf32>
}
}

// -----

// The softmax of attention: row reductions of S take its row-slice layout,
// broadcasts take it back, and P (computed in registers) keeps S's register
// layout as the A operand of P @ V; V, given as [K, N], is read in place.
// CHECK-DAG: #[[ACC:.*]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-DAG: #[[ROW:.*]] = #tile.slice<dim = 1, parent = #[[ACC]]>
// CHECK-LABEL: gpu.func @softmax
// CHECK: %[[S:.*]] = tile.dot {{.*}}, tensor<64x64xf32, #[[ACC]]>
// CHECK: tile.reduce max %[[S]] axis 1 : tensor<64x64xf32, #[[ACC]]> -> tensor<64xf32, #[[ROW]]>
// CHECK: tile.broadcast %{{.*}} axis 1 : tensor<64xf32, #[[ROW]]> -> tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #[[ACC]]> to tensor<64x64xbf16, #[[ACC]]>
// CHECK: tile.dot %[[P]], %{{.*}}, %{{.*}} : tensor<64x64xbf16, #[[ACC]]>, tensor<64x64xbf16, #{{.*}}>, tensor<64x64xf32, #[[ACC]]>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @softmax(%q: !tile.desc<tensor<64x64xbf16>>, %k: !tile.desc<tensor<64x64xbf16>>,
                    %v: !tile.desc<tensor<64x64xbf16>>, %i: i32) kernel {
    %x = tile.load %q[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %y = tile.load %k[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %z = tile.load %v[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %m = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %mb = tile.broadcast %m axis 1 : tensor<64xf32> -> tensor<64x64xf32>
    %d = arith.subf %s, %mb : tensor<64x64xf32>
    %e = math.exp2 %d : tensor<64x64xf32>
    %p = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xbf16>
    %o = tile.dot %p, %z, %zero : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    gpu.return
  }
}

// -----

// tile.scale_rows (O rescaled by the online softmax's factors): its result
// takes its input's layout, the accumulator of P @ V (instr_n 32), and its
// factors, a row reduction of S (instr_n 64), are converted to the row
// slice of O's layout (the same registers).
// CHECK-DAG: #[[S:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-DAG: #[[O:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
// CHECK-DAG: #[[SROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[S]]>
// CHECK-DAG: #[[OROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[O]]>
// CHECK-LABEL: gpu.func @scale_rows
// CHECK: %[[M:.*]] = tile.reduce max %{{.*}} axis 1 : tensor<64x64xf32, #[[S]]> -> tensor<64xf32, #[[SROW]]>
// CHECK: %[[ACC:.*]] = tile.dot %{{.*}} : tensor<64x64xbf16, #[[S]]>, tensor<64x32xbf16, #{{.*}}>, tensor<64x32xf32, #[[O]]>
// CHECK: %[[F:.*]] = tile.convert_layout %[[M]] : tensor<64xf32, #[[SROW]]> -> tensor<64xf32, #[[OROW]]>
// CHECK: tile.scale_rows %[[ACC]], %[[F]] : tensor<64x32xf32, #[[O]]>, tensor<64xf32, #[[OROW]]>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @scale_rows(%q: !tile.desc<tensor<64x64xbf16>>,
                       %k: !tile.desc<tensor<64x64xbf16>>,
                       %v: !tile.desc<tensor<64x32xbf16>>,
                       %o: !tile.desc<tensor<64x32xf32>>, %i: i32) kernel {
    %x = tile.load %q[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %y = tile.load %k[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %z = tile.load %v[%i, %i] : !tile.desc<tensor<64x32xbf16>>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %zero32 = arith.constant dense<0.0> : tensor<64x32xf32>
    %s = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %m = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %acc = tile.dot %p, %z, %zero32 : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    %r = tile.scale_rows %acc, %m : tensor<64x32xf32>, tensor<64xf32>
    tile.store %o[%i, %i], %r : !tile.desc<tensor<64x32xf32>>
    gpu.return
  }
}

// -----

// An asynchronous dot's result, its tile.dot_wait and the scf.if that masks
// it share the accumulator layout: through the wait, and through both
// branches' yields and the if's result.
// CHECK-DAG: #[[ACC:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: func.func @async_masked
// CHECK: %[[D:.*]] = tile.dot {{.*}} {async, transpose_b} : {{.*}}, tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[W:.*]] = tile.dot_wait %[[D]] pending 0 : tensor<64x64xf32, #[[ACC]]>
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32, #[[ACC]]>)
// CHECK:   arith.select %{{.*}}, %[[W]], %{{.*}} : tensor<64x64xi1, #[[ACC]]>, tensor<64x64xf32, #[[ACC]]>
// CHECK: } else {
// CHECK:   scf.yield %[[W]] : tensor<64x64xf32, #[[ACC]]>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @async_masked(%a: !tile.desc<tensor<64x64xbf16>>,
                        %o: !tile.desc<tensor<64x64xf32>>,
                        %i: i32, %cond: i1) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x64xbf16>>
  %y = tile.load %a[%i, %i] : !tile.desc<tensor<64x64xbf16>>
  %d = tile.dot %x, %y, %zero {async, transpose_b}
      : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %w = tile.dot_wait %d pending 0 : tensor<64x64xf32>
  %m = scf.if %cond -> (tensor<64x64xf32>) {
    %cols = tile.iota axis 1 : tensor<64x64xi32>
    %lim = tensor.splat %i : tensor<64x64xi32>
    %keep = arith.cmpi slt, %cols, %lim : tensor<64x64xi32>
    %sel = arith.select %keep, %w, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    scf.yield %sel : tensor<64x64xf32>
  } else {
    scf.yield %w : tensor<64x64xf32>
  }
  tile.store %o[%i, %i], %m : !tile.desc<tensor<64x64xf32>>
  return
}
}

// -----

// A program without dots (fmha.merge_states): the tile loaded by
// tile.load_direct gets a register layout of its own, #tile.blocked: runs
// of 8 bf16 (128-bit loads), 16 lanes a 128-element row, one warpgroup; it
// flows through the conversion, the loop-carried sum and the truncf into
// the store, and the broadcast row vector (loaded by tile.load_direct too)
// takes its slice.
// CHECK-DAG: #[[BLK:[a-z0-9_]+]] = #tile.blocked<vector = 8, lanes = 16, warps = 4>
// CHECK-DAG: #[[BLK_ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[BLK]]>
// CHECK-LABEL: gpu.func @merge(
// CHECK: arith.constant dense<0.000000e+00> : tensor<32x128xf32, #[[BLK]]>
// CHECK: scf.for {{.+}} -> (tensor<32x128xf32, #[[BLK]]>)
// CHECK: tile.load_direct {{.+}} -> tensor<32xf32, #[[BLK_ROW]]>
// CHECK: math.exp2 {{.+}} : tensor<32xf32, #[[BLK_ROW]]>
// CHECK: tile.load_direct {{.+}} -> tensor<32x128xbf16, #[[BLK]]>
// CHECK: arith.extf {{.+}} : tensor<32x128xbf16, #[[BLK]]> to tensor<32x128xf32, #[[BLK]]>
// CHECK: tile.broadcast {{.+}} axis 1 : tensor<32xf32, #[[BLK_ROW]]> -> tensor<32x128xf32, #[[BLK]]>
// CHECK: arith.truncf {{.+}} : tensor<32x128xf32, #[[BLK]]> to tensor<32x128xbf16, #[[BLK]]>
// CHECK: tile.store_direct {{.+}} : memref<?x128xbf16, strided<[?, 1]>>, tensor<32x128xbf16, #[[BLK]]>
module attributes {gpu.container_module} {
  gpu.module @merge_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
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

// What no loaded tile reaches (the backward's prep kernel): a per-row input
// read by tile.load_direct beside the tiles takes the row slice of the
// laid-out tile with as many rows, and a constant tile stored to clear a
// buffer the #tile.blocked layout of its own shape (runs of 4 f32, 32
// lanes a 128-element row).
// CHECK-DAG: #[[PBLK:[a-z0-9_]+]] = #tile.blocked<vector = 8, lanes = 16, warps = 4>
// CHECK-DAG: #[[PROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[PBLK]]>
// CHECK-DAG: #[[ZBLK:[a-z0-9_]+]] = #tile.blocked<vector = 4, lanes = 32, warps = 4>
// CHECK-LABEL: gpu.func @prep(
// CHECK: tile.reduce sum {{.+}} : tensor<64x128xf32, #[[PBLK]]> -> tensor<64xf32, #[[PROW]]>
// CHECK: tile.load_direct {{.+}} -> tensor<64xf32, #[[PROW]]>
// CHECK: arith.mulf {{.+}} : tensor<64xf32, #[[PROW]]>
// CHECK: tile.store_direct {{.+}} : memref<?x?xf32>, tensor<64xf32, #[[PROW]]>
// CHECK: arith.constant dense<0.000000e+00> : tensor<64x128xf32, #[[ZBLK]]>
// CHECK: tile.store_direct {{.+}} : memref<?x128xf32>, tensor<64x128xf32, #[[ZBLK]]>
module attributes {gpu.container_module} {
  gpu.module @prep_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @prep(%o: memref<?x128xbf16>, %lse: memref<?xf32>,
                   %d: memref<?x?xf32>, %acc: memref<?x128xf32>) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %pid = tile.program_id x : i32
      %t = tile.load_direct %o[%pid, %c0] : memref<?x128xbf16> -> tensor<64x128xbf16>
      %f = arith.extf %t : tensor<64x128xbf16> to tensor<64x128xf32>
      %sum = tile.reduce sum %f axis 1 : tensor<64x128xf32> -> tensor<64xf32>
      %l = tile.load_direct %lse[%pid] : memref<?xf32> -> tensor<64xf32>
      %l2 = arith.mulf %l, %l : tensor<64xf32>
      tile.store_direct %d[%c0, %pid], %sum : memref<?x?xf32>, tensor<64xf32>
      tile.store_direct %d[%c1, %pid], %l2 : memref<?x?xf32>, tensor<64xf32>
      %zero = arith.constant dense<0.0> : tensor<64x128xf32>
      tile.store_direct %acc[%pid, %c0], %zero : memref<?x128xf32>, tensor<64x128xf32>
      gpu.return
    }
  }
}

// -----

// A tile loaded by tile.load_direct whose only uses store it into a memref
// whose innermost stride is not 1 (fmha.transpose_values' V^T: stored
// value by value, down the columns) gets a lane per row, so that a warp's
// stores of one column fill 32 consecutive rows; one stored into rows of
// unit stride keeps 8 lanes a 128-byte row (runs of 16 bytes), and so does
// one stored both ways.
// CHECK-DAG: #[[COLS:[a-z0-9_]+]] = #tile.blocked<vector = 16, lanes = 1, warps = 4>
// CHECK-DAG: #[[ROWS:[a-z0-9_]+]] = #tile.blocked<vector = 16, lanes = 8, warps = 4>
// CHECK-LABEL: gpu.func @columns(
// CHECK: %[[T:.+]] = tile.load_direct {{.+}} -> tensor<128x128xf8E4M3FN, #[[COLS]]>
// CHECK: tile.store_direct %{{.+}}, %[[T]] : memref<?x128xf8E4M3FN, strided<[1, ?]>>, tensor<128x128xf8E4M3FN, #[[COLS]]>
// CHECK: %[[U:.+]] = tile.load_direct {{.+}} -> tensor<128x128xf8E4M3FN, #[[ROWS]]>
// CHECK: tile.store_direct %{{.+}}, %[[U]] : memref<?x128xf8E4M3FN>, tensor<128x128xf8E4M3FN, #[[ROWS]]>
// CHECK: %[[W:.+]] = tile.load_direct {{.+}} -> tensor<128x128xf8E4M3FN, #[[ROWS]]>
// CHECK: tile.store_direct %{{.+}}, %[[W]] : memref<?x128xf8E4M3FN, strided<[1, ?]>>, tensor<128x128xf8E4M3FN, #[[ROWS]]>
// CHECK: tile.store_direct %{{.+}}, %[[W]] : memref<?x128xf8E4M3FN>, tensor<128x128xf8E4M3FN, #[[ROWS]]>
module attributes {gpu.container_module} {
  gpu.module @columns_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @columns(%v: memref<?x128xf8E4M3FN, strided<[?, 1]>>,
                      %vt: memref<?x128xf8E4M3FN, strided<[1, ?]>>,
                      %copy: memref<?x128xf8E4M3FN>) kernel {
      %c0 = arith.constant 0 : i32
      %pid = tile.program_id x : i32
      %t = tile.load_direct %v[%pid, %c0] : memref<?x128xf8E4M3FN, strided<[?, 1]>> -> tensor<128x128xf8E4M3FN>
      tile.store_direct %vt[%pid, %c0], %t : memref<?x128xf8E4M3FN, strided<[1, ?]>>, tensor<128x128xf8E4M3FN>
      %u = tile.load_direct %v[%pid, %c0] : memref<?x128xf8E4M3FN, strided<[?, 1]>> -> tensor<128x128xf8E4M3FN>
      tile.store_direct %copy[%pid, %c0], %u : memref<?x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>
      %w = tile.load_direct %v[%pid, %c0] : memref<?x128xf8E4M3FN, strided<[?, 1]>> -> tensor<128x128xf8E4M3FN>
      tile.store_direct %vt[%pid, %c0], %w : memref<?x128xf8E4M3FN, strided<[1, ?]>>, tensor<128x128xf8E4M3FN>
      tile.store_direct %copy[%pid, %c0], %w : memref<?x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>
      gpu.return
    }
  }
}

// -----

// f16 rows of 64 elements: 8 lanes a row, so the layout covers 16 rows,
// which a tile of 24 rows is not a multiple of.
module attributes {gpu.container_module} {
  gpu.module @bad_rows_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @bad_rows(%states: memref<?x64xf16>, %i: i32) kernel {
      // expected-error @+1 {{'tile.load_direct' op loads a tile of 24 rows; its row pieces of 8 elements over 8 lanes need a multiple of 16 rows}}
      %t = tile.load_direct %states[%i, %i] : memref<?x64xf16> -> tensor<24x64xf16>
      gpu.return
    }
  }
}

// -----

// Operands computed in registers that wgmma cannot read there (A given
// transposed, as the attention backward's dS for dK += dS^T Q, and any B)
// are staged: a tile.convert_layout into the NVMMA layout a load of their
// shape gets, right before the first dot of the block that reads the value
// (the dots read one conversion); the K-major register A of the first dot
// stays in registers.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[ACC:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.func @staged
// CHECK: %[[S:.*]] = tile.dot %[[K:.*]], %[[Q:.*]], %{{.*}} {transpose_b}
// CHECK: %[[T:.*]] = arith.truncf %[[S]] : tensor<64x64xf32, #[[ACC]]> to tensor<64x64xbf16, #[[ACC]]>
// CHECK: %[[DK:.*]] = tile.dot %[[T]], %[[Q]], %{{.*}} : tensor<64x64xbf16, #[[ACC]]>, tensor<64x64xbf16, #[[SMEM]]>
// CHECK: %[[TA:.*]] = tile.convert_layout %[[T]] : tensor<64x64xbf16, #[[ACC]]> -> tensor<64x64xbf16, #[[SMEM]]>
// CHECK: %[[DQ:.*]] = tile.dot %[[TA]], %[[K]], %{{.*}} {transpose_a} : tensor<64x64xbf16, #[[SMEM]]>, tensor<64x64xbf16, #[[SMEM]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot %[[K]], %[[TA]], %{{.*}} : tensor<64x64xbf16, #[[SMEM]]>, tensor<64x64xbf16, #[[SMEM]]>
gpu.module @staged [#nvvm.target<chip = "sm_90a">] {
  gpu.func @staged(%kd: !tile.desc<tensor<64x64xbf16>>,
                   %qd: !tile.desc<tensor<64x64xbf16>>,
                   %out: !tile.desc<tensor<64x64xf32>>, %i: i32) kernel {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %k = tile.load %kd[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %q = tile.load %qd[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %s = tile.dot %k, %q, %zero {transpose_b}
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %t = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %dk = tile.dot %t, %q, %zero
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %dq = tile.dot %t, %k, %dk {transpose_a}
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %x = tile.dot %k, %t, %dq
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %out[%i, %i], %x : !tile.desc<tensor<64x64xf32>>
    gpu.return
  }
}

// -----

// A transpose of a tensor that lives in shared memory (a dot operand
// loaded by TMA): tile.transpose keeps registers, so it is an error at the
// transpose.
gpu.module @transpose_shared [#nvvm.target<chip = "sm_90a">] {
  gpu.func @transpose_shared(%kd: !tile.desc<tensor<64x64xbf16>>,
                             %out: !tile.desc<tensor<64x64xbf16>>, %i: i32) kernel {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %k = tile.load %kd[%i, %i] : !tile.desc<tensor<64x64xbf16>>
    %s = tile.dot %k, %k, %zero {transpose_b}
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    // expected-error @+1 {{'tile.transpose' op transposes a tensor in layout #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>, not a 2-d register layout}}
    %t = tile.transpose %k : tensor<64x64xbf16> -> tensor<64x64xbf16>
    tile.store %out[%i, %i], %t : !tile.desc<tensor<64x64xbf16>>
    gpu.return
  }
}
