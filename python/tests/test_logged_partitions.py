"""What PyTorch saved, from its log alone: models trained under torch.compile with PyTorch 2.13's
own min-cut (remat partitions nothing) while TORCH_TRACE is set; then, for every compile in the
log, `remat diff LOG --compile C --against min-cut` partitions the joint graph PyTorch logged and
compares it with what PyTorch's logged forward and backward saved and recomputed. The models
people train (transformers, tiny, with and without checkpointing) and compile_models.py's
(dropout under checkpoint: a random op recomputed with its saved random state; several outputs:
parameters whose lifetime is the model's, read off Dynamo's graph)."""

import importlib.util
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

MODELS = ["checkpoint", "dropout", "several_outputs", "batch_norm", "sac_must_save"]
if importlib.util.find_spec("transformers") is not None:
    MODELS += ["hf:llama:causal-lm:checkpointed", "hf:bert:masked-lm:checkpointed", "hf:gpt2:causal-lm"]


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
    listed = subprocess.run([REMAT, "partition", str(log)], capture_output=True, text=True)
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


def test_the_optimum_is_a_command_away(pytorch_log, tmp_path):
    compile_id = compiles_of(pytorch_log)[0]
    out = subprocess.run(
        [REMAT, "diff", str(pytorch_log), "--compile", compile_id, "--against", "optimal", "--budget", "0.5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "after : remat's optimal at budget 0.5" in out, out
    policy = tmp_path / "policy.py"
    subprocess.run(
        [REMAT, "policy", str(pytorch_log), "--compile", compile_id, "--strategy", "optimal", "--budget", "0.5"]
        + ["-o", str(policy)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "create_selective_checkpoint_contexts" in policy.read_text()
