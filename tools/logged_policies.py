#!/usr/bin/env python3
"""Policies from PyTorch's own logs, followed by PyTorch, across the real-model corpus: each
architecture of python/tests/transformers_corpus.py, tiny and checkpointed, is trained under
torch.compile with PyTorch 2.13's own min-cut while TORCH_TRACE is set (trace_run.py --pytorch);
from the log alone, remat's optimum within the checkpoint regions of the first compile that has
them, at --times the run's activation memory, and `remat policy` for it; then the model is trained
again, twice, under PyTorch's min-cut: without the policy, and with it in
gradient_checkpointing_kwargs. A configuration is *followed* when PyTorch saves exactly remat's
set in that compile (and the RNG state of each random op it recomputes, as `remat policy` predicts)
and losses and parameters are bit for bit the run without the policy.

    PYTHONPATH=build/python python3 tools/logged_policies.py --archs llama,bert,gpt2,qwen2
    PYTHONPATH=build/python python3 tools/logged_policies.py --kinds causal-lm --results /tmp/policies.jsonl
    PYTHONPATH=build/python python3 tools/logged_policies.py --resume docs/logged_policies.jsonl   # hours

A process per step (PyTorch opens the log when it is imported). Prints a line per configuration
and the totals; exits 1 when PyTorch did not follow a policy remat predicted it would follow
(where `remat policy` names values PyTorch decides otherwise, the result says so: *named
otherwise*; where the policy itself warned while PyTorch traced that the model's calls are not the
ones it keys, *warned*)."""

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python" / "tests"))
import logged_sweep
import transformers_corpus as corpus

REMAT = os.environ.get("REMAT_EXE", str(ROOT / "build" / "remat"))
STATUSES = ("followed", "followed (the run's own set)", "not followed", "named otherwise", "warned", "no regions")
STATUSES += ("not trained", "timeout", "error")


def remat(*args):
    return subprocess.run([REMAT, *map(str, args)], check=False, capture_output=True, text=True)


def train_twice(arch, kind, policy_path, out_path):
    """The worker: both trainings, the saved sets of every joint and whether training matched."""
    import torch
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    spec = importlib.util.spec_from_file_location("policy_from_log", policy_path)
    policy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(policy)
    variant = corpus.Variant(checkpointed=True, attention="eager")

    def train(context_fn=None):
        model, config = corpus.build(arch, kind, variant)
        if context_fn is not None:
            kwargs = {"use_reentrant": False, "context_fn": context_fn}
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
        return corpus.train(model, corpus.inputs(kind, config), min_cut_rematerialization_partition, variant)

    plain = train()
    with_policy = train(policy.context_fn)
    warned = sorted(policy.MISCOUNTED)  # the policy's own: its keys do not fit the model's calls
    same = len(plain.losses) == len(with_policy.losses) and all(
        torch.equal(a, b) for a, b in zip(plain.losses, with_policy.losses)
    )
    same = same and all(torch.equal(p, with_policy.parameters[n]) for n, p in plain.parameters.items())
    out = {"plain": plain.saved, "policy": with_policy.saved, "same_training": same, "warned": warned}
    out["policy_rng_states"] = with_policy.rng_states
    Path(out_path).write_text(json.dumps(out))


