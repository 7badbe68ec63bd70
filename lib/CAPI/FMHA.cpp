//===- FMHA.cpp - fmha's C API --------------------------------------------===//
//
// Part of fmha. See include/fmha-c/FMHA.h.
//
//===----------------------------------------------------------------------===//

#include "fmha-c/FMHA.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/InitAllDialects.h"
#include "fmha/InitAllPasses.h"
#include "fmha/Pipelines/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(FMHA, fmha, fmha::FMHADialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, tile::TileDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(WS, ws, ws::WSDialect)

void fmhaRegisterAllDialects(MlirDialectRegistry registry) {
  fmha::registerAllFMHADialects(*unwrap(registry));
}

void fmhaRegisterAllPasses(void) { fmha::registerAllFMHAPasses(); }

/// Parses `options` and adds the pipeline to `pm`; writes why it cannot to
/// `errors`. `target` is "" or a name the pipeline had when each target had
/// its own ("sm90", "sm100"): they all give the one pipeline.
static LogicalResult buildPipeline(OpPassManager &pm, StringRef target,
                                   StringRef options,
                                   llvm::raw_ostream &errors) {
  if (!llvm::is_contained({"", "sm90", "sm100"}, target)) {
    errors << "fmha: unknown pipeline target '" << target
           << "' (known: sm90, sm100, or empty: the pipeline takes each "
              "kernel's target from the IR)\n";
    return failure();
  }
  fmha::PipelineOptions parsed;
  if (failed(fmha::parsePipelineOptions(options, parsed, errors)))
    return failure();
  // The pipeline names its passes; registering them again is harmless.
  fmha::registerAllFMHAPasses();
  if (succeeded(fmha::buildPipeline(pm, parsed)))
    return success();
  errors << "fmha: the pipeline could not be built\n";
  return failure();
}

MlirLogicalResult fmhaBuildSM90Pipeline(MlirOpPassManager passManager,
                                        const char *options) {
  return wrap(buildPipeline(*unwrap(passManager), "", options ? options : "",
                            llvm::errs()));
}

MlirLogicalResult fmhaBuildPipeline(MlirOpPassManager passManager,
                                    MlirStringRef target,
                                    MlirStringRef options,
                                    MlirStringCallback errorCallback,
                                    void *userData) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (succeeded(buildPipeline(*unwrap(passManager), unwrap(target),
                              unwrap(options), errorStream)))
    return wrap(success());
  if (errorCallback)
    errorCallback(wrap(StringRef(errors)), userData);
  return wrap(failure());
}

MlirLogicalResult fmhaCompile(MlirContext context, MlirStringRef sourceMLIR,
                              MlirStringRef pipelineOptions,
                              MlirStringCallback objectCallback,
                              MlirStringCallback diagnosticCallback,
                              void *userData) {
  MLIRContext *ctx = unwrap(context);
  DialectRegistry registry;
  fmha::registerAllFMHADialects(registry);
  ctx->appendDialectRegistry(registry);

  // Every diagnostic, with the source line it points at, and every other
  // reason to fail go to `diagnostics`, which the callback gets at the end.
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  auto finish = [&](LogicalResult result) {
    if (diagnosticCallback && (failed(result) || !diagnostics.empty()))
      diagnosticCallback(wrap(StringRef(diagnostics)), userData);
    return wrap(result);
  };

  fmha::PipelineOptions options;
  if (failed(fmha::parsePipelineOptions(unwrap(pipelineOptions), options,
                                        diagnosticStream)))
    return finish(failure());
  if (options.binary == fmha::BinaryFormat::None) {
    diagnosticStream << "fmha: compiling to an object needs binary=isa or "
                        "binary=bin\n";
    return finish(failure());
  }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(sourceMLIR), "<source>"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, ctx, diagnosticStream);

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(ctx));
  if (!module)
    return finish(failure());

  fmha::registerAllFMHAPasses();
  PassManager pm(ctx);
  if (failed(fmha::buildPipeline(pm, options)) || failed(pm.run(*module)))
    return finish(failure());

  SmallVector<gpu::BinaryOp> binaries;
  module->walk([&](gpu::BinaryOp op) { binaries.push_back(op); });
  if (binaries.size() != 1 || binaries.front().getObjects().size() != 1) {
    diagnosticStream << "fmha: expected exactly one kernel, found "
                     << binaries.size() << " gpu.binary ops\n";
    return finish(failure());
  }
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  objectCallback(wrap(object.getObject().getValue()), userData);
  return finish(success());
}

namespace {
/// What fmhaCompileToPTX's one callback gets: the object on success, the
/// diagnostics on failure.
struct OneCallback {
  MlirStringCallback callback;
  void *userData;
  std::string diagnostics;
};
} // namespace

MlirLogicalResult fmhaCompileToPTX(MlirContext context, MlirStringRef sourceMLIR,
                                   MlirStringRef pipelineOptions,
                                   MlirStringCallback callback,
                                   void *userData) {
  OneCallback one{callback, userData, {}};
  MlirLogicalResult result = fmhaCompile(
      context, sourceMLIR, pipelineOptions,
      [](MlirStringRef object, void *data) {
        auto *one = static_cast<OneCallback *>(data);
        one->callback(object, one->userData);
      },
      [](MlirStringRef text, void *data) {
        static_cast<OneCallback *>(data)->diagnostics.assign(text.data,
                                                             text.length);
      },
      &one);
  if (mlirLogicalResultIsFailure(result))
    callback(wrap(StringRef(one.diagnostics)), userData);
  return result;
}
