"""The table of winners: nearest shapes and the fallback order."""

import unittest

from fmha import tuning


def table(rows):
    return tuning.Table.from_json({
        "format": tuning.FORMAT,
        "gemm": [{"m": m, "n": n, "k": k, "config": c} for m, n, k, c in rows]})


class TableTest(unittest.TestCase):
    def test_nearest_and_by_distance(self):
        mc = {"tile": [64, 192, 64], "consumers": 2, "multicast": 2}
        big = {"tile": [64, 256, 64], "consumers": 2, "multicast": 2}
        small = {"tile": [64, 128, 64], "consumers": 2, "stages": 6}
        t = table([(4096, 4096, 4096, big), (3000, 3000, 3000, mc),
                   (2048, 2048, 2048, small), (8192, 8192, 8192, big)])
        category, sizes = tuning.gemm_problem(3000, 3000, 3000)
        self.assertEqual(t.nearest(category, sizes),
                         tuning.normalize_config(mc))
        # Nearest shape first, each config once: where 3000^3's winner
        # does not build (B as [K, N]), 4096^3's comes next, then 2048^3's.
        self.assertEqual(t.by_distance(category, sizes), [
            tuning.normalize_config(c) for c in (mc, big, small)])
        self.assertEqual(t.by_distance(("attention", 64, False), (1, 2, 3)),
                         [])

    def test_b_layout_rows(self):
        """B as [K, N] has a category of its own, gemm_kn, whose rows win
        where it has any; without them it takes gemm's."""
        nk = {"tile": [64, 192, 64], "consumers": 2, "multicast": 2}
        kn = {"tile": [64, 256, 64], "consumers": 2}
        rows = {"format": tuning.FORMAT,
                "gemm": [{"m": 3000, "n": 3000, "k": 3000, "config": nk}]}
        category, sizes = tuning.gemm_problem(3000, 3000, 3000, b_kn=True)
        self.assertEqual(category, ("gemm_kn",))
        self.assertNotEqual(category, tuning.gemm_problem(1, 1, 1)[0])
        self.assertEqual(tuning.gemm_problem(1, 1, 1, fp8=True, b_kn=True)[0],
                         ("gemm_fp8",))
        t = tuning.Table.from_json(rows)
        self.assertEqual(t.nearest(category, sizes),
                         tuning.normalize_config(nk))
        rows["gemm_kn"] = [{"m": 3000, "n": 3000, "k": 3000, "config": kn}]
        t = tuning.Table.from_json(rows)
        self.assertEqual(t.nearest(category, sizes),
                         tuning.normalize_config(kn))
        self.assertEqual(t.nearest(*tuning.gemm_problem(3000, 3000, 3000)),
                         tuning.normalize_config(nk))

    def test_attention_rows(self):
        """bf16 and fp8 attention rows land in categories of their own."""
        row = {"head_dim": 128, "masked": True, "batch_heads": 64,
               "seq_q": 4096, "seq_k": 4096}
        bf16 = {"tile": [64, 112]}
        fp8 = {"schedule": "per_block"}
        t = tuning.Table.from_json({
            "format": tuning.FORMAT,
            "attention": [dict(row, config=bf16)],
            "attention_fp8": [dict(row, config=fp8)]})
        for is_fp8, config in ((False, bf16), (True, fp8)):
            category, sizes = tuning.attention_problem(128, True, 64, 4096,
                                                       4096, fp8=is_fp8)
            self.assertEqual(t.nearest(category, sizes),
                             tuning.normalize_config(config))
        self.assertEqual(t.configs(("attention_fp8",)),
                         [tuning.normalize_config(fp8)])


if __name__ == "__main__":
    unittest.main()
