"""remat.export against live torch.fx graphs: what it writes, remat's C++ side reads back node for
node (names, ops, targets, arguments, tensor metadata). Needs Debian's python3-torch; skipped
with a message without it."""

import json
import sys
import os
import subprocess

import pytest

torch = pytest.importorskip("torch", reason="python3-torch is not installed (apt-get install python3-torch)")
import torch.fx  # noqa: E402

import remat  # noqa: E402
from fx_oracle import assert_prints_like_torch  # noqa: E402

# functorch 1.13 asks for boxed compilers; these tests' compilers return the graph itself.
pytestmark = pytest.mark.filterwarnings("ignore:Your compiler for AOTAutograd")

try:  # the printer comparisons need remat's C++ extension (build/python); export does not
    import remat._core  # noqa: F401

    HAS_CORE = True
except ImportError:
    HAS_CORE = False

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
REMAT = os.environ.get("REMAT_EXE", os.path.join(ROOT, "build", "remat"))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.ln = torch.nn.LayerNorm(8)

    def forward(self, x, scale: float = 0.5):
        y = torch.relu(self.fc(x)) * scale
        y = self.ln(y + x)
        return y.sum(dim=-1, keepdim=True), y[:, :2]


def aot_joint(module, *inputs):
    """The joint graph functorch hands its partitioner, and the number of forward outputs."""
    from functorch.compile import aot_module, default_partition

    seen = {}

    def partition(joint, joint_inputs, **kwargs):
        seen["joint"] = joint
        seen["num_fwd_outputs"] = kwargs.get("num_fwd_outputs", joint._out_spec.children_specs[0].num_leaves)
        return default_partition(joint, joint_inputs, **kwargs)

    compiled = aot_module(module, fw_compiler=lambda g, _: g, bw_compiler=lambda g, _: g, partition_fn=partition)
    out = compiled(*inputs)
    (out[0].sum() if isinstance(out, (tuple, list)) else out.sum()).backward()  # 2.x returns a list
    return seen["joint"], seen["num_fwd_outputs"]


def remat_reads(text, tmp_path, name="graph.json"):
    """remat's C++ reader on the exported text: `remat convert` writes it back as fxgraph-json."""
    source, back = tmp_path / name, tmp_path / ("back_" + name)
    source.write_text(text)
    subprocess.run([REMAT, "convert", str(source), str(back)], check=True, capture_output=True, text=True)
    return json.loads(back.read_text())


@pytest.fixture(scope="module", autouse=True)
def remat_built():
    if not os.path.exists(REMAT):
        pytest.skip(f"{REMAT} is not built (tools/setup.sh)")


def test_symbolic_trace_round_trips_node_for_node(tmp_path):
    gm = torch.fx.symbolic_trace(Block())
    exported = json.loads(remat.export(gm))
    assert exported["schema"] == "fxgraph-json/1"
    assert [n["name"] for n in exported["nodes"]] == [n.name for n in gm.graph.nodes]
    back = remat_reads(remat.export(gm), tmp_path)
    assert [(n["name"], n["op"], n["target"]) for n in back["nodes"]] == [
        (n["name"], n["op"], n["target"]) for n in exported["nodes"]
    ]
    targets = {n["target"] for n in exported["nodes"]}
    assert "torch.relu" in targets and "operator.getitem" in targets  # torch.fx's own names
    assert exported["placeholders"] == ["x", "scale"]
    assert [n.get("type") for n in exported["nodes"]][:2] == [None, "float"]  # `scale: float = 0.5`
    if HAS_CORE:
        assert_prints_like_torch(gm, "Block")


