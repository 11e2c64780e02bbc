"""torch.fx's own printer as the oracle for remat's: every graph a Python test makes is printed
both ways and must match byte for byte."""

import contextlib
import difflib
import io

import remat


def torch_print(gm):
    """What gm.print_readable() prints (1.13 prints and returns None; current also returns it)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        gm.print_readable()
    return buf.getvalue()


def assert_prints_like_torch(gm, what="graph"):
    """export -> remat's C++ reader -> remat's C++ printer == torch.fx's printer."""
    want = torch_print(gm)
    got = remat.print_readable(gm, print_output=False) + "\n"
    assert got == want, f"{what}:\n" + "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True)))
