"""remat's module builder (remat/modules.py) against PyTorch 2.13's own steps after its min-cut
(extraction, the autograd engine's order, getitems raised), which stay the oracle: on every model
of compile_models.py, under static and dynamic shapes and memory budgets, partition_fn with
verify=True builds both and fails on any difference in code, nodes, output descriptions or meta
keys; the builder must have built them itself wherever it claims to cover the graph."""

import copy
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
if not hasattr(torch, "compile"):
    pytest.skip("the module builder follows PyTorch 2.x's steps", allow_module_level=True)
pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")
from functorch.compile import make_boxed_func  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402
from torch._functorch import config as functorch_config  # noqa: E402

import remat  # noqa: E402
from remat import modules  # noqa: E402
from compile_models import MODELS  # noqa: E402

if not modules.supported_torch():
    pytest.skip(f"the builder follows PyTorch 2.13, this is {torch.__version__}", allow_module_level=True)


def builders(name, dynamic=False, rows=4, **settings):
    """The builder of each joint torch.compile makes of the model, partitioned with verify=True."""
    built = []

    def partition(joint, joint_inputs, **kwargs):
        fw, bw = remat.partition_fn_for(verify=True, **settings)(joint, joint_inputs, **kwargs)
        built.append(remat.last_report().builder)
        return fw, bw

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = MODELS[name]()
    compiled = torch.compile(
        model,
        backend=aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=partition),
        dynamic=dynamic,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(*model.batch(torch.Generator().manual_seed(1), rows))
    assert built, "torch.compile made no joint graph"
    return built


@pytest.mark.parametrize("name", sorted(MODELS))
def test_builder_builds_what_pytorch_steps_build(name):
    assert set(builders(name)) == {"remat"}


@pytest.mark.parametrize("name", ["checkpoint", "views_in_place", "several_outputs", "attention"])
def test_builder_under_dynamic_shapes(name):
    # The second batch size compiles a graph with a symbolic batch size: saved symbolic sizes
    # and the symbols the backward must bind.
    for rows in (4, 6):
        assert set(builders(name, dynamic=True, rows=rows)) == {"remat"}


@pytest.mark.parametrize("name", ["no_checkpoint", "checkpoint", "batch_norm", "attention"])
def test_builder_under_memory_budgets(name):
    with functorch_config.patch(activation_memory_budget=0.3):
        assert set(builders(name)) == {"remat"}
    assert set(builders(name, strategy="optimal", budget=0.5)) == {"remat"}


def test_check_same_finds_a_difference():
    # The oracle can fail: two partitions of one joint with different saved sets differ.
    joints = []

    def capture(joint, joint_inputs, **kwargs):
        joints.append((copy.deepcopy(joint), kwargs["num_fwd_outputs"]))
        return remat.partition_fn(joint, joint_inputs, **kwargs)

    torch._dynamo.reset()
    model = MODELS["no_checkpoint"]()
    compiled = torch.compile(
        model, backend=aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=capture)
    )
    compiled(*model.batch(torch.Generator().manual_seed(1), 4))
    joint, k = joints[0]
    chosen = [n for n in joint.graph.nodes if n.name in remat.last_report().saved]
    everything = [
        n
        for n in joint.graph.nodes
        if n.op in ("placeholder", "call_function")
        and "tangents" not in n.name
        and n.meta.get("partitioner_tag") != "is_backward"
        and isinstance(n.meta.get("val"), torch.Tensor)
    ]
    fw_a, _ = modules.build_modules(joint, chosen, [], k)
    fw_b, _ = modules.build_modules(joint, everything, [], k)
    assert modules.check_same(fw_a, fw_a, "forward") is None
    assert "forward's code differs" in modules.check_same(fw_a, fw_b, "forward")
