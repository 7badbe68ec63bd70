#ifndef FMHA_DIALECT_WS_IR_WSATTRS_TD
#define FMHA_DIALECT_WS_IR_WSATTRS_TD

include "fmha/Dialect/WS/IR/WSDialect.td"
include "mlir/IR/EnumAttr.td"

def WS_AsyncUnit : I32EnumAttr<"AsyncUnit",
    "the unit whose completion signals a channel slot", [
      I32EnumAttrCase<"Threads", 0, "threads">,
      I32EnumAttrCase<"TMA", 1, "tma">,
      I32EnumAttrCase<"WGMMA", 2, "wgmma">,
      I32EnumAttrCase<"TCGen05", 3, "tcgen05">
    ]> {
  let cppNamespace = "::mlir::ws";
  let genSpecializedAttr = 0;
}

def WS_AsyncUnitAttr : EnumAttr<WS_Dialect, WS_AsyncUnit, "async_unit"> {
  let summary = "which unit completes a commit or release";
  let description = [{
    Says who signals a channel slot and so how its barrier is arrived on:

    - `threads`: ordinary loads and stores by the role's threads; every
      thread of the role arrives.
    - `tma`: a Tensor Memory Accelerator copy; one thread arrives and sets
      the expected transaction byte count, the copy engine completes it.
    - `wgmma`: asynchronous Hopper warpgroup MMAs reading the slot; the role
      waits for them before arriving.
    - `tcgen05`: Blackwell tensor-core MMAs; `tcgen05.commit` arrives.

    In op syntax: `by tma`.
  }];
  let assemblyFormat = "$value";
}

def WS_TensorMemoryAttr : WS_Attr<"TensorMemory", "tmem"> {
  let summary = "the memory space of Blackwell tensor memory (TMEM)";
  let description = [{
    Used as the memory space of a memref that lives in tensor memory: 128
    lanes by 512 columns of 32-bit cells per SM, allocated with
    `tcgen05.alloc`.

    ```mlir
    !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
    ```
  }];
}

def WS_RoleSpecAttr : WS_Attr<"RoleSpec", "role_spec"> {
  let summary = "a warp role a kernel is to be split into";
  let description = [{
    One entry of a kernel's `ws.roles` list, which `ws-assign-roles` writes
    and `ws-partition-roles` materialises: the name of the `ws.role` to
    create, its number of warps and its register budget (`setmaxnreg`; 0 for
    none: the role keeps the registers ptxas gives the kernel, and the
    kernel gets no register cap at entry, as a kernel of one role wants). The
    ops of the tile program name roles by their index in the list
    (`ws.partition`), see docs/Roles.md.

    ```mlir
    func.func @gemm(...) attributes {ws.roles = [
        #ws.role_spec<"producer", warps = 1, regs = 40>,
        #ws.role_spec<"consumer0", warps = 4, regs = 232>]} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"the role's name">:$name,
                        "int32_t":$warps, "int32_t":$regs);
  let assemblyFormat = "`<` $name `,` `warps` `=` $warps `,` `regs` `=` $regs `>`";
  let genVerifyDecl = 1;
}

#endif // FMHA_DIALECT_WS_IR_WSATTRS_TD
