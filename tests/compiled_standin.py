"""Stand-ins for the GPU side of a launch, for tests of the launcher's recompiles (register spills,
programs per SM) without a GPU: the compiled kernel JITFunction.run returns, and the driver's
device and stream queries."""
import types

import triton


class StandInCompiled:
    """A compiled kernel as ptxas left it (`n_regs`, `n_spills`); its C launcher (`run`) logs
    ("fast", variant)."""

    def __init__(self, log, variant, spills=0, regs=0):
        self.log, self.variant, self.n_spills, self.n_regs = log, variant, spills, regs
        self.function, self.packed_metadata = "fn", "meta"

    def _init_handles(self):
        pass

    def launch_metadata(self, grid, stream, *args):
        return None

    def run(self, *a):
        self.log.append(("fast", self.variant))


def stand_in_driver(monkeypatch, stream=1):
    """Device 0 and a fixed stream for the launcher's driver queries."""
    monkeypatch.setattr(triton.runtime.driver, "_active", types.SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: stream))
