#!/usr/bin/env python3
"""Expectation files: which ones a kernel build reads, and their merge."""

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


class Expectations(unittest.TestCase):
    """ci/boot.sh's choice of expectation files, from a fake build
    directory's kernel release and .config (nothing is built or booted)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uc-expect-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def expect(self, arch, release, config=None, hardened="y"):
        kb = os.path.join(self.tmp, "%s-%s" % (arch, release))
        os.makedirs(os.path.join(kb, "include", "config"))
        open(os.path.join(kb, "Makefile"), "w").close()
        with open(os.path.join(kb, "include", "config", "kernel.release"),
                  "w") as f:
            f.write(release + "\n")
        if config is not None:
            with open(os.path.join(kb, ".config"), "w") as f:
                f.write("".join(c + "\n" for c in config))
        r = subprocess.run(["bash", os.path.join(TOP, "ci", "boot.sh"),
                            "--print-expectations", "--arch", arch,
                            "--kbuild", kb, "--hardened", hardened],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        files = r.stdout.splitlines()[0].split(":", 1)[1].split()
        want = {}
        for line in r.stdout.splitlines()[1:]:
            case, h, n, _ = line.split("\t")
            want[case] = h if hardened == "y" else n
        return files, want

    def test_stack_depth_check_needs_the_arch_stack_pointer(self):
        sp = "CONFIG_ARCH_HAS_CURRENT_STACK_POINTER=y"
        files, want = self.expect("arm64", "6.1.192", [sp])
        self.assertIn("since-5.19", files)
        self.assertEqual(want["stack_frame_to_user"],
                         "killed exposure stack")
        # sparc has no current_stack_pointer: no depth check in 6.1.
        files, want = self.expect("sparc64", "6.1.192",
                                  ["# CONFIG_FOO is not set"])
        self.assertNotIn("since-5.19", files)
        self.assertEqual(want["stack_frame_to_user"], "survived")
        self.assertEqual(want["null_to_user"], "killed exposure null")

    def test_requires_without_config_is_an_error(self):
        kb = os.path.join(self.tmp, "noconfig")
        os.makedirs(os.path.join(kb, "include", "config"))
        open(os.path.join(kb, "Makefile"), "w").close()
        with open(os.path.join(kb, "include", "config", "kernel.release"),
                  "w") as f:
            f.write("6.1.0\n")
        r = subprocess.run(["bash", os.path.join(TOP, "ci", "boot.sh"),
                            "--print-expectations", "--arch", "s390x",
                            "--kbuild", kb, "--hardened", "y"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no .config", r.stderr)

    def test_branch_and_arch_files(self):
        # 4.4 x86_64: the default table alone; the frame walker catches
        # dead frames, constant sizes are not checked.
        files, want = self.expect("x86_64", "4.4.220", [])
        self.assertEqual(files, ["default"])
        self.assertEqual(want["stack_frame_to_user"],
                         "killed exposure stack")
        # 4.9 s390x checks constant sizes (out of line), 4.14 does not.
        _, want = self.expect("s390x", "4.9.337", [])
        self.assertEqual(want["const_size_to_user"], "killed exposure text")
        _, want = self.expect("s390x", "4.14.280", [])
        self.assertEqual(want["const_size_to_user"], "survived")
        # Before 3.15 s390's routines are inline: constant sizes stay
        # constant (ARCH_EXPECT's const-size-out-of-line@3.15).
        files, want = self.expect("s390x", "3.14.65", [])
        self.assertNotIn("const-size-out-of-line", files)
        self.assertEqual(want["const_size_to_user"], "survived")
        files, want = self.expect("s390x", "3.16.0", [])
        self.assertIn("const-size-out-of-line", files)
        # The control lets every violation through, but arm oopses on
        # bad kernel pointers inside its copy routine.
        _, want = self.expect("arm", "4.4.220", [], hardened="n")
        self.assertEqual(want["slab_overflow_to_user"], "survived")
        self.assertEqual(want["null_to_user"], "killed")
