#!/usr/bin/env python3
"""Attention-forward benchmark: fmha vs PyTorch SDPA (cuDNN and
FlashAttention-2) vs a Triton flash-attention kernel (bench/triton_attention.py).

FlashAttention-3's grid: batch x seqlen = 16384 tokens, hidden 2048 (heads =
2048 / head dim), seqlen 512 to 16k, head dims 64, 128 and 256, causal and
not, bf16. All kernels run on the same inputs in one run; each output is
checked against cuDNN's (another SDPA backend's where cuDNN has no kernel)
before it is timed. Times are the median of
triton.testing.do_bench (which flushes L2 before every run); TFLOP/s =
4 * B * H * S^2 * D / t, halved for causal (the masked half is not
counted). fmha is timed as a prepared launch (checks and tensor maps done
once), like the C++ launch paths of the others. Triton's time is the best
of a small config sweep.

usage: attention.py MANIFEST_DIR [--seqlens 512,1024,...] [--head-dims 64,128,256]
                    [--warmup MS] [--rep MS] [--plot FILE.png] [--no-triton]
                    [--time-limit S]
       attention.py --from-log LOG --plot FILE.png   # redraw, no GPU
MANIFEST_DIR holds attn_d<D>.json and attn_d<D>_causal.json (+ cubins); a
missing manifest skips fmha at that head dim (the other kernels still run).
"""

import argparse
import math
import os
import sys
import time

BACKENDS = ("fmha", "cudnn", "flash", "triton")
LABELS = {"fmha": "fmha", "cudnn": "cuDNN (SDPA)",
          "flash": "FlashAttention-2 (SDPA)", "triton": "Triton"}


def tflops(b, h, s, d, causal, ms):
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    return flops / (ms * 1e-3) / 1e12


def rel_err(x, ref):
    return ((x.float() - ref.float()).norm()
            / ref.float().norm().clamp_min(1e-30)).item()


def load_fmha(directory, d, causal):
    """The fmha Kernel of attn_d<d>[_causal].json, or None (with a
    message) when the manifest or its cubin is missing."""
    from fmha.runtime import Kernel
    from fmha.runtime.errors import ManifestError
    name = f"attn_d{d}{'_causal' if causal else ''}.json"
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        print(f"skipping fmha at head dim {d} causal={causal}: no {name} in "
              f"{directory}", flush=True)
        return None
    try:
        return Kernel.load(path)
    except ManifestError as e:
        print(f"skipping fmha at head dim {d} causal={causal}: {e}",
              flush=True)
        return None


def time_point(kernel, b, h, s, d, causal, args):
    """TFLOP/s of each backend at one size (NaN where it failed)."""
    import torch
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))

    def sdpa(backend):
        with sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal)

    def bench(fn):
        return triton.testing.do_bench(fn, warmup=args.warmup, rep=args.rep,
                                       return_mode="median")

    result = {name: float("nan") for name in BACKENDS}
    notes = []
    # The reference output: cuDNN's, or the next SDPA backend that runs.
    ref = None
    for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
                    SDPBackend.EFFICIENT_ATTENTION):
        try:
            ref = sdpa(backend)
            torch.cuda.synchronize()
            break
        except RuntimeError as e:
            notes.append(f"{backend.name} gives no reference: "
                         f"{str(e).splitlines()[0][:80]}")
    if ref is None:
        return result, notes
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("flash", SDPBackend.FLASH_ATTENTION)):
        print(f"  {name} ...", flush=True)
        try:
            out = sdpa(backend)
            torch.cuda.synchronize()
            err = rel_err(out, ref)
            if not err < 2e-2:
                notes.append(f"{name} differs from cuDNN (rel err {err:.1e})")
                continue
            result[name] = tflops(b, h, s, d, causal,
                                  bench(lambda: sdpa(backend)))
        except RuntimeError as e:
            notes.append(f"{name} failed: {str(e).splitlines()[0][:100]}")
    if kernel is not None:
        print("  fmha ...", flush=True)
        o = torch.full_like(q, float("nan"))
        kernel(q=q, k=k, v=v, o=o)
        torch.cuda.synchronize()
        err = rel_err(o, ref)
        if err < 2e-2:
            launch = kernel.prepare({"q": q, "k": k, "v": v, "o": o})
            run = lambda: kernel.driver.launch(  # noqa: E731
                launch.function, launch.grid, launch.block,
                launch.dynamic_smem, launch.stream, launch.params.array,
                launch.cluster)
            result["fmha"] = tflops(b, h, s, d, causal, bench(run))
        else:
            notes.append(f"fmha differs from cuDNN (rel err {err:.1e}); "
                         "not timed")
    if not args.no_triton:
        from triton_attention import best_triton_attention
        print("  triton (config sweep) ...", flush=True)
        ms, config = best_triton_attention(q, k, v, causal, ref,
                                           warmup=args.warmup, rep=args.rep)
        if math.isnan(ms):
            notes.append(f"triton: {config}")
        else:
            result["triton"] = tflops(b, h, s, d, causal, ms)
            notes.append(f"triton {config}")
    return result, notes


def ratio(x, y):
    return f"{x / y:.2f}" if x == x and y == y and y > 0 else "-"


def fmt(x):
    return f"{x:.0f}" if x == x else "-"


