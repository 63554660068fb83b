#!/usr/bin/env python3
"""The documentation: a short README whose layout is the repository's,
links that lead somewhere, docs/ tables that agree with the files they
describe, and branch manifests that state facts, not run history."""

import glob
import os
import re
import subprocess
import unittest

from helpers import TOP  # noqa: E402
from uckit import series, source  # noqa: E402

README = os.path.join(TOP, "README.md")
DOCS = os.path.join(TOP, "docs")
README_MAX_LINES = 150
# Hidden directories are left out of the layout, as tree leaves them out,
# except the CI glue.
HIDDEN_LISTED = {".ci"}
MANIFEST_KEYS = {"branch", "status", "default", "url", "sha256sums",
                 "source", "toolchain", "notes"}
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    """The lines of a '## heading' section, up to the next '## '."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == heading
            continue
        if inside:
            out.append(line)
    return out


def table(text, header):
    """The rows (lists of cells) of the Markdown table whose header line
    starts with HEADER."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith(header):
            inside = True
            continue
        if not inside:
            continue
        if not line.startswith("|"):
            if rows:
                break
            continue
        if set(line) <= set("|-: "):
            continue
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def layout_listed(text):
    """The directories the README's layout block names: top-level entries
    start the line, their subdirectories are indented under them."""
    lines = section(text, "Layout")
    fences = [i for i, l in enumerate(lines) if l.startswith("```")]
    if len(fences) < 2:
        return None
    listed, parent = set(), None
    for line in lines[fences[0] + 1:fences[1]]:
        m = re.match(r"^( *)(\S+)/(\s|$)", line)
        if not m:
            continue
        if m.group(1):
            if parent is None:
                continue
            listed.add(parent + "/" + m.group(2))
        else:
            parent = m.group(2)
            listed.add(parent)
    return listed


def ignored(paths):
    """Those of PATHS (relative to TOP) that git ignores; none when TOP
    is not a git checkout."""
    if not paths or not os.path.isdir(os.path.join(TOP, ".git")):
        return set()
    try:
        r = subprocess.run(["git", "-C", TOP, "check-ignore", "--stdin"],
                           input="\n".join(paths) + "\n",
                           capture_output=True, text=True)
    except OSError:
        return set()
    return set(r.stdout.split())


def repo_dirs():
    """The repository's directories to depth 2, as `tree -d -L 2` shows
    them (plus .ci/), without what git ignores."""
    found = []
    for top in sorted(os.listdir(TOP)):
        if not os.path.isdir(os.path.join(TOP, top)):
            continue
        if top.startswith(".") and top not in HIDDEN_LISTED:
            continue
        found.append(top)
        for sub in sorted(os.listdir(os.path.join(TOP, top))):
            if os.path.isdir(os.path.join(TOP, top, sub)) and \
                    not sub.startswith("."):
                found.append(top + "/" + sub)
    found = [d for d in found if "__pycache__" not in d.split("/")]
    gone = ignored(found) | ignored([d + "/" for d in found])
    return {d for d in found if d not in gone and d + "/" not in gone}


def markdown_files():
    return [README] + sorted(glob.glob(os.path.join(DOCS, "*.md")))


def manifest_paths():
    return sorted(p for p in glob.glob(os.path.join(TOP, "kernels", "*"))
                  if re.match(r"^\d+\.\d+$", os.path.basename(p)))


class Readme(unittest.TestCase):
    def test_readme_is_short(self):
        n = len(read(README).splitlines())
        self.assertLessEqual(n, README_MAX_LINES,
                             "README.md has %d lines: detail goes to docs/"
                             % n)

    def test_layout_is_the_tree(self):
        listed = layout_listed(read(README))
        self.assertIsNotNone(listed, "README.md: no fenced block under "
                             "'## Layout'")
        actual = repo_dirs()
        self.assertFalse(actual - listed,
                         "directories missing from README.md's layout: %s"
                         % ", ".join(sorted(actual - listed)))
        self.assertFalse(listed - actual,
                         "README.md's layout lists what is not there: %s"
                         % ", ".join(sorted(listed - actual)))

    def test_every_make_verb_is_listed(self):
        with open(os.path.join(TOP, "Makefile")) as f:
            verbs = re.findall(r"^([a-z-]+):.*## ", f.read(), re.M)
        text = read(README)
        missing = [v for v in verbs
                   if v != "help" and "`make %s`" % v not in text]
        self.assertFalse(missing, "README.md does not list: %s"
                         % ", ".join("make " + v for v in missing))


