#!/usr/bin/env python3
"""The full real-model sweep: every architecture transformers' model mappings name (causal LM,
masked LM, seq2seq LM, image and audio classification), built tiny from configs in code, trained
3 SGD steps under torch.compile (aot_autograd) with PyTorch 2.13's min-cut and with
remat.partition_fn, compared bit for bit (python/tests/transformers_corpus.py). Prints each
result as it comes and the totals, and writes the table (docs/models.md by default).

    PYTHONPATH=build/python python3 tools/model_sweep.py                 # everything (hours)
    PYTHONPATH=build/python python3 tools/model_sweep.py --kinds causal-lm --variants plain,checkpointed
    PYTHONPATH=build/python python3 tools/model_sweep.py --archs llama,bert -o /tmp/models.md
    PYTHONPATH=build/python python3 tools/model_sweep.py --resume docs/models.jsonl \
        --variants plain,checkpointed,plain-sdpa,checkpointed-budget,plain-sdpa-budget,checkpointed-sdpa-budget

docs/models.jsonl holds every result behind docs/models.md: --resume runs only what it lacks (a
variant added, say) and appends; --table-only rewrites the table from it.

Each configuration runs in a worker process (--jobs of them), so that a model that hangs or
crashes the interpreter is recorded as such (--timeout seconds) and the sweep goes on.
"""

import argparse
import collections
import itertools
import json
import os
import selectors
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))

import transformers_corpus as corpus  # noqa: E402

VARIANTS = {
    "plain": corpus.Variant(False, "eager", None),
    "plain-sdpa": corpus.Variant(False, "sdpa", None),
    "checkpointed": corpus.Variant(True, "eager", None),
    "checkpointed-sdpa": corpus.Variant(True, "sdpa", None),
    "plain-budget": corpus.Variant(False, "eager", 0.5),
    "plain-sdpa-budget": corpus.Variant(False, "sdpa", 0.5),
    "checkpointed-budget": corpus.Variant(True, "eager", 0.5),
    "checkpointed-sdpa-budget": corpus.Variant(True, "sdpa", 0.5),
}
COUNTED = ("identical", "differs", "remat-error")  # where PyTorch's min-cut compiled the model
# The same model with and without a memory budget: the budget changes neither how the model is
# built nor its eager run, so a model that cannot be built (or lacks the attention or
# checkpointing) in one of the two cannot in the other either, and is not run again.
BUDGET_TWIN = {
    "plain": "plain-budget",
    "plain-sdpa": "plain-sdpa-budget",
    "checkpointed": "checkpointed-budget",
    "checkpointed-sdpa": "checkpointed-sdpa-budget",
}
BUDGET_TWIN.update({v: k for k, v in list(BUDGET_TWIN.items())})
CARRIED = ("unbuildable", "unsupported")


def worker():
    """Runs configurations given as JSON lines on stdin, one JSON outcome a line on stdout."""
    import torch

    torch.set_num_threads(1)
    for line in sys.stdin:
        arch, kind, name = json.loads(line)
        o = corpus.compare_quietly(arch, kind, VARIANTS[name])
        print(
            json.dumps(
                {
                    "arch": arch,
                    "kind": kind,
                    "variant": name,
                    "status": o.status,
                    "detail": o.detail,
                    "torch_seconds": o.torch_seconds,
                    "remat_seconds": o.remat_seconds,
                    "joints": o.joints,
                    "joint_nodes": o.joint_nodes,
                    "builder_fallbacks": o.builder_fallbacks,
                }
            ),
            flush=True,
        )


