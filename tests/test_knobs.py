#!/usr/bin/env python3
"""The environment variables the toolkit reads (uckit/knobs.py): every
UC_* name the project's scripts, code and docs mention is declared there,
and every declared one is read by something besides the table."""

import os
import re
import subprocess
import sys
import unittest
from unittest import mock

from helpers import TOP

from uckit import UserError, knobs  # noqa: E402

NAME = re.compile(r"(?<![A-Za-z0-9_])UC_[A-Z0-9_]+")
# Where the project's scripts, code and docs live.
SCOPE = ("ci", "tests", "uckit", "packaging", "Makefile", ".ci", "docs",
         "README.md")
# C is the guest's and the kernel's: it cannot read the host's environment
# (its UC_* names are the suite's macros).
NOT_READERS = (".c", ".h")
# Text about the knobs, and the table and this test: none of them reads one.
NOT_CODE = (".md",)
TABLE = ("uckit/knobs.py", "tests/test_knobs.py")


def project_files():
    """The tracked files in SCOPE, and the new ones git does not ignore."""
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard",
                        "--"] + list(SCOPE), cwd=TOP, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise unittest.SkipTest("not a git checkout: %s" % r.stderr.strip())
    return sorted({f for f in r.stdout.splitlines()
                   if os.path.isfile(os.path.join(TOP, f))
                   and not f.endswith(NOT_READERS)})


def mentions():
    """{NAME: [files that mention it]} over the project's text files."""
    out = {}
    for f in project_files():
        try:
            with open(os.path.join(TOP, f), encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, OSError):
            continue        # not text
        for name in set(NAME.findall(text)):
            out.setdefault(name, []).append(f)
    return out


class Table(unittest.TestCase):
    def test_every_name_is_declared(self):
        undeclared = {n: files for n, files in mentions().items()
                      if n not in knobs.BY_NAME}
        self.assertEqual(undeclared, {}, "declare these in uckit/knobs.py "
                         "(name, default, what), or drop them from the files "
                         "that name them")

    def test_every_knob_is_read(self):
        seen = mentions()
        unread = [k.name for k in knobs.KNOBS
                  if not [f for f in seen.get(k.name, [])
                          if f not in TABLE and not f.endswith(NOT_CODE)]]
        self.assertEqual(unread, [], "nothing reads these: drop them from "
                         "uckit/knobs.py")

    def test_one_entry_a_name_each_with_its_use(self):
        names = [k.name for k in knobs.KNOBS]
        self.assertEqual(len(names), len(set(names)))
        for k in knobs.KNOBS:
            self.assertRegex(k.name, NAME)
            self.assertTrue(k.what, k.name)

    def test_knobs_verb_prints_the_table(self):
        r = subprocess.run([sys.executable, "-m", "uckit", "knobs"], cwd=TOP,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([line.split()[0] for line in r.stdout.splitlines()],
                         [k.name for k in knobs.KNOBS])


class Values(unittest.TestCase):
    """A knob's value is the environment's, else (unset or empty) its
    default; a whole number wherever the default is one."""

    def setUp(self):
        self.name = knobs.KNOBS[0].name
        self.default = knobs.KNOBS[0].default

    def value(self, value):
        with mock.patch.dict(os.environ, {self.name: value}):
            return knobs.get(self.name)

    def test_default_and_override(self):
        self.assertTrue(self.default.isdigit())
        self.assertEqual(self.value(""), self.default)
        self.assertEqual(self.value("7"), "7")
        with mock.patch.dict(os.environ, {self.name: "7"}):
            self.assertEqual(knobs.number(self.name), 7)

    def test_not_a_number(self):
        with self.assertRaisesRegex(UserError, "give a whole number "
                                    r"\(default %s\)" % self.default):
            self.value("-1")

    def test_undeclared_is_a_bug(self):
        self.assertRaises(KeyError, knobs.get, "UC_" + "NOT_DECLARED")

    def test_get_verb(self):
        cmd = [sys.executable, "-m", "uckit", "knobs", "--get", self.name]
        env = dict(os.environ, **{self.name: "12"})
        r = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True,
                           env=env)
        self.assertEqual((r.returncode, r.stdout), (0, "12\n"), r.stderr)
        env[self.name] = "soon"
        r = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True,
                           env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: %s=soon: give a whole number" % self.name,
                      r.stderr)


if __name__ == "__main__":
    unittest.main()
