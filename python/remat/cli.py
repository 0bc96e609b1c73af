"""How every frontend's command line reports errors.

A user's mistake (a missing or unwritable file, a model that fails on the
given inputs, a graph or budget remat refuses) is one line on stderr,
`prog: error: ...`, and exit status 1; anything else is a bug and keeps its
traceback. REMAT_TRACEBACK=1 shows the traceback of user errors too.
"""

import importlib
import inspect
import os
import sys

from remat.planner import PlanError


class UserError(Exception):
    """A mistake in what the user asked for; the message says what to fix."""


def _one_line(error):
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    text = str(error).strip()
    return text if text else type(error).__name__


def run(prog, main, argv=None, user_errors=()):
    """Runs `main(argv)`, turning user errors (UserError, PlanError,
    OSError and the frontend's `user_errors`) into one line and status 1."""
    try:
        return main(argv)
    except (UserError, PlanError, OSError) + tuple(user_errors) as error:
        if os.environ.get("REMAT_TRACEBACK") == "1":
            raise
        print(f"{prog}: error: {_one_line(error)}", file=sys.stderr)
        return 1


def positive_int(text):
    """An argparse type: an int above 0 (a size: a batch of 0 made an
    empty graph that exported and planned without complaint)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} is not above 0")
    return value


def call_factory(parser, spec):
    """What the factory `spec` (`MODULE:FACTORY`) returns. A factory that
    cannot be loaded or needs arguments is a mistake in the arguments
    (`parser.error`, status 2); one that raises is the user's code failing
    (UserError with its error in one line, status 1)."""
    module_name, _, factory_name = spec.partition(":")
    if not module_name or not factory_name:
        parser.error(f"{spec}: expected MODULE:FACTORY, e.g. mymodels:build")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        parser.error(f"cannot load {spec}: {error}")
    except Exception as error:  # the user's module failed while importing
        raise UserError(f"importing {module_name} raised "
                        f"{type(error).__name__}: {error}") from error
    try:
        factory = getattr(module, factory_name)
    except AttributeError as error:
        parser.error(f"cannot load {spec}: {error}")
    try:
        inspect.signature(factory).bind()
    except TypeError as error:
        parser.error(f"{spec}() cannot be called without arguments: "
                     f"{error}; give a factory function that builds the model")
    except ValueError:
        pass  # no signature to check (a builtin): the call says
    try:
        return factory()
    except Exception as error:  # the user's code: its error, in one line
        raise UserError(
            f"{spec}() raised {type(error).__name__}: {error}") from error


def check_output_folders(parser, *outputs):
    """`parser.error` for an output file, given as (option, path), whose
    folder does not exist: before the work that would write it, not after."""
    for option, path in outputs:
        if path and not os.path.isdir(os.path.dirname(path) or "."):
            parser.error(f"{option} {path}: no such directory")


def write_output(path, text):
    """Writes `text` to the file `path`, or to stdout for `-`."""
    if path == "-":
        sys.stdout.write(text)
        return
    with open(path, "w") as f:
        f.write(text)
