#!/usr/bin/env python3
"""Which op call tagged each node, on the real-model corpus: each architecture of
python/tests/transformers_corpus.py, tiny and checkpointed, is traced by torch.compile (one step)
under a selective-checkpointing policy that tags every call by a hash of its key
(python/tests/policy_tags.py); every node of its checkpoint regions must carry the tag remat
reads off the joint for it, from the graph and from its printed text (a TORCH_TRACE log's). A
configuration *agrees* when every node does, for every joint.

    PYTHONPATH=build/python python3 tools/policy_tags_sweep.py --archs convbert,nystromformer,llama
    PYTHONPATH=build/python python3 tools/policy_tags_sweep.py --kinds masked-lm --results /tmp/tags.jsonl

A process per configuration (a crash or hang stays in it); prints a line per configuration and
the totals; exits 1 when some configuration disagrees."""

import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python" / "tests"))
import logged_sweep

STATUSES = ("agrees", "disagrees", "no regions", "not trained", "timeout", "error")


def check(arch, kind, salt, out_path):
    """The worker: one step under the hashed policy; the nodes remat reads otherwise."""
    from policy_tags import mispredicted_in_model

    joints, nodes, wrong = mispredicted_in_model(arch, kind, int(salt))
    result = {"joints": joints, "region_nodes": nodes, "wrong": len(wrong)}
    result["examples"] = [[r, name, str(p).split(".")[-1], str(a).split(".")[-1]] for r, name, p, a in wrong[:6]]
    Path(out_path).write_text(json.dumps(result))


def run_one(arch, kind, salt, timeout):
    result = {"arch": arch, "kind": kind, "variant": "checkpointed", "salt": salt}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        worker = [__file__, "--worker", arch, kind, str(salt), str(out)]
        failed = logged_sweep.python_step(worker, dict(os.environ, **logged_sweep.QUIET), timeout, "error", "")
        if failed:
            status, detail = failed
            if "_Unsupported" in detail or "does not support" in detail:
                status = "not trained"
            return dict(result, status=status, detail=detail)
        record = json.loads(out.read_text())
    result.update(record)
    if record["joints"] == 0:
        return dict(result, status="no regions")
    if record["wrong"]:
        wrong = ", ".join(f"{name} ({reading}: remat {p}, PyTorch {a})" for reading, name, p, a in record["examples"])
        return dict(result, status="disagrees", detail=f"{record['wrong']} nodes: {wrong}"[:600])
    return dict(result, status="agrees")


def main():
    if sys.argv[1:2] == ["--worker"]:
        check(*sys.argv[2:6])
        return 0
    rerun = ("disagrees", "timeout", "error")
    parser = logged_sweep.sweep_arguments(__doc__.splitlines()[0], rerun)
    parser.add_argument("--salt", type=int, default=0, help="which hash of the keys tags the calls")
    args = parser.parse_args()

    def run(arch, kind, _variant):
        return run_one(arch, kind, args.salt, args.timeout)

    results = logged_sweep.sweep_from(args, run, ["checkpointed"], rerun, "policy tags")
    print(logged_sweep.table(results, STATUSES))
    return 1 if any(r["status"] == "disagrees" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
