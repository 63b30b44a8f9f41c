"""Idiom: cuda.tile.tune.exhaustive_search becomes @triton.autotune with a META grid.

TileGym's pattern: a list of configs, a grid and an argument list computed from each config. The
translation autotunes the kernel with one triton.Config per config (the tile size T is META) and
a grid `lambda META: ...` taken from the config META belongs to.
"""
from types import SimpleNamespace

import torch

import cuda.tile as ct
from cuda.tile.tune import exhaustive_search

ConstInt = ct.Constant[int]


@ct.kernel
def scale(x, y, c, T: ConstInt):
    # one T-wide tile per block
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * c)


def search(x, y, per_config_scalar):
    n = x.shape[0]
    configs = [SimpleNamespace(T=16), SimpleNamespace(T=32), SimpleNamespace(T=64)]
    return exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (ct.cdiv(n, cfg.T),), scale,
                             lambda cfg: (x, y, cfg.T / 16 if per_config_scalar else 3.0, cfg.T), quiet=True)
