"""Per-architecture facts, one data file each in uckit/arches/NAME.ini
(the model is TuxMake's arch/*.ini).  Every script that builds, boots,
packages or benchmarks for an arch reads them from here; nothing else
keeps a table of arches.

Keys of [arch] (all but karch and srcarch optional):
  order          position in tables and plans
  karch          the kernel's ARCH=
  srcarch        the directory under arch/ (for Kconfig probes)
  cross_compile  toolchain prefix (empty: the host's)
  packages       Debian packages with that gcc and its static libc
  image          the boot image, relative to the build directory
  targets        make targets for the boot test
  kcflags        extra KCFLAGS for kernel and modules
  fragments      ci/configs/NAME.config fragments, after base.config
  qemu           the QEMU binary; qemu_package its Debian package
  qemu_machine   machine, CPU and memory arguments
  console        the kernel console device(s), the last preferred
  serial2        no if the machine takes no second -serial for the report
  expect         tests/guest/expect/NAME files for intended differences;
                 NAME@X.Y: only for kernels X.Y and later
  needs          SYMBOL=what words: Kconfig symbols a tree must define
                 under arch/ (or, with a "/", files it must have) for the
                 boot target to exist (a tree without one is n/a)
  debarch        Debian's name; rpmarch rpm's
  packaged       yes: .deb/.rpm packages are built and tested for it
  bench          yes: make bench runs on it
  like           another arch whose keys this one starts from (mipsel:
                 like = mips), so a variant states only what differs
  profiles       config profiles (ci/configs/NAME.config, "# profile:")
                 that make boot-all runs on it, hardened and control
  lava_arch      LAVA's context arch for the qemu device type (default:
                 the name); lava_takes: which of "machine cpu" LAVA's
                 qemu template takes from the job's context (the others
                 go into its extra_options)
  unbuildable    why the arch is wired and audited but never built here
  soak           the allocator or profile make soak builds on (empty: no
                 soak on this arch); soak_qemu its machine, CPU, memory
                 and CPU count; soak_disk the QEMU virtio block device
                 (virtio-blk-pci or, without PCI, virtio-blk-device);
                 soak_compat the arch of the 32-bit programs it also runs;
                 soak_disks the order of the two disks on QEMU's command
                 line ("root payload", or "payload root" where the machine
                 numbers the last one first, as arm's virt does) so that
                 the guest sees root as vda and the payload as vdb
"""

import configparser
import glob
import os
import shlex

from . import UserError

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arches")

# Shell names of the keys (ci/lib.sh's arch_setup exports these).
SHELL = (("karch", "KARCH"), ("srcarch", "ARCH_SRCARCH"),
         ("cross_compile", "CROSS_COMPILE"), ("packages", "ARCH_GCC_PKG"),
         ("image", "ARCH_IMAGE"), ("targets", "ARCH_TARGETS"),
         ("kcflags", "ARCH_KCFLAGS"), ("fragments", "ARCH_FRAGMENTS"),
         ("qemu", "ARCH_QEMU"), ("qemu_package", "ARCH_QEMU_PKG"),
         ("qemu_machine", "ARCH_QEMU_MACHINE"), ("console", "ARCH_CONSOLE"),
         ("serial2", "ARCH_SERIAL2"), ("expect", "ARCH_EXPECT"),
         ("needs", "ARCH_NEEDS"), ("debarch", "ARCH_DEBARCH"),
         ("rpmarch", "ARCH_RPMARCH"), ("soak", "ARCH_SOAK"),
         ("soak_qemu", "ARCH_SOAK_QEMU"), ("soak_disk", "ARCH_SOAK_DISK"),
         ("soak_compat", "ARCH_SOAK_COMPAT"),
         ("soak_disks", "ARCH_SOAK_DISKS"))
KEYS = {k for k, _ in SHELL} | {"order", "packaged", "bench", "unbuildable",
                                "profiles", "like", "lava_arch",
                                "lava_takes"}
DEFAULTS = {"order": "50", "cross_compile": "", "kcflags": "", "expect": "",
            "needs": "", "serial2": "yes", "packaged": "no", "bench": "no",
            "unbuildable": "", "profiles": "", "soak": "", "soak_qemu": "",
            "soak_disk": "", "soak_compat": "", "soak_disks": "root payload",
            "lava_arch": "", "lava_takes": ""}


class Arch:
    """One arch's facts: attributes named as the keys."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = fields
        for key, value in fields.items():
            setattr(self, key, value)

    @property
    def buildable(self):
        return not self.unbuildable

    def shell(self):
        """KEY=value lines for the shell (ci/lib.sh evaluates them)."""
        out = []
        for key, var in SHELL:
            value = self.fields.get(key, "")
            if key == "serial2":
                value = "1" if value == "yes" else "0"
            out.append("%s=%s" % (var, shlex.quote(value)))
        return "\n".join(out) + "\n"


def load(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    with open(path) as f:
        parser.read_file(f)
    name = os.path.basename(path)[:-len(".ini")]
    if parser.sections() != ["arch"]:
        raise UserError("%s: expected one [arch] section" % path)
    fields = dict(DEFAULTS)
    like = parser.get("arch", "like", fallback="").strip()
    if like:
        base = os.path.join(os.path.dirname(path), like + ".ini")
        if not os.path.isfile(base) or like == name:
            raise UserError("%s: like = %s names no other arch" % (path, like))
        fields.update(load(base).fields)
    for key, value in parser.items("arch"):
        if key not in KEYS:
            raise UserError("%s: unknown key '%s'" % (path, key))
        fields[key] = value.strip()
    fields.pop("like", None)
    for key in ("karch", "srcarch"):
        if not fields.get(key):
            raise UserError("%s: '%s' is required" % (path, key))
    if not fields["unbuildable"]:
        missing = [k for k, _ in SHELL if k not in fields]
        if missing:
            raise UserError("%s: a buildable arch needs %s"
                            % (path, ", ".join(missing)))
    return Arch(name, fields)


def all_arches(directory=DIR):
    """Every arch, in table order."""
    arches = [load(p) for p in glob.glob(os.path.join(directory, "*.ini"))]
    return sorted(arches, key=lambda a: (int(a.order), a.name))


def names(buildable=True):
    """The names of the arches that build and boot (or all of them)."""
    return [a.name for a in all_arches() if a.buildable or not buildable]


def get(name):
    """The facts of NAME; an error naming the choices otherwise."""
    if not name:
        raise UserError("ARCH is empty (supported: %s)" % " ".join(names()))
    path = os.path.join(DIR, name + ".ini")
    if not os.path.isfile(path):
        raise UserError("unsupported ARCH=%s (supported: %s)"
                        % (name, " ".join(names())))
    arch = load(path)
    if not arch.buildable:
        raise UserError("ARCH=%s is wired and audited (make audit) but "
                        "cannot be built or booted here: %s (supported: %s)"
                        % (name, arch.unbuildable, " ".join(names())))
    return arch


def debian_packages():
    """The cross compilers, static libcs and QEMUs of every buildable arch."""
    out = []
    for a in all_arches():
        if a.buildable:
            for p in a.packages.split() + [a.qemu_package]:
                if p not in out:
                    out.append(p)
    return out
