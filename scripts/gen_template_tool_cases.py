#!/usr/bin/env python3
"""Writes tests/data/templates/tool_cases.json: what Python jinja2 renders for the
published tool-calling chat templates in tests/data/templates/*.jinja, with and
without tools, the way Hugging Face transformers renders a chat template.

transformers (utils/chat_template_utils.py, _compile_jinja_template) compiles the
template in an ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[AssistantTracker, loopcontrols]) with its own `tojson` filter
(json.dumps, ensure_ascii=False) and the `raise_exception` and `strftime_now`
globals. apply_chat_template then calls

    template.render(messages=chat, tools=tool_schemas, documents=documents,
                    add_generation_prompt=add_generation_prompt,
                    **special_tokens_map, **kwargs)

where tool_schemas is None unless tools were given: a template rendered by
transformers always sees `tools` and `documents` defined, as None when there are
none. Each template is rendered here in these tool settings:

  absent     tools and documents not passed at all (undefined: jinja2's
             Template.render(messages=...), as shared/templates/cases.json was made)
  none       tools=None, documents=None (apply_chat_template without tools)
  empty      tools=[]
  one_tool   tools=[a function schema]
and, for templates that read `functions` (firefunction), functions absent or given
as a JSON string. Every case records either the text jinja2 renders (`expected`) or
the message of the exception it raises (`error`): a template that fails in jinja2
must fail in kvchat too.

strftime_now() formats 2026-01-02 12:00:00 UTC (the tests set TZ=UTC and pass
this time), so the output does not depend on when the script runs.

Usage: python3 scripts/gen_template_tool_cases.py  (needs jinja2 >= 3.1)
"""

import json
import os
import sys
from datetime import datetime, timezone

import jinja2
import jinja2.ext
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "templates")
NOW_UNIX_SECONDS = 1767355200  # 2026-01-02 12:00:00 UTC
BOS, EOS = "<s>", "</s>"


def make_environment():
    def raise_exception(message):
        raise TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.fromtimestamp(NOW_UNIX_SECONDS, tz=timezone.utc).strftime(fmt)

    # transformers' AssistantTracker extension only adds the {% generation %} tag,
    # which none of these templates uses.
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string",
                             "description": "The city and country, e.g. Paris, France"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                         "description": "The temperature unit"},
                "days": {"type": "integer", "description": "Days ahead", "default": 0,
                         "minimum": 0, "maximum": 7},
            },
            "required": ["location"],
        },
    },
}

FUNCTIONS_SPEC = json.dumps([WEATHER_TOOL["function"]], indent=4)


def tool_call(arguments):
    # Nine alphanumerics: Mistral's templates insist on that.
    return {"id": "abc123xyz", "type": "function",
            "function": {"name": "get_current_weather", "arguments": arguments}}


ARGS = {"location": "Paris, France", "unit": "celsius"}

CONVERSATIONS = {
    "user": [{"role": "user", "content": "What's the weather in Paris?"}],
    "system-user": [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "What's the weather in Paris?"},
    ],
    # A round of tool use: the call (its arguments a JSON string, as OpenAI sends them),
    # the tool's reply, the answer, and a follow-up question.
    "tool-round": [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [tool_call(json.dumps(ARGS))]},
        {"role": "tool", "tool_call_id": "abc123xyz", "name": "get_current_weather",
         "content": "{\"temperature\": 21, \"unit\": \"celsius\"}"},
        {"role": "assistant", "content": "It is 21 degrees in Paris."},
        {"role": "user", "content": "And tomorrow?"},
    ],
    # The arguments as an object (transformers' documented form).
    "tool-round-object-args": [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [tool_call(ARGS)]},
        {"role": "tool", "tool_call_id": "abc123xyz", "name": "get_current_weather",
         "content": "21 degrees"},
    ],
    # The call's content None (null in OpenAI's JSON), the tool_calls key absent from
    # the other messages.
    "tool-round-null-content": [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call(ARGS)]},
        {"role": "tool", "tool_call_id": "abc123xyz", "name": "get_current_weather",
         "content": "21 degrees"},
        {"role": "assistant", "content": "It is 21 degrees in Paris."},
    ],
}

TOOL_SETTINGS = {
    "absent": {},
    "none": {"tools": None, "documents": None},
    "empty": {"tools": [], "documents": None},
    "one_tool": {"tools": [WEATHER_TOOL], "documents": None},
}

FUNCTION_SETTINGS = {
    "functions_absent": {},
    "functions": {"functions": FUNCTIONS_SPEC, "datetime": "2026-01-02"},
}

# name -> where it was published (tests/data/templates/README.md says the same).
TEMPLATES = {
    "CohereForAI-c4ai-command-r-plus-tool_use.jinja": "llama.cpp models/templates",
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": "llama.cpp models/templates",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "llama.cpp models/templates",
    "Qwen-Qwen2.5-7B-Instruct.jinja": "llama.cpp models/templates",
    "Qwen-Qwen3-0.6B.jinja": "llama.cpp models/templates",
    "fireworks-ai-llama-3-firefunction-v2.jinja": "llama.cpp models/templates",
    "ibm-granite-granite-3.3-2B-Instruct.jinja": "llama.cpp models/templates",
    "llama-cpp-deepseek-r1.jinja": "llama.cpp models/templates",
    "meetkai-functionary-medium-v3.1.jinja": "llama.cpp models/templates",
    "meetkai-functionary-medium-v3.2.jinja": "llama.cpp models/templates",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama.cpp models/templates",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama.cpp models/templates",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": "llama.cpp models/templates",
    "openai-gpt-oss-120b.jinja": "llama.cpp models/templates",
}


# Templates that take `functions` (a JSON text) rather than `tools`.
READS_FUNCTIONS = {"fireworks-ai-llama-3-firefunction-v2.jinja"}


def render(template, messages, variables):
    try:
        text = template.render(messages=messages, add_generation_prompt=True, bos_token=BOS,
                               eos_token=EOS, **variables)
        return text, None
    except Exception as e:  # noqa: BLE001 -- every jinja2 failure is an expected outcome
        return None, str(e)


def main():
    env = make_environment()
    cases = []
    for name in sorted(TEMPLATES):
        with open(os.path.join(DATA, name), encoding="utf-8") as f:
            source = f.read()
        template = env.from_string(source)
        settings = FUNCTION_SETTINGS if name in READS_FUNCTIONS else TOOL_SETTINGS
        for setting, variables in settings.items():
            for conversation, messages in CONVERSATIONS.items():
                expected, error = render(template, messages, variables)
                cases.append({
                    "template": name,
                    "setting": setting,
                    "conversation": conversation,
                    "variables": variables,
                    "messages": messages,
                    "add_generation_prompt": True,
                    "bos_token": BOS,
                    "eos_token": EOS,
                    "expected": expected,
                    "error": error,
                })
    doc = {
        "source": "jinja2 %s, as transformers renders chat templates; written by "
                  "scripts/gen_template_tool_cases.py" % jinja2.__version__,
        "now_unix_seconds": NOW_UNIX_SECONDS,
        "templates": TEMPLATES,
        "cases": cases,
    }
    out = os.path.join(DATA, "tool_cases.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    errors = sum(c["error"] is not None for c in cases)
    print("%s: %d cases (%d expected errors)" % (out, len(cases), errors), file=sys.stderr)


if __name__ == "__main__":
    main()
