//===- main.cpp - Embedding fmha from C++ ---------------------------------===//
//
// Part of fmha's embedding example. Compiles an fmha.gemm op to PTX with the
// sm90 pipeline (fmha::buildSM90Pipeline) and prints the PTX's first line
// (after the comments) and its kernel; expands an fmha.attention op with fmha-expand-kernels, as far
// as attention goes today (see README.md).
//
// Usage: fmha-embed [gemm.mlir]   (default: examples/gemm.mlir's op)
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/Transforms/Passes.h"
#include "fmha/InitAllDialects.h"
#include "fmha/InitAllPasses.h"
#include "fmha/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

using namespace mlir;

// examples/gemm.mlir: C = A @ B^T in bf16, M and N dynamic.
static const char kGemm[] = R"mlir(
fmha.gemm @gemm_bf16 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 256, 64] stages 3 consumers 2 target sm_90a
)mlir";

// Causal GQA attention with its log-sum-exp (test/Transforms).
static const char kAttention[] = R"mlir(
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) causal
    tile [64, 128] stages 2 consumers 2 target sm_90a
)mlir";

/// The GEMM through the whole sm90 pipeline, ending in PTX.
static LogicalResult compileGemm(MLIRContext &context, const char *path) {
  OwningOpRef<ModuleOp> module =
      path ? parseSourceFile<ModuleOp>(path, &context)
           : parseSourceString<ModuleOp>(kGemm, &context);
  if (!module)
    return failure();

  PassManager pm(&context);
  fmha::PipelineOptions options;
  options.binary = fmha::BinaryFormat::Isa;
  if (failed(fmha::buildSM90Pipeline(pm, options)) || failed(pm.run(*module)))
    return failure();

  gpu::BinaryOp binary;
  module->walk([&](gpu::BinaryOp op) { binary = op; });
  if (!binary || binary.getObjects().size() != 1) {
    llvm::errs() << "fmha-embed: no gpu.binary with one object\n";
    return failure();
  }
  StringRef ptx =
      cast<gpu::ObjectAttr>(binary.getObjects()[0]).getObject().getValue();
  // The first line that is not a comment, e.g. ".version 8.6".
  StringRef rest = ptx, firstLine;
  while (!rest.empty() && (firstLine.empty() || firstLine.starts_with("//")))
    std::tie(firstLine, rest) = rest.split('\n');
  StringRef entry = ptx.split(".entry ").second.split('(').first.trim();
  llvm::outs() << "gemm: PTX of " << ptx.size() << " bytes, first line: "
               << firstLine << "\n"
               << "gemm: kernel " << entry << ", "
               << ptx.count("wgmma.mma_async") << " wgmma.mma_async\n";
  return success(!entry.empty());
}

/// Attention as far as it goes: fmha-expand-kernels turns the op into its
/// online-softmax tile program in a gpu.func kernel. (The whole pipeline
/// stops in tile-assign-layouts: the register operand of P @ V is not
/// lowered yet.)
static LogicalResult expandAttention(MLIRContext &context) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kAttention,
                                                            &context);
  if (!module)
    return failure();
  PassManager pm(&context);
  pm.addPass(fmha::createFMHAExpandKernels());
  if (failed(pm.run(*module)))
    return failure();

  SmallVector<StringRef> kernels;
  module->walk([&](gpu::GPUFuncOp func) {
    if (func.isKernel())
      kernels.push_back(func.getName());
  });
  if (kernels.size() != 1) {
    llvm::errs() << "fmha-embed: expected one attention kernel, found "
                 << kernels.size() << "\n";
    return failure();
  }
  llvm::outs() << "attention: fmha-expand-kernels expanded @attn into kernel "
               << kernels.front() << " (the rest of the sm90 pipeline does "
               << "not lower attention yet)\n";
  return success();
}

int main(int argc, char **argv) {
  if (argc > 2) {
    llvm::errs() << "usage: fmha-embed [gemm.mlir]\n";
    return 2;
  }
  DialectRegistry registry;
  fmha::registerAllFMHADialects(registry);
  MLIRContext context(registry);
  // buildSM90Pipeline names its passes: they must be registered.
  fmha::registerAllFMHAPasses();

  if (failed(compileGemm(context, argc == 2 ? argv[1] : nullptr)) ||
      failed(expandAttention(context)))
    return 1;
  return 0;
}
