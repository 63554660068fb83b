#!/usr/bin/env python3
"""Rule tests for cocci/*.cocci on small inputs written for this project.

cocci/tests/RULE[@variant]/ holds input files at the paths the rule
targets, with the expected result beside each changed file as FILE.res
(no .res: the file must come out unchanged), and optionally
audit.expected: the exact report-mode output on the patched result.
Every case also checks that patch mode is idempotent (a second run
changes nothing).  spatch runs through uckit.cocci, as apply runs it.
Prints one KTAP line per case.

  tests/cocci_rules.py [--bless]   (--bless rewrites .res and audit files)
"""

import difflib
import os
import shutil
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)
from uckit import UserError  # noqa: E402
from uckit.cocci import run_spatch  # noqa: E402
from uckit.patching import run_patch  # noqa: E402

EXPECTED = (".res", "audit.expected")


def inputs(case):
    """The input files of a case, relative to its directory, sorted."""
    out = []
    for root, _, names in os.walk(case):
        for name in names:
            if not name.endswith(".res") and name != "audit.expected":
                out.append(os.path.relpath(os.path.join(root, name), case))
    return sorted(out)


def read(path):
    with open(path) as f:
        return f.read()


def diff(want, got, name):
    return "".join(difflib.unified_diff(want.splitlines(True),
                                        got.splitlines(True),
                                        "expected/" + name, "result/" + name))


def check(case, rule, work, bless):
    """Why the case fails (and its diff lines), or None."""
    files = inputs(case)
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(work, rel)), exist_ok=True)
        shutil.copyfile(os.path.join(case, rel), os.path.join(work, rel))
    try:
        out = run_spatch(work, rule, "patch", files)
    except UserError as e:
        return "spatch failed: %s" % str(e).splitlines()[1:2], []
    if out:
        try:
            run_patch(work, out, os.path.basename(rule), strip=0)
        except UserError:
            return "spatch output does not apply", []
    for rel in files:
        got = read(os.path.join(work, rel))
        res = os.path.join(case, rel + ".res")
        if bless:
            if got == read(os.path.join(case, rel)):
                if os.path.exists(res):
                    os.unlink(res)
            else:
                with open(res, "w") as f:
                    f.write(got)
            continue
        want = read(res if os.path.exists(res) else os.path.join(case, rel))
        if want != got:
            return "%s differs from expected" % rel, \
                diff(want, got, rel).splitlines()
    if not bless and run_spatch(work, rule, "patch", files):
        return "not idempotent: a second run changes the result", []
    try:
        audit = run_spatch(work, rule, "report", files)
    except UserError:
        audit = ""
    expected = os.path.join(case, "audit.expected")
    if bless:
        with open(expected, "w") as f:
            f.write(audit)
    elif os.path.exists(expected) and read(expected) != audit:
        return "report-mode audit differs from audit.expected", \
            diff(read(expected), audit, "audit").splitlines()
    return None, []


def main(argv):
    bless = argv[1:] == ["--bless"]
    tests = os.path.join(TOP, "cocci", "tests")
    cases = sorted(d for d in os.listdir(tests)
                   if os.path.isdir(os.path.join(tests, d)))
    print("KTAP version 1")
    print("1..%d" % len(cases))
    failed = 0
    for n, name in enumerate(cases, 1):
        rule = os.path.join(TOP, "cocci", name.split("@")[0] + ".cocci")
        work = tempfile.mkdtemp(prefix="uc-cocci-")
        try:
            why, lines = check(os.path.join(tests, name), rule, work, bless)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for line in lines:
            print("# " + line)
        if why is None:
            print("ok %d cocci:%s" % (n, name))
        else:
            print("not ok %d cocci:%s # %s" % (n, name, why))
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
