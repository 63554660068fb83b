"""The support matrix, from real runs.

Every boot-test cell leaves a cell.txt (key=value words, and a "reason:"
line when it failed) in the results directory of the machine that ran
it; kernels/matrix.tsv keeps the records in the project, so a new machine
(an empty cache) still knows what was measured, and when.  The matrix is
the newest record per kernel/arch/allocator/hardening (a local result of
the same day beats a committed one), shown as two Markdown tables:
kernel x arch (which cells passed), then every cell with its stages and
times.

  python3 -m uckit matrix [--results DIR] [--records FILE]
  python3 -m uckit matrix --record    (make matrix-record)
  python3 -m uckit matrix --code
  python3 -m uckit matrix --current

--record writes the merged newest records back to the records file and,
for the project's own records file, the tables into docs/matrix.md.

Each record also says which code it tested: the project's commit, with
"+" when the cell inputs (CELL_INPUTS) had uncommitted changes ("?" for
records made before cells said so, or outside a git checkout).  --code
prints that id for this checkout (ci/boot-test.sh records it).  A record
is current when none of the cell inputs changed between its commit and
HEAD and the checkout has no uncommitted changes to them: the matrix
says how many are, and --current lists them (make boot-stale skips
those cells)."""

import datetime
import functools
import glob
import os
import re
import subprocess
import sys

from . import TOP, UserError, arch, cache, log

RECORDS = os.path.join(TOP, "kernels", "matrix.tsv")
DOCUMENT = os.path.join(TOP, "docs", "matrix.md")

# What decides a cell's outcome, as git pathspecs: the series and what it
# applies, the build (configs, arch facts, kbuild), the guest suite and
# its expectations, and the boot (its initramfs included).  Not the
# orchestration (which cells run, when, and how their records are shown:
# ci/boot-test.sh, tests/check.sh, this module, uckit/plan.py, make run's
# uckit/job.py, the budgets of uckit/knobs.py), the soak's verdict
# (uckit/soak.py), the bench's records (uckit/bench.py), the rules' own
# tests, the docs or the records.
CELL_INPUTS = ("ci/lib.sh", "ci/boot.sh", "ci/initramfs.sh", "ci/kbuild.sh",
               "ci/kconfig.sh", "ci/configs", "uckit", "tests/guest",
               "patches", "cocci", "series", ":!cocci/tests",
               ":!uckit/matrix.py", ":!uckit/plan.py", ":!uckit/job.py",
               ":!uckit/knobs.py", ":!uckit/soak.py", ":!uckit/pipeline.py",
               ":!uckit/bench.py")

# The columns of the records file, in order.
FIELDS = ("kernel", "arch", "alloc", "hardened", "state", "result",
          "build_s", "boot_s", "date", "applied", "built", "booted",
          "suite", "code", "reason")
# What makes a cell: its records compete, the newest wins.
KEY = FIELDS[:4]
# Words a cell.txt may lack (written before they existed): "?".
STAGES = ("applied", "built", "booted", "suite", "code")

HEADER_COMMENT = ("# Boot-test cell records (make matrix-record): the "
                  "newest per cell, from real runs.\n")


# Reading records.  A record is a dict of FIELDS plus "time": when it was
# made, in seconds since the epoch (a cell.txt's mtime; a committed
# record's date at 00:00 UTC, so a local result of the same day is newer).

def record_words(text):
    """(words, reason) of a record file (cell.txt, a soak's soak.txt):
    key=value words on any line but the "reason: " one, which holds the
    reason (the last one wins), and other "label: " lines (a soak's list
    of skipped stressors), which hold none."""
    words = {}
    reason = ""
    for line in text.splitlines():
        if line.startswith("reason: "):
            reason = line[len("reason: "):]
            continue
        if ": " in line.split("=", 1)[0]:
            continue
        for word in line.split():
            key, _, value = word.partition("=")
            words[key] = value if "=" in word else word
    return words, reason


