/* A stand-in for libcuda.so.1, compiled against the real cuda.h, so that the
 * runtime's ctypes signatures and structs go through the C ABI and are read
 * back with the header's own types. Each call appends a line to a log that
 * the test reads with fake_log(). */
#include <cuda.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char log_buf[16384];
static size_t log_len;
static int nparams;

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(log_buf + log_len, sizeof log_buf - log_len, fmt, ap);
  va_end(ap);
  if (n > 0 && log_len + n < sizeof log_buf)
    log_len += n;
}

const char *fake_log(void) { return log_buf; }
void fake_reset(int params) { log_len = 0; log_buf[0] = 0; nparams = params; }

CUresult cuInit(unsigned int flags) { say("cuInit %u\n", flags); return CUDA_SUCCESS; }

CUresult cuGetErrorName(CUresult e, const char **s) {
  if (e != CUDA_ERROR_INVALID_VALUE) return CUDA_ERROR_INVALID_VALUE;
  *s = "CUDA_ERROR_INVALID_VALUE";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult e, const char **s) {
  if (e != CUDA_ERROR_INVALID_VALUE) return CUDA_ERROR_INVALID_VALUE;
  *s = "invalid argument";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static int ctx_storage;
CUresult cuCtxGetCurrent(CUcontext *c) { *c = (CUcontext)&ctx_storage; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
CUresult cuCtxGetId(CUcontext c, unsigned long long *id) { *id = 7; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_ERROR_INVALID_VALUE; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  *c = (CUcontext)&ctx_storage;
  return CUDA_SUCCESS;
}

static int module_storage, function_storage;
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  say("cuModuleLoadData %.8s\n", (const char *)image);
  *m = (CUmodule)&module_storage;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  say("cuModuleGetFunction %d %s\n", m == (CUmodule)&module_storage, name);
  *f = (CUfunction)&function_storage;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  say("cuFuncSetAttribute %d %d %d\n", f == (CUfunction)&function_storage,
      (int)a, v);
  return CUDA_SUCCESS;
}

static void say_params(void **params) {
  say(" params");
  for (int i = 0; i < nparams; ++i)
    say(" %llx", (unsigned long long)(size_t)params[i]);
  say("\n");
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        CUstream s, void **params, void **extra) {
  say("cuLaunchKernel %d grid %u %u %u block %u %u %u smem %u stream %llx "
      "extra %d", f == (CUfunction)&function_storage, gx, gy, gz, bx, by, bz,
      smem, (unsigned long long)(size_t)s, extra == NULL);
  say_params(params);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f,
                          void **params, void **extra) {
  say("cuLaunchKernelEx %d grid %u %u %u block %u %u %u smem %u stream %llx "
      "extra %d attrs %u", f == (CUfunction)&function_storage, c->gridDimX,
      c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
      c->sharedMemBytes, (unsigned long long)(size_t)c->hStream,
      extra == NULL, c->numAttrs);
  for (unsigned i = 0; i < c->numAttrs; ++i)
    say(" id %d cluster %u %u %u", (int)c->attrs[i].id,
        c->attrs[i].value.clusterDim.x, c->attrs[i].value.clusterDim.y,
        c->attrs[i].value.clusterDim.z);
  say_params(params);
  return CUDA_SUCCESS;
}

/* As many clusters as leave four multiprocessors out. */
CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f,
                                      const CUlaunchConfig *c) {
  say("cuOccupancyMaxActiveClusters %d grid %u block %u smem %u attrs %u",
      f == (CUfunction)&function_storage, c->gridDimX, c->blockDimX,
      c->sharedMemBytes, c->numAttrs);
  for (unsigned i = 0; i < c->numAttrs; ++i)
    say(" cluster %u", c->attrs[i].value.clusterDim.x);
  say("\n");
  *n = (132 - 4) / (int)c->attrs[0].value.clusterDim.x;
  return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *addr,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elem, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oob) {
  say("cuTensorMapEncodeTiled aligned %d type %d rank %u addr %llx",
      (int)((size_t)map % 64 == 0), (int)type, rank,
      (unsigned long long)(size_t)addr);
  say(" dims");
  for (cuuint32_t i = 0; i < rank; ++i) say(" %llu", (unsigned long long)dims[i]);
  say(" strides");
  for (cuuint32_t i = 0; i + 1 < rank; ++i) say(" %llu", (unsigned long long)strides[i]);
  say(" box");
  for (cuuint32_t i = 0; i < rank; ++i) say(" %u", box[i]);
  say(" elem");
  for (cuuint32_t i = 0; i < rank; ++i) say(" %u", elem[i]);
  say(" interleave %d swizzle %d l2 %d oob %d\n", (int)interleave,
      (int)swizzle, (int)l2, (int)oob);
  memset(map, 0xAB, sizeof *map);
  return CUDA_SUCCESS;
}
