//===- InsertHangReports.cpp - Hang reports for mbarrier waits ------------===//
//
// Part of fmha. Implements ws-insert-hang-reports.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/Path.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSINSERTHANGREPORTS
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// "file:line:col" of the first file location in `loc`, the file without
/// its directory.
static std::string describeLoc(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  return "an unknown location";
}

/// `text` with every '%' doubled, so that printf prints it as it is.
static std::string escapeFormat(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped.push_back(c);
    if (c == '%')
      escaped.push_back('%');
  }
  return escaped;
}

/// The printf format of the report a wait prints when it times out. What is
/// known at compile time (the role, the wait's location, the ring) is part
/// of the format; the stage, the parity, the thread and the CTA are printed
/// from their runtime values.
static std::string getHangReportFormat(MBarrierWaitOp wait,
                                       unsigned timeoutMicroseconds) {
  std::string role = "(none)";
  if (auto roleOp = wait->getParentOfType<RoleOp>())
    role = roleOp.getRoleName().str();
  std::string barrier;
  WSDialect &ws = WSDialect::getLoaded(wait->getContext());
  if (StringAttr ring = ws.getRingAttrHelper().getAttr(wait)) {
    barrier = ("the " + ring.getValue() + " barrier").str();
    if (IntegerAttr channel = ws.getChannelAttrHelper().getAttr(wait))
      barrier += " of channel " + std::to_string(channel.getInt());
  } else if (Operation *alloc = wait.getBarriers().getDefiningOp()) {
    barrier = "the mbarrier array allocated at " + describeLoc(alloc->getLoc());
  } else {
    barrier =
        "the mbarrier array of block argument #" +
        std::to_string(cast<BlockArgument>(wait.getBarriers()).getArgNumber());
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "fmha: hang in role '" << escapeFormat(role)
     << "': ws.mbarrier_wait at " << escapeFormat(describeLoc(wait.getLoc()))
     << " on " << escapeFormat(barrier)
     << ", stage %u, phase parity %u, not completed after "
     << timeoutMicroseconds << " us; thread %u, CTA (%u, %u, %u)\n";
  return text;
}

/// Declares vprintf in `module`, and gives every ws.mbarrier_wait the format
/// string of its hang report as a global, and the timeout.
static void createHangReports(gpu::GPUModuleOp module,
                              unsigned timeoutMicroseconds) {
  SmallVector<MBarrierWaitOp> waits;
  module.walk([&](MBarrierWaitOp wait) { waits.push_back(wait); });
  if (waits.empty())
    return;
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  if (!module.lookupSymbol(kVPrintfName)) {
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    LLVM::LLVMFuncOp::create(
        b, loc, kVPrintfName,
        LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr}));
  }
  unsigned next = 0;
  for (MBarrierWaitOp wait : waits) {
    std::string name;
    do
      name = "__fmha_hang_report_" + std::to_string(next++);
    while (module.lookupSymbol(name));
    std::string format = getHangReportFormat(wait, timeoutMicroseconds);
    format.push_back('\0');
    auto global = LLVM::GlobalOp::create(
        b, wait.getLoc(),
        LLVM::LLVMArrayType::get(b.getI8Type(), format.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, name,
        b.getStringAttr(format), /*alignment=*/1);
    WSDialect &ws = WSDialect::getLoaded(wait->getContext());
    ws.getHangReportAttrHelper().setAttr(
        wait, FlatSymbolRefAttr::get(global.getSymNameAttr()));
    ws.getWaitTimeoutAttrHelper().setAttr(
        wait, b.getI64IntegerAttr(timeoutMicroseconds));
  }
}

namespace {
/// Gives every ws.mbarrier_wait of each gpu.module a hang report and a
/// timeout, which convert-ws-to-nvvm lowers to a bounded wait.
struct WSInsertHangReportsPass
    : public ws::impl::WSInsertHangReportsBase<WSInsertHangReportsPass> {
  using WSInsertHangReportsBase::WSInsertHangReportsBase;

  void runOnOperation() override {
    if (waitTimeout == 0)
      return markAllAnalysesPreserved();
    getOperation()->walk([&](gpu::GPUModuleOp module) {
      WSDialect::getLoaded(module.getContext())
          .getHangReportsAttrHelper()
          .setAttr(module, UnitAttr::get(module.getContext()));
      createHangReports(module, waitTimeout);
    });
  }
};
} // namespace
