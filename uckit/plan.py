"""The boot plan: which boot-test cells make check (--cells ci), make
boot-all (all) and make boot-stale (stale) run, in order, and how long each
is expected to take on this machine.

  plan --cells ci|all|stale      one line a cell: KERNEL ARCH ALLOC
                                 HARDENED ESTIMATE_S; "# SKIP NAME # REASON"
                                 for a cell that cannot be planned here,
                                 other "# " lines say what the plan did
  estimate --kernel K --arch A --alloc S --hardened y|n
                                 the seconds one cell is expected to take
  boot --cells all|stale|ci      run the plan's cells (ci/boot-test.sh) one
                                 after another, then record the matrix

A cell's KERNEL is the version of a pristine tree in the cache
(trees/linux-X.Y.Z) or "debian" (Debian's linux-source-6.1).  tests/check.sh
applies make check's budgets (UC_BOOT_BUDGET, UC_CHECK_BUDGET) to the plan;
`boot` has none."""

import collections
import os
import re
import shutil
import subprocess
import sys
import time

from . import (TOP, UserError, apply, arch, cache, knobs, profile, series,
               source)

Cell = collections.namedtuple("Cell", "kernel arch alloc hardened")

# Debian's 6.1 source: the kernel every machine can install, with the
# upstream implementation the backport is measured against.
DEBIAN_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
# 'KERNEL ARCH ALLOC HARDENED' of each cell whose newest record ran this
# checkout's cell inputs (make boot-stale leaves those out).
CURRENT_CELLS = (sys.executable, "-m", "uckit", "matrix", "--current")
# Writes this machine's newest records into kernels/matrix.tsv (boot ends so).
MATRIX_RECORD = (sys.executable, "-m", "uckit", "matrix", "--record")
BOOT_TEST = os.path.join(TOP, "ci", "boot-test.sh")


class Plan:
    """Cells in run order, each once; SKIP lines (name, reason) for the
    cells that cannot be planned here; notes on what the plan did."""

    def __init__(self):
        self.cells = []
        self.skips = []
        self.notes = []

    def add(self, kernel, arch_name, *variants):
        """Cells KERNEL ARCH ALLOC HARDENED, VARIANTS as "slub y" words."""
        for variant in variants:
            cell = Cell(kernel, arch_name, *variant.split())
            if cell not in self.cells:
                self.cells.append(cell)

    def skip(self, name, reason):
        self.skips.append((name, reason))


# ------------------------------------------------------------ the cells

def cached_versions():
    """The versions of the pristine trees in the cache (trees/linux-X.Y.Z
    with a Makefile), in name order: those the manifests name, and any
    other sublevel someone put there."""
    trees = cache.path("trees")
    try:
        names = sorted(os.listdir(trees))
    except FileNotFoundError:
        return []
    return [n[len("linux-"):] for n in names if n.startswith("linux-")
            and os.path.isfile(os.path.join(trees, n, "Makefile"))]


def branch(version):
    """X.Y of X.Y.Z (a tree's directory name, not its Makefile)."""
    return version.rsplit(".", 1)[0]


def is_native(version, mans):
    return mans.get(branch(version), {}).get("status") == "native"


def has_series(version):
    return os.path.isfile(os.path.join(TOP, "series", branch(version)))


def is_default(version, mans):
    return mans.get(branch(version), {}).get("default") == version


def newest_backport(mans):
    """The default version of the newest backport branch (kernels/X.Y with
    status backport): the tree make check boots on every arch and
    packages."""
    branches = [b for b, m in mans.items() if m.get("status") == "backport"]
    newest = max(branches, key=lambda b: [int(x) for x in b.split(".")])
    return mans[newest]["default"]


def host_arch():
    """The build machine's arch (no cross compiler): the controls and the
    full SLUB/SLAB/control set of every branch run there."""
    return [a.name for a in arch.all_arches()
            if a.buildable and not a.cross_compile][0]


