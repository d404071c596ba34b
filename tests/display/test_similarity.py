"""The similarity helpers that need no widget."""
import math

import numpy as np
from pearl.display.similarity import mean_offdiagonal


def test_mean_offdiagonal_by_hand_and_undefined_for_one_phrase():
    cosine = np.array([[1.0, 0.2, 0.5], [0.2, 1.0, -0.1], [0.5, -0.1, 1.0]])
    assert math.isclose(mean_offdiagonal(cosine), (0.2 + 0.5 - 0.1) / 3)
    assert math.isnan(mean_offdiagonal(np.array([[1.0]])))