def record_files(results, name):
    """(text, mtime) of every RESULTS/CELL/NAME."""
    out = []
    for path in sorted(glob.glob(os.path.join(glob.escape(results), "*",
                                              name))):
        if not os.path.isfile(path):
            continue
        with open(path, errors="replace") as f:
            out.append((f.read(), os.stat(path).st_mtime))
    return out


def parse_cell(text, mtime):
    """The record of one cell.txt (record_words)."""
    words, reason = record_words(text)
    rec = {f: words.get(f, "") for f in FIELDS}
    rec["reason"] = reason
    for f in STAGES:
        rec[f] = rec[f] or "?"
    rec["time"] = int(mtime)
    return rec


def local_records(results):
    """The records of the cells in RESULTS (RESULTS/CELL/cell.txt)."""
    return [parse_cell(text, mtime)
            for text, mtime in record_files(results, "cell.txt")]


def day_start(date):
    """DATE (YYYY-MM-DD) at 00:00 UTC in seconds since the epoch; 0 (older
    than anything) for a date that is not one."""
    try:
        day = datetime.date.fromisoformat(date)
    except ValueError:
        return 0
    epoch = datetime.date(1970, 1, 1)
    return (day - epoch).days * 86400


def parse_records(text):
    """The records of a records file: tab-separated FIELDS under a header
    line ("kernel\\t..."); '#' lines are comments.  A file written before
    the code column (its header has none) gets code "?", and what stands
    in that column is the start of the reason."""
    out = []
    coded = False
    for line in text.splitlines():
        values = line.split("\t", len(FIELDS) - 1)
        values += [""] * (len(FIELDS) - len(values))
        if values[0] == "kernel":
            coded = values[FIELDS.index("code")] == "code"
            continue
        if not values[0] or values[0].startswith("#"):
            continue
        rec = dict(zip(FIELDS, values))
        if not coded:
            rec["reason"] = rec["code"] + ("\t" + rec["reason"]
                                           if rec["reason"] else "")
            rec["code"] = "?"
        rec["code"] = rec["code"] or "?"
        rec["time"] = day_start(rec["date"])
        out.append(rec)
    return out


def committed_records(path):
    """The records of the records file PATH (none if there is none)."""
    if not os.path.isfile(path):
        return []
    with open(path, errors="replace") as f:
        return parse_records(f.read())


# The newest record per cell.

def _weight(c):
    """A character's weight in a version outside its digits: letters
    first, then the rest; "~" before everything, even the end."""
    if c == "~":
        return -1
    if c.isascii() and c.isalpha():
        return ord(c)
    return ord(c) + 256


_DIGITS = re.compile(r"[0-9]*")


def _digit(c):
    return "0" <= c <= "9"


def version_cmp(a, b):
    """<0, 0 or >0 as version A sorts before, with or after B: runs of
    digits compare by value, the rest by _weight (GNU sort -V, Debian's
    verrevcmp)."""
    i = j = 0
    while i < len(a) or j < len(b):
        while ((i < len(a) and not _digit(a[i]))
               or (j < len(b) and not _digit(b[j]))):
            ca = 0 if i == len(a) or _digit(a[i]) else _weight(a[i])
            cb = 0 if j == len(b) or _digit(b[j]) else _weight(b[j])
            if ca != cb:
                return ca - cb
            i += 1
            j += 1
        da = _DIGITS.match(a, i).group()
        db = _DIGITS.match(b, j).group()
        if int(da or 0) != int(db or 0):
            return int(da or 0) - int(db or 0)
        i += len(da)
        j += len(db)
    return 0


def _cmp(x, y):
    return (x > y) - (x < y)


# The fields of _line after the key and the time.
_LINE = ("state", "result", "build_s", "boot_s", "date", "reason",
         "applied", "built", "booted", "suite", "code")


