"""The command line: python3 -m uckit VERB --option VALUE.

KERNEL, wherever a verb takes one, is a version or branch from kernels/
(4.4 or 4.4.220), a path to a tarball, a path to a source tree (never
modified), or "debian" (Debian's linux-source package).  Errors a user
can fix print one line that names the fix and exit 1."""

import argparse
import sys

from . import UserError, apply, arch, cache, log, source, series
from . import expect, job, matrix, pipeline, plan, profile, soak

DEPS = ("coccinelle quilt patch make gcc bc bison flex libelf-dev libssl-dev "
        "cpio busybox-static ccache rsync linux-source-6.1 shellcheck "
        "pyflakes3 "
        "xz-utils python3 util-linux kmod xfsprogs").split()
PACKAGING_DEPS = ("rpm rpmlint lintian createrepo-c dnf apt-utils "
                  "mmdebstrap debhelper dpkg-dev lava-dispatcher").split()


def cmd_resolve(args):
    print(source.resolve(args.kernel))


def cmd_info(args):
    src, version, state = apply.prepare(args.kernel)
    print("tree=%s" % src)
    print("version=%s" % version)
    print("branch=%s" % source.branch_of(version))
    print("state=%s" % state)
    print("key=%s" % cache.tree_key(version, src))
    if state == "none":
        print("fingerprint=%s" % series.fingerprint(version))


def cmd_apply(args):
    version, state, _ = apply.build_hardened(args.kernel, args.out,
                                             args.arch or None)
    print("%s: Linux %s, %s" % (args.out, version,
                                "hardened usercopy applied" if state == "none"
                                else "already hardened (%s), unchanged"
                                % state))


def cmd_export(args):
    apply.export(args.kernel, args.out)
    return 0


def cmd_audit(args):
    return apply.cmd_audit(args.kernel)


def cmd_arch(args):
    if args.list:
        names = arch.names()
        if args.packaged:
            names = [n for n in names if arch.get(n).packaged == "yes"]
        if args.soak:
            names = [n for n in names if arch.get(n).soak]
        print(" ".join(names))
    elif args.name is None:
        raise UserError("arch: give --list or a NAME")
    elif args.get:
        print(getattr(arch.get(args.name), args.get))
    else:
        sys.stdout.write(arch.get(args.name).shell())


def cmd_deps(args):
    pkgs = DEPS + arch.debian_packages()
    if args.packaging:
        pkgs += PACKAGING_DEPS
    print(" ".join(pkgs))


def cmd_cache(args):
    print(cache.root())


def parser():
    p = argparse.ArgumentParser(prog="python3 -m uckit",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True

    def verb(name, func, help_text):
        v = sub.add_parser(name, help=help_text, description=help_text)
        v.set_defaults(func=func)
        return v

    v = verb("resolve", cmd_resolve, "print the pristine tree KERNEL is")
    v.add_argument("--kernel", required=True)
    v = verb("info", cmd_info, "version, branch, state and cache key of "
             "KERNEL, as key=value lines")
    v.add_argument("--kernel", required=True)
    v = verb("apply", cmd_apply, "hardened copy of KERNEL in OUT (atomic, "
             "audited, idempotent)")
    v.add_argument("--kernel", required=True)
    v.add_argument("--out", required=True)
    v.add_argument("--arch", default="",
                   help="fail unless this arch's copy routines are wired")
    v = verb("export", cmd_export, "quilt series for KERNEL in OUT")
    v.add_argument("--kernel", required=True)
    v.add_argument("--out", required=True)
    v = verb("audit", cmd_audit, "wiring audit of a tree: every insertion "
             "point, wired or not")
    v.add_argument("--kernel", required=True)
    v = verb("arch", cmd_arch, "per-arch facts (uckit/arches/NAME.ini): "
             "shell assignments, one key, or the list")
    v.add_argument("name", nargs="?")
    v.add_argument("--list", action="store_true",
                   help="the arches that build and boot, in table order")
    v.add_argument("--packaged", action="store_true",
                   help="with --list: only those packaged as .deb/.rpm")
    v.add_argument("--soak", action="store_true",
                   help="with --list: only those with a soak (soak =)")
    v.add_argument("--get", metavar="KEY", help="print one key's value")
    v = verb("deps", cmd_deps, "the Debian packages the toolkit needs")
    v.add_argument("--packaging", action="store_true",
                   help="the packaging tools too (rpm, dnf, lintian...)")
    verb("cache", cmd_cache, "the kernel cache directory")
    for module in EXTRA:
        module.register(sub)
    return p


# Modules that add verbs of their own.
EXTRA = (expect, job, matrix, pipeline, plan, profile, soak)


def main(argv):
    args = parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except UserError as e:
        log("error: %s" % e)
        return 1
