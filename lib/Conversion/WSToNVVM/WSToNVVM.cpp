//===- WSToNVVM.cpp - Lower explicit rings and roles to NVVM -------------===//
//
// Part of fmha. Implements convert-ws-to-nvvm.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "Lowering.h"
#include "Patterns.h"
#include "Values.h"

#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTWSTONVVM
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// The kernel's dynamic shared memory: one external array in the module.
static constexpr StringLiteral kSharedMemoryName = "__fmha_smem";
/// Bytes of a CUtensorMap.
static constexpr int64_t kTensorMapBytes = 128;
/// The NVPTX address space of shared::cluster addresses (mapa's results).
static constexpr unsigned kSharedClusterAddressSpace = 7;
/// Suspend-time hint of mbarrier.try_wait, in nanoseconds.
static constexpr int64_t kTryWaitTicks = 10000000;

/// Runtime values of a hang report: stage, parity, thread, CTA x, y, z.
static constexpr unsigned kHangReportValues = 6;

static Type sharedPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
}

/// Pointer to byte `offset` of the kernel's dynamic shared memory.
static Value sharedMemoryAt(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  Value base =
      LLVM::AddressOfOp::create(b, loc, sharedPtrType(ctx), kSharedMemoryName);
  return LLVM::GEPOp::create(b, loc, sharedPtrType(ctx), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

/// ws.buffer_alloc -> a memref descriptor over the ring's shared memory.
static LogicalResult lowerBufferAlloc(BufferAllocOp op,
                                      BufferAllocOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter,
                                      const LLVMTypeConverter &converter) {
  if (!op.getOffset())
    return rewriter.notifyMatchFailure(op, "no offset: run ws-allocate-smem");
  Value ptr = sharedMemoryAt(rewriter, op.getLoc(), *op.getOffset());
  Value desc = MemRefDescriptor::fromStaticShape(rewriter, op.getLoc(),
                                                 converter, op.getType(), ptr);
  rewriter.replaceOp(op, desc);
  return success();
}

/// ws.slot -> a memref descriptor at stage * slot bytes into the ring.
static LogicalResult lowerSlot(SlotOp op, SlotOp::Adaptor adaptor,
                               ConversionPatternRewriter &rewriter,
                               const LLVMTypeConverter &converter) {
  if (!isSharedMemory(op.getRing().getType()))
    return rewriter.notifyMatchFailure(op, "not a shared-memory ring");
  Location loc = op.getLoc();
  Value ring = MemRefDescriptor(adaptor.getRing()).alignedPtr(rewriter, loc);
  Value bytes = LLVM::MulOp::create(
      rewriter, loc, adaptor.getStage(),
      i32Const(rewriter, loc, getMemRefBytes(op.getType())));
  Value ptr =
      LLVM::GEPOp::create(rewriter, loc, ring.getType(), rewriter.getI8Type(),
                          ring, ValueRange{bytes});
  Value desc = MemRefDescriptor::fromStaticShape(rewriter, loc, converter,
                                                 op.getType(), ptr);
  rewriter.replaceOp(op, desc);
  return success();
}

/// ws.mbarrier_alloc -> a shared-memory pointer; thread 0 initialises each
/// barrier with the expected arrival count (a predicated init, the count an
/// immediate), in a branch of its own: the barrier addresses computed there
/// do not dominate the roles, so LLVM and ptxas do not reuse them in every
/// role, as they did when the inits were only predicated, which kept one
/// register per barrier live through all roles.
static LogicalResult lowerMBarrierAlloc(MBarrierAllocOp op,
                                        MBarrierAllocOp::Adaptor adaptor,
                                        ConversionPatternRewriter &rewriter) {
  if (!op.getOffset())
    return rewriter.notifyMatchFailure(op, "no offset: run ws-allocate-smem");
  Location loc = op.getLoc();
  Value base = sharedMemoryAt(rewriter, loc, *op.getOffset());
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
  Value isThread0 = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                         tid, i32Const(rewriter, loc, 0));
  emitIf(rewriter, loc, isThread0, [&] {
    Value arrivals = i32Const(rewriter, loc, op.getArrivals());
    Value initBase = sharedMemoryAt(rewriter, loc, *op.getOffset());
    for (unsigned i = 0; i < op.getType().getCount(); ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          barrierAt(rewriter, loc, initBase, i32Const(rewriter, loc, i)),
          arrivals, isThread0);
  });
  rewriter.replaceOp(op, base);
  return success();
}

/// The body of the function `op` is in.
static Region *getFunctionBody(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion())
    if (isa_and_nonnull<FunctionOpInterface>(region->getParentOp()))
      return region->empty() ? nullptr : region;
  return nullptr;
}

