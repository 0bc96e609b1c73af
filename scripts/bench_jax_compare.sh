#!/usr/bin/env bash
# MaxText's remat policies against remat's plans on JAX (remat_jax.compare):
# one training step of an unrolled 4-layer MaxText-style Llama stack on the
# CPU under each policy, remat's min-cut plan and remat's budget plan at each
# policy's peak. Rewrites the `jax-compare` section of docs/benchmarks.md and
# docs/img/jax-compare.png. scripts/bench.sh runs it; it also runs alone
# (about a minute on a 2-core machine):
#
#   scripts/bench_jax_compare.sh                  # build dir: build/
#   REMAT_BUILD_DIR=build-bench scripts/bench_jax_compare.sh
#
# Needs the project's .venv (JAX, Flax, matplotlib) and remat's Python
# extension; without them the section says it was not measured. Raw outputs
# go to $REMAT_BUILD_DIR/bench/jax-compare.{json,md,log}.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
out=$build/bench
doc=$root/docs/benchmarks.md
venv_python=$root/.venv/bin/python
mkdir -p "$out"
rm -f "$out"/jax-compare.{md,json,log}

if [[ -x $venv_python ]] &&
    "$venv_python" -c "import jax, flax, matplotlib" 2>/dev/null; then
  echo "bench: MaxText policies against remat's plans on JAX (remat_jax.compare)"
  before=$(uptime)
  PYTHONPATH="$root/python" REMAT_BUILD_DIR="$build" "$venv_python" \
    -m remat_jax.compare --json "$out/jax-compare.json" \
    --markdown "$out/jax-compare.md" --plot "$root/docs/img/jax-compare.png" \
    2>&1 | tee "$out/jax-compare.log"
  after=$(uptime)
  {
    echo
    echo "\`uptime\` before: \`$(echo $before)\`; after: \`$(echo $after)\`."
  } >>"$out/jax-compare.md"
else
  echo "Not measured in this run: $venv_python cannot import jax, flax and" \
    "matplotlib (run scripts/setup.sh)." >"$out/jax-compare.md"
fi

/usr/bin/python3 - "$doc" "$out/jax-compare.md" <<'PY'
import re
import sys

doc_path, body_path = sys.argv[1], sys.argv[2]
body = open(body_path).read().strip()
doc = open(doc_path).read()
pattern = re.compile(r"(<!-- BEGIN GENERATED jax-compare -->\n).*?"
                     r"(<!-- END GENERATED jax-compare -->)", re.S)
if not pattern.search(doc):
    sys.exit("bench_jax_compare.sh: %s has no generated section "
             "'jax-compare'" % doc_path)
doc = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), doc)
open(doc_path, "w").write(doc)
print("bench: rewrote the jax-compare section of", doc_path)
PY
