"""A small tool-using agent on LangGraph (its prebuilt ReAct agent over langchain-openai), traced by
OpenInference's LangChain instrumentation.

The messages are span attributes, so traces alone carry the dialog (no logs exporter); OpenInference
records content unless OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS say otherwise. The
exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_HEADERS) and posts to
<endpoint>/v1/traces. Prints the trace id last.
"""
import os

from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

tracer_provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(tracer_provider)
LangChainInstrumentor().instrument()

from langchain_core.tools import tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return "sunny, 22 C" if city == "Paris" else "cloudy, 15 C"


def main() -> None:
    # OPENAI_BASE_URL and OPENAI_API_KEY are read by ChatOpenAI.
    model = ChatOpenAI(model=os.environ.get("MODEL", "gpt-4o-mini"), api_key=os.environ.get("OPENAI_API_KEY", "unused"))
    agent = create_react_agent(model, [get_weather], prompt="You are a helpful assistant. Use the tools.", name="weather-agent")
    tracer = trace.get_tracer("weather-agent")
    # One root span per agent run: LangGraph's spans are its children, so the run is one trace.
    with tracer.start_as_current_span("invoke_agent weather-agent") as span:
        result = agent.invoke({"messages": [("user", "What is the weather in Paris?")]})
        print(result["messages"][-1].content)
        trace_id = format(span.get_span_context().trace_id, "032x")
    # Flush before exiting: a batch still in memory is lost.
    tracer_provider.shutdown()
    print(trace_id)


if __name__ == "__main__":
    main()
