"""remat.Settings: the partition settings spelled once, read by partition_fn, partition_fn_for,
inductor_partitioner and a command line (issue 42)."""

import pickle
import subprocess
import sys

import pytest

import remat
from remat import Settings

pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"strategy": "greedy"}, "strategy must be"),
        ({"budget": 1.5}, "budget must be"),
        ({"budget": True}, "budget must be"),
        ({"budget": "12 parsecs"}, "budget:"),
        ({"strategy": "default", "budget": "24MB"}, "a budget applies"),
        ({"within_regions": True}, "within_regions applies"),
        ({"time_limit": 0}, "time_limit must be"),
        ({"gap": 2.0}, "gap must be"),
    ],
)
def test_bad_settings_are_refused_where_they_are_made(fields, message):
    with pytest.raises(ValueError, match=message):
        Settings(**fields)
    with pytest.raises(ValueError, match=message):
        remat.partition_fn_for(**fields)


def test_every_spelling_gives_the_same_settings():
    settings = Settings(strategy="optimal", budget=0.5, time_limit=30, gap=0.01, within_regions=True)
    assert remat.partition_fn_for(settings).settings == settings
    assert remat.partition_fn_for("optimal", 0.5, time_limit=30, gap=0.01, within_regions=True).settings == settings
    assert (
        remat.partition_fn_for(Settings(strategy="optimal"), 0.5, time_limit=30, gap=0.01, within_regions=True).settings
        == settings
    )
    args = ["--strategy", "optimal", "--budget", "0.5", "--time-limit", "30", "--gap", "1", "--within-regions"]
    assert Settings.from_args(args) == settings
    assert Settings.from_args(["--budget", "24MB"]).budget == "24MB"
    assert settings.replace(budget=None) == Settings(strategy="optimal", time_limit=30, gap=0.01, within_regions=True)
    assert settings.describe() == "strategy='optimal', budget=0.5, time_limit=30, gap=0.01, within_regions=True"


def test_partition_settings_reach_the_partition(monkeypatch):
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile needs PyTorch 2.x")
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    import compile_models
    from remat import _core

    calls, reports = [], []
    partition = _core.partition

    def spy(joint_json, **kwargs):
        calls.append(kwargs)
        return partition(joint_json, **kwargs)

    monkeypatch.setattr(_core, "partition", spy)
    settings = Settings(strategy="optimal", budget=0.5, time_limit=7, gap=0.25)

    def capture(joint, joint_inputs, **kwargs):
        return remat.partition_fn(joint, joint_inputs, settings=settings, on_report=reports.append, **kwargs)

    torch._dynamo.reset()
    model = compile_models.MODELS["checkpoint"]()
    backend = aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=capture)
    torch.compile(model, backend=backend)(*model.batch(torch.Generator().manual_seed(1), 4))
    (call,) = calls
    assert (call["strategy"], call["budget"], call["time_limit"], call["gap"]) == ("optimal", 0.5, 7, 0.25)
    (report,) = reports
    assert report.settings == settings and report.strategy == "optimal" and report.budget == 0.5
    assert "integer program" in report.text


def test_the_core_refuses_bad_solver_limits():
    with pytest.raises(remat._core.Error, match="time_limit"):
        remat._core.partition("{}", strategy="optimal", time_limit=-1)
    with pytest.raises(remat._core.Error, match="gap"):
        remat._core.partition("{}", strategy="optimal", gap=1.5)


def test_the_inductor_partitioner_pickles_as_its_settings():
    pytest.importorskip("torch._inductor.custom_graph_pass", reason="Inductor's custom partitioner needs PyTorch 2.x")
    settings = Settings(strategy="optimal", budget=0.3, time_limit=5)
    partitioner = remat.inductor_partitioner(settings, on_report=print)
    again = pickle.loads(pickle.dumps(partitioner))
    assert again.settings == settings and again.on_report is None
    assert again.uuid() == partitioner.uuid() != remat.inductor_partitioner().uuid()
    assert repr(partitioner) == "remat.inductor_partitioner(strategy='optimal', budget=0.3, time_limit=5)"


def test_no_import_circle():
    # remat.partition does not import remat.inductor (which imports it): each imports alone.
    try:
        import torch._inductor.custom_graph_pass  # noqa: F401

        modules = ("remat.partition", "remat.inductor", "remat")
    except ImportError:  # PyTorch 1.13: no Inductor to import
        modules = ("remat.partition", "remat")
    for module in modules:
        code = f"import sys, {module}; print('remat.inductor' in sys.modules)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == ("True" if module == "remat.inductor" else "False"), module
