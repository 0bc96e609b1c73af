"""One training step of a model under a given partition function.

`compile_step(module, partition_fn)` wraps `module` with AOTAutograd
(`aot_module`: PyTorch 1.13's functorch.compile and 2.x alike) so that its
joint graph is split by `partition_fn` and both halves run as FX code
(eager ATen kernels), and returns `step(*inputs) -> (loss, grads)`. Tests
and `remat_torch.measure` use it to run PyTorch's partition and remat's on
the very same model, inputs and random seed.
"""

import torch

from remat_torch.capture import _aot_api, _boxed


def compile_step(module, partition_fn, compiler=None):
    """`step(*inputs, seed=0)`: seeds PyTorch's generator, runs forward and
    backward, returns (loss, [parameter gradients]) and clears the
    gradients it read. `compiler(phase)` ("fw" or "bw") gives AOTAutograd's
    graph compiler for that phase; by default both run the graph unchanged
    (`capture._boxed`)."""
    _, aot_module, _, _ = _aot_api()
    if compiler is None:
        def compiler(_phase):
            return lambda gm, _inputs: _boxed(gm)
    compiled = aot_module(module, fw_compiler=compiler("fw"),
                          bw_compiler=compiler("bw"),
                          partition_fn=partition_fn)
    params = [p for p in module.parameters() if p.requires_grad]

    def step(*inputs, seed=0):
        torch.manual_seed(seed)
        loss = compiled(*inputs)
        loss.backward()
        grads = [p.grad.detach().clone() if p.grad is not None else None
                 for p in params]
        for p in params:
            p.grad = None
        return loss.detach(), grads

    return step
