#!/usr/bin/env python3
"""Re-partitioning from PyTorch's own logs, across the real-model corpus: each architecture of
python/tests/transformers_corpus.py (tiny, plain and checkpointed) is trained 2 steps under
torch.compile with PyTorch 2.13's own min-cut while TORCH_TRACE is set (python/tests/trace_run.py
--pytorch, a process per configuration: PyTorch opens the log when it is imported); then, for
every compile the log holds, `remat diff LOG --compile C --against min-cut` partitions the joint
graph PyTorch logged and compares it with what PyTorch's logged forward and backward saved and
recomputed. A configuration is *reproduced* when every compile shows 0 values changed fate.

    PYTHONPATH=build/python python3 tools/logged_sweep.py --archs llama,bert,gpt2 --results /tmp/logged.jsonl
    PYTHONPATH=build/python python3 tools/logged_sweep.py --resume docs/logged.jsonl   # hours

docs/logged.jsonl holds every result so far: --resume runs what it lacks, and again what differed
or timed out there (a later line of a configuration stands for it). Prints a line per
configuration and the totals; exits 1 when a configuration PyTorch compiled is not reproduced."""

import argparse
import concurrent.futures
import itertools
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
import transformers_corpus as corpus

REMAT = os.environ.get("REMAT_EXE", str(ROOT / "build" / "remat"))
QUIET = {"PYTHONWARNINGS": "ignore", "TRANSFORMERS_VERBOSITY": "error"}  # the trainings' own output


def compiles_of(log):
    """The compile ids with a joint graph: `remat partition LOG` lists them (or takes the one)."""
    listed = subprocess.run([REMAT, "partition", str(log)], check=False, capture_output=True, text=True)
    if listed.returncode == 0:
        return [None]  # one joint graph: no --compile needed
    return re.findall(r"--compile (\S+)\s+a joint graph", listed.stderr)


