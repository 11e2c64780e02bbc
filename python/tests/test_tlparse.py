"""remat report beside the real tlparse 0.4.3 (pip) on the same logs: every file tlparse writes is
in remat's site at the same path, and compile_directory.json lists the same compiles with the
same artifacts (name, number, url). On tlparse's own test logs, with the mode flags tlparse takes
for each, and on a log PyTorch 2.13 writes here while remat.partition_fn partitions (aot_autograd
and Inductor): that log's every graph reads and prints back, and its report marks every value
remat saved or recomputed."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REMAT = os.environ.get("REMAT_EXE", str(ROOT / "build" / "remat"))
LOGS = ROOT / "tests" / "data" / "tlparse-logs"


def tlparse_exe():
    """The tlparse of this interpreter's environment (pip puts it beside python), else PATH's."""
    beside = Path(sysconfig.get_path("scripts")) / "tlparse"
    return str(beside) if beside.exists() else shutil.which("tlparse")


TLPARSE = tlparse_exe()
if TLPARSE is None:
    pytest.skip("tlparse is not installed (tools/setup.sh: pip install tlparse==0.4.3)", allow_module_level=True)


def graph_page_chips(page):
    """{node: (mark, reason)} of a graph page: the chips its script draws from the page's JSON
    (src/remat/report/graph_script.cpp)."""
    start = page.index('<script type="application/json" id="graph-data">')
    data = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    first = {node[0]: node[1] for node in data["nodes"]}
    kinds = ["saved", "recomputed", "forward", "backward", "moved", "saved-input"]
    chips = {}
    for chip in data.get("chips", []):
        # [line, kind, bytes, reason, cost, name], trailing defaults left out
        line, kind, _bytes, reason, _cost, name = chip + [None, None, None, -1, "", None][len(chip) :]
        name = name if name is not None else first[line]
        chips[name] = (kinds[kind], data["reasons"][reason] if reason >= 0 else "")
    return chips


def test_tlparse_is_0_4_3():
    out = subprocess.run([TLPARSE, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["tlparse", "0.4.3"]


def files_under(folder):
    return {p.relative_to(folder).as_posix() for p in Path(folder).rglob("*") if p.is_file()}


def directory(site):
    path = Path(site) / "compile_directory.json"
    if not path.exists():
        return None
    return {
        compile_id: [(a["name"], a["number"], a["url"]) for a in entry["artifacts"]]
        for compile_id, entry in json.loads(path.read_text()).items()
    }


def both(log, flags, tmp_path):
    """Runs tlparse and remat report on `log` with `flags`; returns the two sites."""
    theirs, ours = tmp_path / "tlparse", tmp_path / "remat"
    subprocess.run(
        [TLPARSE, str(log), "-o", str(theirs), "--no-browser", *flags], check=True, capture_output=True, text=True
    )
    run = subprocess.run([REMAT, "report", str(log), "-o", str(ours), *flags], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return theirs, ours


def assert_remat_has_tlparses_files(theirs, ours):
    missing = sorted(files_under(theirs) - files_under(ours))
    assert not missing, f"tlparse wrote {len(missing)} file(s) remat's site lacks: {missing[:10]}"
    tl_dir = directory(theirs)
    if tl_dir is not None:
        ours_dir = directory(ours)
        for compile_id, artifacts in tl_dir.items():
            assert compile_id in ours_dir, compile_id
            assert set(artifacts) <= set(ours_dir[compile_id]), compile_id
    return len(files_under(theirs))


LOG_MODES = [
    ("simple.log", []),
    ("simple.log", ["--inductor-provenance"]),
    ("simple.log", ["--plain-text"]),
    ("simple_corrupted_json.log", []),
    ("comp_failure.log", []),
    ("artifacts.log", []),
    ("artifacts.log", ["--inductor-provenance"]),
    ("export.log", []),
    ("export.log", ["--export"]),
    ("multi_rank_logs/dedicated_log_torch_trace_rank_1.log", []),
    ("multi_rank_logs/dedicated_log_torch_trace_rank_3.log", ["--inductor-provenance"]),
    ("multi_rank_logs", ["--all-ranks-html"]),
]


@pytest.mark.parametrize("log,flags", LOG_MODES, ids=[f"{log}{''.join(flags)}" for log, flags in LOG_MODES])
def test_tlparses_files_are_in_remats_site(log, flags, tmp_path):
    theirs, ours = both(LOGS / log, flags, tmp_path)
    assert assert_remat_has_tlparses_files(theirs, ours) >= 3


@pytest.fixture(scope="module")
def torch_213_logs(tmp_path_factory):
    """PyTorch 2.13's own logs of training with remat.partition_fn: aot_autograd (dynamic shapes
    too) and Inductor. Written by a child process: PyTorch opens the log when it is imported."""
    torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
    if not hasattr(torch, "compile"):
        pytest.skip("TORCH_TRACE logs of torch.compile need PyTorch 2.x")
    pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")
    logs = {}
    for kind, args in {
        "aot": ["checkpoint", "sac_must_save", "dropout", "views_in_place"],
        "dynamic": ["--dynamic", "checkpoint", "several_outputs"],
        "inductor": ["--inductor", "checkpoint", "sac_must_recompute"],
        # The models people train (transformers, tiny): lifted constants, T5's encoder-decoder.
        "transformers": ["hf:llama:causal-lm", "hf:t5:seq2seq-lm", "hf:bert:masked-lm:checkpointed"],
    }.items():
        if kind == "transformers" and importlib.util.find_spec("transformers") is None:
            continue
        folder = tmp_path_factory.mktemp(f"trace_{kind}")
        # Inductor's caches in a folder of their own: nothing of this run is reused elsewhere.
        env = dict(
            os.environ,
            TORCH_TRACE=str(folder),
            TORCHINDUCTOR_CACHE_DIR=str(tmp_path_factory.mktemp(f"inductor_cache_{kind}")),
        )
        subprocess.run(
            [sys.executable, str(HERE / "trace_run.py"), *args], env=env, check=True, capture_output=True, text=True
        )
        (log,) = folder.glob("*.log")
        logs[kind] = log
    return logs


@pytest.mark.parametrize("kind", ["aot", "dynamic", "inductor", "transformers"])
def test_pytorch_213_log_reads_back_and_reports(kind, torch_213_logs, tmp_path):
    if kind not in torch_213_logs:
        pytest.skip("transformers is not installed (tools/setup.sh installs it)")
    log = torch_213_logs[kind]
    info = subprocess.run([REMAT, "info", str(log)], capture_output=True, text=True, check=True).stdout
    graphs = next(line for line in info.splitlines() if line.startswith("graphs: "))
    count = int(graphs.split()[1].rstrip(","))
    assert count >= 8 and graphs == f"graphs: {count}, {count} read and printed back byte for byte", info
    assert '"remat_partition"' in log.read_text(), "remat's partition record is not in PyTorch's log"

    theirs, ours = both(log, [], tmp_path)
    assert_remat_has_tlparses_files(theirs, ours)
    # Every value remat saved and every node it recomputed is marked on its joint graph's page.
    compiles = 0
    for compile_id, artifacts in directory(ours).items():
        urls = [url for _, _, url in artifacts]
        records = [u for u in urls if "/remat_partition_" in u and u.endswith(".json")]
        joints = [u for u in urls if "/aot_joint_graph_" in u and u.endswith(".txt")]
        if not records:
            continue
        compiles += 1
        record = json.loads((ours / records[0]).read_text())
        chips = graph_page_chips((ours / joints[0].replace(".txt", ".html")).read_text())
        for key, mark in (("saved_values", "saved"), ("recomputed", "recomputed")):
            for value in record[key]:
                # An input the backward reads is saved too, but is no activation: its own mark.
                shown = "saved-input" if value.get("input") else mark
                assert chips.get(value["name"]) == (shown, value["reason"]), (compile_id, value)
    assert compiles >= 2

    theirs, ours = both(log, ["--inductor-provenance"], tmp_path / "provenance")
    assert_remat_has_tlparses_files(theirs, ours)