def _line(rec):
    """A record as one line: the last tie-break, so that equally new
    records of one cell always give the same winner."""
    return "%s|%s\t%s" % ("|".join(rec[f] for f in KEY), rec["time"],
                          "\t".join(rec[f] for f in _LINE))


def _order(a, b):
    """Table order: kernel (by version), then arch|alloc|hardened, then
    the newest first."""
    return (version_cmp(a["kernel"], b["kernel"])
            or _cmp("|".join(a[f] for f in KEY[1:]),
                    "|".join(b[f] for f in KEY[1:]))
            or _cmp(b["time"], a["time"])
            or _cmp(_line(a), _line(b)))


def newest(records):
    """The newest record of each cell, in table order."""
    seen = set()
    out = []
    for rec in sorted(records, key=functools.cmp_to_key(_order)):
        key = tuple(rec[f] for f in KEY)
        if key not in seen:
            seen.add(key)
            out.append(rec)
    return out


def merged(results, records):
    """The newest record per cell of a results directory and a records
    file together."""
    return newest(local_records(results) + committed_records(records))


def format_records(rows):
    """The records file of ROWS: the comment, the header, a line each."""
    lines = [HEADER_COMMENT, "\t".join(FIELDS) + "\n"]
    lines += ["\t".join(rec[f] for f in FIELDS) + "\n" for rec in rows]
    return "".join(lines)


# Which code a record ran.

def _git(*args):
    """git ARGS in the project's checkout; None where git cannot run."""
    try:
        return subprocess.run(["git", "-C", TOP] + list(args),
                              capture_output=True, text=True)
    except OSError:
        return None


@functools.lru_cache(maxsize=None)
def _inputs_changed():
    """Whether the checkout has uncommitted changes to the cell inputs
    (untracked files included)."""
    r = _git("status", "--porcelain", "--", *CELL_INPUTS)
    return r is not None and r.returncode == 0 and r.stdout.strip() != ""


def code_id():
    """This checkout's code: HEAD's short commit id, "+" when the cell
    inputs have uncommitted changes; "?" outside a git checkout."""
    r = _git("rev-parse", "--short=12", "HEAD")
    if r is None or r.returncode != 0 or not r.stdout.strip():
        return "?"
    return r.stdout.strip() + ("+" if _inputs_changed() else "")


@functools.lru_cache(maxsize=None)
def current(code):
    """Whether a record of CODE ran the cell inputs of this checkout: a
    commit whose cell inputs are HEAD's, in a checkout without
    uncommitted changes to them ("?" and "+" codes never are)."""
    if not re.fullmatch(r"[0-9a-f]{4,40}", code):
        return False
    r = _git("diff", "--quiet", code, "HEAD", "--", *CELL_INPUTS)
    return (r is not None and r.returncode == 0
            and not _inputs_changed())


# The tables.

GRID_INTRO = """\
Kernel x arch: the cells that passed (slub, slab, or a config profile
such as slub-debug, docs/testing.md; -n = the HARDENED=n control, which
must let every violation through); FAIL/build failed
name the first reason; n/a: the tree has no such arch; a blank cell
was not run.
"""

CELLS_INTRO = """\
Every cell: how far it got (applied: the series and its wiring audit,
or native; built; booted: the guest's init ran and reported; suite:
verdicts that matched, of all), then the result.
"""


def short_reason(reason):
    """A failure's reason as the grid shows it: a linker message without
    its paths, a suite that never ended said so, up to the first "; ",
    at most 80 characters."""
    r = re.sub(r"^[^ ]*ld: [^ ]*: ", "", reason, count=1)
    r = re.sub(r"^not ok [0-9]+ guest_suite_completed # no UC-SUITE-DONE "
               r"marker ", "suite never ended ", r, count=1)
    r = re.sub(r"; .*$", "", r, count=1)
    if len(r) > 80:
        r = r[:77] + "..."
    return r


def cell_name(rec):
    """The allocator, "-n" for the HARDENED=n control."""
    return rec["alloc"] + ("-n" if rec["hardened"] == "n" else "")


