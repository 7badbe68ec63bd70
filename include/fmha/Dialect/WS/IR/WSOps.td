#ifndef FMHA_DIALECT_WS_IR_WSOPS_TD
#define FMHA_DIALECT_WS_IR_WSOPS_TD

include "fmha/Dialect/WS/IR/WSDialect.td"
include "fmha/Dialect/WS/IR/WSInterfaces.td"
include "fmha/Dialect/WS/IR/WSAttrs.td"
include "fmha/Dialect/WS/IR/WSTypes.td"
include "fmha/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def WS_SharedMemRef : MemRefOf<[AnyType]>;

// A `#tile.nvmma_shared` layout (the tile dialect's attribute, named here
// without including its definitions).
def WS_NvmmaSharedLayoutAttr
    : Attr<CPred<"::llvm::isa<::mlir::tile::NvmmaSharedAttr>($_self)">,
           "an NVMMA shared layout (#tile.nvmma_shared)"> {
  let storageType = "::mlir::tile::NvmmaSharedAttr";
  let returnType = "::mlir::tile::NvmmaSharedAttr";
  let convertFromStorage = "$_self";
}

// Memory effects. Ops that synchronise (waits, arrivals, named barriers,
// fences) or start asynchronous work (TMA, tcgen05) read and write memory
// as a whole: they are never dropped, merged or moved across one another
// or across the accesses they order. Ops that only create storage
// allocate it (an unused one may go, two are never merged); plain
// accesses name the buffer they read or write.
defvar WS_Synchronizes = MemoryEffects<[MemRead, MemWrite]>;

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

