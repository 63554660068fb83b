#!/usr/bin/env python3
"""Expectation files (which ones a kernel build reads, and their merge),
the guest's report and the verdicts: uckit/expect.py, and ci/boot.sh
--print-expectations on fake build directories."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import TOP  # noqa: E402

import uckit  # noqa: E402
from uckit import expect  # noqa: E402


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
        self.assertEqual(files, ["default", "text-alias", "since-3.5",
                                 "since-3.19"])
        # the replayed syslog bug: refused before 3.5 (byte-stream
        # printk), stopped on the backports, either on the natives
        self.assertEqual(want["bug_syslog_partial_leak"],
                         "killed exposure slab")
        self.assertEqual(want["text_alias_to_user"], "killed exposure text")
        self.assertEqual(want["iter_overflow_to_user"],
                         "killed exposure slab")
        self.assertEqual(want["stack_frame_to_user"],
                         "killed exposure stack")
        # Where a case cannot run, the tables say n/a: no iov_iter before
        # 3.19, no text alias outside x86_64, no vm86 without CONFIG_VM86.
        _, want = self.expect("x86_64", "3.18.140", [])
        self.assertEqual(want["iter_overflow_to_user"], "n/a")
        _, want = self.expect("arm64", "4.4.220", [])
        self.assertEqual(want["text_alias_to_user"], "n/a")
        self.assertEqual(want["vm86_return"], "n/a")
        # 4.9 s390x checks constant sizes (out of line), 4.14 does not.
        _, want = self.expect("s390x", "4.9.337", [])
        self.assertEqual(want["bug_syslog_partial_leak"],
                         "killed exposure slab or refused")
        self.assertEqual(want["const_size_to_user"], "killed exposure text")
        _, want = self.expect("s390x", "4.14.280", [])
        self.assertEqual(want["const_size_to_user"], "survived")
        # Before 3.15 s390's routines are inline: constant sizes stay
        # constant (ARCH_EXPECT's const-size-out-of-line@3.15).
        files, want = self.expect("s390x", "3.14.65", [])
        _, old = self.expect("x86_64", "3.4.113", [])
        self.assertEqual(old["bug_syslog_partial_leak"], "refused")
        self.assertNotIn("const-size-out-of-line", files)
        self.assertEqual(want["const_size_to_user"], "survived")
        files, want = self.expect("s390x", "3.16.0", [])
        self.assertIn("const-size-out-of-line", files)
        # The control lets every violation through, but arm oopses on
        # bad kernel pointers inside its copy routine.
        _, want = self.expect("arm", "4.4.220", [], hardened="n")
        self.assertEqual(want["slab_overflow_to_user"], "survived")
        self.assertEqual(want["null_to_user"], "killed")


class Tmp(unittest.TestCase):
    """A temporary directory and files written into it as bytes."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uc-expect-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text.encode("latin-1"))
        return path

    def kbuild(self, release=None, config=None, name="kb"):
        """A fake build directory: kernel.release and .config, if given."""
        kb = os.path.join(self.tmp, name)
        os.makedirs(kb)
        if release is not None:
            self.write(os.path.join(name, "include", "config",
                                    "kernel.release"), release + "\n")
        if config is not None:
            self.write(os.path.join(name, ".config"),
                       "".join(c + "\n" for c in config))
        return kb


