"""The host side of the boot suite (ci/boot.sh): which expectation files a
kernel build reads and their merged table, the guest's KTAP report, and
the verdicts that compare the two.

  expect     the files chosen and the merged table (case, hardened, not
             hardened, note), as boot.sh --print-expectations prints them
  ktap       the guest's report, from its second serial port or its console
  verdicts   the report against the table: verdicts.ktap on stdout, exit
             status 0 only if the guest finished and every case matched

The files chosen, in order: tests/guest/expect/default; the files the
arch's "expect =" names (uckit/arches/ARCH.ini; NAME@X.Y only for kernels
X.Y and later); since-X.Y for every X.Y up to the kernel's branch, in
version order; every config-NAME (a config profile's differences, which
say what they require); each --expect FILE.  Nothing else is looked for: a
difference of one branch is a since-X.Y file (it holds for the later
branches too) or an arch file with NAME@X.Y.  A file with "requires
CONFIG_X" lines counts only where the build's .config sets each to y.  The
default file describes the table.

Every file is read as bytes decoded as latin-1 and written back the same
way: any byte passes through unchanged, and one character is one byte (the
awk, sed and cut this replaces worked on bytes)."""

import glob
import os
import re
import sys

from . import TOP, UserError, arch

EXPECT_DIR = os.path.join(TOP, "tests", "guest", "expect")
MALFORMED = "%s:%d: expected CASE | HARDENED | NOT HARDENED"
DONE_MARKER = "# UC-SUITE-DONE"
# The lines of a KTAP report; anything else on a console is the kernel's.
KTAP_LINE = re.compile(r"(KTAP version|[0-9]+\.\.[0-9]+|ok |not ok |# |"
                       r"Bail out!)")
OBS_LINE = re.compile(r"# obs: ([^ ]*) (.*)", re.S)
SPACE = "[ \t\n\v\f\r]"      # the C locale's [[:space:]]


# --- reading and writing bytes -----------------------------------------------

def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode("latin-1")


def read_or_empty(path):
    """The text of PATH, or "" where it cannot be read."""
    try:
        return read_text(path)
    except OSError:
        return ""


def lines_of(text):
    """The lines of TEXT, split at "\\n" only (not at other line breaks);
    a last line without one counts."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def write_out(text):
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("latin-1"))
    sys.stdout.buffer.flush()


# --- the kernel's branch -----------------------------------------------------

def version_key(version):
    """A sort key that orders versions as sort -V does for X.Y: runs of
    digits compare as numbers (4.9 < 4.13 < 5.19)."""
    parts = re.split(r"([0-9]+)", version)
    # re.split with a group alternates text and digits, text first: the
    # same position always holds the same type.
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def since(version, branch):
    """Whether a kernel of BRANCH is VERSION or later."""
    return version_key(version) <= version_key(branch)


def kernel_branch(kbuild):
    """X.Y of the kernel built in KBUILD (include/config/kernel.release);
    "" where the release is unknown."""
    release = read_or_empty(os.path.join(kbuild, "include", "config",
                                         "kernel.release"))
    for line in lines_of(release):
        m = re.match(r"[0-9]*\.[0-9]*", line)
        if m:
            return m.group(0)
    return ""


# --- the choice of files -----------------------------------------------------

def requirements(path):
    """The CONFIG_X symbols of PATH's "requires CONFIG_X" lines (the rest
    of each line, as is)."""
    out = []
    for line in lines_of(read_text(path)):
        m = re.match(r"requires%s+" % SPACE, line)
        if m:
            out.append(line[m.end():])
    return out


def requires_met(path, kbuild):
    """Whether KBUILD's .config sets every symbol PATH requires to y."""
    symbols = requirements(path)
    if not symbols:
        return True
    config = os.path.join(kbuild, ".config")
    if not os.path.isfile(config):
        raise UserError("%s requires %s, but %s has no .config to tell: "
                        "give --kbuild the configured kernel build directory"
                        % (os.path.basename(path), symbols[0], kbuild))
    lines = set(lines_of(read_text(config)))
    return all(s + "=y" in lines for s in symbols)


def arch_files(arch_name, words, branch, kbuild):
    """The names of the arch's "expect =" WORDS that hold for BRANCH."""
    out = []
    for word in words.split():
        name, at, version = word.partition("@")
        if at and not branch:
            raise UserError("%s (uckit/arches/%s.ini) holds from %s on, but "
                            "%s has no include/config/kernel.release to "
                            "tell: give --kbuild the kernel's build directory"
                            % (word, arch_name, version, kbuild))
        if not at or since(version, branch):
            out.append(name)
    return out


