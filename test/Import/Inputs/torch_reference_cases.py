"""PyTorch's own partitioner test cases (../shared/REFERENCES.md, "Small
cases with known answers"), exported and planned by remat on the same joint
graph. For each case: PyTorch's min-cut saves the documented number of
bytes (storage: the two split views of case 3 are one tensor, which
PyTorch 1.13 saves as two views and newer versions as x), so the comparison
really ran PyTorch's partitioner, and remat saves no more activation
bytes than PyTorch (primal inputs, which the caller holds, left out: in case
2 remat keeps the four inputs, which cost nothing, where PyTorch charges
them and saves the sum). Exits non-zero on the first mismatch."""

import io
import sys

import torch

from remat_torch.compare import compare


def case1(x):
    return torch.cos(torch.cos(torch.cos(x))).sum()


def case2(a, b, c, d):
    return torch.cos(torch.cos(a + b + c + d)).sum()


def case3(x):
    y0, y1 = torch.split(x, 2)
    return (y0.sin() + y1.cos()).sum()


CASES = [
    # (title, function, inputs, bytes PyTorch saves: x, the sum, x)
    ("cos(cos(cos(x)))", case1, (torch.randn(3),), 12),
    ("cos(cos(a+b+c+d))", case2, tuple(torch.randn(3) for _ in range(4)), 12),
    ("split(x, 2) -> sin + cos", case3, (torch.randn(4, 4),), 64),
]


def main(remat_opt):
    failures = 0
    for title, fn, inputs, expected_saved in CASES:
        out = io.StringIO()
        theirs, ours = compare(fn, inputs, remat_opt, out)
        print(f"case {title}")
        print(out.getvalue(), end="")
        if theirs["saved bytes"] != expected_saved:
            print(f"FAIL: PyTorch saved {theirs['saved bytes']} B, the "
                  f"reference says {expected_saved} B")
            failures += 1
        row = "saved activation bytes"
        if ours[row] > theirs[row]:
            print(f"FAIL: remat saves {ours[row]} activation bytes, more than "
                  f"PyTorch's {theirs[row]}")
            failures += 1
    print("reference cases:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
