"""The environment variables the toolkit reads, in one table: each UC_*
name any script, test or module of the project reads is declared here with
its default and what it does (tests/test_knobs.py holds the code to this).
Modes are options and verbs, not variables: a knob only tunes a run (a
budget, a default, a debugging aid) or leaves a slow part out of it.
`python3 -m uckit knobs` prints the table."""

import collections
import os
import shlex

from . import UserError

Knob = collections.namedtuple("Knob", "name default what")

KNOBS = (
    # make check's time (tests/check.sh and the plan's estimates).
    Knob("UC_CHECK_BUDGET", "2700",
         "seconds for the whole of make check: a boot cell or package test "
         "starts only if its estimate fits in what is left"),
    Knob("UC_TREES_BUDGET", "900",
         "seconds for make check's trees section: a tree's round trip (~"
         "UC_TREE_S each) starts only if it fits in what is left"),
    Knob("UC_TREE_S", "200",
         "the estimate of one tree's apply, audit, re-apply and export round "
         "trip"),
    Knob("UC_BOOT_BUDGET", "1500",
         "seconds for make check's boot section: a cell starts only if its "
         "estimate fits in what is left"),
    Knob("UC_BOOT_COLD_S", "900",
         "the estimate of a boot cell not built here yet (or whose hardened "
         "copy is stale)"),
    Knob("UC_BOOT_WARM_S", "60",
         "added to a built cell's last boot time for its estimate"),
    Knob("UC_PACKAGE_COLD_S", "2400",
         "the estimate of a package test never run on this machine"),
    # What make check leaves out.
    Knob("UC_BOOT", "1", "0: make check runs no boot tests"),
    Knob("UC_PACKAGES", "1", "0: make check runs no package tests"),
    Knob("UC_PACKAGES_ARM64", "1",
         "0: make check runs no arm64 package tests"),
    Knob("UC_PACKAGES_DEBIAN", "1",
         "0: make check runs no package tests of KERNEL=debian"),
    Knob("UC_LINTIAN_SOURCE", "0",
         "1: the package tests run lintian on the source package too "
         "(over 15 minutes)"),
    # Builds and boots.
    Knob("UC_JOBS", "nproc", "parallel jobs of a package build"),
    Knob("UC_PKG_REVISION", "1",
         "the package revision N: version UPSTREAM-1ucN, N+1 upgrades N"),
    Knob("UC_BOOT_ARTIFACTS", "",
         "DIR: ci/boot.sh copies the image, initramfs and kernel command "
         "line it boots there (for LAVA jobs)"),
    Knob("UC_JOB_TIMEOUT", "per kind",
         "seconds a pipeline job may run (ci/gitlab/job.sh enforces it; "
         "gitlab-ci-local does not)"),
    Knob("UC_QEMU_ARGS", "",
         "extra QEMU arguments for a boot test (-s: gdbstub on tcp::1234)"),
    Knob("UC_INIT_CC", "${CROSS_COMPILE}gcc",
         "the compiler of the guest's init"),
    # The soak (ci/soak.sh, tests/soak/soak.sh).
    Knob("UC_SOAK_OPS", "20",
         "bogo ops each stress-ng stressor of the soak runs"),
    Knob("UC_SOAK_TIMEOUT", "30",
         "seconds a batch of soak stressors may run before stress-ng stops "
         "it (one that stops early reports fewer ops)"),
    Knob("UC_SOAK_BATCH", "8", "soak stressors run together"),
    Knob("UC_SOAK_CLASSES",
         "filesystem io pipe network os interrupt scheduler vm device",
         "the stress-ng classes of the soak"),
    Knob("UC_SOAK_WARM_S", "300",
         "added to the last soak's time for make check's estimate of a warm "
         "soak (the rebuild of what changed)"),
    Knob("UC_SOAK", "1", "0: make check runs no soak"),
    Knob("UC_PIPELINE", "1",
         "0: make check runs no pipeline (gitlab-ci-local) and no lava-run"),
    Knob("UC_SOAK_WALL", "3600",
         "seconds a soak guest may run before QEMU is stopped (a FAIL)"),
    Knob("UC_SPATCH_MEMO", "1",
         "0: run spatch every time instead of reusing its kept answer for "
         "the same rule and input files (cache spatch/)"),
    # The whole-workload bench (ci/soak.sh --bench, tests/soak/bench.sh).
    Knob("UC_BENCH_RUNS", "5",
         "timed runs of each whole workload after the untimed first (the "
         "smallest is the figure)"),
    Knob("UC_BENCH_HACKBENCH", "4 100",
         "hackbench's groups and loops in the whole-workload bench"),
    Knob("UC_CHECKPATCH_IGNORE", "",
         "checkpatch message types tests/checkpatch.sh waives for a file "
         "(comma-separated)"),
)

BY_NAME = {k.name: k for k in KNOBS}


def knob(name):
    """The declared knob NAME; reading an undeclared one is a bug here."""
    if name not in BY_NAME:
        raise KeyError("%s is not declared in uckit/knobs.py" % name)
    return BY_NAME[name]


def get(name):
    """NAME's value: the environment's, else (unset or empty) its default;
    a whole number wherever the default is one."""
    k = knob(name)
    value = os.environ.get(name) or k.default
    if k.default.isdigit() and not value.isdigit():
        raise UserError("%s=%s: give a whole number (default %s)"
                        % (name, value, k.default))
    return value


def number(name):
    """NAME's value as a number (its default is one)."""
    return int(get(name))


def table():
    """The knobs as aligned NAME DEFAULT WHAT lines."""
    width = max(len(k.name) for k in KNOBS)
    dwidth = max(len(k.default or "''") for k in KNOBS)
    return ["%-*s  %-*s  %s" % (width, k.name, dwidth, k.default or "''",
                                k.what) for k in KNOBS]


def cmd_knobs(args):
    if args.get:
        print(get(args.get))
    elif args.shell:
        for name in args.shell:
            if name not in BY_NAME:
                raise UserError("%s is not a knob (python3 -m uckit knobs "
                                "lists them)" % name)
            print("%s=%s" % (name, shlex.quote(get(name))))
    else:
        print("\n".join(table()))


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""
    text = "the environment variables the toolkit reads: name, default, " \
        "what each does"
    v = sub.add_parser("knobs", help=text, description=text)
    v.add_argument("--get", metavar="NAME", choices=sorted(BY_NAME),
                   help="print NAME's value here (the environment's, else "
                   "the default)")
    v.add_argument("--shell", metavar="NAME", nargs="+",
                   help="NAME=value lines for the shell, each quoted")
    v.set_defaults(func=cmd_knobs)
