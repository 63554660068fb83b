"""apply, export and audit: one core that copies a pristine tree, runs
every series step in order, audits the wiring and only then moves the
result into place (nothing half-done is ever left behind)."""

import os
import re
import shutil
import subprocess
import tempfile

from . import TOP, UserError, log, need_tools
from .cocci import audit_lines, cocci_header, spatch
from .kconfig import audit_select, parse_select, step_select
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


