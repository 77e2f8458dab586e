"""The models run_test evaluates, as okareo.model_under_test names them."""


class BaseModel:
    type = None

    def params(self):
        raise NotImplementedError


class _ChatModel(BaseModel):
    """A chat model the server calls through its OpenAI-compatible endpoint; {scenario_input} in a template is the row's input."""

    def __init__(self, model_id="gpt-4o-mini", temperature=0, system_prompt_template=None, user_prompt_template=None, dialog_template=None, tools=None):
        self.model_id = model_id
        self.temperature = temperature
        self.system_prompt_template = system_prompt_template
        self.user_prompt_template = user_prompt_template
        self.dialog_template = dialog_template
        self.tools = tools

    def params(self):
        fields = {
            "model_id": self.model_id, "temperature": self.temperature, "system_prompt_template": self.system_prompt_template,
            "user_prompt_template": self.user_prompt_template, "dialog_template": self.dialog_template, "tools": self.tools,
        }
        return {k: v for k, v in fields.items() if v is not None}


class OpenAIModel(_ChatModel):
    type = "openai"


class GenerationModel(_ChatModel):
    type = "generation"


class ModelInvocation:
    """What a CustomModel's invoke answers: the prediction (the output checks score), the input it saw, its raw response."""

    def __init__(self, model_prediction=None, model_input=None, model_output_metadata=None, tool_calls=None, error=None):
        self.model_prediction = model_prediction
        self.model_input = model_input
        self.model_output_metadata = model_output_metadata
        self.tool_calls = tool_calls
        self.error = error


class CustomModel(BaseModel):
    """Subclass it and define invoke(self, input_value): run_test calls it on each row's input, here in the client."""

    type = "custom"

    def __init__(self, name):
        self.name = name

    def invoke(self, input_value):
        raise NotImplementedError("a CustomModel defines invoke(input_value)")

    def params(self):
        return {"name": self.name}


def _prediction(result):
    """invoke may answer a ModelInvocation, a (prediction, metadata) tuple, or the prediction itself."""
    if isinstance(result, ModelInvocation):
        return result.model_prediction
    if isinstance(result, tuple) and len(result) > 0:
        return result[0]
    return result


class ModelUnderTest:
    """A registered model: run_test runs it over a scenario set; the server scores every row with the checks and stores the run."""

    def __init__(self, client, mut, model):
        self._client = client
        self.mut = mut
        self.mut_id = mut["id"]
        self.name = mut["name"]
        self._model = model

    def run_test(self, scenario, name, api_key=None, api_keys=None, metrics_kwargs=None, test_run_type="NL_GENERATION",
                 calculate_metrics=True, checks=None, project_id=None, tags=None, **_ignored):
        """api_key(s) are accepted for the SDK's sake: the server calls the model with its own configured key."""
        scenario_id = scenario if isinstance(scenario, str) else getattr(scenario, "scenario_id", None) or scenario["scenario_id"]
        body = {
            "name": name, "mut_id": self.mut_id, "scenario_id": str(scenario_id), "type": str(test_run_type),
            "calculate_metrics": bool(calculate_metrics), "checks": list(checks or []), "tags": list(tags or []),
        }
        if project_id is not None:
            body["project_id"] = str(project_id)
        if isinstance(self._model, CustomModel):
            points = self._client.get_scenario_data_points(str(scenario_id))
            body["model_results"] = {p.id: {"actual": _prediction(self._model.invoke(p.input)), "model_input": p.input} for p in points}
        return self._client._run_test(body)

    def get_test_run(self, test_run_id):
        return self._client.get_test_run(test_run_id)
