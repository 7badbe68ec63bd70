//===- DiscardableAttrs.cpp - Verifier of the ws.* attributes -------------===//
//
// Part of fmha. Checks each discardable attribute of the ws dialect
// (WSDialect.td, "Discardable attributes") wherever it appears: its type,
// its range and the ops it may sit on. Any other `ws.*` attribute is an
// error.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ws;

namespace {

/// What one discardable attribute must be, and where it may sit.
struct AttrRule {
  StringLiteral name;
  enum Kind { Unit, Ring, Symbol, Integer } kind;
  /// Integer: the range, and the step its values are multiples of.
  int64_t min = 0, max = 0, step = 1;
  /// The ops it may sit on, as the message names them.
  StringLiteral holders;
  bool (*mayHold)(Operation *);
};

} // namespace

static bool isKernel(Operation *op) { return isa<FunctionOpInterface>(op); }

static bool isWait(Operation *op) { return isa<MBarrierWaitOp>(op); }

/// The kernel, and the ops convert-ws-to-nvvm marks in a 2-CTA kernel.
static bool isCtaPairHolder(Operation *op) {
  return isKernel(op) || isa<MBarrierArriveOp, TMALoadMBarrierOp, TMEMAllocOp,
                             TMEMRelinquishOp, TMEMDeallocOp>(op);
}

/// The ops ws-lower-roles puts under a test of the role's first thread.
static bool isLeaderOp(Operation *op) {
  if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
    return arrive.getLeader();
  return isa<TMALoadMBarrierOp, TCGen05MMAOp>(op);
}

static bool isDot(Operation *op) { return isa<tile::DotOp>(op); }

static bool isGPUModule(Operation *op) { return isa<gpu::GPUModuleOp>(op); }

static bool isWarpSpecialize(Operation *op) {
  return isa<WarpSpecializeOp>(op);
}

/// The rules, one per attribute of WSDialect.td's discardableAttrs.
static const AttrRule kRules[] = {
    {WSDialect::CtaPairAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "a kernel, ws.mbarrier_arrive, ws.tma_load_mbarrier and the ws.tmem_* "
     "ops",
     isCtaPairHolder},
    {WSDialect::MulticastAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "a kernel", isKernel},
    {WSDialect::LeaderGuardedAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "ws.mbarrier_arrive with leader, ws.tma_load_mbarrier and "
     "ws.tcgen05_mma",
     isLeaderOp},
    {WSDialect::AsyncWgmmaAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "tile.dot", isDot},
    {WSDialect::RingAttrHelper::getNameStr(), AttrRule::Ring, 0, 0, 1,
     "ws.mbarrier_wait", isWait},
    {WSDialect::ChannelAttrHelper::getNameStr(), AttrRule::Integer, 0,
     INT32_MAX, 1, "ws.mbarrier_wait", isWait},
    {WSDialect::DrainAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "ws.mbarrier_wait", isWait},
    {WSDialect::HangReportAttrHelper::getNameStr(), AttrRule::Symbol, 0, 0, 1,
     "ws.mbarrier_wait", isWait},
    {WSDialect::WaitTimeoutAttrHelper::getNameStr(), AttrRule::Integer, 1,
     INT64_MAX, 1, "ws.mbarrier_wait", isWait},
    {WSDialect::HangReportsAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "gpu.module", isGPUModule},
    {WSDialect::ProtocolVerifiedAttrHelper::getNameStr(), AttrRule::Unit, 0, 0,
     1, "ws.warp_specialize", isWarpSpecialize},
    {WSDialect::PhasesVerifiedAttrHelper::getNameStr(), AttrRule::Unit, 0, 0, 1,
     "ws.warp_specialize", isWarpSpecialize},
    // cuLaunchKernel takes the dynamic shared memory as a 32-bit count.
    {WSDialect::SmemBytesAttrHelper::getNameStr(), AttrRule::Integer, 0,
     INT32_MAX, 1, "a kernel", isKernel},
    {WSDialect::NumThreadsAttrHelper::getNameStr(), AttrRule::Integer,
     kThreadsPerWarp, kMaxWarpsPerCTA *kThreadsPerWarp, kThreadsPerWarp,
     "a kernel", isKernel},
};

/// Checks the value of `attr` against `rule`.
static LogicalResult verifyValue(Operation *op, NamedAttribute attr,
                                 const AttrRule &rule) {
  Attribute value = attr.getValue();
  auto error = [&]() {
    return op->emitOpError("'") << rule.name << "' must be ";
  };
  switch (rule.kind) {
  case AttrRule::Unit:
    if (!isa<UnitAttr>(value))
      return error() << "a unit attribute, got " << value;
    return success();
  case AttrRule::Ring: {
    auto ring = dyn_cast<StringAttr>(value);
    if (!ring || (ring.getValue() != "full" && ring.getValue() != "empty"))
      return error() << "\"full\" or \"empty\", got " << value;
    return success();
  }
  case AttrRule::Symbol:
    if (!isa<FlatSymbolRefAttr>(value))
      return error() << "a symbol reference, got " << value;
    return success();
  case AttrRule::Integer: {
    auto integer = dyn_cast<IntegerAttr>(value);
    bool isInt64 = integer && integer.getType().isSignlessInteger() &&
                   integer.getValue().getSignificantBits() <= 64;
    if (isInt64 && integer.getInt() >= rule.min &&
        integer.getInt() <= rule.max && integer.getInt() % rule.step == 0)
      return success();
    InFlightDiagnostic diag = error();
    if (rule.step != 1)
      diag << "a multiple of " << rule.step << " ";
    else
      diag << "an integer ";
    return diag << "from " << rule.min << " to " << rule.max << ", got "
                << value;
  }
  }
  return success();
}

WSDialect &WSDialect::getLoaded(MLIRContext *context) {
  auto *dialect = context->getLoadedDialect<WSDialect>();
  assert(dialect && "the ws dialect is not loaded");
  return *dialect;
}

LogicalResult WSDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  const AttrRule *rule =
      llvm::find_if(kRules, [&](const AttrRule &r) { return r.name == name; });
  if (rule == std::end(kRules))
    return op->emitOpError("has '")
           << name << "', which is not an attribute of the ws dialect";
  if (!rule->mayHold(op))
    return op->emitOpError("may not hold '")
           << name << "': it sits on " << rule->holders;
  return verifyValue(op, attr, *rule);
}
