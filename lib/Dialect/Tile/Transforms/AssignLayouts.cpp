//===- AssignLayouts.cpp - Target layouts for tile programs --------------===//
//
// Part of fmha. Implements tile-assign-layouts.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/Tile/Transforms/Passes.h"
#include "fmha/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "fmha/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Encodings chosen for values, grown by propagation.
class LayoutMap {
public:
  /// Records `encoding` for `value`; fails on a conflicting earlier choice.
  LogicalResult set(Value value, Attribute encoding, Operation *where) {
    auto [it, inserted] = encodings.insert({value, encoding});
    if (inserted) {
      worklist.push_back(value);
      return success();
    }
    if (it->second != encoding)
      return where->emitOpError("needs layout ")
             << encoding << " for a tensor that already has " << it->second;
    return success();
  }

  /// Spreads each recorded encoding to the values that must share it.
  LogicalResult propagate() {
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Attribute encoding = encodings.lookup(value);
      SmallVector<std::pair<Value, Operation *>> related;
      collectRelated(value, related);
      for (auto [other, where] : related)
        if (failed(set(other, encoding, where)))
          return failure();
      if (failed(propagateTransposes(value, encoding)))
        return failure();
    }
    return success();
  }

  /// Gives the other side of each tile.transpose that defines or uses
  /// `value` the transposed layout of `encoding`. A transpose in shared
  /// memory moves its bytes: each side has a layout of its own, both set
  /// before propagation (assignOperand).
  LogicalResult propagateTransposes(Value value, Attribute encoding) {
    auto setTransposed = [&](Value other, Operation *where) -> LogicalResult {
      if (isa<NvmmaSharedAttr>(encoding) &&
          isa_and_nonnull<NvmmaSharedAttr>(lookup(other)))
        return success();
      Attribute transposed = getTransposedLayout(encoding);
      if (!transposed)
        return where->emitOpError("transposes a tensor in layout ")
               << encoding << ", not a 2-d register layout";
      return set(other, transposed, where);
    };
    if (auto transpose = value.getDefiningOp<TransposeOp>())
      if (failed(setTransposed(transpose.getInput(), transpose)))
        return failure();
    for (Operation *user : value.getUsers())
      if (auto transpose = dyn_cast<TransposeOp>(user))
        if (failed(setTransposed(transpose.getResult(), transpose)))
          return failure();
    return success();
  }

  /// The encoding recorded for `value`, or null.
  Attribute lookup(Value value) const { return encodings.lookup(value); }

  /// Gives reductions and broadcasts the row-slice layouts of their full
  /// tensors and spreads them, until nothing changes.
  LogicalResult propagateSlices(Operation *root);

  /// Rewrites the types of all recorded values.
  void apply();

private:
  static void
  collectRelated(Value value,
                 SmallVectorImpl<std::pair<Value, Operation *>> &out);

  DenseMap<Value, Attribute> encodings;
  SmallVector<Value> worklist;
};

} // namespace

/// Ops whose tensor operands and results share one layout.
static bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<arith::ConstantOp, tensor::SplatOp, IotaOp>(op);
}

static bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

