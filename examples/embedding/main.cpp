//===- main.cpp - Embedding fmha from C++ ---------------------------------===//
//
// Part of fmha's embedding example. Compiles an fmha.gemm op and an
// fmha.attention op (with its log-sum-exp) to PTX with the pipeline
// (fmha::buildPipeline) and prints the PTX's first line (after the
// comments), each kernel and what it is made of (see README.md).
//
// Usage: fmha-embed [gemm.mlir]   (default: examples/gemm.mlir's op)
//
//===----------------------------------------------------------------------===//

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

#include <string>
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

/// `module` through the whole pipeline; the PTX it ends in.
static FailureOr<std::string> compileToPTX(ModuleOp module) {
  PassManager pm(module.getContext());
  fmha::PipelineOptions options;
  options.binary = fmha::BinaryFormat::Isa;
  if (failed(fmha::buildPipeline(pm, options)) || failed(pm.run(module)))
    return failure();
  gpu::BinaryOp binary;
  module.walk([&](gpu::BinaryOp op) { binary = op; });
  if (!binary || binary.getObjects().size() != 1) {
    llvm::errs() << "fmha-embed: no gpu.binary with one object\n";
    return failure();
  }
  return cast<gpu::ObjectAttr>(binary.getObjects()[0])
      .getObject()
      .getValue()
      .str();
}

/// The kernel's name in `ptx`.
static StringRef entryOf(StringRef ptx) {
  return ptx.split(".entry ").second.split('(').first.trim();
}

/// The GEMM through the whole pipeline, ending in PTX.
static LogicalResult compileGemm(MLIRContext &context, const char *path) {
  OwningOpRef<ModuleOp> module =
      path ? parseSourceFile<ModuleOp>(path, &context)
           : parseSourceString<ModuleOp>(kGemm, &context);
  if (!module)
    return failure();
  FailureOr<std::string> ptx = compileToPTX(*module);
  if (failed(ptx))
    return failure();
  // The first line that is not a comment, e.g. ".version 8.6".
  StringRef rest = *ptx, firstLine;
  while (!rest.empty() && (firstLine.empty() || firstLine.starts_with("//")))
    std::tie(firstLine, rest) = rest.split('\n');
  StringRef entry = entryOf(*ptx);
  llvm::outs() << "gemm: PTX of " << ptx->size()
               << " bytes, first line: " << firstLine << "\n"
               << "gemm: kernel " << entry << ", "
               << StringRef(*ptx).count("wgmma.mma_async")
               << " wgmma.mma_async\n";
  return success(!entry.empty());
}

/// Attention through the same pipeline: TMA loads of Q, K and V, wgmma for
/// S = Q K^T and O += P V, a TMA store of O and plain global stores of the
/// log-sum-exp.
static LogicalResult compileAttention(MLIRContext &context) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kAttention, &context);
  if (!module)
    return failure();
  FailureOr<std::string> ptx = compileToPTX(*module);
  if (failed(ptx))
    return failure();
  StringRef text = *ptx, entry = entryOf(text);
  llvm::outs() << "attention: kernel " << entry << ", "
               << text.count("wgmma.mma_async") << " wgmma.mma_async, "
               << text.count("cp.async.bulk.tensor") << " TMA copies, "
               << text.count("st.global") << " global stores (lse)\n";
  return success(!entry.empty() && text.count("st.global") > 0);
}

int main(int argc, char **argv) {
  if (argc > 2) {
    llvm::errs() << "usage: fmha-embed [gemm.mlir]\n";
    return 2;
  }
  DialectRegistry registry;
  fmha::registerAllFMHADialects(registry);
  MLIRContext context(registry);
  // buildPipeline names its passes: they must be registered.
  fmha::registerAllFMHAPasses();

  if (failed(compileGemm(context, argc == 2 ? argv[1] : nullptr)) ||
      failed(compileAttention(context)))
    return 1;
  return 0;
}
