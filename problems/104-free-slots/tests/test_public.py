"""Exercise 104, public tests: one case for each lesson of the hidden checks (what "Run" runs).

Your operator is reached only through torch.ops.ex104.free_slots (see probes.py for how).
"""

import pytest

from judge.report.feedback import msg


def test_op_registered_under_ex104(probe, hints):
    assert probe("op_exists", hint=hints["op_exists"]), msg(
        '没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 "ex104::free_slots"',
        'torch.ops.ex104.free_slots not found: the custom_op must be named "ex104::free_slots"',
    )


def test_schema_is_functional(probe, hints, check_schema):
    check_schema(probe("schema", hint=hints["schema"]))


@pytest.mark.parametrize(
    "seed,n,p_used",
    [(1, 16, 0.5), (2, 6, 1.0), (3, 0, 0.5), (9, 4096, 0.5)],
    ids=["random-16", "all-used", "empty", "random-4096"],
)
@pytest.mark.weight(0.5)
def test_eager_finds_free_slots(probe, hints, make_used, check_eager, seed, n, p_used):
    used = make_used(seed, n, p_used)
    check_eager(probe("eager", used, hint=hints["eager"]), used)


def test_fake_output_length_is_unbacked_symint(probe, hints, make_used, check_unbacked):
    obs = probe("fake_with_shape_env", make_used(4, 12), hint=hints["fake_with_shape_env"])
    check_unbacked(obs, ("FakeTensorMode(shape_env=ShapeEnv()) 下", "under FakeTensorMode(shape_env=ShapeEnv())"))


def test_fake_output_stays_on_the_device_of_used(probe, hints, check_unbacked):
    obs = probe("fake_meta_with_shape_env", 12, hint=hints["fake_meta"])
    check_unbacked(
        obs["out"],
        (
            "FakeTensorMode(shape_env=ShapeEnv()) 下、used 在 meta 设备上时",
            "under FakeTensorMode(shape_env=ShapeEnv()) with used on meta",
        ),
        device="meta",
    )


@pytest.mark.weight(24)
def test_fake_without_shape_env_reports_data_dependent_size(probe, hints, make_used, check_data_dependent_raise):
    check_data_dependent_raise(probe("fake_without_shape_env", make_used(8, 10), hint=hints["fake_without_shape_env"]))


def test_meta_device_gives_no_made_up_length(probe, hints, made_up_on_meta):
    assert probe("meta", 8, hint=hints["meta"])["raised"] is not None, made_up_on_meta


def test_opcheck(probe, hints, make_used, check_opcheck):
    used = make_used(5, 12)
    check_opcheck(probe("run_opcheck", used, hint=hints["opcheck"]), used)


@pytest.mark.weight(24)
def test_compile_fullgraph_aot_eager(probe, hints, make_used, make_values, check_compiled):
    # Every count of free slots from 0 to 4096 can occur: none free, some free, and all 4096 free.
    shapes = [(6, 10, 0.5), (7, 13, 0.5), (10, 5, 1.0), (11, 4096, 0.0)]
    cases = [(make_used(seed, n, p), make_values(seed, n)) for seed, n, p in shapes]
    check_compiled(cases, probe("compiled", cases, hint=hints["compiled"]))
