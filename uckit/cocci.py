"""Running semantic patches: the header a rule declares (description,
options, target files) and one spatch runner for apply, audit and the rule
tests."""

import concurrent.futures
import glob
import os
import subprocess

from . import UserError, need_tool

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


def run_spatch(tree, cocci, mode, files):
    """spatch on FILES (relative to TREE) in MODE ("patch" or "report");
    returns its output (a -p0 diff in patch mode).

    Patch mode runs file by file: spatch shares inherited bindings
    between the files of one invocation, so a routine wanted in one
    header would be wired wherever its name appears.  Report mode needs
    them together (its finalize step judges the whole set).  apply, audit
    and the rule tests (tests/cocci_rules.py) all run spatch through
    here."""
    need_tool("spatch", "coccinelle")
    _, options, _ = cocci_header(cocci)
    groups = [[f] for f in files] if mode == "patch" else [files]

    def one(group):
        cmd = ["spatch", "--very-quiet", "--sp-file", cocci, "-D", mode] + \
            options + group
        return subprocess.run(cmd, cwd=tree, capture_output=True, text=True)

    # The files of patch mode are independent runs: as many at a time as
    # there are CPUs (uaccess-check-object-size: 11 headers, 15 s one by
    # one).  The output keeps the files' order.
    with concurrent.futures.ThreadPoolExecutor(
            max(1, min(len(groups), os.cpu_count() or 1))) as pool:
        results = list(pool.map(one, groups))
    for r in results:
        if r.returncode != 0:
            raise UserError("%s: spatch failed:\n%s"
                            % (os.path.basename(cocci), r.stderr.strip()))
    return "".join(r.stdout for r in results)


def spatch(tree, cocci, mode):
    """spatch over the files the rule's Targets: line names in TREE;
    returns (output, files)."""
    _, _, targets = cocci_header(cocci)
    files = cocci_targets(tree, targets, os.path.basename(cocci))
    return run_spatch(tree, cocci, mode, files), files


def audit_lines(tree, cocci):
    out, _ = spatch(tree, cocci, "report")
    return [line for line in out.splitlines() if line.startswith("audit:")]

