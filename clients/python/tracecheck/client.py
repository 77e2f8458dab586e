"""The client: one HTTP call per SDK call, through urllib (no dependencies)."""
import inspect
import json
import re
import urllib.error
import urllib.parse
import urllib.request

from .checks import CodeBasedCheck, ModelBasedCheck
from .model_under_test import BaseModel, ModelUnderTest
from .models import EvaluatorSpecRequest, Record, ScenarioSetCreate, SeedData

_DATA_TYPES = {bool: "bool", int: "int", float: "float", "bool": "bool", "int": "int", "float": "float"}


class TracecheckError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def _data_type(value):
    if value in _DATA_TYPES:
        return _DATA_TYPES[value]
    raise ValueError("output_data_type must be bool, int or float")


def _data_type_of_annotation(returns):
    """evaluate's return annotation: bool, int or float as written; a Union with a number in it
    (Union[bool, int, float]) is a score, so a numeric return works; anything else is pass/fail."""
    if returns in _DATA_TYPES:
        return _DATA_TYPES[returns]
    text = returns if isinstance(returns, str) else repr(returns)
    names = set(re.findall(r"[A-Za-z_]+", text))
    if "int" in names or "float" in names:
        return "float"
    return "bool"


def _code_check_fields(check):
    """What uploading a CodeBasedCheck sends: its file's source; what it needs comes from its
    requires_scenario_input / requires_scenario_result (default False), never from evaluate's
    parameters, so it runs on every row the SDK would run it on."""
    cls = check if isinstance(check, type) else type(check)
    path = inspect.getsourcefile(cls)
    if path is None:
        raise ValueError("a CodeBasedCheck is uploaded from its source file; define it in a .py file")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    returns = inspect.signature(cls.evaluate).return_annotation
    if isinstance(returns, str):
        returns = returns.strip()
    return {
        "code": source,
        "output_data_type": _data_type_of_annotation(returns),
        "requires_scenario_input": bool(getattr(check, "requires_scenario_input", False)),
        "requires_scenario_result": bool(getattr(check, "requires_scenario_result", False)),
    }


def _origin(url):
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname, parts.port or default


