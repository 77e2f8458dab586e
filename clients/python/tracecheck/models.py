"""Request and response shapes named as the SDK names them."""


class EvaluatorSpecRequest:
    def __init__(self, description, requires_scenario_input=False, requires_scenario_result=False, output_data_type="bool", language="python"):
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
