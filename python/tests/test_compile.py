"""fmha.compile through the built tools (fmha-opt, fmha-translate, ptxas)
into a temporary cache, then cache hits without any tool. Skipped when the
tools are not found (fmha.tools: FMHA_OPT, PATH, the source tree's
build/bin)."""

import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import fmha
from fmha import cache, compiler, tools
from fmha.runtime import Kernel, load_manifest
from fmha.specs import AttentionSpec, GemmSpec

from .fakes import FakeDriver, view

TOOLS = tools.find_tools()
NEEDS_TOOLS = unittest.skipUnless(
    TOOLS.compiler and TOOLS.ptxas,
    f"needs fmha-opt, fmha-translate and ptxas "
    f"({TOOLS.missing() or TOOLS.ptxas.problem})")
NO_TOOLS = {"FMHA_OPT": "/nonexistent/fmha-opt",
            "FMHA_TRANSLATE": "/nonexistent/fmha-translate",
            "FMHA_PTXAS": "/nonexistent/ptxas"}


def no_subprocess(*args, **kwargs):
    raise AssertionError(f"a tool was run: {args[0] if args else kwargs}")


@NEEDS_TOOLS
class CompileTest(unittest.TestCase):
    spec = GemmSpec()

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls._tmp.name) / "cache"
        compiler.clear_memo()
        messages = []
        cls.kernel = fmha.compile(cls.spec, cache_dir=cls.root,
                                  progress=messages.append)
        cls.messages = messages

    @classmethod
    def tearDownClass(cls):
        compiler.clear_memo()
        cls._tmp.cleanup()

    def setUp(self):
        compiler.clear_memo()

    def test_artifacts(self):
        k = self.kernel
        self.assertFalse(k.cache_hit)
        self.assertEqual(k.directory.parent, self.root.resolve())
        self.assertEqual(k.manifest_path.name, f"{self.spec.name}.json")
        self.assertEqual(k.cubin_path.name, f"{self.spec.name}.sm_90a.cubin")
        self.assertTrue(k.cubin_path.read_bytes().startswith(b"\x7fELF"))
        self.assertIn(f".entry {self.spec.name}", k.ptx_path.read_text())
        self.assertEqual((k.entry.files / "kernel.mlir").read_text(),
                         self.spec.to_mlir())
        self.assertFalse((k.entry.files / "kernel.llvm.mlir").exists())
        info = json.loads((k.directory / "entry.json").read_text())
        for name in (k.manifest_path, k.cubin_path, k.ptx_path):
            self.assertEqual(info["sha256"][name.name],
                             cache.sha256(name.read_bytes()))
        self.assertEqual(info["key"], cache.cache_key(
            self.spec, tools.compiler_identity(TOOLS.opt.path,
                                               TOOLS.translate.path)))
        self.assertTrue(info["compiler"].startswith(
            tools.tool_version(TOOLS.opt.path)))
        self.assertEqual(info["spec"], self.spec.to_dict())
        self.assertIn("registers", info["ptxas_info"])
        # Steps were reported: which kernel, which step.
        self.assertEqual(len(self.messages), 4)
        self.assertTrue(all(self.spec.name in m for m in self.messages))
        self.assertIn("[1/4]", self.messages[0])
        self.assertIn("ptxas", self.messages[3])
        # Nothing else in the cache: no temporary folder left (the lock
        # file of the compile stays).
        self.assertEqual(sorted(p.name for p in self.root.iterdir()),
                         sorted([k.directory.name, cache.LOCK_DIR]))

    def test_manifest(self):
        m = load_manifest(self.kernel.manifest_path)
        self.assertEqual((m.name, m.entry, m.target), (self.spec.name,
                                                       self.spec.name,
                                                       "sm_90a"))
        self.assertEqual(m.block, (384, 1, 1))
        self.assertEqual(list(m.tensors), ["a", "b", "c"])
        self.assertEqual([t.dtype.name for t in m.tensors.values()],
                         ["bf16", "bf16", "bf16"])
        self.assertGreater(m.dynamic_smem, 48 * 1024)
        k = Kernel.load(self.kernel.manifest_path, driver=FakeDriver())
        launch = k.prepare({"a": view((1000, 128)), "b": view((256, 128)),
                            "c": view((1000, 256))})
        self.assertEqual(launch.symbols, {"M": 1000, "K": 128, "N": 256})
        self.assertEqual(self.kernel.manifest.name, self.spec.name)
        self.assertIsInstance(self.kernel.kernel, Kernel)

    def test_cache_hit_without_any_tool(self):
        with mock.patch.dict(os.environ, NO_TOOLS), \
                mock.patch.object(subprocess, "run", no_subprocess), \
                mock.patch.object(subprocess, "Popen", no_subprocess):
            self.assertFalse(tools.find_tools().compiler)
            k = fmha.compile(self.spec, cache_dir=self.root)
        self.assertTrue(k.cache_hit)
        self.assertEqual(k.directory, self.kernel.directory)
        self.assertEqual(k.manifest_path, self.kernel.manifest_path)

    def test_cache_hit_with_the_compiler(self):
        k = fmha.compile(self.spec, cache_dir=self.root,
                         progress=no_subprocess)
        self.assertTrue(k.cache_hit)
        self.assertEqual(k.key, self.kernel.key)

    def test_memo(self):
        a = fmha.compile(self.spec, cache_dir=self.root)
        with mock.patch.dict(os.environ, NO_TOOLS):
            self.assertIs(fmha.compile(self.spec, cache_dir=self.root), a)

    def test_copied_cache(self):
        """A cache copied elsewhere (a GPU machine) serves the kernel."""
        import shutil
        with tempfile.TemporaryDirectory() as other:
            copy = Path(other) / "copy"
            shutil.copytree(self.root, copy)
            with mock.patch.dict(os.environ, NO_TOOLS), \
                    mock.patch.object(subprocess, "run", no_subprocess):
                k = fmha.compile(self.spec, cache_dir=copy)
            self.assertEqual(k.directory.parent, copy.resolve())
            self.assertTrue(k.cubin_path.is_file())

    def test_miss_without_tools(self):
        with mock.patch.dict(os.environ, NO_TOOLS):
            with self.assertRaises(fmha.CompileError) as cm:
                fmha.compile(GemmSpec(stages=4), cache_dir=self.root)
        self.assertEqual(cm.exception.step, "tools")
        self.assertIn("not in the cache", str(cm.exception))
        self.assertIn("FMHA_OPT=/nonexistent/fmha-opt", str(cm.exception))

    def test_attention(self):
        kernel = fmha.compile(AttentionSpec(causal=True), cache_dir=self.root,
                              progress=lambda m: None)
        self.assertEqual(sorted(kernel.kernel.manifest.tensors),
                         ["k", "o", "q", "v"])

    def test_attention_lse(self):
        kernel = fmha.compile(AttentionSpec(causal=True, return_lse=True),
                              cache_dir=self.root, progress=lambda m: None)
        manifest = kernel.kernel.manifest
        self.assertEqual(sorted(manifest.tensors), ["k", "lse", "o", "q", "v"])
        self.assertEqual(manifest.tensors["lse"].shape, ("B", "H", "SQ"))
        # Plain stores: a memref, not a tensor map (docs/Manifest.md).
        kinds = {p.tensor: p.kind for p in manifest.params
                 if hasattr(p, "tensor")}
        self.assertEqual(kinds["lse"], "memref")
        self.assertEqual(kinds["o"], "tensor_map")

    def test_split_k_workspace_rows(self):
        """Split-K's workspace rows hold whole 16-byte vectors: N rounded up
        to a multiple of 4 floats (its partial tiles move as vectors)."""
        spec = GemmSpec(dtype="f16", out_dtype="f32", tile=(8, 64, 128),
                        stages=12, consumers=1, splits=2, swap_ab=True)
        kernel = fmha.compile(spec, cache_dir=self.root,
                              progress=lambda m: None).kernel
        for n, padded in ((2, 4), (62, 64), (64, 64), (4001, 4004)):
            with self.subTest(n=n):
                shapes = kernel.scratch_shapes(
                    {"a": (2, 4096), "b": (n, 4096), "c": (2, n)})
                self.assertEqual(shapes["workspace"][0], (2, 2, padded))

    def test_compile_error(self):
        with self.assertRaises(fmha.CompileError) as cm:
            fmha.compile(AttentionSpec(head_dim=256, stages=8),
                         cache_dir=self.root, progress=lambda m: None)
        e = cm.exception
        self.assertEqual(e.step, "fmha-opt")
        # The compiler says where it stops: at the op, in the spec's text.
        self.assertIn("kernel.mlir:1:1: error:", str(e))
        self.assertIn("shared memory", str(e))
        self.assertIn("error:", e.stderr)
        # The generic-form note and the temporary folder are left out.
        self.assertNotIn("see current operation", str(e))
        self.assertNotIn(".tmp-", str(e))
        # The failed compile left nothing behind.
        self.assertNotIn("d256", " ".join(p.name for p in self.root.iterdir()))

    def test_verifier_error(self):
        # 3 stages and an f32 C staging tile exceed the shared memory.
        with self.assertRaises(fmha.CompileError) as cm:
            fmha.compile(GemmSpec(out_dtype="f32", stages=3),
                         cache_dir=self.root, progress=lambda m: None)
        self.assertIn("shared memory", str(cm.exception))

    def test_pass_list(self):
        passes = compiler.pass_list(TOOLS.opt.path, "fmha-sm90-pipeline")
        self.assertTrue(passes[0].startswith("fmha-verify-target"))
        self.assertTrue(passes[1].startswith("fmha-expand-kernels"))
        self.assertTrue(any(p.startswith("convert-ws-to-nvvm") for p in passes))

    def test_sm100a(self):
        """sm_100a compiles (--fmha-sm100-pipeline) to PTX and a cubin."""
        kernel = fmha.compile(GemmSpec(target="sm_100a"), cache_dir=self.root,
                              progress=lambda m: None)
        self.assertEqual(kernel.manifest.target, "sm_100a")
        self.assertEqual(kernel.info["pipeline"], "fmha-sm100-pipeline")
        self.assertIn(".target sm_100a", kernel.ptx_path.read_text())
        self.assertTrue(kernel.entry.cubin.startswith(b"\x7fELF"))

    def test_rendered_specs_parse(self):
        """The compiler's parser and verifier accept what specs render."""
        specs = [GemmSpec(), GemmSpec(dtype="f16", out_dtype="f32", stages=2,
                                      tile=(128, 64, 32), consumers=1,
                                      n=4096, k=1024),
                 GemmSpec(target="sm_100a", m=512),
                 AttentionSpec(),
                 AttentionSpec(dtype="f16", head_dim=64, heads_q=32,
                               heads_kv=8, return_lse=True, causal=True,
                               window=(256, 0), scale=0.0883883,
                               tile=(64, 128), stages=2, consumers=2),
                 AttentionSpec(scale=1e-3, batch=2, seq_q=100, seq_k=100,
                               window=(16, 16), target="sm_100a")]
        text = "".join(s.to_mlir() for s in specs)
        result = subprocess.run([TOOLS.opt.path, "-"], input=text,
                                capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        for s in specs:
            self.assertIn(f"@{s.name} ", result.stdout)


class ToolsTest(unittest.TestCase):
    def test_env_var_that_does_not_exist_wins(self):
        with mock.patch.dict(os.environ, NO_TOOLS):
            t = tools.find_tools()
        self.assertFalse(t.compiler)
        self.assertIn("FMHA_OPT=/nonexistent/fmha-opt", t.missing())
        self.assertIn("FMHA_PTXAS", t.ptxas.problem)

    def test_env_var(self):
        with tempfile.TemporaryDirectory() as d:
            exe = Path(d) / "my-opt"
            exe.write_text("#!/bin/sh\necho 'fmha test 1.0'\n")
            exe.chmod(0o755)
            with mock.patch.dict(os.environ, {"FMHA_OPT": str(exe)}):
                t = tools.find_tool("fmha-opt")
            self.assertEqual((t.path, t.origin), (str(exe), "FMHA_OPT"))
            self.assertEqual(tools.tool_version(str(exe)), "fmha test 1.0")

    def test_package_bin_first(self):
        with tempfile.TemporaryDirectory() as d:
            exe = Path(d) / "fmha-opt"
            exe.write_text("#!/bin/sh\n")
            exe.chmod(0o755)
            with mock.patch.object(tools, "PACKAGE_BIN", Path(d)), \
                    mock.patch.dict(os.environ, NO_TOOLS):
                t = tools.find_tool("fmha-opt")
            self.assertEqual((t.path, t.origin), (str(exe), "package"))

    def test_source_tree(self):
        if not (tools.SOURCE_ROOT / "CMakeLists.txt").is_file():
            self.skipTest("the package does not run from the source tree")
        self.assertEqual(tools.source_tree_bin(),
                         tools.SOURCE_ROOT / "build" / "bin")
        with mock.patch.dict(os.environ, {"FMHA_BUILD_DIR": "/b"}):
            self.assertEqual(tools.build_dir_bin(), Path("/b/bin"))

    def test_build_dir_when_installed(self):
        """FMHA_BUILD_DIR is honoured by an installed package too (not
        running from the source tree), before PATH."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("FMHA_OPT", "FMHA_TRANSLATE")}
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "bin").mkdir()
            exe = Path(d) / "bin" / "fmha-opt"
            exe.write_text("#!/bin/sh\n")
            exe.chmod(0o755)
            env["FMHA_BUILD_DIR"] = d
            with mock.patch.dict(os.environ, env, clear=True), \
                    mock.patch.object(tools, "source_tree_bin",
                                      lambda: None), \
                    mock.patch.object(tools, "PACKAGE_BIN",
                                      Path(d) / "none"):
                t = tools.find_tool("fmha-opt")
                self.assertEqual((t.path, t.origin),
                                 (str(exe), "FMHA_BUILD_DIR"))
                env["FMHA_BUILD_DIR"] = str(Path(d) / "elsewhere")
                env["PATH"] = d
                with mock.patch.dict(os.environ, env, clear=True):
                    t = tools.find_tool("fmha-translate")
        self.assertFalse(t)
        # The message names what to set: the variable, the build folder
        # and PATH.
        self.assertIn("FMHA_TRANSLATE", t.problem)
        self.assertIn("FMHA_BUILD_DIR", t.problem)
        self.assertIn("PATH", t.problem)
        self.assertIn(str(Path(d) / "elsewhere" / "bin" / "fmha-translate"),
                      t.problem)


if __name__ == "__main__":
    unittest.main()
