"""Kconfig select steps: "select" lines added to one config entry of an
arch Kconfig, exactly (never by fuzzy context), and their audit."""

import os
import re
import shutil

from . import UserError, log
from .patching import absent_arch, git_style_diff, header_lines

def parse_select(item):
    """"arch/x86/Kconfig:X86:A,B" -> (path, "X86", ["A", "B"]).  A select
    "A/COND" becomes "select A if COND" (arm: only with an MMU).  An
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


def select_name(name):
    """The symbol of a select step's "A" or "A/COND"."""
    return name.split("/", 1)[0]


def select_text(name):
    """What follows "select" in the Kconfig: "A", or "A if COND"."""
    sym, _, cond = name.partition("/")
    return sym + (" if " + cond if cond else "")


def missing_selects(lines, first, end, names):
    """NAMES whose symbol the entry does not select yet (conditionally or
    not: a vendor's own select counts)."""
    have = set()
    for line in lines[first:end]:
        m = re.match(r"^\s+select\s+(\w+)", line)
        if m:
            have.add(m.group(1))
    return [n for n in names if select_name(n) not in have]


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
            % (rel, sym, ", ".join(select_text(n) for n in names)))
        return None
    at = first + 1
    while at < end and re.match(r"^\s+(bool|def_bool|tristate|default|"
                                r"prompt)\b", lines[at]):
        at += 1
    dst = os.path.join(before, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(path, dst)
    lines[at:at] = ["\tselect %s\n" % select_text(n) for n in todo]
    with open(path, "w") as f:
        f.writelines(lines)
    body = ["%s: config %s selects %s." % (
        rel, sym, ", ".join(select_text(n) for n in todo)),
            "",
            step["reason"][0].upper() + step["reason"][1:] + "."]
    prefix = "hardened usercopy" if step["group"] == "hardening" \
        else "toolchain/QEMU compat"
    return header_lines("%s: %s selects %s" % (
        prefix, rel.split("/")[1], ", ".join(select_name(n) for n in todo)),
        body,
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
        "MISSING" if n in todo else "wired", rel, sym, select_text(n))
        for n in names]

