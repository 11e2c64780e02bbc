"""remat.checkpoint_policy and `remat policy` on PyTorch 2.x: the generated selective-checkpointing
policy, given to the user's unchanged model, makes PyTorch's own min-cut partitioner save exactly
what remat chose (min-cut, budget and optimal choices, several models), and training is then
bit-identical to training under remat's partitioner. Where PyTorch decides otherwise (values
outside every checkpoint region), what it saves is what remat predicted. Skipped under 1.13."""

import importlib.util
import os
import subprocess
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
if not hasattr(torch, "compile"):
    pytest.skip("torch.compile needs PyTorch 2.x", allow_module_level=True)
from functorch.compile import make_boxed_func  # noqa: E402
from torch import nn  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402
from torch._functorch.partitioners import min_cut_rematerialization_partition  # noqa: E402
from torch.utils.checkpoint import CheckpointPolicy, checkpoint  # noqa: E402

import remat  # noqa: E402

pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")
from compile_models import Attention, Block, InPlaceBlock, copy_of_joint, sac_policy  # noqa: E402
from models import GPTBlock  # noqa: E402
from transformers_corpus import rng_state_names  # noqa: E402

aten = torch.ops.aten
REMAT = os.environ.get(
    "REMAT_EXE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "remat")
)
STEPS = 3


class Checkpointed(nn.Module):
    """Blocks, each under a non-reentrant checkpoint with `context_fn` (the generated policy's,
    or a user's), then an optional head outside every region, then a scalar."""

    def __init__(self, blocks, context_fn=None, head=None):
        super().__init__()
        self.blocks, self.context_fn, self.head = nn.ModuleList(blocks), context_fn, head

    def checkpointed(self, block, x):
        if self.context_fn is None:
            return checkpoint(block, x, use_reentrant=False)
        return checkpoint(block, x, use_reentrant=False, context_fn=self.context_fn)

    def forward(self, x):
        for block in self.blocks:
            x = self.checkpointed(block, x)
        if self.head is not None:
            x = self.head(x)
        return x.pow(2).mean()


class WarmedUp(Checkpointed):
    """HRM's shape: the first block warms the input up under torch.no_grad(), through its
    checkpoint (which makes no region of the joint graph), before the pass that trains."""

    def forward(self, x):
        with torch.no_grad():
            warm = self.checkpointed(self.blocks[0], x)
        return super().forward(x + warm)


# name -> (model from a context_fn, its input)
MODELS = {
    "mlp": (lambda fn: Checkpointed([Block() for _ in range(3)], fn), (4, 16)),
    "mlp_sac": (
        lambda fn: Checkpointed(
            [Block() for _ in range(3)],
            fn or sac_policy({aten.mm.default, aten.addmm.default}, CheckpointPolicy.PREFER_RECOMPUTE),
        ),
        (4, 16),
    ),
    "gpt_dropout": (lambda fn: Checkpointed([GPTBlock(32, 4, 0.1) for _ in range(2)], fn), (2, 8, 32)),
    "attention": (lambda fn: Checkpointed([Attention()], fn), (4, 8, 16)),
    "in_place": (lambda fn: Checkpointed([InPlaceBlock() for _ in range(2)], fn), (2, 8, 16)),
    "warmed_up": (lambda fn: WarmedUp([Attention(), Block(), Block()], fn), (4, 8, 16)),
    "gpt_head": (
        lambda fn: Checkpointed(
            [GPTBlock(32, 4, 0.0) for _ in range(2)], fn, head=nn.Sequential(nn.LayerNorm(32), nn.Linear(32, 8))
        ),
        (2, 8, 32),
    ),
}


def boxed(gm, _example_inputs):
    return make_boxed_func(gm)


def recording(partition_fn, saved):
    """partition_fn, appending the names of the joint's values its forward saves to `saved`
    (not the RNG states PyTorch's RNG functionalization adds)."""

    def partition(joint, joint_inputs, **kwargs):
        fw, bw = partition_fn(joint, joint_inputs, **kwargs)
        output = next(n for n in fw.graph.nodes if n.op == "output")
        rng_states = set(rng_state_names(fw, kwargs["num_fwd_outputs"]))
        saved.append(
            sorted(
                a.name
                for a in output.args[0][kwargs["num_fwd_outputs"] :]
                if hasattr(a, "name") and a.name not in rng_states
            )
        )
        return fw, bw

    return partition


