"""The training methods' display names (pearl.method_names): one name a method, kept."""
import pytest
from pearl import method_names


def test_a_method_keeps_its_one_name():
    method_names.add("pause", "PAUSE")  # the name it has: nothing changes
    with pytest.raises(ValueError, match=r"'pause' is shown as 'PAUSE' already .*register it with that label"):
        method_names.add("pause", "Pause")
    assert method_names.label("pause") == "PAUSE"
