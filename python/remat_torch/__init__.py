"""remat_torch: remat for PyTorch.

- `partition`: a partition function with the contract of PyTorch's
  `min_cut_rematerialization_partition`, splitting AOTAutograd's joint graph
  with remat's plan (planned in this process; options as keywords).
- `backend(**options)`: a `torch.compile` backend using it (PyTorch 2.x).
- `export_joint_graph(fn_or_module, example_inputs)`: the joint
  forward+backward graph as remat `.mlir` text, for remat-opt.
- `checkpoint(fn, *args, policy=...)`: marks a checkpoint region whose ops
  the exporter tags.

Command lines: `python -m remat_torch.export`, `python -m remat_torch.compare`.
See docs/Python.md and docs/Importers.md.
"""

from remat import PlanError, Report
from remat_torch.backend import backend
from remat_torch.emitter import ExportError
from remat_torch.joint import JointExport, export_joint, export_joint_graph
from remat_torch.partitioner import PartitionInfo, RematPartitionError, partition
from remat_torch.regions import checkpoint

__all__ = ["ExportError", "JointExport", "PartitionInfo", "PlanError",
           "RematPartitionError", "Report",
           "backend", "checkpoint", "export_joint", "export_joint_graph",
           "partition"]
