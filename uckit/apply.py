"""apply, export and audit: one core that copies a pristine tree, runs
every series step in order, audits the wiring and only then moves the
result into place (nothing half-done is ever left behind)."""

import concurrent.futures
import os
import re
import shutil
import subprocess
import tempfile

from . import TOP, UserError, arch, log, need_tools
from .cocci import audit_lines, cocci_header, spatch
from .kconfig import audit_select, parse_select, step_select
from .macrocheck import audit_macro, step_macro
from .rename import audit_rename, step_rename
from .patching import (absent_arch, git_style_diff, header_lines,
                       patch_files, run_patch, step_file, step_patch)
from .series import series_for
from .source import hardened_state, resolve, tree_version

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
        # Nothing to change is right only where the rule's own audit finds
        # every point in place (arm from 4.3 has the wrappers upstream
        # added): anything else is a tree the rule does not fit.
        got = audit_lines(tree, path)
        if got and not any(FAILING.search(line) for line in got):
            log("        %s: in place already (%s)"
                % (step["item"], "; ".join(g[len("audit: "):]
                                           for g in got)))
            return None
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
         "select": step_select, "rename": step_rename, "macro": step_macro}

# Audit states that fail an apply (the others: wired, wrapped, renamed,
# present, n/a).
FAILING = re.compile(r"\b(UNWIRED|UNWRAPPED|MISSING|UNSUPPORTED)\b")


def audit(tree, steps=None):
    """Run every semantic patch in report mode; return (ok, lines)."""
    if steps is None:
        _, steps = series_for(tree_version(tree))
    # The semantic patches' report runs are independent: started side by
    # side (one per CPU), read in series order below.
    rules = [os.path.join(TOP, "cocci", s["item"]) for s in steps
             if s["kind"] == "cocci"]
    with concurrent.futures.ThreadPoolExecutor(
            max(1, min(len(rules), os.cpu_count() or 1))) as pool:
        reports = dict(zip(rules, pool.map(
            lambda rule: audit_lines(tree, rule), rules)))
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
        elif step["kind"] in ("rename", "macro"):
            good, got = (audit_rename if step["kind"] == "rename"
                         else audit_macro)(tree, step)
            ok = ok and good
            lines += got
        elif step["kind"] == "cocci":
            got = reports[os.path.join(TOP, "cocci", step["item"])]
            if not got:
                got = ["audit: MISSING no report from %s" % step["item"]]
            for line in got:
                if FAILING.search(line):
                    ok = False
            lines += got
    kconfig = os.path.join(tree, "security", "Kconfig")
    with open(kconfig, errors="replace") as f:
        has = "\nconfig HARDENED_USERCOPY\n" in f.read()
    lines.append("audit: %s security/Kconfig config HARDENED_USERCOPY"
                 % ("present" if has else "MISSING"))
    _, unsupported = coverage(tree, lines)
    lines += ["audit: unsupported arch %s (no copy routine of arch/%s is "
              "wired: HARDENED_USERCOPY cannot be selected there)" % (a, a)
              for a in unsupported]
    return ok and has, lines


def coverage(tree, lines):
    """(arches whose copy routines the audit found wired, the tree's other
    arches): an arch nobody wires is reported, never counted as done."""
    wired = set()
    for line in lines:
        m = re.match(r"audit: wired arch/([^/]+)/\S+:\d+ ", line)
        if m:
            wired.add(m.group(1))
    root = os.path.join(tree, "arch")
    present = sorted(d for d in os.listdir(root)
                     if os.path.isdir(os.path.join(root, d))) \
        if os.path.isdir(root) else []
    return sorted(wired), [a for a in present if a not in wired]


def srcarch_of(name):
    """arch/ directory for an arch name: a boot arch of uckit/arches
    (x86_64 -> x86), else the kernel's own ARCH= name."""
    if name in arch.names():
        return arch.get(name).srcarch
    return name


def copy_tree(src, dst):
    # Reflinks where the filesystem has them (btrfs, XFS): the copy is then
    # near instant and still private; elsewhere a plain copy.  Hard links
    # would be as fast but every writer of the series (spatch --in-place
    # included) would write through them into the pristine tree.
    r = subprocess.run(["cp", "-a", "--reflink=auto", src, dst],
                       capture_output=True, text=True)
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
            elif step["kind"] == "rename":
                item = "%s-rename-%s" % (item.split("/")[1],
                                         item.split(":")[1].strip("_"))
            elif step["kind"] == "macro":
                item = "%s-uaccess-macros" % item.split("/")[1]
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


def build_hardened(kernel, out, arch_name=None):
    """apply: hardened copy of KERNEL in out; returns (version, state,
    patches).  With arch_name, fails unless that arch ends up wired."""
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
                bad = [l for l in lines if FAILING.search(l)]
                raise UserError("wiring audit failed, nothing applied:\n  "
                                + "\n  ".join(bad))
            wired, unsupported = coverage(work, lines)
            if arch_name and srcarch_of(arch_name) not in wired:
                raise UserError(
                    "ARCH=%s: the toolkit does not wire arch/%s (wired: %s); "
                    "hardened usercopy cannot be enabled for it, nothing "
                    "applied" % (arch_name, srcarch_of(arch_name),
                                 " ".join(wired)))
            log("wiring audit: %d points checked, all wired on %s"
                % (len(lines), " ".join(wired)))
            if unsupported:
                log("unsupported arch (not wired, the option cannot be "
                    "selected there): %s" % " ".join(unsupported))
        if os.path.exists(out):
            os.rmdir(out)
        os.replace(work, out)
        return version, state, patches
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def export(kernel, out):
    """export: the quilt series for KERNEL in out (patches + series)."""
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
    return len(patches)


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


