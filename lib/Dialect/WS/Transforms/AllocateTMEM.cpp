//===- AllocateTMEM.cpp - Tensor-memory columns by liveness --------------===//
//
// Part of fmha. Implements ws-allocate-tmem (sm100).
//
//===----------------------------------------------------------------------===//

#include "PassUtils.h"

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSALLOCATETMEM
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Columns of tensor memory per SM.
static constexpr int64_t kTMEMColumns = 512;
/// The smallest allocation, and the alignment of each buffer's first column.
static constexpr int64_t kTMEMGranule = 32;

namespace {

/// A buffer that takes columns of its own, with the aliases over it.
struct Placement {
  TMEMBufferOp buffer;
  SmallVector<TMEMBufferOp> aliases;
  /// Positions of the first and last op of the kernel body that use it.
  int64_t first, last;
  int64_t columns;
  int64_t column = -1;
};

} // namespace

/// The op of `body` that is or contains `op`.
static Operation *topLevelOf(Operation *op, Block &body) {
  return body.findAncestorOpInBlock(*op);
}

/// "buffer at LOC (columns A-B)".
static std::string describe(Placement &p) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "buffer at " << p.buffer.getLoc() << " (columns " << p.column << "-"
     << p.column + p.columns - 1 << ")";
  return text;
}

static LogicalResult allocate(FunctionOpInterface func) {
  SmallVector<TMEMBufferOp> buffers;
  func->walk([&](TMEMBufferOp op) { buffers.push_back(op); });
  if (buffers.empty())
    return success();
  TMEMAllocOp allocated;
  func->walk([&](TMEMAllocOp op) { allocated = op; });
  if (allocated)
    return allocated.emitError("ws-allocate-tmem: the kernel already "
                               "allocates tensor memory (ws.tmem_alloc)");
  Block &body = func.getFunctionBody().front();
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;

  // Roots and their aliases; each root's lifetime covers its aliases' uses.
  llvm::MapVector<Operation *, Placement> placements;
  for (TMEMBufferOp buffer : buffers) {
    TMEMBufferOp root = buffer.getRoot();
    auto [it, inserted] =
        placements.insert({root, Placement{root, {}, 0, 0, 0}});
    Placement &p = it->second;
    if (inserted) {
      p.columns = root.getStages() * root.getSlotColumns();
      Operation *top = topLevelOf(root, body);
      if (!top)
        return root.emitOpError(
            "must be in the kernel's body for ws-allocate-tmem");
      p.first = std::numeric_limits<int64_t>::max();
      p.last = -1;
    }
    if (buffer != root)
      p.aliases.push_back(buffer);
    for (Operation *user : buffer->getUsers()) {
      if (isa<TMEMBufferOp>(user))
        continue;
      Operation *top = topLevelOf(user, body);
      if (!top)
        continue;
      p.first = std::min(p.first, position.lookup(top));
      p.last = std::max(p.last, position.lookup(top));
    }
  }
  SmallVector<Placement *> order;
  for (auto &entry : placements) {
    Placement &p = entry.second;
    if (p.last < 0) // Never used: live at its definition only.
      p.first = p.last = position.lookup(topLevelOf(p.buffer, body));
    order.push_back(&p);
  }
  llvm::stable_sort(
      order, [](Placement *a, Placement *b) { return a->first < b->first; });

  // First fit among the buffers placed so far whose lifetimes overlap.
  int64_t end = 0;
  for (auto [i, p] : llvm::enumerate(order)) {
    SmallVector<Placement *> live;
    for (Placement *other : ArrayRef(order).take_front(i))
      if (other->first <= p->last && p->first <= other->last)
        live.push_back(other);
    llvm::sort(
        live, [](Placement *a, Placement *b) { return a->column < b->column; });
    int64_t column = 0;
    for (Placement *other : live)
      if (column + p->columns > other->column &&
          other->column + other->columns > column)
        column = llvm::alignTo(other->column + other->columns, kTMEMGranule);
    if (column + p->columns > kTMEMColumns) {
      int64_t used = 0;
      for (Placement *other : live)
        used += other->columns;
      InFlightDiagnostic diag =
          p->buffer.emitError()
          << "tensor memory: this buffer needs " << p->columns
          << " columns but only " << std::max<int64_t>(kTMEMColumns - used, 0)
          << " of the " << kTMEMColumns << " are free while it is live";
      if (!live.empty()) {
        diag << "; live with it:";
        for (auto [j, other] : llvm::enumerate(live))
          diag << (j ? ", " : " ") << describe(*other);
      }
      return diag;
    }
    p->column = column;
    end = std::max(end, column + p->columns);
  }

  // One allocation for the whole kernel, issued at its start.
  int64_t columns = std::max<int64_t>(kTMEMGranule, llvm::PowerOf2Ceil(end));
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&body);
  Location loc = func.getLoc();
  Value slot = BufferAllocOp::create(
      b, loc,
      MemRefType::get({1}, b.getI32Type(), MemRefLayoutAttrInterface(),
                      b.getI64IntegerAttr(kSharedAddressSpace)),
      IntegerAttr());
  Value base = TMEMAllocOp::create(b, loc, b.getI32Type(),
                                   b.getI32IntegerAttr(columns), slot);
  TMEMRelinquishOp::create(b, loc);
  for (auto &entry : placements) {
    Placement &p = entry.second;
    SmallVector<TMEMBufferOp> all{p.buffer};
    llvm::append_range(all, p.aliases);
    for (TMEMBufferOp buffer : all) {
      buffer.getBaseMutable().assign(base);
      buffer.setColumnAttr(b.getI64IntegerAttr(p.column));
    }
  }
  b.setInsertionPoint(body.getTerminator());
  TMEMDeallocOp::create(b, loc, base, b.getI32IntegerAttr(columns));
  return success();
}

namespace {
struct WSAllocateTMEMPass
    : public ws::impl::WSAllocateTMEMBase<WSAllocateTMEMPass> {
  void runOnOperation() override {
    if (failed(runOnEach<FunctionOpInterface>(
            getOperation(), [](FunctionOpInterface func) {
              return func.isExternal() ? success() : allocate(func);
            })))
      signalPassFailure();
  }
};
} // namespace