void LayoutMap::collectRelated(
    Value value, SmallVectorImpl<std::pair<Value, Operation *>> &out) {
  auto addAll = [&](Operation *op) {
    for (Value v : op->getOperands())
      if (isTensor(v))
        out.push_back({v, op});
    for (Value v : op->getResults())
      if (isTensor(v))
        out.push_back({v, op});
  };
  // Loop-carried values: the init, the iteration argument, the yielded value
  // and the result of one position.
  auto addLoopPosition = [&](scf::ForOp loop, unsigned i) {
    out.push_back({loop.getInitArgs()[i], loop});
    out.push_back({loop.getRegionIterArgs()[i], loop});
    out.push_back({loop.getYieldedValues()[i], loop});
    out.push_back({loop.getResult(i), loop});
  };

  // Values an scf.if yields: its result and both branches' values.
  auto addIfPosition = [&](scf::IfOp ifOp, unsigned i) {
    out.push_back({ifOp.getResult(i), ifOp});
    out.push_back({ifOp.thenYield().getOperand(i), ifOp});
    if (!ifOp.getElseRegion().empty())
      out.push_back({ifOp.elseYield().getOperand(i), ifOp});
  };

  if (Operation *def = value.getDefiningOp()) {
    if (isElementwise(def))
      addAll(def);
    else if (auto dot = dyn_cast<DotOp>(def))
      out.push_back({dot.getAcc(), dot});
    else if (auto scale = dyn_cast<ScaleRowsOp>(def))
      out.push_back({scale.getInput(), scale});
    else if (auto wait = dyn_cast<DotWaitOp>(def))
      out.push_back(
          {wait.getValues()[cast<OpResult>(value).getResultNumber()], wait});
    else if (auto loop = dyn_cast<scf::ForOp>(def))
      addLoopPosition(loop, cast<OpResult>(value).getResultNumber());
    else if (auto ifOp = dyn_cast<scf::IfOp>(def))
      addIfPosition(ifOp, cast<OpResult>(value).getResultNumber());
  } else if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (arg.getArgNumber() >= loop.getNumInductionVars())
        addLoopPosition(loop, arg.getArgNumber() - loop.getNumInductionVars());
  }
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isElementwise(user)) {
      addAll(user);
    } else if (auto dot = dyn_cast<DotOp>(user)) {
      if (use.get() == dot.getAcc())
        out.push_back({dot.getResult(), dot});
    } else if (auto scale = dyn_cast<ScaleRowsOp>(user)) {
      if (use.get() == scale.getInput())
        out.push_back({scale.getResult(), scale});
    } else if (auto wait = dyn_cast<DotWaitOp>(user)) {
      out.push_back({wait.getResult(use.getOperandNumber()), wait});
    } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
        addLoopPosition(loop, use.getOperandNumber());
      else if (auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp()))
        addIfPosition(ifOp, use.getOperandNumber());
    } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
      if (use.getOperandNumber() >= loop.getNumControlOperands())
        addLoopPosition(loop,
                        use.getOperandNumber() - loop.getNumControlOperands());
    }
  }
}

LogicalResult LayoutMap::propagateSlices(Operation *root) {
  bool changed = true, fallback = false;
  while (changed || !fallback) {
    if (!changed)
      fallback = true;
    changed = false;
    auto setIfNew = [&](Value value, Attribute encoding,
                        Operation *where) -> LogicalResult {
      if (lookup(value) || !encoding)
        return success();
      changed = true;
      return set(value, encoding, where);
    };
    // A vector spread along `axis` of `full` (tile.broadcast's input,
    // tile.scale_rows' factors): its slice layout gives `full` the parent;
    // it takes the slice of `full` only when nothing else decides (a
    // reduction usually does); different slices meet through a
    // tile.convert_layout.
    auto spreadVector = [&](Value full, Value vector, unsigned axis,
                            Operation *where) -> LogicalResult {
      if (auto slice = dyn_cast_or_null<SliceAttr>(lookup(vector)))
        return setIfNew(full, slice.getParent(), where);
      if (Attribute parent = lookup(full); parent && fallback)
        return setIfNew(vector, SliceAttr::get(axis, parent), where);
      return success();
    };
    WalkResult walk = root->walk([&](Operation *op) {
      LogicalResult result = success();
      if (auto reduce = dyn_cast<ReduceOp>(op)) {
        unsigned axis = reduce.getAxis();
        if (Attribute full = lookup(reduce.getInput()))
          result = setIfNew(reduce.getResult(), SliceAttr::get(axis, full), op);
        else if (auto slice =
                     dyn_cast_or_null<SliceAttr>(lookup(reduce.getResult())))
          result = setIfNew(reduce.getInput(), slice.getParent(), op);
      } else if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
        result = spreadVector(broadcast.getResult(), broadcast.getInput(),
                              broadcast.getAxis(), op);
      } else if (auto scale = dyn_cast<ScaleRowsOp>(op)) {
        // The factors are a row vector spread over the input's rows.
        result = spreadVector(scale.getInput(), scale.getFactors(), 1, op);
      }
      return failed(result) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted() || failed(propagate()))
      return failure();
  }
  return success();
}

