"""remat from Python: export torch.fx graphs to fxgraph-json (remat.export; on the command line,
python3 -m remat export FILE.py:NAME)."""
from remat.export import ExportError, export, graph_object

__all__ = ["export", "graph_object", "ExportError"]
