//===- WSOps.cpp - Ops of the ws dialect ---------------------------------===//
//
// Part of fmha. Verifiers and type inference of the ws ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ws;

#define GET_OP_CLASSES
#include "fmha/Dialect/WS/IR/WSOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

int64_t WarpSpecializeOp::getTotalWarps() {
  int64_t warps = 0;
  for (RoleOp role : getRoles())
    warps += role.getWarps();
  return warps;
}

LogicalResult WarpSpecializeOp::verifyRegions() {
  llvm::StringSet<> names;
  int64_t registers = 0;
  bool allBudgets = true;
  unsigned numRoles = 0;
  for (Operation &op : getBody().front()) {
    auto role = dyn_cast<RoleOp>(op);
    if (!role)
      return op.emitOpError("cannot stand directly in ws.warp_specialize: its "
                            "body holds only ws.role ops");
    ++numRoles;
    if (!names.insert(role.getRoleName()).second)
      return role.emitOpError("role name '")
             << role.getRoleName() << "' is used twice";
    if (std::optional<uint32_t> regs = role.getRegs())
      registers += int64_t(*regs) * role.getNumThreads();
    else
      allBudgets = false;
  }
  if (numRoles == 0)
    return emitOpError("needs at least one ws.role");
  if (auto outer = (*this)->getParentOfType<WarpSpecializeOp>()) {
    InFlightDiagnostic diag =
        emitOpError("cannot be nested in another ws.warp_specialize: roles "
                    "divide the warps of the CTA once");
    diag.attachNote(outer.getLoc()) << "the enclosing ws.warp_specialize";
    return diag;
  }
  int64_t warps = getTotalWarps();
  if (warps > kMaxWarpsPerCTA)
    return emitOpError("roles need ")
           << warps << " warps; a CTA has at most " << kMaxWarpsPerCTA;
  if (allBudgets && registers > kRegistersPerSM)
    return emitOpError("register budgets need ")
           << registers << " registers per CTA; an SM has " << kRegistersPerSM;

  // Warp ranges, where assigned, must not overlap.
  SmallVector<std::pair<int64_t, RoleOp>> ranges;
  for (RoleOp role : getRoles())
    if (std::optional<uint32_t> first = role.getFirstWarp())
      ranges.push_back({*first, role});
  llvm::sort(ranges, [](auto &a, auto &b) { return a.first < b.first; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    RoleOp prev = ranges[i - 1].second;
    if (ranges[i - 1].first + prev.getWarps() > ranges[i].first)
      return ranges[i].second.emitOpError("warps of role '")
             << ranges[i].second.getRoleName() << "' overlap those of role '"
             << prev.getRoleName() << "'";
  }
  return success();
}

LogicalResult RoleOp::verify() {
  if (std::optional<uint32_t> regs = getRegs())
    if (!isValidRegisterBudget(*regs))
      return emitOpError("register budget must be a multiple of ")
             << kRegisterBudgetStep << " in [" << kMinRegisterBudget << ", "
             << kMaxRegisterBudget << "] (setmaxnreg), got " << *regs;
  if (std::optional<uint32_t> first = getFirstWarp()) {
    if (getWarps() % 4 == 0 && *first % 4 != 0)
      return emitOpError("a role of whole warpgroups must start on a "
                         "warpgroup boundary, but first_warp is ")
             << *first;
    if (int64_t(*first) + getWarps() > kMaxWarpsPerCTA)
      return emitOpError("warps ")
             << *first << ".." << *first + getWarps() - 1 << " exceed the "
             << kMaxWarpsPerCTA << " warps of a CTA";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

/// Channel ops run in a role: the role decides who arrives on the barriers.
static LogicalResult verifyInRole(Operation *op) {
  if (!op->getParentOfType<RoleOp>())
    return op->emitOpError("must be inside a ws.role");
  return success();
}

/// Ops that the role's first thread alone executes (TMA copies, MMAs,
/// `leader` arrivals): ws-lower-roles guards them by the role's leader,
/// which only a role has, and marks them (`ws.leader_guarded`) as it
/// takes them out of their role.
static LogicalResult verifyLeaderInRole(Operation *op) {
  if (!op->getParentOfType<RoleOp>() &&
      !op->hasAttr(WSDialect::LeaderGuardedAttrHelper::getNameStr()))
    return op->emitOpError("must be inside a ws.role: the first thread of "
                           "its role issues it, and outside a role every "
                           "thread would");
  return success();
}

/// The token must come from `TakeOp` on the same channel.
template <typename TakeOp>
static LogicalResult verifyToken(Operation *op, Value channel, Value token,
                                 StringRef takeName) {
  auto take = token.getDefiningOp<TakeOp>();
  if (!take)
    return op->emitOpError("token must come from ") << takeName;
  if (take.getChannel() != channel)
    return op->emitOpError("token comes from ")
           << takeName << " of another channel";
  return success();
}

static LogicalResult inferSlotTypes(ValueRange operands,
                                    SmallVectorImpl<Type> &types) {
  if (operands.size() != 1)
    return failure();
  auto channel = dyn_cast<ChannelType>(operands[0].getType());
  if (!channel)
    return failure();
  types.push_back(TokenType::get(channel.getContext()));
  llvm::append_range(types, channel.getBuffers());
  return success();
}

LogicalResult ProducerAcquireOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &types) {
  return inferSlotTypes(operands, types);
}

LogicalResult ConsumerWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &types) {
  return inferSlotTypes(operands, types);
}

LogicalResult ThreadIdOp::verify() { return verifyInRole(*this); }
LogicalResult ProducerAcquireOp::verify() { return verifyInRole(*this); }
LogicalResult ConsumerWaitOp::verify() { return verifyInRole(*this); }

LogicalResult ProducerCommitOp::verify() {
  if (failed(verifyInRole(*this)) ||
      failed(verifyToken<ProducerAcquireOp>(*this, getChannel(), getToken(),
                                            "ws.producer_acquire")))
    return failure();
  std::optional<int64_t> bytes = getTxBytes();
  if (getUnit() == AsyncUnit::TMA) {
    if (!bytes || *bytes <= 0)
      return emitOpError("a commit by tma needs a positive tx_bytes count");
    int64_t slotBytes = getChannel().getType().getSlotBytes();
    if (*bytes > slotBytes)
      return emitOpError("commits ")
             << *bytes << " bytes but a slot holds only " << slotBytes;
  } else if (bytes) {
    return emitOpError("tx_bytes is only meaningful for a commit by tma");
  }
  return success();
}

LogicalResult ConsumerReleaseOp::verify() {
  if (failed(verifyInRole(*this)) ||
      failed(verifyToken<ConsumerWaitOp>(*this, getChannel(), getToken(),
                                         "ws.consumer_wait")))
    return failure();
  if (getUnit() == AsyncUnit::TMA)
    return emitOpError("a slot cannot be released by tma; release it by "
                       "threads, wgmma or tcgen05");
  return success();
}

/// Checks a TMA copy of one block of `desc` at `coords` into `buffer`.
static LogicalResult verifyTMACopy(Operation *op, tile::TensorDescType desc,
                                   ValueRange coords, MemRefType buffer) {
  if (coords.size() != desc.getGlobalRank())
    return op->emitOpError("needs one coordinate per global dimension (")
           << desc.getGlobalRank() << "), got " << coords.size();
  RankedTensorType block = desc.getBlock();
  if (buffer.getShape() != block.getShape() ||
      buffer.getElementType() != block.getElementType())
    return op->emitOpError("buffer ")
           << buffer << " does not hold one block " << block;
  if (!isSharedMemory(buffer))
    return op->emitOpError("TMA copies between global and shared memory, but "
                           "the buffer is ")
           << buffer;
  return success();
}

/// A TMA multicast copy: a kernel marked ws.multicast, and a block that
/// splits into two parts written where the whole block would be (halves by
/// rows when a row is one box, else by boxes, rank 0 taking one more of an
/// odd number).
static LogicalResult verifyMulticastCopy(Operation *op,
                                         tile::TensorDescType desc) {
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  if (!kernel || !kernel->hasAttr(kMulticastAttrName))
    return op->emitOpError("multicast needs a kernel in clusters of two CTAs "
                           "(the '")
           << kMulticastAttrName << "' attribute on its function)";
  RankedTensorType block = desc.getBlock();
  if (block.getRank() != 2)
    return op->emitOpError("multicast splits a 2-d block, got ") << block;
  TMABoxes boxes = getTMABoxes(block);
  int64_t rows = block.getShape().front();
  if (boxes.count == 1 && rows % (2 * fmha::limits::kSwizzleAtomRows) != 0)
    return op->emitOpError("multicast splits the ")
           << rows << " rows of block " << block
           << " between two CTAs: expected a multiple of "
           << 2 * fmha::limits::kSwizzleAtomRows
           << " (halves of whole swizzle patterns)";
  return success();
}

LogicalResult TMALoadOp::verify() {
  if (failed(verifyInRole(*this)) ||
      failed(verifyTMACopy(*this, getDesc().getType(), getCoords(),
                           getBuffer().getType())))
    return failure();
  if (getMulticast() && failed(verifyMulticastCopy(*this, getDesc().getType())))
    return failure();
  auto take = getToken().getDefiningOp<ProducerAcquireOp>();
  if (!take)
    return emitOpError("token must come from ws.producer_acquire");
  if (!llvm::is_contained(take.getBuffers(), getBuffer()))
    return emitOpError("buffer is not one of the buffers of the token's slot");
  return success();
}

LogicalResult AsTensorOp::verify() {
  MemRefType buffer = getBuffer().getType();
  RankedTensorType tensor = getResult().getType();
  if (buffer.getShape() != tensor.getShape() ||
      buffer.getElementType() != tensor.getElementType())
    return emitOpError("tensor ")
           << tensor << " does not match buffer " << buffer;
  if (isTensorMemory(buffer)) {
    if (!isa_and_nonnull<tile::TmemAttr>(tensor.getEncoding()))
      return emitOpError("reads tensor memory as a #tile.tmem tensor, got ")
             << tensor;
    return success();
  }
  if (!isSharedMemory(buffer))
    return emitOpError("reads shared or tensor memory, but the buffer is ")
           << buffer;
  return success();
}

LogicalResult ChannelOp::verify() {
  Value aliased = getAliases();
  if (!aliased)
    return success();
  ChannelType type = getType();
  auto other = cast<ChannelType>(aliased.getType());
  if (!type.isTensorMemory() || !other.isTensorMemory())
    return emitOpError("aliases tensor-memory channels only");
  if (type.getStages() != other.getStages() ||
      type.getBuffers().size() != other.getBuffers().size())
    return emitOpError("must have the stages and buffer count of the channel "
                       "it aliases");
  for (auto [mine, theirs] : llvm::zip(type.getBuffers(), other.getBuffers()))
    if (mine.getShape()[0] != theirs.getShape()[0] ||
        llvm::divideCeil(mine.getShape()[1] * mine.getElementTypeBitWidth(),
                         32) >
            llvm::divideCeil(
                theirs.getShape()[1] * theirs.getElementTypeBitWidth(), 32))
      return emitOpError("buffer ")
             << mine << " does not fit in the columns of " << theirs;
  return success();
}

/// Checks a copy between `tensor` and `buffer`: they have the same shape and
/// element type (a store of the one fills the other), and the buffer is in
/// the memory `inMemory` accepts, the one `access` ("reads shared memory")
/// names.
static LogicalResult verifyBufferCopy(Operation *op, RankedTensorType tensor,
                                      MemRefType buffer,
                                      bool (*inMemory)(MemRefType),
                                      StringRef access) {
  if (buffer.getShape() != tensor.getShape() ||
      buffer.getElementType() != tensor.getElementType())
    return op->emitOpError("tensor ")
           << tensor << " does not match buffer " << buffer;
  if (!inMemory(buffer))
    return op->emitOpError() << access << ", but the buffer is " << buffer;
  return success();
}

LogicalResult LoadSharedOp::verify() {
  return verifyBufferCopy(*this, getResult().getType(), getBuffer().getType(),
                          isSharedMemory, "reads shared memory");
}

LogicalResult StoreTMEMOp::verify() {
  RankedTensorType tensor = getValue().getType();
  if (failed(verifyBufferCopy(*this, tensor, getBuffer().getType(),
                              isTensorMemory,
                              "writes tensor memory (#ws.tmem)")))
    return failure();
  if (!isa_and_nonnull<tile::Tmem32x32bAttr>(tensor.getEncoding()))
    return emitOpError("stores a tensor in the #tile.tmem_32x32b register "
                       "layout, got ")
           << tensor;
  return success();
}

LogicalResult TCGen05MMAOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto d = cast<MemRefType>(getD().getType());
  if (!isTensorMemory(d) || d.getRank() != 2 || !d.getElementType().isF32())
    return emitOpError("accumulates into a 2-d f32 tensor-memory buffer, got ")
           << d;
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("multiplies 2-d tensors");
  if (!isa_and_nonnull<tile::NvmmaSharedAttr, tile::TmemAttr>(
          a.getEncoding()) ||
      !isa_and_nonnull<tile::NvmmaSharedAttr>(b.getEncoding()))
    return emitOpError("reads A from shared (#tile.nvmma_shared) or tensor "
                       "memory (#tile.tmem) and B from shared memory");
  Type aElement = a.getElementType(), bElement = b.getElementType();
  bool sixteenBits =
      aElement == bElement && (aElement.isBF16() || aElement.isF16());
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(aElement) &&
             isa<Float8E4M3FNType, Float8E5M2Type>(bElement);
  if (!sixteenBits && !fp8)
    return emitOpError("multiplies bf16 or f16 operands of one type, or "
                       "f8E4M3FN / f8E5M2 operands, got ")
           << aElement << " and " << bElement;
  if (fp8 && isa<tile::TmemAttr>(a.getEncoding()))
    return emitOpError("reads fp8 A from shared memory only, not tensor "
                       "memory");
  bool ta = getTransposeA(), tb = getTransposeB();
  int64_t m = ta ? a.getShape()[1] : a.getShape()[0];
  int64_t ka = ta ? a.getShape()[0] : a.getShape()[1];
  int64_t kb = tb ? b.getShape()[1] : b.getShape()[0];
  int64_t n = tb ? b.getShape()[0] : b.getShape()[1];
  // A CTA pair's B: each CTA holds half of N.
  int64_t dN = getCtaPair() ? 2 * n : n;
  if (ka != kb || m != d.getShape()[0] || dN != d.getShape()[1])
    return emitOpError("shapes do not multiply: A is ")
           << m << "x" << ka << ", B " << kb << "x" << n
           << (getCtaPair() ? " (half of the pair's)" : "") << ", D " << d;
  return verifyLeaderInRole(*this);
}

