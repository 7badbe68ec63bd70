"""The ``fmha`` command (also ``python -m fmha``).

    fmha compile gemm --dtype bf16 [--out-dtype f32] [--m 4096 ...] [-o DIR]
    fmha compile attention --dtype bf16 --head-dim 128 [--causal ...]
    fmha compile attention --varlen ...          # fmha.attention_varlen's
    fmha compile attention --kvcache [--page-size 64] ...  # attention_kvcache's
    fmha compile attention --kvcache --pack-gqa --heads-q 32 --heads-kv 8 \
        [--split-kv] ...                          # its decode kernels
    fmha compile attention --dtype f8e4m3 [--out-dtype f16] \
        [--head-descales] [--transpose-v] ...     # fp8 attention's
    fmha compile attention-backward --dtype bf16 --head-dim 128 [--causal ...]
    fmha compile attention-backward --varlen ...  # attention_varlen_backward's
    fmha cache list | fmha cache clear | fmha cache dir
    fmha version

Progress goes to stderr, results to stdout. Exit status 1 on a compile or
cache error (the message on stderr), 2 on a usage error; never a Python
traceback, unless ``FMHA_VERBOSE=1`` asks for one on an internal error.
Defaults are the API's: a spec field not given takes GemmSpec's /
AttentionSpec's default, which is what fmha.gemm / fmha.attention compile
when the shape has no tuned configuration. ``FMHA_VERBOSE=1`` acts as
``-v``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import traceback
from typing import Optional, Sequence

from . import __version__
from . import cache as _cache
from . import tools as _tools
from .compiler import (CompileError, _env_verbose, compile, copy_artifacts,
                       stderr_progress)
from .specs import AttentionBackwardSpec, AttentionSpec, GemmSpec, TARGETS


def _ints(text: str) -> tuple:
    try:
        return tuple(int(x) for x in text.replace("x", ",").split(",") if x)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}") from None


def _size(text: str) -> Optional[int]:
    if text in ("?", "dynamic"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or '?', got {text!r}") from None


def _human(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else \
                f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes} B"  # pragma: no cover


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cache-dir", metavar="DIR",
                        help="the kernel cache (default: $FMHA_CACHE_DIR, "
                        "$XDG_CACHE_HOME/fmha or ~/.cache/fmha)")
    p = argparse.ArgumentParser(
        prog="fmha", description="Compiles fmha kernels into the kernel "
        "cache and manages it.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compile", help="compile a kernel (or find it in the "
                       "cache)")
    kinds = c.add_subparsers(dest="kind", required=True)
    kernel_opts = argparse.ArgumentParser(add_help=False, parents=[common])
    kernel_opts.add_argument("-o", "--output", metavar="DIR",
                             help="also copy the artifacts to DIR")
    kernel_opts.add_argument("--force", action="store_true",
                             help="compile even when cached")
    kernel_opts.add_argument("-v", "--verbose", action="store_true",
                             help="list the pipeline's passes (also "
                             "FMHA_VERBOSE=1)")
    kernel_opts.add_argument("--target", default="sm_90a", choices=TARGETS,
                             help="default: sm_90a (sm_100a compiles to "
                             "PTX and a cubin; fmha.gemm and "
                             "fmha.attention launch sm_90a)")

    g = kinds.add_parser(
        "gemm", parents=[kernel_opts],
        help="C = A @ B^T, B given as [N, K]",
        description="C[M, N] = A[M, K] @ B[N, K]^T with fp32 accumulation. "
        "Sizes left out are dynamic; options left out take fmha.GemmSpec's "
        "defaults, the configuration fmha.gemm uses by default.")
    g.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    g.add_argument("--out-dtype", choices=["bf16", "f16", "f32"],
                   help="default: --dtype")
    g.add_argument("--tile", type=_ints, metavar="M,N,K",
                   help="default: 128,128,64")
    g.add_argument("--stages", type=int,
                   help="default: the most, up to 4, that fit")
    g.add_argument("--consumers", type=int, help="default: 2")
    g.add_argument("--multicast", type=int,
                   help="2: clusters of two CTAs share each B tile by TMA "
                   "multicast (default: 1)")
    g.add_argument("--schedule", choices=["cooperative", "pingpong"],
                   help="pingpong: each consumer computes whole tiles, their "
                   "main loops taking turns (default: cooperative)")
    g.add_argument("--splits", type=int,
                   help="split-K: K ranges per output tile, the last of "
                   "which sums the f32 partials (default: 1)")
    g.add_argument("--swap-ab", action="store_const", const=True,
                   help="compute each tile as C^T = B A^T: A's block_m rows "
                   "(a multiple of 8) are the MMA's N, for a few rows of A "
                   "(one consumer)")
    for size in ("m", "n", "k"):
        g.add_argument(f"--{size}", type=_size, metavar=size.upper(),
                       help=f"static {size.upper()} (default: dynamic)")

    a = kinds.add_parser(
        "attention", parents=[kernel_opts],
        help="fused attention forward",
        description="o = softmax(scale * q k^T + mask) v, q [B, H, SQ, D], "
        "k and v [B, HKV, SK, D]. Sizes left out are dynamic. Without "
        "--tile and --stages, the configuration fmha.attention uses.")
    a.add_argument("--dtype", default="bf16",
                   choices=["bf16", "f16", "f8e4m3"],
                   help="f8e4m3: fp8 attention (descales after v; v "
                   "transposed [B, HKV, D, SK16] unless --transpose-v)")
    a.add_argument("--out-dtype", choices=["bf16", "f16"],
                   help="fp8 attention's o (default bf16)")
    a.add_argument("--head-descales", action="store_true",
                   help="fp8: descales per sequence and KV head ([B, HKV])")
    a.add_argument("--transpose-v", action="store_true",
                   help="fp8: v as k ([B, HKV, SK, D]); the kernel "
                   "transposes its tiles in shared memory")
    a.add_argument("--head-dim", type=int, default=128)
    for size in ("batch", "heads-q", "heads-kv", "seq-q", "seq-k"):
        a.add_argument(f"--{size}", type=_size,
                       help="static size (default: dynamic)")
    a.add_argument("--lse", action="store_true",
                   help="also return the log-sum-exp")
    a.add_argument("--causal", action="store_true")
    a.add_argument("--varlen", action="store_true",
                   help="packed variable-length sequences (q [TQ, H, D], "
                   "cu_seqlens; fmha.attention_varlen's kernels): batch "
                   "and lengths stay dynamic")
    a.add_argument("--kvcache", action="store_true",
                   help="KV caches with a length per sequence (q [B, SQ, H, "
                   "D], k and v [B, MAXLEN, HKV, D]; "
                   "fmha.attention_kvcache's kernels): the key length "
                   "stays dynamic")
    a.add_argument("--page-size", type=int,
                   help="with --kvcache: paged caches [NP, PAGE_SIZE, HKV, "
                   "D] read through a block table (16 to 256, a power of "
                   "two)")
    a.add_argument("--pack-gqa", action="store_true",
                   help="with --kvcache: the query heads of a KV head share "
                   "a Q tile (needs --heads-q and --heads-kv, their ratio "
                   "dividing 64)")
    a.add_argument("--split-kv", action="store_true",
                   help="with --kvcache: each query block's keys cut into S "
                   "ranges (S given at launch), merged by the last")
    a.add_argument("--window", type=_ints, metavar="LEFT,RIGHT",
                   help="keys within LEFT before and RIGHT after the "
                   "diagonal, each in [0, 2^31-1]")
    a.add_argument("--scale", type=float)
    a.add_argument("--tile", type=_ints, metavar="M,N")
    a.add_argument("--stages", type=int)
    a.add_argument("--consumers", type=int,
                   help="consumer warpgroups, 1 or 2 (3 on sm_90a)")

    b = kinds.add_parser(
        "attention-backward", parents=[kernel_opts],
        help="the attention backward (dq, dk, dv)",
        description="dq, dk, dv of attention from q, k, v, o, do and lse "
        "(fmha.attention_backward's kernels, several launches in one "
        "cubin). Sizes left out are dynamic; sm_90a only.")
    b.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    b.add_argument("--head-dim", type=int, default=128)
    for size in ("batch", "heads-q", "heads-kv", "seq-q", "seq-k"):
        b.add_argument(f"--{size}", type=_size,
                       help="static size (default: dynamic)")
    b.add_argument("--causal", action="store_true")
    b.add_argument("--varlen", action="store_true",
                   help="packed variable-length sequences (q [TQ, H, D], "
                   "lse [H, TQ], cu_seqlens; "
                   "fmha.attention_varlen_backward's kernels): batch and "
                   "lengths stay dynamic")
    b.add_argument("--window", type=_ints, metavar="LEFT,RIGHT",
                   help="keys within LEFT before and RIGHT after the "
                   "diagonal, each in [0, 2^31-1]")
    b.add_argument("--scale", type=float)
    b.add_argument("--tile", type=_ints, metavar="M,N",
                   help="query rows per step, keys per CTA of the main "
                   "kernels")

    k = sub.add_parser("cache", help="list or clear the kernel cache")
    actions = k.add_subparsers(dest="action", required=True)
    actions.add_parser("list", parents=[common], help="list the entries")
    actions.add_parser("clear", parents=[common], help="remove every entry")
    actions.add_parser("dir", parents=[common],
                       help="print the cache directory")

    sub.add_parser("version", parents=[common],
                   help="package and compiler versions, cache directory")
    return p


def _given(args: argparse.Namespace, names: tuple) -> dict:
    """The spec fields among ``names`` given on the command line."""
    return {n: getattr(args, n) for n in names
            if getattr(args, n) is not None}


def _spec(args: argparse.Namespace):
    if args.kind == "gemm":
        return GemmSpec(**_given(args, (
            "dtype", "out_dtype", "tile", "stages", "consumers", "target",
            "m", "n", "k", "multicast", "schedule", "splits", "swap_ab")))
    if args.kind == "attention-backward":
        return AttentionBackwardSpec(
            causal=args.causal, varlen=args.varlen, **_given(args, (
                "dtype", "head_dim", "batch", "heads_q", "heads_kv",
                "seq_q", "seq_k", "window", "scale", "tile", "target")))
    return AttentionSpec(
        return_lse=args.lse, causal=args.causal, varlen=args.varlen,
        kvcache=args.kvcache, pack_gqa=args.pack_gqa,
        split_kv=args.split_kv, head_descales=args.head_descales,
        transpose_v=args.transpose_v, **_given(args, (
            "dtype", "head_dim", "batch", "heads_q", "heads_kv", "seq_q",
            "seq_k", "window", "scale", "tile", "stages", "consumers",
            "target", "page_size", "out_dtype")))


def _compile(args: argparse.Namespace) -> int:
    try:
        spec = _spec(args)
    except (TypeError, ValueError) as e:
        print(f"fmha compile: {e}", file=sys.stderr)
        return 2
    try:
        kernel = compile(spec, cache_dir=args.cache_dir, force=args.force,
                         progress=stderr_progress,
                         verbose=args.verbose or _env_verbose())
    except CompileError as e:
        print(f"fmha compile: {e}", file=sys.stderr)
        return 1
    info = kernel.info
    manifest = kernel.entry.manifest_data or {}
    how = "found in the cache" if kernel.cache_hit else \
        f"compiled in {sum(info.get('seconds', {}).values()):.1f} s"
    print(f"{spec.name} ({spec.target}): {how}")
    print(f"  cache entry:  {kernel.directory}")
    print(f"  manifest:     {kernel.manifest_path}")
    print(f"  cubin:        {kernel.cubin_path}")
    if kernel.ptx_path is not None:
        print(f"  ptx:          {kernel.ptx_path}")
    for launch in manifest.get("launches") or [manifest]:
        entry = f"{launch.get('entry')}: " if "launches" in manifest else ""
        print(f"  {entry}block {launch.get('block')}, cluster "
              f"{launch.get('cluster')}, dynamic smem "
              f"{launch.get('dynamic_smem')} B, grid "
              f"{json.dumps(launch.get('grid'))}")
    if info.get("ptxas_info"):
        print(f"  ptxas:        {info['ptxas_info']}")
    if args.output:
        copied = copy_artifacts(kernel, args.output)
        print(f"  copied to {args.output}: "
              f"{', '.join(p.name for p in copied)}")
    return 0


def _cache_list(root) -> int:
    entries = list(_cache.iter_entries(root))
    total = sum(e.size() for e in entries)
    print(f"cache: {root} ({len(entries)} entries, {_human(total)})")
    if not entries:
        return 0
    rows = [("kernel", "target", "created", "size", "compiler", "entry")]
    for e in entries:
        created = datetime.datetime.fromtimestamp(
            e.info.get("created", 0)).strftime("%Y-%m-%d %H:%M")
        compiler = (e.info.get("compiler") or "?").splitlines()
        rows.append((e.info.get("name", "?"), e.info.get("target", "?"),
                     created, _human(e.size()),
                     _short_version(compiler), e.path.name))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


def _short_version(lines: list) -> str:
    """The line of ``fmha-opt --version`` that names fmha (or the first),
    with the start of the fmha-opt binary's hash when the lines have it."""
    text = lines[0].strip() if lines else "?"
    for line in lines:
        if "fmha" in line.lower() and "sha256:" not in line:
            text = line.strip()
            break
    for line in lines:
        if line.startswith("fmha-opt sha256:"):
            text += f" ({line.split(':', 1)[1][:8]})"
    return text