def train(name, partition_fn, context_fn=None):
    """(forward's saved names, losses, parameters after STEPS SGD steps) of the model compiled
    with aot_autograd and partition_fn."""
    make, shape = MODELS[name]
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = make(context_fn)
    saved = []
    run = torch.compile(
        model, backend=aot_autograd(fw_compiler=boxed, bw_compiler=boxed, partition_fn=recording(partition_fn, saved))
    )
    batches = [torch.randn(*shape, generator=torch.Generator().manual_seed(i)) for i in range(STEPS)]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    torch.manual_seed(2)  # dropout masks: the same stream in every run
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in batches:
            opt.zero_grad()
            loss = run(x)
            loss.backward()
            losses.append(loss.detach().clone())
            opt.step()
    assert len(saved) == 1, "one joint graph per model"
    return saved[0], losses, [p.detach().clone() for p in model.parameters()]


def assert_bit_identical(ours, theirs):
    for step, (a, b) in enumerate(zip(ours[1], theirs[1])):
        assert torch.equal(a, b), f"step {step}: loss"
    for i, (a, b) in enumerate(zip(ours[2], theirs[2])):
        assert torch.equal(a, b), f"parameter {i} after {STEPS} steps"


CASES = [
    ("mlp", "min-cut", None),
    ("mlp", "optimal", "2KB"),
    ("mlp", "optimal", "64KB"),
    ("mlp_sac", "min-cut", None),
    ("mlp_sac", "min-cut", 0.5),
    ("mlp_sac", "optimal", "16KB"),
    ("gpt_dropout", "min-cut", None),
    ("gpt_dropout", "optimal", "8KB"),
    ("gpt_dropout", "optimal", "64KB"),
    ("attention", "optimal", "8KB"),
    ("in_place", "min-cut", None),
    ("in_place", "optimal", "4KB"),
    ("in_place", "optimal", "8KB"),
    ("gpt_head", "optimal", "16KB"),
    ("warmed_up", "optimal", "16KB"),
]


@pytest.mark.parametrize("name,strategy,budget", CASES)
def test_pytorch_saves_what_remat_chose_under_the_generated_policy(name, strategy, budget):
    ours = train(name, remat.partition_fn_for(strategy, budget, within_regions=strategy == "optimal"))
    report = remat.last_report()
    policy = remat.checkpoint_policy(report)
    assert policy.exact, policy.mismatches
    assert policy.saved_calls > 0 and policy.calls > policy.saved_calls
    theirs = train(name, min_cut_rematerialization_partition, policy.load().context_fn)
    assert theirs[0] == ours[0]
    assert_bit_identical(ours, theirs)


def test_the_optimum_within_regions_trades_memory_for_recompute():
    flops = {}
    for budget in ("4KB", "8KB", "64KB"):
        train("gpt_dropout", remat.partition_fn_for("optimal", budget, within_regions=True))
        flops[budget] = remat.last_report().recompute_flops
    train("gpt_dropout", remat.partition_fn_for("min-cut"))
    assert flops["64KB"] < flops["8KB"] < flops["4KB"] <= remat.last_report().recompute_flops


def test_where_pytorch_decides_otherwise_remat_says_what_it_will_save():
    # Below budget 1 PyTorch's knapsack recomputes the head's values; under a policy PyTorch
    # partitions at its own budget and decides the head itself: the policy is not exact, and
    # the prediction is what PyTorch then saves.
    train("gpt_head", remat.partition_fn_for("min-cut", 0.3))
    policy = remat.checkpoint_policy()
    assert not policy.exact
    assert all(
        "outside every checkpoint region" in why or "tag clean-up" in why for _, _, _, why in policy.mismatches
    ), policy.mismatches
    theirs = train("gpt_head", min_cut_rematerialization_partition, policy.load().context_fn)
    assert theirs[0] == sorted(policy.predicted)


