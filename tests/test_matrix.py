#!/usr/bin/env python3
"""The support matrix: records, the newest per cell, the tables."""

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


class Matrix(unittest.TestCase):
    """ci/matrix.sh: committed records and this machine's results, the
    newest per cell, and --record writing them back."""

    HEADER = ("kernel\tarch\talloc\thardened\tstate\tresult\tbuild_s\t"
              "boot_s\tdate\tapplied\tbuilt\tbooted\tsuite\t")
    MATRIX = os.path.join(TOP, "ci", "matrix.sh")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uc-matrix-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.records = os.path.join(self.tmp, "matrix.tsv")
        self.results = os.path.join(self.tmp, "results")

    def commit_records(self, text):
        with open(self.records, "w") as f:
            f.write(text)

    def local_cell(self, arch, result, suite, tail=""):
        cell = os.path.join(self.results, "linux-4.4.999-x-%s-slub-hy" % arch)
        os.makedirs(cell)
        with open(os.path.join(cell, "cell.txt"), "w") as f:
            f.write("kernel=4.4.999\nstate=backport\n"
                    "arch=%s alloc=slub hardened=y\nbuild_s=7 boot_s=3\n"
                    "applied=yes built=yes booted=yes suite=%s\n"
                    "date=2026-02-02%s\nresult=%s\n" % (arch, suite, tail,
                                                        result))
        return os.path.join(cell, "cell.txt")

    def matrix(self, *args):
        env = dict(os.environ, UC_MATRIX_RECORDS=self.records)
        r = subprocess.run(["bash", self.MATRIX] + list(args) + [self.results],
                           capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_local_result_beats_committed_record(self):
        # A file from before the code column.
        self.commit_records(
            "# records\n" + self.HEADER + "reason\n"
            "4.4.999\tarm\tslub\ty\tbackport\tpass\t10\t5\t"
            "2026-01-01\tyes\tyes\tyes\t19/19\t\n"
            "4.4.999\ts390x\tslub\ty\tbackport\tpass\t10\t5\t"
            "2026-01-01\tyes\tyes\tyes\t19/19\t\n")
        with open(self.local_cell("arm", "FAIL", "18/19"), "a") as f:
            f.write("reason: not ok 3 wrap_to_user\n")
        out = self.matrix("--record")
        self.assertIn("| 4.4.999 | backport |  |  |  | **slub: FAIL "
                      "(not ok 3 wrap_to_user)** |  |  | slub |  |", out)
        with open(self.records) as f:
            rows = [l.split("\t") for l in f.read().splitlines()
                    if l.startswith("4.4.999")]
        self.assertEqual(sorted((x[1], x[5], x[8], x[12]) for x in rows),
                         [("arm", "FAIL", "2026-02-02", "18/19"),
                          ("s390x", "pass", "2026-01-01", "19/19")])
        # Rewritten with the code column; the reason kept its place.
        self.assertEqual(sorted((x[1], x[13], x[14]) for x in rows),
                         [("arm", "?", "not ok 3 wrap_to_user"),
                          ("s390x", "?", "")])

    def test_code_says_which_records_are_current(self):
        code = subprocess.run(["bash", self.MATRIX, "--code"],
                              capture_output=True, text=True).stdout.strip()
        self.assertRegex(code, r"^([0-9a-f]{12}\+?|\?)$")
        # The project's first commit: its cell inputs differ from HEAD's.
        first = subprocess.run(
            ["git", "-C", TOP, "rev-list", "--max-parents=0",
             "--abbrev-commit", "--abbrev=12", "HEAD"],
            capture_output=True, text=True).stdout.split()[-1]
        self.commit_records(
            self.HEADER + "code\treason\n"
            "4.4.999\tarm\tslub\ty\tbackport\tpass\t10\t5\t"
            "2026-01-01\tyes\tyes\tyes\t19/19\t%s\t\n"
            "4.4.999\ti386\tslub\ty\tbackport\tpass\t10\t5\t"
            "2026-01-01\tyes\tyes\tyes\t19/19\t?\t\n" % code)
        self.local_cell("s390x", "pass", "19/19", " code=" + first)
        out = self.matrix()
        self.assertIn("| 4.4.999 | backport | s390x | slub | y | yes | yes "
                      "| yes | 19/19 | pass | 7 | 3 | 2026-02-02 | %s |"
                      % first, out)
        current = 0 if code.endswith("+") or code == "?" else 1
        self.assertIn("Code: %d of 3 records ran the cell inputs of this "
                      "checkout" % current, out)
        self.assertIn("guest suite); %d ran older ones; 1 predate the code "
                      "column." % (2 - current), out)
        # make boot-stale skips exactly the current cells.
        self.assertEqual(self.matrix("--current").splitlines(),
                         ["4.4.999 arm slub y"] if current else [])
