"""Imports every Checkmate graph and plans it at fractions of its peak.

For each graph: remat-translate imports it and remat-opt parses the result;
the save-all peak and the time of one evaluation of every op equal the data
README's topological peak and total cost_cpu; then for each fraction f,
`strategy=budget memory-budget=<f>peak` either plans within the budget
(budget_bytes = floor(f x peak), peak_memory_bytes <= budget_bytes, and
total_duration_increase = recompute time / total cost) or fails with the
infeasibility error, whose smallest feasible budget is above the budget.
Prints one line per plan; exits non-zero on the first violation.

usage: check_checkmate_budgets.py BIN_DIR DATA_DIR FRACTION...
"""

import json
import math
import os
import re
import subprocess
import sys

# The data README's table: topological peak and total cost_cpu.
README = {
    "VGG16_b256_224x224_train.json": (15825108992, 15500),
    "VGG19_b256_224x224_train.json": (17058234368, 9493135),
    "MobileNet_b512_224x224_train.json": (34701056000, 162080),
    "ResNet50_b256_224x224_train.json": (38059356160, 405670),
    "random_layered_n100.json": (50590, 47769),
    "random_layered_n250.json": (135910, 125569),
}


def run(command):
    return subprocess.run(command, capture_output=True, text=True)


def plan(remat_opt, mlir, options):
    result = run([remat_opt, mlir, f"-remat-plan={options}",
                  "-remat-report=output=-", "-o", os.devnull,
                  "-mlir-print-op-on-diagnostic=false"])
    return result.returncode, result.stdout, result.stderr


def main(bin_dir, data_dir, fractions, scratch):
    translate = os.path.join(bin_dir, "remat-translate")
    remat_opt = os.path.join(bin_dir, "remat-opt")
    failures = []
    for file, (peak, total) in README.items():
        mlir = os.path.join(scratch, file.replace(".json", ".mlir"))
        imported = run([translate, "--import-checkmate-json",
                        os.path.join(data_dir, file), "-o", mlir])
        if imported.returncode != 0:
            failures.append(f"{file}: import failed: {imported.stderr}")
            continue
        verified = run([remat_opt, mlir, "-o", os.devnull])
        if verified.returncode != 0:
            failures.append(f"{file}: does not verify: {verified.stderr}")
            continue
        rc, out, err = plan(remat_opt, mlir, "strategy=save-all")
        report = json.loads(out) if rc == 0 else {}
        if report.get("peak_memory_bytes") != peak or \
                report.get("predicted_total_time_us") != total:
            failures.append(f"{file}: save-all peak/time "
                            f"{report.get('peak_memory_bytes')}/"
                            f"{report.get('predicted_total_time_us')}, the "
                            f"README says {peak}/{total} {err}")
            continue
        print(f"{file}: imported, verified, peak {peak}, total cost {total}")
        for fraction in fractions:
            budget = math.floor(fraction * peak)
            rc, out, err = plan(remat_opt, mlir,
                                f"strategy=budget memory-budget={fraction}peak")
            where = f"{file} at {fraction}peak ({budget} B)"
            if rc == 0:
                report = json.loads(out)
                recompute = report["predicted_recompute_time_us"]
                tdi = report["total_duration_increase"]
                if report["budget_bytes"] != budget:
                    failures.append(f"{where}: budget_bytes {report['budget_bytes']}")
                elif report["peak_memory_bytes"] > budget:
                    failures.append(f"{where}: peak {report['peak_memory_bytes']} "
                                    "exceeds the budget")
                elif not math.isclose(tdi, recompute / total, rel_tol=1e-9,
                                      abs_tol=1e-12):
                    failures.append(f"{where}: TDI {tdi} != {recompute}/{total}")
                else:
                    print(f"  {fraction}peak: planned, peak "
                          f"{report['peak_memory_bytes']}, TDI {100 * tdi:.3f}%")
                continue
            smallest = re.search(r"is infeasible: the smallest activation peak "
                                 r"the budget strategy reaches is [^(]*\((\d+) bytes",
                                 err)
            if not smallest or int(smallest.group(1)) <= budget:
                failures.append(f"{where}: failed without a valid infeasibility "
                                f"error: {err.strip()[:300]}")
            else:
                print(f"  {fraction}peak: infeasible, the smallest budget "
                      f"reached is {smallest.group(1)} B")
    for failure in failures:
        print("FAIL:", failure)
    print("checkmate graphs:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    scratch = os.environ.get("SCRATCH", "/tmp")
    sys.exit(main(sys.argv[1], sys.argv[2], [float(f) for f in sys.argv[3:]],
                  scratch))
