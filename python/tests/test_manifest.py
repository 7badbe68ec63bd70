"""Manifest loading and validation, size symbols, expressions, grids."""

import json
import os
import tempfile
import unittest

from fmha.runtime.errors import ManifestError
from fmha.runtime.manifest import (CeilDiv, Const, Min, Mul, NumSms, Symbol,
                                   MemrefParam, PointerParam, ScalarParam,
                                   TensorMapParam, bind_symbols, evaluate,
                                   launch_grid, load_manifest, parse_expr,
                                   parse_manifest, parse_target,
                                   scratch_shapes)

from .fakes import gemm_json, gemm_manifest


def parse(data):
    return parse_manifest(data, source="m.json")


class ParseTest(unittest.TestCase):
    def test_docs_example(self):
        m = gemm_manifest()
        self.assertEqual(m.name, "gemm_bf16")
        self.assertEqual(m.entry, "gemm_bf16")
        self.assertEqual(m.target, "sm_90a")
        self.assertEqual(m.capability, (9, 0))
        self.assertEqual(m.block, (384, 1, 1))
        self.assertEqual(m.cluster, (1, 1, 1))
        self.assertEqual(m.dynamic_smem, 196608)
        self.assertEqual(list(m.tensors), ["a", "b", "c"])
        self.assertEqual(m.tensors["b"].shape, ("N", "K"))
        self.assertEqual(m.tensors["b"].dtype.name, "bf16")
        self.assertEqual(m.tensors["c"].role, "output")
        self.assertEqual(m.params[0], TensorMapParam("a", (128, 64), 128))
        self.assertEqual(m.params[3], ScalarParam("i32", Symbol("M")))
        self.assertEqual(m.grid, (CeilDiv(Symbol("M"), Const(256)),
                                  CeilDiv(Symbol("N"), Const(128)), Const(1)))
        self.assertEqual(m.symbols(), ["M", "K", "N"])

    def test_pointer_memref_and_float_scalar(self):
        d = gemm_json()
        d["params"] += [{"kind": "pointer", "tensor": "c"},
                        {"kind": "memref", "tensor": "a"},
                        {"kind": "scalar", "dtype": "f32", "value": 0.125},
                        {"kind": "scalar", "dtype": "i64",
                         "value": {"mul": ["M", "N"]}}]
        m = parse(d)
        self.assertEqual(m.params[6], PointerParam("c"))
        self.assertEqual(m.params[7], MemrefParam("a"))
        self.assertEqual(m.params[8], ScalarParam("f32", 0.125))
        self.assertEqual(m.params[9].value, Mul(Symbol("M"), Symbol("N")))

    def test_unknown_keys_are_ignored(self):
        d = gemm_json()
        d["compiler"] = "fmha-translate 0.1"
        d["tensors"]["a"]["note"] = "row-major"
        parse(d)

    def test_cubin_path_is_relative_to_the_manifest(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gemm.json")
            with open(path, "w") as f:
                json.dump(gemm_json(), f)
            m = load_manifest(path)
            self.assertEqual(str(m.cubin_path),
                             os.path.join(tmp, "gemm_bf16.sm_90a.cubin"))
            self.assertEqual(m.source, path)

    def test_targets(self):
        self.assertEqual(parse_target("sm_90a"), (9, 0))
        self.assertEqual(parse_target("sm_100a"), (10, 0))
        self.assertEqual(parse_target("sm_103a"), (10, 3))
        self.assertEqual(parse_target("sm_89"), (8, 9))


class LoadErrorTest(unittest.TestCase):
    def test_missing_file(self):
        with self.assertRaisesRegex(ManifestError,
                                    r"nope\.json: cannot read the manifest"):
            load_manifest(os.path.join(tempfile.gettempdir(), "nope.json"))

    def test_bad_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.json")
            with open(path, "w") as f:
                f.write('{"format": "fmha-manifest/1",\n  "name": }')
            with self.assertRaisesRegex(
                    ManifestError, r"bad\.json: not valid JSON: .* line 2"):
                load_manifest(path)


class ValidationErrorTest(unittest.TestCase):
    """Each invalid field gives a ManifestError naming the field."""

    def check(self, pattern, mutate):
        d = gemm_json()
        mutate(d)
        with self.assertRaisesRegex(ManifestError, "^m.json: " + pattern):
            parse(d)

    def test_not_an_object(self):
        with self.assertRaisesRegex(ManifestError, "manifest: expected an "
                                    "object"):
            parse([1, 2])

    def test_format(self):
        self.check(r"format: unknown format \"fmha-manifest/2\"",
                   lambda d: d.update(format="fmha-manifest/2"))
        self.check(r"manifest: missing required key 'format'",
                   lambda d: d.pop("format"))

    def test_launches_exclude_top_level_launch_keys(self):
        # A manifest with launches keeps each launch's keys in its entry
        # of the list (tests/test_launches.py covers the rest).
        self.check(r"entry: a manifest with launches has no top-level "
                   r"'entry' \(each launch has its own\)",
                   lambda d: d.update(launches=[]))

    def test_required_keys(self):
        for key in ("name", "entry", "target", "cubin", "block", "cluster",
                    "dynamic_smem", "tensors", "params", "grid"):
            with self.subTest(key=key):
                self.check(f"manifest: missing required key '{key}'",
                           lambda d: d.pop(key))

    def test_strings(self):
        self.check(r"entry: expected a non-empty string, got \"\"",
                   lambda d: d.update(entry=""))
        self.check(r"name: expected a non-empty string, got 3",
                   lambda d: d.update(name=3))

    def test_target(self):
        self.check(r"target: 'hopper' is not a GPU architecture",
                   lambda d: d.update(target="hopper"))

    def test_cubin_absolute(self):
        self.check(r"cubin: '/tmp/k.cubin' must be a path relative",
                   lambda d: d.update(cubin="/tmp/k.cubin"))

    def test_block_and_cluster(self):
        self.check(r"block: expected a list of 3 positive integers",
                   lambda d: d.update(block=[128, 1]))
        self.check(r"block\[1\]: 0 is not in >= 1",
                   lambda d: d.update(block=[128, 0, 1]))
        self.check(r"block: \[1024, 2, 1\] has 2048 threads, more than 1024",
                   lambda d: d.update(block=[1024, 2, 1]))
        self.check(r"cluster\[0\]: expected an integer, got true",
                   lambda d: d.update(cluster=[True, 1, 1]))

    def test_dynamic_smem(self):
        self.check(r"dynamic_smem: -1 is not in >= 0",
                   lambda d: d.update(dynamic_smem=-1))
        self.check(r"dynamic_smem: expected an integer, got \"1024\"",
                   lambda d: d.update(dynamic_smem="1024"))

    def test_tensors(self):
        self.check(r"tensors: a kernel takes at least one tensor",
                   lambda d: d.update(tensors={}))
        self.check(r"tensors\.a\.dtype: unknown dtype \"f64\" \(known: bf16,"
                   r" f16, f32, f8e4m3, f8e5m2, i32\)",
                   lambda d: d["tensors"]["a"].update(dtype="f64"))
        self.check(r"tensors\.a\.role: expected one of input, output, "
                   r"scratch, zeroed, got \"inout\"",
                   lambda d: d["tensors"]["a"].update(role="inout"))
        self.check(r"tensors\.a: missing required key 'shape'",
                   lambda d: d["tensors"]["a"].pop("shape"))
        self.check(r"tensors\.a\.shape: expected a non-empty list",
                   lambda d: d["tensors"]["a"].update(shape=[]))
        self.check(r"tensors\.a\.shape\[1\]: 0 is not in >= 1",
                   lambda d: d["tensors"]["a"].update(shape=["M", 0]))
        self.check(r"tensors\.a\.shape\[0\]: 'num_sms' cannot be a size "
                   "symbol",
                   lambda d: d["tensors"]["a"].update(shape=["num_sms", "K"]))
        self.check(r"tensors\.a\.shape\[0\]: 'M-1' cannot be a size symbol",
                   lambda d: d["tensors"]["a"].update(shape=["M-1", "K"]))
        self.check(r"tensors\.my-tensor: a tensor name must be a Python "
                   "identifier",
                   lambda d: d["tensors"].update({"my-tensor": {}}))

    def test_params(self):
        self.check(r"params: expected a list",
                   lambda d: d.update(params={}))
        self.check(r"params\[1\]\.kind: unknown parameter kind \"buffer\"",
                   lambda d: d["params"][1].update(kind="buffer"))
        self.check(r"params\[1\]: missing required key 'kind'",
                   lambda d: d["params"][1].pop("kind"))
        self.check(r"params\[0\]\.tensor: unknown tensor \"x\" \(tensors: "
                   r"a, b, c\)",
                   lambda d: d["params"][0].update(tensor="x"))
        self.check(r"params\[0\]: missing required key 'swizzle'",
                   lambda d: d["params"][0].pop("swizzle"))
        self.check(r"params\[0\]\.box: expected a non-empty list",
                   lambda d: d["params"][0].update(box=[]))
        self.check(r"params\[3\]\.dtype: unknown scalar dtype \"u8\"",
                   lambda d: d["params"][3].update(dtype="u8"))
        self.check(r"params\[3\]\.value: 0\.5 is a float but the scalar is "
                   "i32",
                   lambda d: d["params"][3].update(value=0.5))
        self.check(r"params\[3\]\.value: 4294967296 does not fit in i32",
                   lambda d: d["params"][3].update(value=2**32))
        self.check(r"params\[3\]\.value: unknown size symbol 'Q' \(the "
                   r"tensors' shapes define: K, M, N\)",
                   lambda d: d["params"][3].update(value="Q"))
        self.check(r"params\[6\]\.tensor: unknown tensor \"z\"",
                   lambda d: d["params"].append(
                       {"kind": "memref", "tensor": "z"}))

    def test_tensor_map_rules_known_statically(self):
        self.check(r"params\[0\]: tensor map of 'a': box sizes must be in "
                   r"\[1, 256\]: box \[512, 64\] has 512 at index 0",
                   lambda d: d["params"][0].update(box=[512, 64]))
        self.check(r"params\[0\]: tensor map of 'a': swizzle must be 0, 32, "
                   "64 or 128 bytes: got 16",
                   lambda d: d["params"][0].update(swizzle=16))
        self.check(r"params\[0\]: tensor map of 'a': the box's inner "
                   r"dimension must fit the swizzle span: box \[128, 128\] "
                   "of bf16 spans 256 bytes, more than the 128-byte swizzle",
                   lambda d: d["params"][0].update(box=[128, 128]))
        self.check(r"params\[2\]: tensor map of 'c': the box's inner "
                   "dimension must be a multiple of 16 bytes",
                   lambda d: d["params"][2].update(box=[128, 4]))
        self.check(r"params\[0\]: tensor map of 'a': the box must have 1 to "
                   r"rank entries: box \[1, 128, 64\] has 3 entries for a "
                   "tensor of rank 2",
                   lambda d: d["params"][0].update(box=[1, 128, 64]))

    def test_grid(self):
        self.check(r"grid: expected a list of 3 expressions",
                   lambda d: d.update(grid=[1, 1]))
        self.check(r"grid\[1\]: unknown size symbol 'B'",
                   lambda d: d.update(grid=[1, "B", 1]))
        self.check(r"grid\[0\]\.ceildiv\[1\]: the divisor must be positive,"
                   " got 0",
                   lambda d: d.update(grid=[{"ceildiv": ["M", 0]}, 1, 1]))
        self.check(r"grid\[0\]: unknown operator 'add'",
                   lambda d: d.update(grid=[{"add": ["M", 1]}, 1, 1]))
        self.check(r"grid\[0\]\.mul: expected a list of two operands",
                   lambda d: d.update(grid=[{"mul": ["M"]}, 1, 1]))
        self.check(r"grid\[2\]: expected an integer expression, got 1\.5",
                   lambda d: d.update(grid=[1, 1, 1.5]))
        self.check(r"grid\[0\]\.mul\[1\]: expected an integer expression, "
                   "got null",
                   lambda d: d.update(grid=[{"mul": ["M", None]}, 1, 1]))


class ExpressionTest(unittest.TestCase):
    def test_parse(self):
        e = parse_expr({"mul": [{"ceildiv": ["M", 128]}, "num_sms"]}, "x")
        self.assertEqual(e, Mul(CeilDiv(Symbol("M"), Const(128)), NumSms()))
        self.assertEqual(str(e), "mul(ceildiv(M, 128), num_sms)")
        e = parse_expr({"min": ["num_sms", "M"]}, "x")
        self.assertEqual(e, Min(NumSms(), Symbol("M")))
        self.assertEqual(str(e), "min(num_sms, M)")

    def test_evaluate(self):
        s = {"M": 1000, "N": 256}
        ev = lambda j, **k: evaluate(parse_expr(j, "x"), s, **k)
        self.assertEqual(ev(7), 7)
        self.assertEqual(ev("M"), 1000)
        self.assertEqual(ev({"ceildiv": ["M", 128]}), 8)
        self.assertEqual(ev({"ceildiv": ["N", 128]}), 2)
        self.assertEqual(ev({"ceildiv": [0, 128]}), 0)
        self.assertEqual(ev({"mul": ["M", "N"]}), 256000)
        self.assertEqual(ev({"mul": [{"ceildiv": ["M", 256]}, 2]}), 8)
        self.assertEqual(
            ev({"min": ["num_sms", {"ceildiv": ["M", 256]}]}, num_sms=132), 4)
        self.assertEqual(ev({"min": [{"mul": ["M", "N"]}, "num_sms"]},
                            num_sms=132), 132)
        self.assertEqual(ev("num_sms", num_sms=132), 132)
        self.assertEqual(ev({"mul": ["num_sms", 2]}, num_sms=lambda: 78),
                         156)

    def test_num_sms_is_asked_only_when_used(self):
        def boom():
            raise AssertionError("num_sms asked for")
        self.assertEqual(evaluate(parse_expr({"ceildiv": ["M", 2]}, "x"),
                                  {"M": 5}, boom), 3)

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "size symbol 'Q' is not "
                                    "bound"):
            evaluate(Symbol("Q"), {"M": 1})
        with self.assertRaisesRegex(ValueError, "'num_sms' needs"):
            evaluate(NumSms(), {})
        with self.assertRaisesRegex(ValueError, r"ceildiv\(M, D\): the "
                                    "divisor evaluates to 0"):
            evaluate(CeilDiv(Symbol("M"), Symbol("D")), {"M": 4, "D": 0})


