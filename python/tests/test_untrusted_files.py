"""Generated Python holds data, never code (docs/security.md): `remat policy` on a joint graph whose
node names hold triple quotes, quotes, backslashes, newlines, NUL and non-ASCII, and from a file
named that way, writes a policy.py that parses, whose statements are exactly the kinds a policy
has, and whose REGIONS table holds those names as plain strings. The file is parsed, never run."""

import ast
import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
REMAT = os.environ.get("REMAT_EXE", os.path.join(ROOT, "build", "remat"))
CRAFTED = os.path.join(ROOT, "tests", "security", "policy_names_with_quotes.json")

# A policy module: its docstring, three imports, three assignments of constants (MUST_SAVE and
# PREFER_RECOMPUTE, REGIONS, FUNCTIONAL_FORMS), the counter, and its four functions.
EXPECTED = [
    "Expr",
    "Import",
    "Import",
    "Import",
    "ImportFrom",
    "Assign",
    "Assign",
    "Assign",
    "Assign",
    "FunctionDef",
    "FunctionDef",
    "FunctionDef",  # _outside_regions
    "FunctionDef",
    "Assign",  # MISCOUNTED = []
    "FunctionDef",  # _on_numbers_only
    "FunctionDef",
]
FILE_NAMES = ['joint"""+__import__("os").system("touch PWNED")+""".json', "joint\\\n'x'.json", "jöint\u2028.json"]


def node_names(path):
    with open(path) as f:
        return {n["name"] for n in json.load(f)["nodes"]}


@pytest.mark.skipif(not os.path.exists(REMAT), reason="build/remat is not built")
@pytest.mark.parametrize("file_name", FILE_NAMES)
def test_policy_py_holds_crafted_names_as_data(tmp_path, file_name):
    joint = tmp_path / file_name
    shutil.copyfile(CRAFTED, joint)
    out = tmp_path / "policy.py"
    run = subprocess.run(
        [REMAT, "policy", str(joint), "-o", str(out)], capture_output=True, text=True, errors="replace"
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert [type(s).__name__ for s in tree.body] == EXPECTED
    docstring = ast.get_docstring(tree)
    assert "region" in docstring and file_name in docstring  # the name as text, escaped
    assignments = {
        t.id: s.value for s in tree.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)
    }
    regions = ast.literal_eval(assignments["REGIONS"])  # constants only, or this raises
    saved = {v for region in regions for values in region["save"].values() for v in values}
    crafted = {n for n in node_names(CRAFTED) if '"""' in n or "\\" in n}
    assert len(crafted) == 2 and crafted <= saved
    assert not (tmp_path / "PWNED").exists()
    # Every function is the policy's own: no call outside them at module level.
    for s in tree.body:
        if not isinstance(s, ast.FunctionDef):
            assert not any(isinstance(n, ast.Call) for n in ast.walk(s)), ast.dump(s)[:200]
