"""A selective activation checkpointing policy written by remat (remat policy).

It makes PyTorch's partitioner save what remat's min-cut (the zoo's mlp) chose.
Pass context_fn to every checkpoint of the model (the forward enters them in order) and
compile it: the policy keys the op calls torch.compile traces (eager PyTorch dispatches
some others, dropout's kernels for one, and the policy logs those, in MISCOUNTED too):

    from torch.utils.checkpoint import checkpoint
    y = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)

The forward enters 2 checkpoint regions with gradients on; context_fn counts them (reset()
starts again).
6 op calls: 4 MUST_SAVE, the others PREFER_RECOMPUTE.
PyTorch's min-cut with it saves exactly the 4 chosen values.
"""
import collections
import logging

import torch
from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts

MUST_SAVE, PREFER_RECOMPUTE = CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_RECOMPUTE

# Per region, in the order the forward enters them: how often it calls each op, and the
# (op, call index) pairs that are MUST_SAVE, each with the joint graph's values it saves
# (none: remat saves none of its values, and MUST_SAVE keeps PyTorch from recomputing it).
REGIONS = [
    {  # region 1: ac_graph_id 1 in the joint graph
        "calls": {
            'aten.addmm.default': 1,
            'aten.gelu.default': 1,
            'aten.t.default': 1,
        },
        "save": {
            ('aten.t.default', 0): (),
            ('aten.addmm.default', 0): ('addmm',),
        },
    },
    {  # region 2: ac_graph_id 2 in the joint graph
        "calls": {
            'aten.addmm.default': 1,
            'aten.gelu.default': 1,
            'aten.t.default': 1,
        },
        "save": {
            ('aten.addmm.default', 0): ('addmm_1',),
            ('aten.gelu.default', 0): (),
        },
    },
]

# Ops whose functional form is not their name without a trailing underscore.
FUNCTIONAL_FORMS = {"aten.lift_fresh.default": "aten.lift_fresh_copy.default"}

_entered = 0


def reset():
    """Start again at the first region: call it before torch.compile traces the model anew."""
    global _entered
    _entered = 0


def context_fn():
    """For torch.utils.checkpoint.checkpoint(fn, ..., use_reentrant=False, context_fn=context_fn):
    the policy of the next region the forward enters. A checkpoint entered under torch.no_grad()
    makes no region of the joint graph (HRM's cycles that only warm its state up): it takes none."""
    global _entered
    if not torch.is_grad_enabled():
        return create_selective_checkpoint_contexts(_outside_regions)
    region = _entered % len(REGIONS)
    _entered += 1
    return create_selective_checkpoint_contexts(policy_for(region))


def _outside_regions(ctx, op, *args, **kwargs):
    return PREFER_RECOMPUTE


def as_in_joint(op):
    """The op as the joint graph shows it: a policy sees the ops the model calls, the joint their
    functional forms (functionalization makes aten.add_.Tensor aten.add.Tensor)."""
    key = str(op)
    if key in FUNCTIONAL_FORMS:
        return FUNCTIONAL_FORMS[key]
    namespace, dot, rest = key.partition(".")
    name, dot2, overload = rest.partition(".")
    if dot and dot2 and name.endswith("_") and not name.endswith("__"):
        return f"{namespace}.{name[:-1]}.{overload}"
    return key


# What the policy found wrong while the model ran: a region that calls an op more often than the
# joint graph it was written for. Not arithmetic on one-number tensors the joint does not show
# (Longformer computes its chunk counts as tensors and reads them with item(): calls whose nodes
# die). Each message is also logged (not warned: torch.compile ignores every warning while it
# traces the model).
MISCOUNTED = []


def _on_numbers_only(args):
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return bool(tensors) and all(t.dim() == 0 for t in tensors)


def policy_for(region):
    """The policy function of one region (0-based): MUST_SAVE for the calls in its "save" table,
    PREFER_RECOMPUTE for every other call, counted per op as selective checkpointing counts them."""
    table = REGIONS[region]
    seen = {False: collections.Counter(), True: collections.Counter()}

    def policy_fn(ctx, op, *args, **kwargs):
        key = as_in_joint(op)
        counter = seen[bool(getattr(ctx, "is_recompute", False))]
        index = counter[key]
        counter[key] += 1
        calls = table["calls"].get(key, 0)
        if index >= calls and not (calls == 0 and _on_numbers_only(args)):
            message = (f"{__name__}: region {region + 1} calls {key} more often than in the joint graph "
                       "this policy was written for: the policy may save other values than remat chose "
                       "(write it again with remat policy for this model)")
            if message not in MISCOUNTED:
                MISCOUNTED.append(message)
                logging.getLogger(__name__).warning(message)
        return MUST_SAVE if (key, index) in table["save"] else PREFER_RECOMPUTE

    return policy_fn
