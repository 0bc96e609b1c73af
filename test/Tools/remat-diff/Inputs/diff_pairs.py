#!/usr/bin/env python3
"""Runs remat-diff on every ordered pair of the given reports and prints
each table under a header "== OLD -> NEW (exit N)". Exit 1 (a regression)
is expected between strategies; any other failure stops the script.

Usage: diff_pairs.py REMAT_DIFF REPORT.json REPORT.json [REPORT.json ...]
"""

import os
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: diff_pairs.py REMAT_DIFF REPORT.json REPORT.json ...")
    remat_diff, reports = sys.argv[1], sys.argv[2:]
    for old in reports:
        for new in reports:
            if old == new:
                continue
            run = subprocess.run([remat_diff, old, new], capture_output=True,
                                 text=True)
            if run.returncode not in (0, 1):
                sys.exit(f"remat-diff {old} {new} exited {run.returncode}:\n"
                         f"{run.stderr}")
            name = lambda path: os.path.splitext(os.path.basename(path))[0]
            print(f"== {name(old)} -> {name(new)} (exit {run.returncode})")
            sys.stdout.write(run.stdout)


if __name__ == "__main__":
    main()