def WS_WarpSpecializeOp : WS_Op<"warp_specialize",
    [SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "run one region per warp role, all starting together";
  let description = [{
    The body holds one `ws.role` per role of the kernel. Every role starts
    when the op starts, runs on its own warps, and the op ends when all roles
    have ended. Values defined above the op (descriptors, channels, scalars)
    are visible in every role.

    ```mlir
    ws.warp_specialize {
      ws.role "producer" warps 1 regs 40 {
        ...
      }
      ws.role "consumer" warps 4 regs 232 {
        ...
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The roles in program order.
    auto getRoles() { return getBody().front().getOps<RoleOp>(); }
    /// Warps of all roles together.
    int64_t getTotalWarps();
  }];
}

def WS_RoleOp : WS_Op<"role",
    [SingleBlock, NoTerminator, HasParent<"WarpSpecializeOp">,
     RecursiveMemoryEffects]> {
  let summary = "the code one warp role runs";
  let description = [{
    A role has a name, a number of warps and, optionally, a register budget
    per thread (`regs`, applied with `setmaxnreg` on SM90 and later; a
    multiple of 8 in [24, 256]). `first_warp` is the first warp of the
    role's range in the CTA, assigned by `ws-allocate-registers` when not
    written by hand. Roles of 4 warps or a multiple of 4 start on a warpgroup
    boundary, which warpgroup instructions (wgmma, tcgen05.ld) need.

    ```mlir
    ws.role "consumer" warps 4 regs 232 first_warp 4 {
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$role_name, ConfinedAttr<I32Attr, [IntPositive]>:$warps,
                       OptionalAttr<I32Attr>:$regs,
                       OptionalAttr<I32Attr>:$first_warp);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $role_name `warps` $warps (`regs` $regs^)? (`first_warp` $first_warp^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads of the role.
    int64_t getNumThreads() { return int64_t(getWarps()) * kThreadsPerWarp; }
    /// The first and last warpgroup the role's warps touch (it must have a
    /// first_warp).
    std::pair<int64_t, int64_t> getWarpgroupRange() {
      int64_t first = *getFirstWarp();
      return {first / kWarpsPerGroup,
              (first + getWarps() - 1) / kWarpsPerGroup};
    }
  }];
}

def WS_ThreadIdOp : WS_Op<"thread_id", [Pure]> {
  let summary = "the executing thread's index within its role";
  let description = [{
    0 for the role's first thread, up to the role's thread count minus one.

    ```mlir
    %tid = ws.thread_id : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

def WS_ChannelOp : WS_Op<"channel", [MemoryEffects<[MemAlloc]>]> {
  let summary = "declare a multi-stage channel between roles";
  let description = [{
    Declares a ring of `stages` slots of buffers, empty at the start.
    `ws-insert-mbarriers` gives it storage and barriers.

    A tensor-memory channel may lie over another one (`aliases`, sm100):
    its slots take the columns of the other's slots, stage by stage, as
    attention writes P over S once S has been read. The two channels'
    protocols must order the writes (P of a stage is written after S of the
    stage was read, S again only after P was consumed); `ws-insert-mbarriers`
    makes the aliased ring a `ws.tmem_buffer ... aliases`.

    ```mlir
    %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    %s = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
    %p = ws.channel aliases %s : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
    ```
  }];
  let arguments = (ins Optional<WS_ChannelType>:$aliases);
  let results = (outs WS_ChannelType:$channel);
  let assemblyFormat = [{
    (`aliases` $aliases^)? attr-dict `:` qualified(type($channel))
    (`over` qualified(type($aliases))^)?
  }];
  let builders = [
    OpBuilder<(ins "ChannelType":$type), [{
      build($_builder, $_state, type, Value());
    }]>
  ];
  let hasVerifier = 1;
}

/// The ends of a channel's protocol (ChannelEndOpInterface): `producer`
/// says the side, `take` whether the op takes a slot or signals one.
class WS_ChannelEndOp<string mnemonic, bit producer, bit take,
                      list<Trait> traits = []>
    : WS_Op<mnemonic, !listconcat(traits, [WS_ChannelEndOpInterface,
                                           WS_Synchronizes])> {
  code channelEndMethods = !strconcat(
    "  /// ChannelEndOpInterface: the side and kind of the end.\n",
    "  bool isProducerEnd() { return ", !if(producer, "true", "false"), "; }\n",
    "  bool isTake() { return ", !if(take, "true", "false"), "; }\n",
    "  ::mlir::Value getSlotToken() { return getToken(); }\n");
  let extraClassDeclaration = channelEndMethods;
}

class WS_SlotTakeOp<string mnemonic, bit producer>
    : WS_ChannelEndOp<mnemonic, producer, /*take=*/1,
                      [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let arguments = (ins WS_ChannelType:$channel);
  let results = (outs WS_TokenType:$token, Variadic<AnyMemRef>:$buffers);
  let assemblyFormat = "$channel attr-dict `:` qualified(type($channel))";
  let hasVerifier = 1;
}

def WS_ProducerAcquireOp : WS_SlotTakeOp<"producer_acquire", /*producer=*/1> {
  let summary = "wait for the next empty slot of a channel and take it";
  let description = [{
    Blocks until the next slot in ring order is empty (released by every
    consumer), then returns a token for the slot and its buffers, to be
    filled and handed over with exactly one `ws.producer_commit`.

    ```mlir
    %tok, %a, %b = ws.producer_acquire %ch
        : !ws.channel<[memref<128x64xbf16, 3>, memref<256x64xbf16, 3>], stages = 4>
    ```
  }];
}

def WS_ConsumerWaitOp : WS_SlotTakeOp<"consumer_wait", /*producer=*/0> {
  let summary = "wait for the next full slot of a channel and take it";
  let description = [{
    Blocks until the next slot in ring order has been committed, then
    returns a token for the slot and its buffers, to be read and given back
    with exactly one `ws.consumer_release`.

    ```mlir
    %tok, %a = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    ```
  }];
}

def WS_ProducerCommitOp
    : WS_ChannelEndOp<"producer_commit", /*producer=*/1, /*take=*/0> {
  let summary = "hand a filled slot to the consumers";
  let description = [{
    Marks the slot of `token` full once `unit` has finished writing it.
    With `by tma`, `tx_bytes` is the number of bytes the slot's TMA copies
    deliver (the barrier's expected transaction count).

    ```mlir
    ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    ws.producer_commit %ch2, %tok2 by threads : !ws.channel<[memref<128xf32, 3>], stages = 1>
    ```
  }];
  let arguments = (ins WS_ChannelType:$channel, WS_TokenType:$token,
                       WS_AsyncUnitAttr:$unit, OptionalAttr<I64Attr>:$tx_bytes);
  let assemblyFormat = [{
    $channel `,` $token `by` $unit (`tx_bytes` $tx_bytes^)?
    attr-dict `:` qualified(type($channel))
  }];
  let hasVerifier = 1;
}

def WS_ConsumerReleaseOp
    : WS_ChannelEndOp<"consumer_release", /*producer=*/0, /*take=*/0> {
  let summary = "give a read slot back to the producer";
  let description = [{
    Marks the slot of `token` empty once `unit` has finished reading it.

    ```mlir
    ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    ```
  }];
  let arguments = (ins WS_ChannelType:$channel, WS_TokenType:$token,
                       WS_AsyncUnitAttr:$unit);
  let assemblyFormat = [{
    $channel `,` $token `by` $unit attr-dict `:` qualified(type($channel))
  }];
  let hasVerifier = 1;
}

def WS_TMALoadOp : WS_Op<"tma_load", [WS_Synchronizes]> {
  let summary = "copy one block of a global tensor into a channel slot by TMA";
  let description = [{
    Starts an asynchronous TMA copy of the block at `coords` (one i32 per
    global dimension, innermost last, in elements) into `buffer`, which must
    be a shared-memory buffer of the slot held by `token`. The copy completes
    the slot's barrier: commit the slot `by tma` with the bytes of all copies
    into it. Elements outside the tensor read as zero.

    With `multicast` (a kernel marked `ws.multicast`: a cluster of two CTAs
    along x running the same program), each CTA copies part of the block,
    rank r the r-th half, into `buffer` in both CTAs
    (`cp.async.bulk.tensor...multicast::cluster`, CTA mask 0b11), so the
    buffer holds the whole block in both and the slot's barrier in each CTA
    receives the whole block's bytes. A block whose rows move as one TMA box
    is split by rows (the tensor map's box has half the rows), one whose
    rows move as several boxes one swizzle span wide by boxes (of an odd
    number, rank 0 copies one more); a half by rows must start at a
    multiple of 8 rows (a swizzle pattern). The slots of the
    channel are released by tcgen05 commits, multicast to both CTAs, so a
    slot is refilled only when both CTAs are done with it.

    ```mlir
    ws.tma_load %desc[%i, %k], %buf, %tok
        : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
    ws.tma_load %desc[%n, %k], %buf, %tok multicast
        : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$coords,
                       WS_SharedMemRef:$buffer, WS_TokenType:$token,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $buffer `,` $token (`multicast` $multicast^)? attr-dict `:` qualified(type($desc)) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def WS_AsTensorOp : WS_Op<"as_tensor", [Pure]> {
  let summary = "read a shared- or tensor-memory buffer as a tensor, without copying";
  let description = [{
    The tensor is the buffer's contents, valid while the slot is held (until
    its release). Matrix operands of `tile.dot` read it in place: the
    tensor's `#tile.nvmma_shared` encoding says how the buffer is swizzled.
    A tensor-memory buffer (`#ws.tmem`, sm100) is read as a `#tile.tmem`
    tensor, which `tile.convert_layout` loads into registers
    (`tcgen05.ld`).

    ```mlir
    %a = ws.as_tensor %buf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>
    %acc = ws.as_tensor %tbuf : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tile.tmem<block = [128, 128], unpacked = true>>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def WS_StoreSharedOp : WS_Op<"store_shared"> {
  let summary = "write a register tensor into a shared-memory buffer";
  let description = [{
    Each thread writes the elements it holds (as the tensor's register
    layout says) into the row-major buffer. Other threads see them after a
    barrier; TMA and the tensor cores after a `ws.fence_async_shared` too.

    With `layout`, an NVMMA shared layout, the buffer holds the tensor in
    that layout (swizzled, as TMA writes it and wgmma reads it) instead of
    row-major: a register tile staged for a `tile.dot` that reads its
    operand from shared memory (the attention backward's dS^T, read
    transposed).

    ```mlir
    ws.store_shared %c, %buf : tensor<128x128xbf16, #acc>, memref<128x128xbf16, 3>
    ws.store_shared %ds, %stage {layout = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>}
        : tensor<64x64xbf16, #acc>, memref<64x64xbf16, 3>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value,
                       Arg<WS_SharedMemRef, "", [MemWrite]>:$buffer,
                       OptionalAttr<WS_NvmmaSharedLayoutAttr>:$layout);
  let assemblyFormat = "$value `,` $buffer attr-dict `:` type($value) `,` type($buffer)";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$buffer), [{
      build($_builder, $_state, value, buffer, ::mlir::tile::NvmmaSharedAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def WS_LoadSharedOp : WS_Op<"load_shared"> {
  let summary = "read a shared-memory buffer into a register tensor";
  let description = [{
    The inverse of `ws.store_shared`: each thread reads the elements it
    holds (as the result's register layout says) from the row-major buffer.
    Values other threads wrote are visible after a barrier (a channel wait).
    sm100 attention passes row vectors (the softmax's rescale factors and row
    sums) this way from the softmax warpgroups to the correction warpgroup:
    in the `#tile.tmem_32x32b` row slice, thread t reads element t % 128.

    ```mlir
    %alpha = ws.load_shared %buf : memref<128xf32, 3> -> tensor<128xf32, #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>>>
    ```
  }];
  let arguments = (ins Arg<WS_SharedMemRef, "", [MemRead]>:$buffer);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def WS_TransposeSharedOp : WS_Op<"transpose_shared", [WS_Synchronizes]> {
  let summary = "transpose a tile of bytes from one shared-memory buffer into another";
  let description = [{
    The threads of a role of `warps` warps (`thread`: each one's
    `ws.thread_id`) write the transpose of `source` (a `#tile.nvmma_shared`
    tensor read in place, `[rows, columns]` of one-byte elements) into
    `buffer` in `layout` (row-major, swizzled: `[columns, rows]`), as
    `tile.transpose` in shared memory says: with `k_quad16` (required) the
    rows of each group of 16 in `tile.dot`'s `k_quad16` order. Each warp step moves
    16 rows x 32 bytes: a lane loads four rows' 4-byte words, permutes their
    bytes into four columns' words (prmt) and stores them, its lanes' loads
    and stores spread over all 32 banks. Other threads, and wgmma through a
    `ws.fence_async_shared`, see the bytes after a barrier (the channel
    commit). FP8 attention's V^T is made so, from V as TMA brings it.

    ```mlir
    %tid = ws.thread_id : i32
    ws.transpose_shared %v, %slot, %tid warps 3
        {k_quad16, layout = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>}
        : tensor<128x128xf8E4M3FN, #nvmma>, memref<128x128xf8E4M3FN, 3>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, WS_SharedMemRef:$buffer,
                       I32:$thread, I32Attr:$warps,
                       WS_NvmmaSharedLayoutAttr:$layout, UnitAttr:$k_quad16);
  let assemblyFormat = [{
    $source `,` $buffer `,` $thread `warps` $warps attr-dict `:` type($source)
    `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def WS_StoreTMEMOp : WS_Op<"store_tmem"> {
  let summary = "write a register tensor into a tensor-memory buffer (sm100)";
  let description = [{
    `tcgen05.st`: each thread of the warpgroup writes its row of `value`
    (`#tile.tmem_32x32b` layout: thread t holds row t) into lane t of
    `buffer`; 32-bit elements take a column each, 16-bit ones are packed two
    to a column (the layout `tcgen05.mma` reads an A operand in). The
    stores are complete, and fenced, when the op is: a barrier (a channel
    commit) then hands the buffer to the tensor cores.

    ```mlir
    ws.store_tmem %p, %buf : tensor<128x128xbf16, #tile.tmem_32x32b<warpgroups = 1>>, memref<128x128xbf16, #ws.tmem>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value,
                       Arg<AnyMemRef, "", [MemWrite]>:$buffer);
  let assemblyFormat = "$value `,` $buffer attr-dict `:` type($value) `,` type($buffer)";
  let hasVerifier = 1;
}

def WS_TMAStoreOp
    : WS_Op<"tma_store", [AttrSizedOperandSegments, WS_Synchronizes]> {
  let summary = "copy a shared-memory buffer to a block of a global tensor by TMA";
  let description = [{
    The role's leader starts an asynchronous bulk tensor copy of `buffer`
    to the block at `coords` (innermost last) and commits it as a bulk
    group. Elements outside the tensor are not written. The buffer may be
    reused, and the kernel may exit, only after `ws.tma_store_wait`.

    Inside a role the op names no thread: ws-lower-roles sets `pred`,
    true in the role's leader only. Every thread runs the op and only those
    where `pred` holds issue the copy, as a predicated instruction instead
    of a branch around it: a branch on the thread index inside a loop makes
    ptxas keep the loop's warp-uniform values (wgmma descriptors, barrier
    addresses) in per-thread registers instead of uniform ones.

    With `reduce add` (from `tile.store ... reduce add`) the copy adds
    the buffer's f32 elements to what the block holds
    (`cp.reduce.async.bulk.tensor...add`), atomically per element.

    ```mlir
    ws.tma_store %desc[%m, %n], %buf : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
    ws.tma_store %desc[%m, %n], %buf if %leader : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
    ws.tma_store %acc[%m, %n], %buf reduce add : !tile.desc<tensor<64x128xf32>>, memref<64x128xf32, 3>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$coords,
                       WS_SharedMemRef:$buffer, Optional<I1>:$pred,
                       UnitAttr:$reduce_add);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $buffer (`reduce` `add` $reduce_add^)? (`if` $pred^)? attr-dict `:` qualified(type($desc)) `,` type($buffer)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$desc, "::mlir::ValueRange":$coords,
                   "::mlir::Value":$buffer, CArg<"bool", "false">:$reduceAdd), [{
      build($_builder, $_state, desc, coords, buffer, ::mlir::Value(),
            reduceAdd);
    }]>
  ];
  let hasVerifier = 1;
}

def WS_TMAStoreWaitOp : WS_Op<"tma_store_wait", [WS_Synchronizes]> {
  let summary = "wait until the role's TMA stores have read their buffers";
  let description = [{
    `cp.async.bulk.wait_group.read 0`, run by every thread of the role:
    only the leader has bulk groups to wait for; the others go on at once
    (their own groups, committed by `ws.tma_store`, are empty).

    ```mlir
    ws.tma_store_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def WS_CounterArriveOp : WS_Op<"counter_arrive", [WS_Synchronizes]> {
  let summary = "a role's arrival at a global counter; true for the last";
  let description = [{
    `tile.counter_arrive` as a role runs it: every thread of the role
    fences its global writes (`fence.acq_rel.gpu`) and waits at named
    barrier `id` for the role's `threads`; the role's leader adds 1 to
    element `index` of `counters` (`atom.global.add` at GPU scope) and,
    when it read `count - 1`, sets the element back to 0; a barrier
    reduction on the same named barrier (`bar.red.or.pred`) hands the
    leader's answer to every thread, which fences again before it reads
    what the other arrivals wrote.

    Inside a role the op names no thread: ws-lower-roles sets `pred`, true
    in the role's leader only.

    ```mlir
    %last = ws.counter_arrive %counters[%i], %n barrier 1 threads 128
        : memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[I32], [1]>, "the counters",
                           [MemRead, MemWrite]>:$counters,
                       I32:$index, I32:$count,
                       ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<15>]>:$id,
                       I32Attr:$threads, Optional<I1>:$pred);
  let results = (outs I1:$last);
  let assemblyFormat = [{
    $counters `[` $index `]` `,` $count `barrier` $id `threads` $threads
    (`if` $pred^)? attr-dict `:` type($counters)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

class WS_NamedBarrierOp<string mnemonic, bit waits>
    : WS_Op<mnemonic, [WS_NamedBarrierOpInterface, WS_Synchronizes]> {
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<15>]>:$id,
                       I32Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = !strconcat(
    "  /// NamedBarrierOpInterface: whether the op waits.\n",
    "  bool waits() { return ", !if(waits, "true", "false"), "; }\n");
}

def WS_BarrierSyncOp : WS_NamedBarrierOp<"barrier_sync", /*waits=*/1> {
  let summary = "wait at a named barrier until `threads` threads arrived";
  let description = [{
    `bar.sync id, threads`: the executing warp arrives at named barrier `id`
    (1 to 15; 0 is the CTA-wide barrier) and waits until `threads` threads
    (a multiple of 32) have arrived. Orders roles directly, as in ping-pong
    scheduling of two consumer warpgroups.

    ```mlir
    ws.barrier_sync 1 threads 256
    ```
  }];
}

def WS_BarrierArriveOp : WS_NamedBarrierOp<"barrier_arrive", /*waits=*/0> {
  let summary = "arrive at a named barrier without waiting";
  let description = [{
    `bar.arrive id, threads`: counts the executing warp's threads towards
    named barrier `id` and goes on.

    ```mlir
    ws.barrier_arrive 2 threads 256
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Explicit rings: produced by ws-insert-mbarriers
//===----------------------------------------------------------------------===//

def WS_MBarrierAllocOp : WS_Op<"mbarrier_alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "an array of mbarriers in shared memory, initialised once";
  let description = [{
    Reserves `count` mbarriers (the type's count) in shared memory; each is
    initialised at kernel start with `arrivals` expected arrivals per phase,
    before any role runs. `offset` is the byte offset in the kernel's
    dynamic shared memory, assigned by `ws-allocate-smem`.

    ```mlir
    %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
    %empty = ws.mbarrier_alloc arrivals 128 offset 32768 : !ws.mbarrier<2>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$arrivals,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs WS_MBarrierType:$barriers);
  let assemblyFormat = [{
    `arrivals` $arrivals (`offset` $offset^)? attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def WS_BufferAllocOp : WS_Op<"buffer_alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "the storage of a ring: one buffer per stage";
  let description = [{
    Reserves shared memory for all stages of one buffer of a ring; the
    leading dimension is the stage. `offset` is assigned by
    `ws-allocate-smem` (1024-byte aligned, as 128-byte swizzling needs).

    ```mlir
    %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs WS_SharedMemRef:$buffer);
  let assemblyFormat = "(`offset` $offset^)? attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def WS_SlotOp : WS_Op<"slot", [Pure]> {
  let summary = "the buffer of one stage of a ring";
  let description = [{
    ```mlir
    %buf = ws.slot %ring[%stage] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
    ```
  }];
  let arguments = (ins WS_SharedMemRef:$ring, I32:$stage);
  let results = (outs WS_SharedMemRef:$buffer);
  let assemblyFormat = "$ring `[` $stage `]` attr-dict `:` type($ring) `->` type($buffer)";
  let hasVerifier = 1;
}

def WS_MBarrierWaitOp
    : WS_Op<"mbarrier_wait", [WS_MBarrierOpInterface, WS_Synchronizes]> {
  let summary = "wait until the mbarrier completes the phase of parity `phase`";
  let description = [{
    Spins on `mbarrier.try_wait.parity` until barrier `index` of `barriers`
    has completed the phase whose parity is `phase` (0 or 1).

    ```mlir
    ws.mbarrier_wait %full[%stage], %phase : !ws.mbarrier<2>
    ```
  }];
  let arguments = (ins WS_MBarrierType:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = "$barriers `[` $index `]` `,` $phase attr-dict `:` qualified(type($barriers))";
}

def WS_MBarrierArriveOp
    : WS_Op<"mbarrier_arrive", [WS_MBarrierOpInterface, WS_Synchronizes]> {
  let summary = "arrive on an mbarrier";
  let description = [{
    Each executing thread arrives once on barrier `index`. With `leader`,
    only the role's first thread arrives (the barrier then expects one
    arrival from that role). With `tx_bytes`, the arrival also adds that many
    bytes to the barrier's expected transaction count (the TMA copies into
    the slot complete them). With `tcgen05` (and `leader`), the leader's
    arrival is made by `tcgen05.commit` when every `tcgen05` operation the
    leader issued before has completed (Blackwell MMAs reading or writing
    the slot). With `multicast` (in a `ws.multicast` kernel, clusters of
    two CTAs) the arrival reaches barrier `index` of this array in both CTAs
    of the cluster: with `tcgen05` the commit is multicast
    (`tcgen05.commit...multicast::cluster`, CTA mask 0b11) and each such
    barrier expects one arrival from each CTA; without it (and without
    `leader`) the first lane of each executing warp arrives on this CTA's
    barrier and on the peer's (`mapa` and
    `mbarrier.arrive.shared::cluster`), so each such barrier
    expects one arrival per warp from each CTA. The warp's threads must be
    done with the slot when its first lane arrives: the lowering uses this
    form after `wgmma.wait_group`, which every thread of the warp executes
    together.

    ```mlir
    ws.mbarrier_arrive %empty[%stage] : !ws.mbarrier<2>
    ws.mbarrier_arrive %full[%stage] leader tx_bytes 16384 : !ws.mbarrier<2>
    ws.mbarrier_arrive %full[%stage] leader tcgen05 : !ws.mbarrier<2>
    ws.mbarrier_arrive %empty[%stage] leader tcgen05 multicast : !ws.mbarrier<2>
    ws.mbarrier_arrive %empty[%stage] multicast : !ws.mbarrier<2>
    ```
  }];
  let arguments = (ins WS_MBarrierType:$barriers, I32:$index, UnitAttr:$leader,
                       OptionalAttr<I64Attr>:$tx_bytes, UnitAttr:$tcgen05,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`leader` $leader^)? (`tcgen05` $tcgen05^)?
    (`multicast` $multicast^)? (`tx_bytes` $tx_bytes^)? attr-dict `:`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def WS_TMALoadMBarrierOp
    : WS_Op<"tma_load_mbarrier", [WS_MBarrierOpInterface, WS_Synchronizes]> {
  let summary = "TMA copy into shared memory, completing on an mbarrier";
  let description = [{
    The explicit form of `ws.tma_load` after `ws-insert-mbarriers`: the
    leader thread of the role issues the copy, which completes barrier
    `index` of `barriers` with its bytes. With `multicast` (see
    `ws.tma_load`), the leader copies its CTA's half of the block into
    `buffer` and completes barrier `index` in both CTAs of the cluster.

    ```mlir
    ws.tma_load_mbarrier %desc[%i, %k], %buf, %full[%stage]
        : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
    ws.tma_load_mbarrier %desc[%n, %k], %buf, %full[%stage] multicast
        : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$coords,
                       WS_SharedMemRef:$buffer, WS_MBarrierType:$barriers,
                       I32:$index, UnitAttr:$multicast);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $buffer `,` $barriers `[` $index `]`
    (`multicast` $multicast^)? attr-dict
    `:` qualified(type($desc)) `,` type($buffer) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def WS_FenceAsyncSharedOp : WS_Op<"fence_async_shared", [WS_Synchronizes]> {
  let summary = "order generic shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory written by ordinary
    stores must be fenced before TMA or the tensor cores read it.

    ```mlir
    ws.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor memory (SM100)
//===----------------------------------------------------------------------===//

def WS_TCGen05MMAOp : WS_Op<"tcgen05_mma", [WS_Synchronizes]> {
  let summary = "issue Blackwell MMAs into a tensor-memory accumulator";
  let description = [{
    `D = A x B` (or `D += A x B` when `accumulate` is true) by
    `tcgen05.mma.cta_group::1.kind::f16` (bf16 or f16 `A` and `B` of one
    type) or `.kind::f8f6f4` (`f8E4M3FN` or `f8E5M2` each), issued by the
    role's leader alone (one thread issues a tensor-core MMA on sm100): `A`
    is M x K (K x M with `transpose_a`) in shared memory
    (`#tile.nvmma_shared`) or, 16-bit only, in tensor memory (`#tile.tmem`,
    packed 16-bit); `B` is K x N (N x K with `transpose_b`) in shared
    memory; `D` is an M x N f32 tensor-memory buffer. The K dimension is
    issued in steps of 32 bytes (16 elements of 16 bits, 32 of fp8);
    `accumulate` applies to the first step, later ones always accumulate.

    The MMAs are asynchronous: they are complete when a later
    `ws.mbarrier_arrive ... leader tcgen05` of the same role (a
    `tcgen05.commit`) arrives.

    With `cta_pair` (2-CTA mode), the op stands for one
    `tcgen05.mma.cta_group::2` of the CTA pair, issued by the even CTA's
    leader alone: M is twice `D`'s rows (each CTA holds its rows of `D` in
    its own tensor memory at the same address, and its rows of `A` in its
    shared memory at the same offset) and `B` is each CTA's half of N, so
    `D` has twice `B`'s N columns.

    ```mlir
    ws.tcgen05_mma %a, %b, %acc, %accumulate {transpose_b}
        : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
    ws.tcgen05_mma %a, %bhalf, %acc, %accumulate {cta_pair, transpose_b}
        : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyMemRef:$d,
                       I1:$accumulate, UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b, UnitAttr:$cta_pair);
  let assemblyFormat = [{
    $a `,` $b `,` $d `,` $accumulate attr-dict `:` type($a) `,` type($b) `,` type($d)
  }];
  let hasVerifier = 1;
}


def WS_TMEMAllocOp : WS_Op<"tmem_alloc", [WS_Synchronizes]> {
  let summary = "allocate tensor-memory columns for the CTA";
  let description = [{
    `tcgen05.alloc`: one warp allocates `columns` columns (a power of two,
    32 to 512) of the 128-lane tensor memory and gets their base address.
    Followed by `ws.tmem_relinquish` and, at the end, `ws.tmem_dealloc` by
    the same warp.

    `tcgen05.alloc` writes the address to shared memory: `slot`, a
    one-word shared-memory buffer, from which every thread reads it after a
    CTA barrier (`ws-allocate-tmem` gives it one; the lowering needs it).

    ```mlir
    %tmem = ws.tmem_alloc columns 256
    %slot = ws.buffer_alloc : memref<1xi32, 3>
    %tmem2 = ws.tmem_alloc columns 256 in %slot : memref<1xi32, 3>
    ```
  }];
  let arguments = (ins I32Attr:$columns, Optional<WS_SharedMemRef>:$slot);
  let results = (outs I32:$address);
  let assemblyFormat = [{
    `columns` $columns (`in` $slot^ `:` type($slot))? attr-dict
  }];
  let hasVerifier = 1;
}

def WS_TMEMBufferOp
    : WS_Op<"tmem_buffer", [AttrSizedOperandSegments, MemoryEffects<[MemAlloc]>]> {
  let summary = "the tensor-memory storage of a ring: one buffer per stage";
  let description = [{
    Tensor memory for all stages of one buffer of a ring (the leading
    dimension is the stage; a 2-d type is a single buffer). The last two
    dimensions are the rows (TMEM lanes: 64, or a multiple of 128 taking
    that many blocks of 128 lanes side by side) and the columns of one slot;
    32-bit elements take a column each, 16-bit ones pack two to a column.

    `aliases` places this buffer over the columns of another one with the
    same number of stages, slot by slot, as attention writes P (16-bit)
    over S (32-bit) once S has been read: it takes no columns of its own and
    must fit in the other's slots.

    `ws-allocate-tmem` assigns `column`, the first column of stage 0, and
    `base`, the CTA's TMEM allocation (`ws.tmem_alloc`): the buffer of stage
    s starts at `base + column + s * stride`, where the stride is the slot
    columns of the buffer (of the aliased buffer, for an alias).

    ```mlir
    %s = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
    %p = ws.tmem_buffer aliases %s : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
    %o = ws.tmem_buffer base %tmem column 256 : memref<128x128xf32, #ws.tmem>
    ```
  }];
  let arguments = (ins Optional<AnyMemRef>:$aliases, Optional<I32>:$base,
                       OptionalAttr<I64Attr>:$column);
  let results = (outs AnyMemRef:$buffer);
  let assemblyFormat = [{
    (`aliases` $aliases^)? (`base` $base^)? (`column` $column^)? attr-dict
    `:` type($buffer) (`over` type($aliases)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Stages of the ring (1 for a 2-d buffer).
    int64_t getStages();
    /// 32-bit TMEM columns one stage's buffer takes.
    int64_t getSlotColumns();
    /// Columns between the buffers of consecutive stages.
    int64_t getStageStride();
    /// The buffer this one lies over, following aliases to the end; itself
    /// when it aliases nothing.
    TMEMBufferOp getRoot();
  }];
}

def WS_TMEMRelinquishOp : WS_Op<"tmem_relinquish", [WS_Synchronizes]> {
  let summary = "give up the right to allocate more tensor memory";
  let description = [{
    `tcgen05.relinquish_alloc_permit`, after the CTA's only allocation.

    ```mlir
    ws.tmem_relinquish
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def WS_TMEMDeallocOp : WS_Op<"tmem_dealloc", [WS_Synchronizes]> {
  let summary = "free tensor-memory columns";
  let description = [{
    `tcgen05.dealloc` of an allocation of `columns` columns at `address`.

    ```mlir
    ws.tmem_dealloc %tmem columns 256 : i32
    ```
  }];
  let arguments = (ins I32:$address, I32Attr:$columns);
  let assemblyFormat = "$address `columns` $columns attr-dict `:` type($address)";
  let hasVerifier = 1;
}

#endif // FMHA_DIALECT_WS_IR_WSOPS_TD
