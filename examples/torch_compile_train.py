"""Train a small model with torch.compile, letting remat decide what the
forward saves for the backward (PyTorch 2.x):

    PYTHONPATH=python .venv/bin/python examples/torch_compile_train.py
"""

import torch

import remat_torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(),
                            torch.nn.Linear(256, 256), torch.nn.GELU(),
                            torch.nn.Linear(256, 64))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
# The one line: remat's partitioner inside torch.compile (Inductor compiles
# both halves). Options are remat-plan's; the report explains every decision.
compiled = torch.compile(model, backend=remat_torch.backend(
    strategy="min-cut", target="cpu", report="remat-plan.json"))

for step in range(5):
    x = torch.randn(32, 64)
    loss = (compiled(x) - x).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")

report = remat_torch.Report.load("remat-plan.json")
print(f"remat saved {len(report.names('save'))} values "
      f"({report.saved_bytes} bytes), recomputed "
      f"{len(report.names('recompute'))}; reasons in remat-plan.json")
