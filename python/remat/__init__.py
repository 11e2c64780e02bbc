"""remat from Python: export torch.fx graphs to fxgraph-json (remat.export)."""
from remat.export import ExportError, export, graph_object

__all__ = ["export", "graph_object", "ExportError"]
