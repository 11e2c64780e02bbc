"""Writes the crafted inputs of tests/security/ (each a file someone else could hand a remat user):
python3 tests/security/make_cases.py BUILD/remat. Deterministic; the files are committed, and
tests/cli/untrusted_files_test.cpp runs every case of cases.json on them. The large ones (deep
nesting, long lines) are made by the test itself, not stored."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
HEADER = "V1206 15:18:21.105000 1500233 torch/_dynamo/x.py:1] "
COMPILE = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def record(meta, payload=None, md5="0" * 32):
    line = HEADER + json.dumps(dict(meta, **({"has_payload": md5} if payload is not None else {})))
    if payload is not None:
        line += "\n" + "\n".join("\t" + p for p in payload.split("\n"))
    return line + "\n"


def without_derived_sizes(graph):
    """numel/nbytes would catch a bad shape on their own: the cases test the shape check."""
    for n in graph["nodes"]:
        meta = n.get("meta", {}).get("tensor_meta")
        if isinstance(meta, dict):
            meta.pop("numel", None)
            meta.pop("nbytes", None)
    return graph


def renamed(graph, old, new):
    """The graph with node `old` called `new` everywhere it is named."""

    def walk(x):
        if isinstance(x, dict):
            return {k: (new if k in ("name", "node") and v == old else walk(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [new if v == old else walk(v) for v in x]
        return x

    return walk(graph)


def main():
    remat = sys.argv[1]
    # Logs.
    climb = "../" * 8 + "remat-security-victim/PWNED"
    write(
        "artifact_name_climbs_out.log", record({"artifact": {"name": climb, "encoding": "json"}, **COMPILE}, '{"a": 1}')
    )
    write(
        "payload_name_climbs_out.log",
        record(
            {"artifact": {"name": "x", "encoding": "string"}, **COMPILE},
            "hello",
            md5="../" * 8 + "remat-security-victim/P2",
        ),
    )
    write("string_table_skips_ahead.log", HEADER + '{"str": ["b.py", 16777215]}\n')
    write("link_javascript.log", record({"link": {"name": "click", "url": "javascript:alert(1)"}, **COMPILE}))
    write(
        "byte_order_mark.log",
        "\ufeff" + record({"artifact": {"name": "first", "encoding": "string"}, **COMPILE}, "hello"),
    )
    write(
        "html_in_names.log",
        record(
            {"artifact": {"name": "<script>alert(1)</script>", "encoding": "string"}, **COMPILE},
            "<img src=x onerror=alert(1)>",
        ),
    )
    # Graphs.
    with open(os.path.join(DATA, "torch-1.13", "mlp_relu_joint.json")) as f:
        mlp = without_derived_sizes(json.load(f))

    def with_shape(shape, stride=None):
        g = json.loads(json.dumps(mlp))
        meta = g["nodes"][0]["meta"]["tensor_meta"]
        meta["shape"] = shape
        meta["stride"] = stride or [1] * len(shape)
        return json.dumps(g)

    write("negative_size.json", with_shape([-2, 32], [32, 1]))
    write("size_product_overflows.json", with_shape([2**31, 2**31], [2**31, 1]))
    write("more_than_2_40_elements.json", with_shape([2**40, 2**20], [2**20, 1]))
    write("inputs_beyond_memory.json", with_shape([2**20, 2**20], [2**20, 1]))
    write("negative_stride.json", with_shape([64, 32], [-32, 1]))
    g = json.loads(json.dumps(mlp))
    for n in g["nodes"]:
        if n["name"] == "relu":
            n["args"] = [{"node": "relu"}]
    write("node_uses_itself.json", json.dumps(g))
    with open(os.path.join(DATA, "torch-1.13", "layernorm_mlp_joint.json")) as f:
        g = json.load(f)
    for n in g["nodes"]:
        if n.get("target") == "aten.native_layer_norm.default":
            n["args"][1] = {"list": [7]}
            break
    write("layer_norm_shape_mismatch.json", json.dumps(g))
    # A checkpointed joint whose saved values carry names that would close policy.py's strings.
    joint = os.path.join(HERE, "_joint.json")
    subprocess.run(
        [
            remat,
            "trace",
            "--model",
            "mlp",
            "--checkpoint",
            "each-layer",
            "--policy",
            "save-matmuls",
            "--joint",
            "-o",
            joint,
        ],
        check=True,
        capture_output=True,
    )
    with open(joint) as f:
        g = json.load(f)
    os.remove(joint)
    g = renamed(g, "addmm", 'getitem_10"""+__import__("os").system("touch PWNED")+"""')
    g = renamed(g, "addmm_1", "a'b\\\\\n\tc\u00e9\u2028\x00end\\")
    write("policy_names_with_quotes.json", json.dumps(g))


if __name__ == "__main__":
    main()
