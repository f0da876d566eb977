"""The one exception a failing step raises (testcases.py and the checks it is made of)."""


class StepFailed(Exception):
    """A step's action could not be done or its check did not hold; the message is the reason."""
