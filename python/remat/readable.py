"""remat.print_readable: torch.fx's GraphModule.print_readable, by remat's C++ printer."""

from remat.export import export

__all__ = ["print_readable", "default_style", "style_for_version"]


def default_style():
    """The printing rules of the installed PyTorch, as an era name of `remat print --style`."""
    import torch

    return style_for_version(torch.__version__)


def style_for_version(version):
    """ "2.6.0+cu124" -> "torch-2.5-2.9": the era whose print_readable rules that release has."""
    parts = version.split("+")[0].split(".")
    major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    if major < 2:
        return "torch-1.13"
    if major == 2 and minor <= 1:
        return "torch-2.1"
    if major == 2 and minor <= 4:
        return "torch-2.4"
    if major == 2 and minor <= 9:
        return "torch-2.5-2.9"
    if major == 2 and minor == 10:
        return "torch-2.10"
    if major == 2 and minor <= 12:
        return "torch-2026"
    return "torch-2.13"


def print_readable(
    gm, print_output=True, *, include_stride=False, include_device=False, colored=False, expanded_def=False, style=None
):
    """The text gm.print_readable() gives, with recompute tags where node.meta has them.

    style: an era name of `remat print --style` (default: the installed PyTorch's). Prints it when
    print_output is true and returns it, as torch.fx does.
    """
    from remat import _core

    text = _core.print_readable(
        export(gm, indent=None),
        style=style or default_style(),
        include_stride=include_stride,
        include_device=include_device,
        expanded_def=expanded_def,
        colored=colored,
    )
    if print_output:
        print(text)
    return text
