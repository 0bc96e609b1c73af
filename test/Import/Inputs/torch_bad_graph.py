"""Feeds the exporter a joint graph whose op has no shape metadata (as a
graph traced without example inputs would be); it must refuse clearly."""

import sys

import torch
import torch.fx

from remat_torch.joint import ExportError, graph_to_mlir

graph = torch.fx.Graph()
x = graph.placeholder("primals_1")
t = graph.placeholder("tangents_1")
x.meta["tensor_meta"] = torch.empty(4)  # shape and dtype, like TensorMetadata
t.meta["tensor_meta"] = torch.empty(4)
y = graph.call_function(torch.ops.aten.cos.default, (x,))  # no metadata
g = graph.call_function(torch.ops.aten.mul.Tensor, (t, y))
graph.output([y, g])
try:
    graph_to_mlir(torch.fx.GraphModule(torch.nn.Module(), graph))
except ExportError as error:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(1)
print("exported a graph with unknown shapes")
