"""Macro steps: the check inside copy routines that an arch writes as
statement-expression macros (MIPS: copy_to_user() and friends are
"#define NAME(to, from, n) ({ ... })" in asm/uaccess.h).  Coccinelle does
not rewrite macro bodies, and a context patch would not land on every
sublevel; this step finds each macro by name, the local variables its
body assigns from the kernel-side argument and from the length, and puts
check_object_size() right after those assignments, before any copy.

Item: FILE:NAME=SIDE[,NAME=SIDE...], SIDE "to" where the first argument is
the kernel buffer (a copy from user space), "from" where the second is
(a copy to user space), as in uaccess-check-object-size.cocci."""

import os
import re
import shutil

from . import UserError
from .patching import absent_arch, git_style_diff, header_lines

# A line of the body that moves data: the check must come before it.
COPY = re.compile(r"\b\w*(copy|memcpy)\w*\s*\(")
CHECK = "check_object_size("


def parse_macro(item):
    parts = item.split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise UserError("macro step '%s': expected FILE:NAME=to|from[,...]"
                        % item)
    names = []
    for pair in parts[1].split(","):
        name, _, side = pair.partition("=")
        if not re.match(r"^\w+$", name) or side not in ("to", "from"):
            raise UserError("macro step '%s': '%s' is not NAME=to|from"
                            % (item, pair))
        names.append((name, side))
    return parts[0], names


def blocks(lines, name):
    """[(first, end)] line ranges of every "#define NAME(a, b, c)"."""
    out = []
    head = re.compile(r"^#\s*define\s+%s\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)"
                      r"\s*\)" % re.escape(name))
    for i, line in enumerate(lines):
        if head.match(line):
            end = i
            while lines[end].rstrip("\n").endswith("\\") and \
                    end + 1 < len(lines):
                end += 1
            out.append((i, end + 1))
    return out


def plan(lines, first, end, side):
    """(where the check goes, its text) for one macro body, or why not."""
    args = re.match(r"^#\s*define\s+\w+\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)",
                    lines[first]).groups()
    buf_arg = args[0] if side == "to" else args[1]
    local = {}
    for i in range(first + 1, end):
        for arg in (buf_arg, args[2]):
            m = re.match(r"^\s*(\w+)\s*=\s*\(?\s*%s\s*\)?\s*;" % arg,
                         lines[i])
            if m:
                local[arg] = (m.group(1), i)
    if len(local) != 2:
        return None, "no local copy of '%s' and '%s' in the body" \
            % (buf_arg, args[2])
    at = max(i for _, i in local.values()) + 1
    for i in range(first + 1, at):
        if COPY.search(lines[i]):
            return None, "the body copies before its arguments are read"
    call = "\tcheck_object_size(%s, %s, %s);" % (
        local[buf_arg][0], local[args[2]][0],
        "false" if side == "to" else "true")
    col, tabs = 8 + len(call) - 1, 0
    while col < 72 or not tabs:     # the backslash at column 72
        col, tabs = (col // 8 + 1) * 8, tabs + 1
    return at, call + "\t" * tabs + "\\\n"


def wired_at(lines, first, end):
    """Line of the body's check when it comes before any copy, else None."""
    for i in range(first + 1, end):
        if CHECK in lines[i]:
            return i
        if COPY.search(lines[i]):
            return None
    return None


def read_lines(tree, rel):
    with open(os.path.join(tree, rel), errors="replace") as f:
        return f.readlines()


def step_macro(tree, step, before):
    rel, names = parse_macro(step["item"])
    if absent_arch(tree, [rel]) is not None:
        return None
    if not os.path.isfile(os.path.join(tree, rel)):
        raise UserError("%s does not exist in this tree" % rel)
    lines = read_lines(tree, rel)
    inserts, done = [], []
    for name, side in names:
        found = blocks(lines, name)
        if not found:
            raise UserError("%s: no macro %s(a, b, c): the tree differs "
                            "from what the step expects" % (rel, name))
        for first, end in found:
            if any(CHECK in lines[i] for i in range(first, end)):
                continue
            at, text = plan(lines, first, end, side)
            if at is None:
                raise UserError("%s: %s: %s" % (rel, name, text))
            inserts.append((at, text))
            done.append(name)
    if not inserts:
        return None
    dst = os.path.join(before, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(os.path.join(tree, rel), dst)
    for at, text in sorted(inserts, reverse=True):
        lines[at:at] = [text]
    with open(os.path.join(tree, rel), "w") as f:
        f.writelines(lines)
    body = ["check_object_size() in %s (%s)." % (", ".join(done), rel), "",
            step["reason"][0].upper() + step["reason"][1:] + "."]
    return header_lines("hardened usercopy: %s" % step["reason"], body,
                        "usercopy-backports, series step macro %s"
                        % step["item"]) + git_style_diff(before, tree, rel)


def audit_macro(tree, step):
    rel, names = parse_macro(step["item"])
    arch = absent_arch(tree, [rel])
    if arch is not None:
        return True, ["audit: n/a %s (no arch/%s in this tree)" % (rel, arch)]
    if not os.path.isfile(os.path.join(tree, rel)):
        return False, ["audit: MISSING %s (no such file)" % rel]
    lines = read_lines(tree, rel)
    out = []
    for name, _ in names:
        found = blocks(lines, name)
        if not found:
            out.append("audit: MISSING %s %s (no such macro)" % (rel, name))
        for first, end in found:
            at = wired_at(lines, first, end)
            if at is None:
                out.append("audit: UNWIRED %s %s" % (rel, name))
            else:
                out.append("audit: wired %s:%d %s" % (rel, first + 1, name))
    return not any("MISSING" in l or "UNWIRED" in l for l in out), out
