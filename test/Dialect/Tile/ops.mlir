// RUN: fmha-opt %s | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | fmha-opt | FileCheck %s

// Every tile op, type and attribute, printed and parsed back.

// Layout aliases the printer emits, in any order.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[SMEM_T:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 64, transposed = true, element_bits = 16>
// CHECK-DAG: #[[SMEM_F8:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
// CHECK-DAG: #[[SMEM_F32:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 0, transposed = false, element_bits = 32>
// CHECK-DAG: #[[ACC:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>
// CHECK-DAG: #[[ACC64:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>
// CHECK-DAG: #[[ACC8:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
// CHECK-DAG: #[[ACC8T:[a-z0-9_]+]] = #tile.transposed<parent = #[[ACC8]]>
// CHECK-DAG: #[[ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[ACC]]>
// CHECK-DAG: #[[COL:[a-z0-9_]+]] = #tile.slice<dim = 0, parent = #[[ACC]]>
// CHECK-DAG: #[[TM:[a-z0-9_]+]] = #tile.tmem<block = [128, 128], unpacked = true>
// CHECK-DAG: #[[TM64:[a-z0-9_]+]] = #tile.tmem<block = [128, 64], unpacked = true>
// CHECK-DAG: #[[TMP:[a-z0-9_]+]] = #tile.tmem<block = [128, 128], unpacked = false>
// CHECK-DAG: #[[TM_M64:[a-z0-9_]+]] = #tile.tmem<block = [64, 256], unpacked = true>
// CHECK-DAG: #[[REG:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-DAG: #[[REG2:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 2>
// CHECK-DAG: #[[REG_ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[REG]]>
// CHECK-DAG: #[[BLK:[a-z0-9_]+]] = #tile.blocked<vector = 8, lanes = 16, warps = 4>
// CHECK-DAG: #[[BLK_ROW:[a-z0-9_]+]] = #tile.slice<dim = 1, parent = #[[BLK]]>

//===----------------------------------------------------------------------===//
// The intended tile programs: one Q tile of attention (as in the dialect's
// description).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @attn_tile(%[[Q:.+]]: !tile.desc<tensor<128x64xbf16>, rank = 4>, %[[K:.+]]: !tile.desc<tensor<128x64xbf16>, rank = 4>, %[[V:.+]]: !tile.desc<tensor<128x64xbf16>, rank = 4>, %[[O:.+]]: !tile.desc<tensor<128x64xbf16>, rank = 4>, %{{.+}}: i32, %{{.+}}: f32) kernel
// CHECK: %[[MB:.+]] = tile.program_id x : i32
// CHECK: %[[H:.+]] = tile.program_id y : i32
// CHECK: %[[B:.+]] = tile.program_id z : i32
// CHECK: %[[QT:.+]] = tile.load %[[Q]][%[[B]], %[[H]], %{{.+}}, %{{.+}}] : !tile.desc<tensor<128x64xbf16>, rank = 4>
// CHECK: tile.iota axis 1 : tensor<128x128xi32>
// CHECK: scf.for
// CHECK:   %[[KT:.+]] = tile.load %[[K]][
// CHECK:   %[[VT:.+]] = tile.load %[[V]][
// CHECK:   tile.dot %[[QT]], %[[KT]], %{{.+}} {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
// CHECK:   tile.reduce max %{{.+}} axis 1 : tensor<128x128xf32> -> tensor<128xf32>
// CHECK:   math.exp2
// CHECK:   tile.broadcast %{{.+}} axis 1 : tensor<128xf32> -> tensor<128x128xf32>
// CHECK:   math.exp2
// CHECK:   tile.reduce sum %{{.+}} axis 1 : tensor<128x128xf32> -> tensor<128xf32>
// CHECK:   tile.broadcast %{{.+}} axis 1 : tensor<128xf32> -> tensor<128x64xf32>
// CHECK:   tile.dot %{{.+}}, %[[VT]], %{{.+}} : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
// CHECK:   scf.yield
// CHECK: arith.divf
// CHECK: tile.store %[[O]][%[[B]], %[[H]], %{{.+}}, %{{.+}}], %{{.+}} : !tile.desc<tensor<128x64xbf16>, rank = 4>{{$}}
// CHECK: gpu.return