class Testing(unittest.TestCase):
    def test_every_unit_test_file_has_a_row(self):
        """docs/testing.md names every tests/test_*.py."""
        with open(os.path.join(TOP, "docs", "testing.md")) as f:
            text = f.read()
        for name in sorted(os.listdir(os.path.join(TOP, "tests"))):
            if name.startswith("test_") and name.endswith(".py"):
                self.assertIn("`%s`" % name, text)


class Links(unittest.TestCase):
    def test_relative_links_exist(self):
        bad = []
        for path in markdown_files():
            for target in LINK.findall(read(path)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or \
                        target.startswith("#"):
                    continue
                rel = target.split("#", 1)[0]
                dest = os.path.normpath(os.path.join(os.path.dirname(path),
                                                     rel))
                if not os.path.exists(dest):
                    bad.append("%s: %s" % (os.path.relpath(path, TOP),
                                           target))
        self.assertFalse(bad, "links to nothing: %s" % "; ".join(bad))


class Manifests(unittest.TestCase):
    def test_manifests_are_declarative(self):
        paths = manifest_paths()
        self.assertTrue(paths)
        for path in paths:
            name = os.path.relpath(path, TOP)
            text = read(path)
            self.assertIsNone(DATE.search(text),
                              "%s: a date (run history goes to the "
                              "records and commit messages)" % name)
            seen = set()
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                key = line.partition(":")[0].strip()
                self.assertTrue(key in MANIFEST_KEYS or
                                re.match(r"^sha256-\d+\.\d+(\.\d+)?$", key),
                                "%s: key '%s' is not one of %s"
                                % (name, key, ", ".join(sorted(
                                    MANIFEST_KEYS | {"sha256-VERSION"}))))
                self.assertNotIn(key, seen, "%s: '%s' twice" % (name, key))
                seen.add(key)
            man = source.read_manifest(path)
            self.assertEqual(man.get("branch"), os.path.basename(path), name)
            self.assertIn(man.get("status"), ("backport", "native"), name)


class Branches(unittest.TestCase):
    """docs/branches.md explains kernels/ and series/; it may not drift."""

    def setUp(self):
        self.text = read(os.path.join(DOCS, "branches.md"))

    def test_branch_table_is_the_manifests(self):
        rows = {r[0]: r for r in table(self.text, "| branch | status |")}
        mans = source.manifests()
        self.assertEqual(sorted(rows), sorted(mans),
                         "docs/branches.md's table lists other branches "
                         "than kernels/")
        for branch, man in mans.items():
            self.assertEqual(rows[branch][1], man.get("status"),
                             "docs/branches.md: status of %s" % branch)
            self.assertEqual(rows[branch][2], man.get("default", "-"),
                             "docs/branches.md: default of %s" % branch)

    def test_compat_table_is_the_series(self):
        want = {}
        for branch in os.listdir(os.path.join(TOP, "series")):
            for step in series.read_series(branch):
                if step["group"] == "compat":
                    key = (step["item"] if step["kind"] == "patch"
                           else "%s %s" % (step["kind"], step["item"]))
                    want.setdefault(key, set()).add(branch)
        got = {r[0].strip("`"): set(r[1].split())
               for r in table(self.text, "| step | branches |")}
        self.assertEqual(sorted(got), sorted(want),
                         "docs/branches.md's compat table lists other steps "
                         "than series/")
        for step, branches in want.items():
            self.assertEqual(got[step], branches,
                             "docs/branches.md: branches of %s" % step)


class Architectures(unittest.TestCase):
    def test_every_arch_has_a_row(self):
        text = read(os.path.join(DOCS, "architectures.md"))
        rows = {r[0] for r in table(text, "| arch | QEMU machine")}
        names = {os.path.basename(p)[:-4] for p in
                 glob.glob(os.path.join(TOP, "uckit", "arches", "*.ini"))}
        self.assertEqual(sorted(rows), sorted(names),
                         "docs/architectures.md's table lists other arches "
                         "than uckit/arches/")


if __name__ == "__main__":
    unittest.main()
