"""Kernel sources: branch manifests, resolving KERNEL to a pristine tree
(the cache, a kernel.org download with its published checksum, a tarball,
a tree, Debian's linux-source package), and what a tree already has."""

import glob
import hashlib
import os
import re
import shutil
import tarfile
import tempfile
import urllib.request

from . import TOP, UserError, cache, log

def read_manifest(path):
    data = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition(":")
            data[key.strip()] = value.strip()
    return data


def manifests():
    out = {}
    for path in sorted(glob.glob(os.path.join(TOP, "kernels", "*"))):
        # Branch manifests are named X.Y; kernels/matrix.tsv is the
        # boot-test record (uckit/matrix.py).
        if re.match(r"^\d+\.\d+$", os.path.basename(path)):
            out[os.path.basename(path)] = read_manifest(path)
    return out


def branch_of(version):
    m = re.match(r"^(\d+)\.(\d+)", version)
    if not m:
        raise UserError("cannot tell the branch of version '%s'" % version)
    return "%s.%s" % (m.group(1), m.group(2))


# ---------------------------------------------------------- kernel sources

def tree_version(tree):
    """VERSION.PATCHLEVEL.SUBLEVEL from a tree's top Makefile."""
    path = os.path.join(tree, "Makefile")
    if not os.path.isfile(path):
        raise UserError("%s is not a kernel source tree (no Makefile)" % tree)
    fields = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL)\s*=\s*(\d*)", line)
            if m:
                fields[m.group(1)] = m.group(2) or "0"
            if len(fields) == 3:
                break
    if len(fields) != 3:
        raise UserError("%s: no VERSION/PATCHLEVEL/SUBLEVEL in Makefile"
                        % tree)
    return "%s.%s.%s" % (fields["VERSION"], fields["PATCHLEVEL"],
                         fields["SUBLEVEL"])


def extract_tarball(tarball, dest_parent):
    """Extract a kernel tarball; return the top directory of the tree."""
    os.makedirs(dest_parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".extract-", dir=dest_parent)
    try:
        with tarfile.open(tarball) as tar:
            tops = {m.name.split("/")[0] for m in tar.getmembers()[:50]}
            tar.extractall(tmp)
    except (tarfile.TarError, OSError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError("cannot extract %s: %s" % (tarball, e))
    tops.discard("")
    if len(tops) != 1:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError("%s: expected one top directory, found %s"
                        % (tarball, sorted(tops)))
    return os.path.join(tmp, tops.pop())


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(url, dest):
    tmp = dest + ".part"
    try:
        with urllib.request.urlopen(url, timeout=30) as r, \
                open(tmp, "wb") as f:
            shutil.copyfileobj(r, f)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    os.replace(tmp, dest)


def expected_sha256(man, version, name):
    if man.get("sha256-" + version):
        return man["sha256-" + version]
    sums_url = man.get("sha256sums")
    if not sums_url:
        return None
    sums = os.path.join(cache.root(), "tarballs", "sha256sums-%s.asc"
                        % branch_of(version))
    if not os.path.exists(sums):
        download(sums_url, sums)
    with open(sums) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1] == name:
                return parts[0]
    return None


def fetch_version(version, man):
    """A pristine tree for a version: the cache, else kernel.org."""
    tree = os.path.join(cache.root(), "trees", "linux-" + version)
    if os.path.isfile(os.path.join(tree, "Makefile")):
        return tree
    # kernel.org names a first release X.Y, not X.Y.0 (linux-3.16.tar.xz).
    upstream = re.sub(r"^(\d+\.\d+)\.0$", r"\1", version)
    name = "linux-%s.tar.xz" % upstream
    tarball = os.path.join(cache.root(), "tarballs", name)
    if "url" not in man:
        # A branch whose source is a distro package (kernels/6.1): its
        # version is the package's, and there is nothing to download.
        if man.get("default") == "debian" and glob.glob(
                "/usr/src/linux-source-%s.tar.xz" % branch_of(version)):
            tree = debian_source(branch_of(version))
            if tree_version(tree) == version:
                return tree
        raise UserError(
            "linux %s is not in the cache and kernels/%s names no download "
            "(source: %s).\n  Use KERNEL=debian, or pass a tree or a "
            "tarball of linux-%s."
            % (version, branch_of(version), man.get("source", "none"),
               version))
    os.makedirs(os.path.dirname(tarball), exist_ok=True)
    try:
        want = expected_sha256(man, version, name)
        if not os.path.exists(tarball):
            url = man["url"].replace("{version}", upstream)
            log("fetching %s" % url)
            download(url, tarball)
    except OSError as e:
        raise UserError(
            "linux %s is not in the cache and cannot be downloaded (%s).\n"
            "  Put a pristine tree at %s,\n"
            "  or pass KERNEL=/path/to/linux-%s.tar.xz or a tree path,\n"
            "  or use KERNEL=debian (Debian's linux-source package)."
            % (version, e, tree, version))
    if want is None:
        raise UserError("no published sha256 known for %s: refusing an "
                        "unverified download (add 'sha256-%s:' to kernels/%s)"
                        % (name, version, branch_of(version)))
    got = sha256_of(tarball)
    if got != want:
        raise UserError("checksum mismatch for %s: got %s, expected %s.\n"
                        "  Delete it and retry; if it persists the mirror is "
                        "bad." % (tarball, got, want))
    top = extract_tarball(tarball, os.path.join(cache.root(), "trees"))
    os.replace(top, tree)
    shutil.rmtree(os.path.dirname(top), ignore_errors=True)
    return tree


