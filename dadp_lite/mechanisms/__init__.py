"""Traditional and DP disclosure-avoidance mechanisms.

Every mechanism is a pure function of (input, parameters, rng, reps) returning all
repetitions at once (first axis = repetitions).
"""

__all__: list[str] = []
