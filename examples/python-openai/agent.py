"""A small tool-using agent on the OpenAI SDK, traced by opentelemetry-instrumentation-openai-v2.

Run with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY: this library's accepted
values are SPAN_ONLY, EVENT_ONLY, SPAN_AND_EVENT and NO_CONTENT; `true` records no content. With
SPAN_ONLY the messages are span attributes; with EVENT_ONLY they are log records, which the logs
exporter sends. The exporters read OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_HEADERS) and
post to <endpoint>/v1/traces and <endpoint>/v1/logs.
Prints the trace id last.
"""
import json
import os

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

resource = Resource.create({"service.name": "weather-agent"})
tracer_provider = TracerProvider(resource=resource)
tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(tracer_provider)
# Only EVENT_ONLY and SPAN_AND_EVENT write log records; with SPAN_ONLY this exporter sends nothing.
logger_provider = LoggerProvider(resource=resource)
logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logger_provider)
OpenAIInstrumentor().instrument()

from openai import OpenAI  # noqa: E402  (after instrument(), as the instrumentation patches it)

MODEL = os.environ.get("MODEL", "gpt-4o-mini")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def get_weather(city: str) -> str:
    return "sunny, 22 C" if city == "Paris" else "cloudy, 15 C"


def run_agent(client: OpenAI, question: str) -> str:
    messages = [
        {"role": "system", "content": "You are a helpful assistant. Use the tools."},
        {"role": "user", "content": question},
    ]
    for _ in range(5):
        message = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("no answer after 5 turns")


def main() -> None:
    # OPENAI_BASE_URL is read by the client.
    client = OpenAI(api_key=os.environ.get("OPENAI_API_KEY", "unused"))
    tracer = trace.get_tracer("weather-agent")
    # One root span per agent run: every model call below is its child, so the run is one trace.
    with tracer.start_as_current_span("invoke_agent weather-agent") as span:
        print(run_agent(client, "What is the weather in Paris?"))
        trace_id = format(span.get_span_context().trace_id, "032x")
    # Flush before exiting: a batch still in memory is lost.
    tracer_provider.shutdown()
    logger_provider.shutdown()
    print(trace_id)


if __name__ == "__main__":
    main()