class BindSymbolsTest(unittest.TestCase):
    def setUp(self):
        self.m = gemm_manifest()

    def test_binds(self):
        self.assertEqual(bind_symbols(self.m, {"a": (1000, 128),
                                               "b": (256, 128),
                                               "c": (1000, 256)}),
                         {"M": 1000, "K": 128, "N": 256})

    def test_inconsistent_symbol(self):
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'b' has K = 100 but 'a' gave K = 128$"):
            bind_symbols(self.m, {"a": (64, 128), "b": (64, 100),
                                  "c": (64, 64)})
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'c' has N = 65 but 'b' gave N = 64$"):
            bind_symbols(self.m, {"a": (64, 128), "b": (64, 128),
                                  "c": (64, 65)})

    def test_rank(self):
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'b' has rank 3 \(shape \[2, 64, 128\]\)"
                r" but the kernel expects rank 2 \[N, K\]$"):
            bind_symbols(self.m, {"a": (64, 128), "b": (2, 64, 128),
                                  "c": (64, 64)})

    def test_fixed_size(self):
        d = gemm_json()
        d["tensors"]["b"]["shape"] = ["N", 64]
        m = parse(d)
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'b' has size 128 in dimension 1 but "
                r"the kernel expects 64 \(shape \[N, 64\]\)$"):
            bind_symbols(m, {"a": (64, 128), "b": (64, 128), "c": (64, 64)})

    def test_missing(self):
        with self.assertRaisesRegex(ValueError, "tensor 'c' is missing"):
            bind_symbols(self.m, {"a": (64, 128), "b": (64, 128)})


