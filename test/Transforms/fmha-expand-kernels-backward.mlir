// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s
// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels=backward-kernels=dq | FileCheck %s --check-prefix=ONLY-DQ
// RUN: not fmha-opt %s -split-input-file --fmha-expand-kernels=backward-kernels=prep,side 2>&1 | FileCheck %s --check-prefix=BAD-NAME

// fmha.attention_backward: one gpu.module with a kernel per launch, in
// launch order (fmha.launches); backward-kernels builds a subset.
// BAD-NAME: error: fmha-expand-kernels: backward-kernels takes prep, dkdv and dq, got 'side'
// ONLY-DQ: gpu.module @bwd_module
// ONLY-DQ-SAME: attributes {fmha.launches = [@bwd_dq]}
// ONLY-DQ-NOT: gpu.func @bwd_prep
// ONLY-DQ-NOT: gpu.func @bwd_dkdv

// The prep kernel: a CTA per 64 query rows of one head; O and dO by plain
// loads, D = rowsum(dO * O) in f32 and lse2 = lse * log2(e) (+inf where lse
// is -inf) into the two rows of d_lse. Its grid covers d_lse's rows, seq_q
// rounded up to 64.
// CHECK-LABEL: gpu.module @bwd_module
// CHECK-SAME: attributes {fmha.launches = [@bwd_prep, @bwd_dkdv, @bwd_dq]}
// CHECK: gpu.func @bwd_prep(%[[O:.+]]: memref<?x?x?x128xbf16>, %[[DO:.+]]: memref<?x?x?x128xbf16>, %[[LSE:.+]]: memref<?x?x?xf32>, %[[DLSE:.+]]: memref<?x?x2x?xf32>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 64]}, "H", "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", tensor = "o"}, {kind = "memref", tensor = "do"}, {kind = "memref", tensor = "lse"}, {kind = "memref", tensor = "d_lse"}]
// CHECK-SAME: d_lse = {dtype = "f32", role = "scratch", shape = ["B", "H", 2, {mul = [{ceildiv = ["SQ", 64]}, 64]}]}
// CHECK: %[[PID:.+]] = tile.program_id x : i32
// CHECK: %[[ROW0:.+]] = arith.muli %[[PID]], %c64_i32
// CHECK: %[[HEAD:.+]] = tile.program_id y : i32
// CHECK: %[[BATCH:.+]] = tile.program_id z : i32
// CHECK-DAG: tile.load_direct %[[O]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}] : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
// CHECK-DAG: tile.load_direct %[[DO]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}]
// CHECK: %[[PROD:.+]] = arith.mulf %{{.+}}, %{{.+}} : tensor<64x128xf32>
// CHECK: %[[D:.+]] = tile.reduce sum %[[PROD]] axis 1 : tensor<64x128xf32> -> tensor<64xf32>
// CHECK: %[[L:.+]] = tile.load_direct %[[LSE]][%[[BATCH]], %[[HEAD]], %[[ROW0]]] : memref<?x?x?xf32> -> tensor<64xf32>
// CHECK: %[[NOKEYS:.+]] = arith.cmpf oeq, %[[L]], %{{.+}} : tensor<64xf32>
// CHECK: %[[L2:.+]] = arith.mulf %[[L]], %{{.+}} : tensor<64xf32>
// CHECK: %[[SEL:.+]] = arith.select %[[NOKEYS]], %{{.+}}, %[[L2]]
// CHECK: tile.store_direct %[[DLSE]][%[[BATCH]], %[[HEAD]], %c0_i32, %[[ROW0]]], %[[D]]
// CHECK: tile.store_direct %[[DLSE]][%[[BATCH]], %[[HEAD]], %c1_i32, %[[ROW0]]], %[[SEL]]
// CHECK: gpu.return

