"""tracecheck's Python client: the Okareo SDK's check calls (create_or_update_check, get_all_checks,
generate_check, upload_check) and score reading against a tracecheck server, stdlib only."""
from .checks import BaseCheck, CheckOutputType, CheckResponse, CodeBasedCheck, ModelBasedCheck
from .client import Tracecheck, TracecheckError
from .models import EvaluatorSpecRequest, Record

__all__ = [
    "BaseCheck", "CheckOutputType", "CheckResponse", "CodeBasedCheck", "ModelBasedCheck",
    "EvaluatorSpecRequest", "Record", "Tracecheck", "TracecheckError",
]
