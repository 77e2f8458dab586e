"""A small tool-using agent on the OpenAI Agents SDK, traced by OpenInference's openai-agents
instrumentation.

The messages are span attributes, so traces alone carry the dialog (no logs exporter); OpenInference
records content unless OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS say otherwise. The
exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_HEADERS) and posts to
<endpoint>/v1/traces. Prints the trace id last.
"""
import asyncio
import os

from agents import Agent, Runner, function_tool, set_trace_processors
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

tracer_provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(tracer_provider)
# The SDK's default processor uploads its traces to OpenAI; drop it before adding OpenInference's.
set_trace_processors([])
OpenAIAgentsInstrumentor().instrument()


@function_tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return "sunny, 22 C" if city == "Paris" else "cloudy, 15 C"


async def main() -> None:
    # OPENAI_BASE_URL and OPENAI_API_KEY are read by the SDK's default client (the Responses API).
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    agent = Agent(
        name="weather-agent",
        instructions="You are a helpful assistant. Use the tools.",
        model=os.environ.get("MODEL", "gpt-4o-mini"),
        tools=[get_weather],
    )
    tracer = trace.get_tracer("weather-agent")
    # One root span per agent run: the SDK's spans are its children, so the run is one trace.
    with tracer.start_as_current_span("invoke_agent weather-agent") as span:
        result = await Runner.run(agent, "What is the weather in Paris?")
        print(result.final_output)
        trace_id = format(span.get_span_context().trace_id, "032x")
    # Flush before exiting: a batch still in memory is lost.
    tracer_provider.shutdown()
    print(trace_id)


if __name__ == "__main__":
    asyncio.run(main())
