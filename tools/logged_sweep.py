#!/usr/bin/env python3
"""Re-partitioning from PyTorch's own logs, across the real-model corpus: each architecture of
python/tests/transformers_corpus.py (tiny, plain and checkpointed) is trained 2 steps under
torch.compile with PyTorch 2.13's own min-cut while TORCH_TRACE is set (python/tests/trace_run.py
--pytorch, a process per configuration: PyTorch opens the log when it is imported); then, for
every compile the log holds, `remat diff LOG --compile C --against min-cut` partitions the joint
graph PyTorch logged and compares it with what PyTorch's logged forward and backward saved and
recomputed. A configuration is *reproduced* when every compile shows 0 values changed fate.

    PYTHONPATH=build/python python3 tools/logged_sweep.py --archs llama,bert,gpt2 --results /tmp/logged.jsonl
    PYTHONPATH=build/python python3 tools/logged_sweep.py --kinds causal-lm   # hours

Prints a line per configuration and the totals; exits 1 when a configuration PyTorch compiled is
not reproduced."""

import argparse
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


def compiles_of(log):
    """The compile ids with a joint graph: `remat partition LOG` lists them (or takes the one)."""
    listed = subprocess.run([REMAT, "partition", str(log)], check=False, capture_output=True, text=True)
    if listed.returncode == 0:
        return [None]  # one joint graph: no --compile needed
    return re.findall(r"--compile (\S+)\s+a joint graph", listed.stderr)


def run_one(arch, kind, checkpointed, timeout):
    spec = f"hf:{arch}:{kind}" + (":checkpointed" if checkpointed else "")
    result = {"arch": arch, "kind": kind, "variant": "checkpointed" if checkpointed else "plain"}
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, TORCH_TRACE=folder, PYTHONWARNINGS="ignore", TRANSFORMERS_VERBOSITY="error")
        try:
            trained = subprocess.run(
                [sys.executable, str(ROOT / "python" / "tests" / "trace_run.py"), "--pytorch", spec],
                env=env,
                check=False,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return dict(result, status="timeout", detail=f"over {timeout:g} s")
        if trained.returncode != 0:
            lines = (trained.stderr or trained.stdout).strip().splitlines()
            return dict(result, status="not trained", detail=lines[-1][:300] if lines else "")
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default=",".join(corpus.KINDS))
    parser.add_argument("--archs", default=None, help="only these model types (comma-separated)")
    parser.add_argument("--variants", default="plain,checkpointed")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--results", default=None, help="also write every result as JSON lines here")
    args = parser.parse_args()
    out = open(args.results, "a") if args.results else None  # noqa: SIM115 (held for the whole run)
    counts = {}
    for kind in args.kinds.split(","):
        archs = corpus.architectures(kind)
        if args.archs:
            archs = [a for a in archs if a in args.archs.split(",")]
        for arch in archs:
            for variant in args.variants.split(","):
                r = run_one(arch, kind, variant == "checkpointed", args.timeout)
                counts[r["status"]] = counts.get(r["status"], 0) + 1
                print(
                    f"{kind} {arch} ({r['variant']}): {r['status']}" + (f": {r['detail']}" if r.get("detail") else ""),
                    flush=True,
                )
                if out:
                    out.write(json.dumps(r) + "\n")
                    out.flush()
    print("logged sweep: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("differs") else 0


if __name__ == "__main__":
    sys.exit(main())
