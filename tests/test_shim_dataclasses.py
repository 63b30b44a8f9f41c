"""Dataclasses and enums in kernels run under the shim (cutile-python's test_dataclass and
test_enum): classes defined in a test function (bases first, their body's names captured), a
dataclass instance read from a closure, and cuTile's TileTypeError / TileValueError for the
dataclasses and enum constructions cuTile refuses (C2T218: the translation fails to compile with
cuTile's message, which ct.launch raises)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = '''
import dataclasses
import enum
from dataclasses import dataclass

import pytest
import torch
import cuda.tile as ct
from cuda.tile import TileTypeError, TileValueError


@dataclass(frozen=True)
class Pair:
    a: int
    b: int = 4


class Color(enum.Enum):
    RED = 1
    BLUE = 3


def _run(kernel, *args):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, args)


def test_local_dataclass_with_base_and_field_defaults():
    @dataclass(frozen=True)
    class Base:
        x: int
        w: int = 9

    @dataclass(frozen=True)
    class Derived(Base):
        y: int = 2

    @ct.kernel
    def kern(out):
        d = Derived(3, y=5)
        ct.scatter(out, 0, d.x)
        ct.scatter(out, 1, d.w)
        ct.scatter(out, 2, d.y)

    out = torch.zeros(3, dtype=torch.int32, device="cuda")
    _run(kern, out)
    assert out.tolist() == [3, 9, 5]


def test_dataclass_instance_from_a_closure():
    p = Pair(7)
    q = (Pair(1, 2), 6)

    @ct.kernel
    def kern(out):
        ct.scatter(out, 0, p.a + p.b)
        ct.scatter(out, 1, q[0].b * q[1])

    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    _run(kern, out)
    assert out.tolist() == [11, 12]


@dataclass
class Thawed:
    foo: int


@dataclass(frozen=True)
class Frozen:
    foo: int


class Plain(Frozen):
    pass


@dataclass(frozen=True)
class WithNew:
    foo: int

    def __new__(cls, *a):
        return object.__new__(cls)


@dataclass(frozen=True)
class InheritsNew(WithNew):
    bar: int = 1


@dataclass(frozen=True)
class Factory:
    foo: int
    bar: int = dataclasses.field(default_factory=lambda: 5)


@dataclass(frozen=True)
class NoInitField:
    foo: int
    bar: int = dataclasses.field(init=False)


@dataclass(frozen=True, init=False)
class NoInit:
    foo: int


@dataclass(frozen=True)
class OwnInit:
    foo: int

    def __init__(self):
        pass


@ct.kernel
def k_thawed(out):
    Thawed(2)


@ct.kernel
def k_plain(out):
    Plain(2)


@ct.kernel
def k_new(out):
    WithNew(2)


@ct.kernel
def k_inherits_new(out):
    InheritsNew(2)


@ct.kernel
def k_factory(out):
    Factory(2)


@ct.kernel
def k_no_init_field(out):
    NoInitField(2)


@ct.kernel
def k_no_init(out):
    NoInit(2)


@ct.kernel
def k_own_init(out):
    OwnInit()


@ct.kernel
def k_frozen(out):
    ct.scatter(out, 0, Frozen(2).foo)


@pytest.mark.parametrize("kernel,message", [
    (k_thawed, "Only frozen dataclasses are supported"),
    (k_plain, "Non-dataclass subclasses of a dataclass are not supported"),
    (k_new, "Dataclasses with custom __new__ are not supported"),
    (k_inherits_new, "Dataclasses with custom __new__ are not supported"),
    (k_factory, "Dataclasses with default_factory fields are not supported"),
    (k_no_init_field, "Dataclasses with init=False fields are not supported"),
    (k_no_init, "only supported for dataclasses with a default generated"),
    (k_own_init, "only supported for dataclasses with a default generated"),
    (k_frozen, None)])
def test_refused_dataclasses(kernel, message):
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    if message is None:         # (the frozen base of Plain: accepted)
        _run(kernel, out)
        assert out.tolist() == [2]
        return
    with pytest.raises(TileTypeError, match=message):
        _run(kernel, out)


def test_enum_from_a_constant_and_refused_constructions():
    @ct.kernel
    def made(out):
        if Color(3) == Color.BLUE:
            ct.scatter(out, 0, Color(1).value)

    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    _run(made, out)
    assert out.tolist() == [1]

    @ct.kernel
    def runtime(out):
        c = Color(ct.bid(0))
        ct.scatter(out, 0, 1)

    @ct.kernel
    def two(out):
        c = Color(1, 2)
        ct.scatter(out, 0, 1)

    @ct.kernel
    def invalid(out):
        c = Color(2)
        ct.scatter(out, 0, 1)

    @ct.kernel
    def ordered(out):
        if Color.RED < Color.BLUE:
            ct.scatter(out, 0, 1)

    with pytest.raises(TileTypeError, match="must be a constant"):
        _run(runtime, out)
    with pytest.raises(TileTypeError, match="exactly one positional argument"):
        _run(two, out)
    with pytest.raises(TileValueError, match="2 is not a valid Color"):
        _run(invalid, out)
    with pytest.raises(TileTypeError, match="not supported between"):
        _run(ordered, out)
'''


def test_dataclasses_and_enums_under_the_shim(tmp_path):
    p = tmp_path / "test_dc.py"
    p.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator.shim", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-o", "addopts=", str(p)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=600)
    assert r.returncode == 0 and "12 passed" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]