def distro_arches():
    """The arches distros ship kernels for (packaged = yes in their data):
    SLAB cells and packages are made for them."""
    return [a.name for a in arch.all_arches() if a.packaged == "yes"]


def have_debian():
    return os.path.isfile(DEBIAN_TARBALL)


def tree_dir(version):
    return cache.path("trees", "linux-" + version)


def can_cross(facts, qemu=True):
    """Whether the arch's cross compiler (and, with QEMU, its QEMU) is on
    PATH."""
    return shutil.which(facts.cross_compile + "gcc") is not None and \
        (not qemu or shutil.which(facts.qemu) is not None)


def ci_cells(plan, versions, mans):
    """make check's cells: Debian's 6.1 hardened and control on the host
    arch; every cached native tree the same; the default sublevel of every
    backport branch SLUB, SLAB and control on the host arch, and SLUB on
    the other distro arches (arm64) where the tree has the arch and the
    cross compiler is here; every other arch on the newest backport's
    default version, feature and control (SLAB too on distro arches).
    The newest backport's cells come right after Debian's."""
    host, arch_tree = host_arch(), newest_backport(mans)
    if have_debian():
        plan.add("debian", host, "slub y", "slub n")
    else:
        plan.skip("boot-test debian", "apt-get install linux-source-6.1")
    # The newest backport first, with its sweep of every arch: under make
    # check's budget the widest proof goes before the older branches.
    have_arch_tree = os.path.isfile(os.path.join(tree_dir(arch_tree),
                                                 "Makefile"))
    if have_arch_tree and arch_tree in versions:
        plan.add(arch_tree, host, "slub y", "slab y", "slub n")
        arch_tree_cells(plan, arch_tree)
    for v in versions:
        if v == arch_tree and have_arch_tree:
            continue
        if is_native(v, mans):
            plan.add(v, host, "slub y", "slub n")
        elif not has_series(v):
            plan.skip("boot-test " + v, "no series for branch " + branch(v))
        elif is_default(v, mans):
            # Other sublevels: the trees section applies them; boot-all
            # boots them.
            plan.add(v, host, "slub y", "slab y", "slub n")
            if v == arch_tree:
                continue
            # arm64: the second arch distros ship, and the one whose old
            # trees needed their own compat (dtc, relocations, BUG()).
            # Without its QEMU the cell fails: installed with the compiler
            # (make deps).
            for name in distro_arches():
                facts = arch.get(name)
                if name != host and can_cross(facts, qemu=False) and \
                        os.path.isdir(os.path.join(tree_dir(v), "arch",
                                                   facts.srcarch)):
                    plan.add(v, name, "slub y")
    if have_arch_tree and arch_tree not in versions:
        arch_tree_cells(plan, arch_tree)


def arch_tree_cells(plan, arch_tree):
    """Every arch but the host's on ARCH_TREE (the newest backport): feature and control, SLAB
    too on the distro arches."""
    host, distro = host_arch(), distro_arches()
    for name in arch.names():
        if name == host:
            continue
        facts = arch.get(name)
        if not can_cross(facts):
            plan.skip("boot-test %s %s" % (arch_tree, name),
                      "apt-get install %s %s" % (facts.packages,
                                                 facts.qemu_package))
            continue
        plan.add(arch_tree, name, "slub y", "slub n")
        if name in distro:
            plan.add(arch_tree, name, "slab y")


def all_cells(plan, versions, mans, debian=None):
    """make boot-all's cells, after make check's: every arch of every
    cached tree with a series or native support, and of Debian's 6.1 (with
    DEBIAN None, where it is installed): SLUB hardened; SLAB on the distro
    arches; the control on the host arch.  A cell that cannot exist (an
    arch the tree lacks) is boot-test's n/a."""
    host, distro = host_arch(), distro_arches()
    kernels = [v for v in versions if is_native(v, mans) or has_series(v)]
    if have_debian() if debian is None else debian:
        kernels.append("debian")
    for k in kernels:
        plan.add(k, host, "slub y", "slab y", "slub n")
        for name in arch.names():
            if name != host:
                plan.add(k, name, "slub y")
                if name in distro:
                    plan.add(k, name, "slab y")
            if k != "debian" and not is_native(k, mans) and has_series(k):
                # The config profiles (ci/configs/*.config with a
                # "# profile:" header) on the arches each is meant for.
                for alloc, hardened in profile.cells(name):
                    plan.add(k, name, "%s %s" % (alloc, hardened))