LogicalResult StoreSharedOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(verifyBufferCopy(*this, value, getBuffer().getType(),
                              isSharedMemory, "writes shared memory")))
    return failure();
  tile::NvmmaSharedAttr layout = getLayoutAttr();
  if (!layout)
    return success();
  unsigned bits = value.getElementType().getIntOrFloatBitWidth();
  int64_t rowBytes = value.getRank() == 2 ? value.getShape()[1] * bits / 8 : 0;
  if (layout.getTransposed() || layout.getSwizzle() == 0 ||
      layout.getElementBits() != bits || rowBytes % layout.getSwizzle() != 0 ||
      value.getShape()[0] % fmha::limits::kSwizzleAtomRows != 0)
    return emitOpError("stores a 2-d tensor of whole swizzle patterns ("
                       "rows a multiple of ")
           << fmha::limits::kSwizzleAtomRows
           << ") into a row-major swizzled layout whose span its rows fill, "
              "with the element type's width, got "
           << layout << " for " << value;
  return success();
}

LogicalResult TransposeSharedOp::verify() {
  RankedTensorType source = getSource().getType();
  MemRefType buffer = getBuffer().getType();
  auto from = dyn_cast_or_null<tile::NvmmaSharedAttr>(source.getEncoding());
  tile::NvmmaSharedAttr to = getLayout();
  if (!from || from.getTransposed() || from.getSwizzle() == 0)
    return emitOpError("reads a row-major swizzled #tile.nvmma_shared "
                       "tensor, got ")
           << source;
  if (!isSharedMemory(buffer))
    return emitOpError("writes shared memory, got ") << buffer;
  if (source.getRank() != 2 || buffer.getRank() != 2 ||
      source.getShape()[0] != buffer.getShape()[1] ||
      source.getShape()[1] != buffer.getShape()[0] ||
      source.getElementType() != buffer.getElementType() ||
      source.getElementTypeBitWidth() != 8)
    return emitOpError("writes the transpose of a 2-d tile of one-byte "
                       "elements: expected a buffer of ")
           << MemRefType::get(
                  {source.getShape().back(), source.getShape().front()},
                  source.getElementType(), MemRefLayoutAttrInterface(),
                  buffer.getMemorySpace())
           << ", got " << buffer;
  if (source.getShape()[0] % tile::kTransposeRowGroup != 0 ||
      source.getShape()[1] % tile::kTransposeColumnBytes != 0)
    return emitOpError("moves rows in groups of ")
           << tile::kTransposeRowGroup << " and columns in runs of "
           << tile::kTransposeColumnBytes << ", got " << source;
  if (to.getTransposed() || to.getSwizzle() == 0 || to.getElementBits() != 8 ||
      buffer.getShape()[1] % to.getSwizzle() != 0)
    return emitOpError("writes a row-major swizzled layout whose span the "
                       "rows fill, got ")
           << to << " for " << buffer;
  if (!getKQuad16())
    return emitOpError("writes the k_quad16 order (the one fp8 attention's "
                       "P V reads); the plain order is not built");
  if (getWarps() < 1)
    return emitOpError("runs on at least one warp, got ") << getWarps();
  return success();
}

