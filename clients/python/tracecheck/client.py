"""The client: one HTTP call per SDK call, through urllib (no dependencies)."""
import inspect
import json
import urllib.error
import urllib.parse
import urllib.request

from .checks import CodeBasedCheck, ModelBasedCheck
from .models import EvaluatorSpecRequest, Record

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


def _code_check_fields(check):
    """What uploading a CodeBasedCheck sends: its file's source, and what evaluate's signature says."""
    cls = check if isinstance(check, type) else type(check)
    path = inspect.getsourcefile(cls)
    if path is None:
        raise ValueError("a CodeBasedCheck is uploaded from its source file; define it in a .py file")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    signature = inspect.signature(cls.evaluate)
    returns = signature.return_annotation
    if isinstance(returns, str):
        returns = returns.strip()
    data_type = _DATA_TYPES.get(returns, "bool")
    return {
        "code": source,
        "output_data_type": data_type,
        "requires_scenario_input": "scenario_input" in signature.parameters,
        "requires_scenario_result": "scenario_result" in signature.parameters,
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

    def upload_check(self, name, file_path, requires_scenario_input=False, requires_scenario_result=False, output_data_type="bool", description="No description provided", update=False):
        with open(file_path, encoding="utf-8") as f:
            source = f.read()
        body = {
            "name": name, "description": description, "code": source, "output_data_type": _data_type(output_data_type),
            "requires_scenario_input": bool(requires_scenario_input), "requires_scenario_result": bool(requires_scenario_result), "update": bool(update),
        }
        return Record(self._request("POST", "/api/v1/checks", body))

    def generate_check(self, spec):
        """An EvaluatorSpecRequest; the answer's generated_code is a Python CodeBasedCheck (not saved)."""
        body = spec.to_dict() if isinstance(spec, EvaluatorSpecRequest) else dict(spec)
        body["output_data_type"] = _data_type(body.get("output_data_type", "bool"))
        return Record(self._request("POST", "/api/v1/checks/generate", body))

    def get_all_checks(self):
        return [Record(c) for c in self._request("GET", "/api/v1/checks")["checks"]]

    def get_check(self, name):
        for check in self.get_all_checks():
            if check.name == name:
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