def failure(rec):
    """How the grid names a cell that neither passed nor is n/a."""
    result = "build failed" if rec["result"] == "build-failed" \
        else rec["result"]
    r = short_reason(rec["reason"])
    return "%s: %s%s" % (cell_name(rec), result, " (%s)" % r if r else "")


def grid_cell(recs):
    """One square of the grid from the records of one kernel and arch:
    the cells that passed, else "n/a: why", then the failures in bold."""
    passed = [cell_name(r) for r in recs if r["result"] == "pass"]
    na = [r for r in recs if r["result"] == "n/a"]
    bad = [failure(r) for r in recs if r["result"] not in ("pass", "n/a")]
    text = ", ".join(passed)
    if not text and na:
        text = "n/a: " + na[-1]["reason"]
    if bad:
        text += ("; " if text else "") + "**" + "; ".join(bad) + "**"
    return text


def grid(rows, arches):
    """The kernel x arch table: a row per kernel, in ROWS' order, its
    "how" from the kernel's first record; a column per arch of ARCHES."""
    kernels = {}
    for rec in rows:
        kernels.setdefault(rec["kernel"], {"how": rec["state"], "by": {}})
        kernels[rec["kernel"]]["by"].setdefault(rec["arch"], []).append(rec)
    lines = ["| kernel | how |" + "".join(" %s |" % a for a in arches),
             "|---|---|" + "---|" * len(arches)]
    for kern, k in kernels.items():
        lines.append("| %s | %s |" % (kern, k["how"]) +
                     "".join(" %s |" % grid_cell(k["by"].get(a, []))
                             for a in arches))
    return "\n".join(lines) + "\n"


def cells_table(rows):
    """Every cell: its stages, result, times, date and code."""
    lines = ["| kernel | how | arch | allocator | HARDENED_USERCOPY | "
             "applied | built | booted | suite | result | build s | "
             "boot+suite s | date | code |",
             "|---" * 14 + "|"]
    for r in rows:
        hardened = "y" if r["hardened"] == "y" else "n (control)"
        lines.append("| " + " | ".join(
            (r["kernel"], r["state"], r["arch"], r["alloc"], hardened,
             r["applied"], r["built"], r["booted"], r["suite"], r["result"],
             r["build_s"], r["boot_s"], r["date"], r["code"])) + " |")
    return "\n".join(lines) + "\n"


def freshness(rows, is_current):
    """How many records ran the cell inputs of this checkout, how many
    older ones, how many cannot say (code "?")."""
    unknown = sum(1 for r in rows if r["code"] == "?")
    fresh = sum(1 for r in rows if r["code"] != "?" and is_current(r["code"]))
    return ("Code: %d of %d records ran the cell inputs of this checkout\n"
            "(series, patches, semantic patches, configs, build and boot "
            "scripts,\nguest suite); %d ran older ones; %d predate the code "
            "column.\n" % (fresh, len(rows), len(rows) - fresh - unknown,
                           unknown))


# docs/matrix.md says no count of current records: that count belongs
# to a checkout, and any commit to the cell inputs would leave the page
# stale (make matrix prints it).
CODE_NOTE = """\
Code: the commit each record ran ("+": with uncommitted changes to the
cell inputs); `make matrix` says how many ran this checkout's cell
inputs, `make boot-stale` re-runs the others.
"""


def tables(rows, arches=None, is_current=current):
    """The matrix as Markdown: the grid, every cell, how fresh (with
    IS_CURRENT None, only what the code column means)."""
    if arches is None:
        arches = arch.names()
    return "\n".join((GRID_INTRO, grid(rows, arches), CELLS_INTRO,
                      cells_table(rows),
                      CODE_NOTE if is_current is None
                      else freshness(rows, is_current)))


