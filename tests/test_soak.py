#!/usr/bin/env python3
"""The soak's verdict and records (uckit/soak.py) on made-up consoles and
guest reports: what passes, each way to fail, and the records' round trip
into the matrix."""

import os
import tempfile
import unittest

import re

from helpers import TOP  # noqa: E402

from uckit import soak  # noqa: E402

REPORT = """kernel 4.4.220 x86_64
stressor filesystem access ops=20 rc=0
stressor filesystem chattr skipped rc=0 # chattr: stressor will be skipped, no file system support
stressor pipe fifo ops=20 rc=0
program apt rc=0 s=30
program git rc=0 s=80
workload s=700
live case=slab_overflow_to_user rc=137
done s=710
"""

CONSOLE = """Linux version 4.4.220
[    1.0] EXT4-fs (vda): mounted filesystem
[    5.0] uc-soak: phase stress
[    9.0] traps: stress-ng-opcode[123] general protection fault ip:4005 sp:7ff error:0
[   10.0] stress-ng-sigsegv[200]: segfault at 0 ip 0000 sp 0000 error 4
[   20.0] uc-soak: phase programs
[   50.0] uc-soak: phase end
[   51.0] uc-soak: phase live
[   52.0] usercopy: kernel memory exposure attempt detected from ffff8800 (kmalloc-64) (80 bytes)
[   52.1] kernel BUG at mm/usercopy.c:171!
[   52.2] invalid opcode: 0000 [#1] SMP
[   53.0] uc-soak: phase done
"""


def words(lines):
    out = {}
    for line in lines:
        if line.startswith(("reason: ", "skipped: ", "idle: ", "first_")):
            continue
        for w in line.split():
            k, _, v = w.partition("=")
            out[k] = v
    return out


