/*===-- fmha-c/FMHA.h - fmha's C API ------------------------------*- C -*-===*\
|*                                                                            *|
|* Part of fmha. A C interface to fmha's dialects, passes and sm90 pipeline,  *|
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
 * "builtin.module(fmha-sm90-pipeline{binary=isa})". Calling it again does no
 * harm; fmhaBuildSM90Pipeline and fmhaCompileToPTX call it themselves. */
MLIR_CAPI_EXPORTED void fmhaRegisterAllPasses(void);

/** Adds the sm_90a pipeline (fmha.gemm / fmha.attention to a kernel; see
 * --fmha-sm90-pipeline) to `passManager`, which must run on builtin.module
 * (mlirPassManagerGetAsOpPassManager of mlirPassManagerCreate's manager).
 * `options` is the pipeline's option string, e.g. "binary=isa",
 * "binary=bin toolkit=/usr/local/cuda" or "binary=none wait-timeout=2000000";
 * NULL or "" takes the defaults (PTX). Fails, printing why to stderr, when
 * the options do not parse. */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaBuildSM90Pipeline(MlirOpPassManager passManager, const char *options);

/** Parses `sourceMLIR` (a module with fmha ops) in `context`, runs the sm90
 * pipeline with `pipelineOptions` (as in fmhaBuildSM90Pipeline) on it, and
 * calls `callback` once with the object that gpu-module-to-binary made: the
 * PTX (binary=isa, the default) or the cubin (binary=bin; the string then
 * holds binary data, mind its length). On failure it calls `callback` once
 * with the diagnostics instead and returns failure. fmha's dialects are
 * added to `context`, so a bare context will do. The module must hold
 * exactly one kernel. */
MLIR_CAPI_EXPORTED MlirLogicalResult
fmhaCompileToPTX(MlirContext context, MlirStringRef sourceMLIR,
                 MlirStringRef pipelineOptions, MlirStringCallback callback,
                 void *userData);

#ifdef __cplusplus
}
#endif

#endif /* FMHA_C_FMHA_H */
