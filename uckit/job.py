"""make run: the whole path on one kernel, with a summary that fits a
screen: resolve, apply (or detect native support), audit, export, then
boot-test hardened (SLUB and SLAB) and the unhardened control in QEMU
(ci/boot-test.sh, one cell each)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import TOP, UserError, apply, source


def step(title):
    print("\n== %s" % title, flush=True)


def boot_cell(kernel, arch, alloc, hardened):
    """ci/boot-test.sh on one cell, its output shown as it comes; returns
    (passed, "build N s, boot+suite N s")."""
    sys.stdout.flush()
    proc = subprocess.Popen(["bash", os.path.join(TOP, "ci", "boot-test.sh"),
                             kernel, arch, alloc, hardened],
                            stdout=subprocess.PIPE, text=True)
    times = ""
    for line in proc.stdout:
        sys.stdout.write(line)
        m = re.search(r"build \d+ s, boot\+suite \d+ s", line)
        if m:
            times = m.group(0)
    return proc.wait() == 0, times


def run(kernel, arch):
    rows, ok = [], True
    step("kernel: %s" % kernel)
    src, version, state = apply.prepare(kernel)
    print("tree=%s\nversion=%s\nbranch=%s\nstate=%s"
          % (src, version, source.branch_of(version), state))
    work = tempfile.mkdtemp(prefix="uc-run-")
    try:
        step("apply")
        try:
            apply.build_hardened(kernel, os.path.join(work, "tree"))
            rows.append(("apply", "ok", "series applied, audit clean"
                         if state == "none" else
                         "already hardened (%s): unchanged" % state))
        except UserError as e:
            print("error: %s" % e, file=sys.stderr)
            rows.append(("apply", "FAIL", "see above"))
            ok = False
        cells = [("slub", "y"), ("slub", "n")]
        if state == "none" and ok:
            step("audit")
            good, lines = apply.audit(os.path.join(work, "tree"))
            print("\n".join(lines[-20:]))
            step("export")
            try:
                n = apply.export(kernel, os.path.join(work, "series"))
                rows.append(("export", "ok", "%d patches, quilt series" % n))
            except UserError as e:
                print("error: %s" % e, file=sys.stderr)
                rows.append(("export", "FAIL", "see above"))
                ok = False
            cells.insert(1, ("slab", "y"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for alloc, hardened in cells:
        step("boot-test %s %s %s hardened=%s" % (version, arch, alloc,
                                                  hardened))
        passed, times = boot_cell(kernel, arch, alloc, hardened)
        ok = ok and passed
        rows.append(("boot %s %s h=%s" % (arch, alloc, hardened),
                     "ok" if passed else "FAIL", times))
    print("\n== summary: Linux %s (%s) on %s"
          % (version, "backport" if state == "none" else state, arch))
    print("%-26s %-5s %s" % ("step", "", "detail"))
    for name, res, detail in rows:
        print("%-26s %-5s %s" % (name, res, detail))
    return 0 if ok else 1


def cmd_run(args):
    return run(args.kernel, args.arch)


def register(sub):
    v = sub.add_parser("run", help="the main job on KERNEL: apply, audit, "
                       "export, boot hardened and control, summary")
    v.add_argument("--kernel", default="debian")
    v.add_argument("--arch", default="x86_64")
    v.set_defaults(func=cmd_run)
