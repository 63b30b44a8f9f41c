"""Kernel lowering: cuTile kernel and helper bodies -> Triton source lines."""
