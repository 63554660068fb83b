"""File and patch steps, and the diff/patch plumbing every step uses to
produce an exported patch exact for the tree it was applied to."""

import os
import re
import shutil
import subprocess

from . import AUTHOR, TOP, UserError, log

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


def not_needed(tree, text):
    """Why a compat patch does not apply to TREE, or None, from its header
    lines: "Needed-if: FILE REGEX" (FILE lacks REGEX: the code the fix is
    for is not there) and "Skip-if: FILE REGEX" (FILE has REGEX: a later
    sublevel carries the fix in another form).  Either way the step is
    skipped on that sublevel, not failed."""
    for line in text.split("\n---\n", 1)[0].splitlines():
        m = re.match(r"^(Needed|Skip)-if:\s+(\S+)\s+(.+?)\s*$", line)
        if not m:
            continue
        path = os.path.join(tree, m.group(2))
        body = ""
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                body = f.read()
        found = re.search(m.group(3), body, re.M) is not None
        if m.group(1) == "Needed" and not found:
            return "%s has no %s" % (m.group(2), m.group(3))
        if m.group(1) == "Skip" and found:
            return "%s has %s already" % (m.group(2), m.group(3))
    return None


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
    why = not_needed(tree, text)
    if why is not None:
        # A sublevel without the code the fix is for (4.1.5 has no RFI
        # flush to misplace): the problem is not there to fix.
        log("        patches/%s: not needed here (%s): skipped"
            % (step["item"], why))
        return None
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


