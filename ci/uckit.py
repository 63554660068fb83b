#!/usr/bin/env python3
"""usercopy-backports toolkit: resolve a kernel, apply or export the series,
audit the wiring.  The Makefile is the interface; this is what runs behind it.

Verbs:
  resolve KERNEL            print the pristine source tree KERNEL stands for
  info KERNEL               version, branch, status (backport/native/hardened)
  apply KERNEL OUT          hardened copy of the tree in OUT (atomic, audited)
  export KERNEL OUT         quilt series (patches + series file) in OUT
  audit TREE                the wiring audit of a tree, in report mode

KERNEL is a version or branch from kernels/ (e.g. 4.4 or 4.4.220), a path
to a tarball, a path to a source tree (never modified), or "debian".
"""

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME",
                                    os.path.expanduser("~/.cache")),
                     "usercopy-backports")
AUTHOR = "usercopy-backports <usercopy-backports@users.noreply.invalid>"


class UserError(Exception):
    """An error the user can fix; the message says how."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def need_tool(tool, package):
    if shutil.which(tool) is None:
        raise UserError("%s not found: install it with "
                        "'apt-get install %s'" % (tool, package))


def need_tools():
    """Everything apply, export and audit run, checked up front."""
    for tool, package in (("spatch", "coccinelle"), ("patch", "patch"),
                          ("diff", "diffutils"), ("cp", "coreutils")):
        need_tool(tool, package)


# ---------------------------------------------------------------- manifests

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
        # boot-test record (ci/matrix.sh).
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
    except OSError as e:
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
    sums = os.path.join(CACHE, "tarballs", "sha256sums-%s.asc"
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
    tree = os.path.join(CACHE, "trees", "linux-" + version)
    if os.path.isfile(os.path.join(tree, "Makefile")):
        return tree
    # kernel.org names a first release X.Y, not X.Y.0 (linux-3.16.tar.xz).
    upstream = re.sub(r"^(\d+\.\d+)\.0$", r"\1", version)
    name = "linux-%s.tar.xz" % upstream
    tarball = os.path.join(CACHE, "tarballs", name)
    if "url" not in man:
        # A branch whose source is a distro package (kernels/6.1): its
        # version is the package's, and there is nothing to download.
        if man.get("default") == "debian" and glob.glob(
                "/usr/src/linux-source-*.tar.xz"):
            tree = debian_source()
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
    top = extract_tarball(tarball, os.path.join(CACHE, "trees"))
    os.replace(top, tree)
    shutil.rmtree(os.path.dirname(top), ignore_errors=True)
    return tree


def debian_source():
    tars = sorted(glob.glob("/usr/src/linux-source-*.tar.xz"),
                  key=lambda p: [int(x) for x in
                                 re.findall(r"\d+", os.path.basename(p))])
    if not tars:
        raise UserError("KERNEL=debian needs Debian's kernel source: "
                        "'apt-get install linux-source-6.1' (or "
                        "linux-source-6.12)")
    tarball = tars[-1]
    stamp = sha256_of(tarball)[:16]
    tree = os.path.join(CACHE, "trees", "debian-%s-%s"
                        % (os.path.basename(tarball)[:-len(".tar.xz")],
                           stamp))
    if not os.path.isfile(os.path.join(tree, "Makefile")):
        log("extracting %s" % tarball)
        top = extract_tarball(tarball, os.path.join(CACHE, "trees"))
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
        tree = os.path.join(CACHE, "trees", "tarball-%s" % stamp)
        if not os.path.isfile(os.path.join(tree, "Makefile")):
            top = extract_tarball(kernel, os.path.join(CACHE, "trees"))
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
                return debian_source()
        return fetch_version(version, man)
    raise UserError("KERNEL=%s is not a known version, an existing path or "
                    "'debian'; known branches: %s"
                    % (kernel, ", ".join(sorted(mans))))


# -------------------------------------------------------------- tree state

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


KINDS = ("file", "patch", "cocci", "select")


def read_series(branch, seen=()):
    """Steps of series/BRANCH; "include OTHER" splices OTHER's steps in,
    "include OTHER GROUP" only those of one group (the hardening of 4.4,
    without the compat fixes only 4.4 sublevels need)."""
    path = os.path.join(TOP, "series", branch)
    if not os.path.isfile(path):
        known = sorted(os.listdir(os.path.join(TOP, "series")))
        raise UserError("no series for branch %s; series exist for: %s"
                        % (branch, ", ".join(known)))
    if branch in seen:
        raise UserError("series/%s includes itself" % branch)
    steps = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 3)
            if parts[0] == "include" and len(parts) in (2, 3):
                inc = read_series(parts[1], seen + (branch,))
                if len(parts) == 3:
                    inc = [s for s in inc if s["group"] == parts[2]]
                    if not inc:
                        raise UserError("%s:%d: series/%s has no %s steps"
                                        % (path, n, parts[1], parts[2]))
                steps += inc
                continue
            if len(parts) < 4 or parts[1] not in KINDS:
                raise UserError("%s:%d: expected 'group kind item reason' "
                                "or 'include BRANCH [GROUP]'" % (path, n))
            steps.append({"group": parts[0], "kind": parts[1],
                          "item": parts[2], "reason": parts[3]})
    # compat steps first, whatever the order of includes
    order = {"compat": 0, "hardening": 1, "tests": 2}
    return sorted(steps, key=lambda s: order.get(s["group"], 1))


def series_for(version):
    branch = branch_of(version)
    if not os.path.isfile(os.path.join(TOP, "series", branch)):
        known = sorted(os.listdir(os.path.join(TOP, "series")))
        raise UserError("no series for Linux %s (branch %s); series exist "
                        "for: %s" % (version, branch, ", ".join(known)))
    return branch, read_series(branch)


# ----------------------------------------------------------- cocci helpers

def cocci_header(path):
    """The /// description, Options: and Targets: of a semantic patch."""
    desc, options, targets = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith("///"):
                desc.append(line[3:].strip())
            elif line.startswith("// Options:"):
                options = line.split(":", 1)[1].split()
            elif line.startswith("// Targets:"):
                targets = line.split(":", 1)[1].split()
            elif not line.startswith("//") and line.strip():
                break
    return desc, options, targets


