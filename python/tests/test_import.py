"""The package imports without PyTorch and without loading the driver."""

import os
import re
import subprocess
import sys
import unittest

import fmha

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs with an import hook that makes `import torch` fail, as on a machine
# without PyTorch, then imports every module of the package but the
# optional integrations (fmha.integrations.*, which need their library).
SCRIPT = r"""
import importlib, pkgutil, sys

class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is blocked for this test")

sys.meta_path.insert(0, NoTorch())
import fmha, fmha.runtime
for info in pkgutil.walk_packages(fmha.__path__, "fmha."):
    # Optional integrations import their library (transformers, torch).
    if not info.name.startswith("fmha.integrations."):
        importlib.import_module(info.name)
from fmha.runtime import driver
assert "torch" not in sys.modules, "torch was imported"
assert driver._DRIVER is None, "the driver was loaded at import"
print("ok", fmha.__version__)
"""


class ImportTest(unittest.TestCase):
    def test_import_without_torch(self):
        env = dict(os.environ, PYTHONPATH=ROOT)
        result = subprocess.run([sys.executable, "-c", SCRIPT], env=env,
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "ok 0.1.0")

    def test_version(self):
        self.assertEqual(fmha.__version__, "0.1.0")
        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            m = re.search(r'^version = "([^"]+)"', f.read(), re.M)
        self.assertEqual(m.group(1), fmha.__version__)

    def test_public_api(self):
        import fmha.runtime as rt
        for name in rt.__all__:
            self.assertTrue(hasattr(rt, name), name)
        self.assertTrue(issubclass(rt.ManifestError, ValueError))
        self.assertTrue(issubclass(rt.TensorMapError, ValueError))
        self.assertTrue(issubclass(rt.CudaError, RuntimeError))


if __name__ == "__main__":
    unittest.main()
