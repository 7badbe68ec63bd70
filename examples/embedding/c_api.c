/*===- c_api.c - Embedding fmha from C ------------------------------------===*\
|*                                                                            *|
|* Part of fmha's embedding example, compiled as C: fmha's C API              *|
|* (fmha-c/FMHA.h) together with MLIR's (mlir-c/). Compiles examples/gemm.mlir *|
|* 's GEMM to PTX with fmhaCompileToPTX, runs the pipeline through a pass     *|
|* manager of its own, compiles an attention op with the pipeline named in a *|
|* pipeline string, and shows how errors come back.                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fmha-c/FMHA.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char gemm[] =
    "fmha.gemm @gemm_bf16 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> "
    "tensor<?x?xbf16>\n"
    "    transpose_b tile [64, 256, 64] stages 3 consumers 2 target sm_90a\n";

/* A tile too wide for the MMA (block_n at most 256): the verifier says so. */
static const char badGemm[] =
    "fmha.gemm @bad (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>\n"
    "    transpose_b tile [64, 512, 64] target sm_90a\n";

static const char attention[] =
    "fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,\n"
    "                      tensor<?x8x?x128xbf16>)\n"
    "    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) causal\n"
    "    tile [64, 128] stages 2 consumers 2 target sm_90a\n";

/* A growing string the callbacks append to. */
typedef struct {
  char *data;
  size_t size;
} Buffer;

static void append(MlirStringRef text, void *userData) {
  Buffer *buffer = (Buffer *)userData;
  char *data = (char *)realloc(buffer->data, buffer->size + text.length + 1);
  if (!data)
    abort();
  memcpy(data + buffer->size, text.data, text.length);
  buffer->size += text.length;
  data[buffer->size] = '\0';
  buffer->data = data;
}

static void clear(Buffer *buffer) {
  free(buffer->data);
  buffer->data = NULL;
  buffer->size = 0;
}

/* Counts the occurrences of `needle` in `text`. */
static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    ++n;
  return n;
}

typedef struct {
  int kernels;
  int attentionOps;
} Counts;

static MlirWalkResult countOps(MlirOperation op, void *userData) {
  Counts *counts = (Counts *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("gpu.func")) &&
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(
          op, mlirStringRefCreateFromCString("gpu.kernel"))))
    ++counts->kernels;
  if (mlirStringRefEqual(name,
                         mlirStringRefCreateFromCString("fmha.attention")))
    ++counts->attentionOps;
  return MlirWalkResultAdvance;
}

/* 1. Source to PTX in one call. */
static int compileToPTX(MlirContext context) {
  Buffer ptx = {NULL, 0};
  MlirLogicalResult result = fmhaCompileToPTX(
      context, mlirStringRefCreateFromCString(gemm),
      mlirStringRefCreateFromCString("binary=isa"), append, &ptx);
  if (mlirLogicalResultIsFailure(result)) {
    fprintf(stderr, "fmhaCompileToPTX failed:\n%s", ptx.data ? ptx.data : "");
    clear(&ptx);
    return 1;
  }
  const char *entry = strstr(ptx.data, ".entry ");
  /* The first line that is not a comment, e.g. ".version 8.6". */
  const char *line = ptx.data;
  while (*line == '\n' || strncmp(line, "//", 2) == 0)
    line += strcspn(line, "\n") + (line[strcspn(line, "\n")] ? 1 : 0);
  printf("c: PTX of %zu bytes, first line: %.*s\n", ptx.size,
         (int)strcspn(line, "\n"), line);
  if (entry)
    printf("c: kernel %.*s, %d wgmma.mma_async\n", (int)strcspn(entry + 7, "("),
           entry + 7, count(ptx.data, "wgmma.mma_async"));
  clear(&ptx);
  return entry ? 0 : 1;
}

/* 2. The pipeline in a pass manager of one's own; binary=none stops at the
 * LLVM/NVVM dialect (what fmha-translate --fmha-manifest reads). */
static int runPipeline(MlirContext context) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(gemm));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(context);
  int status = 1;
  if (mlirLogicalResultIsSuccess(fmhaBuildSM90Pipeline(
          mlirPassManagerGetAsOpPassManager(pm), "binary=none")) &&
      mlirLogicalResultIsSuccess(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    Buffer text = {NULL, 0};
    mlirOperationPrint(mlirModuleGetOperation(module), append, &text);
    printf("c: binary=none: %d llvm.func kernel(s) with nvvm.kernel\n",
           count(text.data, "nvvm.kernel"));
    status = count(text.data, "nvvm.kernel") > 0 ? 0 : 1;
    clear(&text);
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return status;
}

/* 3. fmha's pipelines and passes by name (after fmhaRegisterAllPasses): the
 * whole sm90 pipeline on an attention op with its log-sum-exp, to PTX. */
static int compileAttention(MlirContext context) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(attention));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(context);
  Buffer errors = {NULL, 0};
  int status = 1;
  if (mlirLogicalResultIsFailure(mlirOpPassManagerAddPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString("fmha-sm90-pipeline{binary=isa}"),
          append, &errors))) {
    fprintf(stderr, "c: %s\n", errors.data ? errors.data : "bad pipeline");
  } else if (mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(
                 pm, mlirModuleGetOperation(module)))) {
    Counts counts = {0, 0};
    mlirOperationWalk(mlirModuleGetOperation(module), countOps, &counts,
                      MlirWalkPreOrder);
    Buffer text = {NULL, 0};
    mlirOperationPrint(mlirModuleGetOperation(module), append, &text);
    int binaries = count(text.data, "gpu.binary @attn_module");
    printf("c: attention: the sm90 pipeline left %d fmha.attention op(s) "
           "and %d gpu.binary\n",
           counts.attentionOps, binaries);
    status = counts.attentionOps == 0 && binaries == 1 ? 0 : 1;
    clear(&text);
  }
  clear(&errors);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return status;
}

/* 4. Errors come back through the callback, with the source line. */
static int reportError(MlirContext context) {
  Buffer errors = {NULL, 0};
  MlirLogicalResult result = fmhaCompileToPTX(
      context, mlirStringRefCreateFromCString(badGemm),
      mlirStringRefCreateFromCString(""), append, &errors);
  int ok = mlirLogicalResultIsFailure(result) && errors.data &&
           strstr(errors.data, "error: ");
  if (ok)
    printf("c: an invalid op fails: %.*s\n", (int)strcspn(errors.data, "\n"),
           errors.data);
  clear(&errors);
  return ok ? 0 : 1;
}

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  fmhaRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  fmhaRegisterAllPasses();

  /* fmha's dialect handles, as MLIR's C API has them for its dialects. */
  MlirDialectHandle handles[] = {mlirGetDialectHandle__fmha__(),
                                 mlirGetDialectHandle__tile__(),
                                 mlirGetDialectHandle__ws__()};
  printf("c: dialects");
  for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); ++i) {
    MlirStringRef name = mlirDialectHandleGetNamespace(handles[i]);
    printf(" %.*s", (int)name.length, name.data);
  }
  printf("\n");

  int status = compileToPTX(context) || runPipeline(context) ||
               compileAttention(context) || reportError(context);
  mlirContextDestroy(context);
  return status;
}
