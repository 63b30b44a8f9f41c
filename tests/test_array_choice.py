"""Arrays chosen at run time (translator/lower/array_choice.py): a name bound to different arrays
by the branches of a run-time `if`, or rebound by a loop body, and the rank of a parameter used
only through such a name."""
import torch

from kernel_util import build, checked, codes, compile_sm90

IF_CHOICE = """
@ct.kernel
def put_one(left, right, which: int, T: ConstInt):
    if which > 0:
        dst = right
    else:
        dst = left
    ct.store(dst, index=(ct.bid(0),), tile=ct.full((T,), 7, dtype=left.dtype))

def run(left, right, which):
    ct.launch(torch.cuda.current_stream(), (left.shape[0] // 4,), put_one, (left, right, which, 4))
"""


def test_if_statement_chooses_the_array_to_store_to(tmp_path):
    mod = build(IF_CHOICE, tmp_path)
    for which in (0, 3):
        a, b = torch.zeros(8), torch.zeros(8)
        mod.run(a, b, which)
        assert (b if which else a).eq(7).all() and (a if which else b).eq(0).all(), which


ELIF_2D = """
@ct.kernel
def copy_from_chosen(p, q, r, out, k: int):
    # a 2-D source picked among three by the block and k (views of other strides)
    if ct.bid(0) == k:
        src = p
    elif ct.bid(0) > k:
        src = q
    else:
        src = r
    t = ct.load(src, index=(0, 0), shape=(2, 4))
    ct.store(out, index=(ct.bid(0), 0), tile=t)

def run(p, q, r, k):
    out = torch.zeros((6, 4))
    ct.launch(torch.cuda.current_stream(), (3,), copy_from_chosen, (p, q, r, out, k))
    return out
"""


def test_elif_chain_chooses_among_three_2d_arrays_of_other_strides(tmp_path):
    mod = build(ELIF_2D, tmp_path)
    p = torch.arange(8.0).reshape(2, 4)
    q = torch.arange(100.0, 116.0).reshape(4, 4).t()[:2]        # not contiguous
    r = torch.arange(50.0, 62.0).reshape(2, 6)[:, 1:5]
    for k in (0, 1, 2):
        out = mod.run(p, q, r, k)
        for b in range(3):
            want = p if b == k else q if b > k else r
            assert torch.equal(out[2 * b:2 * b + 2], want), (k, b)


LOOPS = """
@ct.kernel
def last_rebound(x, y, z, n: int, T: ConstInt):
    # for: the array after n iterations (x when n == 0); rebinding alternates y and z
    a = x
    for i in range(n):
        if i % 2 == 0:
            a = y
        else:
            a = z
    t = ct.load(a, index=(0,), shape=(T,))
    ct.store(a, index=(0,), tile=t + 1)

@ct.kernel
def while_rebound(x, y, n: int, T: ConstInt):
    a = x
    i = 0
    while i < n:
        ct.store(a, index=(0,), tile=ct.full((T,), i + 10, dtype=x.dtype))
        a = y
        i += 1
    ct.store(a, index=(1,), tile=ct.full((T,), 5, dtype=x.dtype))

@ct.kernel
def loop_in_if(x, y, n: int, T: ConstInt):
    a = x
    if n < 50:
        for i in range(n):
            a = y
    ct.store(a, index=(0,), tile=ct.full((T,), 9, dtype=x.dtype))

def run_for(x, y, z, n):
    ct.launch(torch.cuda.current_stream(), (1,), last_rebound, (x, y, z, n, 4))

def run_while(x, y, n):
    ct.launch(torch.cuda.current_stream(), (1,), while_rebound, (x, y, n, 4))

def run_in_if(x, y, n):
    ct.launch(torch.cuda.current_stream(), (1,), loop_in_if, (x, y, n, 4))
"""


def test_loops_carry_the_array_a_name_is_rebound_to(tmp_path):
    mod = build(LOOPS, tmp_path)
    for n, which in ((0, 0), (1, 1), (2, 2), (3, 1)):
        arrs = [torch.zeros(4), torch.zeros(4), torch.zeros(4)]
        mod.run_for(*arrs, n)
        for j, t in enumerate(arrs):
            assert t.eq(1 if j == which else 0).all(), (n, j, t)
    for n in (0, 1, 3):
        x, y = torch.zeros(8), torch.zeros(8)
        mod.run_while(x, y, n)
        # x: 10 from the first iteration (if any); the last store goes to x's or y's second tile
        assert x[:4].eq(10 if n else 0).all() and y[:4].eq(n - 1 + 10 if n > 1 else 0).all(), (n, x, y)
        assert (y if n else x)[4:].eq(5).all() and (x if n else y)[4:].eq(0).all(), n
    for n, to_y in ((0, False), (2, True), (60, False)):
        x, y = torch.zeros(4), torch.zeros(4)
        mod.run_in_if(x, y, n)
        assert (y if to_y else x).eq(9).all() and (x if to_y else y).eq(0).all(), n


def test_chosen_and_carried_arrays_pass_the_sm90_front_end():
    checked(IF_CHOICE)
    checked(ELIF_2D)
    checked(LOOPS)


def test_carried_array_compiles_with_unit_extents_and_strides(tmp_path):
    # Triton specializes integer arguments equal to 1 as constexprs: the carried parts must still
    # be one type through the loop (an extent 1 array and a longer one)
    out = compile_sm90(LOOPS, "run_for", "(torch.zeros(1), torch.zeros(4), torch.zeros(8), 3)", tmp_path)
    assert "OK last_rebound" in out, out


def test_plain_alias_gives_its_parameter_a_rank(tmp_path):
    mod = build("""
    @ct.kernel
    def via_alias(src, dst, T: ConstInt):
        s, d = src, dst
        ct.store(d, index=(0, 0), tile=ct.load(s, index=(0, 0), shape=(T, T)) * 2)

    def run(src, dst):
        ct.launch(torch.cuda.current_stream(), (1,), via_alias, (src, dst, 2))
    """, tmp_path)
    src, dst = torch.arange(4.0).reshape(2, 2), torch.zeros(2, 2)
    mod.run(src, dst)
    assert torch.equal(dst, src * 2)


def test_a_loop_rebinding_an_array_name_to_another_rank_is_refused():
    assert "C2T101" in codes("""
    @ct.kernel
    def mixed(x, m, n: int, T: ConstInt):
        a = x
        for i in range(n):
            a = m
        ct.store(a, index=(0,), tile=ct.full((T,), 1, dtype=x.dtype))
        ct.store(m, index=(0, 0), tile=ct.full((T, T), 1, dtype=x.dtype))
    """)


def test_a_condition_the_branches_change_is_refused():
    # the choice would read the condition after the branches rebound its name
    assert "C2T101" in codes("""
    @ct.kernel
    def flip(x, y, c: int, T: ConstInt):
        if c > 0:
            a = x
            c = 0
        else:
            a = y
        ct.store(a, index=(0,), tile=ct.full((T,), 1, dtype=x.dtype))
    """)
