#!/usr/bin/python3
"""Regenerates tests/fixtures with PyTorch (Debian's python3-torch):

    /usr/bin/python3 tests/reference/gen_fixtures.py [family ...]

Every tests/reference/cases_<family>.py module has generate(writer); its cases
go to tests/fixtures/<family>/. With no arguments every family is rebuilt.
The fixtures are checked in, so running the tests needs no PyTorch."""
import glob
import importlib
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(os.path.dirname(HERE), "fixtures")
sys.path.insert(0, HERE)

from conformance_writer import Writer, reset_family  # noqa: E402


def main(argv):
    torch.set_num_threads(1)
    fams = argv or sorted(os.path.basename(p)[6:-3] for p in glob.glob(os.path.join(HERE, "cases_*.py")))
    w = Writer(ROOT)
    for fam in fams:
        reset_family(ROOT, fam)
        mod = importlib.import_module("cases_" + fam)
        before = w.count
        mod.generate(w)
        print("%-12s %d cases" % (fam, w.count - before))
    print("total", w.count)


if __name__ == "__main__":
    main(sys.argv[1:])
