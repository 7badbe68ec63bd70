//===- WSInterfaces.td - Interfaces of the ws dialect ------*- tablegen -*-===//
//
// Part of fmha. The op interfaces through which the ws checkers
// (ws-verify-protocol, ws-verify-phases) and passes recognise the ops of a
// protocol: the four ends of a channel, the ops on an mbarrier of an array,
// and the named-barrier ops. A new op of one of these kinds implements the
// interface and the checkers see it, without lists of ops to extend.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_IR_WSINTERFACES_TD
#define FMHA_DIALECT_WS_IR_WSINTERFACES_TD

include "mlir/IR/OpBase.td"

def WS_ChannelEndOpInterface : OpInterface<"ChannelEndOpInterface"> {
  let cppNamespace = "::mlir::ws";
  let description = [{
    One end of the protocol of a channel (`ws.channel`): a producer takes an
    empty slot (`ws.producer_acquire`) and signals it full
    (`ws.producer_commit`); a consumer takes a full slot (`ws.consumer_wait`)
    and signals it empty (`ws.consumer_release`). A take returns the slot's
    token as its first result; a signal names the token of the slot it
    signals. ws-verify-protocol checks, through this interface, that every
    token is signalled once on every path, that the roles of a channel take
    its slots alike, and that the roles cannot deadlock.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The channel whose slot the op takes or signals.",
      /*retTy=*/"::mlir::Value", /*methodName=*/"getChannel", /*args=*/(ins),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return $_op.getChannel();
      }]>,
    InterfaceMethod<
      /*desc=*/[{True on the producer side (acquire, commit), false on the
                 consumer side (wait, release).}],
      /*retTy=*/"bool", /*methodName=*/"isProducerEnd", /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{True for a take (acquire, wait), which blocks until a slot
                 is free for its side; false for a signal (commit, release),
                 which does not block.}],
      /*retTy=*/"bool", /*methodName=*/"isTake", /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{The token of the slot: the first result of a take, the
                 token operand of a signal.}],
      /*retTy=*/"::mlir::Value", /*methodName=*/"getSlotToken", /*args=*/(ins)>
  ];
}

def WS_MBarrierOpInterface : OpInterface<"MBarrierOpInterface"> {
  let cppNamespace = "::mlir::ws";
  let description = [{
    An op on one mbarrier of an array (`!ws.mbarrier<N>`): it waits for a
    phase (`ws.mbarrier_wait`), arrives (`ws.mbarrier_arrive`), or starts a
    copy that completes transaction bytes on it (`ws.tma_load_mbarrier`).
    ws-verify-phases interprets these ops to model-check the rings' stage
    and phase arithmetic.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The mbarrier array.",
      /*retTy=*/"::mlir::Value", /*methodName=*/"getBarriers", /*args=*/(ins),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return $_op.getBarriers();
      }]>,
    InterfaceMethod<
      /*desc=*/"The index of the barrier in the array (an i32).",
      /*retTy=*/"::mlir::Value", /*methodName=*/"getIndex", /*args=*/(ins),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return $_op.getIndex();
      }]>
  ];
}

def WS_NamedBarrierOpInterface : OpInterface<"NamedBarrierOpInterface"> {
  let cppNamespace = "::mlir::ws";
  let description = [{
    An op on a named barrier (`bar.sync` / `bar.arrive`): the executing
    warps count towards barrier `id` (1 to 15), which completes a
    generation when `threads` threads have arrived. `ws.barrier_sync` then
    waits for that generation; `ws.barrier_arrive` goes on at once.
    ws-verify-protocol checks through this interface that the roles using
    an id bring its thread count and cannot deadlock or complete a
    generation alone.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The barrier's id.",
      /*retTy=*/"uint32_t", /*methodName=*/"getId", /*args=*/(ins),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return $_op.getId();
      }]>,
    InterfaceMethod<
      /*desc=*/"The threads that complete one generation of the barrier.",
      /*retTy=*/"uint32_t", /*methodName=*/"getThreads", /*args=*/(ins),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return $_op.getThreads();
      }]>,
    InterfaceMethod<
      /*desc=*/[{True when the op waits for the generation it arrives in
                 (`bar.sync`), false when it only arrives (`bar.arrive`).}],
      /*retTy=*/"bool", /*methodName=*/"waits", /*args=*/(ins)>
  ];
}

#endif // FMHA_DIALECT_WS_IR_WSINTERFACES_TD