/// Gives the vector `operand` of `op` the slice along `axis` of `full`'s
/// layout, through a tile.convert_layout where it has another.
static void convertToSliceOf(Operation *op, OpOperand &operand,
                             RankedTensorType full, unsigned axis) {
  auto vector = cast<RankedTensorType>(operand.get().getType());
  if (!full.getEncoding())
    return;
  auto wanted = SliceAttr::get(axis, full.getEncoding());
  if (vector.getEncoding() == wanted)
    return;
  OpBuilder b(op);
  operand.set(ConvertLayoutOp::create(
      b, op->getLoc(),
      RankedTensorType::get(vector.getShape(), vector.getElementType(), wanted),
      operand.get()));
}

/// A broadcast (or tile.scale_rows) whose row vector has the slice layout of
/// another tensor (the row max of S, broadcast into O's layout; the factors
/// that rescale O) gets a tile.convert_layout: the rows a thread holds are
/// the same in every wgmma layout of one warpgroup, so the conversion moves
/// no data.
static void insertSliceConversions(Operation *root) {
  root->walk([](BroadcastOp broadcast) {
    convertToSliceOf(broadcast, broadcast.getInputMutable(),
                     broadcast.getResult().getType(), broadcast.getAxis());
  });
  root->walk([](ScaleRowsOp scale) {
    convertToSliceOf(scale, scale.getFactorsMutable(),
                     scale.getInput().getType(), /*axis=*/1);
  });
}

static RankedTensorType withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               encoding);
}

void LayoutMap::apply() {
  for (auto [value, encoding] : encodings) {
    RankedTensorType type = withEncoding(value.getType(), encoding);
    value.setType(type);
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(dense.reshape(type));
  }
}

/// The NVMMA shared layout for a row-major operand whose rows hold
/// `rowBytes` bytes: the widest swizzle the rows fill.
static FailureOr<NvmmaSharedAttr> sharedLayoutFor(RankedTensorType type,
                                                  Operation *where) {
  if (NvmmaSharedAttr layout = NvmmaSharedAttr::getRowMajor(type))
    return layout;
  return where->emitOpError("operand rows of ")
         << type.getShape().back() *
                type.getElementType().getIntOrFloatBitWidth() / 8
         << " bytes fill no swizzle span (32, 64 or 128 bytes)";
}

/// Gives descriptor `desc` the shared layout `layout` in `descLayouts`, or
/// fails at `user` (which `verb`s it: "read", "used") if it already has
/// another one.
static LogicalResult setDescLayout(DenseMap<Value, Attribute> &descLayouts,
                                   Value desc, NvmmaSharedAttr layout,
                                   Operation *user, StringRef verb) {
  auto [it, inserted] = descLayouts.insert({desc, layout});
  if (!inserted && it->second != layout)
    return user->emitOpError("descriptor is ")
           << verb << " with two different layouts";
  return success();
}

/// Places a dot operand in shared memory: its load and that load's
/// descriptor get the NVMMA layout. An operand computed in registers keeps
/// the register layout it is computed in (propagation gives it one): as A
/// read K-major (attention's P), wgmma reads it there; otherwise it goes
/// into `staged`, to be stored into shared memory for the dot.
static LogicalResult assignOperand(Value operand, LayoutMap &layouts,
                                   DenseMap<Value, Attribute> &descLayouts,
                                   DotOp dot,
                                   SmallVectorImpl<OpOperand *> &staged) {
  // A loaded tile transposed in shared memory (fp8 attention's V^T): the
  // load and the transpose each row-major in the widest swizzle its rows
  // fill.
  auto transpose = operand.getDefiningOp<TransposeOp>();
  if (auto load =
          transpose ? transpose.getInput().getDefiningOp<LoadOp>() : LoadOp()) {
    FailureOr<NvmmaSharedAttr> from =
        sharedLayoutFor(load.getType(), transpose);
    FailureOr<NvmmaSharedAttr> to = sharedLayoutFor(transpose.getType(), dot);
    if (failed(from) || failed(to) ||
        failed(
            setDescLayout(descLayouts, load.getDesc(), *from, load, "read")) ||
        failed(layouts.set(load.getResult(), *from, transpose)))
      return failure();
    return layouts.set(operand, *to, dot);
  }
  auto load = operand.getDefiningOp<LoadOp>();
  if (!load && operand == dot.getA() && !dot.getTransposeA())
    return success();
  if (!load) {
    staged.push_back(operand == dot.getA() ? &dot.getAMutable()
                                           : &dot.getBMutable());
    return success();
  }
  FailureOr<NvmmaSharedAttr> layout =
      sharedLayoutFor(cast<RankedTensorType>(operand.getType()), dot);
  if (failed(layout))
    return failure();
  if (failed(setDescLayout(descLayouts, load.getDesc(), *layout, load, "read")))
    return failure();
  return layouts.set(operand, *layout, dot);
}