def test_remat_policy_writes_a_module_that_works_from_its_file(tmp_path):
    # The command-line path: the joint and the partition record as files, the module imported
    # from the file it writes.
    ours = train("mlp_sac", remat.partition_fn_for("min-cut", 0.5))
    report = remat.last_report()
    (tmp_path / "joint.json").write_text(report.joint_json)
    (tmp_path / "report.json").write_text(report.json)
    module_path = tmp_path / "sac_policy.py"
    done = subprocess.run(
        [REMAT, "policy", str(tmp_path / "joint.json"), str(tmp_path / "report.json"), "-o", str(module_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "saves exactly" in done.stdout
    spec = importlib.util.spec_from_file_location("sac_policy", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    theirs = train("mlp_sac", min_cut_rematerialization_partition, module.context_fn)
    assert theirs[0] == ours[0]
    assert_bit_identical(ours, theirs)


def test_a_policy_for_another_model_says_so_under_torch_compile(caplog):
    # torch.compile ignores every warning while it traces: the module logs what it finds wrong
    # and keeps it in MISCOUNTED (a policy written for the MLP run on the attention model).
    train("mlp", remat.partition_fn_for("min-cut"))
    module = remat.checkpoint_policy().load()
    assert module.MISCOUNTED == []
    with caplog.at_level("WARNING"):
        train("attention", min_cut_rematerialization_partition, module.context_fn)
    assert module.MISCOUNTED and all("more often than in the joint graph" in m for m in module.MISCOUNTED)
    assert module.MISCOUNTED[0] in caplog.text


def test_checkpoint_policy_needs_a_remat_partition():
    with pytest.raises(ValueError, match="no remat partition"):
        remat.checkpoint_policy(remat.PartitionReport({}, "min-cut", None))
    with pytest.raises(ValueError, match="within_regions"):
        remat.partition_fn_for("min-cut", within_regions=True)


class RecordingInductorPartitioner:
    """Inductor's custom_partitioner_fn: PyTorch's min-cut as Inductor calls it, recording the
    names its forward saves."""

    def __init__(self):
        from torch._inductor.custom_graph_pass import CustomPartitionerFn

        saved = self.saved = []

        class Partitioner(CustomPartitionerFn):
            def __call__(self, gm, joint_inputs, **kwargs):
                return recording(min_cut_rematerialization_partition, saved)(gm, joint_inputs, **kwargs)

            def uuid(self):
                return "pytorch-min-cut-recorded"

        self.fn = Partitioner()


def inductor_train(name, partitioner, context_fn=None):
    """(losses, parameters) after STEPS steps under torch.compile's default backend."""
    make, shape = MODELS[name]
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = make(context_fn)
    run = torch.compile(model, options={"custom_partitioner_fn": partitioner})
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(STEPS):
            opt.zero_grad()
            loss = run(torch.randn(*shape, generator=torch.Generator().manual_seed(i)))
            loss.backward()
            losses.append(loss.detach().clone())
            opt.step()
    return None, losses, [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("strategy,budget", [("min-cut", None), ("optimal", "64KB")])
def test_the_policy_holds_under_inductor(strategy, budget):
    # Inductor decomposes the joint (gelu, layer norm into several nodes each): the policy keys
    # the calls a policy sees, by the op each node came from (original_aten).
    from torch._functorch import config as functorch_config
    from torch._inductor import config as inductor_config

    reports, pytorch = [], RecordingInductorPartitioner()
    with inductor_config.patch(fx_graph_cache=False), functorch_config.patch(enable_autograd_cache=False):
        ours = inductor_train(
            "mlp",
            remat.inductor_partitioner(
                strategy, budget, on_report=reports.append, within_regions=strategy == "optimal"
            ),
        )
        policy = remat.checkpoint_policy(reports[-1])
        assert policy.exact, policy.mismatches
        theirs = inductor_train("mlp", pytorch.fn, policy.load().context_fn)
    assert pytorch.saved == [sorted(reports[-1].saved)]
    assert_bit_identical(ours, theirs)


def joint_under(name, context_fn):
    """PyTorch's joint graph of MODELS[name] traced under context_fn, tagged as tracing tagged it
    (before the min-cut's tag clean-up, which edits the graph it partitions)."""
    joints = []

    def keep(joint, joint_inputs, **kwargs):
        joints.append(copy_of_joint(joint))
        return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)

    train(name, keep, context_fn)
    return joints[0]


@pytest.mark.parametrize("salt", [0, 1, 2])
@pytest.mark.parametrize("name", ["in_place", "gpt_dropout", "attention", "mlp"])
def test_remat_knows_which_op_call_tagged_each_node(name, salt):
    # A policy that tags every call by a hash of its key: each region node must carry the tag
    # remat's call model gives it, read off the graph and off its printed text. In-place ops are
    # the hard part (functionalization renames them, writes them back, remakes views).
    from policy_tags import as_in_joint, hashed_policy, mispredicted

    joint = joint_under(name, hashed_policy(as_in_joint(), salt))
    assert mispredicted(joint, salt) == []
