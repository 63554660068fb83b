"""The kernel cache: every path under it and the key of a boot-test cell,
in one place.  The cache lives in $XDG_CACHE_HOME/usercopy-backports
(~/.cache/usercopy-backports), read when asked, so a test may point it
elsewhere:
  trees/     pristine trees (linux-X.Y.Z, debian-..., tarball-HASH)
  tarballs/  downloaded tarballs and their checksum lists
  work/KEY   the hardened copy of one pristine tree (KEY.applied: the
             series fingerprint it was applied at)
  build/CELL out-of-tree builds, one per cell (a soak's CELL is
             KEY-ARCH-soak[-cCONFIG]-hY)
  results/CELL  cell.txt (soak.txt) and the logs of a cell's newest run
  rootfs/    the soak's Debian 12 images, debian-12-DEBARCH-HASH.img
  timings/   how long the package tests took here (the CI budget)
  spatch/    spatch's answers, keyed by its version, the rule and the
             input files' content (uckit/cocci.py)"""

import hashlib
import os


def root():
    base = os.environ.get("XDG_CACHE_HOME") or \
        os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "usercopy-backports")


def path(*parts):
    return os.path.join(root(), *parts)


def tree_key(version, tree):
    """linux-VERSION-ID: ID hashes the pristine tree's path, so two trees
    of one version (a vendor's, a snapshot) never share a hardened copy."""
    return "linux-%s-%s" % (version,
                            hashlib.sha256(tree.encode()).hexdigest()[:8])


def cell_key(version, tree, arch, alloc, hardened):
    return "%s-%s-%s-h%s" % (tree_key(version, tree), arch, alloc, hardened)


def results_dir():
    """Where cell records go: $RESULTS, else the cache's results/."""
    return os.environ.get("RESULTS") or path("results")
