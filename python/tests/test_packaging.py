"""The standard-library build backend makes a valid wheel of the package."""

import base64
import hashlib
import importlib.util
import os
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_backend():
    path = os.path.join(ROOT, "build_backend", "fmha_build.py")
    spec = importlib.util.spec_from_file_location("fmha_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WheelTest(unittest.TestCase):
    def test_wheel(self):
        backend = load_backend()
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        with tempfile.TemporaryDirectory() as tmp:
            name = backend.build_wheel(tmp)
            self.assertEqual(name, "fmha-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(tmp, name)) as z:
                names = set(z.namelist())
                for module in ("__init__", "__main__", "cache", "cli",
                               "compiler", "ops", "specs", "tools",
                               "torch_ops", "runtime/__init__",
                               "runtime/driver", "runtime/kernel",
                               "runtime/lru", "runtime/manifest",
                               "runtime/tensormap"):
                    self.assertIn(f"fmha/{module}.py", names)
                self.assertFalse([n for n in names if "__pycache__" in n])
                metadata = z.read("fmha-0.1.0.dist-info/METADATA").decode()
                self.assertIn("Name: fmha\nVersion: 0.1.0\n", metadata)
                self.assertNotIn("Requires-Dist", metadata)
                self.assertEqual(
                    z.read("fmha-0.1.0.dist-info/entry_points.txt").decode(),
                    "[console_scripts]\nfmha = fmha.cli:main\n")
                record = z.read("fmha-0.1.0.dist-info/RECORD").decode()
                for line in record.splitlines():
                    path, digest, size = line.split(",")
                    if path.endswith("RECORD"):
                        continue
                    data = z.read(path)
                    want = base64.urlsafe_b64encode(
                        hashlib.sha256(data).digest()).decode().rstrip("=")
                    self.assertEqual(digest, f"sha256={want}", path)
                    self.assertEqual(int(size), len(data), path)
                self.assertEqual(len(record.splitlines()), len(names))


if __name__ == "__main__":
    unittest.main()