def current_cells():
    """The cells whose newest record ran this checkout's cell inputs, as
    (KERNEL, ARCH, ALLOC, HARDENED) with KERNEL a version."""
    r = subprocess.run(CURRENT_CELLS, cwd=TOP, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise UserError("cannot list the current records (%s): %s"
                        % (" ".join(CURRENT_CELLS), r.stderr.strip()))
    return {tuple(line.split()) for line in r.stdout.splitlines()
            if len(line.split()) == 4}


def debian_version():
    try:
        return apply.prepare("debian")[1]
    except UserError:
        return None


def drop_current(plan, current):
    """Leaves out the cells in CURRENT ("debian" is its version)."""
    version = debian_version() if have_debian() else None
    total = len(plan.cells)
    plan.cells = [c for c in plan.cells if
                  (version if c.kernel == "debian" else c.kernel,
                   c.arch, c.alloc, c.hardened) not in current]
    plan.notes.append("boot-stale: %d of %d cells have no record of the "
                      "current cell inputs" % (len(plan.cells), total))


def make_plan(which, current=current_cells):
    """The plan of --cells WHICH (ci, all, stale)."""
    plan, versions, mans = Plan(), cached_versions(), source.manifests()
    ci_cells(plan, versions, mans)
    if which in ("all", "stale"):
        all_cells(plan, versions, mans)
    if which == "stale":
        drop_current(plan, current())
    return plan


# ---------------------------------------------------------- the estimate

def na_reason(tree, version, facts):
    """Why TREE has no cell for the arch FACTS, or None: no arch/SRCARCH,
    or a boot target it cannot build (needs).  ci/boot-test.sh records
    such a cell n/a by the same rule."""
    archdir = os.path.join(tree, "arch", facts.srcarch)
    if not os.path.isdir(archdir):
        return "Linux %s has no arch/%s" % (version, facts.srcarch)
    for need in facts.needs.split():
        key, _, what = need.partition("=")
        what = what.replace("_", " ")
        if "/" in key:
            if not os.path.exists(os.path.join(tree, key)):
                return "Linux %s has no %s, %s" % (version, key, what)
        elif not kconfig_defines(archdir, key):
            return "Linux %s has no CONFIG_%s, %s" % (version, key, what)
    return None


def kconfig_defines(directory, symbol):
    """Whether a Kconfig* file under DIRECTORY has the line 'config SYMBOL'."""
    want = "config " + symbol
    for parent, _, files in os.walk(directory):
        for name in files:
            if name.startswith("Kconfig") and has_line(
                    os.path.join(parent, name), want):
                return True
    return False


def has_line(path, line):
    try:
        with open(path, errors="replace") as f:
            return any(text.rstrip("\n") == line for text in f)
    except OSError:
        return False


def last_boot_s(cell):
    """The boot+suite seconds of CELL's newest record here, or None."""
    try:
        with open(os.path.join(cache.results_dir(), cell, "cell.txt")) as f:
            m = re.search(r"^build_s=\d* boot_s=(\d+)$", f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def changed_since(tree, ns):
    """Whether anything in TREE (itself included) has a ctime after NS:
    an edit, a rename, a deletion (the directory's) or a fresh extraction
    all move it."""
    if os.lstat(tree).st_ctime_ns > ns:
        return True
    for parent, dirs, files in os.walk(tree):
        for name in dirs + files:
            try:
                if os.lstat(os.path.join(parent, name)).st_ctime_ns > ns:
                    return True
            except FileNotFoundError:
                continue
    return False


def copy_stale(tree, version):
    """Whether the hardened copy of TREE (cache work/KEY) must be applied
    again: its stamp (KEY.applied) names another series fingerprint, or
    the tree changed after the stamp was written."""
    stamp = cache.path("work", cache.tree_key(version, tree) + ".applied")
    try:
        with open(stamp) as f:
            applied = f.read().rstrip("\n")
        ns = os.stat(stamp).st_mtime_ns
    except OSError:
        return True
    return applied != series.fingerprint(version) or changed_since(tree, ns)


class Estimates:
    """The seconds each cell is expected to take here.  Warm (its image is
    built, it booted before, and a backport's hardened copy is not stale):
    its last boot plus UC_BOOT_WARM_S, make finding little to do.  Anything
    else is cold, UC_BOOT_COLD_S: a tinyconfig build on 2 cores with a
    cold ccache.  A cell that cannot exist takes 0.  A tree is resolved and
    checked once per instance, so one plan sees one state of the cache."""

    def __init__(self):
        self.cold = knobs.number("UC_BOOT_COLD_S")
        self.warm = knobs.number("UC_BOOT_WARM_S")
        self._trees = {}
        self._stale = {}

    def tree(self, kernel):
        """(tree, version, state) of KERNEL."""
        if kernel not in self._trees:
            self._trees[kernel] = apply.prepare(kernel)
        return self._trees[kernel]

    def stale(self, tree, version):
        if tree not in self._stale:
            self._stale[tree] = copy_stale(tree, version)
        return self._stale[tree]

    def seconds(self, cell):
        """CELL's estimate; a UserError if its kernel or arch is unknown."""
        facts = arch.get(cell.arch)
        tree, version, state = self.tree(cell.kernel)
        if na_reason(tree, version, facts):
            return 0
        key = cache.cell_key(version, tree, cell.arch, cell.alloc,
                             cell.hardened)
        boot_s = last_boot_s(key)
        if boot_s is None or \
                not os.path.isfile(cache.path("build", key, facts.image)):
            return self.cold
        if state == "none" and self.stale(tree, version):
            return self.cold
        return boot_s + self.warm

    def planned(self, cell):
        """CELL's estimate in a plan: cold when it cannot be made (boot-test
        then says why)."""
        try:
            return self.seconds(cell)
        except UserError:
            return self.cold


# ------------------------------------------------------------ the verbs

def comment_lines(plan):
    """The plan's SKIP lines, then its notes."""
    return ["# SKIP %s # %s" % s for s in plan.skips] + \
        ["# " + n for n in plan.notes]


def cell_lines(plan, estimates, warm_first=False):
    """"KERNEL ARCH ALLOC HARDENED ESTIMATE_S" per cell.  WARM_FIRST (make
    check's plan) puts the cells expected to re-check in a minute before
    those that need a cold build, each group in plan order: under a time
    budget a cold build (a series change makes a whole branch cold) must
    not crowd out the cells that are already built."""
    rows = [(c, estimates.planned(c)) for c in plan.cells]
    if warm_first:
        rows.sort(key=lambda r: r[1] >= estimates.cold)
    return ["%s %d" % (" ".join(c), s) for c, s in rows]


def package_lines(mans):
    """make check's package tests: "KERNEL ARCH native|cross" lines, the
    host arch first, for the newest backport's default version (if its
    tree is cached) and Debian's 6.1; "# SKIP NAME # REASON" otherwise."""
    out, kernels = [], []
    version = newest_backport(mans)
    if os.path.isfile(os.path.join(tree_dir(version), "Makefile")):
        kernels.append(version)
    else:
        out.append("# SKIP package tests %s # linux-%s is not in the kernel "
                   "cache" % (version, version))
    if have_debian():
        kernels.append("debian")
    else:
        out.append("# SKIP package tests debian # apt-get install "
                   "linux-source-6.1")
    host = host_arch()
    arches = sorted(distro_arches(), key=lambda a: a != host)
    for k in kernels:
        out += ["%s %s %s" % (k, a, "native" if a == host else "cross")
                for a in arches]
    return out


def last_soak_s(cell):
    """The soak seconds of CELL's newest soak record here, or None."""
    try:
        with open(os.path.join(cache.results_dir(), cell, "soak.txt")) as f:
            m = re.search(r"\bsoak_s=(\d+)\b", f.read())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def soak_lines(mans):
    """make check's soak: "KERNEL ARCH HARDENED ESTIMATE_S" for the newest
    backport's default version on the host arch, hardened, when it was
    soaked on this machine before (its build and record are in the cache,
    so the run is warm); a "# SKIP NAME # REASON" line otherwise."""
    version = newest_backport(mans)
    host = host_arch()
    name = "soak %s %s hardened=y" % (version, host)
    tree = tree_dir(version)
    if not os.path.isfile(os.path.join(tree, "Makefile")):
        return ["# SKIP %s # linux-%s is not in the kernel cache"
                % (name, version)]
    key = cache.cell_key(version, tree, host, "soak", "y")
    soak_s = last_soak_s(key)
    if soak_s is None or \
            not os.path.isfile(cache.path("build", key, arch.get(host).image)):
        return ["# SKIP %s # not soaked on this machine yet (make check "
                "runs warm soaks only): make soak KERNEL=%s ARCH=%s"
                % (name, version, host)]
    return ["%s %s y %d" % (version, host,
                            soak_s + knobs.number("UC_SOAK_WARM_S"))]


def cmd_plan(args):
    if args.cells == "packages":
        print("\n".join(package_lines(source.manifests())))
        return
    if args.cells == "soak":
        print("\n".join(soak_lines(source.manifests())))
        return
    plan = make_plan(args.cells)
    print("\n".join(comment_lines(plan) +
                    cell_lines(plan, Estimates(),
                               warm_first=args.cells == "ci")))


def cmd_estimate(args):
    print(Estimates().seconds(Cell(args.kernel, args.arch, args.alloc,
                                   args.hardened)))


def cmd_na(args):
    """Why the cell of KERNEL on ARCH cannot exist, or nothing."""
    src, version, _ = apply.prepare(args.kernel)
    print(na_reason(src, version, arch.get(args.arch)) or "")


def cmd_copy_stale(args):
    """Exit 0 if KERNEL's hardened copy must be applied again, else 1."""
    src, version, _ = apply.prepare(args.kernel)
    return 0 if copy_stale(src, version) else 1


def cell_name(cell):
    return "%s %s %s hardened=%s" % cell


def run_cell(cell, log):
    """ci/boot-test.sh on CELL, its output in LOG: PASS, FAIL or N/A."""
    with open(log, "w") as f:
        rc = subprocess.run(["bash", BOOT_TEST] + list(cell), cwd=TOP,
                            stdin=subprocess.DEVNULL, stdout=f,
                            stderr=subprocess.STDOUT).returncode
    # Exit 77 is a cell that cannot exist (recorded n/a), not a pass.
    return {0: "PASS", 77: "N/A"}.get(rc, "FAIL")


def na_line(log):
    with open(log, errors="replace") as f:
        m = re.search(r"^boot-test: .*: N/A \((.*)\)$", f.read(), re.M)
    return ": " + m.group(1) if m else ""


def log_tail(log, n=60):
    with open(log, errors="replace") as f:
        return ["#   " + line.rstrip("\n") for line in f.readlines()[-n:]]


def boot_cells(cells, logdir, jobs=1):
    """Runs CELLS, JOBS at a time, a progress line as each ends (its log:
    LOGDIR/NNN-CELL.log, kept); returns the count of each verdict."""
    import concurrent.futures
    import threading
    counts = collections.Counter()
    lock = threading.Lock()
    done = [0]

    def one(i, cell):
        log = os.path.join(logdir, "%03d-%s.log" % (i, "-".join(cell)))
        t0 = time.monotonic()
        if jobs <= 1:
            print("[%d/%d] %s ..." % (i, len(cells), cell_name(cell)),
                  end=" ", flush=True)
        verdict = run_cell(cell, log)
        with lock:
            done[0] += 1
            counts[verdict] += 1
            if jobs > 1:
                print("[%d/%d] %s ..." % (done[0], len(cells),
                                          cell_name(cell)), end=" ")
            print("%s (%d s)%s" % (verdict, time.monotonic() - t0,
                                   na_line(log) if verdict == "N/A" else ""),
                  flush=True)
            if verdict == "FAIL":
                print("\n".join(log_tail(log)), flush=True)

    if jobs <= 1:
        for i, cell in enumerate(cells, 1):
            one(i, cell)
    else:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for f in [pool.submit(one, i, c)
                      for i, c in enumerate(cells, 1)]:
                f.result()
    return counts


def cmd_boot(args):
    if args.jobs < 1:
        raise UserError("--jobs %d: give 1 or more cells at a time"
                        % args.jobs)
    plan = make_plan(args.cells)
    estimates = Estimates()
    for line in comment_lines(plan):
        print(line)
    expect = sum(estimates.planned(c) for c in plan.cells)
    # Per-cell logs are kept, one directory a run.
    logdir = cache.path("logs", "boot-" + time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(logdir, exist_ok=True)
    print("boot: %d cells (--cells %s), ~%d s expected one at a time, %d at "
          "a time; logs in %s" % (len(plan.cells), args.cells, expect,
                                  args.jobs, logdir), flush=True)
    t0 = time.monotonic()
    counts = boot_cells(plan.cells, logdir, args.jobs)
    print("boot: %d passed, %d failed, %d n/a of %d cells in %d s"
          % (counts["PASS"], counts["FAIL"], counts["N/A"], len(plan.cells),
             time.monotonic() - t0), flush=True)
    recorded = subprocess.run(MATRIX_RECORD, cwd=TOP).returncode == 0
    return 0 if counts["FAIL"] == 0 and recorded else 1


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""
    v = sub.add_parser(
        "plan", help="the boot-test cells of make check, boot-all or "
        "boot-stale, each with its expected seconds",
        description="the boot-test cells of make check (ci), make boot-all "
        "(all) or make boot-stale (stale): KERNEL ARCH ALLOC HARDENED "
        "ESTIMATE_S lines, '# SKIP NAME # REASON' for those that cannot be "
        "planned here")
    v.add_argument("--cells", required=True,
                   choices=("ci", "all", "stale", "packages", "soak"),
                   help="packages: make check's package tests instead")
    v.set_defaults(func=cmd_plan)
    text = "the seconds one boot-test cell is expected to take here"
    v = sub.add_parser("estimate", help=text, description=text)
    v.add_argument("--kernel", required=True)
    v.add_argument("--arch", required=True)
    v.add_argument("--alloc", required=True, choices=profile.choices())
    v.add_argument("--hardened", required=True, choices=("y", "n"))
    v.set_defaults(func=cmd_estimate)
    text = "boot-test every cell of a plan, one after another (no budget), " \
        "then record the matrix"
    v = sub.add_parser("boot", help=text, description=text)
    v.add_argument("--cells", required=True, choices=("all", "stale", "ci"))
    v.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="cells at a time (builds of one cell never run "
                   "together: each build directory is locked)")
    v.set_defaults(func=cmd_boot)
    text = "why the cell of KERNEL on ARCH cannot exist (n/a), or nothing"
    v = sub.add_parser("na", help=text, description=text)
    v.add_argument("--kernel", required=True)
    v.add_argument("--arch", required=True)
    v.set_defaults(func=cmd_na)
    text = "exit 0 if the hardened copy of KERNEL is stale (series " \
        "fingerprint or tree changed since it was applied), else 1"
    v = sub.add_parser("copy-stale", help=text, description=text)
    v.add_argument("--kernel", required=True)
    v.set_defaults(func=cmd_copy_stale)
    knobs.register(sub)
