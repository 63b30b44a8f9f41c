"""cuda.tile names host code uses as values: ct.cdiv on the host, and the stand-ins of device
functions host code holds (kernels read them when they are translated).

Part of cutile2triton's launch runtime (translator/runtime/).
"""


def _c2t_host_cdiv(x, y):
    """ct.cdiv on the host: ceil(x / y), exactly as cuTile computes it (plain Python, no JIT call)."""
    return -((-x) // y)


class _C2TDeviceFunction:
    """A cuda.tile operation host code holds as a value (in a table kernels read when they are
    translated): it names the operation, and only kernel code can call it."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<cuda.tile function {self.name} (translated to Triton)>"

    def __call__(self, *args, **kwargs):
        # (cuTile's words, and its RuntimeError)
        raise RuntimeError(f"Device functions can only be called from device code. (ct.{self.name})")


_C2T_DEVICE_FUNCTIONS = {}


def _c2t_device_function(name):
    """The one stand-in of `ct.<name>` (host code compares them with `is`)."""
    return _C2T_DEVICE_FUNCTIONS.setdefault(name, _C2TDeviceFunction(name))