/// ws.mbarrier_wait -> a try_wait.parity loop. With a hang report and a
/// timeout in microseconds (ws-insert-hang-reports), a bounded loop of
/// single tries instead: once the wait has not completed for that long by
/// %globaltimer, the thread prints the wait's hang report with vprintf and
/// traps.
static LogicalResult lowerMBarrierWait(MBarrierWaitOp op,
                                       MBarrierWaitOp::Adaptor adaptor,
                                       ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value addr = barrierOf(rewriter, loc, adaptor);
  auto report = op->getAttrOfType<FlatSymbolRefAttr>(kHangReportAttrName);
  auto timeout = op->getAttrOfType<IntegerAttr>(kWaitTimeoutAttrName);
  if (!report || !timeout || timeout.getInt() <= 0) {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, addr, adaptor.getPhase(), i32Const(rewriter, loc, kTryWaitTicks));
    return success();
  }
  auto vprintf = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
      op, StringAttr::get(op.getContext(), kVPrintfName));
  Region *body = getFunctionBody(op);
  if (!vprintf || !body)
    return rewriter.notifyMatchFailure(op, "no vprintf or no function body");

  MLIRContext *ctx = rewriter.getContext();
  Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type(),
       i64 = rewriter.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto argsType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(kHangReportValues, i32));

  // The report's arguments live in a stack slot of the kernel's entry
  // block (an alloca anywhere else would be a dynamic one).
  Value args;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body->front());
    Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
    args = LLVM::AllocaOp::create(rewriter, loc, ptr, argsType, one,
                                  /*alignment=*/4);
  }

  //   try_wait ? ^done : ^slow
  // ^slow:  start = %globaltimer; br ^retry
  // ^retry: try_wait ? ^done : ^check
  // ^check: %globaltimer - start > timeout ? ^report : ^retry
  // ^report: vprintf(report, {stage, parity, tid, ctaid}); trap
  auto tryWait = [&]() -> Value {
    return NVVM::MBarrierTryWaitOp::create(rewriter, loc, i1, addr,
                                           adaptor.getPhase(), Value());
  };
  Block *opBlock = rewriter.getInsertionBlock();
  Block *done = rewriter.splitBlock(opBlock, rewriter.getInsertionPoint());
  Region *region = opBlock->getParent();
  auto before = Region::iterator(done);
  Block *slow = rewriter.createBlock(region, before);
  Block *retry = rewriter.createBlock(region, before);
  Block *check = rewriter.createBlock(region, before);
  Block *fail = rewriter.createBlock(region, before);

  rewriter.setInsertionPointToEnd(opBlock);
  LLVM::CondBrOp::create(rewriter, loc, tryWait(), done, slow);

  rewriter.setInsertionPointToEnd(slow);
  Value start = NVVM::GlobalTimerOp::create(rewriter, loc, i64);
  LLVM::BrOp::create(rewriter, loc, retry);

  rewriter.setInsertionPointToEnd(retry);
  LLVM::CondBrOp::create(rewriter, loc, tryWait(), done, check);

  rewriter.setInsertionPointToEnd(check);
  Value now = NVVM::GlobalTimerOp::create(rewriter, loc, i64);
  Value elapsed = LLVM::SubOp::create(rewriter, loc, now, start);
  Value limit =
      LLVM::ConstantOp::create(rewriter, loc, i64, timeout.getInt() * 1000);
  Value expired = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ugt,
                                       elapsed, limit);
  LLVM::CondBrOp::create(rewriter, loc, expired, fail, retry);

  rewriter.setInsertionPointToEnd(fail);
  Value values[kHangReportValues] = {
      adaptor.getIndex(),
      adaptor.getPhase(),
      NVVM::ThreadIdXOp::create(rewriter, loc, i32),
      NVVM::BlockIdXOp::create(rewriter, loc, i32),
      NVVM::BlockIdYOp::create(rewriter, loc, i32),
      NVVM::BlockIdZOp::create(rewriter, loc, i32)};
  for (auto [i, value] : llvm::enumerate(values)) {
    Value field = LLVM::GEPOp::create(rewriter, loc, ptr, argsType, args,
                                      ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    LLVM::StoreOp::create(rewriter, loc, value, field);
  }
  Value format =
      LLVM::AddressOfOp::create(rewriter, loc, ptr, report.getValue());
  LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{format, args});
  LLVM::Trap::create(rewriter, loc);
  LLVM::UnreachableOp::create(rewriter, loc);

  rewriter.eraseOp(op);
  return success();
}
/// The shared::cluster address of the barrier at `addr` (a shared::cta
/// address) in the even CTA of a CTA pair, which runs the pair's MMA warp.
static Value inEvenCta(OpBuilder &b, Location loc, Value addr) {
  auto cluster =
      LLVM::LLVMPointerType::get(b.getContext(), kSharedClusterAddressSpace);
  return NVVM::MapaOp::create(b, loc, cluster, addr, i32Const(b, loc, 0));
}

