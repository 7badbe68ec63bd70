"""The runtime's launch cache and tensor-map cache, with a fake driver and
fake tensors: repeated launches skip the checks and the encoding, keys
cover everything a map or launch depends on, sizes are bounded."""

import unittest

from fmha.runtime import kernel as kernel_mod
from fmha.runtime.kernel import Kernel, launch_key
from fmha.runtime.lru import LRUCache
from fmha.runtime.tensormap import tensor_map_args, tensor_map_key

from .fakes import FakeDriver, gemm_manifest, view


def gemm_kernel(driver):
    return Kernel(gemm_manifest(), b"CUBIN", driver)


def tensors(M=1000, N=256, K=128):
    return {"a": view((M, K)), "b": view((N, K)), "c": view((M, N))}


class TensorMapKeyTest(unittest.TestCase):
    def key(self, v, dtype="bf16", box=(128, 64), swizzle=128, name="t"):
        return tensor_map_key(tensor_map_args(name, v, dtype, box, swizzle))

    def test_same_map_same_key(self):
        v = view((256, 128), ptr=0x10000)
        self.assertEqual(self.key(v), self.key(v, name="other"))
        self.assertEqual(self.key(v), self.key(view((256, 128), ptr=0x10000)))
        hash(self.key(v))

    def test_everything_the_map_depends_on(self):
        v = view((256, 128), ptr=0x10000)
        base = self.key(v)
        variants = {
            "address": self.key(view((256, 128), ptr=0x10010)),
            "shape": self.key(view((255, 128), ptr=0x10000)),
            "inner size": self.key(view((256, 120), ptr=0x10000,
                                        strides=(128, 1))),
            "strides": self.key(view((256, 128), ptr=0x10000,
                                     strides=(192, 1))),
            "dtype": self.key(view((256, 128), dtype="f16", ptr=0x10000),
                              dtype="f16"),
            "box": self.key(v, box=(64, 64)),
            "swizzle": self.key(v, box=(128, 32), swizzle=64),
            "rank": self.key(view((1, 256, 128), ptr=0x10000)),
        }
        for what, key in variants.items():
            with self.subTest(what):
                self.assertNotEqual(key, base)
        self.assertEqual(len(set(variants.values())), len(variants))


class LaunchKeyTest(unittest.TestCase):
    def test_views_are_their_own_keys(self):
        t = tensors()
        self.assertEqual(launch_key(("a", "b", "c"), t),
                         (t["a"], t["b"], t["c"]))

    def test_uncacheable(self):
        t = tensors()
        names = ("a", "b", "c")
        self.assertIsNone(launch_key(names, {"a": t["a"], "b": t["b"]}))
        self.assertIsNone(launch_key(names, {**t, "d": t["a"]}))
        self.assertIsNone(launch_key(names, {"a": t["a"], "b": t["b"],
                                             "x": t["c"]}))
        self.assertIsNone(launch_key(names, {**t, "c": [1, 2]}))


