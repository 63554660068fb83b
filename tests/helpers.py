"""What the unit tests share: small fake kernel trees, a base class with
its own kernel cache, and a KTAP result printer (tests/unit.py)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)
from uckit import cache  # noqa: E402


def mini_tree(root, sublevel=999, patchlevel=4, version=4):
    """A tree with just enough for version detection and the series'
    patch steps to be attempted (and to fail: no real Kconfig)."""
    os.makedirs(root)
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write("VERSION = %d\nPATCHLEVEL = %d\nSUBLEVEL = %d\n"
                "EXTRAVERSION =\n" % (version, patchlevel, sublevel))
    for d in ("mm", "security", "include/linux", "arch/x86"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "security", "Kconfig"), "w") as f:
        f.write('menu "Security options"\nendmenu\n')
    return root


def native_tree(root):
    """A 4.9 mini tree that has the feature (Kconfig and mm/usercopy.c)."""
    tree = mini_tree(root, patchlevel=9)
    with open(os.path.join(tree, "security", "Kconfig"), "a") as f:
        f.write("config HARDENED_USERCOPY\n\tbool\n")
    with open(os.path.join(tree, "mm", "usercopy.c"), "w") as f:
        f.write("/* native */\n")
    return tree


def tree_key(tree, version):
    """The cache key of a tree (uckit.cache): the version and a hash of
    the tree's path."""
    return cache.tree_key(version, tree)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uc-unit-")
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp,
                                                                "cache"))
        self._xdg = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = self.env["XDG_CACHE_HOME"]

    def tearDown(self):
        if self._xdg is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = self._xdg
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_uckit(self, verb, kernel, out=None, env=None):
        """python3 -m uckit VERB --kernel KERNEL [--out OUT]."""
        cmd = [sys.executable, "-m", "uckit", verb, "--kernel", kernel]
        if out is not None:
            cmd += ["--out", out]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=TOP,
                              env=env or self.env)


class KtapResult(unittest.TextTestResult):
    n = 0

    def _line(self, test, ok, why=""):
        KtapResult.n += 1
        print("%s %d unit:%s%s" % ("ok" if ok else "not ok", KtapResult.n,
                                   test.id().split(".", 1)[1],
                                   " # " + why if why else ""))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, "SKIP " + reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False, "failed")
        for line in self._exc_info_to_string(err, test).splitlines():
            print("# " + line)

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False, "error")
        for line in self._exc_info_to_string(err, test).splitlines():
            print("# " + line)