/// ws.mbarrier_arrive -> mbarrier.arrive, or arrive.expect_tx with bytes.
/// In 2-CTA mode (marked by ws-lower-cta-pairs) the arrival goes to the barrier
/// of the pair's even CTA, with cluster scope. A multicast arrival by threads
/// (made by each warp's first lane, which lowerRoles guards) arrives on
/// this CTA's barrier and on the peer's. A tcgen05 arrival becomes a
/// tcgen05.commit (replaceWithTCGen05Commit).
static LogicalResult lowerMBarrierArrive(MBarrierArriveOp op,
                                         MBarrierArriveOp::Adaptor adaptor,
                                         ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value addr = barrierOf(rewriter, loc, adaptor);
  if (op.getTcgen05()) {
    replaceWithTCGen05Commit(op, addr, rewriter);
    return success();
  }
  if (op.getMulticast()) {
    // The peer's arrival keeps the default semantics (release at CTA
    // scope), as for a local one: the slot was read by wgmma, which
    // wgmma.wait_group completed, and the peer's next write to it is a
    // TMA copy that waits for this arrival. A cluster-scope release here
    // cost a third of the GEMM's throughput on an H100.
    auto cta = NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                           NVVM::MemScopeKind::CTA);
    NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), addr, Value(), cta);
    Value rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
    Value peer =
        LLVM::XOrOp::create(rewriter, loc, rank, i32Const(rewriter, loc, 1));
    Value remote = NVVM::MapaOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(rewriter.getContext(),
                                   kSharedClusterAddressSpace),
        addr, peer);
    NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), remote, Value(), cta);
    rewriter.eraseOp(op);
    return success();
  }
  bool pair = op->hasAttr(kCtaPairAttrName);
  if (pair)
    addr = inEvenCta(rewriter, loc, addr);
  auto scope = NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                           pair ? NVVM::MemScopeKind::CLUSTER
                                                : NVVM::MemScopeKind::CTA);
  if (std::optional<int64_t> bytes = op.getTxBytes())
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, Type(), addr, i32Const(rewriter, loc, *bytes), scope,
        rewriter.getBoolAttr(false), Value());
  else
    NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), addr, Value(), scope);
  rewriter.eraseOp(op);
  return success();
}

