"""Request and response shapes named as the SDK names them."""
from enum import Enum



class EvaluatorSpecRequest:
    def __init__(self, description, requires_scenario_input=False, requires_scenario_result=False, output_data_type="bool", language="python", name=None, project_id=None):
        self.name = name
        self.project_id = project_id
        self.description = description
        self.requires_scenario_input = requires_scenario_input
        self.requires_scenario_result = requires_scenario_result
        self.output_data_type = output_data_type
        self.language = language

    def to_dict(self):
        return dict(vars(self))


class Record:
    """A response with its fields as attributes (check.name, spec.generated_code) and as a dict (to_dict())."""

    def __init__(self, fields):
        self._fields = dict(fields)
        for key, value in self._fields.items():
            setattr(self, key, value)

    def to_dict(self):
        return dict(self._fields)

    def __repr__(self):
        return f"Record({self._fields!r})"


class SeedData:
    """A scenario row: its input and its expected result (text or JSON), as okareo_api_client.models.SeedData."""

    def __init__(self, input_, result):
        self.input_ = input_
        self.result = result

    def to_dict(self):
        return {"input": self.input_, "result": self.result}


class ScenarioSetCreate:
    """create_scenario_set's request: a name and the seed rows."""

    def __init__(self, name, seed_data, project_id=None, **_ignored):
        self.name = name
        self.seed_data = list(seed_data)
        self.project_id = project_id

    def to_dict(self):
        rows = [r.to_dict() if hasattr(r, "to_dict") else {"input": r["input"], "result": r["result"]} for r in self.seed_data]
        body = {"name": self.name, "seed_data": rows}
        if self.project_id is not None:
            body["project_id"] = str(self.project_id)
        return body


class TestRunType(str, Enum):
    """The SDK's TestRunType; checks run on NL_GENERATION runs."""

    __test__ = False  # not a pytest test class, despite the name

    AGENT_EVAL = "AGENT_EVAL"
    INFORMATION_RETRIEVAL = "INFORMATION_RETRIEVAL"
    INVARIANT = "invariant"
    MULTI_CLASS_CLASSIFICATION = "MULTI_CLASS_CLASSIFICATION"
    MULTI_TURN = "MULTI_TURN"
    NL_GENERATION = "NL_GENERATION"

    def __str__(self):
        return str(self.value)