def document(text):
    """docs/matrix.md around the tables TEXT."""
    return ("# Support matrix (measured)\n\n"
            "Generated by `make matrix-record` from `kernels/matrix.tsv`, "
            "the committed boot-test cell records, `kernels/soak.tsv`, "
            "the soaks', and `kernels/bench.tsv`, the bench's: do not edit "
            "by hand.\n\n"
            + text)


# The command.

def _write(path, text):
    """PATH holds TEXT, or what it held before: never half of it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)


def _shown(path):
    """PATH relative to the project when it is in the project."""
    rel = os.path.relpath(os.path.abspath(path), TOP)
    return path if rel.startswith("..") else rel


def cmd_matrix(args):
    if args.code:
        print(code_id())
        return 0
    results = args.results or cache.results_dir()
    if args.results and not os.path.isdir(results):
        raise UserError("--results %s: no such directory (give the "
                        "directory that holds CELL/cell.txt, or leave the "
                        "option out for %s)" % (results, cache.results_dir()))
    records = args.records or RECORDS
    if args.records and not args.record and not os.path.isfile(records):
        raise UserError("--records %s: no such file (leave the option out "
                        "for kernels/matrix.tsv)" % records)
    rows = merged(results, records)
    if args.current:
        for rec in rows:
            if current(rec["code"]):
                print(" ".join(rec[f] for f in KEY))
        return 0
    text = tables(rows)
    page = tables(rows, is_current=None)
    # The soaks (uckit/soak.py), under the cells: the project's records
    # go with the project's cell records only.
    from . import soak
    project = os.path.realpath(records) == os.path.realpath(RECORDS)
    soak_rows = soak.merged(results, soak.RECORDS if project else "")
    if soak_rows:
        text += "\n" + soak.table(soak_rows)
        page += "\n" + soak.table(soak_rows)
    from . import bench
    bench_rows = bench.merged(results, bench.RECORDS if project else "")
    if bench_rows:
        text += "\n" + bench.table(bench_rows)
        page += "\n" + bench.table(bench_rows)
    if args.record:
        _write(records, format_records(rows))
        log("matrix: %d cell records in %s" % (len(rows), _shown(records)))
        if project and soak_rows:
            _write(soak.RECORDS, soak.format_records(soak_rows))
            log("matrix: %d soak records in %s"
                % (len(soak_rows), _shown(soak.RECORDS)))
        if project and bench_rows:
            _write(bench.RECORDS, bench.format_records(bench_rows))
            log("matrix: %d bench records in %s"
                % (len(bench_rows), _shown(bench.RECORDS)))
        # docs/matrix.md is always the tables of the project's records,
        # never of a records file of one's own.
        if os.path.realpath(records) == os.path.realpath(RECORDS):
            _write(DOCUMENT, document(page))
            log("matrix: %s written" % _shown(DOCUMENT))
    sys.stdout.write(text)
    return 0


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""
    text = ("the support matrix: the newest boot-test record per cell, of "
            "kernels/matrix.tsv and this machine's results, as Markdown "
            "tables")
    v = sub.add_parser("matrix", help=text, description=text)
    v.add_argument("--results", metavar="DIR",
                   help="the boot-test results (default: $RESULTS, else "
                   "the cache's results/)")
    v.add_argument("--records", metavar="FILE",
                   help="the committed records (default: "
                   "kernels/matrix.tsv)")
    what = v.add_mutually_exclusive_group()
    what.add_argument("--record", action="store_true",
                      help="write the newest records back to the records "
                      "file and, for kernels/matrix.tsv, docs/matrix.md "
                      "(make matrix-record)")
    what.add_argument("--code", action="store_true",
                      help="print the code id of this checkout (commit, "
                      "'+' for uncommitted changes to the cell inputs)")
    what.add_argument("--current", action="store_true",
                      help="print 'KERNEL ARCH ALLOC HARDENED' of each cell "
                      "whose newest record ran this checkout's cell inputs")
    v.set_defaults(func=cmd_matrix)
