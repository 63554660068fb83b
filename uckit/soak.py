"""The soak's verdict (ci/soak.sh): from the guest's report, which
tests/soak/soak.sh wrote to its payload disk, and the serial console.

The guest marks its phases in the kernel log ("uc-soak: phase stress",
"programs", "end", "live", "done"), so each kernel line belongs to one.
A soak passes when
  - the guest finished (its report ends with "done") before the wall clock;
  - during the workload (stress to end) the kernel printed no usercopy:
    line and no oops (Oops, BUG, panic, a kernel-mode fault);
  - no stressor failed (stress-ng said so); each did bogo ops, or was
    skipped with stress-ng's reason, or ran its time without counting an
    op (idle: listed in the record with its metrics, not failed: a
    stressor too slow under TCG is not a kernel fault);
  - every real program exited 0;
  - the live check behaved as the build says: with HARDENED=y the final
    deliberate violation killed its process and printed a usercopy: line,
    with HARDENED=n (the control) it went through and printed none.
WARNINGs and lockup or RCU stall reports are counted, not failed: TCG is
slow enough for watchdogs to bark, and a WARN is not a usercopy refusal.
The record (soak.txt) is key=value words, "result=" and "reason:" lines,
as a boot cell's cell.txt is."""

import functools
import glob
import os
import re

from . import TOP, UserError, matrix

USERCOPY = re.compile(r"usercopy: ")
OOPS = re.compile(r"Oops[:\s]|kernel BUG at|BUG: |Kernel panic|"
                  r"Internal error:|Unable to handle kernel|"
                  r"general protection fault:")
STALL = re.compile(r"BUG: soft lockup|rcu_sched self-detected stall|"
                   r"rcu_.*detected stall|INFO: task .* blocked for more|"
                   r"NMI watchdog: BUG: soft lockup")
WARNING = re.compile(r"WARNING: ")
USER_FAULT = re.compile(r"traps: |segfault at |potentially unexpected fatal")
PHASE = re.compile(r"uc-soak: phase (\w+)")


def phases(console_lines):
    """{phase: [kernel lines]} for stress, programs, end, live, done, and
    "boot" for what came before the first mark."""
    out = {"boot": []}
    current = "boot"
    for line in console_lines:
        m = PHASE.search(line)
        if m:
            current = m.group(1)
            out.setdefault(current, [])
            continue
        out.setdefault(current, []).append(line)
    return out


def classify(lines):
    """Counts of usercopy lines, oopses, stalls and warnings in kernel
    lines, and the first of each kind."""
    found = {"usercopy": [], "oops": [], "stall": [], "warning": []}
    for line in lines:
        if USERCOPY.search(line):
            found["usercopy"].append(line.strip())
        elif STALL.search(line):
            found["stall"].append(line.strip())
        elif OOPS.search(line) and not USER_FAULT.search(line):
            found["oops"].append(line.strip())
        elif WARNING.search(line):
            found["warning"].append(line.strip())
    return found


def parse_report(text):
    """The guest's report: stressors, programs, live, done, kernel."""
    rep = {"stressors": [], "programs": [], "live": None, "done": None,
           "kernel": None, "workload_s": None}
    for line in text.splitlines():
        words = line.split(" # ", 1)
        head, why = words[0].split(), (words[1] if len(words) > 1 else "")
        if not head:
            continue
        kind = head[0]
        if kind == "stressor" and len(head) >= 4:
            state = head[3]
            ops = 0
            if state.startswith("ops="):
                ops = int(state[4:])
                state = "ran"
            rep["stressors"].append((head[1], head[2], state, ops, why))
        elif kind == "program" and len(head) >= 3:
            rc = head[2][3:] if head[2].startswith("rc=") else "?"
            rep["programs"].append((head[1], rc))
        elif kind == "live":
            rep["live"] = head[1:]
        elif kind == "done":
            rep["done"] = head[1:]
        elif kind == "kernel":
            rep["kernel"] = " ".join(head[1:])
        elif kind == "workload":
            rep["workload_s"] = head[1][2:] if len(head) > 1 else None
    return rep


def live_outcome(live, lines):
    """caught, missed or failed (with why) for the live check."""
    if not live:
        return "failed", "the live check did not run"
    if live[0] == "insmod-failed":
        return "failed", "uc_selftest.ko did not load"
    rc = dict(w.split("=", 1) for w in live if "=" in w).get("rc", "?")
    printed = any(USERCOPY.search(l) for l in lines)
    if rc.isdigit() and int(rc) >= 128 and printed:
        return "caught", ""
    if rc == "0" and not printed:
        return "missed", ""
    return "failed", "the violation exited %s and %s a usercopy: line" % (
        rc, "printed" if printed else "printed no")


