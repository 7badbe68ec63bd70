/*===-- fmha-c/FMHA.h - fmha's C API ------------------------------*- C -*-===*\
|*                                                                            *|
|* Part of fmha. A C interface to fmha's dialects, passes and pipelines,      *|
|* in the style of MLIR's C API and used together with it (mlir-c/IR.h,       *|
|* mlir-c/Pass.h): contexts, registries, modules and pass managers are        *|
|* MLIR's. Link FMHA::FMHACAPI, which also brings the core of MLIR's C API    *|
|* (mlirContextCreate, mlirPassManagerCreate, ...).                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FMHA_C_FMHA_H
#define FMHA_C_FMHA_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handles of the fmha, tile and ws dialects (mlirDialectHandleInsertDialect,
 * mlirDialectHandleLoadDialect, ...). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(FMHA, fmha);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(WS, ws);

/** Adds fmha's dialects and the upstream dialects, interfaces and LLVM-IR
 * translations its pipelines need (fmha::registerAllFMHADialects) to
 * `registry`; then mlirContextAppendDialectRegistry makes them known to a
 * context. */
MLIR_CAPI_EXPORTED void fmhaRegisterAllDialects(MlirDialectRegistry registry);

/** Registers fmha's passes and pipelines and the upstream passes they use
 * (fmha::registerAllFMHAPasses), so that mlirParsePassPipeline and
 * mlirOpPassManagerAddPipeline know them, e.g.
 * "builtin.module(fmha-pipeline{binary=isa})". Calling it again does no
 * harm; fmhaBuildSM90Pipeline and fmhaCompileToPTX call it themselves. */
MLIR_CAPI_EXPORTED void fmhaRegisterAllPasses(void);

/** Adds fmha's pipeline (fmha.gemm / fmha.attention to a kernel for the
 * target each names, and tile/ws kernels in a gpu.module with an
 * #nvvm.target to a kernel for that target; see --fmha-pipeline) to
 * `passManager`, which must run on builtin.module
 * (mlirPassManagerGetAsOpPassManager of mlirPassManagerCreate's manager).
 * `options` is the pipeline's option string, e.g. "binary=isa",
 * "binary=bin toolkit=/usr/local/cuda" or "binary=none wait-timeout=2000000";
 * NULL or "" takes the defaults (PTX). Fails, printing why to stderr, when
 * the options do not parse; fmhaBuildPipeline hands the reason to a
 * callback instead. (The name is from when each target had its own
 * pipeline; the pipeline is the same for every target.) */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaBuildSM90Pipeline(MlirOpPassManager passManager, const char *options);

/** Adds fmha's pipeline (as fmhaBuildSM90Pipeline) with the option string
 * `options` (empty for the defaults) to `passManager`. `target` is empty, or
 * a name the pipeline had when each target had its own, "sm90" or "sm100":
 * all give the one pipeline, which takes each kernel's target from the IR.
 * When the target is none of these or the options do not parse, calls
 * `errorCallback` (unless NULL) once with the reason and fails; nothing
 * goes to stderr. Diagnostics of the passes themselves go to the context's
 * diagnostic handlers (mlirContextAttachDiagnosticHandler) when the pass
 * manager runs. */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaBuildPipeline(MlirOpPassManager passManager, MlirStringRef target,
                  MlirStringRef options, MlirStringCallback errorCallback,
                  void *userData);

/** Parses `sourceMLIR` (a module with fmha ops, or ws/tile kernels in a
 * gpu.module with an #nvvm.target) in `context` and runs fmha's pipeline on
 * it (each kernel compiled for its own target) with `pipelineOptions` (as
 * in fmhaBuildSM90Pipeline). On success it calls
 * `objectCallback` once with the object that gpu-module-to-binary made: the
 * PTX (binary=isa, the default) or the cubin (binary=bin; the string then
 * holds binary data, mind its length). `diagnosticCallback` (unless NULL)
 * gets every diagnostic, with the source lines they point at, and every
 * other reason to fail (options that do not parse, included), once, as
 * one text: on failure always, on success when there were any (warnings).
 * Nothing goes to stderr. fmha's dialects are added to `context`, so a bare
 * context will do. The module must hold exactly one kernel. */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaCompile(MlirContext context, MlirStringRef sourceMLIR,
            MlirStringRef pipelineOptions, MlirStringCallback objectCallback,
            MlirStringCallback diagnosticCallback, void *userData);

/** fmhaCompile with one callback: it gets the object on success, and on
 * failure the diagnostics instead (warnings of a successful compile are not
 * passed on: use fmhaCompile for them). */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaCompileToPTX(MlirContext context, MlirStringRef sourceMLIR,
                 MlirStringRef pipelineOptions, MlirStringCallback callback,
                 void *userData);

#ifdef __cplusplus
}
#endif

#endif /* FMHA_C_FMHA_H */