/// TMA multicast: this CTA (cluster rank r) copies the r-th half of the
/// block, into the same offset of both CTAs (`.multicast::cluster`, CTA
/// mask 0b11), completing the barrier at the same offset in both. A block
/// moved as one box per row is split by rows (the tensor map's box holds
/// half of them), one moved as several boxes by boxes (of an odd number,
/// rank 0 copies one more).
static void lowerMulticast(TMALoadMBarrierOp op,
                           ConversionPatternRewriter &rewriter, Value desc,
                           Value dst, Value bar, ArrayRef<Value> coords,
                           const TMABoxes &boxes, int64_t elementBytes) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
  Value both =
      LLVM::ConstantOp::create(rewriter, loc, rewriter.getI16Type(), 0b11);
  auto cluster = LLVM::LLVMPointerType::get(ctx, kSharedClusterAddressSpace);
  auto mul = [&](Value x, int64_t c) -> Value {
    return LLVM::MulOp::create(rewriter, loc, x, i32Const(rewriter, loc, c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return LLVM::AddOp::create(rewriter, loc, x, y);
  };
  auto copy = [&](Value bytes, ArrayRef<Value> at) {
    Value to =
        LLVM::GEPOp::create(rewriter, loc, dst.getType(), rewriter.getI8Type(),
                            dst, ValueRange{bytes});
    // This CTA's buffer as a shared::cluster address; the copy writes the
    // same offset in every CTA of the mask.
    to = NVVM::MapaOp::create(rewriter, loc, cluster, to, rank);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, to, desc, at, bar, ValueRange(), both, Value(),
        NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
        rewriter.getBoolAttr(false), NVVM::CTAGroupKindAttr(), Value());
  };
  RankedTensorType block = op.getDesc().getType().getBlock();
  if (boxes.count == 1) {
    // Rows: the outermost coordinate, the last in PTX order.
    int64_t half = block.getShape().front() / 2;
    SmallVector<Value> at(coords);
    at.back() = add(at.back(), mul(rank, half));
    copy(mul(rank, half * boxes.spanBytes), at);
    return;
  }
  // Rank r copies boxes [r * perRank, min((r + 1) * perRank, count)): with
  // an odd count, rank 1 one box fewer than rank 0.
  int64_t perRank = llvm::divideCeil(boxes.count, 2);
  for (int64_t i = 0; i < perRank; ++i) {
    auto copyBox = [&] {
      Value box = add(mul(rank, perRank), i32Const(rewriter, loc, i));
      SmallVector<Value> at(coords);
      at.front() = add(at.front(), mul(box, boxes.spanBytes / elementBytes));
      copy(mul(box, boxes.boxBytes), at);
    };
    if (perRank + i < boxes.count) {
      copyBox();
      continue;
    }
    Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                       rank, i32Const(rewriter, loc, 0));
    emitIf(rewriter, loc, first, copyBox);
  }
}

/// ws.tma_load_mbarrier -> cp.async.bulk.tensor (coordinates reversed: PTX
/// lists the innermost dimension first). In 2-CTA mode each CTA loads into
/// its own shared memory and the copy completes on the barrier of the
/// pair's even CTA (`.cta_group::2` allows a barrier in the peer CTA).
static LogicalResult lowerTMALoad(TMALoadMBarrierOp op,
                                  TMALoadMBarrierOp::Adaptor adaptor,
                                  ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value dst = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
  Value bar = barrierOf(rewriter, loc, adaptor);
  SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));
  bool pair = op->hasAttr(kCtaPairAttrName);
  Value rank;
  if (pair) {
    // The instruction takes the barrier's shared::cluster address; NVVM
    // types the operand as a shared pointer, so pass the address bits.
    Value even = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                          inEvenCta(rewriter, loc, bar));
    bar = LLVM::IntToPtrOp::create(rewriter, loc, bar.getType(), even);
    rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
  }

  // A swizzled block whose rows are wider than the swizzle span moves as
  // several boxes one span wide, stored one after the other (the layout
  // #tile.nvmma_shared describes); the tensor map's box is one of them.
  RankedTensorType block = op.getDesc().getType().getBlock();
  int64_t elementBytes = block.getElementTypeBitWidth() / 8;
  TMABoxes boxes = getTMABoxes(block);
  if (op.getMulticast()) {
    if (pair)
      return rewriter.notifyMatchFailure(op, "multicast in 2-CTA mode");
    lowerMulticast(op, rewriter, adaptor.getDesc(), dst, bar, coords, boxes,
                   elementBytes);
    rewriter.eraseOp(op);
    return success();
  }
  for (int64_t piece = 0; piece < boxes.count; ++piece) {
    SmallVector<Value> pieceCoords(coords);
    Value pieceDst = dst;
    tmaBox(rewriter, loc, boxes, elementBytes, piece, pieceCoords, pieceDst);
    NVVM::CTAGroupKindAttr group;
    if (pair) {
      // This CTA's own buffer, as a shared::cluster address.
      pieceDst = NVVM::MapaOp::create(
          rewriter, loc,
          LLVM::LLVMPointerType::get(rewriter.getContext(),
                                     kSharedClusterAddressSpace),
          pieceDst, rank);
      group = NVVM::CTAGroupKindAttr::get(rewriter.getContext(),
                                          NVVM::CTAGroupKind::CTA_2);
    }
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, pieceDst, adaptor.getDesc(), pieceCoords, bar,
        ValueRange(), Value(), Value(),
        NVVM::TMALoadModeAttr::get(rewriter.getContext(),
                                   NVVM::TMALoadMode::TILE),
        rewriter.getBoolAttr(!pair), group, Value());
  }
  rewriter.eraseOp(op);
  return success();
}
/// ws.fence_async_shared -> fence.proxy.async.shared::cta.
static LogicalResult
lowerFenceAsyncShared(FenceAsyncSharedOp op,
                      FenceAsyncSharedOp::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) {
  MLIRContext *ctx = rewriter.getContext();
  rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
      op, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  return success();
}

