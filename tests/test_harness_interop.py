"""Host interop and environment helpers that can be checked on a CPU."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import ROOT, import_harness  # noqa: E402

import_harness()
import torch  # noqa: E402

from translator.harness import interop  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402


class DLPackOnly:
    """An array that only speaks DLPack (like a cupy array on the host)."""
    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, *args, **kwargs):
        return self._arr.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_foreign_arrays_become_tensors_sharing_memory():
    a = np.arange(6, dtype=np.float32)
    t = interop.as_tensor(a)
    assert isinstance(t, torch.Tensor) and t.tolist() == a.tolist()
    t[0] = 42
    assert a[0] == 42                                      # shared, not copied
    d = interop.as_tensor(DLPackOnly(np.ones(3, dtype=np.int16)))
    assert d.dtype == torch.int16 and d.tolist() == [1, 1, 1]
    nested = interop.to_torch((a, [DLPackOnly(a)], None, 3))
    assert isinstance(nested[0], torch.Tensor) and isinstance(nested[1][0], torch.Tensor)
    assert nested[2] is None and nested[3] == 3
    assert interop.is_foreign_array(a) and not interop.is_foreign_array(t)


def test_entry_returning_numpy_is_compared():
    from translator.harness.runner import run_side
    assert run_side(lambda: np.zeros(2), (), "cpu")[0][0] == "out"


def test_device_properties_and_versions_on_cpu():
    props = interop.device_properties("cpu")
    assert props["name"].startswith("CPU") and props["sm_count"] is None
    v = interop.versions()
    assert v["torch"] and "triton" in v and "cuda.tile" in v


def test_clone_keeps_views_strides_and_aliasing():
    base = torch.arange(40.0).reshape(5, 8)
    view = base[1:, 3:7]                                   # offset + non-contiguous
    a, b = clone_args((view, base))
    assert a.stride() == view.stride() and a.storage_offset() == view.storage_offset()
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()      # aliasing kept
    assert a.untyped_storage().data_ptr() != base.untyped_storage().data_ptr()   # but a copy
    a.zero_()
    assert base.sum() > 0 and b[1, 3] == 0


def test_as_stream_needs_cuda():
    if torch.cuda.is_available():
        pytest.skip("covered by the gpu test")
    with pytest.raises(Exception):
        interop.as_stream(1234)


def test_import_does_not_load_gpu_packages():
    # what `import translator.harness` adds on top of `import translator` (the lead's package)
    code = ("import sys, types; sys.path.insert(0, sys.argv[1])\n"
            "try:\n    import translator\n"
            "except ImportError:\n"
            "    [sys.modules.pop(n) for n in list(sys.modules) if n.startswith('translator')]\n"
            "    s = types.ModuleType('translator'); s.__path__ = [sys.argv[1] + '/translator']\n"
            "    sys.modules['translator'] = s\n"
            "before = set(sys.modules)\n"
            "import translator.harness, translator.harness.cli\n"
            "print(sorted(m for m in ('torch', 'triton', 'cuda.tile', 'cuda.core', 'cuda.bindings', 'numpy') "
            "if m in sys.modules and m not in before))")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
