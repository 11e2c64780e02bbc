"""remat.partition_fn inside torch.compile (PyTorch 2.x, aot_autograd): on every model of
compile_models.py the forward saves exactly what PyTorch's own min-cut saves (same node names),
and training is bit-identical over several steps; the same under dynamic shapes and memory
budgets. Skipped under PyTorch 1.13, which has no torch.compile."""

import contextlib
import difflib
import os
import subprocess
import sys
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
if not hasattr(torch, "compile"):
    pytest.skip("torch.compile needs PyTorch 2.x", allow_module_level=True)
from functorch.compile import make_boxed_func  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402
from torch._functorch import config as functorch_config  # noqa: E402
from torch._functorch.partitioners import min_cut_rematerialization_partition  # noqa: E402

import remat  # noqa: E402

pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")
from compile_models import MODELS, copy_of_joint, loss_of  # noqa: E402

STEPS = 4
REMAT = os.environ.get(
    "REMAT_EXE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "remat")
)


def boxed(gm, _example_inputs):
    return make_boxed_func(gm)


def saved_names(fw, num_fwd_outputs):
    output = next(n for n in fw.graph.nodes if n.op == "output")
    return [getattr(a, "name", a) for a in output.args[0][num_fwd_outputs:]]


def compiled(model, partition_fn, dynamic=False):
    torch._dynamo.reset()
    return torch.compile(model, backend=aot_autograd(fw_compiler=boxed, partition_fn=partition_fn), dynamic=dynamic)


def both_partitions(name, dynamic=False, rows=4):
    """[(PyTorch's saved names, remat's)] for each joint torch.compile makes of the model: both
    partitioners see copies of the same joint."""
    pairs = []

    def compare(joint, joint_inputs, **kwargs):
        k = kwargs["num_fwd_outputs"]
        theirs, _ = min_cut_rematerialization_partition(copy_of_joint(joint), joint_inputs, **kwargs)
        ours, bw = remat.partition_fn(joint, joint_inputs, **kwargs)
        pairs.append((saved_names(theirs, k), saved_names(ours, k)))
        return ours, bw

    torch.manual_seed(0)
    model = MODELS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # AOTAutograd partitions when the forward first runs; no backward is needed (and a budget
        # that recomputes batch norm makes PyTorch's own backward fail its version check).
        compiled(model, compare, dynamic)(*model.batch(torch.Generator().manual_seed(1), rows))
    assert pairs, "torch.compile made no joint graph"
    return pairs


@pytest.mark.parametrize("name", sorted(MODELS))
def test_saves_what_pytorch_min_cut_saves(name):
    for theirs, ours in both_partitions(name):
        assert ours == theirs


@pytest.mark.parametrize("name", ["checkpoint", "views_in_place", "several_outputs"])
def test_dynamic_shapes_save_what_pytorch_saves(name):
    # Two batch sizes: the second compiles a graph with a symbolic batch size.
    for rows in (4, 6):
        for theirs, ours in both_partitions(name, dynamic=True, rows=rows):
            assert ours == theirs