LogicalResult TMAStoreOp::verify() {
  if (failed(verifyTMACopy(*this, getDesc().getType(), getCoords(),
                           getBuffer().getType())))
    return failure();
  // With a predicate it says itself which thread issues it.
  return getPred() ? success() : verifyLeaderInRole(*this);
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

static LogicalResult verifyNamedBarrier(Operation *op, uint32_t threads) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return op->emitOpError("thread count must be a multiple of 32 in [32, "
                           "1024], got ")
           << threads;
  return success();
}

LogicalResult BarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getThreads());
}
LogicalResult BarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getThreads());
}
LogicalResult CounterArriveOp::verify() {
  return verifyNamedBarrier(*this, getThreads());
}

//===----------------------------------------------------------------------===//
// Explicit rings
//===----------------------------------------------------------------------===//

/// Checks that the explicit `offset` of an allocation, when given, is a
/// non-negative multiple of `alignment`: "<what> are <alignment>-byte
/// aligned, but offset is <offset>".
static LogicalResult verifyOffset(Operation *op, std::optional<int64_t> offset,
                                  int64_t alignment, StringRef what) {
  if (!offset || (*offset >= 0 && *offset % alignment == 0))
    return success();
  return op->emitOpError() << what << " are " << alignment
                           << "-byte aligned, but offset is " << *offset;
}

