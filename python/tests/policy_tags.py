"""Which op call tagged each node: a policy that tags every call by a hash of its key (region, op as
the joint shows it, call index in its region), run by PyTorch, against remat's reading of the joint graph it
tagged (_core.policy_calls). Where remat's call model is right, every region node carries the tag
remat predicts: the hashed tag of its call, or PREFER_RECOMPUTE where PyTorch tags the node so
whatever the policy says."""

import collections
import hashlib

from remat.export import export
from remat.policy import CheckpointPolicyModule

from remat import _core


def hashed_tag(op, index, salt):
    """MUST_SAVE or PREFER_RECOMPUTE, half and half, fixed by the call's key within its region
    (not by the region: torch.compile enters each region more than once while it traces) and the
    salt (a wrong prediction is right by chance for one salt in two)."""
    from torch.utils.checkpoint import CheckpointPolicy

    odd = hashlib.sha256(f"{salt}:{op}:{index}".encode()).digest()[0] % 2
    return CheckpointPolicy.MUST_SAVE if odd else CheckpointPolicy.PREFER_RECOMPUTE


def hashed_policy(as_in_joint, salt):
    """context_fn for torch.utils.checkpoint (a function: dynamo takes no other): each region's
    calls tagged by hashed_tag, keyed as remat's policy modules key them (`as_in_joint`: an
    in-place op by its functional form)."""
    from torch.utils.checkpoint import create_selective_checkpoint_contexts

    def context_fn():
        counts = collections.Counter()

        def policy(ctx, op, *args, **kwargs):
            key = as_in_joint(op)
            index = counts[key]
            counts[key] += 1
            return hashed_tag(key, index, salt)

        return create_selective_checkpoint_contexts(policy)

    return context_fn


def as_in_joint():
    """The op-key mapping of remat's policy modules, from a module remat writes."""
    return CheckpointPolicyModule(_core.checkpoint_policy(_TINY_JOINT, [], [])).load().as_in_joint


def mispredicted(joint, salt):
    """The region nodes of `joint` (PyTorch's, tagged under a hashed_policy) whose tag differs from
    remat's prediction, read off the graph as PyTorch built it and as its printed text (a
    TORCH_TRACE log's), as [(reading, node, predicted, actual)]. Not the detaches: the one
    selective checkpointing makes of each call's output is PREFER_RECOMPUTE, but one that
    functionalization makes of a tensor an item assignment changed takes the tag of a call whose
    own node died (a view op PyTorch calls again after the assignment), which the graph does not
    show (remat predicts PREFER_RECOMPUTE)."""
    from torch.utils.checkpoint import CheckpointPolicy

    actual = {
        n.name: n.meta.get("recompute")
        for n in joint.graph.nodes
        if n.op == "call_function" and "ac_graph_id" in n.meta  # (a tensor constant's get_attr too has one)
    }
    printed = joint.print_readable(print_output=False, include_stride=True, include_device=True)
    wrong = []
    for reading, joint_json in (("graph", export(joint)), ("text", _core.parse_readable(printed))):
        calls = _core.policy_calls(joint_json)
        for name, _region, op, index, kind in calls:
            if kind == "call":
                predicted = hashed_tag(op, index, salt)
            else:
                predicted = CheckpointPolicy.PREFER_RECOMPUTE
            if actual.get(name) != predicted:
                wrong.append((reading, name, predicted, actual.get(name)))
        missing = set(actual) - {name for name, *_ in calls}
        wrong += [(reading, name, "not read", actual[name]) for name in sorted(missing)]
    return wrong


def mispredicted_in_model(arch, kind, salt):
    """(joints with regions, their region nodes, mispredicted(...) over them) for a transformers
    architecture of the corpus (transformers_corpus.py), tiny and checkpointed, traced for one
    step under hashed_policy."""
    import transformers_corpus as corpus
    from compile_models import copy_of_joint
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    variant = corpus.Variant(checkpointed=True, attention="eager")
    model, config = corpus.build(arch, kind, variant)
    kwargs = {"use_reentrant": False, "context_fn": hashed_policy(as_in_joint(), salt)}
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    joints = []

    def keep(joint, joint_inputs, **kw):
        joints.append(copy_of_joint(joint))  # before the min-cut cleans its tags up
        return min_cut_rematerialization_partition(joint, joint_inputs, **kw)

    corpus.train(model, corpus.inputs(kind, config), keep, variant, steps=1)
    with_regions = [j for j in joints if any("ac_graph_id" in n.meta for n in j.graph.nodes)]
    nodes = sum(1 for j in with_regions for n in j.graph.nodes if "ac_graph_id" in n.meta)
    return len(with_regions), nodes, [w for j in with_regions for w in mispredicted(j, salt)]


# The smallest joint with a checkpoint region: a policy module remat writes for it holds the
# module's code (as_in_joint) whatever the graph.
_TINY_JOINT = _core.parse_readable(
    """class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[4]", tangents_1: "f32[4]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        sin: "f32[4]" = torch.ops.aten.sin.default(primals_1)
        cos: "f32[4]" = torch.ops.aten.cos.default(primals_1)
        mul: "f32[4]" = torch.ops.aten.mul.Tensor(tangents_1, cos);  tangents_1 = cos = None
        return (sin, mul)
"""
)
