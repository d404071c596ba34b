"""pearl.training.batches.BatchPlan: how many steps a run takes, and the warning when a budget is cut."""
import warnings

import pytest

from pearl.training.batches import BatchPlan


def test_steps_are_capped_at_the_epochs_with_a_warning():
    plan = BatchPlan(100, 32, seed=0, epochs=2)  # 3 full batches a pass, 2 passes: 6 steps
    assert plan.total_steps == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning within the plan
        assert plan.steps(None) == 6 and plan.steps(4) == 4 and plan.steps(6) == 6
    with pytest.warns(UserWarning, match="steps=10 is more than 2 epoch.*stops at 6 steps; raise epochs"):
        assert plan.steps(10) == 6