class Verdict(unittest.TestCase):
    def test_pass_hardened(self):
        lines, ok = soak.verdict(CONSOLE, REPORT, "y")
        self.assertTrue(ok, lines)
        w = words(lines)
        self.assertEqual(w["result"], "pass")
        self.assertEqual(w["live"], "caught")
        self.assertEqual((w["stressors"], w["ran"], w["skipped"],
                          w["idle"], w["failed"], w["bogo_ops"]),
                         ("3", "2", "1", "0", "0", "40"))
        self.assertEqual(w["programs"], "apt:ok,git:ok")
        self.assertEqual((w["usercopy_lines"], w["oopses"]), ("0", "0"))
        self.assertIn("skipped: filesystem chattr: chattr: stressor will be "
                      "skipped, no file system support", lines)

    def test_user_faults_are_not_oopses(self):
        found = soak.classify(CONSOLE.splitlines()[3:5])
        self.assertEqual(found["oops"], [])

    def test_usercopy_during_workload_fails(self):
        console = CONSOLE.replace(
            "[   20.0] uc-soak: phase programs",
            "[   19.0] usercopy: kernel memory overwrite attempt detected "
            "to ffff8800 (<process stack>) (16 bytes)\n"
            "[   20.0] uc-soak: phase programs")
        lines, ok = soak.verdict(console, REPORT, "y")
        self.assertFalse(ok)
        self.assertEqual(words(lines)["usercopy_lines"], "1")
        self.assertIn("usercopy: during the workload", "\n".join(lines))

    def test_oops_during_workload_fails(self):
        console = CONSOLE.replace(
            "[   50.0] uc-soak: phase end",
            "[   49.0] BUG: unable to handle kernel NULL pointer dereference"
            "\n[   50.0] uc-soak: phase end")
        lines, ok = soak.verdict(console, REPORT, "y")
        self.assertFalse(ok)
        self.assertEqual(words(lines)["oopses"], "1")

    def test_stall_is_counted_not_failed(self):
        console = CONSOLE.replace(
            "[   50.0] uc-soak: phase end",
            "[   49.0] NMI watchdog: BUG: soft lockup - CPU#0 stuck for 22s!"
            "\n[   49.5] WARNING: CPU: 0 PID: 1 at fs/x.c:1 f+0x0/0x1"
            "\n[   50.0] uc-soak: phase end")
        lines, ok = soak.verdict(console, REPORT, "y")
        self.assertTrue(ok, lines)
        w = words(lines)
        self.assertEqual((w["stalls"], w["warnings"], w["oopses"]),
                         ("1", "1", "0"))

    def test_control_must_let_the_violation_through(self):
        lines, ok = soak.verdict(CONSOLE, REPORT, "n")
        self.assertFalse(ok)
        console = CONSOLE.split("[   52.0]")[0] + "[   53.0] uc-soak: phase done\n"
        report = REPORT.replace("rc=137", "rc=0")
        lines, ok = soak.verdict(console, report, "n")
        self.assertTrue(ok, lines)
        self.assertEqual(words(lines)["live"], "missed")

    def test_a_kill_without_the_line_is_not_caught(self):
        console = CONSOLE.replace("[   52.0] usercopy: kernel memory "
                                  "exposure attempt", "[   52.0] something")
        lines, ok = soak.verdict(console, REPORT, "y")
        self.assertFalse(ok)
        self.assertEqual(words(lines)["live"], "failed")

    def test_unfinished_guest_fails(self):
        report = REPORT.split("live ")[0]
        lines, ok = soak.verdict(CONSOLE, report, "y", timed_out=True)
        self.assertFalse(ok)
        reason = [l for l in lines if l.startswith("reason: ")][0]
        self.assertIn("UC_SOAK_WALL", reason)
        self.assertIn("did not finish", reason)

    def test_a_build_that_failed_is_a_record(self):
        lines, ok = soak.verdict("", "", "y", build_failed="the build failed: "
                                 "vmlinux: undefined reference to x")
        self.assertFalse(ok)
        self.assertEqual(words(lines)["result"], "build-failed")
        self.assertIn("reason: the build failed: vmlinux: undefined "
                      "reference to x", lines)
        self.assertFalse(any("did not finish" in l for l in lines))

    def test_failed_stressor_fails_idle_one_is_listed(self):
        report = REPORT.replace("stressor pipe fifo ops=20 rc=0",
                                "stressor pipe fifo failed rc=2 # fifo: failed")
        lines, ok = soak.verdict(CONSOLE, report, "y")
        self.assertFalse(ok)
        self.assertIn("stressors that failed: fifo", "\n".join(lines))
        report = REPORT.replace("stressor pipe fifo ops=20 rc=0",
                                "stressor pipe fifo idle rc=0 # fifo 0 30.0")
        lines, ok = soak.verdict(CONSOLE, report, "y")
        self.assertTrue(ok, lines)
        self.assertEqual(words(lines)["idle"], "1")
        self.assertIn("idle: pipe fifo: fifo 0 30.0", lines)

    def test_control_keeps_failed_stressors_as_its_baseline(self):
        report = REPORT.replace("stressor pipe fifo ops=20 rc=0",
                                "stressor pipe fifo failed rc=2 # fifo: failed")
        console = CONSOLE.split("[   52.0]")[0] + "[   53.0] uc-soak: phase done\n"
        report = report.replace("rc=137", "rc=0")
        lines, ok = soak.verdict(console, report, "n")
        self.assertTrue(ok, lines)
        self.assertIn("reason: stressors that fail without the checker: "
                      "fifo", lines)

    def test_table_judges_a_hardened_soak_by_its_control(self):
        def rec(hardened, result, live, reason):
            r = {f: "-" for f in soak.FIELDS}
            r.update(kernel="3.10.108", arch="x86_64", config="defconfig",
                     hardened=hardened, result=result, live=live,
                     reason=reason)
            return r
        y = rec("y", "FAIL", "caught", "stressors that failed: sctp cyclic")
        # No control: the failure stands.
        self.assertIn("| FAIL (stressors that failed: sctp cyclic) |",
                      soak.table([y]))
        # A control (an old record, or a new one) failing the same ones.
        for n in (rec("n", "FAIL", "missed",
                      "stressors that failed: cyclic sctp fifo"),
                  rec("n", "pass", "missed",
                      "stressors that fail without the checker: cyclic "
                      "sctp fifo")):
            text = soak.table([y, n])
            self.assertIn("| pass (cyclic sctp fail alike in the control) |",
                          text)
            self.assertRegex(text, r"\| n \(control\) .*\| pass \(stressors "
                             r"that fail without the checker: [a-z ]+\) \|")
        # A control that only logged errors for one of them counts it.
        n = rec("n", "pass", "missed", "stressors that logged errors: sctp; "
                "stressors that fail without the checker: cyclic")
        self.assertIn("| pass (cyclic sctp fail alike in the control) |",
                      soak.table([y, n]))
        # A control that lacks one of them, or any other fault: FAIL.
        n = rec("n", "FAIL", "missed", "stressors that failed: sctp")
        self.assertIn("| FAIL (stressors that failed: sctp cyclic) |",
                      soak.table([y, n]))
        y2 = rec("y", "FAIL", "caught", "stressors that failed: sctp; "
                 "usercopy: during the workload: x")
        self.assertIn("| FAIL (stressors that failed: sctp) |",
                      soak.table([y2, n]))

    def test_a_fail_line_in_the_log_is_listed_or_fails(self):
        logs = ("stress-ng: info:  [19] dispatching hogs: 1 fifo\n"
                "stress-ng: fail:  [20] fifo: setsockopt failed, errno=22\n")
        # It counted ops: it ran them, and the error is listed.
        lines, ok = soak.verdict(CONSOLE, REPORT, "y", logs=logs)
        self.assertTrue(ok, lines)
        self.assertIn("reason: stressors that logged errors: fifo", lines)
        self.assertIn("erred: pipe fifo: fifo: setsockopt failed, errno=22",
                      lines)
        # It counted none: failed.
        report = REPORT.replace("stressor pipe fifo ops=20 rc=0",
                                "stressor pipe fifo idle rc=0 # fifo 0 30.0")
        lines, ok = soak.verdict(CONSOLE, report, "y", logs=logs)
        self.assertFalse(ok)
        self.assertIn("reason: stressors that failed: fifo", lines)
        self.assertEqual(words(lines)["failed"], "1")
        # Another stressor's error: the report stands.
        lines, ok = soak.verdict(CONSOLE, REPORT, "y",
                                 logs=logs.replace("fifo:", "sctp:"))
        self.assertTrue(ok, lines)
        self.assertFalse(any(l.startswith("reason:") for l in lines))

    def test_failed_program_fails(self):
        report = REPORT.replace("program git rc=0", "program git rc=128")
        lines, ok = soak.verdict(CONSOLE, report, "y")
        self.assertFalse(ok)
        self.assertIn("git(rc=128)", "\n".join(lines))