LogicalResult MBarrierAllocOp::verify() {
  return verifyOffset(*this, getOffset(), 8, "mbarriers");
}

LogicalResult BufferAllocOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!type.hasStaticShape() || !isSharedMemory(type) ||
      !type.getLayout().isIdentity() || getMemRefBytes(type) == 0)
    return emitOpError("allocates a statically shaped shared-memory buffer "
                       "of integers or floats, got ")
           << type;
  return verifyOffset(*this, getOffset(), 16, "buffers");
}

LogicalResult SlotOp::verify() {
  MemRefType ring = getRing().getType();
  MemRefType buffer = getBuffer().getType();
  if (ring.getRank() != buffer.getRank() + 1 ||
      ring.getShape().drop_front() != buffer.getShape() ||
      ring.getElementType() != buffer.getElementType() ||
      ring.getMemorySpace() != buffer.getMemorySpace())
    return emitOpError("the ring must be the slot type with a leading stage "
                       "dimension, got ")
           << ring << " and " << buffer;
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (getTxBytes() && !getLeader())
    return emitOpError("tx_bytes must be set by one thread: add 'leader'");
  if (getTcgen05() && (!getLeader() || getTxBytes()))
    return emitOpError("a tcgen05 arrival is one commit by the thread that "
                       "issued the MMAs: it needs 'leader' and no tx_bytes");
  if (std::optional<int64_t> bytes = getTxBytes())
    if (*bytes <= 0)
      return emitOpError("tx_bytes must be positive, got ") << *bytes;
  if (getMulticast()) {
    if (!getTcgen05() && (getLeader() || getTxBytes()))
      return emitOpError("a multicast arrival by threads is one per warp in "
                         "each CTA: it takes no 'leader' or tx_bytes (a "
                         "single thread's multicast arrival is a tcgen05 "
                         "commit: add 'tcgen05')");
    auto kernel = (*this)->getParentOfType<FunctionOpInterface>();
    if (!kernel || !kernel->hasAttr(kMulticastAttrName))
      return emitOpError("multicast needs a kernel in clusters of two CTAs "
                         "(the '")
             << kMulticastAttrName << "' attribute on its function)";
  }
  return getLeader() ? verifyLeaderInRole(*this) : success();
}

