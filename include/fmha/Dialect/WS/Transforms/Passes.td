#ifndef FMHA_DIALECT_WS_TRANSFORMS_PASSES_TD
#define FMHA_DIALECT_WS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WSAssignRoles : Pass<"ws-assign-roles"> {
  let summary = "decide the warp roles of a tile program, as attributes";
  let description = [{
    The role policy: for each kernel's tile program (after
    `tile-assign-layouts`) decides which warp roles it is split into and
    what each runs, and writes the decision on the program
    (docs/Roles.md) for `ws-partition-roles` to materialise. A program
    whose roles are written by hand skips this pass and gets the same
    pipeline.

    On sm_90a:

    - role 0, the **producer** (one warp, `producer-regs`), issues every
      load. Loads sit in the main loop or before or after it in the same
      block. Loads of one descriptor go through one channel
      (`ws.load_channel`), and descriptors loaded in the same places
      (before, in or after the loop: GEMM's A and B tiles) share it; the
      loads of a channel in one block fill one slot (the slots must hold
      the same tiles). A channel filled in the loop has `stages` slots
      (`fmha.stages` on the kernel overrides the option), one filled only
      outside it has one, except in a loop around the main loop (a
      persistent kernel's tile loop): there it has `fmha.item_slots`
      slots (1 by default; with 2 the next tile's loads overlap this
      tile's end); `ws.channel_stages` lists them. Attention's program
      gives three channels: Q (before the loop), K (the first tile before,
      the others in the loop) and V (in the loop, the last tile after it),
      so K and V each have their own ring and the producer loads K ahead
      of V. In a `ws.multicast` kernel the loads of the dots' B operands
      are multicast (`ws.multicast_load`).
    - role 1 + i, **consumer i** (a warpgroup, `consumer-regs`), computes
      accumulator chain group i of the loop (a loop-carried `tile.dot`
      accumulator; chains computed from a common `tile.dot`, such as an
      attention backward's dK and dV from one P^T, form one group, every
      other chain a group of its own): the loop-carried values the
      chains, their stores and, in
      turn, what those read (`ws.partition_outputs` on the loop), the TMA
      stores of values computed from it and the plain stores
      (`tile.store_direct`, attention's log-sum-exp) of values of its
      chain only, such as the row max (`ws.partition` on the stores).
      A TMA store in the main loop computed from several consumers' dots
      (the fused attention backward's column parts of dQ, each reading
      every consumer's dS) goes to those consumers in turn; each value it
      reads that another consumer computes for its chains (from a dot;
      not an accumulator itself) is handed over through a channel of its
      own, one slot (`ws.result_channel`, `ws.partition` of the computing
      consumer).
    - the last role, the **transposer** (three warps, the producer's
      budget; `ws-allocate-registers` packs it beside the producer's
      warp), when the program transposes loaded tiles in shared memory
      (`tile.transpose` with `#tile.nvmma_shared` tensors: fp8 attention's
      V^T with `transpose_v`): it runs every such transpose, handed to the
      consumers through a channel of `stages` slots (`ws.result_channel`).
    - a program whose loads all sit in several loops side by side in one
      block (a ping-pong GEMM, `fmha.gemm ... schedule pingpong`: one main
      loop per work item of a pair) gets one **consumer per loop**: role
      1 + i computes every value loop i carries and runs the stores of its
      results; the loops' loads fill one channel (`stages` slots) in
      program order; the loops are marked `ws.turn`, for
      `ws-schedule-ping-pong` to let the consumers take turns. A store of a
      value computed from several such loops, a loop without a `tile.dot`
      accumulator, plain stores and `ws.multicast` kernels are errors.

    On sm_100a, GEMM: role 0, the **load** warp (`producer-regs`), issues
    every load into channel 0 (`stages` slots; the dots' B operands
    multicast in a `ws.multicast` kernel); role 1, the **mma** warp (the
    load warp's budget), computes every accumulator, held in the two-slot
    tensor-memory channel 1 (`ws.output_channels`); role 2 + i, the
    **epilogue** warpgroup of accumulator i (`consumer-regs`), runs the
    stores computed from it. Attention: the op-level assignment is still
    implied by the kind of program; the pass writes the roles (`load`,
    `mma`, `epilogue`, `correction`, one `softmax` per consumer) and the
    depth of the operand ring (shortened until it fits in shared memory),
    which ws-partition-roles' attention builder reads.

    Before it decides anything it checks the kernel's `fmha.stages` (1 to
    16) and `fmha.item_slots` (1 or 2), and the `stages` (1 to 32),
    `producer-regs` and `consumer-regs` (multiples of 8 from 24 to 256, or
    0 for the target's) options; a value out of range is an error naming
    it. The target is each kernel's `gpu.module` `#nvvm.target` chip
    (through `fmha::TargetInfo`), which also gives the register budgets
    unless the options set them (`fmha::TargetInfo::getProducerRegisters`
    and `getConsumerRegisters`): the default split, or, for a kernel whose
    `fmha.consumer_registers` (1 to 255, the op's estimate of its
    consumers' need) exceeds it, the widest one (sm_90a: 24 for the
    producer, 240 for each of two consumer warpgroups). Three consumer
    warpgroups share the register file at less: 40 and 152 each (160 in
    the widest split).
    Functions without tile ops are left alone.

    ```mlir
    func.func @gemm(...) attributes {
        ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>,
                    #ws.role_spec<"consumer0", warps = 4, regs = 232>],
        ws.channel_stages = array<i32: 3>} {
      %r = scf.for ... iter_args(%acc = %zero) -> (...) {
        %a = tile.load %A[...] {ws.load_channel = 0 : i32,
                                ws.partition = array<i32: 0>} : ...
        ...
      } {ws.partition_outputs = [array<i32: 1>]}
      tile.store %C[...], %r {ws.partition = array<i32: 1>} : ...
    }
    ```
  }];
  let options = [
    Option<"stages", "stages", "unsigned", "2",
           "Slots of the load channel, unless the kernel says (fmha.stages)">,
    Option<"producerRegs", "producer-regs", "unsigned", "0",
           "Register budget of the producer warp (sm_100a: load and MMA "
           "warps); 0: the target's (fmha::TargetInfo, 40)">,
    Option<"consumerRegs", "consumer-regs", "unsigned", "0",
           "Register budget of each consumer warpgroup (sm_100a: epilogue "
           "warpgroups); 0: the target's (fmha::TargetInfo, 232)">
  ];
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSPartitionRoles : Pass<"ws-partition-roles"> {
  let summary = "materialise a kernel's warp roles and channels";
  let description = [{
    Turns each kernel's tile program whose roles are assigned
    (`ws-assign-roles`, or by hand: docs/Roles.md) into a
    `ws.warp_specialize` op with one `ws.role` per entry of `ws.roles`:

    - a `ws.channel` per entry of `ws.channel_stages`, whose slots hold the
      tiles of one group of its loads (the loads of the channel in one
      block, in program order);
    - each role is a copy of the program pruned to what it runs: the
      loop-carried values it does not compute (`ws.partition_outputs`)
      yield their own iteration argument, the stores not assigned to it
      (`ws.partition`) go, and what nothing uses then goes too. A role
      that keeps an op assigned to other roles only is an error at that op;
    - the role a load is assigned to acquires a slot of its channel, issues
      the TMA copies (multicast for `ws.multicast_load`) and commits the
      slot with its byte count; every other role that needs some of the
      channel's tiles (one of them reaches, in the pruned role, an op with
      effects or a yield) waits for each slot where the program loaded it
      and reads the tiles in place (`ws.as_tensor`); slots whose tiles it
      does not need (the main loop of another consumer's work item) it
      waits for and releases without reading, so its place in the ring
      stays in step; a role that needs none of a channel's tiles does not
      take part in it;
      a slot is released right after its last reader is done (by threads:
      an asynchronous dot is done at the `tile.dot_wait` that returns its
      result), except slots read by synchronous dots in the loop body,
      released at the end of the body by wgmma, which
      `ws-insert-mbarriers` defers by one iteration;
    - a role's TMA stores go through a shared-memory staging buffer: once
      the previous TMA store has read the buffer (`ws.tma_store_wait` by
      the leader, then a named barrier of the role, 1 for the first role
      that stores, 2 for the next, ...), `ws.store_shared`, a proxy fence,
      the barrier again, then `ws.tma_store` by the leader. The role waits
      for its last store at its end, so a store overlaps the next tile's
      main loop in persistent kernels. Plain stores from registers stay
      where they are.

    Every value that crosses roles is either recomputed in each role (index
    arithmetic, program ids) or passed through a channel (loaded tiles).
    The assignment attributes are gone afterwards.

    A loop-carried value held in a channel slot (`ws.output_channels`: a
    tensor-memory accumulator, on sm_100a) has one producer, the role that
    computes it: it takes a slot before the loop, its `tile.dot` becomes a
    `ws.tcgen05_mma` into the slot's buffer (one thread issues it; the first
    iteration overwrites the buffer, the value must start from zeros), the
    loop no longer carries the value, and the slot is handed over `by
    tcgen05` after the loop. The roles that read the loop's result wait for
    the slot before the loop, read the value in place (`ws.as_tensor`) and
    release it after their last read (`tcgen05.ld`). A slot read by tcgen05
    MMAs is released `by tcgen05`, at the end of the loop body in a loop. A
    role waits for a channel's slots only where it needs the tiles or
    values in them. The sm_100a GEMM goes this way (a load warp, an MMA warp
    computing every accumulator in a two-slot accumulator channel, an
    epilogue warpgroup per accumulator); with two accumulator slots the
    epilogue of one tile overlaps the MMAs of the next.

    sm_100a attention (Q loaded before the main loop, per consumer an
    `S = Q K^T` and an `O += P V` with P stored into tensor memory) is
    still built by a builder of its own from the roles the policy named: in
    warpgroup 0 a load warp (Q into a one-slot channel, K and V into the
    ring), an MMA warp (per step and consumer: S into a one-slot
    tensor-memory channel; P from a channel that `aliases` S's and O from
    its own one-slot tensor-memory channel; O += P V; P and O released by
    tcgen05) and an **epilogue** warp (per consumer: the staged O to global
    memory by TMA); then a **correction** warpgroup (per step and consumer:
    the rescale factor from the softmax through a two-slot shared-memory
    ring of row vectors, read with `ws.load_shared`; a slot of O, so the
    previous P V is done; O rescaled in tensor memory; O committed; after
    the loop the last O and the row sum, O normalised and staged in a
    one-slot shared-memory channel to the epilogue warp) and one
    **softmax** warpgroup per consumer (takes a P slot, reads S, sends the
    rescale factor, stores P, commits; after the loop sends the row sum and
    stores the LSE row).

    The sm100 roles store whole rows read from tensor memory (the GEMM
    epilogue's staging, attention's P, the rescaled and the normalised O);
    `ws-chunk-row-stores` streams them 32 columns at a time afterwards.

    A tile program that loads nothing and has no `ws.roles` is left alone.

    ```mlir
    ws.warp_specialize {
      ws.role "producer" warps 1 regs 40 { ... ws.producer_acquire ... ws.tma_load ... }
      ws.role "consumer0" warps 4 regs 232 { ... ws.consumer_wait ... tile.dot ... }
      ws.role "consumer1" warps 4 regs 232 { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::ws::WSDialect"];
}

def WSChunkRowStores : Pass<"ws-chunk-row-stores"> {
  let summary = "store rows read from tensor memory 32 columns at a time";
  let description = [{
    A warpgroup that reads an accumulator row from tensor memory
    (`tcgen05.ld`: thread t holds row t), computes on it column by column
    and stores it (`ws.store_shared` into a staging buffer,
    `ws.store_tmem` back into tensor memory, or `tile.store_direct` into
    global memory) would need registers for the whole row: 256 values for
    N = 256. This pass rewrites each such store of a 128-row
    `#tile.tmem_32x32b` tensor into one `tcgen05.ld` of a `memref.subview`
    of the tensor-memory buffer, the computation and a store per 32
    columns (into a view of the buffer, or, for `tile.store_direct`, at
    the store's coordinates with the innermost one moved by the chunk's
    first column); a thread then holds 32 values of its row at a time.

    The value must be computed in the store's block by elementwise ops,
    iotas, splats, splat constants and row broadcasts from whole-row loads
    (`tile.convert_layout` of a `ws.as_tensor` of a 128-row f32 tensor-memory
    buffer); other stores are left alone. The row reductions (max, sum) the
    broadcast row vectors are computed from, and other reductions of the
    same loaded rows, become passes over the chunks that combine partial
    results; sinks whose inputs are ready at the same place, with nothing
    between them that touches memory or is a ws op, share a pass
    (attention's softmax: one pass for the row maximum, one for P, its row
    sum and its store over S).

    The chunks read tensor memory later than the whole-row load did: a
    `ws.consumer_release` of a slot whose buffer a chunk reads, which the
    roles place after the whole-row load, moves after the slot's last read
    in its block.

    Runs in the sm_100a pipeline after `ws-partition-roles`.

    ```mlir
    // Before: the whole row loaded, the slot released, the row staged.
    %acc = ws.as_tensor %buffers : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tmem>
    %r = tile.convert_layout %acc : ... -> tensor<128x128xf32, #tmem_32x32b>
    ws.consumer_release %ch, %token by threads : ...
    %c = arith.truncf %r : ... to tensor<128x128xbf16, #tmem_32x32b>
    ws.store_shared %c, %stage : ...
    // After: per 32 columns a view, a load, the truncation and a store;
    // the release after the last load.
    %v0 = memref.subview %buffers[0, 0] [128, 32] [1, 1] : ...
    %a0 = ws.as_tensor %v0 : ... -> tensor<128x32xf32, #tmem_chunk>
    %r0 = tile.convert_layout %a0 : ... -> tensor<128x32xf32, #tmem_32x32b>
    %c0 = arith.truncf %r0 : ...
    %s0 = memref.subview %stage[0, 0] [128, 32] [1, 1] : ...
    ws.store_shared %c0, %s0 : ...
    ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::ws::WSDialect"];
}

def WSSchedulePingPong : Pass<"ws-schedule-ping-pong"> {
  let summary = "alternate the MMAs of consumer roles";
  let description = [{
    Ping-pong scheduling: when two or more roles of a `ws.warp_specialize`
    run dots and each issues asynchronous dots at the start of its main
    loop's body (attention's consumers), consumer i issues an iteration's
    dots only after consumer i-1 issued its own: `ws.barrier_sync` on its
    named barrier before its first dot, `ws.barrier_arrive` on the next
    one's after its last dot (2 x 128 threads each). One consumer's softmax
    so runs while the tensor cores work for the other. The named barriers
    follow those the roles use already.

    One turn token goes round the consumers: the last one opens the first
    turn at the role's start, and after its loop each consumer waits for
    its turn once more and hands it on, so the token is back at consumer 0
    when the next tile of a persistent kernel begins, whatever the loop's
    trip count; consumer 0 takes the last arrival at the role's end. A
    consumer so never arrives twice at a barrier without waiting in between
    (`ws-verify-protocol` checks that).

    Consumers that own separate work items (a ping-pong GEMM: each
    consumer's main loop marked `ws.turn` by `ws-assign-roles`) take turns
    over whole loops instead: consumer i waits for its turn before its
    loop and hands it on right after it, every time the loop is reached
    (also when it runs no iteration), so one consumer's epilogue (convert,
    staging and TMA store) runs while the other's MMAs do; the token goes
    round as above and the marks are removed. Turns are taken by two
    consumer roles with one marked loop each; any other mix of marked and
    unmarked consumers is an error. Kernels whose consumers issue
    synchronous dots in one shared loop (the cooperative GEMM) are left
    alone.

    ```mlir
    // consumer0, in its main loop:
    ws.barrier_sync 3 threads 256
    %s = tile.dot %q, %k, %zero {async, transpose_b} : ...
    ws.barrier_arrive 4 threads 256
    // consumer0 of a ping-pong GEMM, around its main loop:
    ws.barrier_sync 3 threads 256
    %acc = scf.for ... { ... tile.dot ... }
    ws.barrier_arrive 4 threads 256
    ```
  }];
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSStageInHeldSlots : Pass<"ws-stage-in-held-slots"> {
  let summary = "stage a role's TMA stores in a channel slot it holds";
  let description = [{
    A role that takes one slot of a channel per work item (attention's Q
    tile) and has read the slot's buffer before its epilogue stages its TMA
    stores in that buffer instead of a staging buffer of its own, when the
    buffer has the staging buffer's type and no other role reads or stages
    in it; it then keeps the slot until its last TMA store has read it
    (the release moves after a `ws.tma_store_wait`). Attention's O goes
    into its Q tile this way, which is what lets head dim 256 fit in shared
    memory. Staging buffers no role uses any more are erased.

    ```mlir
    // Before: O staged in a buffer of its own, Q's slot released after the loop.
    %stage = ws.buffer_alloc : memref<128x128xbf16, 3>
    // After: O staged in the Q slot's buffer, released after the store.
    ws.store_shared %o, %q_buffers#0 : ...
    ws.tma_store %O[...], %q_buffers#0 : ...
    ws.tma_store_wait
    ws.consumer_release %q, %token by threads : ...
    ```
  }];
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSInsertMBarriers : Pass<"ws-insert-mbarriers"> {
  let summary = "turn channels into buffer rings with full/empty mbarriers";
  let description = [{
    First it proves the protocol of every `ws.warp_specialize` that
    `ws-verify-protocol` has not marked (`ws.protocol_verified`), with that
    pass's check: a hand-written chain that leaves the check out still gets
    it, and a broken protocol (wrong `tx_bytes`, a slot committed twice or
    on one branch only, trip counts or slot counts that differ between the
    roles) is an error here instead of a hang in the kernel
    (docs/Conventions.md; `verify-protocol=false` turns this off for IR
    that is not a whole protocol). Then it rewrites every `ws.channel` into
    explicit rings:

    - one `ws.buffer_alloc` per slot buffer, with a leading stage dimension;
    - a "full" and an "empty" `ws.mbarrier_alloc` with one barrier per
      stage. The full barrier expects one arrival per producer role that
      commits by TMA or tcgen05 and one per thread of a role that commits by
      threads or wgmma; the empty barrier likewise for the releasing roles.

    In every role, the stage and phase of each channel side are carried as
    `i32` loop values (`scf.for` iteration arguments, `scf.if` results):
    `ws.producer_acquire` waits on the empty barrier with the inverted phase,
    `ws.consumer_wait` on the full barrier, and both advance the stage,
    flipping the phase when it wraps. Commits and releases become arrivals
    (by the role's leader with the expected TMA bytes, or by every thread
    after a `ws.fence_async_shared` when ordinary stores filled the slot),
    and `ws.tma_load` becomes `ws.tma_load_mbarrier` on the slot's full
    barrier. Every `ws.mbarrier_wait` it creates says which ring and channel
    it waits on, in the discardable attributes `ws.ring` (`"full"` or
    `"empty"`) and `ws.channel` (the channel's index among the channels of
    its kernel, in program order): `ws-verify-phases` and the hang reports
    of `ws-insert-hang-reports` read them.

    In a 2-CTA kernel (`ws.cta_pair` on the function) every producer drains
    the rings it fills before its role ends: after its last acquire, one
    wait per stage on the empty barrier (marked `ws.drain`), from the stage
    it would take next with the parity an acquire there would use, and
    nothing loaded. The role ends only once the consumers have released
    every slot, so that no CTA of the pair exits while the other's
    tcgen05 commits are still to arrive on its barriers or its shared
    memory is still to be read. A TMA multicast kernel (`ws.multicast`)
    drains the same way, for the other CTA's copies and commits. Other
    kernels do not drain: their asynchronous arrivals target their own CTA
    only.

    A channel filled by a `ws.tma_load ... multicast` holds data of both
    CTAs of the cluster in each slot, which is free again only once both
    have released it: its empty barriers expect twice the releasing roles'
    arrivals, its releases (which must be by tcgen05) become `ws.mbarrier_arrive
    ... tcgen05 multicast` (a commit that arrives in both CTAs), and its
    copies `ws.tma_load_mbarrier ... multicast`.

    Before:
    ```mlir
    %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    ...
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<...>
      ws.tma_load %desc[%r, %c], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ws.channel<...>
    ```
    After:
    ```mlir
    %ring = ws.buffer_alloc : memref<2x128x64xbf16, 3>
    %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
    %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
    ...
      ws.mbarrier_wait %empty[%stage], %not_phase {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
      %buf = ws.slot %ring[%stage] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
      ws.tma_load_mbarrier %desc[%r, %c], %buf, %full[%stage] : ...
      ws.mbarrier_arrive %full[%stage] leader tx_bytes 16384 : !ws.mbarrier<2>
    ```
  }];
  let options = [
    Option<"verifyProtocol", "verify-protocol", "bool", "true",
           "Prove the protocol of each ws.warp_specialize that "
           "ws-verify-protocol has not marked; off only for IR that is not a "
           "whole protocol (unit tests of this pass)">
  ];
  let dependentDialects = ["::mlir::ws::WSDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def WSAllocateTMEM : Pass<"ws-allocate-tmem"> {
  let summary = "assign tensor-memory columns and allocate TMEM once per CTA (sm100)";
  let description = [{
    For every kernel with `ws.tmem_buffer` ops (tensor-memory rings, from
    `ws-insert-mbarriers` or written by hand):

    - **Columns by liveness.** A buffer is live from the first to the last
      op of the kernel's body that uses it (or contains a use: all roles of
      a `ws.warp_specialize` run together, so a buffer used in one of them
      is live for the whole op). Buffers are placed in order of their first
      use at the lowest column, a multiple of 32, where they overlap no
      buffer live at the same time: buffers with disjoint lifetimes share
      columns. A buffer takes its stages times its slot columns (32-bit
      elements one column each, 16-bit ones two to a column, per 128 lanes).
    - **Aliases.** A buffer that `aliases` another (attention's P over S)
      takes the other's columns, stage by stage, and none of its own.
    - **One allocation.** The CTA allocates the smallest power of two of at
      least 32 columns that holds every buffer: `ws.tmem_alloc` (into a
      one-word `ws.buffer_alloc` that carries the address to all threads)
      and `ws.tmem_relinquish` at the start of the kernel, `ws.tmem_dealloc`
      before it returns; the lowering has one warp issue them. Each buffer
      gets `base` (the allocation) and `column`.
    - **The limit.** A kernel whose buffers need more than the 512 columns
      of an SM fails with an error at the buffer that does not fit, naming
      it and the buffers live beside it with their columns.

    ```mlir
    %s = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
    %p = ws.tmem_buffer aliases %s : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
    %o = ws.tmem_buffer : memref<128x128xf32, #ws.tmem>
    ```
    becomes
    ```mlir
    %slot = ws.buffer_alloc : memref<1xi32, 3>
    %tmem = ws.tmem_alloc columns 512 in %slot : memref<1xi32, 3>
    ws.tmem_relinquish
    %s = ws.tmem_buffer base %tmem column 0 : memref<2x128x128xf32, #ws.tmem>
    %p = ws.tmem_buffer aliases %s base %tmem column 0 : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
    %o = ws.tmem_buffer base %tmem column 256 : memref<128x128xf32, #ws.tmem>
    ...
    ws.tmem_dealloc %tmem columns 512 : i32
    ```

    Error example:
    ```
    error: tensor memory: this buffer needs 256 columns but only 0 of the 512 are free while it is live; live with it: buffer at k.mlir:3:8 (columns 0-255), buffer at k.mlir:4:8 (columns 256-511)
    ```
  }];
}

def WSAllocateSMEM : Pass<"ws-allocate-smem"> {
  let summary = "give every shared-memory buffer and mbarrier a static offset";
  let description = [{
    Assigns the `offset` of every `ws.buffer_alloc` (1024-byte aligned, as
    128-byte swizzling requires) and `ws.mbarrier_alloc` (8-byte aligned) in
    each kernel that lacks one, after the offsets already given, and records
    the kernel's dynamic shared memory in bytes as `ws.smem_bytes` on the
    function. Fails, naming the sizes, when the kernel needs more than the
    target allows per CTA (`max-bytes`, 232448 on sm_90a and sm_100a).

    ```mlir
    %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
    %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t",
           "::mlir::fmha::limits::kMaxSharedMemoryBytes",
           "Dynamic shared memory available to one CTA, in bytes (232448)">
  ];
  // The ws attributes it reads and writes (WSDialect.td).
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSAllocateRegisters : Pass<"ws-allocate-registers"> {
  let summary = "assign warp ranges and register budgets to roles";
  let description = [{
    Gives each `ws.role` without one a `first_warp`: roles of whole
    warpgroups start on a warpgroup boundary, smaller roles are packed into
    the first warpgroup of small roles with room for them and the same
    register budget (fp8 attention's three transposer warps beside the
    producer's one), else into the warpgroup in hand. When any role has a register budget, the CTA is
    rounded up to whole warpgroups (setmaxnreg acts on a warpgroup), and
    roles sharing a warpgroup must share the budget. Records the CTA size
    as `ws.num_threads` on the function and checks that the budgets fit the
    65536 registers of an SM.

    ```mlir
    ws.role "producer" warps 1 regs 40 first_warp 0 { ... }
    ws.role "consumer" warps 4 regs 232 first_warp 4 { ... }
    ```
  }];
  // The ws attributes it reads and writes (WSDialect.td).
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSVerifyProtocol : Pass<"ws-verify-protocol"> {
  let summary = "prove the channel and barrier protocol of warp-specialized kernels";
  let description = [{
    Checks that the roles of every `ws.warp_specialize` follow the channel
    and named-barrier protocol, and reports each violation as an error at
    the offending op, naming the channel (as the printer numbers it: `%0`,
    `%arg1`) and the roles. It changes nothing but marking each op it proved
    with the unit attribute `ws.protocol_verified`; `ws-insert-mbarriers`
    runs the same check on ops without the mark.
    Assumptions: all threads of a role take the same path, and every
    producer role and every consumer role of a channel takes every slot
    (the arrival counts of ws-insert-mbarriers).

    1. **Tokens.** The token of each `ws.producer_acquire` is committed,
       and that of each `ws.consumer_wait` released, exactly once on every
       path through `scf.if`: never, twice, or on only one branch are
       errors. A token used in an `scf.for` it was not taken in would be
       signalled once per iteration, and a token used by anything but its
       commit or release and `ws.tma_load` (an `scf.yield` carrying it out
       of its region, an `scf.for` init) escapes: both are errors. Channel
       ops may only be enclosed in `scf.for` and `scf.if` within a role.
    2. **Trip counts.** For each channel, every role that takes its slots
       must do so in the same structure: the same sequence of takes and
       `scf.for` loops, the same number of takes per iteration, and loops
       with the same bounds. Bounds match when they are the same value
       defined above the `ws.warp_specialize`, equal constants, induction
       variables of matching enclosing loops, or the same side-effect-free
       `arith` or grid-level `gpu` (`gpu.block_id`, `gpu.grid_dim`, ...)
       computation of such values; loops with constant bounds match when
       their trip counts are equal. Takes under an `scf.if` need a matching
       `scf.if` on a matching condition in every role, unless both of its
       branches take alike (it is then transparent); otherwise the pass
       cannot prove that the roles take the same number of slots.
    3. **Arrivals.** A channel has a producer and a consumer role, and no
       role is both. A role commits (releases) a channel by a single async
       unit, which fixes its barrier's arrival count. A commit `by tma`
       expects in `tx_bytes` exactly the bytes of the `ws.tma_load`s into
       its slot on every path (a load in an `scf.for` of constant trip
       count counts once per iteration; of unknown trip count, it cannot be
       checked and is an error); a slot filled by `ws.tma_load` must be
       committed by tma.
    4. **Deadlock.** When 1 to 3 and 5 hold, the roles are simulated
       together on their channel and barrier ops: an acquire of a slot
       waits until every consumer role released the slot `stages` takes
       earlier, a wait until every producer role committed the slot, and a
       `ws.barrier_sync` until the phase it arrived in completes. Every
       `scf.for` runs min(trip count, 2 * S + 2) iterations, with S the
       largest `stages` of the kernel's channels, and 2 * S + 2 when its
       trip count is not a constant: long enough for rings to fill and
       wrap twice, and the same in every role, since matching loops have
       matching bounds. The simulation runs once with every `scf.if`
       condition true and once with every condition false. A state in
       which no unfinished role can go on is a deadlock: the error names
       each blocked role, the op it waits at, and the roles it waits for.
       Deadlocks after more iterations or under other combinations of
       conditions are not found; kernels whose barrier ops sit in other
       region ops are not simulated, nor, with a warning, kernels that
       would unroll to over 2^20 events per role or 2^22 events and loop
       iterations in all (loops nested in loops, their events in branches
       not taken, are visited without adding events).
    5. **Named barriers.** All `ws.barrier_sync` and `ws.barrier_arrive`
       ops of one id agree on `threads`, and the threads of the roles using
       the id add up to it. A role never arrives at a barrier twice without
       a `ws.barrier_sync` between, on a barrier other roles use too, on
       any path: `scf.for` loops of unknown trip count taken zero times or
       any number of times, both branches of each `scf.if`. A generation
       completes when `threads` threads have arrived, whichever they are,
       so a role that arrives twice (`bar.arrive` does not block) can
       complete one alone and leave the roles that wait there blocked
       forever; the simulation of 4 runs each loop a fixed number of times
       and misses paths such as a pipelined loop of no iteration inside a
       loop over tiles.

    Examples of errors:
    ```
    channel %0: token of ws.producer_acquire in role 'producer' is committed on only one branch of scf.if
    channel %0: role 'producer' takes 2 slots per iteration of the loop at 12:7, role 'consumer' takes 1
    channel %0: trip counts differ: role 'producer' runs the loop at 12:7 from 0 to %arg2 step 1, role 'consumer' runs the loop at 20:7 from 0 to %arg3 step 1
    channel %0: role 'producer' commits 16384 bytes but its TMA loads deliver 32768
    deadlock: role 'a' waits at ws.consumer_wait of channel %0 (14:20) for role 'b' to commit slot #1; role 'b' waits at ws.consumer_wait of channel %1 (24:20) for role 'a' to commit slot #1 (simulating up to 4 iterations per loop)
    named barrier 1 expects 256 threads but roles 'consumer0' (128) use it
    named barrier 3: the role may arrive here again without waiting at a named barrier shared with another role since its arrival at 31:9; two arrivals of one role can complete a generation alone and leave the roles that wait there blocked
    ```
  }];
  // The ws attributes it reads and writes (WSDialect.td).
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSVerifyPhases : Pass<"ws-verify-phases"> {
  let summary = "model-check the stage and phase arithmetic of mbarrier rings";
  let description = [{
    Marks each op it checked with the unit attribute `ws.phases_verified`
    (`ws-lower-roles` runs the same check on ops without it) and
    otherwise changes nothing. It checks the explicit rings of every
    `ws.warp_specialize` (the output of `ws-insert-mbarriers`, or rings
    written by hand with `ws.mbarrier_alloc`, `ws.mbarrier_wait`,
    `ws.mbarrier_arrive` and `ws.tma_load_mbarrier`) by a bounded model
    check: it interprets each role for concrete trip counts and simulates
    the mbarriers for all roles together.

    **Interpreting a role.** The role's ops run in order: integer `arith`
    ops on known values (constants, values computed from constants above
    the roles, induction variables, loop-carried stages and phases),
    `scf.for` and `scf.if`, and the mbarrier ops, which record a wait
    (barrier, stage, parity), an arrival (the role's threads, or 1 with
    `leader`; `tx_bytes` expected) or a TMA completion (the buffer's bytes).
    Every other op yields unknown values. A loop whose trip count cannot be
    computed (its bounds depend on kernel arguments, block ids, ...) runs
    the trial's trip count T; an `scf.if` holding mbarrier ops on an unknown
    condition (say, on `ws.thread_id`) takes its then branch, and in a
    second run its else branch. A stage or parity that depends on an
    unknown value is an error, `cannot interpret 'memref.load' at 12:9,
    which the stage of this 'ws.mbarrier_wait' in role 'consumer' depends
    on`; so is an mbarrier op inside any other region op.

    **Simulating the barriers.** Each barrier starts with its
    `ws.mbarrier_alloc` arrival count pending in phase 0. An arrival
    subtracts its count (and adds its expected bytes); a TMA copy
    delivers its bytes; the phase completes when no arrival and no byte is
    pending. A wait with parity p passes when the barrier's current phase
    parity differs from p, as `mbarrier.try_wait.parity` does. Roles run in
    turn, each as far as it can. Errors, each naming the ring and the role:

    - **deadlock**: no unfinished role can go on; the error, at the first
      blocked wait, lists every blocked role with its barrier, parity and
      the barrier's completed phases and arrivals;
    - **a wait passes on the wrong phase**: the n-th wait of a role on a
      full barrier must pass with exactly n phases completed, on an empty
      barrier with n - 1 (producers pass their first round at once); a
      wait that passes earlier reads a slot before it is filled (or refills
      it before it is read), one that passes later skipped a phase;
    - **arrival overflow**: an arrival larger than what is left of the
      current phase (the arrival count is too small);
    - **an unfinished phase** when all roles have finished (the arrival
      count is too large, or the bytes do not match), reported at the
      `ws.mbarrier_alloc`;
    - a stage outside the barrier array, a parity other than 0 or 1.

    **Clusters.** A kernel marked `ws.multicast` runs in clusters of two
    CTAs that run the same program: the roles are simulated twice, once per
    CTA, each copy on its own barriers, and a `multicast` arrival (a
    tcgen05 commit to both CTAs) or TMA copy (each CTA's half of the block,
    so half the buffer's bytes) reaches the barrier in both. Errors then
    name the CTA (`role 'load' of CTA 1`).

    Which side of a ring a barrier array is comes from the `ws.ring`
    attribute (`"full"` or `"empty"`) that `ws-insert-mbarriers` puts on
    its waits, with the channel's index as `ws.channel`. Without it, an
    array that TMA copies or `tx_bytes` arrivals complete is full, and an
    array waited on only by roles that fill full arrays is empty; waits on
    other arrays are checked for deadlocks, overflows and unfinished
    phases only.

    **The bound.** With S the largest number of barriers of an array
    (stages, at most 32 counted), the trials run T = 1, 2, ..., 2 * S + 3:
    enough for every ring to fill, wrap and flip its phase twice, so that
    off-by-one errors at the wrap or the flip show. Loops with computable
    trip counts run them in full (loops without mbarrier ops up to 4096
    iterations; beyond, their results are unknown). Errors that need more
    iterations of a loop of unknown trip count, another schedule of the
    roles, or mixed outcomes of unknown conditions are not found. A role
    that would run over 2^20 ops in one trial, and barrier arrays shared
    with another `ws.warp_specialize`, are not checked (a warning says so).
    All trials of one `ws.warp_specialize` together interpret at most 2^20
    ops: the work grows with the cube of S for a loop nested in a loop to
    the outer induction variable, and with each further level of such
    nesting; when the trials run out of it, the warning names the trip
    count checked up to.
    Assumptions: all threads of a role take the same path, and every role
    that waits on a barrier waits once per phase.

    Examples of errors:
    ```
    deadlock: role 'producer' waits here forever on empty[0] of channel 0 for parity 0 (0 phases completed, 0 of 128 arrivals in the current one); role 'consumer' waits at 31:11 forever on full[0] of channel 0 for parity 0 (0 phases completed, 0 of 1 arrivals in the current one) (simulating loops of unknown trip count with 1 iteration)
    role 'consumer' passes this wait on full[1] of channel 0 too early: its 1st wait on this full barrier needs 1 completed phase, but 0 have completed (it waits for parity 1) (simulating loops of unknown trip count with 2 iterations)
    role 'consumer' arrives 128 times on empty[0] of channel 0, more than the 64 arrivals left in its current phase (it counts 64 per phase): the barrier would complete a phase early
    ```
  }];
  // The ws attributes it reads and writes (WSDialect.td).
  let dependentDialects = ["::mlir::ws::WSDialect"];
}

def WSInsertHangReports : Pass<"ws-insert-hang-reports"> {
  let summary = "give every mbarrier wait a hang report and a timeout";
  let description = [{
    A debug build: `convert-ws-to-nvvm` then lowers every
    `ws.mbarrier_wait` of each `gpu.module` to a bounded loop of single
    `mbarrier.try_wait.parity` tries (`nvvm.mbarrier.try_wait`, which may
    return without completion) instead of a wait that spins forever. When a
    wait has not completed `wait-timeout` microseconds (by `%globaltimer`)
    after its first failed try, each waiting thread prints one line with
    `vprintf` and executes `trap`, so the launch fails
    (`CUDA_ERROR_LAUNCH_FAILED` on an H200 with driver 580,
    `CUDA_ERROR_ILLEGAL_INSTRUCTION` on some drivers) instead of hanging,
    and the lines appear on the host's stdout:

    ```
    fmha: hang in role 'consumer': ws.mbarrier_wait at gemm.mlir:41:7 on the full barrier of channel 0, stage 1, phase parity 0, not completed after 1000000 us; thread 128, CTA (3, 0, 0)
    ```

    Run it before the roles are lowered: the role is the `ws.role` the wait
    is in; the ring and channel come from the `ws.ring` and `ws.channel`
    attributes that `ws-insert-mbarriers` puts on the waits it creates. A
    wait without them (a hand-written ring) names its barrier array by the
    location of its `ws.mbarrier_alloc`. The stage is the barrier's index in
    its array, the thread `%tid.x`, the CTA `%ctaid`: those are printed
    from their runtime values, the rest is part of the format.

    The pass declares `vprintf` in the `gpu.module` and adds one global
    `__fmha_hang_report_<n>` per wait with its format string; each wait
    names its format by `ws.hang_report` and carries the timeout as
    `ws.wait_timeout` (microseconds), and the `gpu.module` is marked
    `ws.hang_reports`: its replica roles stay apart, so that each report
    names its role. `wait-timeout=0` changes nothing. Do not time such kernels: the
    call makes ptxas serialize wgmmas in flight across the wait (C7510).

    ```mlir
    ws.mbarrier_wait %empty[%c0], %c1 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
    ```
    becomes, with `wait-timeout=1000`,
    ```mlir
    llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
    llvm.mlir.global internal constant @__fmha_hang_report_0("fmha: hang in role 'producer': ws.mbarrier_wait at k.mlir:9:11 on the empty barrier of channel 0, stage %u, phase parity %u, not completed after 1000 us; thread %u, CTA (%u, %u, %u)\0A\00")
    ...
    ws.mbarrier_wait %empty[%c0], %c1 {ws.channel = 0 : i32, ws.hang_report = @__fmha_hang_report_0, ws.ring = "empty", ws.wait_timeout = 1000 : i64} : !ws.mbarrier<2>
    ```
  }];
  let options = [
    Option<"waitTimeout", "wait-timeout", "unsigned", "1000000",
           "A ws.mbarrier_wait that has not completed after this many "
           "microseconds prints what it waits for and traps (0: no reports)">
  ];
  let dependentDialects = ["::mlir::ws::WSDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def WSLowerRoles : Pass<"ws-lower-roles"> {
  let summary = "lower ws.warp_specialize to a dispatch on the warp index";
  let description = [{
    Runs after `ws-allocate-registers` on the kernels of every
    `gpu.module` below the op it runs on, before `convert-ws-to-nvvm`.

    First it checks, before changing anything: it rejects a kernel that is
    both a CTA pair (`ws.cta_pair`) and a TMA multicast kernel
    (`ws.multicast`), a kernel with more than one `ws.warp_specialize` or
    one that does not stand directly in the kernel's body (the roles divide
    the kernel's warps once, from the register cap it starts with), and it
    model-checks the rings of every `ws.warp_specialize` that
    `ws-verify-phases` has not marked (`ws.phases_verified`) with that
    pass's check, so a hand-written chain gets it too (docs/Conventions.md;
    `verify-phases=false` turns this off for IR that is not a whole
    protocol). Then, in each kernel:

    - the warp index (`%tid.x / 32`, broadcast from lane 0 by `shfl.sync`
      so that ptxas sees it warp-uniform) selects each role's body, in
      `scf.if`s marked likely; every warpgroup first moves to its role's
      register budget with `setmaxnreg` (`inc` or `dec` from the cap the
      kernel starts with, which `nvvm.maxntid` and `nvvm.minctasm = 1` set
      so that ptxas honours it);
    - `ws.thread_id` becomes the thread's index in its role; leader
      operations (`leader` arrivals, TMA copies, MMAs) run under a test of
      the role's first thread (marked `ws.leader_guarded`, which their
      verifiers accept outside a `ws.role`), a `ws.tma_store` is
      predicated on it, and a multicast arrival by threads is made by each
      warp's first lane; a role issuing a CTA pair's MMAs runs in the
      pair's even CTA only;
    - when the kernel allocates mbarriers (thread 0 initialises them in
      `convert-ws-to-nvvm`), `fence.mbarrier_init` and a CTA barrier
      precede the roles;
    - a kernel of CTA pairs (`ws.cta_pair`) or TMA multicast
      (`ws.multicast`) runs in clusters of two CTAs (`nvvm.cluster_dim`):
      the cluster meets (`barrier.cluster.arrive/wait`) after the barrier
      initialisation, so no CTA signals the other's barriers before they
      exist, and a multicast kernel meets again after the roles, so none
      signals them after the other exited;
    - replica roles (`replica-roles`, on by default): roles of the same
      size and register budget that follow each other in the warp space and
      differ only in values (the consumer roles partitioning clones per
      tile: their rows, their staging buffers, their named barriers) run one
      copy of the code. The bodies are lined up op by op (a longest common
      subsequence per block); a differing operand becomes a select on the
      replica index ((warp - first warp) / warps, warp-uniform), a named
      barrier whose id differs takes it from such a select (ptxas then
      reserves all 16 barriers: fine for the one CTA per SM these kernels
      run), an op with effects that only some replicas have runs under a
      test of the index, and a pure op only some have runs in all. Roles
      that do not line up this way stay apart, and so do the roles of a
      kernel with hang reports (`ws-insert-hang-reports`), so that each
      report names its role. One copy halves the code the consumers run
      from the instruction cache.

    ```mlir
    gpu.func @k() kernel attributes {ws.num_threads = 256 : i64} {
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 { ... }
        ws.role "consumer" warps 4 regs 232 first_warp 4 { ... }
      }
      gpu.return
    }
    ```
    becomes
    ```mlir
    gpu.func @k() kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32, ws.num_threads = 256 : i64} {
      %tid = arith.index_cast %thread_id_x : index to i32
      %warp = nvvm.shfl.sync idx %mask, %tid_div_32, %c0, %c31 : i32 -> i32
      %group = arith.divui %warp, %c4 : i32
      scf.if %in_group_0_likely {
        nvvm.setmaxregister decrease 40
        scf.if %in_producer_likely { ... }
      }
      scf.if %in_group_1_likely {
        nvvm.setmaxregister increase 232
        scf.if %in_consumer_likely { ... }
      }
      gpu.return
    }
    ```
  }];
  let options = [
    Option<"replicaRoles", "replica-roles", "bool", "true",
           "Lower roles that differ only in values (a kernel's consumer "
           "roles) as one copy of code, parameterised by the replica index">,
    Option<"verifyPhases", "verify-phases", "bool", "true",
           "Model-check the rings of each ws.warp_specialize that "
           "ws-verify-phases has not marked; off only for IR that is not a "
           "whole protocol (unit tests of the lowering, a deliberately "
           "broken kernel)">
  ];
  let dependentDialects = ["::mlir::ws::WSDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def WSLowerCtaPairs : Pass<"ws-lower-cta-pairs"> {
  let summary = "place the barriers of a CTA pair and mark its ops";
  let description = [{
    Runs after `ws-lower-roles` and before `convert-ws-to-nvvm`, on the
    kernels of CTA pairs (`ws.cta_pair`, 2-CTA mode: a cluster of two CTAs
    whose even CTA issues each MMA for both with `tcgen05.mma.cta_group::2`)
    of every `gpu.module` below the op it runs on; other kernels are left
    as they are. It rejects a kernel whose roles are not lowered yet
    (`ws-lower-roles` reads the kernel's `ws.cta_pair` to set up the
    cluster; this pass consumes it).

    The pair's MMA warp, in the even CTA, alone waits on the barriers that
    the two CTAs' threads and TMA copies arrive on: those barriers live in
    the even CTA and expect the arrivals of both CTAs, so their arrival
    count doubles. Barriers that `tcgen05.commit`s arrive on live in both
    CTAs (the commit multicasts) and keep their count; a barrier arrived on
    both ways has no place and is an error. The barrier arrays are followed
    through the `arith.select`s by which `ws-lower-roles` picks a replica
    role's barriers (replica roles of a pair kernel arrive on both arrays
    of a select).

    The ops whose lowering changes are marked `ws.cta_pair` for
    `convert-ws-to-nvvm`: arrivals by threads and TMA copies (they reach
    the even CTA's barrier, at cluster scope; a copy lands in this CTA's
    buffer with `.cta_group::2`), `tcgen05` commits (`.cta_group::2`,
    multicast to both CTAs), and `ws.tmem_alloc`, `ws.tmem_relinquish` and
    `ws.tmem_dealloc` (`.cta_group::2`: one warp of each CTA allocates and
    frees together). The kernel's `ws.cta_pair` is removed:
    `convert-ws-to-nvvm` rejects a kernel that still carries it.

    ```mlir
    gpu.func @k(...) kernel attributes {ws.cta_pair, ...} {
      %full = ws.mbarrier_alloc arrivals 1 offset 82944 : !ws.mbarrier<1>
      %done = ws.mbarrier_alloc arrivals 1 offset 82952 : !ws.mbarrier<1>
      ...
      ws.tma_load_mbarrier %desc[%c0, %c0], %abuf, %full[%c0] {ws.leader_guarded} : ...
      ws.mbarrier_arrive %done[%c0] leader tcgen05 {ws.leader_guarded} : !ws.mbarrier<1>
    }
    ```
    becomes
    ```mlir
    gpu.func @k(...) kernel attributes {...} {
      %full = ws.mbarrier_alloc arrivals 2 offset 82944 : !ws.mbarrier<1>
      %done = ws.mbarrier_alloc arrivals 1 offset 82952 : !ws.mbarrier<1>
      ...
      ws.tma_load_mbarrier %desc[%c0, %c0], %abuf, %full[%c0] {ws.cta_pair, ws.leader_guarded} : ...
      ws.mbarrier_arrive %done[%c0] leader tcgen05 {ws.cta_pair, ws.leader_guarded} : !ws.mbarrier<1>
    }
    ```
  }];
}

#endif // FMHA_DIALECT_WS_TRANSFORMS_PASSES_TD