def since_files(expect_dir, branch):
    """The since-X.Y names of EXPECT_DIR that hold for BRANCH, in version
    order ("" holds none)."""
    if not branch:
        return []
    names = [os.path.basename(p)
             for p in glob.glob(os.path.join(expect_dir, "since-*"))
             if os.path.isfile(p)]
    names.sort(key=lambda n: (version_key(n[len("since-"):]), n))
    return [n for n in names if since(n[len("since-"):], branch)]


def choose_files(expect_dir, arch_name, arch_expect, kbuild, extra=()):
    """The paths of the expectation files KBUILD's kernel reads, in order
    (later ones override earlier ones)."""
    for path in extra:
        if not os.path.isfile(path):
            raise UserError("no expectation file %s: give --expect an "
                            "existing file" % path)
    branch = kernel_branch(kbuild)
    names = arch_files(arch_name, arch_expect, branch, kbuild)
    names += since_files(expect_dir, branch)
    # config-NAME: the differences of a config profile, each file chosen
    # where the build's .config sets what its "requires" lines name.
    names += sorted(os.path.basename(p) for p in
                    glob.glob(os.path.join(expect_dir, "config-*")))
    files = [os.path.join(expect_dir, "default")]
    for name in names:
        path = os.path.join(expect_dir, name)
        if not os.path.isfile(path):
            raise UserError("no expectation file %s: fix \"expect =\" in "
                            "uckit/arches/%s.ini" % (path, arch_name))
        if requires_met(path, kbuild):
            files.append(path)
    return files + [p for p in extra if requires_met(p, kbuild)]


def choose(arch_name, kbuild, extra=()):
    """choose_files() for a supported arch, from its uckit/arches/ facts."""
    facts = arch.get(arch_name)
    if not os.path.isdir(kbuild):
        raise UserError("no kernel build directory %s: give --kbuild the "
                        "directory the kernel was built in" % kbuild)
    return choose_files(EXPECT_DIR, arch_name, facts.expect, kbuild, extra)


# --- the merge ---------------------------------------------------------------

class Malformed(ValueError):
    """A table line without exactly three "|"-separated columns."""


def trim(s):
    """S without leading and trailing blanks, inner runs of them one space."""
    return re.sub(r"[ \t]+", " ", re.sub(r"^[ \t]+|[ \t]+$", "", s))


def parse_line(line):
    """(case, hardened, not hardened, note) of one table line, "=" kept as
    is and "" for no note; None for a line that holds no row."""
    if re.match(r"requires[ \t]", line):
        return None
    line, _, note = line.partition("#")
    if trim(line) == "":
        return None
    columns = line.split("|")
    if len(columns) != 3:
        raise Malformed(line)
    return tuple(trim(c) for c in columns) + (trim(note),)


def override(old, row):
    """OLD with ROW's columns where they are not "=" and ROW's note where
    it has one."""
    case, hardened, plain, note = row
    return (case, old[1] if hardened == "=" else hardened,
            old[2] if plain == "=" else plain, note or old[3])


def merge(paths):
    """The rows (case, hardened, not hardened, note) of the tables in PATHS,
    in the order each case first appears, each overridden by the case's
    later lines ("=" on a case's first line is "")."""
    rows = {}
    errors = []
    for path in paths:
        for number, line in enumerate(lines_of(read_text(path)), 1):
            try:
                row = parse_line(line)
            except Malformed:
                errors.append(MALFORMED % (path, number))
                continue
            if row is not None:
                first = (row[0], "", "", "")
                rows[row[0]] = override(rows.get(row[0], first), row)
    if errors:
        raise UserError("\n".join(errors) + "\nfix those lines of the "
                        "expectation files (tests/guest/expect/default "
                        "describes the format)")
    return list(rows.values())


def table_text(paths, rows):
    """The "# expectations: FILE ... " line, then one TSV line a row."""
    head = "# expectations: " + "".join(os.path.basename(p) + " "
                                        for p in paths)
    return head + "\n" + "\n".join("\t".join(r) for r in rows) + "\n"


def read_table(path):
    """The rows of a table_text() file, as [case, hardened, not hardened,
    note]: a row never starts with "#" (the merge cuts lines there)."""
    rows = []
    for line in lines_of(read_text(path)):
        if line and not line.startswith("#"):
            rows.append((line.split("\t") + ["", "", ""])[:4])
    return rows