class Worker:
    def __init__(self):
        env = dict(os.environ, PYTHONWARNINGS="ignore", TRANSFORMERS_VERBOSITY="error")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.task, self.started, self.recycle = None, 0.0, False

    def give(self, task):
        self.task, self.started = task, time.monotonic()
        self.proc.stdin.write(json.dumps(task) + "\n")
        self.proc.stdin.flush()

    def rss_bytes(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                line = next(x for x in f if x.startswith("VmRSS:"))
            return int(line.split()[1]) * 1024
        except (OSError, StopIteration):
            return 0

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def sweep(tasks, jobs, timeout, memory_limit, on_result):
    """Runs `tasks` on `jobs` workers; a worker that dies, overruns its time or grows past
    `memory_limit` bytes is replaced (one that grew past half of it after a task too: compiled
    models leave caches behind)."""
    pending = collections.deque(tasks)
    sel = selectors.DefaultSelector()
    slots = [None] * min(jobs, len(pending))

    def fresh(i):
        slots[i] = Worker()
        sel.register(slots[i].proc.stdout, selectors.EVENT_READ, i)

    def next_task(i, result):
        on_result(result)
        slots[i].task = None
        if result["status"] in ("crashed", "timeout") or slots[i].recycle or slots[i].rss_bytes() > memory_limit // 2:
            sel.unregister(slots[i].proc.stdout)
            slots[i].stop()
            fresh(i)
        if pending:
            slots[i].give(pending.popleft())

    for i in range(len(slots)):
        fresh(i)
        slots[i].give(pending.popleft())
    while any(w.task for w in slots):
        for key, _ in sel.select(timeout=5):
            w = slots[key.data]
            line = w.proc.stdout.readline()
            failed = dict(zip(("arch", "kind", "variant"), w.task), status="crashed", detail="the worker died")
            if not line:
                try:
                    code = w.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = None
                # SIGKILL here is the kernel's out-of-memory killer (the sweep itself kills only on
                # a timeout or its memory guard); any other death may be remat's, and counts so.
                failed["detail"] = (
                    "the worker was killed (out of memory: the config is not tiny)"
                    if code == -9
                    else f"the worker died (exit code {code})"
                )
                if code != -9:
                    failed["status"] = "remat-error"
            next_task(key.data, json.loads(line) if line else failed)
        for i, w in enumerate(slots):
            task = dict(zip(("arch", "kind", "variant"), w.task or ()))
            if w.task and time.monotonic() - w.started > timeout:
                next_task(i, dict(task, status="timeout", detail=f"over {timeout:g} s"))
            elif w.task and w.rss_bytes() > memory_limit:
                # A config the tiny sizes do not reach (a sub-config of its own): not tiny.
                w.recycle = True
                next_task(i, dict(task, status="unbuildable", detail=f"over {memory_limit / 2**30:g} GiB: not tiny"))
    for w in slots:
        w.stop()


MARK = {
    "identical": "identical",
    "differs": "**differs**",
    "remat-error": "**remat fails**",
    "torch-error": "PyTorch fails",
    "unbuildable": "not built",
    "unsupported": "n/a",
    "crashed": "too big",
    "timeout": "too big",
}


def _column(result):
    """The table's column for a result: the memory guard's refusals are too big, not unbuilt."""
    detail = result["detail"]
    if detail.startswith("as in "):  # carried over from its budget twin: "as in VARIANT: DETAIL"
        detail = detail.partition(": ")[2]
    if result["status"] == "unbuildable" and detail.startswith("over "):
        return "crashed"
    return result["status"]


def _builder_lines(results):
    """Who built the modules of the identical configurations: remat's module builder, or PyTorch's
    steps after remat's choice (with why). Results of sweeps before the builder say nothing."""
    told = [r for r in results if r["status"] == "identical" and "builder_fallbacks" in r]
    if not told:
        return []
    joints = sum(r["joints"] for r in told)
    reasons = collections.Counter(b for r in told for b in r["builder_fallbacks"])
    lines = [
        f"Modules: remat's module builder built {joints - sum(reasons.values())} of the {joints} joints of "
        f"the {len(told)} identical configurations that recorded it"
        + ("." if not reasons else "; PyTorch's steps built the rest:"),
        "",
    ]
    lines += [f"- {n} joints: {why}" for why, n in reasons.most_common()]
    return lines + ([""] if reasons else [])


def write_table(results, variants, path, total):
    import torch
    import transformers

    by_variant = collections.defaultdict(collections.Counter)
    for r in results:
        by_variant[r["variant"]][_column(r)] += 1
    lines = [
        "# The models people train: transformers' architectures under remat.partition_fn",
        "",
        f"Written by `tools/model_sweep.py` (transformers {transformers.__version__}, PyTorch "
        f"{torch.__version__.split('+')[0]}; {len(results)} of {total} configurations"
        f"{'' if len(results) == total else ' so far, the rest not yet run'}). Each "
        "architecture is built tiny from its config in code (hidden size 64, 2 layers, vocabulary 256, no "
        "dropout, random weights), trained 3 SGD steps under `torch.compile` with `aot_autograd`, once with "
        "PyTorch's `min_cut_rematerialization_partition` and once with `remat.partition_fn`. *identical*: the "
        "same saved values, the same forward and backward code, bit-identical losses and parameters.",
        "",
        "## Totals",
        "",
        "Of the configurations PyTorch's own min-cut compiles (identical + differs + remat fails):",
        "",
        "| variant | PyTorch compiles | identical | share | differs | remat fails | PyTorch fails | not built | too big | n/a |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in variants:
        c = by_variant[name]
        compiled = sum(c[s] for s in COUNTED)
        share = f"{100 * c['identical'] / compiled:.1f}%" if compiled else "-"
        lines.append(
            f"| {name} | {compiled} | {c['identical']} | {share} | {c['differs']} | {c['remat-error']} | "
            f"{c['torch-error']} | {c['unbuildable']} | {c['crashed'] + c['timeout']} | {c['unsupported']} |"
        )
    lines += [
        "",
        "*PyTorch fails*: PyTorch's own min-cut or torch.compile fails on the model; *not built*: the library "
        "cannot build the architecture from a small config without downloads, or the tiny model fails without "
        "torch.compile too; *too big*: the config keeps sub-configs the tiny sizes do not reach (a multimodal "
        "model's full-size language model), so the worker ran out of memory or time; *n/a*: the model has no "
        "such variant (no sdpa attention, no gradient checkpointing).",
        "",
    ]
    lines += _builder_lines(results)
    by_kind = collections.defaultdict(dict)
    for r in results:
        by_kind[r["kind"]].setdefault(r["arch"], {})[r["variant"]] = r
    for kind, archs in by_kind.items():
        lines += [
            f"## {kind}",
            "",
            "| architecture | " + " | ".join(variants) + " | PyTorch min-cut s | remat s |",
            "|---|" + "---|" * len(variants) + "---|---|",
        ]
        for arch in sorted(archs):
            row = archs[arch]
            cells = [MARK[_column(row[v])] if v in row else "" for v in variants]
            t = sum(r.get("torch_seconds", 0) for r in row.values())
            m = sum(r.get("remat_seconds", 0) for r in row.values())
            lines.append(f"| {arch} | " + " | ".join(cells) + f" | {t:.2f} | {m:.2f} |")
        lines.append("")
    failures = [r for r in results if r["status"] not in ("identical", "unsupported")]
    if failures:
        lines += ["## Failures, each with its first line and whose it is", ""]
        lines += ["| architecture | kind | variant | whose | first line |", "|---|---|---|---|---|"]
        whose = {
            "differs": "remat's",
            "remat-error": "remat's",
            "unbuildable": "the tiny config's",
            "crashed": "the tiny config's",
            "timeout": "the tiny config's",
        }
        for r in sorted(failures, key=lambda r: (r["status"], r["kind"], r["arch"], r["variant"])):
            detail = r["detail"].replace("|", "\\|").replace("\n", " ")[:240]
            lines.append(
                f"| {r['arch']} | {r['kind']} | {r['variant']} | {whose.get(r['status'], 'PyTorch' + chr(39) + 's')} | {detail} |"
            )
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    if "--worker" in sys.argv:
        return worker()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default=",".join(corpus.KINDS), help="comma-separated: " + ", ".join(corpus.KINDS))
    parser.add_argument("--variants", default="plain,checkpointed", help="comma-separated: " + ", ".join(VARIANTS))
    parser.add_argument("--archs", default=None, help="only these model types (comma-separated)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300, help="seconds one configuration may take")
    parser.add_argument("--memory", type=float, default=6, help="GiB a worker may hold")
    parser.add_argument("-o", "--output", default=os.path.join(HERE, "..", "docs", "models.md"))
    parser.add_argument("--results", default=None, help="also write every result as JSON lines here")
    parser.add_argument("--resume", default=None, help="a --results file of an earlier sweep: run only what it lacks")
    parser.add_argument("--table-only", action="store_true", help="with --resume: write the table of what it holds")
    args = parser.parse_args()
    variants = args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            parser.error(f"unknown variant {v!r}: {', '.join(VARIANTS)}")
    per_kind = []
    for kind in args.kinds.split(","):
        archs = corpus.architectures(kind)
        if args.archs:
            archs = [a for a in archs if a in args.archs.split(",")]
        per_kind.append([(arch, kind, v) for arch in archs for v in variants])
    # Kinds interleaved: a sweep stopped early has covered every kind.
    tasks = [t for group in itertools.zip_longest(*per_kind) for t in group if t is not None]
    results = []
    if args.resume:
        with open(args.resume) as f:
            results = [json.loads(line) for line in f if line.strip()]
        done = {(r["arch"], r["kind"], r["variant"]) for r in results}
        tasks = [t for t in tasks if t not in done]
    total = len(tasks) + len(results)
    if args.table_only:
        tasks = []
    print(f"sweep: {len(tasks)} configurations on {args.jobs} workers ({len(results)} done before)", flush=True)
    out = open(args.resume or args.results, "a") if (args.resume or args.results) else None

    def on_result(r):
        results.append(r)
        if out:
            out.write(json.dumps(r) + "\n")
            out.flush()
        if len(results) % 20 == 0:  # the table so far: a sweep stopped early still leaves one
            write_table(results, variants, args.output, total)
        print(
            f"[{len(results)}/{total}] {r['kind']} {r['arch']} ({r['variant']}): {r['status']}"
            + (f": {r['detail'][:160]}" if r["status"] not in ("identical",) and r.get("detail") else ""),
            flush=True,
        )

    by_key = {(r["arch"], r["kind"], r["variant"]): r for r in results}
    to_run = []
    for arch, kind, name in tasks:
        twin = by_key.get((arch, kind, BUDGET_TWIN[name]))
        if twin and twin["status"] in CARRIED:
            on_result(
                dict(
                    twin,
                    variant=name,
                    detail=f"as in {twin['variant']}: {twin['detail']}",
                    torch_seconds=0.0,
                    remat_seconds=0.0,
                )
            )
        else:
            to_run.append((arch, kind, name))
    sweep(to_run, args.jobs, args.timeout, int(args.memory * 2**30), on_result)
    write_table(results, variants, args.output, total)
    counted = [r for r in results if r["status"] in COUNTED]
    identical = sum(r["status"] == "identical" for r in counted)
    print(f"sweep: {identical} of {len(counted)} configurations PyTorch's min-cut compiles are identical under remat")
    print(f"sweep: wrote {args.output}")
    return 0 if identical == len(counted) else 1


if __name__ == "__main__":
    sys.exit(main())