class Merge(Tmp):
    """The merge of the expectation tables."""

    def merge(self, *texts):
        return expect.merge([self.write("t%d" % i, t)
                             for i, t in enumerate(texts)])

    def test_later_files_override_and_equals_keeps(self):
        rows = self.merge("a | killed | survived  # first\n"
                          "b | survived | survived # b\n",
                          "a | = | killed\n"
                          "b | killed exposure slab | =  # second\n")
        self.assertEqual(rows, [("a", "killed", "killed", "first"),
                                ("b", "killed exposure slab", "survived",
                                 "second")])

    def test_order_of_first_appearance(self):
        rows = self.merge("b | x | y\n", "c | x | y\na | x | y\nb | z | =\n")
        self.assertEqual([r[0] for r in rows], ["b", "c", "a"])
        self.assertEqual(rows[0], ("b", "z", "y", ""))

    def test_equals_on_a_new_case_is_empty(self):
        self.assertEqual(self.merge("new | = | survived\n"),
                         [("new", "", "survived", "")])

    def test_blanks_squeezed_comments_and_requires_skipped(self):
        rows = self.merge("# a comment | with | bars\n\n   \t\n"
                          "requires CONFIG_X\nrequires\tCONFIG_Y\n"
                          "\tslab  case |  killed \t exposure   slab | "
                          "survived #  two   words  # more\n")
        self.assertEqual(rows, [("slab case", "killed exposure slab",
                                 "survived", "two words # more")])

    def test_bytes_and_carriage_returns_pass_through(self):
        rows = self.merge("c | x | y\r\nd | \xe9 | y # caf\xc3\xa9\n")
        self.assertEqual(rows, [("c", "x", "y\r", ""),
                                ("d", "\xe9", "y", "caf\xc3\xa9")])

    def test_last_line_without_newline(self):
        self.assertEqual(self.merge("a | x | y"), [("a", "x", "y", "")])

    def test_malformed_lines_name_file_and_line(self):
        path = self.write("bad", "ok | a | b\n# fine\nbad | a\n"
                          "worse | a | b | c\nrequires\n")
        with self.assertRaises(uckit.UserError) as cm:
            expect.merge([path])
        msg = str(cm.exception)
        for n in (3, 4, 5):
            self.assertIn("%s:%d: expected CASE | HARDENED | NOT HARDENED"
                          % (path, n), msg)
        self.assertNotIn("%s:1:" % path, msg)
        self.assertIn("tests/guest/expect/default describes the format", msg)

    def test_table_text(self):
        text = expect.table_text(["/x/default", "/y/since-4.13"],
                                 [("a", "x", "y", ""), ("b", "", "z", "n")])
        self.assertEqual(text, "# expectations: default since-4.13 \n"
                         "a\tx\ty\t\nb\t\tz\tn\n")

    def test_read_table_skips_the_header(self):
        path = self.write("t.tsv", "# expectations: default \n"
                          "a\tx\ty\t\nb\t\tz\tn\n")
        self.assertEqual(expect.read_table(path),
                         [["a", "x", "y", ""], ["b", "", "z", "n"]])


