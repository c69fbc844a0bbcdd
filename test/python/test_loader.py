"""The runtime's one module loader (runner.py's load_package/load_module): a package is a directory
and its __init__.py, and a module is loaded from the directory asked for, never silently from the one
a package was first registered with."""

import os
import sys
import tempfile
import unittest

import _paths
from linux.zygote import import_runner
from runner.runner import load_module


class LoaderTest(unittest.TestCase):
    def setUp(self):
        self.dirs = [tempfile.TemporaryDirectory() for _ in range(2)]
        for index, directory in enumerate(self.dirs):
            with open(os.path.join(directory.name, "__init__.py"), "w") as f:
                f.write(f"PACKAGE_OF = {index}\n")
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

    def test_the_package_is_its_directorys_init_run_once(self):
        module = load_module(self.path(1), self.package)
        package = sys.modules[self.package]
        self.assertEqual(package.PACKAGE_OF, 1)
        self.assertEqual(package.__file__, os.path.join(self.dirs[1].name, "__init__.py"))
        self.assertIs(module, package.member)

    def test_a_directory_without_init_is_a_package_of_its_modules_alone(self):
        os.remove(os.path.join(self.dirs[0].name, "__init__.py"))
        self.assertEqual(load_module(self.path(0), self.package).WHO, 0)
        self.assertFalse(hasattr(sys.modules[self.package], "PACKAGE_OF"))

    def test_an_init_that_raises_leaves_no_package_registered(self):
        with open(os.path.join(self.dirs[0].name, "__init__.py"), "w") as f:
            f.write("raise RuntimeError('broken package')\n")
        with self.assertRaisesRegex(RuntimeError, "broken package"):
            load_module(self.path(0), self.package)
        self.assertNotIn(self.package, sys.modules)

    def test_another_directory_under_a_registered_package_name_is_refused(self):
        load_module(self.path(0), self.package)
        with self.assertRaisesRegex(ImportError, "already"):
            load_module(self.path(1), self.package)


class ForkServerImportTest(unittest.TestCase):
    """The fork server (zygote.py) imports the runner as a package and uses its public names."""

    def tearDown(self):
        for name in [name for name in sys.modules if name.split(".")[0] == "_ptc_runner"]:
            del sys.modules[name]

    def test_the_runner_is_imported_as_ptc_runner_runner_with_nothing_on_sys_path(self):
        path = list(sys.path)
        directory = _paths.EXECUTION / "runner"
        runner = import_runner(str(directory))
        self.assertEqual(runner.__name__, "_ptc_runner.runner")
        self.assertEqual(sys.modules["_ptc_runner"].__file__, str(directory / "__init__.py"))
        for name in ("main", "preload", "channel_from_fd", "PRIVATE_FD"):
            self.assertTrue(hasattr(runner, name), name)
        self.assertEqual(sys.path, path)

    def test_a_directory_that_is_not_the_runners_package_is_refused(self):
        with tempfile.TemporaryDirectory() as directory:
            with self.assertRaisesRegex(ImportError, "no __init__.py"):
                import_runner(directory)
            self.assertNotIn("_ptc_runner", sys.modules)


if __name__ == "__main__":
    unittest.main()
