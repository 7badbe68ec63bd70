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

MlirLogicalResult fmhaBuildSM90Pipeline(MlirOpPassManager passManager,
                                        const char *options) {
  // The pipeline names its passes; registering them again is harmless.
  fmha::registerAllFMHAPasses();
  std::unique_ptr<fmha::PipelineOptions> parsed =
      fmha::PipelineOptions::createFromString(options ? options : "");
  if (!parsed)
    return wrap(failure());
  return wrap(fmha::buildSM90Pipeline(*unwrap(passManager), *parsed));
}

MlirLogicalResult fmhaCompileToPTX(MlirContext context, MlirStringRef sourceMLIR,
                                   MlirStringRef pipelineOptions,
                                   MlirStringCallback callback,
                                   void *userData) {
  MLIRContext *ctx = unwrap(context);
  DialectRegistry registry;
  fmha::registerAllFMHADialects(registry);
  ctx->appendDialectRegistry(registry);

  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  auto fail = [&]() {
    callback(wrap(StringRef(errors)), userData);
    return wrap(failure());
  };

  fmha::PipelineOptions options;
  if (failed(options.parseFromString(unwrap(pipelineOptions), errorStream))) {
    errorStream << "fmha: invalid pipeline options '" << unwrap(pipelineOptions)
                << "'\n";
    return fail();
  }
  if (options.binary == fmha::BinaryFormat::None) {
    errorStream << "fmha: fmhaCompileToPTX needs binary=isa or binary=bin\n";
    return fail();
  }

  // Diagnostics, with the source line they point at, go to `errors`.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(sourceMLIR), "<source>"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, ctx, errorStream);

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(ctx));
  if (!module)
    return fail();

  fmha::registerAllFMHAPasses();
  PassManager pm(ctx);
  if (failed(fmha::buildSM90Pipeline(pm, options)) ||
      failed(pm.run(*module)))
    return fail();

  SmallVector<gpu::BinaryOp> binaries;
  module->walk([&](gpu::BinaryOp op) { binaries.push_back(op); });
  if (binaries.size() != 1 || binaries.front().getObjects().size() != 1) {
    errorStream << "fmha: expected exactly one kernel, found "
                << binaries.size() << " gpu.binary ops\n";
    return fail();
  }
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  callback(wrap(object.getObject().getValue()), userData);
  return wrap(success());
}
