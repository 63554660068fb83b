#!/usr/bin/env python3
"""Unit tests for the uckit package on small fake trees: every error a user
can hit must name the fix, and a failed apply must leave nothing behind."""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from unittest import mock

from helpers import TOP, Base, mini_tree, native_tree

import uckit
from uckit import (apply, cache, cocci, kconfig, macrocheck, patching,
                   rename, series, source)


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
                            "4.4", "alpha", "slub", "y"],
                           capture_output=True, text=True, env=self.env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unsupported ARCH=alpha", r.stderr)
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
        # "A/COND" selects A only where COND holds (arm: with an MMU); a
        # select of A already there, conditional or not, counts
        step = {"group": "hardening", "kind": "select",
                "item": "arch/x86/Kconfig:Z:HAVE_D/MMU", "reason": "test"}
        text = kconfig.step_select(tree, step, before)
        self.assertIn("+\tselect HAVE_D if MMU", text)
        self.assertIn("Subject: hardened usercopy: x86 selects HAVE_D\n",
                      text)
        self.assertIsNone(kconfig.step_select(tree, step, before))
        self.assertEqual(kconfig.audit_select(tree, step),
                         (True, ["audit: wired arch/x86/Kconfig config Z "
                                 "select HAVE_D if MMU"]))

    def test_rename_by_whole_identifier(self):
        # The assembly symbol and its export get the new name; a longer
        # name that starts the same (__copy_to_user_std) is left alone; a
        # second run changes nothing; a tree without the arch is n/a.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        lib = os.path.join(tree, "arch", "arm", "lib")
        os.makedirs(lib)
        os.makedirs(os.path.join(tree, "arch", "arm", "kernel"))
        with open(os.path.join(lib, "copy_to_user.S"), "w") as f:
            f.write("ENTRY(__copy_to_user_std)\nWEAK(__copy_to_user)\n"
                    "ENDPROC(__copy_to_user)\n")
        ksyms = os.path.join(tree, "arch", "arm", "kernel", "armksyms.c")
        with open(ksyms, "w") as f:
            f.write("EXPORT_SYMBOL(__copy_to_user);\n")
        step = {"group": "hardening", "kind": "rename",
                "item": "arch/arm/lib/copy_to_user.S,?arch/arm/lib/"
                        "uaccess.S,arch/arm/kernel/armksyms.c:"
                        "__copy_to_user:arm_copy_to_user",
                "reason": "room for a checked inline wrapper"}
        before = os.path.join(self.tmp, "before")
        text = rename.step_rename(tree, step, before)
        self.assertIn("+WEAK(arm_copy_to_user)", text)
        with open(os.path.join(lib, "copy_to_user.S")) as f:
            self.assertEqual(f.read(), "ENTRY(__copy_to_user_std)\n"
                             "WEAK(arm_copy_to_user)\n"
                             "ENDPROC(arm_copy_to_user)\n")
        self.assertIsNone(rename.step_rename(tree, step, before))
        ok, lines = rename.audit_rename(tree, step)
        self.assertTrue(ok, lines)
        self.assertEqual(len(lines), 2, lines)
        # a required file naming neither symbol: the tree differs
        with open(ksyms, "w") as f:
            f.write("/* __copy_to_user only in a comment */\n")
        with self.assertRaises(uckit.UserError):
            rename.step_rename(tree, step, before)
        self.assertFalse(rename.audit_rename(tree, step)[0])
        step["item"] = "arch/arm64/lib/x.S:__copy_to_user:__arch_copy_to_user"
        self.assertIsNone(rename.step_rename(tree, step, before))
        self.assertIn("n/a", rename.audit_rename(tree, step)[1][0])

    def test_macro_step_checks_before_the_copy(self):
        # MIPS-style statement-expression macros: the check goes after the
        # lines that read the arguments, before the first copy, with the
        # backslash kept at column 72; a second run changes nothing.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        inc = os.path.join(tree, "arch", "mips", "include", "asm")
        os.makedirs(inc)
        body = ["#define __copy_to_user(to, from, n)",
                "({", "\tvoid __user *__cu_to;", "\tconst void *__cu_from;",
                "\tlong __cu_len;", "", "\t__cu_to = (to);",
                "\t__cu_from = (from);", "\t__cu_len = (n);",
                "\tmight_fault();",
                "\t__cu_len = __invoke_copy_to_user(__cu_to, __cu_from, "
                "__cu_len);", "\t__cu_len;"]
        text = "".join(l.ljust(72 if not l.startswith("\t") else 65)
                       .replace(" " * 8, "\t") + "\\\n"
                       for l in body) + "})\n"
        path = os.path.join(inc, "uaccess.h")
        with open(path, "w") as f:
            f.write(text)
        step = {"group": "hardening", "kind": "macro",
                "item": "arch/mips/include/asm/uaccess.h:__copy_to_user=from",
                "reason": "MIPS: call the check from its copy macros"}
        self.assertFalse(macrocheck.audit_macro(tree, step)[0])
        before = os.path.join(self.tmp, "before")
        patch = macrocheck.step_macro(tree, step, before)
        self.assertIn("+\tcheck_object_size(__cu_from, __cu_len, true);"
                      "\t\t\t\\", patch)
        with open(path) as f:
            lines = f.read().splitlines()
        at = lines.index("\tcheck_object_size(__cu_from, __cu_len, true);"
                         "\t\t\t\\")
        self.assertTrue(lines[at - 1].startswith("\t__cu_len = (n);"))
        self.assertIsNone(macrocheck.step_macro(tree, step, before))
        ok, lines = macrocheck.audit_macro(tree, step)
        self.assertTrue(ok, lines)
        self.assertIn("wired arch/mips/include/asm/uaccess.h:1 "
                      "__copy_to_user", lines[0])
        # a macro the tree does not define is an error, not a no-op
        step["item"] = "arch/mips/include/asm/uaccess.h:copy_in_user=to"
        with self.assertRaises(uckit.UserError):
            macrocheck.step_macro(tree, step, before)
        self.assertFalse(macrocheck.audit_macro(tree, step)[0])

    def test_compat_patch_needed_only_where_its_code_is(self):
        # A "Needed-if:" fix whose code the tree lacks is skipped, not
        # failed; where the code is there it applies.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        with open(os.path.join(tree, "Makefile"), "a") as f:
            f.write("# plain\n")
        patch = ("From: x\nSubject: fix\n\nNeeded-if: Makefile "
                 "^FLUSH = on$\n---\n--- a/Makefile\n+++ b/Makefile\n"
                 "@@ -1,1 +1,1 @@\n-FLUSH = on\n+FLUSH = off\n")
        pdir = os.path.join(self.tmp, "patches", "compat")
        os.makedirs(pdir)
        with open(os.path.join(pdir, "flush.patch"), "w") as f:
            f.write(patch)
        step = {"group": "compat", "kind": "patch",
                "item": "compat/flush.patch", "reason": "flush"}
        before = os.path.join(self.tmp, "before")
        with mock.patch.object(patching, "TOP", self.tmp):
            self.assertIsNone(patching.step_patch(tree, step, before))
            self.assertIsNone(patching.not_needed(
                tree, patch.replace("^FLUSH = on$", "plain")))
            # Skip-if: a later sublevel carries the fix in another form
            self.assertIn("already", patching.not_needed(
                tree, patch.replace("Needed-if: Makefile ^FLUSH = on$",
                                    "Skip-if: Makefile plain")))

    def test_unwired_arch_is_reported_never_counted(self):
        # An arch of the tree that no step wires: "unsupported arch",
        # and apply --arch for it says so; a wired arch is named wired.
        tree = mini_tree(os.path.join(self.tmp, "t"))
        os.makedirs(os.path.join(tree, "arch", "alpha"))
        lines = ["audit: wired arch/x86/include/asm/uaccess.h:7 "
                 "copy_from_user",
                 "audit: wired arch/alpha/Kconfig config ALPHA select X"]
        wired, unsupported = apply.coverage(tree, lines)
        self.assertEqual(wired, ["x86"])
        self.assertEqual(unsupported, ["alpha"])
        self.assertEqual(apply.srcarch_of("i386"), "x86")
        self.assertEqual(apply.srcarch_of("alpha"), "alpha")

    def test_tarball_kernel(self):
        tree = mini_tree(os.path.join(self.tmp, "linux-4.4.999"))
        tarball = os.path.join(self.tmp, "linux-4.4.999.tar.xz")
        with tarfile.open(tarball, "w:xz") as t:
            t.add(tree, arcname="linux-4.4.999")
        r = self.run_uckit("info", tarball)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("version=4.4.999", r.stdout)
        self.assertIn("state=none", r.stdout)


