"""The check classes as the Okareo SDK's okareo.checks defines them (the server's sandbox provides the same names)."""


class CheckOutputType:
    SCORE = "SCORE"
    PASS_FAIL = "PASS_FAIL"


class BaseCheck:
    @staticmethod
    def evaluate(*args, **kwargs):
        raise NotImplementedError("a check defines evaluate")


class CodeBasedCheck(BaseCheck):
    """Subclass it in a file of its own, as class Check(CodeBasedCheck); the file is what is uploaded.
    It runs on every row unless it sets requires_scenario_input / requires_scenario_result = True."""

    requires_scenario_input = False
    requires_scenario_result = False


class ModelBasedCheck(BaseCheck):
    def __init__(self, prompt_template, check_type=CheckOutputType.SCORE):
        self.prompt_template = prompt_template
        self.check_type = check_type


class CheckResponse:
    def __init__(self, score, explanation=""):
        self.score = score
        self.explanation = explanation
