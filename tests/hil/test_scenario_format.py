"""The scenario loader: whatever a file holds, either a scenario or a ScenarioError naming each
problem (never another exception), and every problem of a step carries the step's number."""
import tomli_w
from hypothesis import given, settings, strategies as st

from firmware_host.hil.scenario import ACTIONS, EXPECT_KEYS, ScenarioError, parse_scenario

words = st.one_of(st.sampled_from([*ACTIONS, "13", "bar", "off:white", "white", "black", "500", "x", "-1", "25"]),
                  st.text(alphabet="abc19:-", min_size=1, max_size=5))
actions = st.lists(words, min_size=1, max_size=4).map(" ".join)
values = st.one_of(st.integers(-2, 30), st.text(max_size=8), st.booleans(), st.lists(st.integers(0, 7), max_size=3),
                   st.dictionaries(st.sampled_from(["13", "dice:1", "25", "kind"]), st.text(max_size=12), max_size=2))
steps = st.fixed_dictionaries({}, optional={
    "do": st.one_of(actions, st.lists(actions, max_size=3), st.integers()),
    "expect": st.dictionaries(st.sampled_from([*EXPECT_KEYS, "colour"]), values, max_size=3),
    "settle": st.one_of(st.booleans(), st.integers()),
})


@settings(max_examples=150, deadline=None)
@given(st.lists(steps, max_size=4), st.one_of(st.none(), st.lists(st.integers(0, 7), max_size=4)))
def test_any_scenario_loads_or_is_refused_with_each_step_problem_numbered(raw_steps, dice):
    document = {"match": {"sequence": "portes", "target": 1}, "step": raw_steps}
    if dice is not None:
        document["dice"] = {"values": dice}
    try:
        scenario = parse_scenario(tomli_w.dumps(document))
    except ScenarioError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.startswith(("step ", "[dice]", "no [[step]]")), problem
        return
    assert [step.number for step in scenario.steps] == list(range(1, len(raw_steps) + 1))
    for step, raw in zip(scenario.steps, raw_steps):
        written = raw.get("do", [])
        assert [action.text for action in step.actions] == \
            [" ".join(line.split()) for line in ([written] if isinstance(written, str) else written)]
