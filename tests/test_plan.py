#!/usr/bin/env python3
"""Boot cells: which cells make check, make boot-all and make boot-stale
plan (uckit/plan.py), and the time make check plans for each."""

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import time
import unittest
from unittest import mock

from helpers import TOP, Base, mini_tree, native_tree, tree_key  # noqa: E402

from uckit import UserError, arch, bench, cache, plan, profile, source  # noqa: E402
from uckit.plan import Cell  # noqa: E402

TIMES = {"UC_BOOT_COLD_S": "901", "UC_BOOT_WARM_S": "50"}


def write(path, text=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def built(tree, version, arch_name="x86_64", alloc="slub", hardened="y",
          boot_s=17):
    """Makes CELL look built and booted once: its image and its record."""
    key = cache.cell_key(version, tree, arch_name, alloc, hardened)
    write(cache.path("build", key, arch.get(arch_name).image))
    write(cache.path("results", key, "cell.txt"),
          "kernel=%s\nbuild_s=400 boot_s=%d\nresult=pass\n"
          % (version, boot_s))


class Estimate(Base):
    """python3 -m uckit estimate: what make check plans its time with;
    cold until the cell's image is built and it has booted once."""

    def setUp(self):
        super().setUp()
        patcher = mock.patch.dict(os.environ, TIMES)
        patcher.start()
        self.addCleanup(patcher.stop)

    def estimate(self, tree, arch_name="x86_64"):
        return plan.Estimates().seconds(Cell(tree, arch_name, "slub", "y"))

    def test_cold_then_warm(self):
        tree = native_tree(os.path.join(self.tmp, "t"))
        self.assertEqual(self.estimate(tree), 901)
        key = tree_key(tree, "4.9.999") + "-x86_64-slub-hy"
        write(cache.path("build", key, "arch/x86/boot/bzImage"))
        # Built but never booted: still cold.
        self.assertEqual(self.estimate(tree), 901)
        write(cache.path("results", key, "cell.txt"),
              "kernel=4.9.999\nbuild_s=400 boot_s=17\nresult=pass\n")
        self.assertEqual(self.estimate(tree), 67)

    def test_backport_copy_is_stale_once_the_tree_changes(self):
        """A pristine tree edited in place after its hardened copy was
        made (a vendor patch, a file dropped from a snapshot) must be
        applied again, not built from the old copy."""
        tree = mini_tree(os.path.join(self.tmp, "b"))
        info = self.run_uckit("info", tree)
        self.assertEqual(info.returncode, 0, info.stderr)
        fp = [line.split("=", 1)[1] for line in info.stdout.splitlines()
              if line.startswith("fingerprint=")][0]
        built(tree, "4.4.999")
        # Not applied yet: cold.
        self.assertEqual(self.estimate(tree), 901)
        time.sleep(0.05)
        stamp = cache.path("work", tree_key(tree, "4.4.999") + ".applied")
        write(stamp, "0123456789ab\n")
        # Applied at another series: cold.
        self.assertEqual(self.estimate(tree), 901)
        write(stamp, fp + "\n")
        self.assertEqual(self.estimate(tree), 67)
        # ctime moves on the coarse clock: let it tick before the edit.
        time.sleep(0.05)
        write(os.path.join(tree, "mm", "vendor.c"))
        self.assertEqual(self.estimate(tree), 901)

    def test_a_cell_that_cannot_exist_takes_nothing(self):
        """No arch/arm64 in the tree, or no CONFIG_ARCH_VIRT for arm's
        QEMU board: boot-test records n/a at once."""
        tree = mini_tree(os.path.join(self.tmp, "t"))
        self.assertEqual(self.estimate(tree, "arm64"), 0)
        write(os.path.join(tree, "arch", "arm", "Kconfig"), "config ARM\n")
        self.assertEqual(self.estimate(tree, "arm"), 0)
        write(os.path.join(tree, "arch", "arm", "mach-virt", "Kconfig"),
              "config ARCH_VIRT\n")
        self.assertEqual(self.estimate(tree, "arm"), 901)

    def test_verb_and_its_errors(self):
        tree = native_tree(os.path.join(self.tmp, "t"))
        cmd = [sys.executable, "-m", "uckit", "estimate", "--kernel", tree,
               "--arch", "x86_64", "--alloc", "slab", "--hardened", "n"]
        env = dict(self.env, **TIMES)
        r = subprocess.run(cmd, cwd=TOP, env=env, capture_output=True,
                           text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "901\n"), r.stderr)
        r = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True,
                           env=dict(env, UC_BOOT_COLD_S="15m"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("UC_BOOT_COLD_S=15m: give a whole number", r.stderr)
        r = subprocess.run(cmd[:7] + ["vax"] + cmd[8:], cwd=TOP, env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unsupported ARCH=vax", r.stderr)


class Plans(Base):
    """The cells of --cells ci, all and stale on a fake cache of mini
    trees (named as the kernels/ manifests' versions)."""

    def setUp(self):
        super().setUp()
        for patcher in (mock.patch.dict(os.environ, TIMES),
                        mock.patch.object(plan, "DEBIAN_TARBALL",
                                          os.path.join(self.tmp, "none")),
                        mock.patch.object(plan, "can_cross",
                                          self.can_cross)):
            patcher.start()
            self.addCleanup(patcher.stop)
        self.missing = set()
        for v, arches in (("3.18.140", ["arm64"]), ("4.4.178", ["arm64"]),
                          ("4.4.220", ["arm64"]), ("5.10.1", [])):
            self.tree(v, arches)
        native_tree(os.path.join(self.tmp, "n"))
        os.rename(os.path.join(self.tmp, "n"), cache.path("trees",
                                                          "linux-4.9.337"))
        # A directory that is no tree.
        os.makedirs(cache.path("trees", "linux-9.9.9"))

    def can_cross(self, facts, qemu=True):
        return facts.name not in self.missing

    def tree(self, version, arches=()):
        v, p, s = (int(x) for x in version.split("."))
        t = mini_tree(cache.path("trees", "linux-" + version), sublevel=s,
                      patchlevel=p, version=v)
        for a in arches:
            write(os.path.join(t, "arch", a, "Kconfig"))
        return t

    def with_debian(self):
        write(plan.DEBIAN_TARBALL)
        patcher = mock.patch.object(plan, "debian_version",
                                    lambda: "6.1.192")
        patcher.start()
        self.addCleanup(patcher.stop)

    @staticmethod
    def cells(p):
        return [" ".join(c) for c in p.cells]

    def arch_tree_cells(self):
        out = []
        for a in arch.names()[1:]:
            out += ["4.4.220 %s slub y" % a, "4.4.220 %s slub n" % a]
            if a == "arm64":
                out.append("4.4.220 arm64 slab y")
        return out

    def test_ci(self):
        p = plan.make_plan("ci")
        self.assertEqual(p.skips, [
            ("boot-test debian", "apt-get install linux-source-6.1"),
            ("boot-test 5.10.1", "no series for branch 5.10")])
        self.assertEqual(self.cells(p), [
            # The newest backport first, with every arch (its arm64
            # cells come with the other arches').
            "4.4.220 x86_64 slub y", "4.4.220 x86_64 slab y",
            "4.4.220 x86_64 slub n",
        ] + self.arch_tree_cells() + [
            # The default sublevel of a backport branch; arm64 where the
            # tree has it.  Not 4.4.178: the trees section applies it.
            "3.18.140 x86_64 slub y", "3.18.140 x86_64 slab y",
            "3.18.140 x86_64 slub n", "3.18.140 arm64 slub y",
            # A native tree: the suite and its control.
            "4.9.337 x86_64 slub y", "4.9.337 x86_64 slub n",
        ])

    def test_ci_with_debian_and_a_missing_cross_compiler(self):
        self.with_debian()
        self.missing = {"arm64", "s390x"}
        p = plan.make_plan("ci")
        s390x = arch.get("s390x")
        self.assertEqual(p.skips, [
            ("boot-test 4.4.220 arm64",
             "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross "
             "qemu-system-arm"),
            ("boot-test 4.4.220 s390x", "apt-get install %s %s"
             % (s390x.packages, s390x.qemu_package)),
            ("boot-test 5.10.1", "no series for branch 5.10")])
        cells = self.cells(p)
        self.assertEqual(cells[:2], ["debian x86_64 slub y",
                                     "debian x86_64 slub n"])
        self.assertFalse([c for c in cells
                          if c.split()[1] in ("arm64", "s390x")])

    def test_ci_without_the_arch_tree(self):
        os.unlink(cache.path("trees", "linux-4.4.220", "Makefile"))
        self.assertEqual(self.cells(plan.make_plan("ci"))[-1],
                         "4.9.337 x86_64 slub n")

    def test_packages(self):
        """make check's package tests: the newest backport's default
        version (4.4.220, from kernels/) and Debian's 6.1, on the host arch
        natively and the other packaged arches cross."""
        mans = source.manifests()
        self.assertEqual(plan.package_lines(mans), [
            "# SKIP package tests debian # apt-get install linux-source-6.1",
            "4.4.220 x86_64 native", "4.4.220 arm64 cross"])
        self.with_debian()
        shutil.rmtree(cache.path("trees", "linux-4.4.220"))
        self.assertEqual(plan.package_lines(mans), [
            "# SKIP package tests 4.4.220 # linux-4.4.220 is not in the "
            "kernel cache", "debian x86_64 native", "debian arm64 cross"])

    def test_all(self):
        """make check's cells first, then every arch of every tree with a
        series or native support: SLUB; SLAB on x86_64 and arm64; the
        control on x86_64."""
        self.with_debian()
        ci = self.cells(plan.make_plan("ci"))
        cells = self.cells(plan.make_plan("all"))
        self.assertEqual(cells[:len(ci)], ci)
        self.assertEqual(len(cells), len(set(cells)))
        per_kernel = 3 + len(arch.names()) - 1 + 1
        # 3.18.140 4.4.178 4.4.220 4.9.337 and debian, not 5.10.1; and
        # make check's controls of 4.4.220 on every other arch; and the
        # config profiles of the three backports.
        profiles = sum(len(profile.cells(a)) for a in arch.names())
        self.assertEqual(len(cells), 5 * per_kernel + len(arch.names()) - 1
                         + 3 * profiles)
        self.assertIn("4.4.220 i386 highmem y", cells)
        self.assertNotIn("debian x86_64 pagespan y", cells)
        self.assertIn("4.4.178 sparc64 slub y", cells)
        self.assertIn("debian arm64 slab y", cells)
        self.assertNotIn("4.4.178 arm64 slub n", cells)
        self.assertFalse([c for c in cells if c.startswith("5.10.1")])

    def test_stale_drops_the_current_cells(self):
        self.with_debian()
        every = self.cells(plan.make_plan("all"))
        current = {("4.4.220", "x86_64", "slub", "y"),
                   ("6.1.192", "x86_64", "slub", "n"),
                   ("4.4.220", "vax", "slub", "y")}
        p = plan.make_plan("stale", current=lambda: current)
        self.assertEqual(self.cells(p), [
            c for c in every if c not in ("4.4.220 x86_64 slub y",
                                          "debian x86_64 slub n")])
        self.assertEqual(p.notes, [
            "boot-stale: %d of %d cells have no record of the current cell "
            "inputs" % (len(every) - 2, len(every))])

    def test_current_cells_from_the_matrix(self):
        with mock.patch.object(plan, "CURRENT_CELLS", (
                "sh", "-c", "echo '4.4.220 x86_64 slub y'; echo '# x'")):
            self.assertEqual(plan.current_cells(),
                             {("4.4.220", "x86_64", "slub", "y")})
        with mock.patch.object(plan, "CURRENT_CELLS",
                               ("sh", "-c", "echo no records >&2; exit 3")):
            with self.assertRaisesRegex(UserError, "no records"):
                plan.current_cells()

    def test_plan_lines(self):
        """# SKIP lines first, then the cells with their estimates: warm
        where built and booted, 0 where the tree lacks the arch; the warm
        ones before the cold."""
        built(cache.path("trees", "linux-4.9.337"), "4.9.999", hardened="n",
              boot_s=12)
        out = io.StringIO()
        args = mock.Mock(cells="ci")
        with contextlib.redirect_stdout(out):
            plan.cmd_plan(args)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[:2], [
            "# SKIP boot-test debian # apt-get install linux-source-6.1",
            "# SKIP boot-test 5.10.1 # no series for branch 5.10"])
        self.assertIn("3.18.140 x86_64 slab y 901", lines)
        self.assertIn("4.9.337 x86_64 slub n 62", lines)
        self.assertIn("4.4.220 i386 slub y 901", lines)
        self.assertIn("4.4.220 s390x slub n 0", lines)
        for line in lines[2:]:
            self.assertRegex(line, r"^\S+ \S+ sl[ua]b [yn] \d+$")
        # The built cells first: a cold build must not crowd them out of
        # make check's budget.
        secs = [int(line.split()[-1]) for line in lines[2:]]
        self.assertLess(secs.index(62), secs.index(901))
        self.assertEqual(secs, sorted(secs, key=lambda s: s >= 901))


class Boot(Base):
    """python3 -m uckit boot: every planned cell, one after another, a
    progress line each, a summary, then the matrix recorded."""

    # A boot-test whose arm cells are n/a and whose s390x cells fail.
    FAKE = """if [ "$2" = arm ]; then
    echo "boot-test: linux-x-arm-slub-hy: N/A (Linux 4.4.220 has no \\
CONFIG_ARCH_VIRT, QEMU's virt board (3.9+))"
    exit 77
fi
if [ "$2" = s390x ]; then
    echo "kbuild: error: build failed"
    exit 1
fi
echo "boot-test: $*: PASS"
"""

    def boot(self, cells, record="true", jobs=1):
        fake = os.path.join(self.tmp, "boot-test.sh")
        write(fake, self.FAKE)
        p = plan.Plan()
        p.cells = [Cell(*c.split()) for c in cells]
        out = io.StringIO()
        with mock.patch.object(plan, "BOOT_TEST", fake), \
                mock.patch.object(plan, "MATRIX_RECORD", (record,)), \
                mock.patch.object(plan, "make_plan", lambda which: p), \
                mock.patch.dict(os.environ, TIMES), \
                contextlib.redirect_stdout(out):
            rc = plan.cmd_boot(mock.Mock(cells="all", jobs=jobs))
        return rc, out.getvalue().splitlines()

    def test_progress_and_summary(self):
        rc, lines = self.boot(["4.4.220 x86_64 slub y", "4.4.220 arm slub y",
                               "4.4.220 s390x slub n"])
        self.assertEqual(rc, 1)
        self.assertRegex(lines[1], r"^\[1/3\] 4\.4\.220 x86_64 slub "
                         r"hardened=y \.\.\. PASS \(\d+ s\)$")
        self.assertRegex(lines[2], r"^\[2/3\] 4\.4\.220 arm slub hardened=y "
                         r"\.\.\. N/A \(\d+ s\): Linux 4\.4\.220 has no "
                         r"CONFIG_ARCH_VIRT")
        self.assertRegex(lines[3], r"^\[3/3\] .* FAIL \(\d+ s\)$")
        self.assertIn("#   kbuild: error: build failed", lines)
        self.assertRegex(lines[-1], r"^boot: 1 passed, 1 failed, 1 n/a of 3 "
                         r"cells in \d+ s$")

    def test_parallel_keeps_a_log_a_cell(self):
        rc, lines = self.boot(["4.4.220 x86_64 slub y", "4.4.220 arm slub y",
                               "4.4.220 s390x slub n", "4.4.221 x86_64 slub y"],
                              jobs=3)
        self.assertEqual(rc, 1)
        logdir = re.search(r"logs in (\S+)$", lines[0]).group(1)
        self.assertEqual(len(os.listdir(logdir)), 4)
        self.assertEqual(sorted(re.sub(r"^\[\d/4\] ", "", l)
                                .split(" ...")[0] for l in lines[1:]
                                if l.startswith("[")),
                         ["4.4.220 arm slub hardened=y",
                          "4.4.220 s390x slub hardened=n",
                          "4.4.220 x86_64 slub hardened=y",
                          "4.4.221 x86_64 slub hardened=y"])
        self.assertRegex(lines[-1], r"^boot: 2 passed, 1 failed, 1 n/a of 4 ")

    def test_all_passed_but_the_matrix_not_recorded(self):
        self.assertEqual(self.boot(["4.4.220 x86_64 slub y"])[0], 0)
        self.assertEqual(self.boot(["4.4.220 x86_64 slub y"],
                                   record="false")[0], 1)


if __name__ == "__main__":
    unittest.main()


class Profiles(unittest.TestCase):
    """Config profiles: ci/configs/NAME.config with a "# profile:" header."""

    def test_every_profile_builds_on_an_allocator_and_has_an_arch(self):
        used = set()
        for name in arch.names():
            for p in arch.get(name).profiles.split():
                self.assertIn(p, profile.names(), name)
                used.add(p)
        # The bench's profile runs under make bench, not as a boot cell.
        if any(arch.get(n).bench == "yes" for n in arch.names()):
            used.add(bench.PROFILE)
        for p in profile.names():
            facts = profile.read(p)
            self.assertIn(facts["include"], profile.ALLOCATORS, p)
            self.assertIn(p, used, "no arch runs profile %s" % p)
        self.assertEqual(profile.choices()[:2], ["slub", "slab"])

    def test_shell_and_errors(self):
        self.assertIn("PROFILE_APPEND='slub_debug=ZP'",
                      profile.shell("slub-debug"))
        self.assertIn("PROFILE_FRAGMENT=''", profile.shell("slab"))
        with self.assertRaisesRegex(UserError, "neither an allocator"):
            profile.read("slob")
