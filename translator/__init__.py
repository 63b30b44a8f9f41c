"""cutile2triton: translate NVIDIA cuTile Python kernels to Triton.

Public API (stable):

    translate_source(text, filename="<string>", options=None) -> Result
    translate_file(path, options=None) -> Result

``Result.code`` is the Triton module text (``None`` when the input was refused),
``Result.diagnostics`` a list of :class:`translator.diagnostics.Diagnostic`,
``Result.kernels`` a per-kernel summary list, ``Result.ok`` is False when an error
was reported.
"""
from .api import Options, Result, KernelSummary, translate_file, translate_source

__all__ = ["Options", "Result", "KernelSummary", "translate_file", "translate_source", "__version__"]
__version__ = "0.1.0"