class Choice(Tmp):
    """The choice of files, on a fake tests/guest/expect and build."""

    def setUp(self):
        super().setUp()
        self.dir = os.path.join(self.tmp, "expect")
        for name in ("default", "arch-a", "arch-b", "since-4.9",
                     "since-4.13", "since-5.19", "since-4.10"):
            self.write(os.path.join("expect", name), "x | y | z\n")

    def names(self, kb, words="arch-a", extra=(), arch="x86_64"):
        return [os.path.basename(p) for p in
                expect.choose_files(self.dir, arch, words, kb, extra)]

    def test_version_key_is_numeric(self):
        versions = ["5.19", "4.13", "4.9", "4.10", "10.0", "4.9.1"]
        self.assertEqual(sorted(versions, key=expect.version_key),
                         ["4.9", "4.9.1", "4.10", "4.13", "5.19", "10.0"])
        self.assertTrue(expect.since("4.9", "4.13"))
        self.assertTrue(expect.since("4.13", "4.13"))
        self.assertFalse(expect.since("4.13", "4.9"))

    def test_kernel_branch(self):
        self.assertEqual(expect.kernel_branch(self.kbuild("4.19.255-uc1")),
                         "4.19")
        self.assertEqual(expect.kernel_branch(self.kbuild(name="none")), "")

    def test_since_in_version_order_up_to_the_branch(self):
        self.assertEqual(self.names(self.kbuild("6.1.0", [])),
                         ["default", "arch-a", "since-4.9", "since-4.10",
                          "since-4.13", "since-5.19"])
        self.assertEqual(self.names(self.kbuild("4.13.0", [], "k2")),
                         ["default", "arch-a", "since-4.9", "since-4.10",
                          "since-4.13"])
        self.assertEqual(self.names(self.kbuild("4.4.1", [], "k3")),
                         ["default", "arch-a"])

    def test_no_release_reads_no_since_file(self):
        self.assertEqual(self.names(self.kbuild(), "arch-a arch-b"),
                         ["default", "arch-a", "arch-b"])

    def test_arch_file_from_a_version_on(self):
        words = "arch-a arch-b@4.13"
        self.assertEqual(self.names(self.kbuild("4.10.3", [], "k1"), words),
                         ["default", "arch-a", "since-4.9", "since-4.10"])
        self.assertIn("arch-b", self.names(self.kbuild("4.13", [], "k2"),
                                           words))
        self.assertIn("arch-b", self.names(self.kbuild("5.4.1", [], "k3"),
                                           words))

    def test_arch_file_from_a_version_needs_the_release(self):
        with self.assertRaises(uckit.UserError) as cm:
            self.names(self.kbuild(), "arch-b@4.13", arch="s390x")
        msg = str(cm.exception)
        self.assertIn("arch-b@4.13 (uckit/arches/s390x.ini) holds from 4.13 "
                      "on", msg)
        self.assertIn("no include/config/kernel.release", msg)

    def test_missing_arch_file_names_the_ini(self):
        with self.assertRaises(uckit.UserError) as cm:
            self.names(self.kbuild("4.4.1", []), "nonesuch", arch="arm")
        self.assertIn('fix "expect =" in uckit/arches/arm.ini',
                      str(cm.exception))

    def test_extra_files_last_in_order(self):
        one = self.write("one", "x | y | z\n")
        two = self.write("two", "x | y | z\n")
        self.assertEqual(self.names(self.kbuild("4.4.1"), "", (two, one)),
                         ["default", "two", "one"])

    def test_missing_extra_file(self):
        with self.assertRaises(uckit.UserError) as cm:
            self.names(self.kbuild("4.4.1"), "", (self.tmp + "/nope",))
        self.assertIn("no expectation file %s/nope" % self.tmp,
                      str(cm.exception))

    def test_requires_every_symbol_set_to_y(self):
        self.write("expect/since-5.19",
                   "requires CONFIG_A\nrequires\tCONFIG_B\nx | y | z\n")
        extra = self.write("extra", "requires CONFIG_C\nx | y | z\n")
        both = ["CONFIG_A=y", "CONFIG_B=y", "# CONFIG_C is not set"]
        self.assertEqual(self.names(self.kbuild("6.1", both), "", [extra]),
                         ["default", "since-4.9", "since-4.10", "since-4.13",
                          "since-5.19"])
        for n, config in enumerate((["CONFIG_A=y"], ["CONFIG_A=m",
                                                     "CONFIG_B=y"], [])):
            names = self.names(self.kbuild("6.1", config, "k%d" % n), "")
            self.assertNotIn("since-5.19", names)
        names = self.names(self.kbuild("6.1", both + ["CONFIG_C=y"], "kc"),
                           "", [extra])
        self.assertEqual(names[-2:], ["since-5.19", "extra"])

    def test_requires_without_config(self):
        extra = self.write("extra", "requires CONFIG_C\nx | y | z\n")
        # A file without requirements needs no .config.
        self.assertEqual(self.names(self.kbuild("4.4.1"), "arch-a"),
                         ["default", "arch-a"])
        with self.assertRaises(uckit.UserError) as cm:
            self.names(self.kbuild("4.4.1", name="k2"), "", [extra])
        self.assertIn("extra requires CONFIG_C, but %s/k2 has no .config "
                      "to tell" % self.tmp, str(cm.exception))

    def test_choose_reads_the_arch_ini(self):
        kb = self.kbuild("3.16.0", [])
        names = [os.path.basename(p) for p in expect.choose("s390x", kb)]
        self.assertEqual(names, ["default", "no-frame-walker",
                                 "const-size-out-of-line", "since-3.5"])
        with self.assertRaises(uckit.UserError):
            expect.choose("vax", kb)
        with self.assertRaises(uckit.UserError) as cm:
            expect.choose("s390x", os.path.join(self.tmp, "nope"))
        self.assertIn("no kernel build directory", str(cm.exception))