// The dK/dV kernel: a CTA per 128 keys of one K/V head; K and V of both
// consumers' 64 keys loaded once; a loop over the query blocks of the
// group's heads (causal: from the first block whose diagonal reaches the
// CTA's keys) carrying dV and dK of each consumer; Q, dO, D and lse2 per
// step. At head dim 128 the products are query-major (keyGradsQueryMajor):
// S = Q K^T and dP = dO V^T of each consumer issued together, P = 2^(c S -
// lse2) with lse2 a row vector (masked where the tile needs it), dS = P (dP
// - D), then dV += P^T dO and dK += dS^T Q with P and dS read transposed
// (transpose_a), issued together.
// CHECK: gpu.func @bwd_dkdv(%[[Q:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[K:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[V:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[DOD:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[DL:.+]]: memref<?x?x2x?xf32>, %[[DK:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[DV:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{.+}}: i32, %[[H:.+]]: i32, %[[HKV:.+]]: i32, %[[SQ:.+]]: i32, %[[SK:.+]]: i32) kernel
// CHECK-SAME: fmha.consumer_registers = 240 : i64
// CHECK-SAME: fmha.grid = [{ceildiv = ["SK", 128]}, "HKV", "B"]
// CHECK-SAME: fmha.params = [{box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "q"}, {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "k"}, {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "v"}, {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "do"}, {kind = "memref", tensor = "d_lse"}, {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "dk"}, {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "dv"}, {dtype = "i32", kind = "scalar", value = "B"}, {dtype = "i32", kind = "scalar", value = "H"}, {dtype = "i32", kind = "scalar", value = "HKV"}, {dtype = "i32", kind = "scalar", value = "SQ"}, {dtype = "i32", kind = "scalar", value = "SK"}]
// CHECK-SAME: fmha.stages = 2 : i64
// CHECK: %[[KVH:.+]] = tile.program_id y : i32
// CHECK: %[[B:.+]] = tile.program_id z : i32
// CHECK: %[[K0:.+]] = tile.load %[[K]][%[[B]], %[[KVH]], %[[N0:.+]], %{{.+}}]
// CHECK: %[[V0:.+]] = tile.load %[[V]][%[[B]], %[[KVH]], %[[N0]], %{{.+}}]
// CHECK: %[[K1:.+]] = tile.load %[[K]][%[[B]], %[[KVH]], %[[N1:.+]], %{{.+}}]
// CHECK: %[[V1:.+]] = tile.load %[[V]][%[[B]], %[[KVH]], %[[N1]], %{{.+}}]
// CHECK: %[[GROUP:.+]] = arith.divui %[[H]], %[[HKV]] : i32
// CHECK: %[[STEPS:.+]] = arith.muli %[[GROUP]], %{{.+}} : i32
// CHECK: %[[R:.+]]:4 = scf.for %{{.+}} = %{{.+}} to %[[STEPS]] step %{{.+}} iter_args(%[[DV0:.+]] = %{{.+}}, %[[DK0:.+]] = %{{.+}}, %[[DV1:.+]] = %{{.+}}, %[[DK1:.+]] = %{{.+}}) -> (tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>)
// CHECK:   %[[QT:.+]] = tile.load %[[Q]][%[[B]], %[[HEAD:.+]], %[[M0:.+]], %{{.+}}]
// CHECK:   %[[DOT:.+]] = tile.load %[[DOD]][%[[B]], %[[HEAD]], %[[M0]], %{{.+}}]
// CHECK:   %[[DROW:.+]] = tile.load_direct %[[DL]][%[[B]], %[[HEAD]], %c0_i32, %[[M0]]] : memref<?x?x2x?xf32> -> tensor<64xf32>
// CHECK:   %[[LROW:.+]] = tile.load_direct %[[DL]][%[[B]], %[[HEAD]], %c1_i32, %[[M0]]] : memref<?x?x2x?xf32> -> tensor<64xf32>
// CHECK:   %[[S0:.+]] = tile.dot %[[QT]], %[[K0]], %{{.+}} {async, transpose_b} : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x64xf32>
// CHECK:   %[[DP0:.+]] = tile.dot %[[DOT]], %[[V0]], %{{.+}} {async, transpose_b} : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x64xf32>
// CHECK:   %[[S1:.+]] = tile.dot %[[QT]], %[[K1]], %{{.+}} {async, transpose_b}
// CHECK:   %[[DP1:.+]] = tile.dot %[[DOT]], %[[V1]], %{{.+}} {async, transpose_b}
// CHECK:   %[[SW:.+]] = tile.dot_wait %[[S0]] pending 1
// CHECK:   %[[NL:.+]] = arith.negf %[[LROW]]
// CHECK:   tile.broadcast %[[NL]] axis 1 : tensor<64xf32> -> tensor<64x64xf32>
// CHECK:   math.fma %[[SW]]
// CHECK:   %[[E:.+]] = math.exp2
// CHECK:   %[[P:.+]] = scf.if %{{.+}} -> (tensor<64x64xf32>) {
// CHECK:     tile.iota axis 0 : tensor<64x64xi32>
// CHECK:     tile.iota axis 1 : tensor<64x64xi32>
// CHECK:     arith.select %{{.+}}, %[[E]], %{{.+}} : tensor<64x64xi1>, tensor<64x64xf32>
// CHECK:   } else {
// CHECK:     scf.yield %[[E]]
// CHECK:   %[[DPW:.+]] = tile.dot_wait %[[DP0]] pending 0
// CHECK:   tile.broadcast %[[DROW]] axis 1
// CHECK:   arith.subf %[[DPW]]
// CHECK:   %[[DS:.+]] = arith.mulf %[[P]], %{{.+}} : tensor<64x64xf32>
// CHECK:   %[[DSB:.+]] = arith.truncf %[[DS]] : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK:   %[[PB:.+]] = arith.truncf %[[P]] : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK:   %[[NDV0:.+]] = tile.dot %[[PB]], %[[DOT]], %[[DV0]] {async, transpose_a} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
// CHECK:   %[[NDK0:.+]] = tile.dot %[[DSB]], %[[QT]], %[[DK0]] {async, transpose_a} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
// CHECK:   %[[W0:.+]]:2 = tile.dot_wait %[[NDV0]], %[[NDK0]] pending 0
// CHECK:   tile.dot_wait %[[S1]] pending 1
// CHECK:   tile.dot_wait %[[DP1]] pending 0
// CHECK:   scf.yield %[[W0]]#0, %[[W0]]#1, %{{.+}}, %{{.+}}
// dK = c dS^T Q (the default scale 1/sqrt(128)) and dV, rounded, by TMA.
// CHECK: %[[SK0:.+]] = arith.mulf %[[R]]#1, %{{.+}} : tensor<64x128xf32>
// CHECK: %[[TK0:.+]] = arith.truncf %[[SK0]]
// CHECK: tile.store %[[DK]][%[[B]], %[[KVH]], %[[N0]], %{{.+}}], %[[TK0]]
// CHECK: %[[TV0:.+]] = arith.truncf %[[R]]#0
// CHECK: tile.store %[[DV]][%[[B]], %[[KVH]], %[[N0]], %{{.+}}], %[[TV0]]
// CHECK: tile.store %[[DK]][%[[B]], %[[KVH]], %[[N1]], %{{.+}}]
// CHECK: tile.store %[[DV]][%[[B]], %[[KVH]], %[[N1]], %{{.+}}]