gpu.module @kernels {
  // One CTA computes one 128-row tile of O = softmax(Q K^T * scale) V for
  // one (batch, head): Q, K, V and O are [batch, heads, seq, 64] bf16 and
  // %scale_log2e is scale * log2(e), so that exp2 computes the exp.
  gpu.func @attn_tile(%q: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                      %k: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                      %v: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                      %o: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                      %seq_len: i32, %scale_log2e: f32) kernel {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %m_block = tile.program_id x : i32
    %head = tile.program_id y : i32
    %batch = tile.program_id z : i32
    %row = arith.muli %m_block, %c128 : i32
    %qt = tile.load %q[%batch, %head, %row, %c0]
        : !tile.desc<tensor<128x64xbf16>, rank = 4>
    %scale = tensor.splat %scale_log2e : tensor<128x128xf32>
    %len = tensor.splat %seq_len : tensor<128x128xi32>
    %col = tile.iota axis 1 : tensor<128x128xi32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
    %s_zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l_init = arith.constant dense<0.0> : tensor<128xf32>
    %o_init = arith.constant dense<0.0> : tensor<128x64xf32>
    %m, %l, %acc = scf.for %kv = %c0 to %seq_len step %c128
        iter_args(%m_i = %m_init, %l_i = %l_init, %acc_i = %o_init)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) : i32 {
      %kt = tile.load %k[%batch, %head, %kv, %c0]
          : !tile.desc<tensor<128x64xbf16>, rank = 4>
      %vt = tile.load %v[%batch, %head, %kv, %c0]
          : !tile.desc<tensor<128x64xbf16>, rank = 4>
      // S = Q K^T, in log2 units; keys past the sequence end get -inf.
      %s = tile.dot %qt, %kt, %s_zero {transpose_b}
          : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
      %s_scaled = arith.mulf %s, %scale : tensor<128x128xf32>
      %kv_b = tensor.splat %kv : tensor<128x128xi32>
      %key = arith.addi %col, %kv_b : tensor<128x128xi32>
      %valid = arith.cmpi slt, %key, %len : tensor<128x128xi32>
      %s_masked = arith.select %valid, %s_scaled, %neg_inf
          : tensor<128x128xi1>, tensor<128x128xf32>
      // Online softmax: new row max, rescale factor, probabilities.
      %m_cur = tile.reduce max %s_masked axis 1
          : tensor<128x128xf32> -> tensor<128xf32>
      %m_new = arith.maximumf %m_i, %m_cur : tensor<128xf32>
      %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
      %alpha = math.exp2 %m_diff : tensor<128xf32>
      %m_b = tile.broadcast %m_new axis 1
          : tensor<128xf32> -> tensor<128x128xf32>
      %s_shift = arith.subf %s_masked, %m_b : tensor<128x128xf32>
      %p = math.exp2 %s_shift : tensor<128x128xf32>
      // Row sum and accumulator, rescaled by alpha.
      %l_cur = tile.reduce sum %p axis 1
          : tensor<128x128xf32> -> tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_cur : tensor<128xf32>
      %alpha_b = tile.broadcast %alpha axis 1
          : tensor<128xf32> -> tensor<128x64xf32>
      %acc_scaled = arith.mulf %acc_i, %alpha_b : tensor<128x64xf32>
      %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
      %acc_new = tile.dot %p16, %vt, %acc_scaled
          : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
      scf.yield %m_new, %l_new, %acc_new
          : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    // O = acc / l, rounded to bf16.
    %l_b = tile.broadcast %l axis 1 : tensor<128xf32> -> tensor<128x64xf32>
    %out = arith.divf %acc, %l_b : tensor<128x64xf32>
    %out16 = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
    tile.store %o[%batch, %head, %row, %c0], %out16
        : !tile.desc<tensor<128x64xbf16>, rank = 4>
    gpu.return
  }
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @grid
func.func @grid() -> (i32, i32, i32, i32, i32, i32) {
  // CHECK: tile.program_id x : i32
  // CHECK: tile.program_id y : i32
  // CHECK: tile.program_id z : i32
  // CHECK: tile.num_programs x : i32
  // CHECK: tile.num_programs y : i32
  // CHECK: tile.num_programs z : i32
  %0 = tile.program_id x : i32
  %1 = tile.program_id y : i32
  %2 = tile.program_id z : i32
  %3 = tile.num_programs x : i32
  %4 = tile.num_programs y : i32
  %5 = tile.num_programs z : i32
  return %0, %1, %2, %3, %4, %5 : i32, i32, i32, i32, i32, i32
}

//===----------------------------------------------------------------------===//
// TMA block transfers
//===----------------------------------------------------------------------===//

// The global rank defaults to the block's rank and is then not printed.
// CHECK-LABEL: func.func @load_store
// CHECK-SAME: !tile.desc<tensor<64x32xf16>>
// CHECK-SAME: !tile.desc<tensor<256xi8>, rank = 5>
func.func @load_store(%a: !tile.desc<tensor<64x32xf16>>,
                      %b: !tile.desc<tensor<256xi8>, rank = 5>,
                      %i: i32, %j: i32, %c: !tile.desc<tensor<64x32xf32>>) {
  // CHECK: %[[A:.+]] = tile.load %{{.+}}[%{{.+}}, %{{.+}}] : !tile.desc<tensor<64x32xf16>>
  // CHECK: tile.store %{{.+}}[%{{.+}}, %{{.+}}], %[[A]] : !tile.desc<tensor<64x32xf16>>
  %0 = tile.load %a[%i, %j] : !tile.desc<tensor<64x32xf16>>
  tile.store %a[%j, %i], %0 : !tile.desc<tensor<64x32xf16>>
  // CHECK: tile.store %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} reduce add : !tile.desc<tensor<64x32xf32>>
  %z = arith.constant dense<1.0> : tensor<64x32xf32>
  tile.store %c[%j, %i], %z reduce add : !tile.desc<tensor<64x32xf32>>
  // CHECK: tile.load %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : !tile.desc<tensor<256xi8>, rank = 5>
  %1 = tile.load %b[%i, %i, %i, %i, %j] : !tile.desc<tensor<256xi8>, rank = 5>
  tile.store %b[%i, %i, %i, %i, %j], %1 : !tile.desc<tensor<256xi8>, rank = 5>
  return
}

// Blocks in swizzled shared memory, as tile-assign-layouts leaves them.
// CHECK-LABEL: func.func @load_store_shared
// CHECK-SAME: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>, rank = 4>
// CHECK-SAME: !tile.desc<tensor<64x64xf32, #[[SMEM_F32]]>>
func.func @load_store_shared(
    %a: !tile.desc<tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>, rank = 4>,
    %b: !tile.desc<tensor<64x64xf32, #tile.nvmma_shared<swizzle = 0, transposed = false, element_bits = 32>>>,
    %i: i32) {
  // CHECK: tile.load %{{.+}} : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>, rank = 4>
  // CHECK: tile.store %{{.+}} : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>, rank = 4>
  %0 = tile.load %a[%i, %i, %i, %i] : !tile.desc<tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>, rank = 4>
  tile.store %a[%i, %i, %i, %i], %0 : !tile.desc<tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>, rank = 4>
  // CHECK: tile.load %{{.+}} : !tile.desc<tensor<64x64xf32, #[[SMEM_F32]]>>
  %1 = tile.load %b[%i, %i] : !tile.desc<tensor<64x64xf32, #tile.nvmma_shared<swizzle = 0, transposed = false, element_bits = 32>>>
  return
}

// Plain stores into a global memref: a row vector in a register layout, and
// a 2-d block into a memref in NVPTX's global address space.
// CHECK-LABEL: func.func @store_direct
func.func @store_direct(
    %lse: memref<?x?x?xf32>, %g: memref<?x64xbf16, 1>, %i: i32,
    %rows: tensor<128xf32, #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>>>,
    %block: tensor<16x64xbf16>) {
  // CHECK: tile.store_direct %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}], %{{.+}} : memref<?x?x?xf32>, tensor<128xf32, #[[ROW]]>
  tile.store_direct %lse[%i, %i, %i], %rows : memref<?x?x?xf32>, tensor<128xf32, #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>>>
  // CHECK: tile.store_direct %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} : memref<?x64xbf16, 1>, tensor<16x64xbf16>
  tile.store_direct %g[%i, %i], %block : memref<?x64xbf16, 1>, tensor<16x64xbf16>
  return
}

// Plain loads from a global memref (split-K's partial sums) and an arrival
// at a global counter.
// CHECK-LABEL: func.func @load_direct_and_counter
func.func @load_direct_and_counter(%ws: memref<?x?x?xf32>, %counters: memref<?xi32>,
                                   %i: i32) -> (tensor<64x128xf32>, i1) {
  // CHECK: tile.load_direct %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] : memref<?x?x?xf32> -> tensor<64x128xf32>
  %p = tile.load_direct %ws[%i, %i, %i] : memref<?x?x?xf32> -> tensor<64x128xf32>
  // CHECK: tile.counter_arrive %{{.+}}[%{{.+}}], %{{.+}} : memref<?xi32>
  %last = tile.counter_arrive %counters[%i], %i : memref<?xi32>
  return %p, %last : tensor<64x128xf32>, i1
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dot
func.func @dot(%a: tensor<64x32xf16>, %at: tensor<32x64xf16>,
               %b: tensor<32x16xf16>, %bt: tensor<16x32xf16>,
               %acc16: tensor<64x16xf16>, %acc32: tensor<64x16xf32>,
               %e4: tensor<64x32xf8E4M3FN>, %e4t: tensor<16x32xf8E4M3FN>,
               %e5: tensor<64x32xf8E5M2>, %e5t: tensor<16x32xf8E5M2>)
    -> (tensor<64x16xf16>, tensor<64x16xf32>, tensor<64x16xf32>,
        tensor<64x16xf16>, tensor<64x16xf32>, tensor<64x16xf32>) {
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} : tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf16>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_a} : tensor<32x64xf16>, tensor<32x16xf16>, tensor<64x16xf32>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_a, transpose_b} : tensor<32x64xf16>, tensor<16x32xf16>, tensor<64x16xf32>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_b} : tensor<64x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>, tensor<64x16xf16>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_b} : tensor<64x32xf8E5M2>, tensor<16x32xf8E5M2>, tensor<64x16xf32>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_b} : tensor<64x32xf8E4M3FN>, tensor<16x32xf8E5M2>, tensor<64x16xf32>
  %0 = tile.dot %a, %b, %acc16 : tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf16>
  %1 = tile.dot %at, %b, %acc32 {transpose_a} : tensor<32x64xf16>, tensor<32x16xf16>, tensor<64x16xf32>
  %2 = tile.dot %at, %bt, %acc32 {transpose_a, transpose_b} : tensor<32x64xf16>, tensor<16x32xf16>, tensor<64x16xf32>
  %3 = tile.dot %e4, %e4t, %acc16 {transpose_b} : tensor<64x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>, tensor<64x16xf16>
  %4 = tile.dot %e5, %e5t, %acc32 {transpose_b} : tensor<64x32xf8E5M2>, tensor<16x32xf8E5M2>, tensor<64x16xf32>
  %5 = tile.dot %e4, %e5t, %acc32 {transpose_b} : tensor<64x32xf8E4M3FN>, tensor<16x32xf8E5M2>, tensor<64x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<64x16xf16>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf16>, tensor<64x16xf32>, tensor<64x16xf32>
}