# --- the guest's report ------------------------------------------------------

def extract_ktap(text):
    """The KTAP lines of TEXT from its first "KTAP version 1" line on, CRs
    dropped: a console also carries the kernel's lines."""
    lines = lines_of(text.replace("\r", ""))
    for start, line in enumerate(lines):
        if line.startswith("KTAP version 1"):
            return "".join(k + "\n" for k in lines[start:]
                           if KTAP_LINE.match(k))
    return ""


def finished(report):
    """Whether the report carries the suite's end marker."""
    return any(line.startswith(DONE_MARKER) for line in lines_of(report))


def guest_report(serial, console):
    """(report, "serial" or "console"): the second serial port's report,
    unless only the console's is complete."""
    report = extract_ktap(read_or_empty(serial))
    if not finished(report):
        fallback = extract_ktap(read_or_empty(console))
        if finished(fallback):
            return fallback, "console"
    return report, "serial"


def observations(report):
    """{case: observation} from the "# obs: CASE OBSERVATION" lines, in
    report order; a case's first observation counts."""
    obs = {}
    for line in lines_of(report):
        m = OBS_LINE.match(line)
        if m:
            # CASE<TAB>OBSERVATION without trailing blanks, split at tabs:
            # a tab inside CASE ends it (the observation is a word list).
            fields = ("%s\t%s" % m.groups()).rstrip(" \t").split("\t")
            obs.setdefault(fields[0], fields[1] if len(fields) > 1 else "")
    return obs


def last_console_line(console):
    """The console's last non-blank line, blanks squeezed, without QEMU's
    own messages, quotes or backslashes, cut to 60 bytes: where a guest
    that never finished stopped."""
    for line in reversed(lines_of(console.replace("\r", ""))):
        line = re.sub(r"qemu-system-[a-z0-9_]*: .*", "", line, count=1,
                      flags=re.S)
        line = re.sub(SPACE + "+", " ", line)
        line = line[1:] if line.startswith(" ") else line
        line = line[:-1] if line.endswith(" ") else line
        if line:
            return line[:60].replace('"', "").replace("\\", "")
    return ""


# --- the verdicts ------------------------------------------------------------

def completion(done, qemu_rc, last_line):
    """(ok, the text after the name) of the first verdict, the suite's
    completion."""
    if done:
        return True, ""
    reason = "timed out" if qemu_rc == 124 else "qemu exited with %d" % qemu_rc
    if last_line:
        reason += ', console ended: "%s"' % last_line
    return False, " # no UC-SUITE-DONE marker (%s)" % reason


def case_verdict(want, note, obs):
    """(ok, the text after the name) of one expected case; OBS is None
    where the case was not observed."""
    if want == "skip":
        return True, " # SKIP %s" % note
    if obs is None:
        return False, ' # expected "%s", not observed' % want
    wanted = [w.strip() for w in want.split(" or ")]
    if obs == "n/a":
        # The module was built without the routine (a kernel before
        # copy_to_iter(), after __copy_from_user_nocache(), an arch with
        # no text alias): decided at compile time, by version and arch.
        # Only where the tables say so: a case that could not run where
        # it should have would hide whatever it tests.
        if "n/a" in wanted:
            return True, " # SKIP n/a: this kernel lacks what the case needs"
        return False, ' # expected "%s", observed "n/a" (the case did ' \
            'not run)' % want
    if obs in wanted:
        return True, " # %s" % obs
    return False, ' # expected "%s", observed "%s"' % (want, obs)


def verdict_line(ok, number, name, text):
    return "%s %d %s%s" % ("ok" if ok else "not ok", number, name, text)


def warn_mode(want, control):
    """What a case expected to be killed with a report observes under
    hardened_usercopy=warn: the same report, then what the control does
    (the copy goes on): the process survives, or dies where the copy
    itself faults (a NULL source on arches whose uaccess fixups do not
    cover kernel addresses: an oops, as in the control)."""
    fates = {w.strip().split(" ")[0] for w in control.split(" or ")}
    out = []
    for w in (w.strip() for w in want.split(" or ")):
        m = re.match(r"^killed (exposure|overwrite) (\S+)$", w)
        if not m:
            out.append(w)
            continue
        for fate in ("survived", "killed"):
            if fate in fates:
                out.append("%s %s %s" % (fate, m.group(1), m.group(2)))
        if not fates & {"survived", "killed"}:
            out.append("survived %s %s" % m.groups())
    return " or ".join(out)