def train(name, partition_fn, steps=STEPS, dynamic=False, compile_model=None):
    """Losses, gradients and buffers over `steps` SGD steps of the model compiled with the
    aot_autograd backend and `partition_fn` (or by `compile_model(model)`)."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = MODELS[name]()
    g = torch.Generator().manual_seed(1)
    batches = [model.batch(g) for _ in range(steps)]
    run = compile_model(model) if compile_model else compiled(model, partition_fn, dynamic)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    torch.manual_seed(2)  # dropout masks: the same stream in every run
    losses, grads = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in batches:
            opt.zero_grad()
            loss = loss_of(run(*batch))
            loss.backward()
            losses.append(loss.detach().clone())
            grads.append([p.grad.clone() for p in model.parameters()])
            opt.step()
    buffers = [b.clone() for b in model.buffers()]
    return losses, grads, buffers


@pytest.mark.parametrize("name", sorted(MODELS))
def test_training_is_bit_identical_to_pytorch_min_cut(name):
    ours = train(name, remat.partition_fn)
    theirs = train(name, min_cut_rematerialization_partition)
    assert not remat.last_report().fallback
    for step in range(STEPS):
        assert torch.equal(ours[0][step], theirs[0][step]), f"step {step}: loss"
        for i, (a, b) in enumerate(zip(ours[1][step], theirs[1][step])):
            assert torch.equal(a, b), f"step {step}: gradient of parameter {i}"
    for a, b in zip(ours[2], theirs[2]):  # batch norm's running statistics
        assert torch.equal(a, b)


@pytest.mark.parametrize("solver", ["dp", "greedy", "ilp"])
def test_memory_budget_saves_what_pytorch_saves(solver):
    pytest.importorskip("scipy") if solver == "ilp" else None
    with functorch_config.patch(activation_memory_budget=0.4, activation_memory_budget_solver=solver):
        for name in ("no_checkpoint", "checkpoint", "batch_norm"):
            for theirs, ours in both_partitions(name):
                assert ours == theirs, name


class RegionBudgets(torch.nn.Module):
    """Two linear layers, each under a region budget (or none)."""

    def __init__(self, first, second):
        super().__init__()
        self.a, self.b, self.budgets = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8), (first, second)

    def forward(self, x):
        y = x
        for layer, budget in zip((self.a, self.b), self.budgets):
            region = torch.autograd.graph.region_activation_memory_budget(budget) if budget is not None else None
            with region if region is not None else contextlib.nullcontext():
                y = torch.sin(layer(y))
                y = y.sum() if layer is self.b else y
        return y


@pytest.mark.skipif(not hasattr(torch.autograd.graph, "region_activation_memory_budget"), reason="no region budgets")
@pytest.mark.parametrize(
    "budgets,error",
    [((0.5, None), "must cover the entire forward"), ((0.5, 0.3), "conflicting budgets"), ((0.5, 0.5), None)],
)
def test_region_budgets_are_refused_where_pytorch_refuses_them(budgets, error):
    def run(partition_fn):
        torch._dynamo.reset()
        model = RegionBudgets(*budgets)
        compiled = torch.compile(model, backend=aot_autograd(fw_compiler=boxed, partition_fn=partition_fn))
        compiled(torch.randn(4, 8, requires_grad=True)).backward()

    if error is None:
        run(min_cut_rematerialization_partition)
        run(remat.partition_fn)
        assert remat.last_report().budget == 0.5
        return
    with pytest.raises(Exception, match=error):
        run(min_cut_rematerialization_partition)
    with pytest.raises(Exception, match=error) as raised:
        run(remat.partition_fn)
    assert "remat" in type(raised.value).__module__ or "PartitionError" in str(raised.value)


def inductor_train(name, partitioner, steps=2):
    """train() under torch.compile's default backend (Inductor), with remat's partitioner or
    (None) Inductor's own."""
    options = {} if partitioner is None else {"custom_partitioner_fn": partitioner}
    return train(name, None, steps, compile_model=lambda model: torch.compile(model, options=options))


def test_inductor_trains_identically_with_remat_partitioning():
    from torch._inductor import config as inductor_config

    reports = []
    # Compiled afresh: a cached graph (an earlier run's, same settings) would not partition at all.
    with inductor_config.patch(fx_graph_cache=False), functorch_config.patch(enable_autograd_cache=False):
        ours = inductor_train("checkpoint", remat.inductor_partitioner(on_report=reports.append))
        theirs = inductor_train("checkpoint", None)
    assert reports and not reports[-1].fallback
    for step in range(2):
        assert torch.equal(ours[0][step], theirs[0][step]), f"step {step}: loss"
        for i, (a, b) in enumerate(zip(ours[1][step], theirs[1][step])):
            assert torch.equal(a, b), f"step {step}: gradient of parameter {i}"