def test_aot_joint_keeps_aten_targets_metadata_and_partitions(tmp_path):
    joint, num_fwd = aot_joint(Block(), torch.randn(4, 8, requires_grad=True))
    text = remat.export(joint, name="block_joint", device="cpu", extra={"num_fwd_outputs": num_fwd})
    exported = json.loads(text)
    by_name = {n.name: n for n in joint.graph.nodes}
    for node in exported["nodes"]:
        fx_node = by_name[node["name"]]
        if isinstance(fx_node.target, torch._ops.OpOverload):
            schema = fx_node.target._schema
            assert node["target"] == schema.name.replace("::", ".") + "." + (schema.overload_name or "default")
        tm = fx_node.meta.get("tensor_meta")
        if tm is not None and hasattr(tm, "shape"):  # a fake tensor value is exported as "val" (2.x)
            exported_meta = node["meta"]["tensor_meta"] or node["meta"]["val"]
            assert exported_meta["shape"] == list(tm.shape)
            assert exported_meta["dtype"] == str(tm.dtype)
    back = remat_reads(text, tmp_path, "joint.json")
    assert len(back["nodes"]) == len(exported["nodes"])
    if HAS_CORE:
        assert_prints_like_torch(joint, "Block joint")
    # remat partitions what it read, and both partitions check against libtorch.
    (tmp_path / "joint.json").write_text(text)
    part = subprocess.run(
        [REMAT, "partition", str(tmp_path / "joint.json"), "--verify", "-o", str(tmp_path / "p")],
        capture_output=True,
        text=True,
    )
    assert part.returncode == 0, part.stderr
    assert "verify: 0 violations" in part.stdout
    if os.path.exists(os.path.join(os.path.dirname(REMAT), "remat-check")):
        check = subprocess.run(
            [
                REMAT,
                "check",
                str(tmp_path / "joint.json"),
                "--fw",
                str(tmp_path / "p" / "forward.json"),
                "--bw",
                str(tmp_path / "p" / "backward.json"),
            ],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.skipif(not HAS_CORE, reason="remat's C++ extension is not built")
def test_shared_tables_read_back_as_the_inline_graph():
    # partition_fn exports with tables (stack traces, tensor metadata, key lists written once):
    # remat reads the same graph from both, and the tables hold each repeated value once.
    from remat import _core

    joint, num_fwd = aot_joint(Block(), torch.randn(4, 8, requires_grad=True))
    inline = remat.export(joint, device="cpu", extra={"num_fwd_outputs": num_fwd})
    tabled = remat.export(joint, device="cpu", extra={"num_fwd_outputs": num_fwd}, tables=True)
    obj = json.loads(tabled)
    assert len(tabled) < len(inline)
    assert "val" not in json.dumps([n["meta"].get("val") for n in obj["nodes"] if "val_ref" in n["meta"]])
    assert len({json.dumps(t, sort_keys=True) for t in obj["tensor_metas"]}) == len(obj["tensor_metas"])
    assert all("keys" not in n["meta"] and "keys_ref" in n["meta"] for n in obj["nodes"])
    for style in ("current", "torch-1.13"):
        assert _core.print_readable(tabled, style=style, include_stride=True, include_device=True) == (
            _core.print_readable(inline, style=style, include_stride=True, include_device=True)
        )


def test_values_of_every_kind():
    aten = torch.ops.aten
    g = torch.fx.Graph()
    x = g.placeholder("x")
    full = g.call_function(
        aten.full.default, ([2, 3], float("-inf")), {"dtype": torch.float32, "device": torch.device("cpu")}
    )
    sliced = g.call_function(aten.slice.Tensor, (x, 0, 0, 9223372036854775807))
    added = g.call_function(aten.add.Tensor, (full, sliced), {"alpha": 2})
    summed = g.call_function(aten.sum.dim_IntList, (x, [0, 1], True))
    g.output((added, summed, None))
    nodes = {n["name"]: n for n in json.loads(remat.export(g))["nodes"]}
    if HAS_CORE:
        assert_prints_like_torch(torch.fx.GraphModule(torch.nn.Module(), g), "every kind")
    assert nodes["full_default"]["target"] == "aten.full.default"
    assert nodes["full_default"]["args"] == [{"list": [2, 3]}, {"float": "-inf"}]
    assert nodes["full_default"]["kwargs"] == {"dtype": {"dtype": "torch.float32"}, "device": {"device": "cpu"}}
    assert nodes["slice_tensor"]["args"] == [{"node": "x"}, 0, 0, 9223372036854775807]
    assert nodes["add_tensor"]["kwargs"] == {"alpha": 2}
    assert nodes["sum_dim_int_list"]["args"][1:] == [{"list": [0, 1]}, True]
    assert nodes["output"]["args"] == [{"tuple": [{"node": "add_tensor"}, {"node": "sum_dim_int_list"}, None]}]


def test_an_unexportable_value_names_its_node():
    class Weird:
        pass

    g = torch.fx.Graph()
    x = g.placeholder("x")
    node = g.call_function(torch.relu, (x,))
    node.meta["recompute"] = Weird()
    g.output(node)
    with pytest.raises(remat.ExportError, match="node relu"):
        remat.export(g)


def test_the_command_line_exports_a_module_from_a_file(tmp_path):
    source = tmp_path / "model.py"
    source.write_text(
        "import torch\n\n"
        "class Tiny(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.sigmoid(x) * 2\n\n"
        "def broken(x):\n"
        "    return x if x.sum() > 0 else -x\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = tmp_path / "tiny.json"
    ok = subprocess.run(
        [sys.executable, "-m", "remat", "export", f"{source}:Tiny", "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    back = remat_reads(out.read_text(), tmp_path, "tiny_back.json")
    assert [n["target"] for n in back["nodes"]] == ["x", "torch.sigmoid", "operator.mul", "output"]
    assert back["graph_name"] == "Tiny"
    for bad in (f"{source}:nothing", f"{source}", f"{source}:broken"):
        r = subprocess.run(
            [sys.executable, "-m", "remat", "export", bad, "-o", str(tmp_path / "no.json")],
            env=env,
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2, bad
        assert r.stderr.startswith("error: "), r.stderr
        assert not (tmp_path / "no.json").exists()


def test_each_release_prints_by_its_eras_rules():
    # The installed PyTorch picks the era of remat's printer; every era name is one the C++
    # printer knows.
    from remat import _core
    from remat.readable import style_for_version

    eras = {
        "1.13.1": "torch-1.13",
        "2.1.2": "torch-2.1",
        "2.4.0": "torch-2.4",
        "2.6.0+cu124": "torch-2.5-2.9",
        "2.9.1": "torch-2.5-2.9",
        "2.10.0": "torch-2.10",
        "2.11.0.dev20260301": "torch-2026",
        "2.13.0+cpu": "torch-2.13",
        "2.15.0": "torch-2.13",
    }
    graph = (
        '{"schema": "fxgraph-json/1", "nodes": [{"name": "x", "op": "placeholder", "target": "x"}, '
        '{"name": "output", "op": "output", "target": "output", "args": [{"node": "x"}]}]}'
    )
    for version, era in eras.items():
        assert style_for_version(version) == era, version
        assert _core.print_readable(
            graph, style=era, include_stride=False, include_device=False, expanded_def=False, colored=False
        ).startswith("class GraphModule(torch.nn.Module):\n")
    with pytest.raises(Exception, match="style must be one of"):
        _core.print_readable(
            graph, style="torch-3", include_stride=False, include_device=False, expanded_def=False, colored=False
        )
