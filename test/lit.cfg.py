# -*- Python -*-
# lit configuration for remat.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "REMAT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%remat_src_root", config.remat_src_root))
config.substitutions.append(("%remat_obj_root", config.remat_obj_root))
config.substitutions.append(("%examples", os.path.join(config.remat_src_root, "examples")))
config.substitutions.append(("%shared_data", os.path.join(
    os.path.dirname(config.remat_src_root), "shared", "data")))

llvm_config.use_default_substitutions()

# FileCheck, not, count, split-file live in the LLVM tools dir, not on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.remat_tools_dir, append_path=True)

tool_dirs = [config.remat_tools_dir, config.llvm_tools_dir]
tools = ["remat-opt", "remat-diff", "remat-run", "remat-translate", "mlir-opt", "FileCheck", "not", "count", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# GPU binary tests (test/Conversion): `ptxas` assembles the PTX of
# remat-lower-to-nvvm when the CUDA toolkit is installed; `ld.lld` links
# HSACO for remat-lower-to-rocdl{format=bin}. Tests needing them say
# REQUIRES: and are reported as unsupported otherwise.
ptxas = "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    # MLIR's NVVM serializer links libdevice (erf, tanh, ... in kernels) from
    # $CUDA_ROOT; lit does not pass the caller's CUDA_HOME through.
    config.environment["CUDA_ROOT"] = os.path.dirname(os.path.dirname(ptxas))
else:
    lit_config.note("no " + ptxas + ": PTX assembly tests are skipped")
if os.path.exists(os.path.join(config.llvm_tools_dir, "ld.lld")):
    config.available_features.add("ld.lld")
config.substitutions.append(("%llvm_root", os.path.dirname(config.llvm_tools_dir)))

# remat-run --device=cuda runs kernels through the NVIDIA driver: tests that
# need a GPU say REQUIRES: cuda-gpu (unsupported on these GPU-less machines).
import ctypes
def has_cuda_gpu():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (cuda.cuInit(0) == 0 and
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0)
if has_cuda_gpu():
    config.available_features.add("cuda-gpu")
# A C compiler builds test/Conversion/Inputs/fake_cuda_driver.c, a driver
# without a GPU that runs the --device=cuda path everywhere.
import shutil
host_cc = shutil.which("cc") or shutil.which("gcc")
if host_cc:
    config.available_features.add("host-cc")
    config.substitutions.append(("%host_cc", host_cc))

# python/remat_torch tests run Debian's interpreter, which has python3-torch
# (scripts/setup.sh installs it); without it they are reported unsupported.
import subprocess
debian_python = "/usr/bin/python3"
if subprocess.call([debian_python, "-c", "import torch, functorch"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("torch")
else:
    lit_config.note("torch is not importable by " + debian_python +
                    ": the remat_torch tests are skipped (run scripts/setup.sh)")
config.substitutions.append(("%torch_python", "env PYTHONPATH=" + os.path.join(
    config.remat_src_root, "python") + " REMAT_BUILD_DIR=" +
    config.remat_obj_root + " " + debian_python))
# PyTorch 2.x, JAX and Flax live in the project's virtual environment
# (.venv/, made by scripts/setup.sh from python/requirements.txt); tests that
# need them say REQUIRES: torch2 or REQUIRES: jax.
venv_python = os.path.join(config.remat_src_root, ".venv", "bin", "python")
def venv_feature(feature, check, what, substitution):
    if os.path.exists(venv_python) and subprocess.call(
            [venv_python, "-c", check],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
        config.available_features.add(feature)
    else:
        lit_config.note(what + " not importable by " + venv_python + ": the "
                        "tests that need it are skipped (run scripts/setup.sh)")
    config.substitutions.append((substitution, "env PYTHONPATH=" + os.path.join(
        config.remat_src_root, "python") + " REMAT_BUILD_DIR=" +
        config.remat_obj_root + " " + venv_python))
venv_feature("torch2", "import torch; assert int(torch.__version__[0]) >= 2",
             "PyTorch 2.x is", "%torch2_python")
venv_feature("jax", "import jax, flax", "jax and flax are", "%jax_python")
# The in-process planner (remat._remat, lib/Bindings/Python) is built into
# the build tree unless the build turned it off (sanitizer builds do).
import glob
if glob.glob(os.path.join(config.remat_obj_root, "python", "remat", "_remat*.so")):
    config.available_features.add("remat-python")
config.substitutions.append(("%remat_opt_bin", os.path.join(
    config.remat_tools_dir, "remat-opt")))
config.substitutions.append(("%remat_tools_dir", config.remat_tools_dir))
config.substitutions.append(("%python", debian_python))
