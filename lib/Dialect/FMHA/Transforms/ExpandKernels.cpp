//===- ExpandKernels.cpp - fmha kernel ops to tile programs --------------===//
//
// Part of fmha. Implements fmha-expand-kernels; one file per op kind holds
// its expansion.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"

#include "fmha/Dialect/FMHA/Transforms/Passes.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAEXPANDKERNELS
#include "fmha/Dialect/FMHA/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

/// PTX features every kernel needs: 8.6 for TMA into shared::cta.
static constexpr StringLiteral kPtxFeatures = "+ptx86";

gpu::GPUModuleOp fmha::createKernelModule(OpBuilder &b, Operation *op,
                                          StringRef name, Target target) {
  MLIRContext *ctx = b.getContext();
  b.setInsertionPoint(op);
  auto nvvmTarget =
      NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                getTargetInfo(target).getChip(), kPtxFeatures);
  return gpu::GPUModuleOp::create(b, op->getLoc(), (name + "_module").str(),
                                  b.getArrayAttr({nvvmTarget}));
}

gpu::GPUFuncOp fmha::addKernel(OpBuilder &b, gpu::GPUModuleOp module,
                               StringRef name, TypeRange argTypes) {
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

KernelShell fmha::createKernelShell(OpBuilder &b, Operation *op, StringRef name,
                                    Target target, TypeRange argTypes) {
  gpu::GPUModuleOp module = createKernelModule(b, op, name, target);
  return {module, addKernel(b, module, name, argTypes)};
}

Attribute LaunchContract::size(int64_t size, StringRef symbol) {
  if (ShapedType::isDynamic(size))
    return b.getStringAttr(symbol);
  return integer(size);
}

Attribute LaunchContract::apply(StringRef fn, Attribute x, Attribute y) {
  return b.getDictionaryAttr({entry(fn, b.getArrayAttr({x, y}))});
}

/// The manifest name of an element type (`bf16`, `f16`, `f32`, `f8e4m3`,
/// `f8e5m2`, `i32`).
static StringRef dtypeName(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (type.isF32())
    return "f32";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  if (type.isInteger(32))
    return "i32";
  return "unknown";
}

void LaunchContract::declare(StringRef name, ArrayRef<Attribute> shape,
                             Type dtype, StringRef role) {
  tensors.push_back(entry(
      name,
      b.getDictionaryAttr({entry("shape", b.getArrayAttr(shape)),
                           entry("dtype", b.getStringAttr(dtypeName(dtype))),
                           entry("role", b.getStringAttr(role))})));
}

void LaunchContract::tensor(StringRef name, ArrayRef<Attribute> shape,
                            Type dtype, bool output) {
  declare(name, shape, dtype, output ? "output" : "input");
}

void LaunchContract::scratch(StringRef name, ArrayRef<Attribute> shape,
                             Type dtype, bool zeroed) {
  declare(name, shape, dtype, zeroed ? "zeroed" : "scratch");
}

Attribute LaunchContract::callerSize(StringRef symbol) {
  sizes.push_back(b.getStringAttr(symbol));
  return sizes.back();
}

void LaunchContract::tensorMap(StringRef tensor, ArrayRef<int64_t> box,
                               int64_t swizzle, ArrayRef<int64_t> dims) {
  SmallVector<Attribute> boxAttrs;
  for (int64_t size : box)
    boxAttrs.push_back(integer(size));
  SmallVector<NamedAttribute> fields = {
      entry("kind", b.getStringAttr("tensor_map")),
      entry("tensor", b.getStringAttr(tensor)),
      entry("box", b.getArrayAttr(boxAttrs)),
      entry("swizzle", integer(swizzle))};
  if (!dims.empty()) {
    SmallVector<Attribute> dimAttrs;
    for (int64_t dim : dims)
      dimAttrs.push_back(integer(dim));
    fields.push_back(entry("dims", b.getArrayAttr(dimAttrs)));
  }
  params.push_back(b.getDictionaryAttr(fields));
}

void LaunchContract::storeTensorMap(StringRef tensor, ArrayRef<int64_t> box,
                                    Type element, Target target,
                                    ArrayRef<int64_t> dims) {
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t swizzle = getTargetInfo(target).accumulatesInTensorMemory()
                        ? 0
                        : limits::widestSwizzleBytes(box.back() * bytes);
  SmallVector<int64_t> spans(box);
  if (swizzle)
    spans.back() = swizzle / bytes;
  tensorMap(tensor, spans, swizzle, dims);
}

void LaunchContract::scalar(Attribute value) {
  params.push_back(b.getDictionaryAttr(
      {entry("kind", b.getStringAttr("scalar")),
       entry("dtype", b.getStringAttr("i32")), entry("value", value)}));
}

void LaunchContract::memref(StringRef tensor, bool strided) {
  SmallVector<NamedAttribute> fields = {
      entry("kind", b.getStringAttr("memref")),
      entry("tensor", b.getStringAttr(tensor))};
  if (strided)
    fields.push_back(entry("strided", b.getBoolAttr(true)));
  params.push_back(b.getDictionaryAttr(fields));
}

void LaunchContract::record(Operation *kernel, ArrayRef<Attribute> grid) {
  auto *fmha = kernel->getContext()->getLoadedDialect<FMHADialect>();
  fmha->getTensorsAttrHelper().setAttr(kernel, b.getDictionaryAttr(tensors));
  fmha->getParamsAttrHelper().setAttr(kernel, b.getArrayAttr(params));
  fmha->getGridAttrHelper().setAttr(kernel, b.getArrayAttr(grid));
  if (!sizes.empty())
    fmha->getSizesAttrHelper().setAttr(kernel, b.getArrayAttr(sizes));
}

namespace {
struct FMHAExpandKernelsPass
    : public fmha::impl::FMHAExpandKernelsBase<FMHAExpandKernelsPass> {
  using Base::Base;

  /// The kernels of fmha.attention_backward to build
  /// (`backward-kernels`), in launch order; all three by default.
  LogicalResult parseBackwardKernels(SmallVectorImpl<BackwardKernel> &out) {
    if (backwardKernels.empty()) {
      out.assign({BackwardKernel::Prep, BackwardKernel::KeyGrads,
                  BackwardKernel::QueryGrads});
      return success();
    }
    for (BackwardKernel kernel :
         {BackwardKernel::Prep, BackwardKernel::KeyGrads,
          BackwardKernel::QueryGrads})
      if (llvm::is_contained(backwardKernels, stringify(kernel)))
        out.push_back(kernel);
    for (const std::string &name : backwardKernels)
      if (!llvm::is_contained({"prep", "dkdv", "dq"}, name))
        return getOperation().emitError("fmha-expand-kernels: "
                                        "backward-kernels takes prep, dkdv "
                                        "and dq, got '")
               << name << "'";
    return success();
  }
  static StringRef stringify(BackwardKernel kernel) {
    switch (kernel) {
    case BackwardKernel::Prep:
      return "prep";
    case BackwardKernel::KeyGrads:
      return "dkdv";
    case BackwardKernel::QueryGrads:
      return "dq";
    }
    llvm_unreachable("a kernel of the backward");
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (isa<GemmOp, AttentionOp, AttentionBackwardOp, MergeStatesOp,
              AppendKVOp, TransposeValuesOp>(op))
        kernels.push_back(op);
    });
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    SmallVector<BackwardKernel> backwardKernels;
    if (failed(parseBackwardKernels(backwardKernels)))
      return signalPassFailure();
    OpBuilder b(module.getContext());
    for (Operation *op : kernels) {
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](GemmOp gemm) { return expandGemm(gemm, b); })
              .Case([&](AttentionOp attention) {
                return expandAttention(attention, b);
              })
              .Case([&](AttentionBackwardOp backward) {
                return expandAttentionBackward(backward, b, backwardKernels);
              })
              .Case([&](MergeStatesOp merge) {
                return expandMergeStates(merge, b);
              })
              .Case(
                  [&](AppendKVOp append) { return expandAppendKV(append, b); })
              .Case([&](TransposeValuesOp transpose) {
                return expandTransposeValues(transpose, b);
              });
      if (failed(result))
        return signalPassFailure();
    }
  }
};
} // namespace
