"""remat.print_readable: torch.fx's GraphModule.print_readable, by remat's C++ printer."""
from remat.export import export

__all__ = ["print_readable", "default_style"]


def default_style():
    """The printing rules of the installed PyTorch: "torch-1.13" before 2.0, else "current"."""
    import torch

    major = int(torch.__version__.split(".")[0])
    return "torch-1.13" if major < 2 else "current"


def print_readable(gm, print_output=True, *, include_stride=False, include_device=False, colored=False,
                   expanded_def=False, style=None):
    """The text gm.print_readable() gives, with recompute tags where node.meta has them.

    style: "torch-1.13" or "current" (default: the installed PyTorch's). Prints it when
    print_output is true and returns it, as torch.fx does.
    """
    from remat import _core

    text = _core.print_readable(export(gm, indent=None), style=style or default_style(),
                                include_stride=include_stride, include_device=include_device,
                                expanded_def=expanded_def, colored=colored)
    if print_output:
        print(text)
    return text
