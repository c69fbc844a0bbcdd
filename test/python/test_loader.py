"""The runtime's one module loader (runner.py's load_package/load_module): a module is loaded from
the directory asked for, never silently from the one a package was first registered with."""

import os
import sys
import tempfile
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner.runner import load_module


class LoaderTest(unittest.TestCase):
    def setUp(self):
        self.dirs = [tempfile.TemporaryDirectory() for _ in range(2)]
        for index, directory in enumerate(self.dirs):
            with open(os.path.join(directory.name, "member.py"), "w") as f:
                f.write(f"WHO = {index}\n")
        self.package = f"_ptc_loader_test_{id(self)}"

    def tearDown(self):
        for name in [name for name in sys.modules if name.split(".")[0] == self.package]:
            del sys.modules[name]
        for directory in self.dirs:
            directory.cleanup()

    def path(self, index):
        return os.path.join(self.dirs[index].name, "member.py")

    def test_a_module_is_a_member_of_its_directory_package_loaded_once(self):
        module = load_module(self.path(0), self.package)
        self.assertEqual(module.WHO, 0)
        self.assertEqual(module.__name__, f"{self.package}.member")
        self.assertIs(load_module(self.path(0), self.package), module)

    def test_another_directory_under_a_registered_package_name_is_refused(self):
        load_module(self.path(0), self.package)
        with self.assertRaisesRegex(ImportError, "already"):
            load_module(self.path(1), self.package)


if __name__ == "__main__":
    unittest.main()
