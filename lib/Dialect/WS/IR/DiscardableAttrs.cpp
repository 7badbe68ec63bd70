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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ws;

namespace {

/// The ops a discardable attribute may sit on.
enum class Holder {
  /// A kernel: a function.
  Kernel,
  /// The kernel, and the ops convert-ws-to-nvvm marks in a 2-CTA kernel.
  CtaPairOps,
  /// The ops ws-lower-roles puts under a test of the role's first thread.
  LeaderOps,
  Dot,
  Wait,
  GPUModule,
  WarpSpecialize,
  /// The role assignment of a tile program (RoleAssignment.h).
  AnyOp,
  ForOp,
  Load,
  /// An op of a tile program with one result.
  OneResult
};

/// What one discardable attribute must be, and where it may sit.
struct AttrRule {
  StringLiteral name;
  enum Kind { Unit, Ring, Symbol, Integer, I32Array, Array } kind;
  Holder holder;
  /// Integer: the range, and the step its values are multiples of.
  int64_t min = 0, max = 0, step = 1;
};

} // namespace

/// The ops of a holder: a test of an op, and how messages name the ops.
struct HolderOps {
  bool (*mayHold)(Operation *op);
  StringRef description;
};

/// The ops of kind `OpT`, named by their op name.
template <typename OpT> static HolderOps opsOf() {
  return {[](Operation *op) { return isa<OpT>(op); }, OpT::getOperationName()};
}

/// The ops of `holder`.
static HolderOps getHolderOps(Holder holder) {
  switch (holder) {
  case Holder::Kernel:
    return {[](Operation *op) { return isa<FunctionOpInterface>(op); },
            "a kernel"};
  case Holder::CtaPairOps:
    return {
        [](Operation *op) {
          return isa<FunctionOpInterface, MBarrierArriveOp, TMALoadMBarrierOp,
                     TMEMAllocOp, TMEMRelinquishOp, TMEMDeallocOp>(op);
        },
        "a kernel, ws.mbarrier_arrive, ws.tma_load_mbarrier and the "
        "ws.tmem_* ops"};
  case Holder::LeaderOps:
    return {[](Operation *op) {
              if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
                return bool(arrive.getLeader());
              return isa<TMALoadMBarrierOp, TCGen05MMAOp>(op);
            },
            "ws.mbarrier_arrive with leader, ws.tma_load_mbarrier and "
            "ws.tcgen05_mma"};
  case Holder::Dot:
    return opsOf<tile::DotOp>();
  case Holder::Wait:
    return opsOf<MBarrierWaitOp>();
  case Holder::GPUModule:
    return opsOf<gpu::GPUModuleOp>();
  case Holder::WarpSpecialize:
    return opsOf<WarpSpecializeOp>();
  case Holder::AnyOp:
    return {[](Operation *) { return true; }, "any op"};
  case Holder::ForOp:
    return opsOf<scf::ForOp>();
  case Holder::Load:
    return opsOf<tile::LoadOp>();
  case Holder::OneResult:
    return {[](Operation *op) { return op->getNumResults() == 1; },
            "an op with one result"};
  }
  llvm_unreachable("a holder without ops");
}

using D = WSDialect;
using R = AttrRule;
/// Threads of a CTA: whole warps, at most 1024.
static constexpr int64_t kWarp = kThreadsPerWarp;
static constexpr int64_t kMaxThreads = kMaxWarpsPerCTA * kThreadsPerWarp;

