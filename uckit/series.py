"""Series files: series/BRANCH lists the steps of one branch in the order
they apply (the order a quilt user reads); "include OTHER [GROUP]" splices
in another branch's steps, or those of one group."""

import hashlib
import os

from . import TOP, UserError
from .source import branch_of

KINDS = ("file", "patch", "cocci", "select", "rename", "macro")


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
    return steps


def series_for(version):
    branch = branch_of(version)
    if not os.path.isfile(os.path.join(TOP, "series", branch)):
        known = sorted(os.listdir(os.path.join(TOP, "series")))
        raise UserError("no series for Linux %s (branch %s); series exist "
                        "for: %s" % (version, branch, ", ".join(known)))
    return branch, read_series(branch)



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

