"""Exercise 104, public tests: a smaller version of the hidden checks (what "Run" runs).

Your operator is reached only through torch.ops.ex104.free_slots (see probes.py for how).
"""

import pytest


def test_op_registered_under_ex104(probe):
    assert probe("op_exists", hint="查找算子时出错"), (
        "没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 \"ex104::free_slots\"")


def test_schema_is_functional(probe, check_schema):
    check_schema(probe("schema", hint="读取 schema 时出错"))


@pytest.mark.parametrize("seed,n,p_used", [(1, 16, 0.5), (2, 6, 1.0), (3, 0, 0.5)],
                         ids=["random-16", "all-used", "empty"])
def test_eager_finds_free_slots(probe, make_used, check_free, seed, n, p_used):
    used = make_used(seed, n, p_used)
    obs = probe("eager", used, hint="eager 调用 free_slots 时出错")
    check_free(obs["out"], used, f"eager 调用（长度 {n}）")


def test_fake_output_length_is_unbacked_symint(probe, make_used, check_unbacked):
    used = make_used(4, 12)
    obs = probe("fake_with_shape_env", used,
                hint="在带 ShapeEnv 的 FakeTensorMode 下调用 free_slots 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    check_unbacked(obs, "FakeTensorMode(shape_env=ShapeEnv()) 下")


def test_fake_without_shape_env_reports_data_dependent_size(probe, make_used, check_data_dependent_raise):
    obs = probe("fake_without_shape_env", make_used(8, 10), hint="在 FakeTensorMode 下调用 free_slots 出错")
    check_data_dependent_raise(obs)


def test_meta_device_gives_no_made_up_length(probe):
    obs = probe("meta", 8, hint="在 meta 设备上调用 free_slots 出错")
    assert obs["raised"] is not None, (
        "meta 设备上 free_slots 给出了一个具体长度的输出：meta 张量没有数据，也没有 ShapeEnv 来表示"
        "数据决定的大小；fake 实现用 new_dynamic_size() 时，这里会报错而不是编一个长度")


def test_opcheck(probe, make_used, check_opcheck):
    check_opcheck(probe("run_opcheck", make_used(5, 12), hint="opcheck 出错"))


def test_compile_fullgraph_aot_eager(probe, make_used, make_values, check_compiled):
    cases = [(make_used(6, 10), make_values(6, 10)), (make_used(7, 13), make_values(7, 13))]
    obs = probe("compiled", cases, hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 下调用 free_slots 出错")
    check_compiled(cases, obs)