/// Retypes descriptors to blocks with the chosen shared layout; function
/// arguments update the function's signature too.
static LogicalResult retypeDescriptors(DenseMap<Value, Attribute> &descLayouts,
                                       Operation *root) {
  for (auto [desc, layout] : descLayouts) {
    auto type = cast<TensorDescType>(desc.getType());
    desc.setType(TensorDescType::get(withEncoding(type.getBlock(), layout),
                                     type.getRank()));
    for (Operation *user : desc.getUsers())
      if (auto load = dyn_cast<LoadOp>(user))
        load.getResult().setType(withEncoding(load.getType(), layout));
  }
  root->walk([](FunctionOpInterface func) {
    if (func.isExternal())
      return;
    SmallVector<Type> inputs(func.getArgumentTypes().size());
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      inputs[i] = arg.getType();
    func.setType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  });
  return success();
}

//===----------------------------------------------------------------------===//
// Tiles no MMA lays out
//===----------------------------------------------------------------------===//

/// Warps of the layout given to tiles no MMA lays out: one warpgroup.
static constexpr unsigned kBlockedWarps = 4;

/// The `#tile.blocked` layout of a 2-d tile loaded with plain loads: runs of
/// the widest vector up to 16 bytes that divides a row, as many lanes per
/// row as fill a warp or the row (one with `lanePerRow`), over one
/// warpgroup.
static FailureOr<Attribute> blockedLayoutFor(RankedTensorType type,
                                             Operation *where,
                                             bool lanePerRow = false) {
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  int64_t rows = type.getShape()[0], cols = type.getShape()[1];
  int64_t vector = 16 / bytes;
  while (vector > 1 && cols % vector != 0)
    vector /= 2;
  int64_t lanes = lanePerRow ? 1 : 32;
  while (lanes > 1 && (cols / vector) % lanes != 0)
    lanes /= 2;
  int64_t tileRows = 32 * kBlockedWarps / lanes;
  if (rows % tileRows != 0)
    return where->emitOpError("loads a tile of ")
           << rows << " rows; its row pieces of " << vector << " elements over "
           << lanes << " lanes need a multiple of " << tileRows << " rows";
  return Attribute(
      BlockedAttr::get(type.getContext(), vector, lanes, kBlockedWarps));
}

