#!/usr/bin/env python3
"""Unit tests for the uckit package on small fake trees: every error a user can
hit must name the fix, and a failed apply must leave nothing behind.
Prints KTAP."""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)
import uckit  # noqa: E402
from uckit import arch, cache, cocci, kconfig, patching  # noqa: E402
from uckit import series, source  # noqa: E402


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
    """ci/boot-test.sh's cache key of a tree: the version and a hash of
    the tree's path."""
    treeid = subprocess.run(["sha256sum"], input=tree, capture_output=True,
                            text=True).stdout[:8]
    return "linux-%s-%s" % (version, treeid)


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


class Errors(Base):
    def test_unknown_version_names_known_branches(self):
        r = self.run_uckit("info", "9.9.1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown kernel version '9.9.1'", r.stderr)
        self.assertIn("4.4", r.stderr)

    def test_garbage_kernel_argument(self):
        r = self.run_uckit("info", "not-a-kernel")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a known version, an existing path or 'debian'",
                      r.stderr)

    def test_missing_spatch_names_debian_package(self):
        tree = mini_tree(os.path.join(self.tmp, "t"))
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        os.symlink(sys.executable, os.path.join(bindir, "python3"))
        env = dict(self.env, PATH=bindir)
        r = self.run_uckit("audit", tree, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("spatch not found", r.stderr)
        self.assertIn("apt-get install coccinelle", r.stderr)

    def test_checksum_mismatch(self):
        tarballs = os.path.join(cache.root(), "tarballs")
        os.makedirs(tarballs)
        with open(os.path.join(tarballs, "linux-4.4.1.tar.xz"), "w") as f:
            f.write("not a kernel")
        man = {"sha256-4.4.1": "0" * 64, "url": "file:///nonexistent"}
        with self.assertRaises(uckit.UserError) as cm:
            source.fetch_version("4.4.1", man)
        self.assertIn("checksum mismatch", str(cm.exception))
        self.assertIn("Delete it and retry", str(cm.exception))

    def test_offline_download_names_alternatives(self):
        man = {"sha256-4.4.2": "0" * 64,
               "url": "file:///nonexistent/linux-{version}.tar.xz"}
        with self.assertRaises(uckit.UserError) as cm:
            source.fetch_version("4.4.2", man)
        msg = str(cm.exception)
        self.assertIn("cannot be downloaded", msg)
        self.assertIn("KERNEL=debian", msg)
        self.assertIn(".tar.xz", msg)

    def test_unverifiable_download_refused(self):
        tarballs = os.path.join(cache.root(), "tarballs")
        os.makedirs(tarballs)
        with open(os.path.join(tarballs, "linux-4.4.3.tar.xz"), "w") as f:
            f.write("x")
        with self.assertRaises(uckit.UserError) as cm:
            source.fetch_version("4.4.3", {"url": "file:///x"})
        self.assertIn("refusing an unverified download", str(cm.exception))

    def test_version_of_a_package_only_branch(self):
        # kernels/6.1 has no URL: an explicit 6.1.N that is not Debian's
        # package names KERNEL=debian instead of failing on a missing key.
        man = {"default": "debian", "source": "debian package"}
        with mock.patch.object(source.glob, "glob", return_value=[]), \
                self.assertRaises(uckit.UserError) as cm:
            source.fetch_version("6.1.1", man)
        self.assertIn("names no download", str(cm.exception))
        self.assertIn("KERNEL=debian", str(cm.exception))

    def test_first_release_uses_kernel_org_name(self):
        # kernel.org publishes 3.16.0 as linux-3.16.tar.xz (top dir
        # linux-3.16); the cache keeps it as linux-3.16.0.
        src = os.path.join(self.tmp, "src")
        mini_tree(os.path.join(src, "linux-4.99"), sublevel=0, patchlevel=99)
        tarball = os.path.join(self.tmp, "linux-4.99.tar.xz")
        with tarfile.open(tarball, "w:xz") as tar:
            tar.add(os.path.join(src, "linux-4.99"), arcname="linux-4.99")
        man = {"sha256-4.99.0": source.sha256_of(tarball),
               "url": "file://" + self.tmp + "/linux-{version}.tar.xz"}
        tree = source.fetch_version("4.99.0", man)
        self.assertEqual(os.path.basename(tree), "linux-4.99.0")
        self.assertEqual(source.tree_version(tree), "4.99.0")

    def test_branch_without_series(self):
        tree = mini_tree(os.path.join(self.tmp, "t"), patchlevel=99)
        r = self.run_uckit("apply", tree, os.path.join(self.tmp, "out"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no series for Linux 4.99.999", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))

    def test_out_not_empty(self):
        tree = mini_tree(os.path.join(self.tmp, "t"))
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        open(os.path.join(out, "x"), "w").close()
        r = self.run_uckit("apply", tree, out)
        self.assertEqual(r.returncode, 1)
        self.assertIn("exists and is not empty", r.stderr)

    def test_unsupported_arch(self):
        r = subprocess.run(["bash", os.path.join(TOP, "ci", "boot-test.sh"),
                            "4.4", "mips", "slub", "y"],
                           capture_output=True, text=True, env=self.env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unsupported ARCH=mips", r.stderr)
        self.assertIn("x86_64", r.stderr)


class Apply(Base):
    def test_failed_step_leaves_nothing(self):
        tree = mini_tree(os.path.join(self.tmp, "t"))
        out = os.path.join(self.tmp, "out")
        r = self.run_uckit("apply", tree, out)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r"step \d+ \((compat|hardening) patch ")
        self.assertFalse(os.path.exists(out))
        self.assertEqual([e for e in os.listdir(self.tmp)
                          if e.startswith(".uc-")], [])
        # and the source tree is untouched
        self.assertFalse(os.path.exists(os.path.join(tree, "mm",
                                                     "usercopy.c")))

    def test_partial_tree_is_refused(self):
        tree = mini_tree(os.path.join(self.tmp, "t"))
        open(os.path.join(tree, "mm", "usercopy.c"), "w").close()
        r = self.run_uckit("apply", tree, os.path.join(self.tmp, "out"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("carries part of hardened usercopy", r.stderr)
        self.assertIn("pristine", r.stderr)

    def test_native_tree_is_left_alone(self):
        tree = native_tree(os.path.join(self.tmp, "t"))
        out = os.path.join(self.tmp, "out")
        r = self.run_uckit("apply", tree, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("already hardened (native), unchanged", r.stdout)
        d = subprocess.run(["diff", "-r", tree, out])
        self.assertEqual(d.returncode, 0)
        r = self.run_uckit("export", tree, os.path.join(self.tmp, "s"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("already hardened (native)", r.stderr)

    def test_patch_for_an_absent_arch_is_na(self):
        # arm64 before 3.7: its Kconfig patch is "n/a", not a failure;
        # a patch that also touches common files still has to apply.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        self.assertEqual(patching.absent_arch(tree, ["arch/arm64/Kconfig"]),
                         "arm64")
        self.assertIsNone(patching.absent_arch(tree, ["arch/x86/Kconfig"]))
        self.assertIsNone(patching.absent_arch(tree, ["arch/arm64/Kconfig",
                                                   "mm/Makefile"]))

    def test_deleting_patch_is_applied_not_skipped(self):
        # A compat patch that only deletes a line reverse-applies almost
        # anywhere with fuzz; it must still be applied where it applies.
        top = os.path.join(self.tmp, "top")
        os.makedirs(os.path.join(top, "patches", "compat"))
        tree = mini_tree(os.path.join(self.tmp, "t"))
        body = "#include <a.h>\n#include <b.h>\n\n%s\n/* more */\n" \
            "#define X 1\n\nint y;\n\nint z;\n"
        with open(os.path.join(tree, "lex.c"), "w") as f:
            f.write(body % "int yylloc;\n")
        with open(os.path.join(top, "patches", "compat", "d.patch"),
                  "w") as f:
            f.write("Subject: drop yylloc\n---\n--- a/lex.c\n+++ b/lex.c\n"
                    "@@ -2,5 +2,4 @@\n #include <b.h>\n \n-int yylloc;\n"
                    " \n /* more */\n")
        step = {"group": "compat", "kind": "patch", "item": "compat/d.patch",
                "reason": "test"}
        before = os.path.join(self.tmp, "before")
        with mock.patch.object(patching, "TOP", top):
            self.assertIsNotNone(patching.step_patch(tree, step, before))
            with open(os.path.join(tree, "lex.c")) as f:
                self.assertNotIn("yylloc", f.read())
            # applied once, the same step is "already in this tree"
            self.assertIsNone(patching.step_patch(tree, step, before))

    def test_select_lands_in_its_entry_only(self):
        # The entry named, not the first one fuzz accepts (X86_64 had
        # taken x86's selects on 3.10-4.1); a second apply adds nothing.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        kc = os.path.join(tree, "arch", "x86", "Kconfig")
        with open(kc, "w") as f:
            f.write("config 64BIT\n\tbool\n\nconfig X86_64\n"
                    "\tdef_bool y\n\tselect FOO\n\nconfig X86\n"
                    "\tdef_bool y\n\tselect BAR\n\nconfig Z\n\tbool\n")
        step = {"group": "hardening", "kind": "select",
                "item": "arch/x86/Kconfig:X86:HAVE_A,HAVE_B",
                "reason": "x86 selects the feature"}
        before = os.path.join(self.tmp, "before")
        text = kconfig.step_select(tree, step, before)
        self.assertIn("+\tselect HAVE_A", text)
        self.assertIn("Subject: hardened usercopy: x86 selects", text)
        with open(kc) as f:
            got = f.read()
        self.assertIn("config X86\n\tdef_bool y\n\tselect HAVE_A\n"
                      "\tselect HAVE_B\n\tselect BAR\n", got)
        self.assertIn("config X86_64\n\tdef_bool y\n\tselect FOO\n\n",
                      got)
        self.assertIsNone(kconfig.step_select(tree, step, before))
        ok, lines = kconfig.audit_select(tree, step)
        self.assertTrue(ok, lines)
        # an entry the tree does not have is an error, not a guess
        step["item"] = "arch/x86/Kconfig:X86_32:HAVE_A"
        with self.assertRaises(uckit.UserError):
            kconfig.step_select(tree, step, before)
        self.assertFalse(kconfig.audit_select(tree, step)[0])
        # an arch the tree lacks is n/a
        step["item"] = "arch/arm64/Kconfig:ARM64:HAVE_A"
        self.assertIsNone(kconfig.step_select(tree, step, before))
        # and so is one whose copy routines are not where the wiring is
        step["item"] = "arch/x86/Kconfig:X86:HAVE_C:arch/x86/lib/uaccess.c"
        self.assertIsNone(kconfig.step_select(tree, step, before))
        self.assertIn("n/a", kconfig.audit_select(tree, step)[1][0])
        # a compat select (a QEMU board's console) says it is compat
        step = {"group": "compat", "kind": "select",
                "item": "arch/x86/Kconfig:Z:SERIAL_BUS",
                "reason": "the board's console needs its bus"}
        text = kconfig.step_select(tree, step, before)
        self.assertIn("Subject: toolchain/QEMU compat: x86 selects "
                      "SERIAL_BUS", text)

    def test_tarball_kernel(self):
        tree = mini_tree(os.path.join(self.tmp, "linux-4.4.999"))
        tarball = os.path.join(self.tmp, "linux-4.4.999.tar.xz")
        with tarfile.open(tarball, "w:xz") as t:
            t.add(tree, arcname="linux-4.4.999")
        r = self.run_uckit("info", tarball)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("version=4.4.999", r.stdout)
        self.assertIn("state=none", r.stdout)


class Repo(unittest.TestCase):
    def test_every_series_step_exists(self):
        for branch in os.listdir(os.path.join(TOP, "series")):
            ver = branch + ".0"
            _, steps = series.series_for(ver)
            self.assertTrue(steps, branch)
            for s in steps:
                if s["kind"] == "select":
                    rel, sym, names = kconfig.parse_select(s["item"])
                    self.assertTrue(rel.startswith("arch/") and names, s)
                    continue
                base = {"file": "patches/files", "patch": "patches",
                        "cocci": "cocci"}[s["kind"]]
                self.assertTrue(os.path.isfile(os.path.join(TOP, base,
                                                            s["item"])),
                                "%s: %s" % (branch, s["item"]))

    def test_readme_matrix_is_make_matrix(self):
        # The support matrix in the README is ci/matrix.sh's output for
        # the committed records (no local results), never hand-edited.
        empty = tempfile.mkdtemp(prefix="uc-results-")
        self.addCleanup(shutil.rmtree, empty, True)
        env = dict(os.environ)
        env.pop("UC_MATRIX_RECORDS", None)
        out = subprocess.run(["bash", os.path.join(TOP, "ci", "matrix.sh"),
                              empty], capture_output=True, text=True,
                             env=env, check=True).stdout
        with open(os.path.join(TOP, "README.md")) as f:
            readme = f.read()
        self.assertIn(out.strip(), readme,
                      "README's matrix is not ci/matrix.sh's output for "
                      "kernels/matrix.tsv: make matrix-record rewrites it")

    def test_include_of_one_group(self):
        # 3.10 takes 4.4's hardening, not the compat fix for 4.4.178's
        # dtc (its own dtc fix comes first and the 4.4 one would fail).
        items = [s["item"] for s in series.read_series("3.10")]
        four = series.read_series("4.4")
        self.assertIn("compat/dtc-lexer-yylloc-fno-common-4.4.patch",
                      [s["item"] for s in four])
        self.assertNotIn("compat/dtc-lexer-yylloc-fno-common-4.4.patch",
                         items)
        for s in four:
            if s["group"] == "hardening":
                self.assertIn(s["item"], items)
        # A group the other series lacks is an error, not nothing.
        tmp = tempfile.mkdtemp(prefix="uc-series-")
        self.addCleanup(shutil.rmtree, tmp, True)
        os.makedirs(os.path.join(tmp, "series"))
        with open(os.path.join(tmp, "series", "9.1"), "w") as f:
            f.write("compat patch compat/x.patch a reason\n")
        with open(os.path.join(tmp, "series", "9.0"), "w") as f:
            f.write("include 9.1 hardening\n")
        with mock.patch.object(series, "TOP", tmp), \
                self.assertRaisesRegex(uckit.UserError,
                                       "series/9.1 has no hardening steps"):
            series.read_series("9.0")

    def test_every_branch_has_a_manifest(self):
        for branch in os.listdir(os.path.join(TOP, "series")):
            self.assertTrue(os.path.isfile(os.path.join(TOP, "kernels",
                                                        branch)), branch)

    def test_semantic_patches_declare_targets_and_audit(self):
        cdir = os.path.join(TOP, "cocci")
        for name in os.listdir(cdir):
            if not name.endswith(".cocci"):
                continue
            path = os.path.join(cdir, name)
            desc, options, targets = cocci.cocci_header(path)
            self.assertTrue(desc, name)
            self.assertTrue(targets, name)
            text = open(path).read()
            self.assertIn("virtual report", text, name)
            self.assertIn("audit:", text, name)
            self.assertTrue(os.path.isdir(os.path.join(cdir, "tests",
                                                       name[:-6])),
                            "%s has no rule test" % name)


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


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    print("KTAP version 1")
    print("1..%d" % suite.countTestCases())
    runner = unittest.TextTestRunner(resultclass=KtapResult,
                                     stream=open(os.devnull, "w"))
    res = runner.run(suite)
    sys.exit(0 if res.wasSuccessful() else 1)
