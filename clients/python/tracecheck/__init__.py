"""tracecheck's Python client: the Okareo SDK's calls (checks, scenario sets, register_model,
run_test) and score reading against a tracecheck server, stdlib only."""
from .checks import BaseCheck, CheckOutputType, CheckResponse, CodeBasedCheck, ModelBasedCheck
from .client import Tracecheck, TracecheckError
from .model_under_test import CustomModel, GenerationModel, ModelInvocation, ModelUnderTest, OpenAIModel
from .models import EvaluatorSpecRequest, Record, ScenarioSetCreate, SeedData, TestRunType

__all__ = [
    "BaseCheck", "CheckOutputType", "CheckResponse", "CodeBasedCheck", "CustomModel", "EvaluatorSpecRequest",
    "GenerationModel", "ModelBasedCheck", "ModelInvocation", "ModelUnderTest", "OpenAIModel", "Record",
    "ScenarioSetCreate", "SeedData", "TestRunType", "Tracecheck", "TracecheckError",
]