def run_one(arch, kind, times, timeout):
    result = {"arch": arch, "kind": kind, "variant": "checkpointed"}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        failed = logged_sweep.trace_pytorch(f"hf:{arch}:{kind}:checkpointed", folder / "trace", timeout, "tracing ")
        if failed:
            return dict(result, status=failed[0], detail=failed[1])
        (log,) = (folder / "trace").glob("*.log")
        compiles = logged_sweep.compiles_of(log)
        for index, compile_id in enumerate(compiles):
            which = [] if compile_id is None else ["--compile", compile_id]
            run = remat("partition", log, *which, "-o", folder / f"run{index}")
            if run.returncode != 0:
                return dict(result, status="error", detail=run.stderr.strip()[-300:])
            activation = json.loads((folder / f"run{index}" / "report.json").read_text())["activation_bytes"]
            choice = [*which, "--strategy", "optimal", "--budget", f"{int(activation * times)}B"]
            policy = remat("policy", log, *choice, "-o", folder / "policy.py")
            if "has no checkpoint region" in policy.stderr:
                continue
            if policy.returncode == 2:
                return dict(result, status="error", detail=policy.stderr.strip()[-300:])
            optimum = remat("partition", log, *choice, "--within-regions", "-o", folder / "optimum")
            if optimum.returncode != 0:
                return dict(result, status="error", detail=optimum.stderr.strip()[-300:])
            record = json.loads((folder / "optimum" / "report.json").read_text())
            chosen = sorted(v["name"] for v in record["saved_values"])
            break
        else:
            return dict(result, status="no regions", detail="no compile has a checkpoint region")
        result.update(compile=compile_id or "0/0", chosen=len(chosen), predicted_exactly=policy.returncode == 0)
        replayed = re.search(r"the RNG state of the (\d+) random op", policy.stdout)
        predicted_states = int(replayed.group(1)) if replayed else 0
        worker = [__file__, "--worker", arch, kind, str(folder / "policy.py"), str(folder / "out.json")]
        failed = logged_sweep.python_step(worker, dict(os.environ, **logged_sweep.QUIET), timeout, "error", "training ")
        if failed:
            return dict(result, status=failed[0], detail=failed[1])
        out = json.loads((folder / "out.json").read_text())
    if index >= len(out["policy"]):
        return dict(result, status="error", detail=f"the run has {len(out['policy'])} joints, the log {len(compiles)}")
    # The RNG states PyTorch saves for the random ops the policy recomputes are remat's prediction
    # too (`remat policy` names them), not values it chose.
    states = set(out["policy_rng_states"][index])
    saved = sorted(set(out["policy"][index]) - states)
    result.update(run_saved=len(out["plain"][index]), pytorch_saved=len(saved), same_training=out["same_training"])
    if states:
        result.update(rng_states=len(states))
    if not result["predicted_exactly"]:  # remat policy named the values PyTorch decides otherwise
        return dict(result, status="named otherwise", detail=policy.stdout.strip()[-300:])
    if saved == chosen and len(states) == predicted_states and out["same_training"]:
        status = "followed" if sorted(out["plain"][index]) != chosen else "followed (the run's own set)"
        return dict(result, status=status)
    only = {"only remat": sorted(set(chosen) - set(saved))[:4], "only PyTorch": sorted(set(saved) - set(chosen))[:4]}
    if len(states) != predicted_states:
        only["RNG states"] = f"{len(states)} saved, {predicted_states} predicted"
    if out["warned"]:  # the policy said at training time that the calls are not the ones it keys
        return dict(result, status="warned", detail=json.dumps(only) + "; " + out["warned"][0][:300])
    return dict(
        result, status="not followed", detail=json.dumps(only) + ("" if out["same_training"] else "; training differs")
    )


def main():
    if sys.argv[1:2] == ["--worker"]:
        train_twice(*sys.argv[2:6])
        return 0
    rerun = ("not followed", "warned", "timeout", "error")
    parser = logged_sweep.sweep_arguments(__doc__.splitlines()[0], rerun)
    parser.add_argument(
        "--times", type=float, default=2, help="the optimum's budget: this times the run's activation memory"
    )
    args = parser.parse_args()

    def run(arch, kind, _variant):
        return run_one(arch, kind, args.times, args.timeout)

    results = logged_sweep.sweep_from(args, run, ["checkpointed"], rerun, "logged policies")
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(logged_sweep.table(results, STATUSES))
    print("logged policies: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("not followed") else 0


if __name__ == "__main__":
    sys.exit(main())