# How a record's reason names its failed stressors: a hardened soak's
# (a failure) and a control's (the baseline, not a failure).
FAILED = "stressors that failed:"
BASELINE = "stressors that fail without the checker:"
# And of stressors that did their ops but logged an error on the way: not a
# failure ("every stressor ran its ops"), but listed, and a control's
# count towards its baseline.
ERRED = "stressors that logged errors:"


def failed_stressors(reason):
    """The stressors a record's REASON names as failed (either way) or as
    having logged errors."""
    out = set()
    for part in reason.split("; "):
        for label in (FAILED, BASELINE, ERRED):
            if part.startswith(label):
                out.update(part[len(label):].split())
    return out


def judged(rec, controls):
    """(result, reason) of REC as the table shows it: a hardened soak whose
    only fault is stressors that fail alike in the control of the same
    kernel, arch and config (CONTROLS: that key -> the control's failed
    stressors) passes, saying so; a control with such stressors passes."""
    result, reason = rec["result"], rec["reason"]
    parts = [p for p in reason.split("; ") if not p.startswith(ERRED)]
    if result != "FAIL" or len(parts) != 1 or not parts[0].startswith(FAILED):
        return result, reason
    names = failed_stressors(parts[0])
    if rec["hardened"] == "n":
        # Recorded before controls kept their failures as the baseline.
        if rec["live"] == "missed":
            return "pass", "%s %s" % (BASELINE, " ".join(sorted(names)))
        return result, reason
    base = controls.get((rec["kernel"], rec["arch"], rec["config"]))
    if base is None or not names <= base:
        return result, reason
    return "pass", "%s fail alike in the control" % " ".join(sorted(names))


def verdict(console, report, hardened, timed_out=False, build_failed=None,
            logs=""):
    """(record lines, passed) for one soak; BUILD_FAILED: why it never
    booted, recorded as build-failed; LOGS: stress-ng's logs, whose
    "fail:" lines mark a stressor failed whatever it counted."""
    ph = phases(console.splitlines())
    rep = with_logged_failures(parse_report(report), logs)
    workload = ph.get("stress", []) + ph.get("programs", [])
    found = classify(workload)
    reasons = []
    if build_failed:
        reasons.append(build_failed)
    elif timed_out:
        reasons.append("the guest ran past UC_SOAK_WALL and was stopped")
    if rep["done"] is None and not build_failed:
        boot = classify(ph["boot"])
        first = (boot["oops"] or [""])[0]
        reasons.append("the guest did not finish the soak" +
                       (" (%s)" % first if first else ""))
    ran = [s for s in rep["stressors"] if s[2] == "ran"]
    skipped = [s for s in rep["stressors"] if s[2] == "skipped"]
    idle = [s for s in rep["stressors"] if s[2] == "idle"]
    erred = [s for s in rep["stressors"] if s[2] == "erred"]
    ran += erred
    failed = [s for s in rep["stressors"]
              if s[2] not in ("ran", "erred", "skipped", "idle")]
    if not ran and rep["done"] is not None:
        reasons.append("no stressor ran")
    # Without the checker (the control) a stressor that fails shows what
    # the kernel itself cannot do (an option or a policy of later
    # releases): the baseline a hardened soak is judged against (table()).
    notes = []
    if failed and hardened == "n":
        notes.append("%s %s" % (BASELINE, " ".join(s[1] for s in failed)))
    elif failed:
        reasons.append("%s %s" % (FAILED, " ".join(s[1] for s in failed)))
    if erred:
        notes.append("%s %s" % (ERRED, " ".join(s[1] for s in erred)))
    bad_programs = [p for p in rep["programs"] if p[1] != "0"]
    if bad_programs:
        reasons.append("programs that failed: %s" %
                       " ".join("%s(rc=%s)" % p for p in bad_programs))
    if found["usercopy"]:
        reasons.append("usercopy: during the workload: %s" %
                       found["usercopy"][0])
    if found["oops"]:
        reasons.append("oops during the workload: %s" % found["oops"][0])
    live, why = live_outcome(rep["live"],
                             ph.get("live", []) + ph.get("done", []))
    want = "caught" if hardened == "y" else "missed"
    if rep["done"] is not None and live != want:
        reasons.append("live check %s, expected %s%s" %
                       (live, want, ": " + why if why else ""))
    lines = [
        "guest=%s" % (rep["kernel"] or "-").replace(" ", "/"),
        "stressors=%d ran=%d skipped=%d idle=%d failed=%d bogo_ops=%d" % (
            len(rep["stressors"]), len(ran), len(skipped), len(idle),
            len(failed), sum(s[3] for s in ran)),
        "programs=%s" % (",".join("%s:%s" % (p[0], "ok" if p[1] == "0"
                                              else "rc" + p[1])
                                  for p in rep["programs"]) or "-"),
        "usercopy_lines=%d oopses=%d warnings=%d stalls=%d workload_s=%s" % (
            len(found["usercopy"]), len(found["oops"]), len(found["warning"]),
            len(found["stall"]), rep["workload_s"] or "-"),
        "live=%s" % live,
        "result=%s" % ("build-failed" if build_failed else
                       "pass" if not reasons else "FAIL"),
    ]
    if reasons or notes:
        lines.append("reason: %s" % "; ".join(reasons + notes))
    for kind in ("warning", "stall"):
        if found[kind]:
            lines.append("first_%s: %s" % (kind, found[kind][0]))
    for s in skipped:
        lines.append("skipped: %s %s: %s" % (s[0], s[1], s[4]))
    for s in idle:
        lines.append("idle: %s %s: %s" % (s[0], s[1], s[4]))
    for s in erred:
        lines.append("erred: %s %s: %s" % (s[0], s[1], s[4]))
    return lines, not reasons