def _version(root) -> int:
    print(f"fmha {__version__} ({os.path.dirname(os.path.abspath(__file__))})")
    tools = _tools.find_tools()
    if tools.compiler:
        try:
            version = _tools.tool_version(tools.opt.path)  # type: ignore
            print(f"compiler: {_short_version(version.splitlines())}")
        except Exception as e:  # noqa: BLE001 - report, do not fail
            print(f"compiler: cannot run {tools.opt.path} --version: {e}")
        print(f"  fmha-opt:       {tools.opt.path} ({tools.opt.origin})")
        print(f"  fmha-translate: {tools.translate.path} "
              f"({tools.translate.origin})")
    else:
        print(f"compiler: not found ({tools.missing()}); kernels come from "
              f"the cache only")
    if tools.ptxas:
        print(f"  ptxas:          {tools.ptxas.path} ({tools.ptxas.origin})")
    else:
        print(f"  ptxas:          not found ({tools.ptxas.problem})")
    print(f"cache: {root}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `fmha cache list | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("fmha: interrupted", file=sys.stderr)
        return 130
    except (_cache.CacheError, OSError) as e:
        print(f"fmha: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a message, not a traceback
        if _env_verbose():
            traceback.print_exc()
        print(f"fmha: internal error: {type(e).__name__}: {e} (set "
              f"FMHA_VERBOSE=1 for the traceback)", file=sys.stderr)
        return 1


# An option's value that starts with '-' (``--window -1,0``, ``--scale
# -1e3``): argparse would take it for an option. Such values are joined to
# their option (``--window=-1,0``), so the spec's range check reports them.
_NEGATIVE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)


def _join_negative_values(argv: Sequence[str]) -> list:
    out: list = []
    for arg in argv:
        if out and _NEGATIVE.match(arg) and out[-1].startswith("--") \
                and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(_join_negative_values(argv))
    root = _cache.cache_dir(getattr(args, "cache_dir", None))
    if args.command == "compile":
        return _compile(args)
    _cache.check_root(root)
    if args.command == "cache":
        if args.action == "list":
            return _cache_list(root)
        if args.action == "dir":
            print(root)
            return 0
        removed, freed = _cache.clear(root)
        print(f"removed {removed} entries ({_human(freed)}) from {root}")
        return 0
    return _version(root)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