class LaunchCacheTest(unittest.TestCase):
    def test_repeated_launch_skips_prepare(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = tensors()
        k(**t)
        prepared = [c for c in drv.calls if c[0] != "launch"]
        self.assertEqual(len(drv.encoded), 3)
        for _ in range(5):
            k(**t)
        launches = [c for c in drv.calls if c[0] == "launch"]
        self.assertEqual(len(launches), 6)
        # No more encoding, no function lookup, no attribute calls.
        self.assertEqual(len(drv.encoded), 3)
        self.assertEqual([c for c in drv.calls if c[0] != "launch"],
                         prepared)
        self.assertEqual(len({id(c[6]) for c in launches}), 1)  # one array
        self.assertEqual({c[2] for c in launches}, {(4, 2, 1)})
        info = k.cache_info()
        self.assertEqual(info["launches"]["hits"], 5)
        self.assertEqual(info["launches"]["size"], 1)

    def test_new_output_reuses_the_input_maps(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = tensors()
        k(**t)
        k(a=t["a"], b=t["b"], c=view((1000, 256)))
        self.assertEqual([a.tensor for a in drv.encoded], ["a", "b", "c", "c"])
        self.assertEqual(k.cache_info()["tensor_maps"]["size"], 4)

    def test_changed_shape_is_checked_again(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = tensors()
        k(**t)
        bad = view((1000, 100), ptr=t["c"].data_ptr)
        with self.assertRaisesRegex(ValueError, "'c'"):
            k(a=t["a"], b=t["b"], c=bad)
        misaligned = view((1000, 256), ptr=t["c"].data_ptr + 2)
        with self.assertRaisesRegex(ValueError, "16-byte aligned"):
            k(a=t["a"], b=t["b"], c=misaligned)
        # Wrong names are reported by the full checks.
        with self.assertRaisesRegex(ValueError, "missing tensor"):
            k(a=t["a"], b=t["b"])

    def test_context_change_redoes_the_checks(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = tensors()
        k(**t)
        drv.current = 1  # another device's context is now current
        with self.assertRaisesRegex(ValueError, "current CUDA device is "
                                    "cuda:1"):
            k(**t)
        drv.current = 0
        k(**t)
        self.assertEqual(
            len([c for c in drv.calls if c[0] == "get_function"]), 1)
        self.assertEqual(len([c for c in drv.calls if c[0] == "launch"]), 2)

    def test_context_query_is_preferred(self):
        drv = FakeDriver()
        contexts = iter([0xC1, 0xC1, 0xC2, 0xC2])
        drv.current_context = lambda: next(contexts)
        k = gemm_kernel(drv)
        t = tensors()
        k(**t)          # prepare, then records context 0xC1
        k(**t)          # hit: 0xC1
        k(**t)          # 0xC2: prepared again and recorded
        self.assertEqual(k.cache_info()["launches"]["size"], 1)
        self.assertEqual(len([c for c in drv.calls if c[0] == "launch"]), 3)
        self.assertEqual(
            len([c for c in drv.calls if c[0] == "get_function"]), 2)

    def test_stream_on_a_cached_launch(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = tensors()
        k.launch(t)
        k.launch(t, stream=0x77)
        k.launch(t)
        streams = [c[5] for c in drv.calls if c[0] == "launch"]
        self.assertEqual(streams, [0, 0x77, 0])
        with self.assertRaises(TypeError):
            k.launch(t, stream="s")

    def test_bounded(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        a, b = view((256, 128)), view((256, 128))
        outputs = [view((256, 256)) for _ in range(kernel_mod.LAUNCH_CACHE_SIZE
                                                   + 6)]
        for c in outputs:
            k(a=a, b=b, c=c)
        info = k.cache_info()
        self.assertEqual(info["launches"]["size"], kernel_mod.LAUNCH_CACHE_SIZE)
        self.assertEqual(info["tensor_maps"]["size"],
                         kernel_mod.TENSOR_MAP_CACHE_SIZE)
        # The oldest output was dropped; launching on it prepares again.
        encoded = len(drv.encoded)
        k(a=a, b=b, c=outputs[0])
        self.assertEqual(len(drv.encoded), encoded + 1)
        k(a=a, b=b, c=outputs[-1])
        self.assertEqual(len(drv.encoded), encoded + 1)
        k.clear_cache()
        self.assertEqual(k.cache_info()["launches"]["size"], 0)


class LRUTest(unittest.TestCase):
    def test_order(self):
        lru = LRUCache(2)
        lru.put("a", 1)
        lru.put("b", 2)
        self.assertEqual(lru.get("a"), 1)  # a is now the newest
        lru.put("c", 3)
        self.assertEqual(lru.keys(), ["a", "c"])
        self.assertIsNone(lru.get("b"))
        self.assertEqual((lru.hits, lru.misses), (1, 1))
        with self.assertRaises(ValueError):
            LRUCache(0)


if __name__ == "__main__":
    unittest.main()
