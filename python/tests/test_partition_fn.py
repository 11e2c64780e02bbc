"""remat.partition_fn inside real training with functorch's aot_module (Debian's PyTorch 1.13):
the same losses and gradients, bit for bit, as PyTorch's own min-cut partitioner, and eager
autograd's within 1e-5; remat's printer against torch.fx's on every graph of those runs; errors
and the fallback; the TORCH_TRACE record. Skipped with a message without torch."""

import os
import subprocess
import sys
import warnings

import pytest

torch = pytest.importorskip("torch", reason="python3-torch is not installed (apt-get install python3-torch)")
functorch_compile = pytest.importorskip("functorch.compile", reason="functorch is not installed")
import torch.fx  # noqa: E402

import remat  # noqa: E402

pytest.importorskip(
    "remat._core", reason="remat's C++ extension is not built (pybind11-dev, python3-dev; cmake --build build)"
)
from fx_oracle import assert_prints_like_torch  # noqa: E402
from models import TRAINING_MODELS, ConvBN, EmbeddingCE, LayerNormMLP  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Your compiler for AOTAutograd")

TORCH_1_13 = torch.__version__.startswith("1.")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
REMAT = os.environ.get("REMAT_EXE", os.path.join(ROOT, "build", "remat"))
STEPS = 20


def identity_compiler(gm, _inputs):
    return gm


def train(name, partition_fn, steps=STEPS):
    """Losses and every parameter's gradient over `steps` SGD steps; partition_fn None = eager."""
    torch.manual_seed(0)
    model = TRAINING_MODELS[name]()
    g = torch.Generator().manual_seed(1)
    batches = [model.batch(g) for _ in range(steps)]
    run = model
    if partition_fn is not None:
        run = functorch_compile.aot_module(model, identity_compiler, identity_compiler, partition_fn=partition_fn)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    torch.manual_seed(2)  # dropout masks: the same stream in every run
    losses, grads = [], []
    for batch in batches:
        opt.zero_grad()
        loss = run(*batch)
        loss.backward()
        losses.append(loss.detach().clone())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return losses, grads


@pytest.mark.parametrize("name", sorted(TRAINING_MODELS))
def test_training_matches_pytorch_min_cut_bit_for_bit_and_eager(name):
    reports = []
    ours = train(name, remat.partition_fn_for(on_report=reports.append))
    theirs = train(name, functorch_compile.min_cut_rematerialization_partition)
    eager = train(name, None)
    assert reports and not reports[-1].fallback and reports[-1].saved
    assert remat.last_report() is reports[-1]
    for step in range(STEPS):
        assert torch.equal(ours[0][step], theirs[0][step]), f"step {step}: loss differs from PyTorch's min-cut"
        assert torch.allclose(ours[0][step], eager[0][step], rtol=0, atol=1e-5), f"step {step}: loss vs eager"
        for i, (a, b, c) in enumerate(zip(ours[1][step], theirs[1][step], eager[1][step])):
            assert torch.equal(a, b), f"step {step}: gradient of parameter {i} differs from PyTorch's min-cut"
            assert torch.allclose(a, c, rtol=0, atol=1e-5), f"step {step}: gradient of parameter {i} vs eager"


def captured_graphs():
    """Every graph the training runs make: each joint and remat's and PyTorch's forward and
    backward, plus symbolic_trace graphs of the models."""
    graphs = {}
    for name, make in sorted(TRAINING_MODELS.items()):
        for who, partition in (
            ("remat", remat.partition_fn),
            ("torch", functorch_compile.min_cut_rematerialization_partition),
        ):

            def capture(joint, joint_inputs, _who=who, _name=name, _partition=partition, **kwargs):
                graphs[f"{_name}_joint_{_who}"] = joint  # after partitioning: CSE'd by either
                fw, bw = _partition(joint, joint_inputs, **kwargs)
                graphs[f"{_name}_fw_{_who}"], graphs[f"{_name}_bw_{_who}"] = fw, bw
                return fw, bw

            torch.manual_seed(0)
            model = make()
            compiled = functorch_compile.aot_module(model, identity_compiler, identity_compiler, partition_fn=capture)
            compiled(*model.batch(torch.Generator().manual_seed(1))).backward()
    for cls in (LayerNormMLP, ConvBN, EmbeddingCE):
        graphs[f"{cls.__name__}_symbolic_trace"] = torch.fx.symbolic_trace(cls())
        tracer = torch.fx.Tracer()
        tracer.record_stack_traces = True  # `# File: path:N, code: ...` comments
        module = cls()
        graphs[f"{cls.__name__}_stack_traces"] = torch.fx.GraphModule(module, tracer.trace(module))
    return graphs


