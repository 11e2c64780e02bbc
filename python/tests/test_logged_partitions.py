"""What PyTorch saved, from its log alone: models trained under torch.compile with PyTorch 2.13's
own min-cut (remat partitions nothing) while TORCH_TRACE is set; then, for every compile in the
log, `remat diff LOG --compile C --against min-cut` partitions the joint graph PyTorch logged and
compares it with what PyTorch's logged forward and backward saved and recomputed. The models
people train (transformers, tiny, with and without checkpointing) and compile_models.py's
(dropout and attention under checkpoint: random ops recomputed with their saved random state,
under names the joint lacks; several outputs: parameters whose lifetime is the model's, read off
Dynamo's graph). And the policy `remat policy
LOG` writes for remat's optimum makes PyTorch's own min-cut save exactly what remat chose, with
training bit for bit what it was without it."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REMAT = os.environ.get("REMAT_EXE", str(ROOT / "build" / "remat"))

torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
if not hasattr(torch, "compile"):
    pytest.skip("TORCH_TRACE logs of torch.compile need PyTorch 2.x", allow_module_level=True)
pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")

MODELS = ["checkpoint", "dropout", "several_outputs", "batch_norm", "sac_must_save", "attention"]
if importlib.util.find_spec("transformers") is not None:
    MODELS += ["hf:llama:causal-lm:checkpointed", "hf:bert:masked-lm:checkpointed", "hf:gpt2:causal-lm"]
    # BERT encoder and decoder, checkpointed: dropout in every region (PyTorch names each random
    # state's getitems itself), cross-attention reading the encoder's output, a bitwise mask.
    MODELS += ["hf:encoder-decoder:seq2seq-lm:checkpointed"]


@pytest.fixture(scope="module")
def pytorch_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pytorch_partitioned")
    env = dict(os.environ, TORCH_TRACE=str(folder))
    subprocess.run(
        [sys.executable, str(HERE / "trace_run.py"), "--pytorch", *MODELS],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    (log,) = folder.glob("*.log")
    return log


def compiles_of(log):
    """The compiles with a joint graph, as `remat partition LOG` lists them when asked for one."""
    listed = subprocess.run([REMAT, "partition", str(log)], check=False, capture_output=True, text=True)
    assert listed.returncode == 2, listed.stdout
    return re.findall(r"--compile (\S+)\s+a joint graph", listed.stderr)


def test_rematerializing_the_logged_joint_gives_what_pytorch_saved(pytorch_log):
    compiles = compiles_of(pytorch_log)
    assert len(compiles) >= len(MODELS)
    differing = {}
    for compile_id in compiles:
        out = subprocess.run(
            [REMAT, "diff", str(pytorch_log), "--compile", compile_id, "--against", "min-cut"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "what PyTorch saved" in out, out
        if "\n0 values changed fate" not in out:
            differing[compile_id] = out
    assert differing == {}


def saved_by_pytorch(model, steps=3):
    """(the names PyTorch's min-cut saves, losses, parameters) of `steps` SGD steps of `model`
    under aot_autograd (one joint graph; RNG states left out)."""
    import warnings

    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    saved = []

    def partition(joint, joint_inputs, **kwargs):
        fw, bw = min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)
        output = next(n for n in fw.graph.nodes if n.op == "output")
        saved.append(sorted(a.name for a in output.args[0][kwargs["num_fwd_outputs"] :] if hasattr(a, "name")))
        return fw, bw

    torch._dynamo.reset()
    run = torch.compile(
        model, backend=aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=partition)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            (x,) = model.batch(torch.Generator().manual_seed(i), 4)
            opt.zero_grad()
            loss = run(x)
            loss.backward()
            losses.append(loss.detach().clone())
            opt.step()
    torch._dynamo.reset()
    return saved[0], losses, [p.detach().clone() for p in model.parameters()]


def optimum_and_policy(model, choice, tmp_path, *partition_only):
    """Trains `model` (trace_run.py's) with PyTorch's own min-cut under TORCH_TRACE; from its log
    alone: the names remat's optimum (`choice`) saves, and the policy module `remat policy` writes
    for it."""
    folder = tmp_path / "trace"
    subprocess.run(
        [sys.executable, str(HERE / "trace_run.py"), "--pytorch", model],
        env=dict(os.environ, TORCH_TRACE=str(folder)),
        check=True,
        capture_output=True,
    )
    (log,) = folder.glob("*.log")
    subprocess.run(
        [REMAT, "partition", str(log), *choice, *partition_only, "-o", str(tmp_path / "optimum")],
        check=True,
        capture_output=True,
    )
    record = json.loads((tmp_path / "optimum" / "report.json").read_text())
    done = subprocess.run(
        [REMAT, "policy", str(log), *choice, "-o", str(tmp_path / "policy.py")],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    spec = importlib.util.spec_from_file_location("policy_from_log", tmp_path / "policy.py")
    policy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(policy)
    return sorted(v["name"] for v in record["saved_values"]), policy


def test_the_policy_written_from_a_log_makes_pytorch_save_the_optimum(tmp_path):
    # A run PyTorch partitioned, logged; from the log alone, remat's optimum with 2 KB of
    # activation memory (the run kept 512 B: the optimum spends the rest on recompute it saves)
    # and the policy that asks PyTorch for it; the same model with the policy: PyTorch's own
    # min-cut saves exactly that set, and training is bit for bit the run without the policy.
    from compile_models import CheckpointedMLP

    chosen, policy = optimum_and_policy("checkpoint", ["--strategy", "optimal", "--budget", "2KB"], tmp_path)
    torch.manual_seed(0)  # as trace_run.py built it
    plain = saved_by_pytorch(CheckpointedMLP())
    torch.manual_seed(0)
    with_policy = saved_by_pytorch(CheckpointedMLP(context_fn=policy.context_fn))
    assert with_policy[0] == chosen
    assert plain[0] != chosen  # the optimum is another set
    for a, b in zip(plain[1] + plain[2], with_policy[1] + with_policy[2]):
        assert torch.equal(a, b)


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers is not installed")
@pytest.mark.parametrize(
    "arch,budget",
    [
        ("llama", "50KB"),
        # CSE shares a region's node with the next region (XGLM's attention clamp constant,
        # Llama-4's rotary frequencies): PyTorch makes it MUST_SAVE, so may the optimum.
        ("xglm", "56KB"),
        ("llama4_text", "57KB"),
        # The optimum recomputes CPU attention: PyTorch also saves its RNG state.
        ("inkling2_text", "145KB"),
        # HRM warms its state up through its checkpoints under torch.no_grad(): no region.
        ("hrm_text", "125KB"),
        # Bailing-hybrid's loops update their state once more than they read it: dead calls at
        # each region's end.
        ("bailing_hybrid", "150KB"),
    ],
)
def test_the_policy_from_a_transformers_log_makes_pytorch_save_the_optimum(arch, budget, tmp_path):
    # The same on models people train: tiny, from transformers, checkpointed, trained with
    # PyTorch's min-cut under TORCH_TRACE; from the log alone, remat's optimum within the regions
    # (for Llama with 50 KB of activation memory the run's choice recomputes every region, the
    # optimum keeps some of it) and its policy; the model with the policy in
    # gradient_checkpointing_kwargs: PyTorch 2.13's min-cut saves exactly remat's set, and
    # training is bit for bit the same.
    import transformers_corpus as corpus
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    choice = ["--strategy", "optimal", "--budget", budget]
    chosen, policy = optimum_and_policy(f"hf:{arch}:causal-lm:checkpointed", choice, tmp_path, "--within-regions")
    variant = corpus.Variant(checkpointed=True, attention="eager")

    def train(context_fn=None):
        model, config = corpus.build(arch, "causal-lm", variant)
        if context_fn is not None:
            model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False, "context_fn": context_fn}
            )
        return corpus.train(model, corpus.inputs("causal-lm", config), min_cut_rematerialization_partition, variant)

    plain, with_policy = train(), train(policy.context_fn)
    assert len(plain.saved) == len(with_policy.saved) == 1
    assert sorted(set(with_policy.saved[0]) - set(with_policy.rng_states[0])) == chosen
    if arch == "llama":
        assert sorted(plain.saved[0]) != chosen  # the optimum is another set
    assert len(plain.losses) == len(with_policy.losses) > 0
    for a, b in zip(plain.losses, with_policy.losses):
        assert torch.equal(a, b)
    for name, parameter in plain.parameters.items():
        assert torch.equal(parameter, with_policy.parameters[name]), name


def test_the_optimum_is_a_command_away(pytorch_log, tmp_path):
    compile_id = compiles_of(pytorch_log)[0]
    out = subprocess.run(
        [REMAT, "diff", str(pytorch_log), "--compile", compile_id, "--against", "optimal", "--budget", "0.5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "after : remat's optimal at budget 0.5" in out, out
    # Every compile with checkpoint regions gets the policy for its optimum, and PyTorch's
    # min-cut under it (as remat predicts it) saves exactly that: outside the regions the
    # optimum takes what PyTorch chose, even ops remat's registry lacks (the encoder-decoder's
    # mask), and a MUST_SAVE view may be recomputed, as PyTorch does (Llama's rotary sin).
    written = {}
    for compile_id in compiles_of(pytorch_log):
        policy = tmp_path / f"policy_{compile_id.replace('/', '_')}.py"
        done = subprocess.run(
            [REMAT, "policy", str(pytorch_log), "--compile", compile_id, "--strategy", "optimal", "--budget", "0.5"]
            + ["-o", str(policy)],
            capture_output=True,
            text=True,
            check=False,
        )
        if "has no checkpoint region" in done.stderr:
            continue
        assert done.returncode == 0, (compile_id, done.stderr)
        assert "saves exactly the" in done.stdout, (compile_id, done.stdout)
        assert "create_selective_checkpoint_contexts" in policy.read_text()
        written[compile_id] = done.stdout
    assert len(written) >= 6, written  # the checkpointed models' compiles