KTAP = ("KTAP version 1\n# uc_selftest: kernel 4.4.220\n1..3\n"
        "# obs: a killed exposure slab\n# a: usercopy: detected\nok 1 a\n"
        "# obs: b survived\nok 2 b\n")
DONE = "# totals: 2 of 2 observed\n# UC-SUITE-DONE\n"


class Report(Tmp):
    """The guest's report: KTAP lines, from the second serial port first."""

    def test_extract_ktap(self):
        console = ("SeaBIOS\r\n# before the header\r\nok 0 early\r\n"
                   "KTAP version 1\r\n[    1.0] usercopy: kernel line\r\n"
                   "# obs: a survived\r\n  # indented\r\nok 1 a\r\n"
                   "not ok 2 b\r\n1..2\r\nBail out! no module\r\n"
                   "random\r\n# UC-SUITE-DONE")
        self.assertEqual(expect.extract_ktap(console),
                         "KTAP version 1\n# obs: a survived\nok 1 a\n"
                         "not ok 2 b\n1..2\nBail out! no module\n"
                         "# UC-SUITE-DONE\n")
        self.assertEqual(expect.extract_ktap("ok 1 a\n# x\n"), "")

    def test_serial_first_then_console(self):
        serial = self.write("serial", KTAP + DONE)
        console = self.write("console", "boot\n" + KTAP + DONE)
        partial = self.write("partial", KTAP)
        empty = self.write("empty", "")
        self.assertEqual(expect.guest_report(serial, console),
                         (KTAP + DONE, "serial"))
        self.assertEqual(expect.guest_report(empty, console),
                         (KTAP + DONE, "console"))
        self.assertEqual(expect.guest_report(partial, console),
                         (KTAP + DONE, "console"))
        # Neither finished: the serial port's, even empty.
        self.assertEqual(expect.guest_report(empty, partial), ("", "serial"))
        self.assertEqual(expect.guest_report(partial, partial),
                         (KTAP, "serial"))
        self.assertEqual(expect.guest_report(self.tmp + "/none", console),
                         (KTAP + DONE, "console"))

    def test_observations(self):
        report = ("# obs: a killed exposure slab  \t\n# obs: b survived\n"
                  "# obs: a survived\n# obs: c \n# obs: d\n#obs: e x\n"
                  "# obs: t\tab x\n")
        self.assertEqual(expect.observations(report),
                         {"a": "killed exposure slab", "b": "survived",
                          "c": "", "t": "ab"})

    def test_last_console_line(self):
        console = ('\r\n[   12.3]  Kernel  panic\t- "not syncing": a\\b\r\n'
                   "qemu-system-x86_64: terminating on signal 15\n \t\n\n")
        self.assertEqual(expect.last_console_line(console),
                         "[ 12.3] Kernel panic - not syncing: ab")
        self.assertEqual(expect.last_console_line("x" * 70 + "\n"), "x" * 60)
        # Cut first, then the quotes go: fewer than 60 remain.
        self.assertEqual(expect.last_console_line('"' * 10 + "y" * 60),
                         "y" * 50)
        self.assertEqual(expect.last_console_line("a qemu-system-arm: b\n"),
                         "a")
        self.assertEqual(expect.last_console_line("\n \n"), "")


ROWS = [["a", "killed exposure slab", "survived", "slab"],
        ["b", "survived", "survived", "legit"],
        ["s", "skip", "skip", "not here"],
        ["t", "skip", "killed", ""]]
HEAD = "KTAP version 1\n# uc_selftest on arm, hardened=%s\n1..%d\n"


