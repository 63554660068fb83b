#!/usr/bin/env python3
"""The support matrix (uckit/matrix.py): records, the newest per cell,
the tables, and docs/matrix.md."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import TOP  # noqa: E402
from uckit import bench, matrix, soak  # noqa: E402

HEADER = ("kernel\tarch\talloc\thardened\tstate\tresult\tbuild_s\t"
          "boot_s\tdate\tapplied\tbuilt\tbooted\tsuite\t")


def rec(kernel="4.4.999", arch="x86_64", alloc="slub", hardened="y",
        result="pass", reason="", code="0123456789ab", time=0, **more):
    """A record as uckit.matrix reads one."""
    r = dict(kernel=kernel, arch=arch, alloc=alloc, hardened=hardened,
             state="backport", result=result, build_s="7", boot_s="3",
             date="2026-02-02", applied="yes", built="yes", booted="yes",
             suite="19/19", code=code, reason=reason, time=time)
    r.update(more)
    return r


def git_top():
    """Whether TOP is a git checkout this machine's git can read."""
    try:
        return subprocess.run(["git", "-C", TOP, "rev-parse", "HEAD"],
                              capture_output=True).returncode == 0
    except OSError:
        return False


class Matrix(unittest.TestCase):
    """python3 -m uckit matrix: committed records and this machine's
    results, the newest per cell, and --record writing them back."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uc-matrix-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.records = os.path.join(self.tmp, "matrix.tsv")
        self.results = os.path.join(self.tmp, "results")
        os.makedirs(self.results)

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

    def uckit(self, *args, rc=0):
        r = subprocess.run([sys.executable, "-m", "uckit", "matrix"]
                           + list(args), capture_output=True, text=True,
                           cwd=TOP)
        self.assertEqual(r.returncode, rc, r.stderr)
        return r

    def matrix(self, *args):
        return self.uckit("--records", self.records, "--results",
                          self.results, *args).stdout

    def test_local_result_beats_committed_record(self):
        # A file from before the code column.
        self.commit_records(
            "# records\n" + HEADER + "reason\n"
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
            text = f.read()
        self.assertTrue(text.startswith(matrix.HEADER_COMMENT))
        rows = [line.split("\t") for line in text.splitlines()
                if line.startswith("4.4.999")]
        self.assertEqual(sorted((x[1], x[5], x[8], x[12]) for x in rows),
                         [("arm", "FAIL", "2026-02-02", "18/19"),
                          ("s390x", "pass", "2026-01-01", "19/19")])
        # Rewritten with the code column; the reason kept its place.
        self.assertEqual(sorted((x[1], x[13], x[14]) for x in rows),
                         [("arm", "?", "not ok 3 wrap_to_user"),
                          ("s390x", "?", "")])

    def test_code_says_which_records_are_current(self):
        code = self.uckit("--code").stdout.strip()
        self.assertRegex(code, r"^([0-9a-f]{12}\+?|\?)$")
        if not git_top():
            self.skipTest("not a git checkout")
        # The project's first commit: its cell inputs differ from HEAD's.
        first = subprocess.run(
            ["git", "-C", TOP, "rev-list", "--max-parents=0",
             "--abbrev-commit", "--abbrev=12", "HEAD"],
            capture_output=True, text=True).stdout.split()[-1]
        self.commit_records(
            HEADER + "code\treason\n"
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

    def test_own_records_file_leaves_docs_alone(self):
        # --record of a records file of one's own writes that file only.
        self.commit_records(HEADER + "code\treason\n")
        self.local_cell("arm", "pass", "19/19")
        docs = os.path.join(TOP, "docs", "matrix.md")
        before = os.stat(docs).st_mtime_ns if os.path.exists(docs) else None
        r = self.uckit("--records", self.records, "--results", self.results,
                       "--record")
        self.assertNotIn("docs/matrix.md", r.stderr)
        after = os.stat(docs).st_mtime_ns if os.path.exists(docs) else None
        self.assertEqual(before, after)
        with open(self.records) as f:
            self.assertEqual(len(f.read().splitlines()), 3)

    def test_errors_name_the_fix(self):
        r = self.uckit("--results", os.path.join(self.tmp, "nope"), rc=1)
        self.assertIn("no such directory", r.stderr)
        r = self.uckit("--records", os.path.join(self.tmp, "nope.tsv"),
                       rc=1)
        self.assertIn("leave the option out", r.stderr)


class Records(unittest.TestCase):
    """Reading cell.txt files and records files, and the newest per
    cell."""

    def test_cell_txt(self):
        r = matrix.parse_cell(
            "kernel=4.4.220\nstate=backport\n"
            "arch=arm64 alloc=slab hardened=n\nbuild_s=7 boot_s=3\n"
            "date=2026-02-02\nresult=FAIL\n"
            "reason: a=b c; d\n", 1234.5)
        self.assertEqual((r["kernel"], r["arch"], r["alloc"], r["hardened"],
                          r["result"], r["build_s"], r["date"], r["time"]),
                         ("4.4.220", "arm64", "slab", "n", "FAIL", "7",
                          "2026-02-02", 1234))
        # The reason line is taken whole; words it lacks are "?".
        self.assertEqual(r["reason"], "a=b c; d")
        self.assertEqual([r[f] for f in matrix.STAGES], ["?"] * 5)

    def test_old_records_without_code_column(self):
        rows = matrix.parse_records(
            "# old\n" + HEADER + "reason\n"
            "4.4.1\tarm\tslub\ty\tbackport\tFAIL\t1\t2\t2026-01-01\t"
            "yes\tyes\tyes\t18/19\tnot ok 4 x\n"
            "4.4.1\ti386\tslub\ty\tbackport\tpass\t1\t2\t2026-01-01\t"
            "yes\tyes\tyes\t19/19\n")
        self.assertEqual([(r["arch"], r["code"], r["reason"], r["time"])
                          for r in rows],
                         [("arm", "?", "not ok 4 x", 1767225600),
                          ("i386", "?", "", 1767225600)])

    def test_records_file_round_trip(self):
        # What --record writes reads back as the same records.
        text = (matrix.HEADER_COMMENT + HEADER + "code\treason\n"
                "4.4.1\tarm\tslub\ty\tbackport\tFAIL\t1\t2\t2026-01-01\t"
                "yes\tyes\tyes\t18/19\tabcdef012345\tld: a\tb\n"
                "4.4.1\ti386\tslub\ty\tbackport\tpass\t1\t2\t2026-01-01\t"
                "yes\tyes\tyes\t19/19\t?\t\n")
        rows = matrix.newest(matrix.parse_records(text))
        self.assertEqual(rows[0]["reason"], "ld: a\tb")
        self.assertEqual(matrix.format_records(rows), text)

    def test_committed_records_are_what_record_writes(self):
        rows = matrix.newest(matrix.committed_records(matrix.RECORDS))
        with open(matrix.RECORDS) as f:
            self.assertEqual(matrix.format_records(rows), f.read())

    def test_newest_per_cell(self):
        day = matrix.day_start("2026-02-02")
        committed = rec(result="pass", time=day)
        same_day = rec(result="FAIL", time=day + 3600)
        older = rec(arch="arm", result="FAIL", time=day - 3600)
        arm = rec(arch="arm", time=day)
        control = rec(hardened="n", time=0)
        rows = matrix.newest([committed, older, same_day, arm, control])
        # A local result of the same day beats the committed record; an
        # older one does not; the control is a cell of its own.
        self.assertEqual([(r["arch"], r["hardened"], r["result"])
                          for r in rows],
                         [("arm", "y", "pass"), ("x86_64", "n", "pass"),
                          ("x86_64", "y", "FAIL")])
        # Equally new records of one cell: always the same winner.
        tie = [rec(result="pass"), rec(result="FAIL")]
        self.assertEqual(matrix.newest(tie), matrix.newest(tie[::-1]))

    def test_table_order(self):
        kernels = ["4.4.220", "3.2.71", "4.4", "4.4~rc1", "4.4.1",
                   "4.4-rc1", "6.1.192", "3.10.108", "4.14.280"]
        rows = matrix.newest([rec(kernel=k) for k in kernels])
        self.assertEqual([r["kernel"] for r in rows],
                         ["3.2.71", "3.10.108", "4.4~rc1", "4.4", "4.4-rc1",
                          "4.4.1", "4.4.220", "4.14.280", "6.1.192"])
        # Within a kernel: arch, allocator, hardening as strings.
        archs = ["ppc64", "arm", "ppc64le", "arm64", "x86_64"]
        rows = matrix.newest([rec(arch=a) for a in archs])
        self.assertEqual([r["arch"] for r in rows],
                         ["arm64", "arm", "ppc64le", "ppc64", "x86_64"])

    def test_local_records_of_a_results_dir(self):
        tmp = tempfile.mkdtemp(prefix="uc-results-")
        self.addCleanup(shutil.rmtree, tmp, True)
        cell = os.path.join(tmp, "linux-4.4.1-x-arm-slub-hy")
        os.makedirs(cell)
        os.makedirs(os.path.join(tmp, "not-a-cell"))
        with open(os.path.join(cell, "cell.txt"), "w") as f:
            f.write("kernel=4.4.1 arch=arm alloc=slub hardened=y "
                    "result=pass code=abc\n")
        os.utime(os.path.join(cell, "cell.txt"), (1000, 1000))
        rows = matrix.local_records(tmp)
        self.assertEqual([(r["kernel"], r["code"], r["time"]) for r in rows],
                         [("4.4.1", "abc", 1000)])


class Tables(unittest.TestCase):
    """The grid, every cell, how fresh."""

    def test_grid_cell(self):
        self.assertEqual(matrix.grid_cell([]), "")
        self.assertEqual(matrix.grid_cell(
            [rec(alloc="slab"), rec(hardened="n"), rec()]),
            "slab, slub-n, slub")
        self.assertEqual(matrix.grid_cell(
            [rec(result="n/a", reason="Linux 3.2 has no arch/arm64")]),
            "n/a: Linux 3.2 has no arch/arm64")
        # A pass hides n/a; failures come after, in bold.
        self.assertEqual(matrix.grid_cell(
            [rec(alloc="slab", result="n/a", reason="x"), rec(),
             rec(hardened="n", result="FAIL", reason="not ok 3 wrap"),
             rec(alloc="slab", hardened="n", result="build-failed")]),
            "slub; **slub-n: FAIL (not ok 3 wrap); slab-n: build failed**")
        self.assertEqual(matrix.grid_cell(
            [rec(result="n/a", reason="no arm"),
             rec(alloc="slab", result="apply-failed", reason="error: x")]),
            "n/a: no arm; **slab: apply-failed (error: x)**")

    def test_short_reason(self):
        self.assertEqual(matrix.short_reason(
            "/usr/bin/aarch64-linux-gnu-ld: drivers/a.o: undefined "
            "reference to `b'; and more"), "undefined reference to `b'")
        self.assertEqual(matrix.short_reason(
            "not ok 20 guest_suite_completed # no UC-SUITE-DONE marker "
            "after 300 s"), "suite never ended after 300 s")
        self.assertEqual(matrix.short_reason("x" * 80), "x" * 80)
        self.assertEqual(matrix.short_reason("x" * 81), "x" * 77 + "...")

    def test_grid(self):
        rows = [rec(kernel="3.2.71", arch="arm64", result="n/a",
                    reason="no arm64"),
                rec(kernel="3.2.71"),
                rec(kernel="4.9.337", state="native", arch="ia64")]
        self.assertEqual(matrix.grid(rows, ["x86_64", "arm64"]),
                         "| kernel | how | x86_64 | arm64 |\n"
                         "|---|---|---|---|\n"
                         "| 3.2.71 | backport | slub | n/a: no arm64 |\n"
                         "| 4.9.337 | native |  |  |\n")

    def test_cells_table(self):
        out = matrix.cells_table([rec(hardened="n", code="?")])
        self.assertEqual(out.splitlines()[2],
                         "| 4.4.999 | backport | x86_64 | slub | "
                         "n (control) | yes | yes | yes | 19/19 | pass | 7 "
                         "| 3 | 2026-02-02 | ? |")

    def test_freshness(self):
        rows = [rec(code="aaaaaaaaaaaa"), rec(code="aaaaaaaaaaaa"),
                rec(code="bbbbbbbbbbbb"), rec(code="aaaaaaaaaaaa+"),
                rec(code="?")]
        out = matrix.freshness(rows, lambda c: c == "aaaaaaaaaaaa")
        self.assertEqual(out, "Code: 2 of 5 records ran the cell inputs of "
                         "this checkout\n(series, patches, semantic "
                         "patches, configs, build and boot scripts,\nguest "
                         "suite); 2 ran older ones; 1 predate the code "
                         "column.\n")

    def test_never_current(self):
        # Without asking git: unknown, uncommitted and non-ids.
        for code in ("?", "0123456789ab+", "--output=x", "HEAD"):
            self.assertFalse(matrix.current(code), code)

    def test_cell_inputs(self):
        if not git_top():
            self.skipTest("not a git checkout")
        files = subprocess.run(
            ["git", "-C", TOP, "ls-files", "--"] + list(matrix.CELL_INPUTS),
            capture_output=True, text=True, check=True).stdout.split()
        self.assertIn("uckit/cache.py", files)
        self.assertIn("ci/kbuild.sh", files)
        for f in files:
            self.assertFalse(f.startswith("cocci/tests/"), f)
        self.assertNotIn("uckit/matrix.py", files)
        self.assertNotIn("uckit/plan.py", files)
        self.assertNotIn("kernels/matrix.tsv", files)
        # Every step a cell runs after boot-test.sh decided to run it is
        # an input; the scripts that are not cell steps are named here.
        steps = subprocess.run(["git", "-C", TOP, "ls-files", "ci"],
                               capture_output=True, text=True,
                               check=True).stdout.split()
        # The soak's and the benches' scripts make soak and bench
        # records, not boot cells; the pipeline's run cells through
        # boot-test.sh.
        others = {"ci/boot-test.sh", "ci/bench.sh", "ci/package.sh",
                  "ci/soak.sh", "ci/bench-work.sh", "ci/rootfs.sh",
                  "ci/pipeline.sh"}
        for f in steps:
            if f not in others and not f.startswith("ci/configs/") and \
                    not f.startswith("ci/gitlab/"):
                self.assertIn(f, files)

    def test_docs_matrix_is_make_matrix_record(self):
        # docs/matrix.md is what make matrix-record writes for the
        # committed records, never hand-edited.
        # It says no count of current records, which would go stale
        # with any commit to the cell inputs.
        rows = matrix.newest(matrix.committed_records(matrix.RECORDS))
        text = matrix.tables(rows, is_current=None)
        self.assertNotIn("records ran the cell inputs", text)
        # The soaks' table follows where there are soak records.
        soaks = soak.newest(soak.committed_records(soak.RECORDS))
        if soaks:
            text += "\n" + soak.table(soaks)
        # Then the bench's, where there are bench records.
        benches = bench.merged("/nonexistent", bench.RECORDS)
        if benches:
            text += "\n" + bench.table(benches)
        want = matrix.document(text)
        with open(matrix.DOCUMENT) as f:
            self.assertEqual(f.read(), want,
                             "docs/matrix.md is not the matrix of "
                             "kernels/matrix.tsv: run make matrix-record")



class Bench(unittest.TestCase):
    def write(self, d, name, rows, mtime):
        os.makedirs(os.path.join(d, "bench"), exist_ok=True)
        path = os.path.join(d, "bench", name)
        with open(path, "w") as f:
            f.write("\t".join(bench.FIELDS) + "\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        os.utime(path, (mtime, mtime))

    def test_newest_row_per_operation_and_per_check(self):
        with tempfile.TemporaryDirectory() as d:
            old = ["4.4.220", "x86_64", "bench", "pipe64", "1883.5",
                   "1619.3", "1637.3", "2", "2026-12-06", "aaa"]
            new = ["4.4.220", "x86_64", "bench", "pipe64", "1775.4",
                   "1619.3", "1641.3", "2", "2026-12-07", "bbb"]
            native = ["6.1.192", "x86_64", "bench", "pipe64", "1700.0",
                      "1600.0", "", "0", "2026-12-07", "ccc"]
            self.write(d, "a.tsv", [old], 1000)
            self.write(d, "b.tsv", [new, native], 2000)
            rows = bench.merged(d, "/nonexistent")
            self.assertEqual([(r["kernel"], r["code"]) for r in rows],
                             [("4.4.220", "bbb"), ("6.1.192", "ccc")])
            text = bench.table(rows)
            # 156.1 added over two checks; the native's checks are not
            # counted (0): no per-check figure, no boot switch run.
            self.assertIn("| +156.1 (+9.6 %) | 78.1 | +22.0 |", text)
            self.assertIn("| +100.0 (+6.2 %) | - | - |", text)

    def test_work_runs_of_a_console(self):
        text = ("[  1.0] booting\r\n"
                "# UC-WORK git-status 400 410 400 404\r\n"
                "uc-bench: hackbench failed in run 2\n"
                "# UC-WORK hackbench-pipe -1\n"
                "# UC-WORK cc-project 1000 1000\n"
                "# UC-WORK-DONE\n")
        self.assertEqual(bench.work_runs(text),
                         [("git-status", 400, 2.5),
                          ("hackbench-pipe", -1, 0.0),
                          ("cc-project", 1000, 0.0)])

    def test_whole_workload_without_control_is_against_the_switch(self):
        with tempfile.TemporaryDirectory() as d:
            row = ["4.4.220", "x86_64", "soak", "hackbench-pipe",
                   "100500", "", "100000", "10", "2026-12-07", "aaa"]
            self.write(d, "a.tsv", [row], 1000)
            text = bench.table(bench.merged(d, "/nonexistent"))
            # Under 1 %: two decimals; the baseline is named.
            self.assertIn("| 100500 | - | +500.0 (+0.50 %) vs switch off "
                          "| 50.0 | - |", text)


if __name__ == "__main__":
    unittest.main()
