"""The bench's records: what `make bench` (ci/bench.sh) measured, one row
per kernel, arch, config and operation, in instructions (QEMU -icount
shift=0).  ci/bench.sh writes RESULTS/bench/VERSION-ARCH-ALLOC.tsv in the
cache; `make matrix-record` keeps the newest row per operation in
kernels/bench.tsv and shows them in docs/matrix.md.
"""

import functools
import glob
import os
import re
import sys

from . import TOP, matrix

RECORDS = os.path.join(TOP, "kernels", "bench.tsv")
# The config profile ci/bench.sh builds by default (ci/configs/bench.config),
# run on the arches whose uckit/arches file says bench = yes.
PROFILE = "bench"
FIELDS = ("kernel", "arch", "alloc", "operation", "hardened", "off",
          "boot_off", "checks", "date", "code")
KEY = FIELDS[:4]
HEADER_COMMENT = ("# Bench records (make bench, make matrix-record): "
                  "instructions per operation, the newest per kernel, "
                  "arch, config and operation.\n")


def _rows(text, time):
    out = []
    for line in text.splitlines():
        values = line.split("\t")
        if not values[0] or values[0] == "kernel" or \
                values[0].startswith("#"):
            continue
        values += [""] * (len(FIELDS) - len(values))
        rec = dict(zip(FIELDS, values[:len(FIELDS)]))
        rec["time"] = time
        out.append(rec)
    return out


def local_records(results):
    """The rows of RESULTS/bench/*.tsv, each as new as its file."""
    out = []
    for path in sorted(glob.glob(os.path.join(glob.escape(results), "bench",
                                              "*.tsv"))):
        with open(path, errors="replace") as f:
            out += _rows(f.read(), int(os.stat(path).st_mtime))
    return out


def committed_records(path=RECORDS):
    if not os.path.isfile(path):
        return []
    with open(path, errors="replace") as f:
        return [dict(r, time=matrix.day_start(r["date"]))
                for r in _rows(f.read(), 0)]


def merged(results, path=RECORDS):
    """The newest row per key, sorted by kernel version, arch, config and
    the order the bench measured the operations in."""
    best = {}
    order = {}
    for rec in local_records(results) + committed_records(path):
        key = tuple(rec[f] for f in KEY)
        order.setdefault(rec["operation"], len(order))
        if key not in best or rec["time"] > best[key]["time"]:
            best[key] = rec
    def cmp(a, b):
        return (matrix.version_cmp(a["kernel"], b["kernel"])
                or (a["arch"] > b["arch"]) - (a["arch"] < b["arch"])
                or (a["alloc"] > b["alloc"]) - (a["alloc"] < b["alloc"])
                or order[a["operation"]] - order[b["operation"]])
    return sorted(best.values(), key=functools.cmp_to_key(cmp))


def format_records(rows):
    return HEADER_COMMENT + "\t".join(FIELDS) + "\n" + "".join(
        "\t".join(r[f] for f in FIELDS) + "\n" for r in rows)


TABLE_INTRO = """\
Bench (make bench and make bench-work, docs/testing.md): instructions
per operation under QEMU -icount shift=0, the same tree built hardened
and not (off), and the hardened build booted with hardened_usercopy=off
where it has the switch.  Per check: the added instructions over the
checked copies one operation makes (our backports; tests/bench/bench.c
and tests/soak/bench.sh say which).  Config soak: the soak's
distro-class kernel under whole workloads (make bench-work); where that
cell has no HARDENED=n run, "added" is against the switch off (marked
"vs switch off"), which costs a call and a test per check more than off.
"""


def _num(s):
    try:
        return float(s)
    except ValueError:
        return None


def table(rows):
    lines = ["| kernel | arch | config | operation | hardened | off | "
             "added | per check | hardened_usercopy=off | date | code |",
             "|---" * 11 + "|"]
    for r in rows:
        a, b, c = _num(r["hardened"]), _num(r["off"]), _num(r["boot_off"])
        checks = int(r["checks"]) if r["checks"].isdigit() else 0
        added = per = boot = "-"
        base, mark = b, ""
        if not b and c:
            base, mark = c, " vs switch off"
        if a is not None and base:
            pct = (a - base) * 100 / base
            added = ("%+.1f (%+.2f %%)" if abs(pct) < 1 else
                     "%+.1f (%+.1f %%)") % (a - base, pct) + mark
            if checks:
                per = "%.1f" % ((a - base) / checks)
            if c is not None and b:
                boot = "%+.1f" % (c - b)
        lines.append("| " + " | ".join((
            r["kernel"], r["arch"], r["alloc"], r["operation"],
            r["hardened"] or "-", r["off"] or "-", added, per, boot,
            r["date"], r["code"])) + " |")
    return TABLE_INTRO + "\n" + "\n".join(lines) + "\n"


# The whole-workload bench (ci/bench-work.sh): the guest prints
#   # UC-WORK NAME MIN RUN1 RUN2 ...
# (tests/soak/bench.sh) in instructions, -1 for a workload that failed.
WORK_LINE = re.compile(r"^# UC-WORK ([a-z0-9-]+) (-?\d+)((?: \d+)*)\s*$")


def work_runs(text):
    """[(name, smallest, spread %)] of a console log: how far the runs
    spread is the largest over the smallest, in per cent."""
    out = []
    for line in text.replace("\r", "").splitlines():
        m = WORK_LINE.match(line)
        if not m:
            continue
        best = int(m.group(2))
        runs = [int(x) for x in m.group(3).split()]
        spread = (max(runs) - best) * 100.0 / best if best > 0 and runs \
            else 0.0
        out.append((m.group(1), best, spread))
    return out


def cmd_bench_runs(args):
    with open(args.console, errors="replace") as f:
        rows = work_runs(f.read())
    for name, best, spread in rows:
        sys.stdout.write("%s\t%d\t%.1f\n" % (name, best, spread))
    return 0



def register_runs(sub):
    """The bench-runs verb; uckit/soak.py adds it with the soak's verbs
    (the whole-workload bench runs on the soak's kernel and image)."""
    v = sub.add_parser("bench-runs", help="the whole-workload bench's "
                       "figures in a console log: NAME, smallest run, "
                       "spread %% (tab-separated)")
    v.add_argument("console")
    v.set_defaults(func=cmd_bench_runs)
