"""remat_torch: export PyTorch training graphs to remat's joint form.

Use from the source tree with Debian's interpreter (PyTorch is a Debian
package here, not a pip one):

    PYTHONPATH=python /usr/bin/python3 -m remat_torch.export mymod:build ...

`export_joint_graph(fn_or_module, example_inputs)` traces the forward and
backward together with AOTAutograd and returns `.mlir` text that remat-opt
parses and verifies; `checkpoint(fn, *args, policy=...)` marks a checkpoint
region whose ops the exporter tags; see docs/Importers.md.
"""

from remat_torch.joint import ExportError, JointExport, export_joint, export_joint_graph
from remat_torch.regions import checkpoint

__all__ = ["ExportError", "JointExport", "checkpoint", "export_joint",
           "export_joint_graph"]