# stress-ng's own word that a stressor hit an error: "stress-ng: fail:
# [PID] NAME: message".  The guest reports a stressor that counted ops as
# ran, one that counted none as idle, whatever the log says.
FAIL_LINE = re.compile(r"stress-ng: fail: +\[[0-9]+\] ([a-z0-9-]+): (.*)$")


def with_logged_failures(rep, logs):
    """REP with the stressors whose stress-ng log LOGS says "fail:" marked:
    erred where they counted ops, failed where they counted none."""
    fails = {}
    for line in logs.splitlines():
        m = FAIL_LINE.search(line.strip())
        if m:
            fails.setdefault(m.group(1), m.group(2))
    rep["stressors"] = [
        (c, n, "erred" if state == "ran" else "failed", ops,
         "%s: %s" % (n, fails[n]))
        if state in ("ran", "idle") and n in fails else (c, n, state, ops, why)
        for c, n, state, ops, why in rep["stressors"]]
    return rep


def stress_logs(report_path):
    """The stress-ng logs beside the guest's report, as one text."""
    out = []
    for path in sorted(glob.glob(os.path.join(
            glob.escape(os.path.dirname(os.path.abspath(report_path))),
            "stress-*.log"))):
        with open(path, errors="replace") as f:
            out.append(f.read())
    return "\n".join(out)


def cmd_soak_verdict(args):
    if args.hardened not in ("y", "n"):
        raise UserError("--hardened takes y or n")
    console = ""
    try:
        with open(args.console, errors="replace") as f:
            console = f.read()
    except OSError as e:
        if not args.failed:
            raise UserError("cannot read the console log: %s" % e)
    try:
        with open(args.report, errors="replace") as f:
            report = f.read()
    except OSError:
        report = ""
    lines, passed = verdict(console, report, args.hardened,
                            args.timed_out == "yes", args.failed,
                            logs=stress_logs(args.report))
    for facts in args.facts:
        print(facts)
    print("\n".join(lines))
    return 0 if passed else 1


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""
    from . import bench
    bench.register_runs(sub)
    text = "a soak's verdict and record from its console and report"
    v = sub.add_parser("soak-verdict", help=text, description=text)
    v.add_argument("--console", required=True)
    v.add_argument("--report", required=True)
    v.add_argument("--hardened", required=True)
    v.add_argument("--timed-out", default="no", choices=("yes", "no"))
    v.add_argument("--facts", action="append", default=[],
                   help="a line of key=value words to print first")
    v.add_argument("--failed", metavar="REASON",
                   help="the soak never booted (its build failed): a "
                   "build-failed record with this reason")
    v.set_defaults(func=cmd_soak_verdict)


# The records: RESULTS/CELL/soak.txt on the machine that ran them,
# kernels/soak.tsv in the project (make matrix-record), shown by make
# matrix as a table of their own beside the boot-test cells.