def cocci_targets(tree, targets, name):
    """Files a rule runs on; "?path" marks one an arch may lack."""
    files = []
    for pattern in targets:
        optional = pattern.startswith("?")
        pattern = pattern.lstrip("?")
        hits = sorted(glob.glob(os.path.join(tree, pattern)))
        if not hits and optional:
            continue
        if not hits:
            raise UserError("%s: target %s does not exist in this tree"
                            % (name, pattern))
        files += [os.path.relpath(h, tree) for h in hits]
    return files


def spatch(tree, cocci, mode):
    need_tool("spatch", "coccinelle")
    _, options, targets = cocci_header(cocci)
    name = os.path.basename(cocci)
    files = cocci_targets(tree, targets, name)
    # Patch mode runs file by file: spatch shares inherited bindings
    # between the files of one invocation, so a routine wanted in one
    # header would be wired wherever its name appears.  Report mode needs
    # them together (its finalize step judges the whole set).
    groups = [[f] for f in files] if mode == "patch" else [files]
    out = []
    for group in groups:
        cmd = ["spatch", "--very-quiet", "--sp-file", cocci, "-D", mode] + \
            options + group
        r = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
        if r.returncode != 0:
            raise UserError("%s: spatch failed:\n%s"
                            % (name, r.stderr.strip()))
        out.append(r.stdout)
    return "".join(out), files


def audit_lines(tree, cocci):
    out, _ = spatch(tree, cocci, "report")
    return [line for line in out.splitlines() if line.startswith("audit:")]


# ------------------------------------------------------------ applying

def git_style_diff(tree_a, tree_b, rel):
    """Unified diff of one file with a/ b/ names (either side may be new)."""
    a = os.path.join(tree_a, rel) if tree_a else "/dev/null"
    b = os.path.join(tree_b, rel)
    if tree_a and not os.path.exists(a):
        a = "/dev/null"
    r = subprocess.run(["diff", "-u", "-p",
                        "--label", "a/" + rel if a != "/dev/null"
                        else "/dev/null",
                        "--label", "b/" + rel, a, b],
                       capture_output=True, text=True)
    if r.returncode > 1:
        raise UserError("diff failed on %s: %s" % (rel, r.stderr))
    return r.stdout


def patch_files(text):
    files = []
    for line in text.splitlines():
        m = re.match(r"^\+\+\+ b/(\S+)", line)
        if m:
            files.append(m.group(1))
    return files


