"""fmha.attention_kvcache on a Hopper GPU, against a float64 reference.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here
(test/GPU/prepare_cache.py puts every kernel these tests select in a
cache: FMHA_CACHE_DIR=DIR on a machine without the compiler).

The outputs come from fresh torch.empty buffers: the caching allocator's
memory is filled with NaN first, so an unwritten element shows. The caches
are poisoned too: pages no sequence uses hold NaN (a read of a wrong page
shows), keys past a sequence's length hold NaN (they must be masked), and
values past it NaN or Inf (a zero probability times either is NaN: the
kernel moves a sequence's last tile back to end at its length, see
docs/Serving.md). Pages
are shuffled, and the block-table entries a sequence does not use point
anywhere: at NaN pages, outside the pool, or at -1.

Decode calls run the packed (pack_gqa) and split-KV kernels that
fmha.kvcache.decode_plan chooses for them; every call checks first that
the kernel it plans is there (else the test is skipped, rather than run on
the unpacked, unsplit kernel the API would fall back to).
DECODE_OPTIONS lists the options of those kernels (decode_kernel_specs:
what test/GPU/prepare_cache.py compiles for them).
"""

import random
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import kvcache, ops
from fmha.specs import AppendSpec

from .test_gpu_ops import attention_reference, compile_or_skip

HOPPER = (torch is not None and torch.cuda.is_available()
          and torch.cuda.get_device_capability() == (9, 0))
NEEDS_HOPPER = unittest.skipUnless(
    HOPPER, "needs PyTorch and a CUDA device of compute capability 9.0")

# Cache lengths: 0, 1, shorter than a page, not a multiple of the page
# size, several pages, and long.
LENGTHS = (0, 1, 17, 64, 100, 257, 1000, 3001)
# Cache lengths of the decode tests: empty, one key, less than a tile, and
# long ones that are not multiples of a page.
DECODE_LENGTHS = (0, 1, 17, 1000, 4097)

# The decode kernels the tests of this module plan: (dtype, head dims,
# causal, window, page sizes, (heads_q, heads_kv) pairs). A pair whose
# group packs needs its packed kernels, split and not; one that does not
# (MHA) needs the option's unpacked split kernel (heads dynamic: one for
# every pair), which also serves calls of more than 16 queries.
DECODE_OPTIONS = (
    ("bf16", (128,), True, None, (None, 16, 64, 256), ((32, 8),)),
    ("bf16", (128,), True, None, (64,),
     ((32, 4), (8, 1), (16, 4), (8, 2), (8, 8))),
    ("bf16", (128,), True, None, (None, 16), ((8, 2),)),
    ("bf16", (64, 256), True, None, (64,), ((16, 4),)),
    ("f16", (64, 128, 256), True, None, (64,), ((16, 4),)),
    ("bf16", (128,), False, None, (None, 16), ((16, 2),)),
    ("bf16", (128,), True, (128, 0), (64,), ((8, 2),)),
)


def decode_kernel_specs(options=DECODE_OPTIONS, target="sm_90a"):
    """The AttentionSpecs of the decode kernels ``options`` (rows as
    DECODE_OPTIONS), with and without lse, each once."""
    specs = []
    for dtype, head_dims, causal, window, pages, pairs in options:
        for head_dim in head_dims:
            for page in pages:
                for heads_q, heads_kv in pairs:
                    pack = kvcache.pack_gqa_applies(heads_q, heads_kv, 1)
                    splits = (True,) if head_dim in \
                        kvcache.SPLIT_HEAD_DIMS else ()
                    for split in ((False, *splits) if pack else splits):
                        for lse in (False, True):
                            spec = kvcache.decode_spec(
                                dtype, head_dim, causal, window, None, lse,
                                target, page, heads_q, heads_kv, pack, split)
                            if spec not in specs:
                                specs.append(spec)
    return specs


# The fmha.append_kv kernels that k_new / v_new take (AppendTest and the
# stress test): every dtype, head dim and page size the API accepts.
APPEND_KERNELS = [AppendSpec(dtype=dtype, head_dim=d, page_size=page)
                  for dtype in ("bf16", "f16")
                  for d in ops.ATTENTION_HEAD_DIMS
                  for page in (None, *kvcache.PAGE_SIZES)]


def kvcache_or_skip(test, dtype="bf16", head_dim=128, page_size=None,
                    **options):
    """The default kernel of fmha.attention_kvcache for these options (with
    and without lse), or a skip when it is neither in the cache nor
    compilable here."""
    for lse in (False, True):
        compile_or_skip(test, ops.attention_kernel_specs(
            dtype, head_dim, return_lse=lse, kvcache=True,
            page_size=page_size, **options)[0])


def planned_or_skip(test, q, k, table, num_splits=0, causal=False,
                    window=None, scale=None):
    """decode_plan's ``(pack, splits)`` for a call on these tensors, after
    checking that the kernel it plans (with and without lse) is in the
    cache or compiles here; else the test is skipped (the API would fall
    back to the unpacked, unsplit kernel)."""
    pack, splits = kvcache._plan(torch, q, k, table, window, num_splits)
    dtype = ops.fmha_dtype(q.dtype)
    page = None if table is None else int(k.shape[1])
    if not pack and splits == 1:
        kvcache_or_skip(test, dtype, int(q.shape[3]), page, causal=causal,
                        window=window, scale=scale)
        return pack, splits
    for lse in (False, True):
        compile_or_skip(test, kvcache.decode_spec(
            dtype, int(q.shape[3]), causal,
            None if window is None else tuple(window), scale, lse,
            "sm_90a", page, int(q.shape[2]), int(k.shape[2]), pack,
            splits > 1))
    return pack, splits