RECORDS = os.path.join(TOP, "kernels", "soak.tsv")
FIELDS = ("kernel", "arch", "hardened", "config", "state", "alloc",
          "result", "stressors", "ran", "skipped", "idle", "failed",
          "bogo_ops",
          "programs", "usercopy_lines", "oopses", "warnings", "stalls",
          "live", "build_s", "soak_s", "date", "code", "reason")
KEY = FIELDS[:4]
HEADER_COMMENT = ("# Soak records (make matrix-record): the newest per "
                  "kernel, arch, HARDENED and config, from real runs.\n")


def parse_record(text, mtime):
    """The record of one soak.txt (matrix.record_words)."""
    words, reason = matrix.record_words(text)
    rec = {f: words.get(f, "") or "-" for f in FIELDS}
    rec["config"] = words.get("config", "") or "defconfig"
    rec["reason"] = reason
    rec["time"] = int(mtime)
    return rec


def local_records(results):
    """The records of the soaks in RESULTS (RESULTS/CELL/soak.txt)."""
    return [parse_record(text, mtime)
            for text, mtime in matrix.record_files(results, "soak.txt")]


def committed_records(path):
    out = []
    if not os.path.isfile(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            values = line.rstrip("\n").split("\t", len(FIELDS) - 1)
            if not values[0] or values[0] in ("kernel",) or \
                    values[0].startswith("#"):
                continue
            values += [""] * (len(FIELDS) - len(values))
            rec = dict(zip(FIELDS, values))
            rec["time"] = matrix.day_start(rec["date"])
            out.append(rec)
    return out


def newest(records):
    """The newest record per soak, by kernel version then the rest."""
    def order(a, b):
        return (matrix.version_cmp(a["kernel"], b["kernel"])
                or (("|".join(a[f] for f in KEY[1:]) >
                     "|".join(b[f] for f in KEY[1:])) -
                    ("|".join(a[f] for f in KEY[1:]) <
                     "|".join(b[f] for f in KEY[1:])))
                or b["time"] - a["time"])
    seen, out = set(), []
    for rec in sorted(records, key=functools.cmp_to_key(order)):
        key = tuple(rec[f] for f in KEY)
        if key not in seen:
            seen.add(key)
            out.append(rec)
    return out


def merged(results, records=RECORDS):
    return newest(local_records(results) + committed_records(records))


def format_records(rows):
    return HEADER_COMMENT + "\t".join(FIELDS) + "\n" + "".join(
        "\t".join(r[f] for f in FIELDS) + "\n" for r in rows)


TABLE_INTRO = """\
Soaks (make soak, docs/testing.md): a distro-class kernel (defconfig
plus ci/configs/soak.config) on a Debian 12 root filesystem under
stress-ng and real programs.  Pass: no usercopy: line and no oops during
the workload, no stressor failed (each ran, was skipped with stress-ng's
reason, or ran its time without counting an op: idle), every program
succeeded, and the final deliberate violation was caught (HARDENED=y) or
let through (n, the control).  A stressor that logged an error but did
its ops is listed, not failed.  One that fails in the control shows what
the kernel itself cannot do (an option or a scheduling policy of later
releases); a hardened soak whose only fault is such stressors, failing
alike, passes and says so.
"""


def table(rows):
    """The soak records as a Markdown table."""
    lines = ["| kernel | arch | HARDENED_USERCOPY | config | stressors "
             "(ran/skipped/idle/failed) | bogo ops | programs | usercopy: "
             "lines | oopses | live check | result | build s | soak s | "
             "date | code |", "|---" * 15 + "|"]
    controls = {(r["kernel"], r["arch"], r["config"]):
                failed_stressors(r["reason"])
                for r in rows if r["hardened"] == "n"
                and r["live"] == "missed"}
    for r in rows:
        result, reason = judged(r, controls)
        if reason:
            result += " (%s)" % matrix.short_reason(reason)
        lines.append("| " + " | ".join((
            r["kernel"], r["arch"],
            "y" if r["hardened"] == "y" else "n (control)", r["config"],
            "%s (%s/%s/%s/%s)" % (r["stressors"], r["ran"], r["skipped"],
                                  r["idle"], r["failed"]),
            r["bogo_ops"], r["programs"].replace(",", ", "),
            r["usercopy_lines"], r["oopses"], r["live"], result,
            r["build_s"], r["soak_s"], r["date"], r["code"])) + " |")
    return TABLE_INTRO + "\n" + "\n".join(lines) + "\n"