def python_step(args, env, timeout, failed="not trained", what=""):
    """`python ARGS` in a process of its own: None when it succeeded, else (status, detail): a
    timeout, or `failed` with the last line it printed."""
    try:
        done = subprocess.run(
            [sys.executable, *args], env=env, check=False, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "timeout", f"{what}over {timeout:g} s"
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return failed, lines[-1][:300] if lines else ""
    return None


def trace_pytorch(spec, folder, timeout, what=""):
    """Trains `spec` (trace_run.py's hf:ARCH:KIND[:checkpointed]) with PyTorch's own min-cut while
    TORCH_TRACE is `folder`: None when it did, else (status, detail)."""
    env = dict(os.environ, TORCH_TRACE=str(folder), **QUIET)
    return python_step([str(ROOT / "python" / "tests" / "trace_run.py"), "--pytorch", spec], env, timeout, what=what)


def run_one(arch, kind, checkpointed, timeout):
    spec = f"hf:{arch}:{kind}" + (":checkpointed" if checkpointed else "")
    result = {"arch": arch, "kind": kind, "variant": "checkpointed" if checkpointed else "plain"}
    with tempfile.TemporaryDirectory() as folder:
        failed = trace_pytorch(spec, folder, timeout)
        if failed:
            return dict(result, status=failed[0], detail=failed[1])
        logs = list(Path(folder).glob("*.log"))
        compiles = compiles_of(logs[0]) if logs else []
        if not compiles:
            return dict(result, status="no joint", detail="the log holds no aot_joint_graph")
        differing = []
        for compile_id in compiles:
            args = [REMAT, "diff", str(logs[0]), "--against", "min-cut"]
            if compile_id is not None:
                args += ["--compile", compile_id]
            out = subprocess.run(args, check=False, capture_output=True, text=True)
            if out.returncode != 0:
                differing.append(f"{compile_id}: {out.stderr.strip().splitlines()[-1][:200]}")
            elif "\n0 values changed fate" not in out.stdout:
                changes = [line.strip() for line in out.stdout.splitlines() if " -> " in line]
                differing.append(f"{compile_id}: " + "; ".join(changes[:4]))
        status = "reproduced" if not differing else "differs"
        return dict(result, status=status, compiles=len(compiles), detail=" | ".join(differing)[:600])


RERUN = ("differs", "timeout")  # what --resume runs again
# What the model sweep (docs/models.jsonl) found no run of PyTorch's own to log for: a model
# transformers cannot build tiny, one without gradient checkpointing, one PyTorch fails to compile.
NOT_TRAINABLE = ("unbuildable", "unsupported", "torch-error")


def latest(results):
    """A configuration's last result stands for it."""
    return {(r["arch"], r["kind"], r["variant"]): r for r in results}


def table(results, statuses=("reproduced", "differs", "not trained", "timeout", "no joint")):
    """A markdown table of the results by kind, a column per status (docs/cli.md shows it)."""
    by_kind = {}
    for r in results:
        by_kind.setdefault(r["kind"], {}).setdefault(r["status"], 0)
        by_kind[r["kind"]][r["status"]] += 1
    lines = ["| kind | configurations | " + " | ".join(statuses) + " |", "|---" * (len(statuses) + 2) + "|"]
    for kind in sorted(by_kind, key=list(corpus.KINDS).index):
        row = by_kind[kind]
        lines.append(f"| {kind} | {sum(row.values())} | " + " | ".join(str(row.get(s, 0)) for s in statuses) + " |")
    return "\n".join(lines)


def sweep(tasks, run, *, jobs=2, resume=None, results=None, rerun=RERUN, known=None, label="sweep"):
    """Runs `run(arch, kind, variant)` for each task (arch, kind, variant), `jobs` at once (a
    thread each, starting its own process), and prints a line per configuration. `resume`: a
    results file; what it holds is not run again unless its status is in `rerun`, and it is
    rewritten at the end with a line per configuration. `results`: a file every result is
    appended to. `known`: the model sweep's results (docs/models.jsonl); what it could not train
    is "not trained" here too. Returns every configuration's latest result."""
    before = {}
    if resume and os.path.exists(resume):
        with open(resume) as f:
            before = latest(json.loads(line) for line in f if line.strip())
        tasks = [t for t in tasks if t not in before or before[t]["status"] in rerun]
    print(f"{label}: {len(tasks)} configurations on {jobs} workers ({len(before)} done before)", flush=True)
    path = resume or results
    out = open(path, "a") if path else None  # noqa: SIM115 (held for the whole run)
    done = dict(before)

    finished = itertools.count(1)

    def record(r):
        done[(r["arch"], r["kind"], r["variant"])] = r
        shown = next(finished)
        detail = f": {r['detail']}" if r.get("detail") else ""
        print(f"[{shown}/{len(tasks)}] {r['kind']} {r['arch']} ({r['variant']}): {r['status']}{detail}", flush=True)
        if out:
            out.write(json.dumps(r) + "\n")
            out.flush()

    runnable = []
    for arch, kind, variant in tasks:
        found = (known or {}).get((arch, kind, variant))
        if found and found["status"] in NOT_TRAINABLE:
            r = {"arch": arch, "kind": kind, "variant": variant, "status": "not trained"}
            r["detail"] = f"{found['status']} in the model sweep: {found['detail']}"[:300]
            record(r)
        else:
            runnable.append((arch, kind, variant))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        running = {pool.submit(run, *t) for t in runnable}
        for future in concurrent.futures.as_completed(running):
            record(future.result())
    if out:
        out.close()
    if resume:  # a line per configuration again: its latest result
        with open(resume + ".tmp", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in done.values())
        os.replace(resume + ".tmp", resume)
    return done


def model_sweep_results(path=ROOT / "docs" / "models.jsonl"):
    """The model sweep's latest result per configuration ({} for path '')."""
    if not path:
        return {}
    with open(path) as f:
        return latest(json.loads(line) for line in f if line.strip())


def interleaved(kinds, archs, variants):
    """(arch, kind, variant) for every architecture of each kind (only `archs` if given), the
    kinds interleaved: a sweep stopped early has covered every kind."""
    per_kind = []
    for kind in kinds:
        chosen = [a for a in corpus.architectures(kind) if archs is None or a in archs]
        per_kind.append([(arch, kind, v) for arch in chosen for v in variants])
    return [t for group in itertools.zip_longest(*per_kind) for t in group if t is not None]


def sweep_arguments(description, rerun):
    """The command line every corpus sweep shares: --kinds, --archs, --jobs, --timeout, --results,
    --resume (which runs again what ended in a status of `rerun`) and --known."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--kinds", default=",".join(corpus.KINDS))
    parser.add_argument("--archs", default=None, help="only these model types (comma-separated)")
    parser.add_argument("--jobs", type=int, default=2, help="configurations run at once (a process each)")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--results", default=None, help="also append every result as JSON lines here")
    parser.add_argument(
        "--resume", default=None, help=f"a --results file: run what it lacks, and again what ended {', '.join(rerun)}"
    )
    parser.add_argument(
        "--known",
        default=str(ROOT / "docs" / "models.jsonl"),
        help="the model sweep's results: configurations it could not train are not run here either ('' runs all)",
    )
    return parser


def sweep_from(args, run, variants, rerun, label):
    """`sweep` over the configurations `args` (sweep_arguments) name, in `variants`; every
    configuration's latest result."""
    archs = args.archs.split(",") if args.archs else None
    tasks = interleaved(args.kinds.split(","), archs, variants)
    known = model_sweep_results(args.known)
    results = sweep(
        tasks, run, jobs=args.jobs, resume=args.resume, results=args.results, rerun=rerun, known=known, label=label
    )
    return list(results.values())


def main():
    parser = sweep_arguments(__doc__.splitlines()[0], RERUN)
    parser.add_argument("--variants", default="plain,checkpointed")
    args = parser.parse_args()

    def run(arch, kind, variant):
        return run_one(arch, kind, variant == "checkpointed", args.timeout)

    results = sweep_from(args, run, args.variants.split(","), RERUN, "logged sweep")
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(table(results))
    print("logged sweep: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("differs") else 0


if __name__ == "__main__":
    sys.exit(main())
