//===- InitAll.cpp - Register dialects and passes ------------------------===//
//
// Part of fmha. See InitAllDialects.h and InitAllPasses.h.
//
//===----------------------------------------------------------------------===//

#include "fmha/InitAllDialects.h"
#include "fmha/InitAllPasses.h"

#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/FMHA/Transforms/Passes.h"
#include "fmha/Dialect/Tile/Transforms/Passes.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fmha::registerFMHADialects(DialectRegistry &registry) {
  registry.insert<fmha::FMHADialect, tile::TileDialect, ws::WSDialect>();
}

void fmha::registerAllFMHADialects(DialectRegistry &registry) {
  registerFMHADialects(registry);
  registry
      .insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
              gpu::GPUDialect, index::IndexDialect, LLVM::LLVMDialect,
              math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
              nvgpu::NVGPUDialect, scf::SCFDialect, tensor::TensorDialect>();
  // What convert-to-llvm and gpu-module-to-binary need to see.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void fmha::registerFMHAPasses() {
  fmha::registerFMHATransformsPasses();
  tile::registerTileTransformsPasses();
  ws::registerWSPasses();
  fmha::registerFMHAConversionPasses();
  fmha::registerFMHAPipelines();
}

void fmha::registerAllFMHAPasses() {
  registerFMHAPasses();
  // Generic transforms (canonicalize, cse, inline, ...).
  registerTransformsPasses();
  // The lowering tail: to LLVM/NVVM, then to PTX and cubins.
  registerConversionPasses();
  registerGPUPasses();
}