class SpatchMemo(Base):
    RULE = ("// Options: --no-includes\nvirtual patch\n"
            "@depends on patch@\n@@\n- foo();\n+ bar();\n")

    def setUp(self):
        super().setUp()
        if not shutil.which("spatch"):
            self.skipTest("spatch not found: apt-get install coccinelle")
        self.tree = os.path.join(self.tmp, "t")
        os.makedirs(self.tree)
        self.rule = os.path.join(self.tmp, "r.cocci")
        with open(self.rule, "w") as f:
            f.write(self.RULE)
        self.write("void f(void)\n{\n\tfoo();\n}\n")

    def write(self, text):
        with open(os.path.join(self.tree, "a.c"), "w") as f:
            f.write(text)

    def test_same_input_reuses_the_answer_changed_input_runs_spatch(self):
        first = cocci.run_spatch(self.tree, self.rule, "patch", ["a.c"])
        self.assertIn("+\tbar();", first)
        real_run = subprocess.run
        calls = []

        def counting_run(cmd, *a, **kw):
            calls.append(cmd)
            return real_run(cmd, *a, **kw)

        with mock.patch("uckit.cocci.subprocess.run", counting_run):
            again = cocci.run_spatch(self.tree, self.rule, "patch", ["a.c"])
            self.assertEqual(again, first)
            self.assertEqual(calls, [])
            # Another input file content: spatch runs, the answer differs.
            self.write("void f(void)\n{\n\tfoo();\n\tfoo();\n}\n")
            changed = cocci.run_spatch(self.tree, self.rule, "patch",
                                       ["a.c"])
            self.assertEqual(len(calls), 1)
            self.assertEqual(changed.count("+\tbar();"), 2)
            # UC_SPATCH_MEMO=0 always runs it.
            with mock.patch.dict(os.environ, UC_SPATCH_MEMO="0"):
                cocci.run_spatch(self.tree, self.rule, "patch", ["a.c"])
            self.assertEqual(len(calls), 2)


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
                if s["kind"] == "macro":
                    rel, names = macrocheck.parse_macro(s["item"])
                    self.assertTrue(rel.startswith("arch/") and names, s)
                    continue
                if s["kind"] == "rename":
                    files, old, new = rename.parse_rename(s["item"])
                    self.assertTrue(all(f.startswith("arch/")
                                        for f, _ in files), s)
                    continue
                base = {"file": "patches/files", "patch": "patches",
                        "cocci": "cocci"}[s["kind"]]
                self.assertTrue(os.path.isfile(os.path.join(TOP, base,
                                                            s["item"])),
                                "%s: %s" % (branch, s["item"]))

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