class Verdicts(unittest.TestCase):
    """The verdicts: every case of the table against the observations."""

    def verdicts(self, obs, hardened="y", done=True, qemu_rc=0, last=""):
        return expect.verdicts(ROWS, hardened, obs, done, "arm", qemu_rc,
                               last)

    def test_all_ok_with_skips(self):
        text, failed = self.verdicts({"a": "killed exposure slab",
                                      "b": "survived", "s": "killed"})
        self.assertEqual(text, HEAD % ("y", 5) +
                         "ok 1 guest_suite_completed\n"
                         "ok 2 a # killed exposure slab\n"
                         "ok 3 b # survived\n"
                         "ok 4 s # SKIP not here\n"
                         "ok 5 t # SKIP \n"
                         "# 0 of 5 failed\n")
        self.assertEqual(failed, 0)

    def test_not_hardened_column(self):
        text, failed = self.verdicts({"a": "survived", "b": "survived",
                                      "t": "killed"}, hardened="n")
        self.assertIn("ok 2 a # survived\n", text)
        self.assertIn("ok 5 t # killed\n", text)
        self.assertTrue(text.startswith(HEAD % ("n", 5)))
        self.assertEqual(failed, 0)

    def test_boot_modes(self):
        # hardened_usercopy=warn: the report without the kill; a kill is
        # then a failure, and so is silence.
        warn = ROWS + [["c", "killed exposure stack or refused", "survived",
                        ""], ["d", "killed", "survived", "plain oops"],
                       ["e", "killed exposure null", "killed", "faults"]]
        text, failed = expect.verdicts(
            warn, "y", {"a": "survived exposure slab", "b": "survived",
                        "c": "refused", "d": "killed",
                        "e": "killed exposure null"}, True, "arm", 0, "",
            mode="warn")
        self.assertIn("hardened=y, hardened_usercopy=warn\n", text)
        self.assertIn("ok 2 a # survived exposure slab\n", text)
        self.assertIn("ok 6 c # refused\n", text)
        self.assertIn("ok 7 d # killed\n", text)
        # Where the control's copy faults, the warned copy does too.
        self.assertIn("ok 8 e # killed exposure null\n", text)
        self.assertEqual(failed, 0)
        self.assertEqual(expect.warn_mode("killed overwrite slab or "
                                          "killed exposure stack",
                                          "survived"),
                         "survived overwrite slab or survived exposure "
                         "stack")
        self.assertEqual(expect.warn_mode("killed exposure null",
                                          "survived or killed"),
                         "survived exposure null or killed exposure null")
        _, failed = expect.verdicts(ROWS, "y", {"a": "killed exposure slab",
                                                "b": "survived"},
                                    True, "arm", 0, "", mode="warn")
        self.assertEqual(failed, 1)
        # off: what the control does.
        text, failed = expect.verdicts(ROWS, "y", {"a": "survived",
                                                   "b": "survived",
                                                   "t": "killed"},
                                       True, "arm", 0, "", mode="off")
        self.assertIn("ok 2 a # survived\n", text)
        self.assertEqual(failed, 0)

    def test_mismatch(self):
        text, failed = self.verdicts({"a": "survived", "b": "survived"})
        self.assertIn('not ok 2 a # expected "killed exposure slab", '
                      'observed "survived"\n', text)
        self.assertTrue(text.endswith("# 1 of 5 failed\n"))
        self.assertEqual(failed, 1)

    def test_n_a_only_where_expected(self):
        # A case that could not run where it should have is a failure.
        text, failed = self.verdicts({"a": "n/a", "b": "survived"})
        self.assertIn('not ok 2 a # expected "killed exposure slab", '
                      'observed "n/a" (the case did not run)\n', text)
        self.assertEqual(failed, 1)
        ok, note = expect.case_verdict("n/a", "", "n/a")
        self.assertTrue(ok)
        self.assertIn("SKIP n/a", note)
        ok, _ = expect.case_verdict("n/a", "", "survived")
        self.assertFalse(ok)

    def test_not_observed(self):
        text, failed = self.verdicts({"b": "survived"})
        self.assertIn('not ok 2 a # expected "killed exposure slab", '
                      'not observed\n', text)
        self.assertEqual(failed, 1)

    def test_observed_empty_is_observed(self):
        text, _ = self.verdicts({"a": "", "b": "survived"})
        self.assertIn('not ok 2 a # expected "killed exposure slab", '
                      'observed ""\n', text)

    def test_observation_without_expectation(self):
        text, failed = self.verdicts({"z": "killed", "a":
                                      "killed exposure slab",
                                      "b": "survived", "y": "survived"})
        self.assertTrue(text.startswith(HEAD % ("y", 7)))
        self.assertTrue(text.endswith(
            'ok 5 t # SKIP \n'
            'not ok 6 z # no expectation, observed "killed"\n'
            'not ok 7 y # no expectation, observed "survived"\n'
            "# 2 of 7 failed\n"))
        self.assertEqual(failed, 2)

    def test_timed_out(self):
        text, failed = self.verdicts({"a": "killed exposure slab"},
                                     done=False, qemu_rc=124,
                                     last="Kernel panic")
        self.assertIn("not ok 1 guest_suite_completed # no UC-SUITE-DONE "
                      'marker (timed out, console ended: "Kernel panic")\n',
                      text)
        self.assertIn('not ok 3 b # expected "survived", not observed\n',
                      text)
        self.assertTrue(text.endswith("# 2 of 5 failed\n"))
        self.assertEqual(failed, 2)

    def test_qemu_failed_with_silent_console(self):
        text, failed = self.verdicts({}, done=False, qemu_rc=1)
        self.assertIn("not ok 1 guest_suite_completed # no UC-SUITE-DONE "
                      "marker (qemu exited with 1)\n", text)
        self.assertTrue(text.endswith("# 3 of 5 failed\n"))
        self.assertEqual(failed, 3)


