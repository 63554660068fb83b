#!/usr/bin/env python3
"""The unit tests (tests/test_*.py), as KTAP: one line a test.

  tests/unit.py [MODULE ...]     default: every tests/test_*.py"""

import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from helpers import KtapResult  # noqa: E402


def main(names):
    if not names:
        names = sorted(os.path.basename(p)[:-3]
                       for p in glob.glob(os.path.join(HERE, "test_*.py")))
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    print("KTAP version 1")
    print("1..%d" % suite.countTestCases())
    with open(os.devnull, "w") as devnull:
        runner = unittest.TextTestRunner(resultclass=KtapResult,
                                         stream=devnull)
        res = runner.run(suite)
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