class _KeepKeyOnOrigin(urllib.request.HTTPRedirectHandler):
    """Follows redirects, but a redirect to another scheme, host or port never carries the key."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            for name in [k for k in new.headers if k.lower() == "authorization"]:
                del new.headers[name]
            new.unredirected_hdrs.pop("Authorization", None)
        return new


_OPENER = urllib.request.build_opener(_KeepKeyOnOrigin())


class Tracecheck:
    """Okareo(api_key) becomes Tracecheck(api_key, base_url=...): the calls are the same."""

    def __init__(self, api_key=None, base_url="http://127.0.0.1:8080", timeout=60):
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with _OPENER.open(req, timeout=self.timeout) as res:
                return json.loads(res.read().decode("utf-8") or "null")
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            try:
                text = json.loads(text).get("error", text)
            except (ValueError, AttributeError):
                pass
            raise TracecheckError(err.code, text) from None

    def create_or_update_check(self, name, description, check):
        """A ModelBasedCheck, or a CodeBasedCheck instance (its source file is uploaded). Same name: a new version."""
        if isinstance(check, ModelBasedCheck):
            body = {"name": name, "description": description, "prompt_template": check.prompt_template, "check_type": str(check.check_type)}
        elif isinstance(check, CodeBasedCheck) or (isinstance(check, type) and issubclass(check, CodeBasedCheck)):
            body = {"name": name, "description": description, **_code_check_fields(check)}
        else:
            raise TypeError("check must be a ModelBasedCheck or a CodeBasedCheck instance")
        return Record(self._request("POST", "/api/v1/checks", body))

    def upload_check(self, name, file_path=None, requires_scenario_input=False, requires_scenario_result=False, output_data_type="bool", description="No description provided", update=False, project_id=None, generated_code=None):
        """The file's source, or generate_check's generated_code; a display name ("My Check") is stored under its slug (the answer's id)."""
        if file_path is None and generated_code is None:
            raise ValueError("upload_check needs file_path or generated_code")
        if file_path is not None:
            with open(file_path, encoding="utf-8") as f:
                source = f.read()
        else:
            source = generated_code
        body = {
            "name": name, "description": description, "code": source, "output_data_type": _data_type(output_data_type),
            "requires_scenario_input": bool(requires_scenario_input), "requires_scenario_result": bool(requires_scenario_result), "update": bool(update),
        }
        if project_id is not None:
            body["project_id"] = str(project_id)
        return Record(self._request("POST", "/api/v1/checks", body))

    def generate_check(self, spec):
        """An EvaluatorSpecRequest; the answer's generated_code is a Python CodeBasedCheck (not saved)."""
        body = spec.to_dict() if isinstance(spec, EvaluatorSpecRequest) else dict(spec)
        body = {k: (str(v) if k == "project_id" else v) for k, v in body.items() if v is not None}
        body["output_data_type"] = _data_type(body.get("output_data_type", "bool"))
        return Record(self._request("POST", "/api/v1/checks/generate", body))

    def get_all_checks(self):
        return [Record(c) for c in self._request("GET", "/api/v1/checks")["checks"]]

    def get_check(self, name):
        """A check by id, name or display name."""
        for check in self.get_all_checks():
            if name in (check.id, check.name, getattr(check, "display_name", None)):
                return check
        raise TracecheckError(404, f'no check named "{name}"')

    def get_scores(self, check=None, unit_id=None, limit=100):
        """Scores, newest first: each with check, unit_id, status, value, passed, explanation."""
        query = {k: v for k, v in (("check", check), ("unit_id", unit_id), ("limit", limit)) if v is not None}
        return [Record(s) for s in self._request("GET", "/api/v1/scores?" + urllib.parse.urlencode(query))["scores"]]

    def score_rows(self, checks, rows, modes=None):
        """Runs checks (names) on rows ({model_output, scenario_input?, scenario_result?, messages?}): one result per row and check, not stored.

        modes: per check, how a judge-described check decides: {"loop_guard": "judge"} ("judge", "hybrid" or "deterministic").
        Each result says who decided in decided_by ("code" or "judge").
        """
        body = {"checks": list(checks), "rows": [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in rows]}
        if modes:
            body["modes"] = dict(modes)
        return [Record(r) for r in self._request("POST", "/api/v1/checks/score", body)["results"]]

    def get_projects(self):
        """The caller's project (its key's; `default` on an open server), as the SDK lists projects."""
        return [Record(p) for p in self._request("GET", "/api/v1/projects")["projects"]]

    @staticmethod
    def seed_data_from_list(data_list):
        return [SeedData(input_=d["input"], result=d["result"]) for d in data_list]

    def create_scenario_set(self, create_request):
        """A ScenarioSetCreate(name=, seed_data=[SeedData(input_=, result=)]): answers its scenario_id."""
        body = create_request.to_dict() if isinstance(create_request, ScenarioSetCreate) else dict(create_request)
        if not body.get("seed_data"):
            raise ValueError("Non-empty seed data is required to create a scenario set")
        return Record(self._request("POST", "/api/v1/scenario-sets", body))

    def get_scenario_data_points(self, scenario_id):
        return [Record(p) for p in self._request("GET", f"/api/v1/scenario-sets/{urllib.parse.quote(str(scenario_id), safe='')}/data-points")["data_points"]]

    def register_model(self, name, tags=None, project_id=None, model=None, update=False, sensitive_fields=None):
        """A GenerationModel / OpenAIModel (the server calls it) or a CustomModel (its invoke runs here, in run_test)."""
        models = model if isinstance(model, list) else [model]
        if len(models) != 1 or not isinstance(models[0], BaseModel):
            raise TypeError("model must be one GenerationModel, OpenAIModel or CustomModel")
        body = {"name": name, "tags": list(tags or []), "models": {models[0].type: models[0].params()}, "update": bool(update)}
        if project_id is not None:
            body["project_id"] = str(project_id)
        mut = self._request("POST", "/api/v1/models", body)
        if mut.get("warning"):
            print(mut["warning"])
        return ModelUnderTest(self, mut, models[0])

    def _run_test(self, body):
        return Record(self._request("POST", "/api/v1/test-runs", body))

    def find_test_runs(self):
        """The project's test runs, newest first, with their summary metrics."""
        return [Record(r) for r in self._request("GET", "/api/v1/test-runs")["test_runs"]]

    def get_test_run(self, test_run_id):
        return Record(self._request("GET", f"/api/v1/test-runs/{urllib.parse.quote(str(test_run_id), safe='')}"))