def test_inductor_cache_keys_on_remats_settings():
    from torch._dynamo.utils import counters
    from torch._inductor import config as inductor_config

    assert remat.inductor_partitioner().uuid() == remat.inductor_partitioner().uuid()
    assert remat.inductor_partitioner(budget=0.5).uuid() != remat.inductor_partitioner().uuid()
    with inductor_config.patch(fx_graph_cache=True, fx_graph_remote_cache=False):

        def misses_and_hits(partitioner):
            counters.clear()
            inductor_train("several_outputs", partitioner, steps=1)
            return counters["inductor"]["fxgraph_cache_miss"], counters["inductor"]["fxgraph_cache_hit"]

        torch._inductor.codecache.FxGraphCache.clear()
        first = misses_and_hits(remat.inductor_partitioner())
        again = misses_and_hits(remat.inductor_partitioner())
        other = misses_and_hits(remat.inductor_partitioner(budget=0.5))
    # The same settings: the model's graphs from the cache, none compiled anew.
    assert first[0] > 0 and again[0] == 0 and again[1] >= 2
    assert other[0] > 0  # other settings: compiled anew


def compiled_graphs(name):
    """The joint (before partitioning: the partitioners edit it) and remat's forward and backward
    of the model's first compile."""
    graphs = {}

    def capture(joint, joint_inputs, **kwargs):
        graphs["joint"] = copy_of_joint(joint)
        graphs["forward"], graphs["backward"] = remat.partition_fn(joint, joint_inputs, **kwargs)
        return graphs["forward"], graphs["backward"]

    torch.manual_seed(0)
    model = MODELS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(model, capture)(*model.batch(torch.Generator().manual_seed(1)))
    return graphs


PRINT_OPTIONS = [{}, {"include_stride": True, "include_device": True, "expanded_def": True}]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_print_readable_is_pytorchs_byte_for_byte(name):
    # Recompute tags inside the stack-trace comments and, with expanded_def (what TORCH_TRACE
    # logs), AOT descriptors: 2.13's own text, through export -> remat's reader -> printer.
    for which, gm in compiled_graphs(name).items():
        for options in PRINT_OPTIONS:
            theirs = gm.print_readable(print_output=False, **options)
            ours = remat.print_readable(gm, print_output=False, **options)
            assert ours == theirs, f"{which} {options}:\n" + "".join(
                difflib.unified_diff(theirs.splitlines(True), ours.splitlines(True))
            )


@pytest.mark.parametrize("name", ["checkpoint", "sac_must_save", "dropout", "batch_norm"])
def test_remat_reads_what_pytorch_prints_and_writes_it_back(name, tmp_path):
    # `remat convert graph.txt out.txt`: parsed (era torch-2.13 recognised) and printed again.
    if not os.path.exists(REMAT):
        pytest.skip(f"{REMAT} is not built")
    for which, gm in compiled_graphs(name).items():
        for options in PRINT_OPTIONS:
            text = gm.print_readable(print_output=False, **options)
            source, back = tmp_path / f"{which}.txt", tmp_path / f"{which}_back.txt"
            source.write_text(text)
            run = subprocess.run([REMAT, "convert", str(source), str(back)], capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            assert back.read_text() == text, f"{which} {options}"


def test_the_example_trains_and_prints_its_report():
    example = os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "torch_compile", "train_checkpointed.py"
    )
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            p for p in (os.path.dirname(os.path.dirname(remat.__file__)), os.environ.get("PYTHONPATH")) if p
        ),
    )
    run = subprocess.run([sys.executable, example, "--steps", "2"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "step 1: loss" in run.stdout and "marked MUST_SAVE" in run.stdout and "chosen by: min-cut" in run.stdout


def test_pytorchs_recompute_allowlist_in_remat_is_current():
    # remat classifies ops outside its registry by PyTorch's allowlist, kept in a data file.
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the file is 2.13's; this is {torch.__version__}")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gen_torch_op_lists.py")
    run = subprocess.run([sys.executable, tool, "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
