"""Exercise 104, hidden tests.

Everything goes through torch.ops.ex104.free_slots inside the worker (see probes.py); every
expected value is computed here from the inputs. Inputs come from fixed seeds.
"""

import pytest


def test_op_registered_under_ex104(probe):
    assert probe("op_exists", hint="查找算子时出错"), (
        "没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 \"ex104::free_slots\"")


def test_schema_is_functional_with_one_tensor_argument(probe, check_schema):
    check_schema(probe("schema", hint="读取 schema 时出错"))


# ================================================================ eager

EAGER_CASES = [
    # seed, n, p_used
    (101, 1, 0.0),
    (102, 1, 1.0),
    (103, 7, 0.5),
    (104, 64, 0.3),
    (105, 1000, 0.9),
    (106, 0, 0.5),
    (107, 9, 0.0),
    (108, 9, 1.0),
    (109, 257, 0.5),
    (110, 4096, 0.1),
    (111, 4096, 0.0),
    (112, 4096, 0.6),
]
EAGER_IDS = ["one-free", "one-used", "random-7", "random-64-mostly-free", "random-1000-mostly-used",
             "empty", "all-free", "all-used", "random-257", "random-4096-mostly-free", "all-free-4096",
             "random-4096"]


@pytest.mark.parametrize("case", EAGER_CASES, ids=EAGER_IDS)
def test_eager_finds_free_slots(probe, make_used, check_free, case):
    seed, n, p_used = case
    used = make_used(seed, n, p_used)
    obs = probe("eager", used, hint="eager 调用 free_slots 时出错")
    check_free(obs["out"], used, f"eager 调用（长度 {n}）")
    assert not obs["used_changed"], "free_slots 修改了输入 used：它只能读 used"


# ================================================================ fake and meta

def test_fake_output_length_is_unbacked_symint(probe, make_used, check_unbacked):
    used = make_used(201, 20)
    obs = probe("fake_with_shape_env", used,
                hint="在带 ShapeEnv 的 FakeTensorMode 下调用 free_slots 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    check_unbacked(obs, "FakeTensorMode(shape_env=ShapeEnv()) 下")


def test_fake_output_stays_on_the_device_of_used(probe, check_unbacked):
    obs = probe("fake_meta_with_shape_env", 20,
                hint="在带 ShapeEnv 的 FakeTensorMode 下、对 meta 设备上的 used 调用 free_slots 出错")
    assert obs["in_device"] == "meta", f"探针构造的输入在 {obs['in_device']} 上，应在 meta 上"
    check_unbacked(obs["out"], "FakeTensorMode(shape_env=ShapeEnv()) 下、used 在 meta 设备上时", device="meta")


def test_fake_without_shape_env_reports_data_dependent_size(probe, make_used, check_data_dependent_raise):
    obs = probe("fake_without_shape_env", make_used(202, 10), hint="在 FakeTensorMode 下调用 free_slots 出错")
    check_data_dependent_raise(obs)


def test_meta_device_gives_no_made_up_length(probe):
    obs = probe("meta", 16, hint="在 meta 设备上调用 free_slots 出错")
    assert obs["raised"] is not None, (
        "meta 设备上 free_slots 给出了一个具体长度的输出：meta 张量没有数据，也没有 ShapeEnv 来表示"
        "数据决定的大小；fake 实现用 new_dynamic_size() 时，这里会报错而不是编一个长度")


def test_opcheck(probe, make_used, check_opcheck):
    check_opcheck(probe("run_opcheck", make_used(203, 20, 0.4), hint="opcheck 出错"))


# ================================================================ torch.compile

COMPILE_CASES = [
    # seed, n, p_used
    (301, 8, 0.5),
    (302, 8, 0.5),
    (303, 12, 1.0),
    (304, 30, 0.3),
    (305, 30, 0.0),
    (306, 4096, 0.1),   # k > 1000: a fake whose max= is below n fails a runtime assertion here
]


def test_compile_fullgraph_aot_eager(probe, make_used, make_values, check_compiled):
    cases = [(make_used(seed, n, p), make_values(seed, n)) for seed, n, p in COMPILE_CASES]
    obs = probe("compiled", cases, hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 下调用 free_slots 出错")
    check_compiled(cases, obs)
