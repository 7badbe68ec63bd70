#!/usr/bin/env python3
"""Runs the deliberately broken kernel of test/Target/sm90/ws-hang-detection.mlir.

Its consumer takes two slots per iteration of a ring the producer fills once
per iteration, so after the producer's last slot the consumer waits forever.
Compiled with ws-insert-hang-reports{wait-timeout=N}, the wait must give up: the
launch fails (the kernel traps) within seconds instead of hanging, and the
process prints the hang report of the consumer's wait.

The kernel runs in a child process, so that the trap, which leaves the CUDA
context unusable, does not touch this one; the parent kills the child if it
hangs. Only the CUDA driver (libcuda, through ctypes) is needed: the kernel
has no tensors. Exits 77 (skipped) without a CUDA driver or an sm_90 GPU.

usage: ws_hang.py CUBIN
"""

import ctypes
import re
import subprocess
import sys
import time

SKIP = 77
KERNEL = b"hang"
THREADS = 256  # .maxntid of the kernel: producer warp 0, consumer warps 4-7
SMEM = 1024  # more than the ws.smem_bytes of its two mbarrier arrays
ITERATIONS = 4  # %n: the producer fills 4 slots, the consumer wants 8
HANG_LIMIT_S = 60  # the child is deemed hung after this long
TRAP_ERRORS = ("CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_LAUNCH_FAILED")

# The consumer's first wait of its third iteration: slot 0 in its third
# round (phase parity 0); threads 128-255 are the consumer's.
REPORT = re.compile(
    r"fmha: hang in role 'consumer': ws\.mbarrier_wait at "
    r"ws-hang-detection\.mlir:\d+:\d+ on the full barrier of channel 0, "
    r"stage 0, phase parity 0, not completed after \d+ us; "
    r"thread (\d+), CTA \(0, 0, 0\)")


def load_driver():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    if cuda.cuInit(0) != 0:
        return None
    return cuda


def error_name(cuda, result):
    name = ctypes.c_char_p()
    cuda.cuGetErrorName(result, ctypes.byref(name))
    return name.value.decode() if name.value else str(result)


def probe():
    """None when the kernel can run here, else why not."""
    cuda = load_driver()
    if cuda is None:
        return "no CUDA driver"
    count = ctypes.c_int()
    if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return "no CUDA device"
    device = ctypes.c_int()
    cuda.cuDeviceGet(ctypes.byref(device), 0)
    major, minor = ctypes.c_int(), ctypes.c_int()
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device)  # CC major
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)  # CC minor
    if (major.value, minor.value) != (9, 0):
        return "the cubin is for sm_90a"
    return None


def child(cubin_path):
    """Launches the kernel once; prints how the synchronization ended."""
    cuda = load_driver()

    def check(result, what):
        if result != 0:
            raise RuntimeError(f"{what} failed: {error_name(cuda, result)}")

    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
          "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    module = ctypes.c_void_p()
    cubin = open(cubin_path, "rb").read()
    check(cuda.cuModuleLoadData(ctypes.byref(module), cubin),
          "cuModuleLoadData")
    func = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(func), module, KERNEL),
          "cuModuleGetFunction")
    n = ctypes.c_int32(ITERATIONS)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(n),
                                               ctypes.c_void_p))
    check(cuda.cuLaunchKernel(func, 1, 1, 1, THREADS, 1, 1, SMEM, None,
                              params, None), "cuLaunchKernel")
    result = cuda.cuCtxSynchronize()
    # The device's printf output goes through the C library's stdout.
    ctypes.CDLL(None).fflush(None)
    print(f"cuCtxSynchronize: {error_name(cuda, result)}", flush=True)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    why = probe()
    if why:
        print(f"skipped: {why}")
        return SKIP

    start = time.monotonic()
    try:
        run = subprocess.run([sys.executable, __file__, "--child", sys.argv[1]],
                             capture_output=True, text=True,
                             timeout=HANG_LIMIT_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout
        print(f"FAIL: the kernel still hangs after {HANG_LIMIT_S} s")
        print(out or "")
        return 1
    seconds = time.monotonic() - start
    out = run.stdout
    print(out, end="")
    print(run.stderr, end="", file=sys.stderr)

    failures = []
    if run.returncode != 0:
        failures.append(f"the child exited with {run.returncode}")
    ended = re.search(r"cuCtxSynchronize: (\S+)", out)
    if not ended:
        failures.append("the child did not synchronize")
    elif ended.group(1) not in TRAP_ERRORS:
        failures.append(f"the launch ended with {ended.group(1)}, not with "
                        f"one of {', '.join(TRAP_ERRORS)}")
    threads = [int(m.group(1)) for m in REPORT.finditer(out)]
    if not threads:
        failures.append("no hang report of the consumer's wait in the output")
    elif not all(128 <= t < 256 for t in threads):
        failures.append(f"reports from threads outside the consumer: {threads}")
    print(f"{len(threads)} hang reports, {seconds:.1f} s")
    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        print("ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
