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

    ### Discardable attributes

    Passes hand facts to later passes as `ws.*` attributes on kernels and
    ops. Each is declared here (C++ reads and writes them through the
    dialect's generated helpers, `WSDialect::CtaPairAttrHelper` and so on)
    and verified wherever it appears: its type, its range and the ops it
    may sit on; any other `ws.*` attribute is an error. (The role
    assignment's indices and counts depend on the kernel: `ws-partition-roles`
    checks them, `verifyRoleAssignment`.)

    | attribute | type | on | meaning |
    |---|---|---|---|
    | `ws.cta_pair` | unit | a kernel (function); the `ws.mbarrier_arrive`, `ws.tma_load_mbarrier` and `ws.tmem_*` ops of one | 2-CTA mode: the kernel runs in clusters of two CTAs that issue each MMA together (`tcgen05.mma.cta_group::2`); set by `fmha-expand-kernels` for `fmha.gemm ... ctas 2`. `convert-ws-to-nvvm` marks the ops whose lowering changes with it. |
    | `ws.multicast` | unit | a kernel | clusters of two CTAs along x run the same program and share blocks by TMA multicast (`fmha.gemm ... multicast 2`). |
    | `ws.leader_guarded` | unit | `ws.mbarrier_arrive ... leader`, `ws.tma_load_mbarrier`, `ws.tcgen05_mma` | `ws-lower-roles` put the op under a test of its role's first thread: outside its role it still runs in that thread alone. |
    | `ws.async_wgmma` | unit | `tile.dot` | `ws-insert-mbarriers` placed the waits of the dot's wgmmas (one iteration's wgmmas stay in flight into the next): `convert-ws-to-nvvm` adds no wait of its own. |
    | `ws.ring` | string, `"full"` or `"empty"` | `ws.mbarrier_wait` | which barrier of its ring a wait made by `ws-insert-mbarriers` waits on (diagnostics: `ws-verify-phases`, hang reports). |
    | `ws.channel` | integer >= 0 | `ws.mbarrier_wait` | the index of the wait's channel (diagnostics). |
    | `ws.drain` | unit | `ws.mbarrier_wait` | a wait of the producer's drain at the end of the kernel. |
    | `ws.hang_report` | symbol reference | `ws.mbarrier_wait` | the format string (a global of the gpu.module) that the bounded wait prints when it times out; set by `ws-insert-hang-reports`. |
    | `ws.wait_timeout` | integer >= 1 | `ws.mbarrier_wait` | microseconds after which that report is printed. |
    | `ws.hang_reports` | unit | `gpu.module` | `ws-insert-hang-reports` instrumented the module: its replica roles stay apart so that each report names its role. |
    | `ws.protocol_verified` | unit | `ws.warp_specialize` | `ws-verify-protocol` proved the op's channel and named-barrier protocol. |
    | `ws.phases_verified` | unit | `ws.warp_specialize` | `ws-verify-phases` checked the op's mbarrier rings. |
    | `ws.smem_bytes` | integer >= 0 | a kernel | the dynamic shared memory the kernel needs, set by `ws-allocate-smem`. |
    | `ws.roles` | array of `#ws.role_spec` | a kernel | the roles to split the tile program into (docs/Roles.md); ops name a role by its index. Written by `ws-assign-roles` or by hand, read by `ws-partition-roles`. |
    | `ws.channel_stages` | i32 array | a kernel | the slots of each channel, in channel order. |
    | `ws.partition` | i32 array | any op of a tile program | the roles that run the op. |
    | `ws.partition_outputs` | array of i32 arrays | `scf.for` | per loop-carried value, the roles that compute it. |
    | `ws.output_channels` | i32 array | `scf.for` | per loop-carried value, the channel whose slot holds it (a tensor-memory accumulator: the role computing it accumulates in the slot, the roles reading the loop's result wait for it), or -1. |
    | `ws.load_channel` | integer | `tile.load` | the channel whose slot the load fills. |
    | `ws.result_channel` | integer | any op of a tile program with one result | the channel whose slot the result goes through, from the one role that runs the op to the roles that read it. |
    | `ws.channel_aliases` | i32 array | a kernel | per channel, the channel whose buffers its buffers overlay, or -1. |
    | `ws.multicast_load` | unit | `tile.load` | in a `ws.multicast` kernel, the copy lands in both CTAs. |
    | `ws.turn` | unit | `scf.for` | the consumer role that runs the loop runs it whole as one turn: the roles whose main loops are marked take turns (`ws-schedule-ping-pong`, which removes the mark). Set by `ws-assign-roles` on the main loops of a program whose consumers own separate work items (a ping-pong GEMM). |
    | `ws.num_threads` | integer, a multiple of 32 from 32 to 1024 | a kernel | the threads of a CTA, set by `ws-allocate-registers`. |
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The ws dialect of `context`, whose generated helpers
    /// (`getCtaPairAttrHelper()`, ...) read and write the discardable
    /// attributes. It must be loaded: it is wherever ws ops are, and in
    /// every ws pass.
    static WSDialect &getLoaded(MLIRContext *context);

    /// Registers the types, next to their definitions (WSTypes.cpp).
    void registerTypes();
  }];
  // Declared above, in the description's table: keep the two in step.
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$cta_pair,
    "::mlir::UnitAttr":$multicast,
    "::mlir::UnitAttr":$leader_guarded,
    "::mlir::UnitAttr":$async_wgmma,
    "::mlir::StringAttr":$ring,
    "::mlir::IntegerAttr":$channel,
    "::mlir::UnitAttr":$drain,
    "::mlir::FlatSymbolRefAttr":$hang_report,
    "::mlir::IntegerAttr":$wait_timeout,
    "::mlir::UnitAttr":$hang_reports,
    "::mlir::UnitAttr":$protocol_verified,
    "::mlir::UnitAttr":$phases_verified,
    "::mlir::IntegerAttr":$smem_bytes,
    "::mlir::IntegerAttr":$num_threads,
    "::mlir::ArrayAttr":$roles,
    "::mlir::DenseI32ArrayAttr":$channel_stages,
    "::mlir::DenseI32ArrayAttr":$partition,
    "::mlir::ArrayAttr":$partition_outputs,
    "::mlir::DenseI32ArrayAttr":$output_channels,
    "::mlir::IntegerAttr":$load_channel,
    "::mlir::UnitAttr":$multicast_load,
    "::mlir::UnitAttr":$turn,
    "::mlir::IntegerAttr":$result_channel,
    "::mlir::DenseI32ArrayAttr":$channel_aliases
  );
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
