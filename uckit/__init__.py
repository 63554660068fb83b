"""usercopy-backports toolkit: hardened usercopy for the LTS kernels that
lack it.  `python3 -m uckit --help` lists the verbs; the Makefile calls
them.  Modules: source (KERNEL to a pristine tree), series, cocci,
patching, kconfig, apply (apply/export/audit), arch (the per-arch data in
uckit/arches/), cache (every path under the cache, the cell key), knobs
(the environment variables the toolkit reads) and cli."""

import os
import shutil
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AUTHOR = "usercopy-backports <usercopy-backports@users.noreply.invalid>"


class UserError(Exception):
    """An error the user can fix; the message says how."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def need_tool(tool, package):
    if shutil.which(tool) is None:
        raise UserError("%s not found: install it with "
                        "'apt-get install %s'" % (tool, package))


def need_tools():
    """Everything apply, export and audit run, checked up front."""
    for tool, package in (("spatch", "coccinelle"), ("patch", "patch"),
                          ("diff", "diffutils"), ("cp", "coreutils")):
        need_tool(tool, package)