def plot(rows, head_dims, path, device):
    """TFLOP/s against seqlen, one panel per head dim x causal."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"--plot: matplotlib is not installed here; no plot written "
              f"to {path}")
        return
    fig, axes = plt.subplots(2, len(head_dims),
                             figsize=(4.2 * len(head_dims), 7), squeeze=False,
                             sharey=True)
    # One colour and marker per kernel in every panel.
    styles = {"fmha": ("o-", "C0"), "cudnn": ("s--", "C1"),
              "flash": ("^--", "C2"), "triton": ("d:", "C3")}
    for col, d in enumerate(head_dims):
        for row, causal in enumerate((False, True)):
            ax = axes[row][col]
            points = [r for r in rows if r[0] == d and r[1] == causal]
            seqlens = [r[2] for r in points]
            if not points:
                continue
            for name in BACKENDS:
                ys = [r[3][name] for r in points]
                if all(y != y for y in ys):
                    if name == "fmha":
                        ax.text(0.02, 0.03, "fmha: no kernel at this head "
                                "dim", transform=ax.transAxes, fontsize=8,
                                color=styles[name][1])
                    continue
                ax.plot(seqlens, ys, styles[name][0], color=styles[name][1],
                        label=LABELS[name])
            ax.set_xscale("log", base=2)
            ax.set_xticks(seqlens)
            ax.set_xticklabels([f"{s // 1024}k" if s >= 1024 else str(s)
                                for s in seqlens])
            ax.set_title(f"head dim {d}, {'causal' if causal else 'non-causal'}")
            ax.set_xlabel("sequence length")
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("TFLOP/s")
    handles = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(handles.values(), handles.keys(), loc="lower center",
               ncol=len(handles), fontsize=9)
    fig.suptitle(f"Attention forward, bf16, batch x seqlen = 16k tokens, "
                 f"hidden 2048 ({device})")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


def read_table(path):
    """The device name and the rows of a log this script printed (its
    table), for --from-log."""
    device, rows = "", []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("device: "):
                device = line[len("device: "):].split(",")[0].strip()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 9 or not cells[0].isdigit():
                continue
            value = lambda c: float(c) if c != "-" else float("nan")  # noqa
            rows.append((int(cells[0]), cells[1] == "yes", int(cells[2]),
                         {"cudnn": value(cells[3]), "flash": value(cells[4]),
                          "triton": value(cells[5]),
                          "fmha": value(cells[6])}))
    return device, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifests", nargs="?",
                        help="folder of attn_d<D>[_causal].json")
    parser.add_argument("--from-log", metavar="LOG",
                        help="measure nothing: redraw --plot from the table "
                        "of an earlier run's output")
    parser.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    parser.add_argument("--head-dims", default="64,128,256")
    parser.add_argument("--warmup", type=float, default=25,
                        help="do_bench warmup per kernel, ms (default 25)")
    parser.add_argument("--rep", type=float, default=100,
                        help="do_bench timing budget per kernel, ms "
                        "(default 100)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw TFLOP/s against seqlen into this PNG")
    parser.add_argument("--no-triton", action="store_true",
                        help="skip the Triton baseline")
    parser.add_argument("--time-limit", type=float, metavar="S",
                        help="start no new size after S seconds; the table "
                        "and plot show what was measured by then")
    args = parser.parse_args()
    if args.from_log:
        device, rows = read_table(args.from_log)
        head_dims = sorted({r[0] for r in rows})
        if args.plot:
            plot(rows, head_dims, args.plot, device)
        return 0
    if not args.manifests:
        parser.error("MANIFEST_DIR is required (unless --from-log)")

    import torch
    torch.zeros(1, device="cuda")  # PyTorch's CUDA context first
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    head_dims = [int(x) for x in args.head_dims.split(",")]
    seqlens = [int(x) for x in args.seqlens.split(",")]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    start = time.monotonic()
    for d in head_dims:
        for causal in (False, True):
            kernel = load_fmha(args.manifests, d, causal)
            for s in seqlens:
                if args.time_limit and time.monotonic() - start > \
                        args.time_limit:
                    print(f"time limit: head dim {d} causal={causal} seqlen "
                          f"{s} not measured", flush=True)
                    continue
                b, h = max(16384 // s, 1), 2048 // d
                print(f"head dim {d}, {'causal' if causal else 'non-causal'}, "
                      f"seqlen {s} (batch {b}, heads {h}):", flush=True)
                torch.manual_seed(s + d)
                result, notes = time_point(kernel, b, h, s, d, causal, args)
                for note in notes:
                    print(f"  {note}", flush=True)
                print("  TFLOP/s: " + ", ".join(
                    f"{n} {fmt(result[n])}" for n in BACKENDS), flush=True)
                rows.append((d, causal, s, result))
                torch.cuda.empty_cache()

    print()
    print("| head dim | causal | seqlen | cuDNN | FA2 | Triton | fmha | "
          "fmha / cuDNN | fmha / Triton |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d, causal, s, r in rows:
        print(f"| {d} | {'yes' if causal else 'no'} | {s} | "
              f"{fmt(r['cudnn'])} | {fmt(r['flash'])} | {fmt(r['triton'])} | "
              f"{fmt(r['fmha'])} | {ratio(r['fmha'], r['cudnn'])} | "
              f"{ratio(r['fmha'], r['triton'])} |")
    if args.plot:
        plot(rows, head_dims, args.plot, torch.cuda.get_device_name())
    return 0


if __name__ == "__main__":
    sys.exit(main())
