"""Rename steps: an assembly copy routine gets a new symbol name, so that
a checked inline wrapper can take its old one (what upstream did in 4.3
for arm, arm_copy_*, and in 4.6 for arm64, __arch_copy_*).

The rename is by whole identifier in the files the step lists: the .S
entry point, its EXPORT_SYMBOL and any C definition standing in for it.
Semantic patches cannot read assembly, and a context patch would fail on
a sublevel whose neighbouring lines differ; an exact identifier match
lands on every tree that has the symbol and on no tree that lacks it."""

import os
import re
import shutil

from . import UserError, log
from .patching import absent_arch, git_style_diff, header_lines


def parse_rename(item):
    """"FILE,?FILE:OLD:NEW" -> ([(path, required)], OLD, NEW)."""
    parts = item.split(":")
    if len(parts) != 3 or not all(parts) or \
            not re.match(r"^\w+$", parts[1]) or \
            not re.match(r"^\w+$", parts[2]):
        raise UserError("rename step '%s': expected FILE[,?FILE...]:OLD:NEW"
                        % item)
    files = [(f.lstrip("?"), not f.startswith("?"))
             for f in parts[0].split(",")]
    return files, parts[1], parts[2]


def word(name):
    return re.compile(r"(?<![\w$.])%s(?!\w)" % re.escape(name))


def code(text):
    """TEXT without its C comments: a name left in a comment ("see
    __copy_to_user() above") is no symbol to rename."""
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text,
                                          flags=re.S))


def state(tree, item):
    """(why n/a or None, {file: (has OLD, has NEW)}, problems)."""
    files, old, new = parse_rename(item)
    arch = absent_arch(tree, [f for f, _ in files])
    if arch is not None:
        return "no arch/%s in this tree" % arch, {}, []
    found, problems = {}, []
    for rel, required in files:
        path = os.path.join(tree, rel)
        if not os.path.isfile(path):
            if required:
                problems.append("%s does not exist" % rel)
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        text = code(text)
        has = (bool(word(old).search(text)), bool(word(new).search(text)))
        if required and not any(has):
            problems.append("%s names neither %s nor %s" % (rel, old, new))
        found[rel] = has
    return None, found, problems


def step_rename(tree, step, before):
    files, old, new = parse_rename(step["item"])
    why, found, problems = state(tree, step["item"])
    if why is not None:
        log("        rename %s: n/a, %s" % (old, why))
        return None
    if problems:
        raise UserError("; ".join(problems) + ": the tree differs from "
                        "what the step expects")
    todo = [rel for rel, _ in files if found.get(rel, (False,))[0]]
    if not todo:
        log("        %s is %s already: skipped" % (old, new))
        return None
    pat = word(old)
    for rel in todo:
        path = os.path.join(tree, rel)
        dst = os.path.join(before, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(path, dst)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(pat.sub(new, text))
    body = ["%s becomes %s in %s." % (old, new, ", ".join(todo)), "",
            step["reason"][0].upper() + step["reason"][1:] + "."]
    return header_lines("hardened usercopy: %s becomes %s" % (old, new),
                        body, "usercopy-backports, series step rename %s"
                        % step["item"]) + \
        "".join(git_style_diff(before, tree, rel) for rel in todo)


def audit_rename(tree, step):
    files, old, new = parse_rename(step["item"])
    why, found, problems = state(tree, step["item"])
    if why is not None:
        return True, ["audit: n/a rename %s (%s)" % (old, why)]
    lines = ["audit: MISSING rename %s (%s)" % (old, p) for p in problems]
    for rel, _ in files:
        if rel not in found:
            continue
        has_old, has_new = found[rel]
        if has_old:
            lines.append("audit: MISSING %s %s (still %s)" % (rel, new, old))
        elif has_new:
            lines.append("audit: renamed %s %s -> %s" % (rel, old, new))
    ok = not any("MISSING" in line for line in lines)
    return ok, lines
