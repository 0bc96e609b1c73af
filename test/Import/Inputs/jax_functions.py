"""User functions for test/Import/jax-export.test, loaded as MODULE:FACTORY
by `python -m remat_jax.export`: each factory returns (fn, example_args)."""

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def cos_chain():
    """cos(cos(cos(x))): StableHLO's cosine has no remat equivalent."""
    def fn(x):
        return jnp.sum(jnp.cos(jnp.cos(jnp.cos(x))))
    return fn, (jnp.ones((3,)),)


def tokens():
    """An embedding lookup: integer token ids get no gradient."""
    def fn(params, ids):
        rows = checkpoint_name(params["embedding"][ids], "embedded")
        return jnp.sum(jnp.tanh(rows @ params["w"]))
    params = {"embedding": jnp.ones((16, 8)), "w": jnp.ones((8, 4))}
    return fn, (params, jnp.arange(6, dtype=jnp.int32).reshape(2, 3))


def dots():
    """dot_general in the layouts remat.matmul reads through views: a
    vector, two contracting dimensions, batch dimensions that are not
    leading, a lhs with its contracting dimension first."""
    def fn(params, x):
        v = jnp.einsum("bsk,k->bs", x, params["v"])
        two = jnp.einsum("bsk,bsk->k", x, x)
        batched = jnp.einsum("bsk,btk->bst", x, x)
        first = jnp.einsum("kb,kn->bn", params["a"], params["b"])
        return jnp.sum(v) + jnp.sum(two) + jnp.sum(batched) + jnp.sum(first)
    params = {"v": jnp.ones((4,)), "a": jnp.ones((4, 3)), "b": jnp.ones((4, 5))}
    return fn, (params, jnp.ones((2, 3, 4)))


def branchy():
    """lax.cond on a traced predicate: one opaque stablehlo.case in forward
    (output and residual) and one in backward."""
    def fn(x):
        return jax.lax.cond(jnp.sum(x) > 0, jnp.sin, jnp.cos, x).sum()
    return fn, (jnp.ones((3,)),)


def looping():
    """lax.while_loop (here on an integer counter the output scales by): one
    opaque stablehlo.while; nothing is differentiated through it."""
    def fn(x):
        n = jax.lax.while_loop(lambda i: i < 3, lambda i: i + 1, 0)
        return jnp.sum(x * n)
    return fn, (jnp.ones((3,)),)


def not_a_pair():
    return 42


def mismatched():
    """Example arguments whose shapes do not fit the function."""
    def fn(params, x):
        return jnp.sum(x @ params["w"])
    return fn, ({"w": jnp.ones((5, 2))}, jnp.ones((3, 4)))


def raises():
    """A factory whose own code fails: its error, in one line, exit 1."""
    raise RuntimeError("boom in the factory")


def needs_size(size):
    """A factory that cannot be called without arguments: exit 2."""
    return size
