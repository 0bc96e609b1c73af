"""Finds and loads the `_remat` extension (lib/Bindings/Python).

The extension is built into `<build>/python/remat/` by CMake (scripts/setup.sh
builds it), not into the source tree: a sanitizer build must not replace
it. Looked up, in order: $REMAT_PYTHON_EXTENSION_DIR, then
`$REMAT_BUILD_DIR/python/remat`, then `build/python/remat` beside this
checkout's `python/` folder.
"""

import glob
import importlib.machinery
import importlib.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))


def _candidate_dirs():
    explicit = os.environ.get("REMAT_PYTHON_EXTENSION_DIR")
    if explicit:
        yield explicit
    build = os.environ.get("REMAT_BUILD_DIR")
    if build:
        yield os.path.join(build, "python", "remat")
    yield os.path.join(_REPO, "build", "python", "remat")


def load():
    """The `_remat` module; ImportError with what to do when it is missing."""
    searched = []
    for directory in _candidate_dirs():
        searched.append(directory)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(directory, "_remat" + suffix)
            if os.path.exists(path):
                spec = importlib.util.spec_from_file_location("remat._remat", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return module
    found = [p for d in searched for p in glob.glob(os.path.join(d, "_remat*.so"))]
    hint = (f"; found {', '.join(found)}, built for another Python "
            f"(this one loads {', '.join(importlib.machinery.EXTENSION_SUFFIXES)})"
            if found else "")
    raise ImportError("remat's Python extension _remat is not built: run "
                      "scripts/setup.sh (or point REMAT_PYTHON_EXTENSION_DIR "
                      f"at the folder holding it); searched {', '.join(searched)}"
                      + hint)
