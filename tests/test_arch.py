#!/usr/bin/env python3
"""The per-arch data (uckit/arches/*.ini): every file loads and names
what exists, and it is the only table of arches in the project."""

import os
import re
import subprocess
import sys
import unittest

from helpers import TOP  # noqa: F401

import uckit  # noqa: E402
from uckit import arch  # noqa: E402

# Files that may name several arches: the data, and text about them.
# The unit tests' fixtures name arches as data too.
ALLOWED = ("uckit/arches/", "docs/", "README.md", "kernels/", "series/",
           "cocci/", "patches/", "tests/guest/", "tests/test_")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                         cwd=TOP, capture_output=True, text=True).stdout
    return [f for f in out.splitlines()
            if os.path.isfile(os.path.join(TOP, f))]


class ArchData(unittest.TestCase):
    def test_every_arch_loads_and_names_what_exists(self):
        names = arch.names()
        self.assertEqual(names[:2], ["x86_64", "i386"])
        for a in arch.all_arches():
            if not a.buildable:
                continue
            for frag in a.fragments.split():
                path = os.path.join(TOP, "ci", "configs", frag + ".config")
                self.assertTrue(os.path.isfile(path), (a.name, frag))
            for name in a.expect.split():
                path = os.path.join(TOP, "tests", "guest", "expect",
                                    name.split("@")[0])
                self.assertTrue(os.path.isfile(path), (a.name, name))
            self.assertTrue(a.qemu.startswith("qemu-system-"), a.name)
            self.assertIn(a.serial2, ("yes", "no"), a.name)

    def test_unknown_and_unbuildable_arches_say_why(self):
        with self.assertRaisesRegex(uckit.UserError,
                                    r"unsupported ARCH=alpha \(supported: "
                                    r"x86_64 i386"):
            arch.get("alpha")
        with self.assertRaisesRegex(uckit.UserError, "wired and audited"):
            arch.get("ia64")
        with self.assertRaisesRegex(uckit.UserError, "ARCH is empty"):
            arch.get("")

    def test_shell_assignments_round_trip(self):
        facts = arch.get("s390x").shell()
        out = subprocess.run(["bash", "-c", facts + 'printf "%s|%s|%s" '
                              '"$ARCH_CONSOLE" "$ARCH_SERIAL2" "$KARCH"'],
                             capture_output=True, text=True).stdout
        self.assertEqual(out, "ttyS1 ttysclp0|0|s390")

    def test_debian_packages_come_from_the_data(self):
        pkgs = arch.debian_packages()
        for a in arch.all_arches():
            if a.buildable:
                self.assertIn(a.qemu_package, pkgs)
                for p in a.packages.split():
                    self.assertIn(p, pkgs)

    def test_no_arch_table_outside_the_data(self):
        """No other file keeps a list of arches (three or more names on
        one line) or a shell case arm per arch: adding an arch means
        adding a file to uckit/arches/."""
        names = [re.escape(n) for n in arch.names(buildable=False)]
        word = re.compile(r"(?<![\w.-])(%s)(?![\w-])" % "|".join(names))
        arm = re.compile(r"^\s*(%s)(\|[\w-]+)*\)" % "|".join(names))
        found = []
        for rel in tracked_files():
            if rel.startswith(ALLOWED):
                continue
            try:
                with open(os.path.join(TOP, rel)) as f:
                    lines = f.readlines()
            except UnicodeDecodeError:
                continue
            for n, line in enumerate(lines, 1):
                if len(set(word.findall(line))) >= 3 or arm.match(line):
                    found.append("%s:%d: %s" % (rel, n, line.strip()))
        self.assertEqual(found, [], "arch tables outside uckit/arches/:\n"
                         + "\n".join(found))


if __name__ == "__main__":
    sys.exit(unittest.main())