LogicalResult TMALoadMBarrierOp::verify() {
  if (failed(verifyTMACopy(*this, getDesc().getType(), getCoords(),
                           getBuffer().getType())))
    return failure();
  if (getMulticast() && failed(verifyMulticastCopy(*this, getDesc().getType())))
    return failure();
  return verifyLeaderInRole(*this);
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

static LogicalResult verifyTMEMColumns(Operation *op, uint32_t columns) {
  if (columns < 32 || columns > 512 || !llvm::isPowerOf2_32(columns))
    return op->emitOpError("allocates a power of two of 32 to 512 tensor "
                           "memory columns, got ")
           << columns;
  return success();
}

LogicalResult TMEMAllocOp::verify() {
  if (failed(verifyTMEMColumns(*this, getColumns())))
    return failure();
  if (Value slot = getSlot()) {
    auto type = cast<MemRefType>(slot.getType());
    if (!isSharedMemory(type) || type.getShape() != ArrayRef<int64_t>{1} ||
        !type.getElementType().isInteger(32))
      return emitOpError("writes the address to a shared-memory "
                         "memref<1xi32, 3>, got ")
             << type;
  }
  return success();
}

int64_t TMEMBufferOp::getStages() {
  MemRefType type = getBuffer().getType();
  return type.getRank() == 3 ? type.getShape()[0] : 1;
}

/// 32-bit columns of a rows x cols slot of `elementBits`-bit elements:
/// blocks of 128 lanes side by side, narrower elements packed.
static int64_t slotColumns(ArrayRef<int64_t> shape, unsigned elementBits) {
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  return llvm::divideCeil(rows, 128) * llvm::divideCeil(cols * elementBits, 32);
}

int64_t TMEMBufferOp::getSlotColumns() {
  MemRefType type = getBuffer().getType();
  return slotColumns(type.getShape(), type.getElementTypeBitWidth());
}

TMEMBufferOp TMEMBufferOp::getRoot() {
  TMEMBufferOp root = *this;
  // The verifier rejects cycles of two; longer ones end at the bound.
  for (int i = 0; i < 64 && root.getAliases(); ++i) {
    auto next = root.getAliases().getDefiningOp<TMEMBufferOp>();
    if (!next)
      break;
    root = next;
  }
  return root;
}

int64_t TMEMBufferOp::getStageStride() { return getRoot().getSlotColumns(); }

LogicalResult TMEMBufferOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!isTensorMemory(type) || !type.hasStaticShape() ||
      (type.getRank() != 2 && type.getRank() != 3) ||
      !type.getElementType().isIntOrFloat() ||
      !llvm::is_contained({8u, 16u, 32u}, type.getElementTypeBitWidth()))
    return emitOpError("allocates a statically shaped 2-d (or staged 3-d) "
                       "tensor-memory buffer (#ws.tmem) of 8-, 16- or 32-bit "
                       "elements, got ")
           << type;
  int64_t rows = type.getShape()[type.getRank() - 2];
  if (rows != 64 && rows % 128 != 0)
    return emitOpError("buffer rows are TMEM lanes: 64 or a multiple of 128, "
                       "got ")
           << rows;
  if (getBase() && !getColumn())
    return emitOpError("has a base allocation but no column");
  if (Value aliased = getAliases()) {
    auto other = aliased.getDefiningOp<TMEMBufferOp>();
    if (!other || other == *this)
      return emitOpError("aliases another ws.tmem_buffer only");
    if (other.getStages() != getStages())
      return emitOpError("has ")
             << getStages() << " stage(s) but the buffer it aliases has "
             << other.getStages();
    if (getSlotColumns() > other.getSlotColumns())
      return emitOpError("takes ")
             << getSlotColumns()
             << " columns per stage, more than the buffer it aliases ("
             << other.getSlotColumns() << ")";
  }
  return success();
}
LogicalResult TMEMDeallocOp::verify() {
  return verifyTMEMColumns(*this, getColumns());
}