def past_end(seq):
    """What v holds past sequence ``seq``'s length: NaN or Inf (either
    would make o NaN if a row there reached P V)."""
    return float("nan") if seq % 2 else float("inf")


def make_cache(lengths, heads_kv, head_dim, dtype, page_size=None,
               max_len=None, seed=0):
    """(k_cache, v_cache, cache_seqlens, block_table) holding random keys
    and values for sequences of ``lengths``, dense ([batch, max_len, ...])
    or paged in shuffled pages with spare NaN pages; poisoned as the module
    says."""
    gen = random.Random(seed)
    batch = len(lengths)
    seqlens = torch.tensor(lengths, dtype=torch.int32, device="cuda")
    if page_size is None:
        max_len = max_len or max(max(lengths), 1)
        k = torch.randn(batch, max_len, heads_kv, head_dim, device="cuda",
                        dtype=dtype)
        v = torch.randn_like(k)
        # Past each length anything, NaN and Inf included: a cache's last
        # tile is moved back to end at the length.
        for b, n in enumerate(lengths):
            k[b, n:] = float("nan")
            v[b, n:] = past_end(b)
        return k, v, seqlens, None
    used = [-(-n // page_size) for n in lengths]
    spare = 3
    num_pages = sum(used) + spare
    order = list(range(num_pages))
    gen.shuffle(order)
    k = torch.randn(num_pages, page_size, heads_kv, head_dim, device="cuda",
                    dtype=dtype)
    v = torch.randn_like(k)
    nan_pages = order[sum(used):]
    k[nan_pages] = float("nan")
    v[nan_pages] = float("nan")
    max_pages = max(used) + 1
    table = []
    pos = 0
    for n, pages in zip(lengths, used):
        row = order[pos:pos + pages]
        pos += pages
        if pages and n % page_size:
            last = row[-1]
            k[last, n % page_size:] = float("nan")
            v[last, n % page_size:] = past_end(len(table))
        # Entries the sequence does not use: anything.
        junk = [gen.choice(nan_pages), -1, num_pages + 7,
                2 ** 31 - 1]
        row += [junk[(i + n) % len(junk)] for i in range(max_pages - pages)]
        table.append(row)
    table = torch.tensor(table, dtype=torch.int32, device="cuda")
    return k, v, seqlens, table


def reference(q, k_cache, v_cache, seqlens, table=None, causal=False,
              window=None, scale=None):
    """o [batch, seq_q, heads_q, d] and lse [batch, heads_q, seq_q] in
    float64, the queries at the end of each cache (bottom-right masks);
    rows that see no key: o = 0, lse = -inf."""
    batch, seq_q, heads, d = q.shape
    o = torch.zeros(batch, seq_q, heads, d, dtype=torch.float64,
                    device=q.device)
    lse = torch.full((batch, heads, seq_q), float("-inf"),
                     dtype=torch.float64, device=q.device)
    heads_kv = k_cache.shape[2]
    lengths = seqlens.tolist()
    for b, n in enumerate(lengths):
        if n == 0 or seq_q == 0:
            continue
        if table is None:
            ks, vs = k_cache[b, :n], v_cache[b, :n]
        else:
            pages = table[b, :-(-n // k_cache.shape[1])].long()
            ks = k_cache[pages].reshape(-1, heads_kv, d)[:n]
            vs = v_cache[pages].reshape(-1, heads_kv, d)[:n]
        # Sequence b as a batch of one [1, heads, seq, d].
        ob, lb = attention_reference(
            *(t.transpose(0, 1)[None] for t in (q[b], ks, vs)), causal,
            window, scale)
        o[b] = ob[0].transpose(0, 1)
        lse[b] = lb[0]
    return o, lse


def poison():
    torch.full((1 << 26,), float("nan"), device="cuda")


class _Checks(unittest.TestCase):
    """check and run_case, shared by the test classes."""

    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def check(self, q, cache, out, lse, tol=2e-2, **options):
        ref, ref_lse = reference(q, *cache, **options)
        self.assertEqual((out.shape, out.dtype), (q.shape, q.dtype))
        self.assertEqual(int(torch.isnan(out).sum()), 0, "unwritten o")
        if ref.numel() and ref.norm() > 0:
            err = ((out.double() - ref).norm() / ref.norm()).item()
            self.assertLess(err, tol)
        empty = torch.isinf(ref_lse)                     # [b, h, sq]
        self.assertTrue(bool((out.transpose(1, 2)[empty] == 0).all()),
                        "o of a row that sees no key")
        if lse is None:
            return
        batch, seq_q, heads, _ = q.shape
        self.assertEqual((tuple(lse.shape), lse.dtype),
                         ((batch, heads, seq_q), torch.float32))
        self.assertEqual(int(torch.isnan(lse).sum()), 0, "unwritten lse")
        self.assertTrue(bool(torch.isneginf(lse[empty]).all()),
                        "lse of a row that sees no key")
        if (~empty).any():
            err = (lse.double() - ref_lse)[~empty].abs().max().item()
            self.assertLess(err, 1e-3)

    def run_case(self, lengths, seq_q, heads_q, heads_kv, head_dim=128,
                 dtype=None, page_size=None, num_splits=0, twice=False,
                 **options):
        """Both calls (with and without lse) on a fresh cache, checked
        against the reference; ``twice``: the lse call again, which must
        give the same bits (a split kernel leaves its counters zeroed and
        merges in a fixed order). Returns decode_plan's (pack, splits)."""
        dtype = dtype or torch.bfloat16
        cache = make_cache(lengths, heads_kv, head_dim, dtype, page_size)
        k, v, seqlens, table = cache
        q = torch.randn(len(lengths), seq_q, heads_q, head_dim, device="cuda",
                        dtype=dtype)
        plan = planned_or_skip(self, q, k, table, num_splits, **options)
        poison()
        o, lse = fmha.attention_kvcache(q, k, v, seqlens, table,
                                        return_lse=True,
                                        num_splits=num_splits, **options)
        poison()
        o_only = fmha.attention_kvcache(q, k, v, seqlens, block_table=table,
                                        num_splits=num_splits, **options)
        if twice:
            poison()
            again = fmha.attention_kvcache(q, k, v, seqlens, table,
                                           return_lse=True,
                                           num_splits=num_splits, **options)
        torch.cuda.synchronize()
        self.check(q, cache, o, lse, **options)
        self.check(q, cache, o_only, None, **options)
        if twice:
            self.assertTrue(torch.equal(again[0], o), "o of the second call")
            self.assertTrue(torch.equal(again[1], lse),
                            "lse of the second call")
        return plan


@NEEDS_HOPPER
class KVCacheTest(_Checks):
    def test_pages_and_lengths(self):
        """Shuffled pages of 16, 64 and 256 rows and a dense cache; cache
        lengths 0, 1, 17, ... 3001 in one batch; seq_q 1, 4, 16 and 70;
        GQA 32:8."""
        for page in (16, 64, 256, None):
            kvcache_or_skip(self, page_size=page, causal=True)
            for seq_q in (1, 4, 16, 70):
                with self.subTest(page_size=page, seq_q=seq_q):
                    self.run_case(LENGTHS, seq_q, 32, 8, page_size=page,
                                  causal=True)

    def test_gqa(self):
        """GQA groups of 1, 4 and 8 and MQA."""
        kvcache_or_skip(self, page_size=64, causal=True)
        for heads_q, heads_kv in ((8, 8), (32, 8), (32, 4), (8, 1)):
            with self.subTest(heads=(heads_q, heads_kv)):
                self.run_case((5, 0, 130, 1000), 4, heads_q, heads_kv,
                              page_size=64, causal=True)

    def test_head_dims_and_dtypes(self):
        for dtype in (torch.bfloat16, torch.float16):
            for head_dim in (64, 128, 256):
                name = ops.fmha_dtype(dtype)
                kvcache_or_skip(self, name, head_dim, page_size=64,
                                causal=True)
                with self.subTest(dtype=dtype, head_dim=head_dim):
                    self.run_case((1, 63, 700, 0, 2049), 16, 16, 4, head_dim,
                                  dtype, page_size=64, causal=True)

    def test_not_causal(self):
        """Every query sees the whole cache; a prefill of 300 queries."""
        for page in (16, None):
            kvcache_or_skip(self, page_size=page)
            for seq_q in (1, 16, 300):
                with self.subTest(page_size=page, seq_q=seq_q):
                    self.run_case((33, 1, 0, 1500), seq_q, 16, 2,
                                  page_size=page)

    def test_window(self):
        kvcache_or_skip(self, page_size=64, causal=True, window=(128, 0))
        self.run_case((1000, 17, 0, 300), 16, 8, 2, page_size=64,
                      causal=True, window=(128, 0))

    def test_int_lengths_and_empty(self):
        kvcache_or_skip(self, page_size=64, causal=True)
        k, v, _, table = make_cache((128, 128), 2, 128, torch.bfloat16, 64)
        q = torch.randn(2, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
        planned_or_skip(self, q, k, table, causal=True)
        o = fmha.attention_kvcache(q, k, v, 100, table, causal=True)
        seqlens = torch.full((2,), 100, dtype=torch.int32, device="cuda")
        self.check(q, (k, v, seqlens, table), o, None, causal=True)
        # Empty batch, empty queries.
        for shape in ((0, 1, 8, 128), (2, 0, 8, 128)):
            q = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
            lengths = torch.zeros(shape[0], dtype=torch.int32, device="cuda")
            o, lse = fmha.attention_kvcache(q, k, v, lengths,
                                            table[:shape[0]],
                                            return_lse=True)
            self.assertEqual(tuple(o.shape), shape)
            self.assertEqual(tuple(lse.shape), (shape[0], 8, shape[1]))

    def test_errors(self):
        k, v, seqlens, table = make_cache((100, 30), 2, 128, torch.bfloat16,
                                          64)
        q = torch.randn(2, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
        call = fmha.attention_kvcache
        # The capacity is max_pages * page_size (the table has a spare
        # column beyond the pages the lengths use).
        capacity = table.shape[1] * 64
        too_long = torch.tensor([100, capacity + 1], dtype=torch.int32,
                                device="cuda")
        with self.assertRaisesRegex(
                ValueError, rf"cache_seqlens\[1\] = {capacity + 1} is out "
                rf"of range \[0, {capacity}\]"):
            call(q, k, v, too_long, table)
        with self.assertRaisesRegex(ValueError, r"cache_seqlens\[0\] = -1"):
            call(q, k, v, -seqlens.clamp(max=1), table)
        bad = table.clone()
        bad[0, 1] = k.shape[0]
        with self.assertRaisesRegex(ValueError, r"block_table\[0\]\[1\] = "
                                    r"\d+ points outside the pool"):
            call(q, k, v, seqlens, bad)
        bad[0, 1] = -3
        with self.assertRaisesRegex(ValueError, "points outside the pool"):
            call(q, k, v, seqlens, bad)
        with self.assertRaisesRegex(TypeError, "block_table must be int32"):
            call(q, k, v, seqlens, table.long())
        with self.assertRaisesRegex(TypeError, "cache_seqlens must be int32"):
            call(q, k, v, seqlens.long(), table)
        with self.assertRaisesRegex(ValueError, "one device"):
            call(q, k, v, seqlens.cpu(), table)
        with self.assertRaisesRegex(TypeError, "one dtype"):
            call(q, k.half(), v.half(), seqlens, table)
        with self.assertRaisesRegex(ValueError, "multiple of heads_kv"):
            call(q[:, :, :3], k, v, seqlens, table)
        with self.assertRaisesRegex(ValueError, "page_size"):
            call(q, k[:, :48], v[:, :48], seqlens, table)
        with self.assertRaisesRegex(ValueError, "one row per sequence"):
            call(q, k, v, seqlens, table[:1])
        with self.assertRaisesRegex(ValueError, r"k_new must be \[batch, "
                                    r"seq_new, heads_kv, head_dim\]"):
            call(q, k, v, seqlens, table, k_new=q, v_new=q)
        with self.assertRaisesRegex(ValueError, "go together"):
            call(q, k, v, seqlens, table, k_new=q)
        new = torch.zeros(2, 1, 2, 128, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, r"cache_seqlens\[1\] = "
                                    rf"{capacity + 1} is out of range"):
            call(q, k, v, too_long - 1, table, k_new=new, v_new=new)
        with self.assertRaisesRegex(ValueError, "num_splits must be an int"):
            call(q, k, v, seqlens, table, num_splits=-1)

    def test_custom_op_and_fast_path(self):
        """The eager fast path (a bound launch per layout) and the custom
        op give the same results; a later call of a bound layout still
        checks its values."""
        for page in (64, None):
            kvcache_or_skip(self, page_size=page, causal=True)
            k, v, seqlens, table = make_cache((300, 0, 17, 1000), 2, 128,
                                              torch.bfloat16, page)
            q = torch.randn(4, 4, 8, 128, device="cuda",
                            dtype=torch.bfloat16)
            planned_or_skip(self, q, k, table, causal=True)
            fast = fmha.attention_kvcache(q, k, v, seqlens, table,
                                          causal=True, return_lse=True)
            fast2 = fmha.attention_kvcache(q, k, v, seqlens, table,
                                           causal=True, return_lse=True)
            op = torch.ops.fmha.attention_kvcache(q, k, v, seqlens, table,
                                                  True, None, None, True,
                                                  True)
            torch.cuda.synchronize()
            for a, b in ((fast, op), (fast2, op)):
                self.assertTrue(torch.equal(a[0], b[0]))
                self.assertTrue(torch.equal(a[1], b[1]))
            self.check(q, (k, v, seqlens, table), fast[0], fast[1],
                       causal=True)
            with self.assertRaisesRegex(ValueError, "out of range"):
                fmha.attention_kvcache(q, k, v, seqlens + 10 ** 5, table,
                                       causal=True, return_lse=True)
            if table is not None:
                bad = table.clone()
                bad[0, 0] = -1
                with self.assertRaisesRegex(ValueError, "outside the pool"):
                    fmha.attention_kvcache(q, k, v, seqlens, bad,
                                           causal=True, return_lse=True)

    def test_bad_values_unchecked(self):
        """check_values=False with lengths past the capacity and pages
        outside the pool: the kernel clamps the lengths and the table
        indices, and TMA reads pages outside the pool as zeros, so the
        launch completes without a fault (run under compute-sanitizer to
        see that no access leaves the tensors)."""
        kvcache_or_skip(self, page_size=16, causal=True)
        k, v, _, table = make_cache((40, 40), 2, 128, torch.bfloat16, 16)
        q = torch.randn(2, 4, 8, 128, device="cuda", dtype=torch.bfloat16)
        planned_or_skip(self, q, k, table, causal=True)
        lengths = torch.tensor([10 ** 6, -5], dtype=torch.int32,
                               device="cuda")
        bad = torch.tensor([[-100, 10 ** 6, 2 ** 31 - 1, 5]] * 2,
                           dtype=torch.int32, device="cuda")
        fmha.attention_kvcache(q, k, v, lengths, bad, causal=True,
                               check_values=False)
        torch.cuda.synchronize()

    def test_cuda_graph(self):
        """Captured in a CUDA graph (the value checks are skipped while
        capturing) and replayed on new queries and longer caches."""
        kvcache_or_skip(self, page_size=64, causal=True)
        k, v, seqlens, table = make_cache((500, 64, 1, 900), 8, 128,
                                          torch.bfloat16, 64)
        q = torch.randn(4, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        planned_or_skip(self, q, k, table, causal=True)
        fmha.attention_kvcache(q, k, v, seqlens, table, causal=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o = fmha.attention_kvcache(q, k, v, seqlens, table, causal=True)
        q.copy_(torch.randn_like(q))
        seqlens.copy_(torch.tensor([499, 63, 0, 899], dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        self.check(q, (k, v, seqlens, table), o, None, causal=True)

    def test_fullgraph(self):
        kvcache_or_skip(self, page_size=64, causal=True)

        def f(q, k, v, seqlens, table):
            o, lse = fmha.attention_kvcache(q, k, v, seqlens, table,
                                            causal=True, return_lse=True)
            return o.float() * 2, lse

        graphs = []

        def backend(gm, inputs):
            graphs.append(gm)
            return gm.forward

        compiled = torch.compile(f, fullgraph=True, backend=backend,
                                 dynamic=True)
        cache = make_cache((300, 17, 0, 64), 2, 128, torch.bfloat16, 64)
        q = torch.randn(4, 4, 8, 128, device="cuda", dtype=torch.bfloat16)
        planned_or_skip(self, q, cache[0], cache[3], causal=True)
        got, lse = compiled(q, *cache)
        torch.cuda.synchronize()
        self.check(q, cache, (got / 2).to(q.dtype), lse, causal=True)
        self.assertIn("fmha.attention_kvcache", str(graphs[0].graph))

    def test_opcheck(self):
        kvcache_or_skip(self, page_size=64, causal=True)
        kvcache_or_skip(self, causal=True)
        q = torch.randn(3, 4, 8, 128, device="cuda", dtype=torch.bfloat16)
        for page in (64, None):
            k, v, seqlens, table = make_cache((100, 0, 31), 2, 128,
                                              torch.bfloat16, page)
            # opcheck compares outputs: no NaN in the caches here.
            k, v = k.nan_to_num(), v.nan_to_num()
            planned_or_skip(self, q, k, table, causal=True)
            with self.subTest(page_size=page):
                torch.library.opcheck(
                    torch.ops.fmha.attention_kvcache.default,
                    (q, k, v, seqlens, table, True, None, None, True, True))


@NEEDS_HOPPER
class DecodeTest(_Checks):
    """The packed (pack_gqa) and split-KV decode kernels: seq_q 1, 4 and
    16; MHA, GQA groups of 4 and 8, MQA; head dims 64, 128, 256; f16 and
    bf16; causal and not; dense caches and pages of 16, 64 and 256; cache
    lengths DECODE_LENGTHS; the split count chosen or forced (2, 7, more
    than the key tiles)."""

    def test_groups_and_queries(self):
        """MHA (not packed), groups of 4 and 8, MQA; seq_q 1, 4, 16 (packed)
        and 70 (not packed); unsplit and the chosen split."""
        for heads_q, heads_kv in ((8, 8), (32, 8), (32, 4), (8, 1)):
            for seq_q in (1, 4, 16, 70):
                for num_splits in (1, 0):
                    with self.subTest(heads=(heads_q, heads_kv), seq_q=seq_q,
                                      num_splits=num_splits):
                        pack, splits = self.run_case(
                            DECODE_LENGTHS, seq_q, heads_q, heads_kv,
                            page_size=64, num_splits=num_splits, causal=True)
                        self.assertEqual(pack,
                                         heads_q != heads_kv and seq_q <= 16)
                        if num_splits == 1:
                            self.assertEqual(splits, 1)

    def test_pages_and_forced_splits(self):
        """Dense caches and pages of 16, 64 and 256; 2 and 7 key ranges, and
        more ranges than the key tiles (cut to them: the short sequences'
        ranges are mostly empty); each call twice (the counters are left
        zeroed)."""
        for page in (None, 16, 64, 256):
            for num_splits in (2, 7, 10 ** 4):
                with self.subTest(page_size=page, num_splits=num_splits):
                    pack, splits = self.run_case(
                        DECODE_LENGTHS, 1, 32, 8, page_size=page,
                        num_splits=num_splits, twice=True, causal=True)
                    block_n = kvcache.decode_block_n(128, page)
                    capacity = 4097 if page is None else \
                        (-(-4097 // page) + 1) * page
                    self.assertTrue(pack)
                    self.assertEqual(splits, min(num_splits,
                                                 -(-capacity // block_n)))

    def test_head_dims_and_dtypes(self):
        for dtype in (torch.bfloat16, torch.float16):
            for head_dim in (64, 128, 256):
                for seq_q, num_splits in ((1, 1), (4, 0), (16, 3)):
                    with self.subTest(dtype=dtype, head_dim=head_dim,
                                      seq_q=seq_q, num_splits=num_splits):
                        self.run_case(DECODE_LENGTHS, seq_q, 16, 4,
                                      head_dim, dtype, page_size=64,
                                      num_splits=num_splits, causal=True)

    def test_not_causal(self):
        for page in (16, None):
            for seq_q, num_splits in ((1, 7), (4, 1), (16, 0)):
                with self.subTest(page_size=page, seq_q=seq_q,
                                  num_splits=num_splits):
                    self.run_case(DECODE_LENGTHS, seq_q, 16, 2,
                                  page_size=page, num_splits=num_splits)

    def test_window(self):
        """A window bounds the keys a query block sees, so the ranges cut
        them only."""
        pack, splits = self.run_case((1000, 17, 0, 4097), 16, 8, 2,
                                     page_size=64, num_splits=2,
                                     causal=True, window=(128, 0))
        self.assertEqual((pack, splits), (True, 2))

    def test_custom_op_and_fast_path(self):
        """The custom op (a workspace per call) and the eager fast path
        (the stream's workspace) give the same bits, packed and split."""
        for page in (64, None):
            k, v, seqlens, table = make_cache(DECODE_LENGTHS, 2, 128,
                                              torch.bfloat16, page)
            q = torch.randn(5, 4, 8, 128, device="cuda",
                            dtype=torch.bfloat16)
            self.assertEqual(planned_or_skip(self, q, k, table, 7,
                                             causal=True), (True, 7))
            fast = fmha.attention_kvcache(q, k, v, seqlens, table,
                                          causal=True, return_lse=True,
                                          num_splits=7)
            op = torch.ops.fmha.attention_kvcache(
                q, k, v, seqlens, table, True, None, None, True, True, 7)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(fast[0], op[0]))
            self.assertTrue(torch.equal(fast[1], op[1]))
            self.check(q, (k, v, seqlens, table), op[0], op[1], causal=True)

    def test_cuda_graph(self):
        """A split call captured in a CUDA graph (its own workspace and
        counters) and replayed twice on new queries and longer caches."""
        k, v, seqlens, table = make_cache((500, 64, 1, 4000), 8, 128,
                                          torch.bfloat16, 64)
        q = torch.randn(4, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        self.assertEqual(planned_or_skip(self, q, k, table, 7, causal=True),
                         (True, 7))
        fmha.attention_kvcache(q, k, v, seqlens, table, causal=True,
                               num_splits=7)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o = fmha.attention_kvcache(q, k, v, seqlens, table, causal=True,
                                       num_splits=7)
        for lengths in ([499, 63, 0, 3999], [17, 64, 1, 4000]):
            q.copy_(torch.randn_like(q))
            seqlens.copy_(torch.tensor(lengths, dtype=torch.int32))
            graph.replay()
            torch.cuda.synchronize()
            self.check(q, (k, v, seqlens, table), o, None, causal=True)
        # The eager launches' workspace is not the graph's.
        eager = fmha.attention_kvcache(q, k, v, seqlens, table, causal=True,
                                       num_splits=7)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(eager, o))

    def test_fullgraph(self):
        """torch.compile: the custom op runs the split kernel with a
        workspace of its own."""
        def f(q, k, v, seqlens, table):
            o, lse = fmha.attention_kvcache(q, k, v, seqlens, table,
                                            causal=True, return_lse=True,
                                            num_splits=3)
            return o.float() * 2, lse

        compiled = torch.compile(f, fullgraph=True, backend="eager",
                                 dynamic=True)
        cache = make_cache(DECODE_LENGTHS, 2, 128, torch.bfloat16, 64)
        q = torch.randn(5, 4, 8, 128, device="cuda", dtype=torch.bfloat16)
        self.assertEqual(planned_or_skip(self, q, cache[0], cache[3], 3,
                                         causal=True), (True, 3))
        got, lse = compiled(q, *cache)
        torch.cuda.synchronize()
        self.check(q, cache, (got / 2).to(q.dtype), lse, causal=True)

    def test_compile_reduce_overhead(self):
        """torch.compile's CUDA graphs: the custom op's workspace is the
        call's own (a workspace kept across calls would be graph-pool
        memory that no output holds)."""
        def f(q, k, v, seqlens, table):
            return fmha.attention_kvcache(q, k, v, seqlens, table,
                                          causal=True, num_splits=3) * 2

        g = torch.compile(f, mode="reduce-overhead", fullgraph=True)
        cache = make_cache(DECODE_LENGTHS, 2, 128, torch.bfloat16, 64)
        q = torch.randn(5, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
        self.assertEqual(planned_or_skip(self, q, cache[0], cache[3], 3,
                                         causal=True), (True, 3))
        for _ in range(3):
            got = g(q, *cache)
        torch.cuda.synchronize()
        self.check(q, cache, (got / 2).to(q.dtype), None, causal=True)


@NEEDS_HOPPER
class DenseDecodeTest(_Checks):
    """fmha.attention on decode shapes ([batch, heads, seq, head_dim], at
    most 16 queries, at least 512 keys) through the decode kernels, k and
    v read in place as caches of full length."""

    def run_dense(self, batch, seq_q, seq_k, heads_q, heads_kv, causal,
                  window=None):
        from unittest import mock
        q = torch.randn(batch, heads_q, seq_q, 128, device="cuda",
                        dtype=torch.bfloat16)
        k = torch.randn(batch, heads_kv, seq_k, 128, device="cuda",
                        dtype=torch.bfloat16)
        v = torch.randn_like(k)
        lengths = torch.full((batch,), seq_k, dtype=torch.int32,
                             device="cuda")
        qc, kc, vc = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        pack, splits = planned_or_skip(self, qc, kc, None, causal=causal,
                                       window=window)
        self.assertTrue(pack or splits > 1)
        calls = []
        real = kvcache.run_dense_decode

        def spy(*args, **kwargs):
            calls.append(args)
            return real(*args, **kwargs)
        with mock.patch.object(kvcache, "run_dense_decode", spy):
            poison()
            o, lse = fmha.attention(q, k, v, causal=causal, window=window,
                                    return_lse=True)
            poison()
            o_only = fmha.attention(q, k, v, causal=causal, window=window)
        torch.cuda.synchronize()
        self.assertEqual(len(calls), 2, "the decode kernels")
        self.assertEqual(o.shape, q.shape)
        if seq_q > 1:
            self.assertTrue(o.is_contiguous() and o_only.is_contiguous())
        cache = (kc, vc, lengths)
        self.check(qc, cache, o.transpose(1, 2), lse, causal=causal,
                   window=window)
        self.check(qc, cache, o_only.transpose(1, 2), None, causal=causal,
                   window=window)

    def test_causal_gqa(self):
        # Packed (32:8) and split: one query, and 4 (speculative decoding).
        for batch, seq_q, seq_k in ((1, 1, 5000), (3, 4, 600), (2, 1, 1000)):
            with self.subTest(batch=batch, seq_q=seq_q, seq_k=seq_k):
                self.run_dense(batch, seq_q, seq_k, 32, 8, True)

    def test_not_causal(self):
        for batch, seq_q, seq_k in ((1, 1, 4097), (2, 16, 700)):
            with self.subTest(batch=batch, seq_q=seq_q, seq_k=seq_k):
                self.run_dense(batch, seq_q, seq_k, 16, 2, False)

    def test_cuda_graph(self):
        """Captured before any eager call of the layout (the capture takes
        dense_decode's path) and after one (the bound launch)."""
        for warm in (False, True):
            with self.subTest(warm=warm):
                q = torch.randn(1, 32, 1, 128, device="cuda",
                                dtype=torch.bfloat16)
                seq_k = 3001 if warm else 2999  # a layout of its own
                k = torch.randn(1, 8, seq_k, 128, device="cuda",
                                dtype=torch.bfloat16)
                v = torch.randn_like(k)
                lengths = torch.full((1,), seq_k, dtype=torch.int32,
                                     device="cuda")
                qc, kc, vc = (t.transpose(1, 2) for t in (q, k, v))
                planned_or_skip(self, qc, kc, None, causal=True)
                if warm:
                    fmha.attention(q, k, v, causal=True)
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    o = fmha.attention(q, k, v, causal=True)
                o.fill_(float("nan"))
                graph.replay()
                torch.cuda.synchronize()
                self.check(qc, (kc, vc, lengths), o.transpose(1, 2), None,
                           causal=True)

    def test_short_or_long_queries_stay_dense(self):
        # Fewer than 512 keys, or more than 16 queries: the dense kernel.
        from unittest import mock
        decode = mock.patch.object(kvcache, "run_dense_decode",
                                   side_effect=AssertionError("decode"))
        slow = mock.patch.object(kvcache, "attention_kvcache",
                                 side_effect=AssertionError("decode"))
        with decode, slow:
            for seq_q, seq_k in ((1, 100), (17, 4096)):
                q = torch.randn(1, 32, seq_q, 128, device="cuda",
                                dtype=torch.bfloat16)
                k = torch.randn(1, 8, seq_k, 128, device="cuda",
                                dtype=torch.bfloat16)
                try:
                    fmha.attention(q, k, k, causal=True)
                except fmha.CompileError as e:
                    if e.step == "tools":
                        self.skipTest("the dense kernel is not in the cache")
                    raise


def cache_rows(cache, table, b, start, end):
    """Rows start..end-1 of sequence b of a dense or paged cache."""
    if table is None:
        return cache[b, start:end]
    page = cache.shape[1]
    pos = torch.arange(start, end, device=cache.device)
    return cache[table[b, pos // page].long(), pos % page]


def set_cache_rows(cache, table, b, start, end, value):
    if table is None:
        cache[b, start:end] = value
        return
    page = cache.shape[1]
    pos = torch.arange(start, end, device=cache.device)
    cache[table[b, pos // page].long(), pos % page] = value


@NEEDS_HOPPER
class AppendTest(_Checks):
    """k_new / v_new: written into the caches at cache_seqlens (through the
    block table when paged), then attended with the longer lengths."""

    def test_append(self):
        final = (3, 4, 20, 1003, 4100)
        for page in (None, 16, 64):
            for seq_new in (1, 3):
                with self.subTest(page_size=page, seq_new=seq_new):
                    k, v, _, table = make_cache(final, 2, 128,
                                                torch.bfloat16, page)
                    start = [n - seq_new for n in final]
                    k_new = torch.randn(len(final), seq_new, 2, 128,
                                        device="cuda", dtype=torch.bfloat16)
                    v_new = torch.randn_like(k_new)
                    # The rows to write hold NaN until they are written.
                    for b, (s0, s1) in enumerate(zip(start, final)):
                        set_cache_rows(k, table, b, s0, s1, float("nan"))
                        set_cache_rows(v, table, b, s0, s1, float("nan"))
                    q = torch.randn(len(final), 4, 8, 128, device="cuda",
                                    dtype=torch.bfloat16)
                    planned_or_skip(self, q, k, table, causal=True)
                    compile_or_skip(self, AppendSpec(
                        dtype="bf16", head_dim=128, page_size=page))
                    seqlens = torch.tensor(start, dtype=torch.int32,
                                           device="cuda")
                    poison()
                    o, lse = fmha.attention_kvcache(
                        q, k, v, seqlens, table, k_new=k_new, v_new=v_new,
                        causal=True, return_lse=True)
                    torch.cuda.synchronize()
                    self.assertEqual(seqlens.tolist(), start)
                    for b, (s0, s1) in enumerate(zip(start, final)):
                        self.assertTrue(torch.equal(
                            cache_rows(k, table, b, s0, s1), k_new[b]))
                        self.assertTrue(torch.equal(
                            cache_rows(v, table, b, s0, s1), v_new[b]))
                    lengths = torch.tensor(final, dtype=torch.int32,
                                           device="cuda")
                    self.check(q, (k, v, lengths, table), o, lse,
                               causal=True)

    def test_append_steps(self):
        """Decode steps that each append one token through
        fmha.attention_kvcache: the first call of the layout checks and
        binds, the later ones take the bound launch (fmha.append's fast
        path); every step's rows land and the attention sees them."""
        for page in (None, 64):
            with self.subTest(page=page):
                k, v, _, table = make_cache((30, 200), 2, 128,
                                            torch.bfloat16, page,
                                            max_len=256)
                q = torch.randn(2, 1, 4, 128, device="cuda",
                                dtype=torch.bfloat16)
                planned_or_skip(self, q, k, table, causal=True)
                compile_or_skip(self, AppendSpec(
                    dtype="bf16", head_dim=128, page_size=page))
                lengths = [27, 197]
                for step in range(3):
                    new = torch.randn(2, 1, 2, 128, device="cuda",
                                      dtype=torch.bfloat16)
                    seqlens = torch.tensor(lengths, dtype=torch.int32,
                                           device="cuda")
                    poison()
                    o, lse = fmha.attention_kvcache(
                        q, k, v, seqlens, table, k_new=new, v_new=new,
                        causal=True, return_lse=True,
                        check_values=step != 1)
                    torch.cuda.synchronize()
                    for b, n in enumerate(lengths):
                        self.assertTrue(torch.equal(
                            cache_rows(k, table, b, n, n + 1), new[b]))
                    lengths = [n + 1 for n in lengths]
                    self.check(q, (k, v, torch.tensor(
                        lengths, dtype=torch.int32, device="cuda"), table),
                        o, lse, causal=True)

    def test_append_kernel(self):
        """The fmha.append_kv kernel alone against PyTorch indexing on a
        copy of the caches: f16 and bf16, head dims 64, 128, 256, dense and
        pages of 16 and 64, blocks of new tokens that start and end inside
        a page and cross pages (17 and 40 new tokens), k_new a strided
        view; every other row of the caches unchanged."""
        from fmha import append
        for dtype, head_dim, page in (("f16", 64, 16), ("bf16", 64, None),
                                      ("bf16", 128, 64), ("f16", 256, 16),
                                      ("bf16", 256, None)):
            compile_or_skip(self, AppendSpec(dtype=dtype, head_dim=head_dim,
                                             page_size=page))
            t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
            for seq_new in (1, 17, 40):
                with self.subTest(dtype=dtype, head_dim=head_dim, page=page,
                                  seq_new=seq_new):
                    start = [0, 5, 16, 63, 100]
                    final = [n + seq_new for n in start]
                    k, v, _, table = make_cache(final, 3, head_dim, t, page,
                                                max_len=max(final) + 7)
                    wide = torch.randn(len(start), seq_new, 3, 2 * head_dim,
                                       device="cuda", dtype=t)
                    k_new = wide[..., :head_dim]  # rows 2 * head_dim apart
                    v_new = torch.randn(len(start), seq_new, 3, head_dim,
                                        device="cuda", dtype=t)
                    want_k, want_v = k.clone(), v.clone()
                    for b, s0 in enumerate(start):
                        set_cache_rows(want_k, table, b, s0, s0 + seq_new,
                                       k_new[b])
                        set_cache_rows(want_v, table, b, s0, s0 + seq_new,
                                       v_new[b])
                    seqlens = torch.tensor(start, dtype=torch.int32,
                                           device="cuda")
                    append.append_kv(torch, k, v, seqlens, table, k_new,
                                     v_new)
                    torch.cuda.synchronize()
                    self.assertTrue(torch.equal(k.nan_to_num(),
                                                want_k.nan_to_num()))
                    self.assertTrue(torch.equal(v.nan_to_num(),
                                                want_v.nan_to_num()))

    def test_append_bad_values_write_nothing(self):
        """Unchecked bad values: a negative length, positions past the
        capacity, block-table entries outside the pool (negative, past the
        last page) write nothing; the good sequences are written."""
        from fmha import append
        compile_or_skip(self, AppendSpec(dtype="bf16", head_dim=128,
                                         page_size=64))
        compile_or_skip(self, AppendSpec(dtype="bf16", head_dim=128))
        for page in (64, None):
            with self.subTest(page=page):
                k, v, _, table = make_cache((10, 70, 20, 5, 30), 2, 128,
                                            torch.bfloat16, page,
                                            max_len=80)
                rows = 80 if page is None else table.shape[1] * 64
                if table is not None:
                    # Sequence 1's last position is in its third page, a
                    # junk entry: make it a page of the pool.
                    table[1, -1] = table[1, 0]
                    table[2, 0] = -3
                    table[3, 0] = k.shape[0] + 2
                seqlens = torch.tensor([10, rows - 1, 3, 2, -4],
                                       dtype=torch.int32, device="cuda")
                new = torch.randn(5, 4, 2, 128, device="cuda",
                                  dtype=torch.bfloat16)
                want = k.clone()
                set_cache_rows(want, table, 0, 10, 14, new[0])
                set_cache_rows(want, table, 1, rows - 1, rows, new[1][:1])
                if page is None:
                    set_cache_rows(want, None, 2, 3, 7, new[2])
                    set_cache_rows(want, None, 3, 2, 6, new[3])
                append.append_kv(torch, k, v, seqlens, table, new, new)
                torch.cuda.synchronize()
                self.assertTrue(torch.equal(k.nan_to_num(),
                                            want.nan_to_num()))

    def test_append_under_compile(self):
        """k_new through torch.compile(fullgraph=True): the custom op
        fmha::append_kv, which mutates the caches."""
        kvcache_or_skip(self, causal=True)
        compile_or_skip(self, AppendSpec(dtype="bf16", head_dim=128))
        k, v, _, _ = make_cache((40, 50), 2, 128, torch.bfloat16,
                                max_len=64)
        q = torch.randn(2, 1, 4, 128, device="cuda", dtype=torch.bfloat16)
        new = torch.randn(2, 1, 2, 128, device="cuda", dtype=torch.bfloat16)
        seqlens = torch.tensor([40, 50], dtype=torch.int32, device="cuda")

        def step(q, k, v, seqlens, new):
            return fmha.attention_kvcache(q, k, v, seqlens, k_new=new,
                                          v_new=new, causal=True,
                                          check_values=False)

        compiled = torch.compile(step, fullgraph=True)
        o = compiled(q, k, v, seqlens, new)
        torch.cuda.synchronize()
        for b, n in enumerate((40, 50)):
            self.assertTrue(torch.equal(k[b, n], new[b, 0]))
        self.assertFalse(torch.isnan(o).any())

    def test_append_past_the_capacity(self):
        """Checked: a ValueError before anything is written. Unchecked:
        nothing past the capacity is written (no fault)."""
        k, v, _, table = make_cache((64, 10), 2, 128, torch.bfloat16, 64)
        capacity = table.shape[1] * 64
        seqlens = torch.tensor([capacity - 1, 10], dtype=torch.int32,
                               device="cuda")
        new = torch.randn(2, 2, 2, 128, device="cuda", dtype=torch.bfloat16)
        q = torch.randn(2, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
        planned_or_skip(self, q, k, table, causal=True)
        compile_or_skip(self, AppendSpec(dtype="bf16", head_dim=128,
                                         page_size=64))
        before = k.clone()
        with self.assertRaisesRegex(ValueError, rf"cache_seqlens\[0\] = "
                                    rf"{capacity + 1} is out of range"):
            fmha.attention_kvcache(q, k, v, seqlens, table, k_new=new,
                                   v_new=new, causal=True)
        self.assertTrue(torch.equal(k.nan_to_num(), before.nan_to_num()))
        fmha.attention_kvcache(q, k, v, seqlens + 10 ** 6, table, k_new=new,
                               v_new=new, causal=True, check_values=False)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(k.nan_to_num(), before.nan_to_num()))


if __name__ == "__main__":
    unittest.main()