/// ws.barrier_sync -> bar.sync id, threads; ws.barrier_arrive -> bar.arrive
/// id, threads.
template <typename OpT>
static LogicalResult lowerNamedBarrier(OpT op, typename OpT::Adaptor,
                                       ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value threads = i32Const(rewriter, loc, op.getThreads());
  Value id = i32Const(rewriter, loc, op.getId());
  if constexpr (std::is_same_v<OpT, BarrierSyncOp>)
    rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
        op, Type(), id, threads, NVVM::BarrierReductionAttr(), Value());
  else
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(op, id, threads);
  return success();
}

/// ws.counter_arrive -> `fence.acq_rel.gpu` and `bar.sync id, threads` in
/// every thread; in the leader (`pred`) `atom.relaxed.gpu.global.add.u32`
/// and, when it read `count - 1`, a store of 0; `bar.red.or.pred` on the
/// same barrier hands the leader's answer to every thread, which fences
/// again (the acquire side) before it goes on.
static LogicalResult lowerCounterArrive(CounterArriveOp op,
                                        CounterArriveOp::Adaptor adaptor,
                                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Type i32 = rewriter.getI32Type();
  MemRefDescriptor counters(adaptor.getCounters());
  Value base = counters.alignedPtr(rewriter, loc);
  Type i64 = rewriter.getI64Type();
  Value at = LLVM::AddOp::create(
      rewriter, loc, counters.offset(rewriter, loc),
      LLVM::SExtOp::create(rewriter, loc, i64, adaptor.getIndex()));
  Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(), i32, base,
                                   ValueRange{at});
  Value leader = adaptor.getPred() ? LLVM::ZExtOp::create(rewriter, loc, i32,
                                                          adaptor.getPred())
                                         .getResult()
                                   : i32Const(rewriter, loc, 1);
  Value last = LLVM::SubOp::create(rewriter, loc, adaptor.getCount(),
                                   i32Const(rewriter, loc, 1));
  inlinePtx(rewriter, loc, Type(), {}, "fence.acq_rel.gpu;", "~{memory}");
  NVVM::BarrierOp::create(rewriter, loc, Type(),
                          i32Const(rewriter, loc, op.getId()),
                          i32Const(rewriter, loc, op.getThreads()),
                          NVVM::BarrierReductionAttr(), Value());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .pred l, z;\n.reg .b32 old;\n"
     << "setp.ne.b32 l, $1, 0;\nmov.b32 old, 0;\n"
     << "@l atom.relaxed.gpu.global.add.u32 old, [$2], 1;\n"
     << "setp.eq.and.b32 z, old, $3, l;\n"
     << "@z st.relaxed.gpu.global.b32 [$2], 0;\n"
     << "bar.red.or.pred z, " << op.getId() << ", " << op.getThreads()
     << ", z;\nselp.b32 $0, 1, 0, z;\n}";
  Value answer = inlinePtx(rewriter, loc, i32, {leader, addr, last}, text,
                           "=r,r,l,r,~{memory}");
  inlinePtx(rewriter, loc, Type(), {}, "fence.acq_rel.gpu;", "~{memory}");
  rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne, answer,
                                            i32Const(rewriter, loc, 0));
  return success();
}

namespace {

/// The kernels' !tile.desc parameters, remembered across the conversion.
struct TensorMapParams {
  StringAttr name;
  FunctionType type;
  SmallVector<unsigned> indices;
};

/// Marks the LLVM parameters that carry tensor maps: 128-byte CUtensorMaps
/// passed by value (`__grid_constant__`) and used in place by TMA.
static void markTensorMapParams(gpu::GPUModuleOp module,
                                const LLVMTypeConverter &converter,
                                ArrayRef<TensorMapParams> kernels) {
  MLIRContext *ctx = module.getContext();
  auto mapType =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  for (const TensorMapParams &kernel : kernels) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name);
    if (!func)
      continue;
    TypeConverter::SignatureConversion signature(kernel.type.getNumInputs());
    if (!converter.convertFunctionSignature(kernel.type, /*isVariadic=*/false,
                                            /*useBarePtrCallConv=*/false,
                                            signature))
      continue;
    for (unsigned index : kernel.indices) {
      unsigned arg = signature.getInputMapping(index)->inputNo;
      func.setArgAttr(arg, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(mapType));
      func.setArgAttr(arg, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 64), 64));
      func.setArgAttr(arg, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(ctx));
    }
  }
}

