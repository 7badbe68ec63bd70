#ifndef FMHA_DIALECT_WS_IR_WSDIALECT_TD
#define FMHA_DIALECT_WS_IR_WSDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def WS_Dialect : Dialect {
  let name = "ws";
  let cppNamespace = "::mlir::ws";
  let summary = "Warp specialization: roles, channels and barriers, who computes concurrently.";
  let description = [{
    The `ws` dialect makes the producer/consumer protocol between the warp
    roles of a kernel explicit, so that passes can build it, check it and
    lower it to mbarriers, TMA, wgmma/tcgen05 and TMEM.

    At the high level a kernel is a `ws.warp_specialize` op with one
    `ws.role` region per role (name, warp count, register budget). Roles talk
    through `ws.channel`s: typed, multi-stage rings of shared- or
    tensor-memory buffers. A producer takes an empty slot with
    `ws.producer_acquire` and hands it over with `ws.producer_commit`; a
    consumer takes a full slot with `ws.consumer_wait` and gives it back with
    `ws.consumer_release`. Commits and releases name the asynchronous unit
    that completes them (plain threads, TMA with its byte count, wgmma or
    tcgen05), because that decides how the barrier is signalled. Named
    barriers (`ws.barrier_sync`, `ws.barrier_arrive`) order roles directly.

    `ws-insert-mbarriers` rewrites channels into explicit rings: a buffer
    allocation, "full" and "empty" mbarrier arrays, and mbarrier waits and
    arrivals whose stage and phase are carried as loop values.
    `ws-allocate-smem` gives every buffer and barrier a static shared-memory
    offset, `ws-allocate-registers` assigns warp ranges and register budgets,
    and `convert-ws-to-nvvm` lowers the result to NVVM.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
}

class WS_Op<string mnemonic, list<Trait> traits = []>
    : Op<WS_Dialect, mnemonic, traits>;
class WS_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<WS_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}
class WS_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<WS_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FMHA_DIALECT_WS_IR_WSDIALECT_TD