@pytest.fixture(scope="module")
def graphs():
    return captured_graphs()


def test_print_readable_is_torch_fx_byte_for_byte(graphs):
    # export -> remat reads the JSON -> remat's printer, against torch.fx's printer.
    assert len(graphs) == 4 * 6 + 3 * 2
    for name, gm in graphs.items():
        assert_prints_like_torch(gm, name)


def test_print_readable_prints_and_shows_recompute_tags(capsys):
    gm = torch.fx.symbolic_trace(LayerNormMLP())
    plain = remat.print_readable(gm)
    assert capsys.readouterr().out == plain + "\n"
    assert "ac_graph_id" not in plain
    untagged = remat.print_readable(gm, print_output=False, style="seed")
    for node in gm.graph.nodes:
        if node.op == "call_module" and node.target == "ln":
            node.meta["recompute"] = "PREFER_RECOMPUTE"  # CheckpointPolicy's name (1.13 has no enum)
            node.meta["ac_graph_id"] = 1
    # The seed's own line (PyTorch 2.11 on prints the tag inside the stack-trace comment).
    tagged = remat.print_readable(gm, print_output=False, style="seed")
    assert "# ac_graph_id: 1 - PREFER_RECOMPUTE\n" in tagged
    assert tagged.replace("        # ac_graph_id: 1 - PREFER_RECOMPUTE\n", "") == untagged


def saved_names(fw, num_fwd_outputs):
    out = [n for n in fw.graph.nodes if n.op == "output"][0]
    return [a.name for a in torch.fx.node.map_arg(out.args[0], lambda n: n)[num_fwd_outputs:]]


def test_saved_sets_beside_pytorch_min_cut(graphs):
    """The table of what each partitioner saves on the same joints. Differences are the 1.13-to-
    main changes of docs/partitioner.md; the training test proves both give the same numbers."""
    rows = []
    for name in sorted(TRAINING_MODELS):
        joint = graphs[f"{name}_joint_remat"]
        k = joint._out_spec.children_specs[0].num_leaves
        ours = set(saved_names(graphs[f"{name}_fw_remat"], k))
        theirs = set(saved_names(graphs[f"{name}_fw_torch"], k))
        rows.append((name, len(ours), len(theirs), len(ours & theirs), sorted(ours - theirs), sorted(theirs - ours)))
    lines = [f"{'model':<16}{'remat':>6}{'1.13':>6}{'both':>6}  only remat / only 1.13"]
    for name, a, b, both, only_ours, only_theirs in rows:
        lines.append(
            f"{name:<16}{a:>6}{b:>6}{both:>6}  {', '.join(only_ours) or '-'} / {', '.join(only_theirs) or '-'}"
        )
    print(f"\nsaved values, remat min-cut beside PyTorch {torch.__version__}'s min-cut:\n" + "\n".join(lines))
    differences = {row[0]: (set(row[4]), set(row[5])) for row in rows}
    if not TORCH_1_13:  # remat follows the release the user runs: 2.x's choice exactly
        assert differences == {name: (set(), set()) for name in TRAINING_MODELS}
        return
    assert differences == SAVED_SET_DIFFERENCES
    for name, _, _, _, _, only_theirs in rows:
        joint = graphs[f"{name}_joint_remat"]
        by_name = {n.name: n for n in joint.graph.nodes}
        for view in only_theirs:  # 1.13 saved a view (or the mask); remat its base, the same bytes
            base = by_name[view].args[0]
            if by_name[view].target is torch.ops.aten.bitwise_not.default:
                assert (
                    base.name in SAVED_SET_DIFFERENCES[name][0]
                    and base.meta["tensor_meta"].shape == by_name[view].meta["tensor_meta"].shape
                )
                continue
            assert by_name[view].target is torch.ops.aten.view.default and base.name in SAVED_SET_DIFFERENCES[name][0]