// The dQ kernel: a CTA per 2 x 64 query rows of one head; Q, dO, D and
// lse2 of each consumer's rows loaded once; a loop over the key blocks of
// 64 (causal: up to the diagonal of the CTA's last row) carrying dQ of each
// consumer: S = Q K^T and dP = dO V^T issued together, P computed while
// dP runs, dS, dQ += dS K.
// CHECK: gpu.func @bwd_dq(%[[QQ:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[KK:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[VV:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[DOO:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[DLL:.+]]: memref<?x?x2x?xf32>, %[[DQ:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 128]}, "H", "B"]
// CHECK: %[[QH:.+]] = tile.program_id y : i32
// CHECK: %[[QB:.+]] = tile.program_id z : i32
// CHECK: %[[Q0:.+]] = tile.load %[[QQ]][%[[QB]], %[[QH]], %[[M00:.+]], %{{.+}}]
// CHECK: %[[DO0:.+]] = tile.load %[[DOO]][%[[QB]], %[[QH]], %[[M00]], %{{.+}}]
// CHECK: %[[D0:.+]] = tile.load_direct %[[DLL]][%[[QB]], %[[QH]], %c0_i32, %[[M00]]]
// CHECK: %[[L0:.+]] = tile.load_direct %[[DLL]][%[[QB]], %[[QH]], %c1_i32, %[[M00]]]
// CHECK: %[[QR:.+]]:2 = scf.for %{{.+}} iter_args(%[[DQ0:.+]] = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<64x128xf32>, tensor<64x128xf32>)
// CHECK:   %[[KT:.+]] = tile.load %[[KK]][%[[QB]], %{{.+}}, %[[KN0:.+]], %{{.+}}]
// CHECK:   %[[VT:.+]] = tile.load %[[VV]][%[[QB]], %{{.+}}, %[[KN0]], %{{.+}}]
// CHECK:   %[[S:.+]] = tile.dot %[[Q0]], %[[KT]], %{{.+}} {async, transpose_b} : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x64xf32>
// CHECK:   %[[DP:.+]] = tile.dot %[[DO0]], %[[VT]], %{{.+}} {async, transpose_b}
// CHECK:   %[[SW:.+]] = tile.dot_wait %[[S]] pending 1
// CHECK:   tile.broadcast %{{.+}} axis 1 : tensor<64xf32> -> tensor<64x64xf32>
// CHECK:   math.fma %[[SW]]
// CHECK:   %[[P:.+]] = scf.if
// CHECK:   tile.dot_wait %[[DP]] pending 0
// CHECK:   tile.broadcast %[[D0]] axis 1
// CHECK:   %[[DS:.+]] = arith.mulf %[[P]], %{{.+}} : tensor<64x64xf32>
// CHECK:   %[[DSB2:.+]] = arith.truncf %[[DS]]
// CHECK:   %[[NDQ0:.+]] = tile.dot %[[DSB2]], %[[KT]], %[[DQ0]] {async} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
// CHECK:   %[[WQ:.+]] = tile.dot_wait %[[NDQ0]] pending 0
// CHECK:   scf.yield %[[WQ]], %{{.+}}
// CHECK: %[[SQ0:.+]] = arith.mulf %[[QR]]#0, %{{.+}} : tensor<64x128xf32>
// CHECK: %[[TQ0:.+]] = arith.truncf %[[SQ0]]
// CHECK: tile.store %[[DQ]][%[[QB]], %[[QH]], %[[M00]], %{{.+}}], %[[TQ0]]
// CHECK: tile.store %[[DQ]]
// CHECK-NOT: fmha.attention_backward
fmha.attention_backward @bwd (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    causal target sm_90a

// -----

// Static sizes stay in the signature and the contract; with block_m 32 and
// seq_q 300, d_lse has 320 rows (a multiple of 32 and of the dQ kernel's
// 64), which five prep CTAs of 64 rows cover. f16, an explicit scale, a
// window: the dK/dV kernel's query range ends where the window's left edge
// passes the CTA's last key.
// CHECK-LABEL: gpu.module @bwd_static_module
// CHECK: gpu.func @bwd_static_prep(%{{.+}}: memref<2x4x300x64xf16>, %{{.+}}: memref<2x4x300x64xf16>, %{{.+}}: memref<2x4x300xf32>, %{{.+}}: memref<2x4x2x320xf32>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = [300, 64]}, 4, 2]
// CHECK-SAME: d_lse = {dtype = "f32", role = "scratch", shape = [2, 4, 2, 320]}
// CHECK: tile.load_direct {{.+}} -> tensor<64x64xf16>
// CHECK: gpu.func @bwd_static_dkdv(%{{.+}}: !tile.desc<tensor<32x64xf16>, rank = 4>, %{{.+}}: !tile.desc<tensor<64x64xf16>, rank = 4>
// CHECK-SAME: fmha.grid = [{ceildiv = [17, 128]}, 1, 2]
// CHECK: arith.constant 16 : i32
// CHECK: arith.minsi
// CHECK: scf.for
// At head dim 64 both consumers' S^T and dP^T are issued first.
// CHECK: %[[S0:.+]] = tile.dot {{.+}} {async, transpose_b} : tensor<64x64xf16>, tensor<32x64xf16>, tensor<64x32xf32>
// CHECK-COUNT-3: tile.dot {{.+}} {async, transpose_b} : tensor<64x64xf16>, tensor<32x64xf16>, tensor<64x32xf32>
// CHECK: tile.dot_wait %[[S0]] pending 1
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.truncf {{.+}} : tensor<64x64xf32> to tensor<64x64xf16>
// At head dim 64 the dQ kernel steps over 128 keys at a time.
// CHECK: gpu.func @bwd_static_dq(%{{.+}}: !tile.desc<tensor<64x64xf16>, rank = 4>, %{{.+}}: !tile.desc<tensor<128x64xf16>, rank = 4>
// CHECK-SAME: fmha.grid = [{ceildiv = [300, 128]}, 4, 2]
fmha.attention_backward @bwd_static (tensor<2x4x300x64xf16>,
    tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>, tensor<2x4x300x64xf16>,
    tensor<2x4x300x64xf16>, tensor<2x4x300xf32>)
    -> (tensor<2x4x300x64xf16>, tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>)
    window [16, 8] scale 0.125 tile [32, 128] target sm_90a

// -----

// fused_dq: the prep kernel also zeroes the scratch dq_acc; each consumer
// of the dK/dV kernel computes its keys' part of dQ = dS K (dS, the
// queries as rows, read as it is: no transpose_a) after dV and dK (P and
// dS read transposed) and adds it into dq_acc by a TMA reduce-add in the
// loop;
// the last launch, _post, writes dq = scale * dq_acc, rounded. No dQ
// kernel.
// CHECK-LABEL: gpu.module @bwd_fdq_module
// CHECK-SAME: attributes {fmha.launches = [@bwd_fdq_prep, @bwd_fdq_dkdv, @bwd_fdq_post]}
// CHECK: gpu.func @bwd_fdq_prep({{.+}}, %[[ACC0:.+]]: memref<?x?x?x64xf32>) kernel
// CHECK-SAME: dq_acc = {dtype = "f32", role = "scratch", shape = ["B", "H", "SQ", 64]}
// CHECK: tile.store_direct %[[ACC0]][{{.+}}], %{{.+}} : memref<?x?x?x64xf32>, tensor<64x64xf32>
// CHECK: gpu.func @bwd_fdq_dkdv(
// CHECK-SAME: %[[ACC:arg[0-9]+]]: !tile.desc<tensor<64x64xf32>, rank = 4>
// The backward's kernels compute their wgmma descriptors at their use.
// CHECK-SAME: fmha.descriptors_at_use
// CHECK: scf.for
// CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async, transpose_a} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK: tile.dot %[[DS0:[0-9a-z_]+]], %{{.+}}, %{{.+}} {async, transpose_a} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK: tile.dot %[[DS0]], %{{.+}}, %{{.+}} {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK: %[[W0:.+]]:3 = tile.dot_wait
// CHECK: tile.store %[[ACC]][{{.+}}], %[[W0]]#2 reduce add : !tile.desc<tensor<64x64xf32>, rank = 4>
// CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async, transpose_a}
// CHECK: tile.dot %[[DS1:[0-9a-z_]+]], %{{.+}}, %{{.+}} {async, transpose_a}
// CHECK: tile.dot %[[DS1]], %{{.+}}, %{{.+}} {async} :
// CHECK: %[[W1:.+]]:3 = tile.dot_wait
// CHECK: tile.store %[[ACC]][{{.+}}], %[[W1]]#2 reduce add
// CHECK: gpu.func @bwd_fdq_post(%[[SRC:.+]]: memref<?x?x?x64xf32>, %[[DQO:.+]]: memref<?x?x?x64xbf16>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 64]}, "H", "B"]
// CHECK: tile.load_direct %[[SRC]]
// CHECK: arith.mulf
// CHECK: tile.store_direct %[[DQO]]
// CHECK-NOT: gpu.func @bwd_fdq_dq
fmha.attention_backward @bwd_fdq (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
    causal fused_dq target sm_90a

// -----

// fused_dq at head dim 128, FlashAttention-3's split: Q, K and dK in
// 64-column parts (one TMA box each); S = Q_0 K_c0^T + Q_1 K_c1^T; each
// consumer issues dV, column part h of dQ = dS_0 K_0h + dS_1 K_1h, then
// dK, and adds the part at column 64 h once it is done (dK still running),
// waited for apart from dV and dK (ws-assign-roles gives part h to
// consumer h and hands it the other's dS). dQ's part, dK, dV and the
// descriptors hoisted out of the loop would not fit a consumer's
// registers together; the kernel has them at their use.
// CHECK-LABEL: gpu.module @bwd_fdq128_module
// CHECK: gpu.func @bwd_fdq128_dkdv(%[[Q:.+]]: !tile.desc<tensor<64x64xbf16>, rank = 4>, %[[K:.+]]: !tile.desc<tensor<64x64xbf16>, rank = 4>, %{{.+}}: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{.+}}: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{.+}}, %[[DK:.+]]: !tile.desc<tensor<64x64xbf16>, rank = 4>, %{{.+}}: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[ACC:.+]]: !tile.desc<tensor<64x64xf32>, rank = 4>
// CHECK-SAME: fmha.consumer_registers = 240 : i64
// CHECK-SAME: fmha.descriptors_at_use
// CHECK: %[[K00:.+]] = tile.load %[[K]][{{.+}}, %c0{{.*}}]
// CHECK: %[[K01:.+]] = tile.load %[[K]][{{.+}}, %c64{{.*}}]
// CHECK: %[[K10:.+]] = tile.load %[[K]][{{.+}}, %c0{{.*}}]
// CHECK: %[[K11:.+]] = tile.load %[[K]][{{.+}}, %c64{{.*}}]
// CHECK: scf.for
// CHECK: %[[Q0:.+]] = tile.load %[[Q]][{{.+}}, %c0{{.*}}]
// CHECK: %[[Q1:.+]] = tile.load %[[Q]][{{.+}}, %c64{{.*}}]
// CHECK: %[[S0:.+]] = tile.dot %[[Q0]], %[[K00]], %{{.+}} {async, transpose_b}
// CHECK: tile.dot %[[Q1]], %[[K01]], %[[S0]] {async, transpose_b}
// CHECK: %[[DS0:.+]] = arith.truncf
// CHECK: arith.truncf
// CHECK: %[[DS1:.+]] = arith.truncf
// CHECK: arith.truncf
// CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async, transpose_a} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
// CHECK: %[[P0:.+]] = tile.dot %[[DS0]], %[[K00]], %{{.+}} {async}
// CHECK: %[[P1:.+]] = tile.dot %[[DS1]], %[[K10]], %[[P0]] {async}
// CHECK: tile.dot %[[DS0]], %[[Q0]], %{{.+}} {async, transpose_a}
// CHECK: tile.dot %[[DS0]], %[[Q1]], %{{.+}} {async, transpose_a}
// CHECK: %[[W0:.+]] = tile.dot_wait %[[P1]] pending 2
// CHECK: tile.store %[[ACC]][{{.+}}, %c0{{.*}}], %[[W0]] reduce add
// CHECK: tile.dot_wait {{.+}} pending 0 : tensor<64x128xf32>, tensor<64x64xf32>, tensor<64x64xf32>
// CHECK: tile.dot %{{.+}}, %{{.+}}, %{{.+}} {async, transpose_a} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
// CHECK: %[[R0:.+]] = tile.dot %[[DS0]], %[[K01]], %{{.+}} {async}
// CHECK: %[[R1:.+]] = tile.dot %[[DS1]], %[[K11]], %[[R0]] {async}
// CHECK: tile.dot %[[DS1]], %[[Q0]], %{{.+}} {async, transpose_a}
// CHECK: tile.dot %[[DS1]], %[[Q1]], %{{.+}} {async, transpose_a}
// CHECK: %[[W1:.+]] = tile.dot_wait %[[R1]] pending 2
// CHECK: tile.store %[[ACC]][{{.+}}, %c64{{.*}}], %[[W1]] reduce add
// CHECK: tile.store %[[DK]][{{.+}}, %c0{{.*}}], %{{.+}} : !tile.desc<tensor<64x64xbf16>, rank = 4>
// CHECK: tile.store %[[DK]][{{.+}}, %c64{{.*}}], %{{.+}} : !tile.desc<tensor<64x64xbf16>, rank = 4>
fmha.attention_backward @bwd_fdq128 (tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    fused_dq target sm_90a

// -----

// varlen: every kernel reads sequence z's rows from the cu_seqlens (clamped
// to the totals; seq_q to the longest query sequence, d_lse's rows) and
// the grids cover the longest sequences the caller passes (MAXQ, MAXK).
// The prep kernel reads O, dO and lse through views that stop at the
// sequence's end; the main kernels skip blocks past it, load Q, dO, K and
// V through [heads, total, head_dim] tensor maps at the sequence's first
// row, and store dK, dV and dQ by plain stores bounded by the sequence.
// Head dim 128 takes block_m 48 (the sequence's bounds take registers).
// CHECK-LABEL: gpu.module @bwd_varlen_module
// CHECK-SAME: attributes {fmha.launches = [@bwd_varlen_prep, @bwd_varlen_dkdv, @bwd_varlen_dq]}
// CHECK: gpu.func @bwd_varlen_prep(%[[O:.+]]: memref<?x32x128xbf16>, %{{.+}}: memref<?x32x128xbf16>, %[[LSE:.+]]: memref<32x?xf32>, %[[DLSE:.+]]: memref<?x32x2x?xf32>, %[[CUQ:.+]]: memref<?xi32>, %{{.+}}: memref<?xi32>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %[[MAXQ:.+]]: i32, %{{.+}}: i32, %{{.+}}: i32) kernel
// CHECK-SAME: fmha.grid = [{mul = [{ceildiv = ["MAXQ", 192]}, 3]}, 32, "B"]
// CHECK-SAME: fmha.sizes = ["B", "MAXQ", "MAXK"]
// CHECK-SAME: cu_seqlens_q = {dtype = "i32", role = "input", shape = ["B1"]}
// CHECK-SAME: d_lse = {dtype = "f32", role = "scratch", shape = ["B", 32, 2, {mul = [{ceildiv = ["MAXQ", 192]}, 192]}]}
// CHECK-SAME: lse = {dtype = "f32", role = "input", shape = [32, "TQ"]}
// CHECK: memref.load %[[CUQ]]
// CHECK: arith.minsi %{{.+}}, %[[MAXQ]] : i32
// CHECK: %[[OV:.+]] = memref.reinterpret_cast %[[O]]
// CHECK: %[[LV:.+]] = memref.reinterpret_cast %[[LSE]]
// CHECK: tile.load_direct %[[OV]]
// CHECK: tile.load_direct %[[LV]]
// CHECK: tile.store_direct %[[DLSE]]
// CHECK: gpu.func @bwd_varlen_dkdv(%[[Q:.+]]: !tile.desc<tensor<48x128xbf16>, rank = 3>, %[[K:.+]]: !tile.desc<tensor<64x128xbf16>, rank = 3>, %{{.+}}: !tile.desc<tensor<64x128xbf16>, rank = 3>, %{{.+}}: !tile.desc<tensor<48x128xbf16>, rank = 3>, %{{.+}}: memref<?x32x2x?xf32>, %[[DK:.+]]: memref<?x8x128xbf16>, %[[DV:.+]]: memref<?x8x128xbf16>, %{{.+}}: memref<?xi32>, %{{.+}}: memref<?xi32>,
// CHECK-SAME: fmha.grid = [{ceildiv = ["MAXK", 128]}, 8, "B"]
// CHECK-SAME: {box = [48, 64], dims = [1, 0, 2], kind = "tensor_map", swizzle = 128 : i64, tensor = "q"}
// CHECK-SAME: fmha.sizes = ["B", "MAXQ", "MAXK"]
// CHECK: scf.if
// CHECK: tile.load %[[K]][%{{.+}}, %{{.+}}, %{{.+}}] : !tile.desc<tensor<64x128xbf16>, rank = 3>
// CHECK: scf.for
// CHECK: tile.load %[[Q]][%{{.+}}, %{{.+}}, %{{.+}}] : !tile.desc<tensor<48x128xbf16>, rank = 3>
// CHECK: scf.yield
// CHECK: %[[DKV:.+]] = memref.reinterpret_cast %[[DK]]
// CHECK: %[[DVV:.+]] = memref.reinterpret_cast %[[DV]]
// CHECK: tile.store_direct %[[DKV]]
// CHECK: tile.store_direct %[[DVV]]
// CHECK: gpu.func @bwd_varlen_dq(
// CHECK-SAME: %[[DQ:arg5]]: memref<?x32x128xbf16>
// CHECK-SAME: fmha.grid = [{ceildiv = ["MAXQ", 128]}, 32, "B"]
// CHECK: scf.if
// CHECK: scf.for
// CHECK: %[[DQV:.+]] = memref.reinterpret_cast %[[DQ]]
// CHECK: tile.store_direct %[[DQV]]
fmha.attention_backward @bwd_varlen (tensor<?x32x128xbf16>,
    tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x32x128xbf16>,
    tensor<?x32x128xbf16>, tensor<32x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>)
    varlen causal target sm_90a