def verdicts(rows, hardened, obs, done, arch_name, qemu_rc, last_line,
             mode="on"):
    """(verdicts.ktap's text, the number of failures): the completion,
    each row of the table, then each observation the table lacks.  MODE
    is the hardened_usercopy= boot mode of a hardened kernel: off expects
    what the control does, warn the reports without the kills."""
    column = 1 if hardened == "y" and mode != "off" else 2
    known = {r[0] for r in rows}
    extra = [c for c in obs if c not in known]
    total = len(rows) + len(extra) + 1
    out = ["KTAP version 1",
           "# uc_selftest on %s, hardened=%s%s"
           % (arch_name, hardened, "" if mode == "on"
              else ", hardened_usercopy=%s" % mode),
           "1..%d" % total]
    results = [(1, "guest_suite_completed",
                completion(done, qemu_rc, last_line))]
    results += [(n, row[0], case_verdict(
        warn_mode(row[column], row[2]) if mode == "warn" and column == 1
        else row[column], row[3], obs.get(row[0])))
                for n, row in enumerate(rows, 2)]
    results += [(n, case, (False, ' # no expectation, observed "%s"'
                           % obs[case]))
                for n, case in enumerate(extra, len(rows) + 2)]
    out += [verdict_line(ok, n, name, text) for n, name, (ok, text) in results]
    failed = sum(not ok for _, _, (ok, _) in results)
    out.append("# %d of %d failed" % (failed, total))
    return "\n".join(out) + "\n", failed


# --- the verbs ---------------------------------------------------------------

def cmd_expect(args):
    paths = choose(args.arch, args.kbuild, args.expect)
    write_out(table_text(paths, merge(paths)))


def cmd_ktap(args):
    report, source = guest_report(args.serial, args.console)
    try:
        with open(args.out, "wb") as f:
            f.write(report.encode("latin-1"))
    except OSError as e:
        raise UserError("cannot write %s: %s" % (args.out, e.strerror))
    print(source)


def cmd_verdicts(args):
    try:
        rows = read_table(args.expect_tsv)
        report = read_text(args.report)
    except OSError as e:
        raise UserError("cannot read %s: %s: give the output of "
                        "'uckit expect' and of 'uckit ktap'"
                        % (e.filename, e.strerror))
    text, failed = verdicts(rows, args.hardened, observations(report),
                            finished(report), args.arch, args.qemu_rc,
                            last_console_line(read_or_empty(args.console)),
                            args.mode)
    write_out(text)
    return 1 if failed else 0


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""
    text = ("the expectation files a kernel build reads and their merged "
            "table (TSV)")
    v = sub.add_parser("expect", help=text, description=text)
    v.set_defaults(func=cmd_expect)
    v.add_argument("--arch", required=True)
    v.add_argument("--kbuild", required=True, metavar="DIR",
                   help="the kernel's build directory (kernel.release, "
                   ".config)")
    v.add_argument("--expect", action="append", default=[], metavar="FILE",
                   help="one more table, read last (repeatable)")

    v = sub.add_parser("ktap", help="the guest's KTAP report, from its "
                       "second serial port or else its console; prints "
                       "which (serial, console)")
    v.set_defaults(func=cmd_ktap)
    v.add_argument("--serial", required=True, metavar="FILE")
    v.add_argument("--console", required=True, metavar="LOG")
    v.add_argument("--out", required=True, metavar="FILE")

    v = sub.add_parser("verdicts", help="the guest's report against the "
                       "merged table, as KTAP; exit 1 on any failure")
    v.set_defaults(func=cmd_verdicts)
    v.add_argument("--expect-tsv", required=True, metavar="FILE",
                   help="the output of 'uckit expect'")
    v.add_argument("--report", required=True, metavar="KTAP",
                   help="the output of 'uckit ktap'")
    v.add_argument("--console", required=True, metavar="LOG",
                   help="the console, for where an unfinished guest stopped")
    v.add_argument("--arch", required=True, help="the title's arch")
    v.add_argument("--hardened", required=True, choices=("y", "n"))
    v.add_argument("--qemu-rc", required=True, type=int, metavar="N",
                   help="QEMU's exit status (124: timed out)")
    v.add_argument("--mode", choices=("on", "off", "warn"), default="on",
                   help="the hardened_usercopy= boot mode (off: the "
                   "control's column; warn: reports without kills)")
