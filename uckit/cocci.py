"""Running semantic patches: the header a rule declares (description,
options, target files) and one spatch runner for apply, audit and the rule
tests."""

import concurrent.futures
import functools
import glob
import hashlib
import os
import subprocess
import tempfile

from . import UserError, cache, need_tool

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


@functools.lru_cache(maxsize=None)
def _spatch_version():
    r = subprocess.run(["spatch", "--version"], capture_output=True,
                       text=True)
    return r.stdout + r.stderr


def _memo_key(tree, cocci, mode, options, group):
    """What spatch's answer depends on: its version, the rule, the mode and
    options, and every input file's name and content.  The tree's other
    files do not matter: spatch reads only the files it is given (every
    rule runs with --no-includes)."""
    h = hashlib.sha256()
    for part in (_spatch_version(), mode, " ".join(options)):
        h.update(part.encode() + b"\0")
    with open(cocci, "rb") as f:
        h.update(f.read() + b"\0")
    for rel in group:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(tree, rel), "rb") as f:
            h.update(f.read() + b"\0")
    return h.hexdigest()


def _memo_get(key):
    try:
        with open(cache.path("spatch", key[:2], key)) as f:
            return f.read()
    except OSError:
        return None


def _memo_put(key, text):
    """Written whole and renamed into place: an interrupted run leaves no
    half answer; a full disk only loses the memo."""
    d = cache.path("spatch", key[:2])
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(d, key))
    except OSError:
        pass


def run_spatch(tree, cocci, mode, files):
    """spatch on FILES (relative to TREE) in MODE ("patch" or "report");
    returns its output (a -p0 diff in patch mode).

    Patch mode runs file by file: spatch shares inherited bindings
    between the files of one invocation, so a routine wanted in one
    header would be wired wherever its name appears.  Report mode needs
    them together (its finalize step judges the whole set).  apply, audit
    and the rule tests (tests/cocci_rules.py) all run spatch through
    here.  Answers are kept in the cache (spatch/, keyed by the spatch
    version, the rule and the input files' content): applying a tree a
    second time, or a tree whose files a rule reads are the same as
    another's, runs no spatch for them (UC_SPATCH_MEMO=0: always run)."""
    need_tool("spatch", "coccinelle")
    _, options, _ = cocci_header(cocci)
    groups = [[f] for f in files] if mode == "patch" else [files]
    memo = os.environ.get("UC_SPATCH_MEMO", "1") != "0"

    def one(group):
        key = _memo_key(tree, cocci, mode, options, group) if memo else None
        if key:
            text = _memo_get(key)
            if text is not None:
                return subprocess.CompletedProcess([], 0, text, "")
        cmd = ["spatch", "--very-quiet", "--sp-file", cocci, "-D", mode] + \
            options + group
        r = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
        if key and r.returncode == 0:
            _memo_put(key, r.stdout)
        return r

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