class Verbs(Tmp):
    """python3 -m uckit expect, ktap and verdicts."""

    def uckit(self, *args):
        return subprocess.run([sys.executable, "-m", "uckit"] + list(args),
                              capture_output=True, cwd=TOP)

    def test_ktap_then_verdicts(self):
        kb = self.kbuild("4.4.220", [])
        r = self.uckit("expect", "--arch", "x86_64", "--kbuild", kb)
        self.assertEqual(r.returncode, 0, r.stderr)
        tsv = self.write("expect.tsv", r.stdout.decode("latin-1"))
        rows = expect.read_table(tsv)
        report = "KTAP version 1\n" + "".join(
            "# obs: %s %s\n" % (row[0], row[1]) for row in rows)
        serial = self.write("ktap.out", report + "# UC-SUITE-DONE\n")
        console = self.write("console.log", "Linux\n")
        out = os.path.join(self.tmp, "result.ktap")
        r = self.uckit("ktap", "--serial", serial, "--console", console,
                       "--out", out)
        self.assertEqual((r.returncode, r.stdout), (0, b"serial\n"))

        def verdicts(report):
            return self.uckit("verdicts", "--expect-tsv", tsv, "--report",
                              report, "--console", console, "--arch",
                              "x86_64", "--hardened", "y", "--qemu-rc", "0")
        r = verdicts(out)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertTrue(r.stdout.endswith(b"# 0 of %d failed\n"
                                          % (len(rows) + 1)))
        r = verdicts(self.write("partial.ktap", report))
        self.assertEqual(r.returncode, 1)
        self.assertIn(b'(qemu exited with 0, console ended: "Linux")',
                      r.stdout)

    def test_expect_errors_exit_1_with_the_fix(self):
        kb = self.kbuild()
        r = self.uckit("expect", "--arch", "s390x", "--kbuild", kb)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"no include/config/kernel.release", r.stderr)
        r = self.uckit("expect", "--arch", "x86_64", "--kbuild", kb,
                       "--expect", self.tmp + "/nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"give --expect an existing file", r.stderr)
