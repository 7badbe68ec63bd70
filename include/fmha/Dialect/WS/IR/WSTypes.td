#ifndef FMHA_DIALECT_WS_IR_WSTYPES_TD
#define FMHA_DIALECT_WS_IR_WSTYPES_TD

include "fmha/Dialect/WS/IR/WSDialect.td"

def WS_ChannelType : WS_Type<"Channel", "channel"> {
  let summary = "a multi-stage ring of shared- or tensor-memory buffers";
  let description = [{
    A channel carries data from a producer role to one or more consumer
    roles through `stages` slots. Each slot holds one buffer of each type in
    `buffers` (for example an A tile and a B tile that one TMA transaction
    fills together). Buffers live in shared memory (memory space 3 or
    `#gpu.address_space<workgroup>`) or in tensor memory (`#ws.tmem`); all
    buffers of a channel live in the same memory.

    ```mlir
    !ws.channel<[memref<128x64xbf16, 3>, memref<256x64xbf16, 3>], stages = 4>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"MemRefType", "slot buffers">:$buffers,
                        "unsigned":$stages);
  let assemblyFormat = "`<` `[` $buffers `]` `,` `stages` `=` $stages `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when the buffers live in tensor memory rather than shared memory.
    bool isTensorMemory() const;
    /// Bytes of one slot (all its buffers).
    int64_t getSlotBytes() const;
  }];
}

def WS_TokenType : WS_Type<"Token", "token"> {
  let summary = "a slot of a channel held by a producer or a consumer";
  let description = [{
    Returned by `ws.producer_acquire` and `ws.consumer_wait`; handed back by
    `ws.producer_commit` and `ws.consumer_release`. Asynchronous copies into
    the slot (`ws.tma_load`) name the token, so they complete on its barrier.

    ```mlir
    %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
    ```
  }];
}

def WS_MBarrierType : WS_Type<"MBarrier", "mbarrier"> {
  let summary = "an array of mbarriers in shared memory";
  let description = [{
    `count` consecutive 8-byte mbarrier objects in shared memory, one per
    stage of a ring. Produced by `ws-insert-mbarriers`.

    ```mlir
    %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<4>
    ```
  }];
  let parameters = (ins "unsigned":$count);
  let assemblyFormat = "`<` $count `>`";
  let genVerifyDecl = 1;
}

#endif // FMHA_DIALECT_WS_IR_WSTYPES_TD
