"""Config profiles: the ALLOC axis of a boot cell beyond plain SLUB and
SLAB.  Each is ci/configs/NAME.config, a fragment whose header says what
the profile is for and how to boot it:

  # profile: one line on what the profile proves
  # include: slub           the allocator fragment it builds on
  # append: slub_debug=ZP   extra kernel command line
  # qemu: -m 1280           extra QEMU arguments (after the arch's)
  # hardened: y n           the HARDENED values it runs with (default y)
  # mode: warn              the hardened_usercopy= mode its append sets:
                            verdicts of the control (off) or reports
                            without kills (warn)

The arches a profile is meant for say so ("profiles =" in
uckit/arches/NAME.ini).

Expectations that differ under a profile live in tests/guest/expect/ as
files with "requires CONFIG_X" lines, chosen by the build's .config like
every other expectation file; a profile names none itself.
"""

import glob
import os

from . import TOP, UserError, arch

DIR = os.path.join(TOP, "ci", "configs")
ALLOCATORS = ("slub", "slab")
KEYS = ("profile", "include", "append", "qemu", "hardened", "mode")


def read(name):
    """{key: value} of NAME's header; {} for a plain allocator."""
    if name in ALLOCATORS:
        return {}
    path = os.path.join(DIR, name + ".config")
    facts = {}
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                if not line.startswith("# "):
                    break
                key, sep, value = line[2:].partition(":")
                if sep and key in KEYS:
                    facts[key] = value.strip()
    if "profile" not in facts:
        raise UserError("ALLOC=%s is neither an allocator (%s) nor a config "
                        "profile (%s)" % (name, " ".join(ALLOCATORS),
                                          " ".join(names())))
    mode = facts.get("mode", "on")
    if mode not in ("on", "off", "warn") or (
            mode != "on" and "hardened_usercopy=" + mode
            not in facts.get("append", "").split()):
        raise UserError("ci/configs/%s.config: '# mode:' is on, off or "
                        "warn, and its append sets hardened_usercopy= to "
                        "it" % name)
    if facts.get("include") not in ALLOCATORS:
        raise UserError("ci/configs/%s.config: '# include:' must name one "
                        "of %s" % (name, " ".join(ALLOCATORS)))
    return facts


def names():
    """Every profile, sorted."""
    out = []
    for path in glob.glob(os.path.join(DIR, "*.config")):
        with open(path) as f:
            if f.readline().startswith("# profile:"):
                out.append(os.path.basename(path)[:-len(".config")])
    return sorted(out)


def choices():
    return list(ALLOCATORS) + names()


def cells(arch_name):
    """(profile, hardened) pairs of the profiles ARCH_NAME runs."""
    out = []
    for name in arch.get(arch_name).profiles.split():
        for h in read(name).get("hardened", "y").split():
            out.append((name, h))
    return out


def shell(name):
    """Shell assignments for ci/kbuild.sh and ci/boot-test.sh."""
    facts = read(name)
    quote = lambda s: "'" + s.replace("'", "'\\''") + "'"  # noqa: E731
    return "\n".join([
        "PROFILE_ALLOC=%s" % quote(facts.get("include", name)),
        "PROFILE_FRAGMENT=%s" % quote(os.path.join(DIR, name + ".config")
                                      if facts else ""),
        "PROFILE_APPEND=%s" % quote(facts.get("append", "")),
        "PROFILE_QEMU=%s" % quote(facts.get("qemu", "")),
        "PROFILE_MODE=%s" % quote(facts.get("mode", "on")),
    ])


def cmd_profile(args):
    if args.list:
        print(" ".join(choices()))
    else:
        print(shell(args.name))
    return 0


def register(sub):
    v = sub.add_parser("profile", help="config profiles (ALLOC beyond slub "
                       "and slab): shell assignments, or the list")
    v.add_argument("name", nargs="?", default="slub")
    v.add_argument("--list", action="store_true")
    v.set_defaults(func=cmd_profile)