def debian_source(branch=None):
    """Debian's linux-source-X.Y tree (extracted once into the cache): the
    one of BRANCH (KERNEL=6.12), else the newest installed (KERNEL=debian)."""
    pattern = "linux-source-%s.tar.xz" % (branch or "*")
    tars = sorted(glob.glob(os.path.join("/usr/src", pattern)),
                  key=lambda p: [int(x) for x in
                                 re.findall(r"\d+", os.path.basename(p))])
    if not tars:
        raise UserError("KERNEL=%s needs Debian's kernel source: "
                        "'apt-get install linux-source-%s'"
                        % (branch or "debian", branch or "6.1"))
    tarball = tars[-1]
    stamp = sha256_of(tarball)[:16]
    tree = os.path.join(cache.root(), "trees", "debian-%s-%s"
                        % (os.path.basename(tarball)[:-len(".tar.xz")],
                           stamp))
    if not os.path.isfile(os.path.join(tree, "Makefile")):
        log("extracting %s" % tarball)
        top = extract_tarball(tarball, os.path.join(cache.root(), "trees"))
        os.replace(top, tree)
        shutil.rmtree(os.path.dirname(top), ignore_errors=True)
    return tree


def resolve(kernel):
    """Map KERNEL to a pristine source tree (never modified afterwards)."""
    if not kernel:
        raise UserError("KERNEL is empty: give a version (e.g. 4.4.220), a "
                        "tarball, a tree or 'debian'")
    if kernel == "debian":
        return debian_source()
    if os.path.isdir(kernel):
        tree_version(kernel)
        return os.path.abspath(kernel)
    if os.path.isfile(kernel):
        if not re.search(r"\.tar(\.(xz|gz|bz2))?$|\.tgz$", kernel):
            raise UserError("%s: not a kernel tarball (.tar.xz/.tar.gz)"
                            % kernel)
        stamp = sha256_of(kernel)[:16]
        tree = os.path.join(cache.root(), "trees", "tarball-%s" % stamp)
        if not os.path.isfile(os.path.join(tree, "Makefile")):
            top = extract_tarball(kernel, os.path.join(cache.root(), "trees"))
            os.replace(top, tree)
            shutil.rmtree(os.path.dirname(top), ignore_errors=True)
        return tree
    mans = manifests()
    if re.match(r"^\d+\.\d+(\.\d+)?$", kernel):
        branch = branch_of(kernel)
        man = mans.get(branch)
        if man is None:
            raise UserError("unknown kernel version '%s': known branches are "
                            "%s" % (kernel, ", ".join(sorted(mans))))
        version = kernel
        if kernel == branch:
            version = man.get("default", "")
            if not version:
                raise UserError("kernels/%s names no default version: pass "
                                "a full version (e.g. %s.1) or a tree"
                                % (branch, branch))
            if version == "debian":
                return debian_source(branch)
        return fetch_version(version, man)
    raise UserError("KERNEL=%s is not a known version, an existing path or "
                    "'debian'; known branches: %s"
                    % (kernel, ", ".join(sorted(mans))))



def hardened_state(tree):
    """'native', 'backport' (ours), 'partial' (dirty) or 'none'."""
    kconfig = os.path.join(tree, "security", "Kconfig")
    has_kconfig = False
    if os.path.isfile(kconfig):
        with open(kconfig, errors="replace") as f:
            has_kconfig = bool(re.search(r"^config HARDENED_USERCOPY$",
                                         f.read(), re.M))
    has_checker = os.path.isfile(os.path.join(tree, "mm", "usercopy.c"))
    ours = os.path.isfile(os.path.join(tree, "include", "linux",
                                       "usercopy_check.h"))
    if has_kconfig and has_checker:
        return "backport" if ours else "native"
    if has_kconfig or has_checker or ours:
        return "partial"
    return "none"