/// The rules, one per attribute of WSDialect.td's discardableAttrs. (The
/// dynamic shared memory is a 32-bit count for cuLaunchKernel.)
static const AttrRule kRules[] = {
    {D::CtaPairAttrHelper::getNameStr(), R::Unit, Holder::CtaPairOps},
    {D::SmemBytesAttrHelper::getNameStr(), R::Integer, Holder::Kernel, 0,
     INT32_MAX},
    {D::MulticastAttrHelper::getNameStr(), R::Unit, Holder::Kernel},
    {D::NumThreadsAttrHelper::getNameStr(), R::Integer, Holder::Kernel, kWarp,
     kMaxThreads, kWarp},
    {D::LeaderGuardedAttrHelper::getNameStr(), R::Unit, Holder::LeaderOps},
    {D::RingAttrHelper::getNameStr(), R::Ring, Holder::Wait},
    {D::AsyncWgmmaAttrHelper::getNameStr(), R::Unit, Holder::Dot},
    {D::ChannelAttrHelper::getNameStr(), R::Integer, Holder::Wait, 0,
     INT32_MAX},
    {D::DrainAttrHelper::getNameStr(), R::Unit, Holder::Wait},
    {D::HangReportAttrHelper::getNameStr(), R::Symbol, Holder::Wait},
    {D::HangReportsAttrHelper::getNameStr(), R::Unit, Holder::GPUModule},
    {D::WaitTimeoutAttrHelper::getNameStr(), R::Integer, Holder::Wait, 1,
     INT64_MAX},
    {D::ProtocolVerifiedAttrHelper::getNameStr(), R::Unit,
     Holder::WarpSpecialize},
    {D::PhasesVerifiedAttrHelper::getNameStr(), R::Unit,
     Holder::WarpSpecialize},
    {D::RolesAttrHelper::getNameStr(), R::Array, Holder::Kernel},
    {D::ChannelStagesAttrHelper::getNameStr(), R::I32Array, Holder::Kernel},
    {D::PartitionAttrHelper::getNameStr(), R::I32Array, Holder::AnyOp},
    {D::PartitionOutputsAttrHelper::getNameStr(), R::Array, Holder::ForOp},
    {D::OutputChannelsAttrHelper::getNameStr(), R::I32Array, Holder::ForOp},
    {D::LoadChannelAttrHelper::getNameStr(), R::Integer, Holder::Load,
     INT64_MIN, INT64_MAX},
    {D::MulticastLoadAttrHelper::getNameStr(), R::Unit, Holder::Load},
    {D::TurnAttrHelper::getNameStr(), R::Unit, Holder::ForOp},
    {D::ResultChannelAttrHelper::getNameStr(), R::Integer, Holder::OneResult,
     INT64_MIN, INT64_MAX},
    {D::ChannelAliasesAttrHelper::getNameStr(), R::I32Array, Holder::Kernel},
};

/// Checks the value of `attr` against `rule`.
static LogicalResult verifyValue(Operation *op, NamedAttribute attr,
                                 const AttrRule &rule) {
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, const Twine &what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError("'")
           << rule.name << "' must be " << what << ", got " << value;
  };
  switch (rule.kind) {
  case AttrRule::Unit:
    return expect(isa<UnitAttr>(value), "a unit attribute");
  case AttrRule::Ring: {
    auto ring = dyn_cast<StringAttr>(value);
    return expect(ring &&
                      (ring.getValue() == "full" || ring.getValue() == "empty"),
                  "\"full\" or \"empty\"");
  }
  case AttrRule::Symbol:
    return expect(isa<FlatSymbolRefAttr>(value), "a symbol reference");
  case AttrRule::I32Array:
    return expect(isa<DenseI32ArrayAttr>(value), "an i32 array");
  case AttrRule::Array:
    return expect(isa<ArrayAttr>(value), "an array");
  case AttrRule::Integer: {
    auto integer = dyn_cast<IntegerAttr>(value);
    bool isInt64 = integer && integer.getType().isSignlessInteger() &&
                   integer.getValue().getSignificantBits() <= 64;
    bool ok = isInt64 && integer.getInt() >= rule.min &&
              integer.getInt() <= rule.max && integer.getInt() % rule.step == 0;
    std::string kind = rule.step == 1
                           ? std::string("an integer")
                           : "a multiple of " + std::to_string(rule.step);
    return expect(ok,
                  kind + " from " + Twine(rule.min) + " to " + Twine(rule.max));
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
  HolderOps holder = getHolderOps(rule->holder);
  if (!holder.mayHold(op))
    return op->emitOpError("may not hold '")
           << name << "': it sits on " << holder.description;
  return verifyValue(op, attr, *rule);
}