def splitk_json():
    """The docs' GEMM with split-K's scratch tensors: a workspace of two
    [M, N] f32 partials and one zeroed counter per 128 x 128 tile."""
    d = gemm_json()
    d["tensors"]["workspace"] = {"shape": [2, "M", "N"], "dtype": "f32",
                                 "role": "scratch"}
    d["tensors"]["counters"] = {
        "shape": [{"mul": [{"ceildiv": ["M", 128]},
                           {"ceildiv": ["N", 128]}]}],
        "dtype": "i32", "role": "zeroed"}
    d["params"] += [{"kind": "memref", "tensor": "workspace"},
                    {"kind": "memref", "tensor": "counters"}]
    return d


class ScratchTest(unittest.TestCase):
    def test_shapes(self):
        m = parse(splitk_json())
        self.assertTrue(m.tensors["counters"].scratch)
        self.assertFalse(m.tensors["a"].scratch)
        shapes = {"a": (1000, 64), "b": (300, 64), "c": (1000, 300)}
        self.assertEqual(scratch_shapes(m, shapes),
                         {"workspace": ((2, 1000, 300), "scratch", "f32"),
                          "counters": ((24,), "zeroed", "i32")})
        self.assertEqual(scratch_shapes(gemm_manifest(), shapes), {})

    def test_bind_checks_scratch_shapes(self):
        m = parse(splitk_json())
        shapes = {"a": (1000, 64), "b": (300, 64), "c": (1000, 300),
                  "workspace": (2, 1000, 300), "counters": (24,)}
        self.assertEqual(bind_symbols(m, shapes),
                         {"M": 1000, "K": 64, "N": 300})
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'counters' \(a zeroed tensor of the "
                r"kernel\) has shape \[23\] but the kernel expects \[24\]"):
            bind_symbols(m, {**shapes, "counters": (23,)})

    def test_scratch_sizes_use_the_callers_symbols(self):
        d = splitk_json()
        d["tensors"]["workspace"]["shape"] = [2, "Q", "N"]
        with self.assertRaisesRegex(
                ManifestError, r"tensors\.workspace\.shape\[1\]: a scratch "
                r"tensor's size must be an expression of the other tensors' "
                r"size symbols and the sizes"):
            parse(d)

    def test_scratch_sizes_use_the_sizes(self):
        """A caller's size (split-KV's S) may size a scratch tensor."""
        d = splitk_json()
        d["sizes"] = ["S"]
        d["tensors"]["workspace"]["shape"] = ["S", "M", "N"]
        m = parse(d)
        shapes = {"a": (1000, 64), "b": (300, 64), "c": (1000, 300)}
        self.assertEqual(scratch_shapes(m, shapes, {"S": 3})["workspace"],
                         ((3, 1000, 300), "scratch", "f32"))
        self.assertEqual(
            bind_symbols(m, {**shapes, "workspace": (3, 1000, 300),
                             "counters": (24,)}, {"S": 3}),
            {"S": 3, "M": 1000, "K": 64, "N": 300})
        with self.assertRaisesRegex(ValueError, "size 'S' is missing"):
            scratch_shapes(m, shapes)


