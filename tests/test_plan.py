#!/usr/bin/env python3
"""Boot cells: the time make check plans for each."""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
from unittest import mock

from helpers import TOP, Base, mini_tree, native_tree, tree_key  # noqa: E402,F401


class BootEstimate(Base):
    """ci/boot-test.sh UC_ESTIMATE=1: what make check plans its time
    with; cold until the cell's image is built and it has booted once."""

    def estimate(self, tree):
        env = dict(self.env, UC_ESTIMATE="1", UC_BOOT_COLD_S="901",
                   UC_BOOT_WARM_S="50")
        r = subprocess.run(["bash", os.path.join(TOP, "ci", "boot-test.sh"),
                            tree, "x86_64", "slub", "y"],
                           capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def test_cold_then_warm(self):
        tree = native_tree(os.path.join(self.tmp, "t"))
        self.assertEqual(self.estimate(tree), "901")
        cell = tree_key(tree, "4.9.999") + "-x86_64-slub-hy"
        cache = os.path.join(self.tmp, "cache", "usercopy-backports")
        image = os.path.join(cache, "build", cell, "arch/x86/boot")
        os.makedirs(image)
        open(os.path.join(image, "bzImage"), "w").close()
        # Built but never booted: still cold.
        self.assertEqual(self.estimate(tree), "901")
        os.makedirs(os.path.join(cache, "results", cell))
        with open(os.path.join(cache, "results", cell, "cell.txt"),
                  "w") as f:
            f.write("kernel=4.9.999\nbuild_s=400 boot_s=17\nresult=pass\n")
        self.assertEqual(self.estimate(tree), "67")

    def test_backport_copy_is_stale_once_the_tree_changes(self):
        """A pristine tree edited in place after its hardened copy was
        made (a vendor patch, a file dropped from a snapshot) must be
        applied again, not built from the old copy."""
        tree = mini_tree(os.path.join(self.tmp, "b"))
        info = self.run_uckit("info", tree)
        self.assertEqual(info.returncode, 0, info.stderr)
        fp = [line.split("=", 1)[1] for line in info.stdout.splitlines()
              if line.startswith("fingerprint=")][0]
        key = tree_key(tree, "4.4.999")
        cache = os.path.join(self.tmp, "cache", "usercopy-backports")
        cell = os.path.join(cache, "build", key + "-x86_64-slub-hy")
        os.makedirs(os.path.join(cell, "arch/x86/boot"))
        open(os.path.join(cell, "arch/x86/boot/bzImage"), "w").close()
        os.makedirs(os.path.join(cache, "results", key + "-x86_64-slub-hy"))
        with open(os.path.join(cache, "results", key + "-x86_64-slub-hy",
                               "cell.txt"), "w") as f:
            f.write("kernel=4.4.999\nbuild_s=400 boot_s=17\nresult=pass\n")
        os.makedirs(os.path.join(cache, "work"))
        time.sleep(0.05)
        with open(os.path.join(cache, "work", key + ".applied"), "w") as f:
            f.write(fp + "\n")
        self.assertEqual(self.estimate(tree), "67")
        # ctime moves on the coarse clock: let it tick before the edit.
        time.sleep(0.05)
        open(os.path.join(tree, "mm", "vendor.c"), "w").close()
        self.assertEqual(self.estimate(tree), "901")