# Where remat's min-cut (PyTorch main's rules) and 1.13's save different values on these joints
# (docs/partitioner.md): main bans recomputing gelu because its output is materialized in the
# backward; where 1.13 saves `view(addmm)`, remat saves the addmm (same storage, same bytes) and
# recomputes the view, which costs nothing; the causal mask's `bitwise_not` is in today's allowlist
# (every pointwise op), so remat saves the `tril` it is recomputed from, as 2.13 does.
SAVED_SET_DIFFERENCES = {
    "conv_batchnorm": (set(), set()),
    "embedding_ce": (set(), set()),
    "layernorm_mlp": ({"gelu"}, set()),
    "nanogpt": ({"addmm_2", "addmm_6", "tril"}, {"view_9", "view_21", "bitwise_not"}),
}


def test_unknown_op_names_the_node_and_fallback_warns():
    def check(joint, joint_inputs, **kwargs):
        # An aten call whose arguments fit no schema: remat refuses it, naming the node.
        node = next(n for n in joint.graph.nodes if n.target is torch.ops.aten.tanh.default)
        name = node.name
        node.args = (node.args[0], 3)
        with pytest.raises(remat.PartitionError, match=name):
            remat.partition_fn(joint, joint_inputs, **kwargs)
        with pytest.warns(remat.RematFallbackWarning, match=name):
            fw, _ = remat.partition_fn_for(fallback=True)(joint, joint_inputs, **kwargs)
        assert remat.last_report().fallback and name in remat.last_report().text
        assert name in {n.name for n in fw.graph.nodes}  # PyTorch partitioned the same joint
        # Undo the damage (PyTorch's min-cut replaced the graph) and partition for real.
        node = next(n for n in joint.graph.nodes if n.name == name)
        node.args = (node.args[0],)
        joint.recompile()
        return remat.partition_fn(joint, joint_inputs, **kwargs)

    model = EmbeddingCE()
    compiled = functorch_compile.aot_module(model, identity_compiler, identity_compiler, partition_fn=check)
    compiled(*model.batch(torch.Generator().manual_seed(1))).backward()
    assert not remat.last_report().fallback


def test_unexportable_meta_names_the_node():
    def bad_tag(joint, joint_inputs, **kwargs):
        node = next(n for n in joint.graph.nodes if n.op == "call_function")
        node.meta["recompute"] = object()
        with pytest.raises(remat.PartitionError, match=node.name):
            remat.partition_fn(joint, joint_inputs, **kwargs)
        for n in joint.graph.nodes:  # the partition's CSE rebuilt the graph: meta was copied
            n.meta.pop("recompute", None)
        return remat.partition_fn(joint, joint_inputs, **kwargs)

    model = LayerNormMLP()
    compiled = functorch_compile.aot_module(model, identity_compiler, identity_compiler, partition_fn=bad_tag)
    compiled(*model.batch(torch.Generator().manual_seed(1))).backward()


@pytest.mark.skipif(not TORCH_1_13, reason="PyTorch 2.x's real extraction: test_torch_compile.py")
def test_pytorch_2_extraction_gets_remats_saved_set(monkeypatch):
    # PyTorch 2.x's extraction takes num_fwd_outputs and the symbolic sizes apart: remat hands it
    # its saved set (Debian has only 1.13, so a 2.x-shaped extraction wraps 1.13's).
    import remat.partition as glue
    from functorch._src import partitioners

    calls = {}

    class Partitioners2x:
        @staticmethod
        def _extract_fwd_bwd_modules(joint_module, saved_values, saved_sym_nodes, *, num_fwd_outputs):
            calls.update(saved=[n.name for n in saved_values], symints=list(saved_sym_nodes), k=num_fwd_outputs)
            return partitioners._extract_fwd_bwd_modules(joint_module, saved_values)

    monkeypatch.setattr(glue, "_torch_partitioners", lambda: Partitioners2x)
    ours = train("embedding_ce", remat.partition_fn, steps=2)
    eager = train("embedding_ce", None, steps=2)
    assert calls == {"saved": remat.last_report().saved, "symints": [], "k": 1}
    assert all(torch.equal(a, b) for a, b in zip(ours[0], eager[0]))


def test_settings_are_checked():
    with pytest.raises(ValueError, match="strategy"):
        remat.partition_fn_for(strategy="greedy")
    with pytest.raises(ValueError, match="budget"):
        remat.partition_fn_for(budget=1.5)
    with pytest.raises(ValueError, match="unknown unit 'parsecs'"):
        remat.partition_fn_for(budget="12 parsecs")
    with pytest.raises(ValueError, match="not 'default'"):
        remat.partition_fn_for(strategy="default", budget="24MB")