def run_patch(tree, text, name, strip=1):
    r = subprocess.run(["patch", "-p%d" % strip, "--forward", "--batch",
                        "--no-backup-if-mismatch", "-r", "-", "--silent"],
                       cwd=tree, input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise UserError("%s does not apply:\n%s" % (name,
                                                    (r.stdout +
                                                     r.stderr).strip()))


def header_lines(subject, body, origin):
    lines = ["From: " + AUTHOR, "Subject: " + subject, ""]
    while body and not body[-1]:
        body = body[:-1]
    lines += body
    lines += ["", "Origin: " + origin, "Forwarded: not-needed",
              "Applied-by: usercopy-backports", "---", ""]
    return "\n".join(lines)


def step_file(tree, step, before):
    rel = step["item"]
    src = os.path.join(TOP, "patches", "files", rel)
    if not os.path.isfile(src):
        raise UserError("series names missing file patches/files/%s" % rel)
    dst = os.path.join(tree, rel)
    if os.path.exists(dst):
        raise UserError("%s already exists in the tree" % rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    diff = git_style_diff(None, tree, rel)
    header = header_lines("hardened usercopy: add %s" % rel,
                          [step["reason"][0].upper() + step["reason"][1:]
                           + "."],
                          "usercopy-backports, patches/files/%s" % rel)
    return header + diff


def absent_arch(tree, files):
    """The arch a patch is for, when it touches only arch/X/ and this tree
    has no arch/X (arm64 before 3.7, say); else None."""
    arches = {f.split("/")[1] for f in files
              if f.startswith("arch/") and f.count("/") >= 2}
    if len(arches) != 1 or not all(f.startswith("arch/") for f in files):
        return None
    arch = arches.pop()
    if os.path.isdir(os.path.join(tree, "arch", arch)):
        return None
    return arch


def step_patch(tree, step, before):
    path = os.path.join(TOP, "patches", step["item"])
    if not os.path.isfile(path):
        raise UserError("series names missing patch patches/%s"
                        % step["item"])
    with open(path) as f:
        text = f.read()
    files = patch_files(text)
    arch = absent_arch(tree, files)
    if arch is not None:
        # An architecture this tree does not have: nothing to wire.
        log("        patches/%s: n/a, this tree has no arch/%s"
            % (step["item"], arch))
        return None
    # Forward first: a patch that only deletes a line reverse-applies
    # almost anywhere once fuzz has eaten its context, so "reverse applies"
    # alone would skip a fix the tree still needs.
    fwd = subprocess.run(["patch", "-p1", "--forward", "--dry-run",
                          "--batch", "--silent"], cwd=tree, input=text,
                         capture_output=True, text=True)
    rev = subprocess.run(["patch", "-p1", "-R", "--dry-run", "--batch",
                          "--silent", "-f"], cwd=tree, input=text,
                         capture_output=True, text=True)
    if fwd.returncode != 0 and rev.returncode == 0:
        # The tree already carries this change (a vendor or later
        # sublevel fix): nothing to do, nothing to export.
        log("        patches/%s is already in this tree: skipped"
            % step["item"])
        return None
    for rel in files:
        src = os.path.join(tree, rel)
        if os.path.exists(src):
            dst = os.path.join(before, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
    run_patch(tree, text, "patches/" + step["item"])
    # Re-diff so the exported patch is exact for this tree (fuzz, offsets).
    head = text.split("\n--- a/", 1)[0]
    if not head.endswith("---"):
        head = text[:text.find("--- a/")].rstrip("\n")
    diff = "".join(git_style_diff(before, tree, rel) for rel in files)
    return head.rstrip("\n") + "\n" + diff


# ------------------------------------------------------ Kconfig selects

def parse_select(item):
    """"arch/x86/Kconfig:X86:A,B" -> (path, "X86", ["A", "B"]).  An
    optional fourth field names a file the arch's wiring needs: a tree
    without it gets no select (the option would check nothing there)."""
    parts = item.split(":")
    if len(parts) not in (3, 4) or not parts[0].endswith("Kconfig") or \
            not parts[1] or not parts[2]:
        raise UserError("select step '%s': expected KCONFIG_FILE:SYMBOL:"
                        "SELECT[,SELECT...][:NEEDED_FILE]" % item)
    return parts[0], parts[1], parts[2].split(",")


def select_na(tree, item):
    """Why a select step does not apply to this tree, or None."""
    rel = parse_select(item)[0]
    arch = absent_arch(tree, [rel])
    if arch is not None:
        return "no arch/%s in this tree" % arch
    parts = item.split(":")
    if len(parts) == 4 and not os.path.exists(os.path.join(tree, parts[3])):
        return "no %s in this tree: its copy routines are not wired" \
            % parts[3]
    return None


def config_block(lines, sym):
    """(first, end) line indexes of "config SYM" and its attributes."""
    for i, line in enumerate(lines):
        if line.rstrip("\n") == "config " + sym:
            end = i + 1
            while end < len(lines) and (lines[end].startswith(("\t", " "))
                                        or not lines[end].strip()):
                end += 1
            return i, end
    return None, None


def missing_selects(lines, first, end, names):
    have = set()
    for line in lines[first:end]:
        m = re.match(r"^\s+select\s+(\w+)", line)
        if m:
            have.add(m.group(1))
    return [n for n in names if n not in have]


def step_select(tree, step, before):
    """Add "select NAME" lines to one config entry of an arch Kconfig.

    Exact, not fuzzy: a context patch with short select-list context lands
    in whatever entry matches after fuzz (X86_64 instead of X86 on
    3.10-4.1, so i386 lost the feature).  The entry must exist; selects
    already there are kept (a vendor tree), none added twice."""
    rel, sym, names = parse_select(step["item"])
    why = select_na(tree, step["item"])
    if why is not None:
        log("        %s: n/a, %s" % (rel, why))
        return None
    path = os.path.join(tree, rel)
    if not os.path.isfile(path):
        raise UserError("%s does not exist in this tree" % rel)
    with open(path) as f:
        lines = f.readlines()
    first, end = config_block(lines, sym)
    if first is None:
        raise UserError("no 'config %s' entry in %s: the tree differs "
                        "from what the step expects" % (sym, rel))
    todo = missing_selects(lines, first, end, names)
    if not todo:
        log("        %s: config %s selects %s already: skipped"
            % (rel, sym, ", ".join(names)))
        return None
    at = first + 1
    while at < end and re.match(r"^\s+(bool|def_bool|tristate|default|"
                                r"prompt)\b", lines[at]):
        at += 1
    dst = os.path.join(before, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(path, dst)
    lines[at:at] = ["\tselect %s\n" % n for n in todo]
    with open(path, "w") as f:
        f.writelines(lines)
    body = ["%s: config %s selects %s." % (rel, sym, ", ".join(todo)),
            "",
            step["reason"][0].upper() + step["reason"][1:] + "."]
    prefix = "hardened usercopy" if step["group"] == "hardening" \
        else "toolchain/QEMU compat"
    return header_lines("%s: %s selects %s" % (
        prefix, rel.split("/")[1], ", ".join(todo)), body,
        "usercopy-backports, series step select %s" % step["item"]) + \
        git_style_diff(before, tree, rel)


def audit_select(tree, step):
    """Audit lines for a select step: each select in its entry, or not."""
    rel, sym, names = parse_select(step["item"])
    why = select_na(tree, step["item"])
    if why is not None:
        return True, ["audit: n/a %s config %s (%s)" % (rel, sym, why)]
    path = os.path.join(tree, rel)
    lines = []
    if os.path.isfile(path):
        with open(path, errors="replace") as f:
            lines = f.readlines()
    first, end = config_block(lines, sym)
    if first is None:
        return False, ["audit: MISSING %s config %s (no such entry)"
                       % (rel, sym)]
    todo = missing_selects(lines, first, end, names)
    return not todo, ["audit: %s %s config %s select %s" % (
        "MISSING" if n in todo else "wired", rel, sym, n) for n in names]


def step_cocci(tree, step, before):
    path = os.path.join(TOP, "cocci", step["item"])
    if not os.path.isfile(path):
        raise UserError("series names missing semantic patch cocci/%s"
                        % step["item"])
    out, files = spatch(tree, path, "patch")
    changed = []
    for line in out.splitlines():
        m = re.match(r"^--- (\S+)", line)
        if m and m.group(1) in files:
            changed.append(m.group(1))
    if not changed:
        raise UserError("semantic patch %s matched nothing on this tree "
                        "(targets: %s): the tree differs from what the rule "
                        "expects; see the audit: make audit"
                        % (step["item"], " ".join(files)))
    for rel in changed:
        dst = os.path.join(before, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(tree, rel), dst)
    run_patch(tree, out, "cocci/" + step["item"], strip=0)
    desc, _, _ = cocci_header(path)
    origin = "usercopy-backports, cocci/%s" % step["item"]
    for line in desc:
        m = re.search(r"upstream ([0-9a-f]{12})", line)
        if m:
            origin = "backport, Linux commit %s (behaviour); generated " \
                     "by cocci/%s" % (m.group(1), step["item"])
    body = []
    for line in desc:
        if not line and body and body[-1] == "":
            continue
        body.append(line)
    subject = desc[0] if desc else step["reason"]
    diff = "".join(git_style_diff(before, tree, rel) for rel in changed)
    return header_lines("hardened usercopy: " + step["reason"],
                        [subject] + body[1:], origin) + diff


STEPS = {"file": step_file, "patch": step_patch, "cocci": step_cocci,
         "select": step_select}


def audit(tree, steps=None):
    """Run every semantic patch in report mode; return (ok, lines)."""
    if steps is None:
        _, steps = series_for(tree_version(tree))
    lines, ok = [], True
    for step in steps:
        if step["kind"] == "file":
            present = os.path.isfile(os.path.join(tree, step["item"]))
            lines.append("audit: %s %s" % ("present" if present
                                            else "MISSING", step["item"]))
            ok = ok and present
        elif step["kind"] == "patch" and step["group"] == "hardening":
            # A hardening patch is in the tree if it reverse-applies.
            with open(os.path.join(TOP, "patches", step["item"])) as f:
                text = f.read()
            arch = absent_arch(tree, patch_files(text))
            if arch is not None:
                lines.append("audit: n/a patches/%s (no arch/%s in this "
                             "tree)" % (step["item"], arch))
                continue
            r = subprocess.run(["patch", "-p1", "-R", "--dry-run",
                                "--batch", "--silent", "-f"], cwd=tree,
                               input=text, capture_output=True, text=True)
            present = r.returncode == 0
            lines.append("audit: %s patches/%s" % (
                "present" if present else "MISSING", step["item"]))
            ok = ok and present
        elif step["kind"] == "select":
            good, got = audit_select(tree, step)
            ok = ok and good
            lines += got
        elif step["kind"] == "cocci":
            got = audit_lines(tree, os.path.join(TOP, "cocci", step["item"]))
            if not got:
                got = ["audit: MISSING no report from %s" % step["item"]]
            for line in got:
                if "UNWIRED" in line or "MISSING" in line:
                    ok = False
            lines += got
    kconfig = os.path.join(tree, "security", "Kconfig")
    with open(kconfig, errors="replace") as f:
        has = "\nconfig HARDENED_USERCOPY\n" in f.read()
    lines.append("audit: %s security/Kconfig config HARDENED_USERCOPY"
                 % ("present" if has else "MISSING"))
    return ok and has, lines


def copy_tree(src, dst):
    r = subprocess.run(["cp", "-a", src, dst], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise UserError("cannot copy %s to %s: %s" % (src, dst, r.stderr))


def run_series(tree, steps, patches_out=None):
    """Apply every step to tree in order; return [(name, patch text)]."""
    done = []
    before = tempfile.mkdtemp(prefix="uc-before-")
    try:
        for n, step in enumerate(steps, 1):
            label = "%s %s %s" % (step["group"], step["kind"], step["item"])
            try:
                text = STEPS[step["kind"]](tree, step, before)
            except UserError as e:
                raise UserError("step %d (%s) failed: %s" % (n, label, e))
            if text is None:
                continue
            item = step["item"]
            if step["kind"] == "file":
                item = "add-" + item
            elif step["kind"] == "select":
                item = parse_select(item)[0].split("/")[1] + "-kconfig-select"
            base = re.sub(r"[^A-Za-z0-9]+", "-",
                          re.sub(r"\.(patch|cocci)$", "",
                                 os.path.basename(item) if step["kind"] != "file"
                                 else item)).strip("-")
            name = "%s/%04d-%s.patch" % (step["group"], n, base)
            done.append((name, text))
            log("  [%2d/%d] %-5s %s" % (n, len(steps), step["kind"],
                                        step["item"]))
    finally:
        shutil.rmtree(before, ignore_errors=True)
    return done


def prepare(kernel):
    src = resolve(kernel)
    version = tree_version(src)
    state = hardened_state(src)
    return src, version, state


def check_out_dir(out):
    if not out:
        raise UserError("OUT is empty: say where the result goes (OUT=DIR)")
    if os.path.exists(out) and os.listdir(out):
        raise UserError("OUT=%s exists and is not empty: remove it or "
                        "choose another directory" % out)
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    return os.path.abspath(out)


def build_hardened(kernel, out):
    """apply: hardened copy of KERNEL in out; returns (version, state, patches)."""
    need_tools()
    out = check_out_dir(out)
    src, version, state = prepare(kernel)
    if state == "partial":
        raise UserError("%s carries part of hardened usercopy (dirty or "
                        "half-applied tree): start again from a pristine "
                        "tree" % src)
    tmp = tempfile.mkdtemp(prefix=".uc-apply-",
                           dir=os.path.dirname(out))
    work = os.path.join(tmp, "tree")
    try:
        copy_tree(src, work)
        patches = []
        if state in ("native", "backport"):
            log("Linux %s already has hardened usercopy (%s): nothing to "
                "apply, the copy is unchanged" % (version, state))
        else:
            branch, steps = series_for(version)
            log("applying series/%s (%d steps) to Linux %s"
                % (branch, len(steps), version))
            patches = run_series(work, steps)
            ok, lines = audit(work, steps)
            if not ok:
                bad = [l for l in lines if "UNWIRED" in l or "MISSING" in l]
                raise UserError("wiring audit failed, nothing applied:\n  "
                                + "\n  ".join(bad))
            log("wiring audit: %d points checked, all wired" % len(lines))
        if os.path.exists(out):
            os.rmdir(out)
        os.replace(work, out)
        return version, state, patches
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cmd_apply(kernel, out):
    version, state, _ = build_hardened(kernel, out)
    print("%s: Linux %s, %s" % (out, version,
                                "hardened usercopy applied" if state == "none"
                                else "already hardened (%s), unchanged"
                                % state))


def cmd_export(kernel, out):
    need_tools()
    out = check_out_dir(out)
    src, version, state = prepare(kernel)
    if state != "none":
        raise UserError("Linux %s at %s is already hardened (%s): there is "
                        "nothing to export" % (version, src, state))
    tmp = tempfile.mkdtemp(prefix=".uc-export-", dir=os.path.dirname(out))
    try:
        work = os.path.join(tmp, "tree")
        copy_tree(src, work)
        branch, steps = series_for(version)
        patches = run_series(work, steps)
        ok, lines = audit(work, steps)
        if not ok:
            raise UserError("wiring audit failed; nothing exported")
        dest = os.path.join(tmp, "out")
        os.makedirs(dest)
        series = ["# hardened usercopy for Linux %s, from usercopy-backports "
                  "series/%s" % (version, branch)]
        for name, text in patches:
            path = os.path.join(dest, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            series.append(name)
        with open(os.path.join(dest, "series"), "w") as f:
            f.write("\n".join(series) + "\n")
        if os.path.exists(out):
            os.rmdir(out)
        os.replace(dest, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %d patches for Linux %s (quilt: QUILT_PATCHES=%s quilt push "
          "-a)" % (out, len(patches), version, out))


def cmd_audit(kernel):
    need_tools()
    src = resolve(kernel)
    state = hardened_state(src)
    version = tree_version(src)
    if state == "native":
        print("audit: native hardened usercopy in Linux %s" % version)
        return 0
    ok, lines = audit(src)
    print("\n".join(lines))
    print("audit: %s" % ("complete" if ok else "INCOMPLETE"))
    return 0 if ok else 1


def fingerprint(version):
    """Hash of everything the series for VERSION applies: a change to any
    of its steps (and nothing else) makes a cached hardened tree stale."""
    _, steps = series_for(version)
    h = hashlib.sha256()
    base = {"file": "patches/files", "patch": "patches", "cocci": "cocci"}
    for step in steps:
        h.update(("%(group)s %(kind)s %(item)s\n" % step).encode())
        if step["kind"] not in base:
            continue        # a select step is all in its item
        with open(os.path.join(TOP, base[step["kind"]], step["item"]),
                  "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def cmd_info(kernel):
    src, version, state = prepare(kernel)
    print("tree=%s" % src)
    print("version=%s" % version)
    print("branch=%s" % branch_of(version))
    print("state=%s" % state)
    if state == "none":
        print("fingerprint=%s" % fingerprint(version))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    verb, args = argv[1], argv[2:]
    try:
        if verb == "resolve" and len(args) == 1:
            print(resolve(args[0]))
        elif verb == "info" and len(args) == 1:
            cmd_info(args[0])
        elif verb == "apply" and len(args) == 2:
            cmd_apply(*args)
        elif verb == "export" and len(args) == 2:
            cmd_export(*args)
        elif verb == "audit" and len(args) == 1:
            return cmd_audit(args[0])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except UserError as e:
        log("error: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