class Params(unittest.TestCase):
    def test_the_guest_reads_what_the_host_writes(self):
        with open(os.path.join(TOP, "ci", "soak.sh")) as f:
            written = set(re.findall(r'echo "(SOAK_[A-Z]+)=', f.read()))
        with open(os.path.join(TOP, "tests", "soak", "soak.sh")) as f:
            read = set(re.findall(r"\$\{?(SOAK_[A-Z]+)", f.read()))
        self.assertTrue(written)
        self.assertEqual(written, read)


class Records(unittest.TestCase):
    def test_round_trip_and_newest(self):
        lines, _ = soak.verdict(CONSOLE, REPORT, "y")
        facts = ["kernel=4.4.220 state=backport arch=x86_64 alloc=slub "
                 "hardened=y config=",
                 "build_s=900 soak_s=800 date=2026-12-07 code=abc123"]
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "cell"))
            with open(os.path.join(d, "cell", "soak.txt"), "w") as f:
                f.write("\n".join(facts + lines) + "\n")
            local = soak.local_records(d)
            self.assertEqual(len(local), 1)
            rec = local[0]
            self.assertEqual((rec["kernel"], rec["config"], rec["result"],
                              rec["live"], rec["bogo_ops"]),
                             ("4.4.220", "defconfig", "pass", "caught", "40"))
            records = os.path.join(d, "soak.tsv")
            old = dict(rec, date="2026-01-01", result="FAIL", time=0)
            with open(records, "w") as f:
                f.write(soak.format_records([old]))
            rows = soak.merged(d, records)
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0]["result"], "pass")
            self.assertIn("| 4.4.220 | x86_64 | y | defconfig |",
                          soak.table(rows))


if __name__ == "__main__":
    unittest.main()