/// Why the conversion cannot take `op` of a gpu.module, which an earlier
/// pass lowers: roles (ws-lower-roles), a CTA-pair kernel
/// (ws-lower-cta-pairs), structured control flow (convert-scf-to-cf).
static LogicalResult checkLowered(Operation *op) {
  StringRef pass;
  if (isa<WarpSpecializeOp>(op))
    pass = "ws-lower-roles";
  else if (isa<FunctionOpInterface>(op) && op->hasAttr(kCtaPairAttrName))
    pass = "ws-lower-cta-pairs";
  else if (isa_and_nonnull<scf::SCFDialect>(op->getDialect()))
    pass = "convert-scf-to-cf";
  if (pass.empty())
    return success();
  return op->emitOpError("is not lowered: run ")
         << pass << " before convert-ws-to-nvvm";
}

/// Rejects, before anything changes, what the conversion has no translation
/// for: ws ops outside a gpu.module (the pass converts gpu.modules only),
/// and in a gpu.module what an earlier pass lowers (checkLowered).
static LogicalResult checkSupported(Operation *root) {
  WalkResult walk = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op)) {
      WalkResult lowered = op->walk<WalkOrder::PreOrder>([](Operation *nested) {
        return failed(checkLowered(nested)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
      });
      return lowered.wasInterrupted() ? WalkResult::interrupt()
                                      : WalkResult::skip();
    }
    if (!isa_and_nonnull<WSDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitOpError("is outside a gpu.module: convert-ws-to-nvvm lowers the "
                    "kernels of gpu.module ops only");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

struct ConvertWSToNVVMPass
    : public fmha::impl::ConvertWSToNVVMBase<ConvertWSToNVVMPass> {
  using ConvertWSToNVVMBase::ConvertWSToNVVMBase;

  void runOnOperation() override {
    if (failed(checkSupported(getOperation())))
      return signalPassFailure();
    SmallVector<gpu::GPUModuleOp> modules;
    getOperation()->walk([&](gpu::GPUModuleOp m) { modules.push_back(m); });
    for (gpu::GPUModuleOp module : modules)
      if (failed(convert(module)))
        return signalPassFailure();
  }

  LogicalResult convert(gpu::GPUModuleOp module) {
    MLIRContext *ctx = module.getContext();
    bool usesSharedMemory = false;
    SmallVector<TensorMapParams> kernels;
    module.walk([&](FunctionOpInterface func) {
      TensorMapParams params{func.getNameAttr(),
                             dyn_cast<FunctionType>(func.getFunctionType()),
                             {}};
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<tile::TensorDescType>(type))
          params.indices.push_back(i);
      if (params.type && !params.indices.empty())
        kernels.push_back(params);
      usesSharedMemory |=
          func->hasAttr(WSDialect::SmemBytesAttrHelper::getNameStr());
    });
    if (usesSharedMemory && !module.lookupSymbol(kSharedMemoryName)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSharedMemoryName,
          Attribute(), /*alignment=*/1024, kSharedAddressSpace);
    }

    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    converter.addConversion([ctx](tile::TensorDescType) -> Type {
      return LLVM::LLVMPointerType::get(ctx);
    });
    converter.addConversion(
        [ctx](MBarrierType) -> Type { return sharedPtrType(ctx); });
    populateTileTypeConversions(converter);
    populateTCGen05TypeConversions(converter);

    RewritePatternSet patterns(ctx);
    addLowerings(patterns, converter, lowerBufferAlloc, lowerSlot,
                 lowerMBarrierAlloc, lowerMBarrierArrive, lowerMBarrierWait,
                 lowerTMALoad, lowerFenceAsyncShared,
                 lowerNamedBarrier<BarrierSyncOp>,
                 lowerNamedBarrier<BarrierArriveOp>, lowerCounterArrive);
    populateTileToNVVMPatterns(converter, patterns);
    populateTCGen05ToNVVMPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    configureGpuToNVVMConversionLegality(target);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<ws::WSDialect, tile::TileDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
    markTensorMapParams(module, converter, kernels);
    return success();
  }
};
} // namespace