// A CTA pair's product: b is this CTA's half of the accumulator's N.
// CHECK-LABEL: func.func @dot_cta_pair
func.func @dot_cta_pair(%a: tensor<128x64xbf16>, %b: tensor<64x64xbf16>,
                        %acc: tensor<128x128xf32>) -> tensor<128x128xf32> {
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {cta_pair, transpose_b} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x128xf32>
  %0 = tile.dot %a, %b, %acc {cta_pair, transpose_b} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// CHECK-LABEL: func.func @reduce_broadcast_iota
func.func @reduce_broadcast_iota(%x: tensor<4x8x16xf16>, %r: tensor<8xi1>)
    -> (tensor<8x16xf16>, tensor<4x8xf16>, tensor<8x3xi1>, tensor<2x8x4xi32>) {
  // CHECK: tile.reduce sum %{{.+}} axis 0 : tensor<4x8x16xf16> -> tensor<8x16xf16>
  // CHECK: tile.reduce max %{{.+}} axis 2 : tensor<4x8x16xf16> -> tensor<4x8xf16>
  // CHECK: tile.broadcast %{{.+}} axis 1 : tensor<8xi1> -> tensor<8x3xi1>
  // CHECK: tile.iota axis 0 : tensor<2x8x4xi32>
  %0 = tile.reduce sum %x axis 0 : tensor<4x8x16xf16> -> tensor<8x16xf16>
  %1 = tile.reduce max %x axis 2 : tensor<4x8x16xf16> -> tensor<4x8xf16>
  %2 = tile.broadcast %r axis 1 : tensor<8xi1> -> tensor<8x3xi1>
  %3 = tile.iota axis 0 : tensor<2x8x4xi32>
  return %0, %1, %2, %3 : tensor<8x16xf16>, tensor<4x8xf16>, tensor<8x3xi1>, tensor<2x8x4xi32>
}

// CHECK-LABEL: func.func @scale_rows
func.func @scale_rows(%o: tensor<64x128xf32>, %alpha: tensor<64xf32>)
    -> tensor<64x128xf32> {
  // CHECK: tile.scale_rows %{{.+}}, %{{.+}} : tensor<64x128xf32>, tensor<64xf32>
  %0 = tile.scale_rows %o, %alpha : tensor<64x128xf32>, tensor<64xf32>
  return %0 : tensor<64x128xf32>
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#smem_t = #tile.nvmma_shared<swizzle = 64, transposed = true, element_bits = 16>
#smem_f8 = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>
#row = #tile.slice<dim = 1, parent = #acc>
#col = #tile.slice<dim = 0, parent = #acc>
#tm = #tile.tmem<block = [128, 128], unpacked = true>
#tm64 = #tile.tmem<block = [128, 64], unpacked = true>
#tmp = #tile.tmem<block = [128, 128], unpacked = false>
#tm_m64 = #tile.tmem<block = [64, 256], unpacked = true>
#reg = #tile.tmem_32x32b<warpgroups = 1>
#reg2 = #tile.tmem_32x32b<warpgroups = 2>
#reg_row = #tile.slice<dim = 1, parent = #reg>

// Hopper: operands in shared memory, accumulators and P in wgmma registers.
// CHECK-LABEL: func.func @hopper_layouts
func.func @hopper_layouts(%q: tensor<128x64xbf16, #smem>,
                          %k: tensor<128x64xbf16, #smem>,
                          %v: tensor<128x64xbf16, #smem>)
    -> (tensor<128x64xf32, #acc64>, tensor<128xi32, #col>) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
  %o_init = arith.constant dense<0.0> : tensor<128x64xf32, #acc64>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_b} : tensor<128x64xbf16, #[[SMEM]]>, tensor<128x64xbf16, #[[SMEM]]>, tensor<128x128xf32, #[[ACC]]>
  // CHECK: tile.reduce max %{{.+}} axis 1 : tensor<128x128xf32, #[[ACC]]> -> tensor<128xf32, #[[ROW]]>
  // CHECK: tile.reduce sum %{{.+}} axis 1 : tensor<128x128xf32, #[[ACC]]> -> tensor<128xf32>
  // CHECK: tile.broadcast %{{.+}} axis 1 : tensor<128xf32, #[[ROW]]> -> tensor<128x128xf32, #[[ACC]]>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} : tensor<128x128xbf16, #[[ACC]]>, tensor<128x64xbf16, #[[SMEM]]>, tensor<128x64xf32, #[[ACC64]]>
  // CHECK: tile.iota axis 0 : tensor<128xi32, #[[COL]]>
  %s = tile.dot %q, %k, %zero {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
  %m = tile.reduce max %s axis 1 : tensor<128x128xf32, #acc> -> tensor<128xf32, #row>
  %l = tile.reduce sum %s axis 1 : tensor<128x128xf32, #acc> -> tensor<128xf32>
  %mb = tile.broadcast %m axis 1 : tensor<128xf32, #row> -> tensor<128x128xf32, #acc>
  %d = arith.subf %s, %mb : tensor<128x128xf32, #acc>
  %p = math.exp2 %d : tensor<128x128xf32, #acc>
  %p16 = arith.truncf %p : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
  %o = tile.dot %p16, %v, %o_init : tensor<128x128xbf16, #acc>, tensor<128x64xbf16, #smem>, tensor<128x64xf32, #acc64>
  %c = tile.iota axis 0 : tensor<128xi32, #col>
  return %o, %c : tensor<128x64xf32, #acc64>, tensor<128xi32, #col>
}

// CHECK-LABEL: func.func @scale_rows_layouts
func.func @scale_rows_layouts(%o: tensor<128x128xf32, #acc>,
                              %alpha: tensor<128xf32, #row>)
    -> tensor<128x128xf32, #acc> {
  // CHECK: tile.scale_rows %{{.+}}, %{{.+}} : tensor<128x128xf32, #[[ACC]]>, tensor<128xf32, #[[ROW]]>
  %0 = tile.scale_rows %o, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #row>
  return %0 : tensor<128x128xf32, #acc>
}

// Blackwell: accumulators in tensor memory, softmax in tcgen05.ld registers,
// P back in tensor memory (packed bf16) as the A operand of P @ V.
// CHECK-LABEL: func.func @blackwell_layouts
func.func @blackwell_layouts(%q: tensor<128x64xbf16, #smem>,
                             %k: tensor<128x64xbf16, #smem>,
                             %v: tensor<128x64xbf16, #smem_t>,
                             %o_init: tensor<128x64xf32, #tm64>)
    -> tensor<128x64xf32, #tm64> {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tm>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {transpose_b} : tensor<128x64xbf16, #[[SMEM]]>, tensor<128x64xbf16, #[[SMEM]]>, tensor<128x128xf32, #[[TM]]>
  // CHECK: tile.convert_layout %{{.+}} : tensor<128x128xf32, #[[TM]]> -> tensor<128x128xf32, #[[REG]]>
  // CHECK: tile.reduce max %{{.+}} axis 1 : tensor<128x128xf32, #[[REG]]> -> tensor<128xf32, #[[REG_ROW]]>
  // CHECK: tile.broadcast %{{.+}} axis 1 : tensor<128xf32, #[[REG_ROW]]> -> tensor<128x128xf32, #[[REG]]>
  // CHECK: tile.convert_layout %{{.+}} : tensor<128x128xbf16, #[[REG]]> -> tensor<128x128xbf16, #[[TMP]]>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} : tensor<128x128xbf16, #[[TMP]]>, tensor<128x64xbf16, #[[SMEM_T]]>, tensor<128x64xf32, #[[TM64]]>
  %s = tile.dot %q, %k, %zero {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tm>
  %sr = tile.convert_layout %s : tensor<128x128xf32, #tm> -> tensor<128x128xf32, #reg>
  %m = tile.reduce max %sr axis 1 : tensor<128x128xf32, #reg> -> tensor<128xf32, #reg_row>
  %mb = tile.broadcast %m axis 1 : tensor<128xf32, #reg_row> -> tensor<128x128xf32, #reg>
  %d = arith.subf %sr, %mb : tensor<128x128xf32, #reg>
  %p = math.exp2 %d : tensor<128x128xf32, #reg>
  %p16 = arith.truncf %p : tensor<128x128xf32, #reg> to tensor<128x128xbf16, #reg>
  %pt = tile.convert_layout %p16 : tensor<128x128xbf16, #reg> -> tensor<128x128xbf16, #tmp>
  %o = tile.dot %pt, %v, %o_init : tensor<128x128xbf16, #tmp>, tensor<128x64xbf16, #smem_t>, tensor<128x64xf32, #tm64>
  return %o : tensor<128x64xf32, #tm64>
}

// More encodings: fp8 in 32-byte swizzle, 64-row TMEM blocks, tcgen05.ld
// registers split over two warpgroups.
// CHECK-LABEL: func.func @more_layouts
// CHECK-SAME: tensor<64x64xf8E4M3FN, #[[SMEM_F8]]>
// CHECK-SAME: tensor<128x256xf32, #[[TM_M64]]>
// CHECK-SAME: tensor<256x64xf32, #[[REG2]]>
func.func @more_layouts(%a: tensor<64x64xf8E4M3FN, #smem_f8>,
                        %b: tensor<128x256xf32, #tm_m64>,
                        %c: tensor<256x64xf32, #reg2>) {
  return
}

// Asynchronous dots and the wait that completes them.
// CHECK-LABEL: func.func @async_dots
// CHECK: %[[S:.+]] = tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async, transpose_b}
// CHECK: %[[O:.+]] = tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async}
// CHECK: tile.dot_wait %[[S]] pending 1 : tensor<64x64xf32>
// CHECK: tile.dot_wait %[[O]] pending 0 : tensor<64x128xf32>
func.func @async_dots(%q: tensor<64x128xbf16>, %k: tensor<64x128xbf16>,
                      %p: tensor<64x64xbf16>, %v: tensor<64x128xbf16>,
                      %zero: tensor<64x64xf32>, %acc: tensor<64x128xf32>)
    -> (tensor<64x64xf32>, tensor<64x128xf32>) {
  %s = tile.dot %q, %k, %zero {async, transpose_b}
      : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x64xf32>
  %o = tile.dot %p, %v, %acc {async}
      : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
  %s_done = tile.dot_wait %s pending 1 : tensor<64x64xf32>
  %o_done = tile.dot_wait %o pending 0 : tensor<64x128xf32>
  return %s_done, %o_done : tensor<64x64xf32>, tensor<64x128xf32>
}

// A tile no MMA lays out: row pieces of 8 elements, 16 lanes per row, one
// warpgroup (#tile.blocked), and its row vectors.
// CHECK-LABEL: func.func @blocked
func.func @blocked(%states: memref<?x?x128xbf16, strided<[?, ?, 1]>>,
                   %i: i32) -> tensor<32x128xf32, #tile.blocked<vector = 8, lanes = 16, warps = 4>> {
  // CHECK: tile.load_direct %{{.+}} : memref<?x?x128xbf16, strided<[?, ?, 1]>> -> tensor<32x128xbf16, #[[BLK]]>
  %o = tile.load_direct %states[%i, %i, %i] : memref<?x?x128xbf16, strided<[?, ?, 1]>> -> tensor<32x128xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>>
  %f = arith.extf %o : tensor<32x128xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>> to tensor<32x128xf32, #tile.blocked<vector = 8, lanes = 16, warps = 4>>
  // CHECK: tile.reduce max %{{.+}} axis 1 : tensor<32x128xf32, #[[BLK]]> -> tensor<32xf32, #[[BLK_ROW]]>
  %m = tile.reduce max %f axis 1 : tensor<32x128xf32, #tile.blocked<vector = 8, lanes = 16, warps = 4>> -> tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<vector = 8, lanes = 16, warps = 4>>>
  %b = tile.broadcast %m axis 1 : tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<vector = 8, lanes = 16, warps = 4>>> -> tensor<32x128xf32, #tile.blocked<vector = 8, lanes = 16, warps = 4>>
  return %b : tensor<32x128xf32, #tile.blocked<vector = 8, lanes = 16, warps = 4>>
}

// A swapped GEMM's accumulator turned into C's tile, and back: the
// transposed layout of a wgmma accumulator, and the accumulator's again;
// an fp8 V tile transposed in shared memory, its keys permuted.
// CHECK-LABEL: func.func @transpose_layouts
func.func @transpose_layouts(%acc: tensor<64x8xf32, #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>, %x: tensor<64x16xf32>,
    %v: tensor<128x64xf8E4M3FN, #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>>)
    -> (tensor<64x8xf32, #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>, tensor<16x64xf32>) {
  // CHECK: tile.transpose %{{.+}} : tensor<64x8xf32, #[[ACC8]]> -> tensor<8x64xf32, #[[ACC8T]]>
  // CHECK: tile.transpose %{{.+}} : tensor<8x64xf32, #[[ACC8T]]> -> tensor<64x8xf32, #[[ACC8]]>
  // CHECK: tile.transpose %{{.+}} : tensor<64x16xf32> -> tensor<16x64xf32>
  %t = tile.transpose %acc : tensor<64x8xf32, #tile.wgmma_acc<instr_n = 8, warpgroups = 1>> -> tensor<8x64xf32, #tile.transposed<parent = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>>
  %b = tile.transpose %t : tensor<8x64xf32, #tile.transposed<parent = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>> -> tensor<64x8xf32, #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>
  %u = tile.transpose %x : tensor<64x16xf32> -> tensor<16x64xf32>
  // CHECK: tile.transpose %{{.+}} {k_quad16} : tensor<128x64xf8E4M3FN, #[[SMEM_F8_64:[a-z0-9_]+]]> -> tensor<64x128xf8E4M3FN, #[[SMEM_F8_128:[a-z0-9_]+]]>
  %vt = tile.transpose %v {k_quad16} : tensor<128x64xf8E4M3FN, #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>> -> tensor<64x128xf8E4M3FN, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>>
  return %b, %u : tensor<64x8xf32, #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>, tensor<16x64xf32>
}

