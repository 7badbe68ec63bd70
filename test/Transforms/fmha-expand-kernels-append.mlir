// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// fmha.append_kv, a dense cache: a tile program without dots and TMA. The
// kernel takes the keys, values and caches as memrefs with the caller's
// strides, the lengths dense; a CTA copies 8 new tokens (head dim 128) of
// one KV head of one sequence: grid (ceildiv(N, 8), 8, B). The block's
// rows go through [count, 128] views of k_new and of the cache starting at
// the block's first token and position, the cache's view cut at its
// capacity; a negative length writes nothing.
// CHECK-LABEL: gpu.module @append_module
// CHECK: gpu.func @append(%[[KNEW:.+]]: memref<?x?x8x128xbf16, strided<[?, ?, ?, 1]>>, %[[VNEW:.+]]: memref<?x?x8x128xbf16, strided<[?, ?, ?, 1]>>, %[[LENS:.+]]: memref<?xi32>, %[[KC:.+]]: memref<?x?x8x128xbf16, strided<[?, ?, ?, 1]>>, %[[VC:.+]]: memref<?x?x8x128xbf16, strided<[?, ?, ?, 1]>>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["N", 8]}, 8, "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", strided = true, tensor = "k_new"}, {kind = "memref", strided = true, tensor = "v_new"}, {kind = "memref", tensor = "cache_seqlens"}, {kind = "memref", strided = true, tensor = "k_cache"}, {kind = "memref", strided = true, tensor = "v_cache"}]
// CHECK-SAME: k_cache = {dtype = "bf16", role = "output", shape = ["B", "C", 8, 128]}
// CHECK: %[[LEN:.+]] = memref.load %[[LENS]][%{{.+}}] : memref<?xi32>
// CHECK: %[[POS:.+]] = arith.addi %[[LEN]], %{{.+}} : i32
// CHECK: %[[VALID:.+]] = arith.cmpi sge, %[[LEN]], %{{.+}} : i32
// CHECK: %[[KFROM:.+]] = memref.reinterpret_cast %[[KNEW]] to offset: [%{{.+}}], sizes: [%{{.+}}, 128], strides: [%{{.+}}, 1]
// CHECK: %[[ROOM:.+]] = arith.subi %{{.+}}, %[[POS]] : i32
// CHECK: %[[IN:.+]] = arith.minsi %{{.+}}, %[[ROOM]] : i32
// CHECK: scf.if
// CHECK: %[[KTO:.+]] = memref.reinterpret_cast %[[KC]] to offset: [%{{.+}}], sizes: [%{{.+}}, 128], strides: [%{{.+}}, 1]
// CHECK: %[[TILE:.+]] = tile.load_direct %[[KFROM]][%[[ZERO:.+]], %{{.+}}] : memref<?x128xbf16, strided<[?, 1], offset: ?>> -> tensor<8x128xbf16>
// CHECK: tile.store_direct %[[KTO]][%[[ZERO]], %{{.+}}], %[[TILE]]
// CHECK: tile.load_direct
// CHECK: tile.store_direct
fmha.append_kv @append (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                        tensor<?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// -----

// A paged cache (pages of 64 rows, head dim 64: blocks of 16 tokens): the
// block's positions fall into two groups of 16 positions aligned to 16,
// each inside one page. For each group with rows of the block and a page
// index below max_pages, the page is read from the block table; a page
// inside the pool gets one copy at the block's token row of the group's
// first position (negative rows masked by the loads' and stores' bounds).
// CHECK-LABEL: gpu.module @append_paged_module
// CHECK: gpu.func @append_paged(
// CHECK-SAME: %[[TABLE:[^:]+]]: memref<?x?xi32>
// CHECK-SAME: fmha.grid = [{ceildiv = ["N", 16]}, "H", "B"]
// CHECK-SAME: block_table = {dtype = "i32", role = "input", shape = ["B", "MP"]}
// CHECK-SAME: k_cache = {dtype = "f16", role = "output", shape = ["NP", 64, "H", 64]}
// CHECK: %[[ALIGNED:.+]] = arith.muli %{{.+}}, %{{.+}} : i32
// CHECK: %[[PAGEIDX:.+]] = arith.divui %{{.+}}, %c64_i32 : i32
// CHECK: arith.cmpi ult, %[[PAGEIDX]], %{{.+}} : i32
// CHECK: scf.if
// CHECK: %[[PAGE:.+]] = memref.load %[[TABLE]]
// CHECK: %[[INPOOL:.+]] = arith.cmpi ult, %[[PAGE]], %{{.+}} : i32
// CHECK: scf.if %[[INPOOL]]
// CHECK: arith.remui
// CHECK: tile.load_direct {{.+}} -> tensor<16x64xf16>
// CHECK: tile.store_direct
// CHECK: tile.load_direct
// CHECK: tile.store_direct
// The second group.
// CHECK: scf.if
// CHECK: memref.load %[[TABLE]]
// CHECK: tile.store_direct
fmha.append_kv @append_paged (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                              tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x64x?x64xf16>, tensor<?x64x?x64xf16>) target sm_90a