/// Gives what no tile computed from a load reached (after the slices'
/// propagation) a layout of its own: a
/// 2-d splat constant that `tile.store_direct` writes (a buffer cleared)
/// the `#tile.blocked` layout of its shape, and a row vector that
/// `tile.load_direct` reads the row slice of a laid-out 2-d tile with as
/// many rows (a per-row input beside the tiles); propagation spreads them
/// to what is computed from them.
static LogicalResult anchorUnconnectedPlainValues(Operation *root,
                                                  LayoutMap &layouts) {
  DenseMap<int64_t, Attribute> parentByRows;
  root->walk([&](LoadDirectOp load) {
    auto type = cast<RankedTensorType>(load.getResult().getType());
    if (type.getRank() == 2)
      if (Attribute layout = layouts.lookup(load.getResult()))
        parentByRows.try_emplace(type.getShape()[0], layout);
  });
  WalkResult walk = root->walk([&](Operation *op) {
    if (auto store = dyn_cast<StoreDirectOp>(op)) {
      Value value = store.getValue();
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getRank() != 2 || type.getEncoding() || layouts.lookup(value) ||
          !matchPattern(value, m_Constant()))
        return WalkResult::advance();
      FailureOr<Attribute> layout = blockedLayoutFor(type, store);
      if (failed(layout) || failed(layouts.set(value, *layout, store)))
        return WalkResult::interrupt();
    } else if (auto load = dyn_cast<LoadDirectOp>(op)) {
      auto type = cast<RankedTensorType>(load.getResult().getType());
      if (type.getRank() != 1 || type.getEncoding() ||
          layouts.lookup(load.getResult()))
        return WalkResult::advance();
      Attribute parent = parentByRows.lookup(type.getShape()[0]);
      if (parent && failed(layouts.set(
                        load.getResult(),
                        SliceAttr::get(load.getContext(), 1, parent), load)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return layouts.propagate();
}

/// Whether every use of `value` is a `tile.store_direct` into a memref
/// whose innermost stride is not 1: it stores value by value, so that a
/// warp's stores of one column cover consecutive rows when each lane holds
/// a row of its own (fmha.transpose_values' V^T).
static bool onlyStoredByColumns(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    auto store = dyn_cast<StoreDirectOp>(user);
    return store && store.getValue() == value && store.storesByColumns();
  });
}

/// Gives the 2-d tiles loaded by `tile.load_direct` that nothing else laid
/// out (no MMA computes them: a merge of partial results) a register layout
/// of their own, `#tile.blocked`, for wide loads (a lane per row when they
/// are only stored by columns); propagation spreads it to what is computed
/// from them.
static LogicalResult anchorDirectLoads(Operation *root, LayoutMap &layouts) {
  WalkResult walk = root->walk([&](LoadDirectOp load) {
    auto type = cast<RankedTensorType>(load.getResult().getType());
    if (type.getRank() != 2 || type.getEncoding() ||
        layouts.lookup(load.getResult()))
      return WalkResult::advance();
    FailureOr<Attribute> layout =
        blockedLayoutFor(type, load, onlyStoredByColumns(load.getResult()));
    if (failed(layout) || failed(layouts.set(load.getResult(), *layout, load)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return layouts.propagate();
}

//===----------------------------------------------------------------------===//
// sm100: accumulators in tensor memory
//===----------------------------------------------------------------------===//

/// Whether `use` keeps its value in tensor memory: a dot's accumulator, or a
/// loop-carried position (init, yield) of a tensor-memory accumulator.
static bool isTmemUse(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto dot = dyn_cast<DotOp>(user))
    return &use == &dot.getAccMutable();
  if (isa<scf::YieldOp>(user))
    return isa<scf::ForOp>(user->getParentOp());
  if (auto loop = dyn_cast<scf::ForOp>(user))
    return use.getOperandNumber() >= loop.getNumControlOperands();
  return false;
}

/// The values that live in tensor memory: every dot's accumulator and
/// result, and what they are carried through (loop inits, iteration
/// arguments, yields, results). The closure stops at other ops.
static llvm::SetVector<Value> collectTmemValues(Operation *root) {
  llvm::SetVector<Value> tmem;
  root->walk([&](DotOp dot) {
    tmem.insert(dot.getAcc());
    tmem.insert(dot.getResult());
  });
  auto addLoopPosition = [&](scf::ForOp loop, unsigned i) {
    tmem.insert(loop.getInitArgs()[i]);
    tmem.insert(loop.getRegionIterArgs()[i]);
    tmem.insert(loop.getYieldedValues()[i]);
    tmem.insert(loop.getResult(i));
  };
  for (size_t i = 0; i < tmem.size(); ++i) {
    Value value = tmem[i];
    if (auto dot = value.getDefiningOp<DotOp>())
      tmem.insert(dot.getAcc());
    else if (auto loop = value.getDefiningOp<scf::ForOp>())
      addLoopPosition(loop, cast<OpResult>(value).getResultNumber());
    else if (auto arg = dyn_cast<BlockArgument>(value))
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (arg.getArgNumber() >= loop.getNumInductionVars())
          addLoopPosition(loop,
                          arg.getArgNumber() - loop.getNumInductionVars());
    for (OpOperand &use : value.getUses()) {
      if (!isTmemUse(use))
        continue;
      Operation *user = use.getOwner();
      if (auto dot = dyn_cast<DotOp>(user))
        tmem.insert(dot.getResult());
      else if (auto loop = dyn_cast<scf::ForOp>(user))
        addLoopPosition(loop,
                        use.getOperandNumber() - loop.getNumControlOperands());
      else if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp()))
        addLoopPosition(loop, use.getOperandNumber());
    }
  }
  return tmem;
}

/// Whether `value` can itself live in tensor memory: it comes from a dot, a
/// loop, a loop's iteration argument or a splat constant (which the first
/// MMA replaces by not accumulating). Anything else is computed in
/// registers and stored into tensor memory by a conversion.
static bool isTmemSource(Value value) {
  if (isa<BlockArgument>(value))
    return true;
  Operation *def = value.getDefiningOp();
  if (isa<DotOp, scf::ForOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  return false;
}

/// A tile.convert_layout of `value` to `encoding`, right after its
/// definition (at the start of its block for a block argument).
static Value convertAfterDef(OpBuilder &b, Value value, Attribute encoding) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    b.setInsertionPointToStart(arg.getOwner());
  else
    b.setInsertionPointAfterValue(value);
  return ConvertLayoutOp::create(
      b, value.getLoc(), withEncoding(value.getType(), encoding), value);
}

/// TMA stores go through shared memory in the NVMMA layout their rows fill:
/// their descriptors get it, so that the threads staging the tile store
/// into swizzled rows without bank conflicts (rows of an unswizzled tile
/// 128 bytes apart put a warp's 8 rows in the same 4 banks) and TMA reads it
/// box by box (the kernels' tensor maps say the same:
/// LaunchContract::storeTensorMap). Rows that fill no swizzle span stay
/// unswizzled, except for stores that add into global memory (`reduce
/// add`, the attention backward's dQ parts), which need one. sm_90a only:
/// sm_100a's epilogues stage rows in column chunks (ws-chunk-row-stores)
/// into unswizzled buffers.
static LogicalResult
assignStoreLayouts(Operation *root, DenseMap<Value, Attribute> &descLayouts) {
  WalkResult walk = root->walk([&](StoreOp store) {
    auto block = cast<RankedTensorType>(store.getDesc().getType().getBlock());
    if (!store.getReduce() && !NvmmaSharedAttr::getRowMajor(block))
      return WalkResult::advance();
    FailureOr<NvmmaSharedAttr> layout = sharedLayoutFor(block, store);
    if (failed(layout) || failed(setDescLayout(descLayouts, store.getDesc(),
                                               *layout, store, "used")))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Accumulators in tensor memory (tcgen05, sm_100a): the target's
/// accumulator layout (`#tile.tmem`), everything computed
/// from or into them in the `#tile.tmem_32x32b` register layout of one
/// warpgroup, with tile.convert_layout (tcgen05.ld / tcgen05.st) between.
/// A register A operand of a dot (attention's P) is stored into tensor
/// memory too, packed, since tcgen05.mma reads A from there.
static LogicalResult
assignTensorMemoryAccumulators(Operation *root,
                               const fmha::TargetInfo &target) {
  MLIRContext *ctx = root->getContext();
  LayoutMap layouts;
  DenseMap<Value, Attribute> descLayouts;
  auto registers = Tmem32x32bAttr::get(ctx, 1);

  // Operands in shared memory, as on sm90; a register A goes to TMEM.
  SmallVector<std::pair<DotOp, Value>> registerA;
  SmallVector<OpOperand *> staged;
  WalkResult walk = root->walk([&](DotOp dot) {
    if (failed(target.getAccumulatorLayout(dot.getAcc().getType(), dot)))
      return WalkResult::interrupt();
    Value a = dot.getA();
    if (!a.getDefiningOp<LoadOp>() && !dot.getTransposeA())
      registerA.push_back({dot, a});
    else if (failed(assignOperand(a, layouts, descLayouts, dot, staged)))
      return WalkResult::interrupt();
    if (failed(assignOperand(dot.getB(), layouts, descLayouts, dot, staged)))
      return WalkResult::interrupt();
    if (!staged.empty()) {
      dot.emitOpError("operands computed in registers are read from shared "
                      "memory on sm_90a only; on this target they must come "
                      "straight from tile.load (or be a K-major A, stored "
                      "into tensor memory)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  OpBuilder b(ctx);
  for (auto [dot, a] : registerA) {
    auto type = cast<RankedTensorType>(a.getType());
    // M is the accumulator's, checked above.
    int64_t k = type.getShape()[1];
    if (k > 256 && k % 256 != 0)
      return dot.emitOpError("an sm100 A operand in tensor memory is at most "
                             "256 columns or a multiple of 256, got ")
             << k;
    auto packed =
        TmemAttr::get(ctx, 128, std::min<int64_t>(k, 256), /*unpacked=*/false);
    Value stored = convertAfterDef(b, a, packed);
    dot.getAMutable().assign(stored);
    if (failed(layouts.set(a, registers, dot)))
      return failure();
  }

  llvm::SetVector<Value> tmem = collectTmemValues(root);
  // Values computed in registers but kept in TMEM: store them (a
  // conversion) and keep the register value for its other users.
  for (Value value : SmallVector<Value>(tmem.begin(), tmem.end())) {
    if (isTmemSource(value))
      continue;
    FailureOr<Attribute> layout = target.getAccumulatorLayout(
        cast<RankedTensorType>(value.getType()), value.getDefiningOp());
    if (failed(layout))
      return failure();
    Value stored = convertAfterDef(b, value, *layout);
    value.replaceUsesWithIf(stored, [&](OpOperand &use) {
      return use.getOwner() != stored.getDefiningOp() && isTmemUse(use);
    });
    tmem.remove(value);
    tmem.insert(stored);
    if (failed(layouts.set(value, registers, stored.getDefiningOp())))
      return failure();
  }
  // TMEM values read by anything else: load them (a conversion); a splat
  // constant is cloned instead.
  for (Value value : tmem) {
    auto type = cast<RankedTensorType>(value.getType());
    Operation *where = value.getDefiningOp();
    if (!where)
      where = cast<BlockArgument>(value).getOwner()->getParentOp();
    FailureOr<Attribute> layout = target.getAccumulatorLayout(type, where);
    if (failed(layout) || failed(layouts.set(value, *layout, where)))
      return failure();
    if (llvm::all_of(value.getUses(), isTmemUse))
      continue;
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      b.setInsertionPointAfter(constant);
      Value copy = b.clone(*constant)->getResult(0);
      value.replaceUsesWithIf(copy,
                              [](OpOperand &use) { return !isTmemUse(use); });
      continue;
    }
    Value loaded = convertAfterDef(b, value, registers);
    value.replaceUsesWithIf(loaded, [&](OpOperand &use) {
      return use.getOwner() != loaded.getDefiningOp() && !isTmemUse(use);
    });
    if (failed(layouts.set(loaded, registers, loaded.getDefiningOp())))
      return failure();
  }

  // Tiles loaded by plain loads (split-KV's partial results, merged by the
  // warpgroup that holds O) take the same register layout, a row per
  // thread, when they have the 128 rows of tensor memory's lanes.
  WalkResult loads = root->walk([&](LoadDirectOp load) {
    RankedTensorType type = load.getResult().getType();
    if (type.getEncoding() || type.getRank() != 2 || type.getShape()[0] != 128)
      return WalkResult::advance();
    if (failed(layouts.set(load.getResult(), registers, load)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (loads.wasInterrupted())
    return failure();

  if (failed(layouts.propagate()) || failed(anchorDirectLoads(root, layouts)) ||
      failed(layouts.propagateSlices(root)) ||
      failed(anchorUnconnectedPlainValues(root, layouts)))
    return failure();
  layouts.apply();
  insertSliceConversions(root);
  return retypeDescriptors(descLayouts, root);
}

/// Stages each operand of `staged`, computed in registers, for its dot: a
/// tile.convert_layout into shared memory (the NVMMA layout a load of its
/// shape would get) right before the dot, which reads the conversion. The
/// dots of a block that read one value (the attention backward's dS^T, for
/// dK's column parts) read one conversion, before the first of them.
static LogicalResult stageOperands(ArrayRef<OpOperand *> staged,
                                   const LayoutMap &layouts) {
  DenseMap<std::pair<Value, Block *>, ConvertLayoutOp> conversions;
  for (OpOperand *use : staged) {
    auto dot = cast<DotOp>(use->getOwner());
    Value operand = use->get();
    auto encoding = dyn_cast_if_present<RegisterLayoutAttrInterface>(
        layouts.lookup(operand));
    if (!encoding)
      return dot.emitOpError("operand #")
             << use->getOperandNumber()
             << " is neither loaded into shared memory nor computed in a "
                "register layout it can be stored from";
    FailureOr<NvmmaSharedAttr> layout =
        sharedLayoutFor(cast<RankedTensorType>(operand.getType()), dot);
    if (failed(layout))
      return failure();
    ConvertLayoutOp &convert = conversions[{operand, dot->getBlock()}];
    if (!convert) {
      OpBuilder b(dot);
      convert = ConvertLayoutOp::create(
          b, operand.getLoc(), withEncoding(operand.getType(), *layout),
          operand);
    }
    use->set(convert);
  }
  return success();
}

/// Accumulators in registers (wgmma): the target's accumulator layout for
/// every `tile.dot` accumulator, flowing to everything computed from it.
static LogicalResult
assignRegisterAccumulators(Operation *root, const fmha::TargetInfo &target) {
  LayoutMap layouts;
  DenseMap<Value, Attribute> descLayouts;
  SmallVector<OpOperand *> staged;
  WalkResult walk = root->walk([&](DotOp dot) {
    FailureOr<Attribute> accLayout =
        target.getAccumulatorLayout(dot.getAcc().getType(), dot);
    if (failed(accLayout) ||
        failed(layouts.set(dot.getAcc(), *accLayout, dot)) ||
        failed(assignOperand(dot.getA(), layouts, descLayouts, dot, staged)) ||
        failed(assignOperand(dot.getB(), layouts, descLayouts, dot, staged)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || failed(assignStoreLayouts(root, descLayouts)) ||
      failed(layouts.propagate()) || failed(anchorDirectLoads(root, layouts)) ||
      failed(layouts.propagateSlices(root)) ||
      failed(anchorUnconnectedPlainValues(root, layouts)))
    return failure();
  // A register A operand must have ended up in a wgmma register layout.
  WalkResult registers = root->walk([&](DotOp dot) {
    if (dot.getA().getDefiningOp<LoadOp>() || dot.getTransposeA() ||
        isa_and_nonnull<WgmmaAccAttr>(layouts.lookup(dot.getA())))
      return WalkResult::advance();
    dot.emitOpError("operand A is neither loaded into shared memory nor "
                    "computed in a wgmma register layout");
    return WalkResult::interrupt();
  });
  if (registers.wasInterrupted())
    return failure();
  layouts.apply();
  if (failed(stageOperands(staged, layouts)))
    return failure();
  insertSliceConversions(root);
  return retypeDescriptors(descLayouts, root);
}

namespace {
struct TileAssignLayoutsPass
    : public tile::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  using Base::Base;

  /// Each kernel with tile ops gets the layouts of its own target (its
  /// gpu.module's #nvvm.target).
  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([&](FunctionOpInterface func) {
      if (!containsTileOps(func))
        return WalkResult::advance();
      FailureOr<fmha::TargetInfo> info =
          fmha::TargetInfo::lookup(func, getArgument());
      if (failed(info))
        return WalkResult::interrupt();
      LogicalResult assigned = info->accumulatesInTensorMemory()
                                   ? assignTensorMemoryAccumulators(func, *info)
                                   : assignRegisterAccumulators(func, *info);
      return failed(assigned) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