class GridTest(unittest.TestCase):
    def test_grid(self):
        m = gemm_manifest()
        self.assertEqual(launch_grid(m, {"M": 1000, "N": 300, "K": 64}),
                         (4, 3, 1))

    def test_persistent(self):
        m = gemm_manifest(grid=["num_sms", 1, 1])
        self.assertEqual(launch_grid(m, {}, lambda: 132), (132, 1, 1))

    def test_empty_grid(self):
        m = gemm_manifest()
        with self.assertRaisesRegex(
                ValueError, r"kernel 'gemm_bf16': grid x = ceildiv\(M, 256\) "
                r"= 0 with M = 0, N = 8 is outside \[1, 2147483647\]"):
            launch_grid(m, {"M": 0, "N": 8})

    def test_grid_limits(self):
        m = gemm_manifest(grid=[1, "M", 1])
        with self.assertRaisesRegex(ValueError, r"grid y = M = 70000 .* "
                                    r"outside \[1, 65535\]"):
            launch_grid(m, {"M": 70000})

    def test_cluster_divides_grid(self):
        m = gemm_manifest(cluster=[2, 1, 1])
        self.assertEqual(launch_grid(m, {"M": 512, "N": 128}), (2, 1, 1))
        with self.assertRaisesRegex(ValueError, r"grid x = ceildiv\(M, 256\)"
                                    r" = 3 is not a multiple of the "
                                    "cluster's 2"):
            launch_grid(m, {"M": 700, "N": 128})


if __name__ == "__main__":
    unittest.main()