@pytest.mark.parametrize(
    "settings",
    [
        {"strategy": "default"},
        {"budget": 0.0},
        {"budget": 0.3},
        {"strategy": "optimal", "budget": 0.3},
        {"budget": "BYTES"},
        {"strategy": "optimal", "budget": "BYTES"},
    ],
    ids=["default", "budget-0", "budget-0.3", "optimal-0.3", "bytes", "optimal-bytes"],
)
def test_other_strategies_and_budgets_train_like_eager(settings):
    # nanoGPT's dropout is 1.13's in-place bernoulli_ on empty_like, an op outside remat's
    # registry: recomputing it would draw new masks, so no budget may (budget 0 included).
    # A byte budget below the plain cut's and above budget 0's (1.13's dropout masks are kept).
    kib = 64 if TORCH_1_13 else 16
    if settings.get("budget") == "BYTES":
        settings = {**settings, "budget": f"{kib}KB"}
    eager = train("nanogpt", None, steps=3)
    ours = train("nanogpt", remat.partition_fn_for(verify=True, **settings), steps=3)
    for step in range(3):
        assert torch.equal(ours[0][step], eager[0][step]), step
        for a, b in zip(ours[1][step], eager[1][step]):
            assert torch.allclose(a, b, rtol=0, atol=1e-5), step
    report = remat.last_report()
    if settings.get("budget") == 0.0:
        assert report.stage == "the inputs only (memory budget 0)"
    if settings.get("budget") == 0.0 and TORCH_1_13:
        assert any("bernoulli_" in line and "outside remat's op registry" in line for line in report.text.splitlines())
    if settings == {"budget": 0.3}:
        assert report.recompute_flops > 0 and report.stage.startswith("min-cut")
    if settings.get("strategy") == "optimal":
        assert report.strategy == "optimal" and report.stage == "the optimum at this budget"
    if settings.get("budget") == f"{kib}KB":
        assert 0 < report.activation_bytes <= kib * 1024 and report.recompute_flops > 0


TRACE_SCRIPT = """
import sys, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, {tests!r})
import torch
from functorch.compile import aot_module
import remat
from models import NanoGPT
torch.manual_seed(0)
model = NanoGPT(layers=1)
if torch.__version__.startswith("1."):  # no torch.compile, no TORCH_TRACE: remat writes the log
    compiled = aot_module(model, lambda g, _: g, lambda g, _: g, partition_fn=remat.partition_fn)
else:  # PyTorch writes the log, remat's record in it
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    compiled = torch.compile(model, backend=aot_autograd(fw_compiler=lambda g, _: make_boxed_func(g),
                                                         partition_fn=remat.partition_fn))
compiled(*model.batch(torch.Generator().manual_seed(1))).backward()
print(remat.trace_log_path())
"""


def test_torch_trace_gets_the_partition_record_and_remat_report_shows_it(tmp_path):
    logs, out = tmp_path / "logs", tmp_path / "report"
    env = dict(os.environ, TORCH_TRACE=str(logs))
    script = TRACE_SCRIPT.format(tests=os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    log = run.stdout.strip().splitlines()[-1]
    if not TORCH_1_13:
        assert log == "None"  # PyTorch's own log
        [log] = [str(p) for p in logs.iterdir()]
    assert os.path.dirname(log) == str(logs) and os.path.getsize(log) > 0
    text = open(log).read()
    for record in ("aot_joint_graph", "aot_forward_graph", "aot_backward_graph", '"name": "remat_partition"'):
        assert record in text, record
    report = subprocess.run([REMAT, "report", str(logs), "-o", str(out)], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    pages = [os.path.join(d, f) for d, _, files in os.walk(out) for f in files if f.startswith("remat_partition")]
    assert pages, os.listdir(out)
    page = open([p for p in pages if p.endswith(".html")][0]).read()
    assert "saved" in page and "chosen by" in page
    # With TORCH_TRACE set, the record carries the pictures' numbers and the page draws them.
    for figure in ('id="memory-timeline"', 'id="budget-curve"', 'id="region-map"', "<polyline"):
        assert figure in page, figure
