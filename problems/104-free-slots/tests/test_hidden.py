"""Exercise 104, hidden tests: variants of the public cases (more lengths and occupancies, up to 4096).

Everything goes through torch.ops.ex104.free_slots inside the worker (see probes.py); every
expected value is computed here from the inputs. Inputs come from fixed seeds. Each case declares
what it checks with @pytest.mark.hint: that, not its inputs, is what a learner sees.
"""

import pytest

from judge.report.feedback import msg


@pytest.mark.hint("注册：算子名 ex104::free_slots", "registration: the operator name ex104::free_slots")
def test_op_registered_under_ex104(probe, hints):
    assert probe("op_exists", hint=hints["op_exists"]), msg(
        '没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 "ex104::free_slots"',
        'torch.ops.ex104.free_slots not found: the custom_op must be named "ex104::free_slots"',
    )


@pytest.mark.hint("schema：一个 Tensor 参数，不声明修改", "schema: one Tensor argument, nothing declared as written")
def test_schema_is_functional_with_one_tensor_argument(probe, hints, check_schema):
    check_schema(probe("schema", hint=hints["schema"]))


# ================================================================ eager

EAGER_CASES = [
    # seed, n, p_used
    pytest.param(
        101, 1, 0.0, id="one-free", marks=pytest.mark.hint("eager：只有一个槽位，空闲", "eager: a single slot, free")
    ),
    pytest.param(
        102, 1, 1.0, id="one-used", marks=pytest.mark.hint("eager：只有一个槽位，已占用", "eager: a single slot, taken")
    ),
    pytest.param(103, 7, 0.5, id="random-7", marks=pytest.mark.hint("eager：短输入", "eager: a short input")),
    pytest.param(
        104,
        64,
        0.3,
        id="random-64-mostly-free",
        marks=pytest.mark.hint("eager：大部分槽位空闲", "eager: most slots free"),
    ),
    pytest.param(
        105,
        1000,
        0.9,
        id="random-1000-mostly-used",
        marks=pytest.mark.hint("eager：大部分槽位已占用的长输入", "eager: a long input with most slots taken"),
    ),
    pytest.param(
        106, 0, 0.5, id="empty", marks=pytest.mark.hint("eager：空输入（长度 0）", "eager: an empty input (length 0)")
    ),
    pytest.param(107, 9, 0.0, id="all-free", marks=pytest.mark.hint("eager：全部空闲", "eager: every slot free")),
    pytest.param(108, 9, 1.0, id="all-used", marks=pytest.mark.hint("eager：全部占用", "eager: every slot taken")),
    pytest.param(
        109,
        257,
        0.5,
        id="random-257",
        marks=pytest.mark.hint("eager：长度不是 2 的幂", "eager: a length that is not a power of two"),
    ),
    pytest.param(
        110,
        4096,
        0.1,
        id="random-4096-mostly-free",
        marks=pytest.mark.hint("eager：最大长度，大部分空闲", "eager: the largest length, most slots free"),
    ),
    pytest.param(
        111,
        4096,
        0.0,
        id="all-free-4096",
        marks=pytest.mark.hint("eager：最大长度，全部空闲", "eager: the largest length, every slot free"),
    ),
    pytest.param(
        112,
        4096,
        0.6,
        id="random-4096",
        marks=pytest.mark.hint("eager：最大长度，随机占用", "eager: the largest length, random occupancy"),
    ),
]


@pytest.mark.parametrize("seed,n,p_used", EAGER_CASES)
@pytest.mark.weight(0.5)
def test_eager_finds_free_slots(probe, hints, make_used, check_eager, seed, n, p_used):
    used = make_used(seed, n, p_used)
    check_eager(probe("eager", used, hint=hints["eager"]), used)


# ================================================================ fake and meta


@pytest.mark.hint(
    "fake（带 ShapeEnv）：输出长度是新的 unbacked SymInt",
    "fake with a ShapeEnv: the output length is a fresh unbacked SymInt",
)
def test_fake_output_length_is_unbacked_symint(probe, hints, make_used, check_unbacked):
    obs = probe("fake_with_shape_env", make_used(201, 20), hint=hints["fake_with_shape_env"])
    check_unbacked(obs, ("FakeTensorMode(shape_env=ShapeEnv()) 下", "under FakeTensorMode(shape_env=ShapeEnv())"))


@pytest.mark.hint("fake：used 在 meta 设备上时，输出也在 meta 上", "fake: the output is on meta when used is")
def test_fake_output_stays_on_the_device_of_used(probe, hints, check_unbacked):
    obs = probe("fake_meta_with_shape_env", 20, hint=hints["fake_meta"])
    check_unbacked(
        obs["out"],
        (
            "FakeTensorMode(shape_env=ShapeEnv()) 下、used 在 meta 设备上时",
            "under FakeTensorMode(shape_env=ShapeEnv()) with used on meta",
        ),
        device="meta",
    )


@pytest.mark.hint(
    "fake（无 ShapeEnv）：由 free_slots 自己报告数据相关的大小",
    "fake without a ShapeEnv: free_slots itself reports a data-dependent size",
)
@pytest.mark.weight(24)
def test_fake_without_shape_env_reports_data_dependent_size(probe, hints, make_used, check_data_dependent_raise):
    check_data_dependent_raise(
        probe("fake_without_shape_env", make_used(202, 10), hint=hints["fake_without_shape_env"])
    )


@pytest.mark.hint("meta 设备：不编造长度", "meta device: no made-up length")
def test_meta_device_gives_no_made_up_length(probe, hints, made_up_on_meta):
    assert probe("meta", 16, hint=hints["meta"])["raised"] is not None, made_up_on_meta


@pytest.mark.hint("opcheck：更长的输入", "opcheck on a longer input")
def test_opcheck(probe, hints, make_used, check_opcheck):
    used = make_used(203, 20, 0.4)
    check_opcheck(probe("run_opcheck", used, hint=hints["opcheck"]), used)


# ================================================================ torch.compile

COMPILE_CASES = [
    # seed, n, p_used
    (301, 8, 0.5),
    (302, 8, 0.5),
    (303, 12, 1.0),  # no slot free: a fake whose min= is above 0 fails a runtime assertion here
    (304, 30, 0.3),
    (305, 30, 0.0),
    (306, 4096, 0.1),  # more than 1000 slots free
    (307, 4096, 0.0),  # all 4096 free: a fake whose max= is below 4096 fails a runtime assertion here
]


@pytest.mark.hint(
    "torch.compile：更多长度与占用情况，空闲槽位数从 0 到 4096",
    "torch.compile: more lengths and occupancies, from 0 to 4096 free slots",
)
@pytest.mark.weight(24)
def test_compile_fullgraph_aot_eager(probe, hints, make_used, make_values, check_compiled):
    cases = [(make_used(seed, n, p), make_values(seed, n)) for seed, n, p in COMPILE_CASES]
    check_compiled(cases, probe("compiled", cases, hint=hints["compiled"]))
