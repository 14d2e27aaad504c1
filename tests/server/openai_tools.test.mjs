// Structured output and tool calls of kvchat-cli serve, driven by the official OpenAI
// JavaScript SDK (node --test) and checked by an independent JSON Schema validator (ajv):
// response_format json_schema (strict) and json_object, and tools with tool_choice auto,
// required, a named function, parallel calls on and off, streamed and not, and a call's
// result sent back, in each call format: the demo model under its own (built-in) format
// writes the generic JSON form, and under the Qwen 2.5, Llama 3.1 and Mistral Nemo
// templates their Hermes, Llama 3 and Mistral forms; the schema corpus also runs on a
// random-weights model.
// Usage: as openai_sdk.test.mjs (KVCHAT_CLI, KVCHAT_MODEL, KVCHAT_NODE_MODULES), plus
// KVCHAT_TEMPLATES (tests/data/templates) and KVCHAT_SCHEMAS (tests/server/schemas.json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServe, stopServe } from './serve.mjs';
import { createRequire } from 'node:module';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(process.env.KVCHAT_NODE_MODULES + '/');
const OpenAI = require('openai').default ?? require('openai');
const Ajv = require('ajv/dist/2020').default ?? require('ajv/dist/2020');  // JSON Schema 2020-12
const ajv = new Ajv({ strict: false });
const model = 'kjv-demo-f16';

// The template each server uses ('' = the model's own: none, so the built-in format).
const formats = {
  generic: '',
  hermes: 'Qwen-Qwen2.5-7B-Instruct.jinja',
  llama3: 'meta-llama-Llama-3.1-8B-Instruct.jinja',
  mistral: 'mistralai-Mistral-Nemo-Instruct-2407.jinja',
};
const servers = {};
const clients = {};
let scratch;

function start(template, modelFile = process.env.KVCHAT_MODEL) {
  const args = ['--model', modelFile, '--model-id', model, '--parallel', '2', '--ctx', '4096'];
  if (template) args.push('--template', readFileSync(`${process.env.KVCHAT_TEMPLATES}/${template}`, 'utf8'));
  return startServe(args);
}

// Besides the demo model: random weights over Llama 2's 32k vocabulary (kvchat-cli mkmodel).
before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kvchat-tools-'));
  const random = join(scratch, 'random.gguf');
  const vocab = join(dirname(dirname(process.env.KVCHAT_MODEL)), 'vocab', 'ggml-vocab-llama-spm.gguf');
  execFileSync(process.env.KVCHAT_CLI, ['mkmodel', '--arch', 'llama', '--vocab-from', vocab,
                                        '--out', random, '--seed', '7']);
  const all = Object.entries(formats).map(([name, template]) => [name, start(template)]);
  all.push(['random', start('', random)]);
  for (const [name, { server, port }] of all) {
    servers[name] = server;
    clients[name] = new OpenAI({ baseURL: `http://127.0.0.1:${await port}/v1`, apiKey: 'none',
                                 maxRetries: 0 });
  }
});

after(async () => {
  for (const server of Object.values(servers)) assert.equal(await stopServe(server), 0);
  rmSync(scratch, { recursive: true, force: true });
});

const weather = {
  type: 'object',
  properties: {
    location: { type: 'string', description: 'A city', maxLength: 16 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer' },
  },
  required: ['location', 'unit', 'days'],
  additionalProperties: false,
};
const clock = { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } },
                required: ['zone'], additionalProperties: false };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'The weather in a city',
                                   parameters: weather, strict: true } },
  { type: 'function', function: { name: 'get_time', description: 'The time in a zone',
                                   parameters: clock } },
];
const schemaOf = { get_weather: weather, get_time: clock };
const ask = [{ role: 'user', content: 'What is the weather in Paris?' }];

// Every call names an offered tool and its arguments validate against its schema.
function checkCalls(message, allowed = Object.keys(schemaOf)) {
  assert.ok(message.tool_calls?.length > 0, JSON.stringify(message));
  for (const call of message.tool_calls) {
    assert.equal(call.type, 'function');
    assert.match(call.id, /^(call_[A-Za-z0-9]{24}|[A-Za-z0-9]{9})$/);
    assert.ok(allowed.includes(call.function.name), call.function.name);
    const args = JSON.parse(call.function.arguments);
    assert.ok(ajv.validate(schemaOf[call.function.name], args),
              `${call.function.arguments}: ${ajv.errorsText()}`);
  }
}

for (const name of Object.keys(formats)) {
  test(`${name}: tool_choice required, parallel and not`, async () => {
    for (const [seed, parallel] of [[1, true], [2, false], [3, true], [4, false]]) {
      const r = await clients[name].chat.completions.create({
        model, messages: ask, tools, tool_choice: 'required', parallel_tool_calls: parallel,
        seed, max_tokens: 3500 });
      assert.equal(r.choices[0].finish_reason, 'tool_calls', JSON.stringify(r.choices[0]));
      checkCalls(r.choices[0].message);
      if (!parallel) assert.equal(r.choices[0].message.tool_calls.length, 1);
    }
  });

  test(`${name}: a named function`, async () => {
    for (const seed of [5, 6]) {
      const r = await clients[name].chat.completions.create({
        model, messages: ask, tools, seed, max_tokens: 3500,
        tool_choice: { type: 'function', function: { name: 'get_time' } } });
      assert.equal(r.choices[0].finish_reason, 'tool_calls');
      checkCalls(r.choices[0].message, ['get_time']);
    }
  });

  test(`${name}: streamed calls assemble into the non-streamed ones`, async () => {
    const params = { model, messages: ask, tools, tool_choice: 'required', seed: 7, max_tokens: 3500 };
    const plain = await clients[name].chat.completions.create(params);
    const stream = clients[name].beta.chat.completions.stream(params);
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    checkCalls(final.choices[0].message);
    const strip = (m) => m.tool_calls.map((c) => [c.function.name, c.function.arguments]);
    assert.deepEqual(strip(final.choices[0].message), strip(plain.choices[0].message));
  });

  test(`${name}: tool_choice auto answers in words or calls well-formed`, async () => {
    for (const seed of [8, 9, 10]) {
      const r = await clients[name].chat.completions.create({
        model, messages: ask, tools, tool_choice: 'auto', seed, max_tokens: 200 });
      const c = r.choices[0];
      if (c.finish_reason === 'tool_calls') checkCalls(c.message);
      else assert.ok(!c.message.tool_calls, JSON.stringify(c));
    }
  });

  test(`${name}: a call and its result sent back continue the conversation`, async () => {
    const first = await clients[name].chat.completions.create({
      model, messages: ask, tools, tool_choice: 'required', parallel_tool_calls: false, seed: 11,
      max_tokens: 3500 });
    const call = first.choices[0].message;
    checkCalls(call);
    const r = await clients[name].chat.completions.create({
      model, tools, seed: 12, max_tokens: 8,
      messages: [...ask, call,
                 { role: 'tool', tool_call_id: call.tool_calls[0].id, content: '21 degrees' }] });
    assert.ok(['stop', 'length', 'tool_calls'].includes(r.choices[0].finish_reason));
    assert.ok(r.usage.prompt_tokens > first.usage.prompt_tokens);
  });
}

for (const server of ['generic', 'random']) {
test(`${server} model: response_format json_schema (strict): every reply parses and validates`, async () => {
  const corpus = JSON.parse(readFileSync(process.env.KVCHAT_SCHEMAS, 'utf8'));
  for (const { name, schema } of corpus.supported) {
    for (const seed of [1, 2]) {
      const r = await clients[server].chat.completions.create({
        model, seed, max_tokens: 2000, messages: [{ role: 'user', content: 'Answer in JSON.' }],
        response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } } });
      assert.equal(r.choices[0].finish_reason, 'stop', `${name}: ${r.choices[0].message.content}`);
      const value = JSON.parse(r.choices[0].message.content);
      assert.ok(ajv.validate(schema, value), `${name}: ${r.choices[0].message.content}: ${ajv.errorsText()}`);
    }
  }
});
}

test('response_format json_schema: unsupported keywords are refused by name', async () => {
  const corpus = JSON.parse(readFileSync(process.env.KVCHAT_SCHEMAS, 'utf8'));
  for (const { name, schema, keyword } of corpus.refused) {
    await assert.rejects(clients.generic.chat.completions.create({
      model, max_tokens: 4, messages: ask,
      response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } } }),
    (e) => e.status === 400 && e.param === 'response_format' && e.message.includes(keyword),
    name);
  }
});

test('a schema whose grammar is too ambiguous to follow is a 400, at once', async () => {
  const started = Date.now();
  await assert.rejects(clients.generic.chat.completions.create({
    model, max_tokens: 60, messages: ask,
    response_format: { type: 'json_schema', json_schema: { name: 'a',
      schema: { type: 'string', pattern: '^(.{0,50}){0,50}$' } } } }),
  (e) => e.status === 400 && e.message.includes('could not be followed'));
  assert.ok(Date.now() - started < 10000);
});

test('response_format json_object: a JSON object', async () => {
  for (const seed of [1, 2, 3]) {
    const r = await clients.generic.chat.completions.create({
      model, seed, max_tokens: 2000, messages: ask, response_format: { type: 'json_object' } });
    if (r.choices[0].finish_reason !== 'stop') continue;  // a long object cut at max_tokens
    const value = JSON.parse(r.choices[0].message.content);
    assert.equal(typeof value, 'object');
    assert.ok(value !== null && !Array.isArray(value));
  }
});

test('an unknown field in a tool definition is a 400 naming it', async () => {
  await assert.rejects(clients.generic.chat.completions.create({
    model, messages: ask,
    tools: [{ type: 'function', function: { name: 'f', parameters: {}, strcit: true } }] }),
  (e) => e.status === 400 && e.param === 'tools[0].function.strcit');
  await assert.rejects(clients.generic.chat.completions.create({
    model, messages: ask, tool_choice: 'required',
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object',
      properties: { d: { type: 'string', format: 'date' } } } } }] }),
  (e) => e.status === 400 && e.param === 'tools' && e.message.includes('format'));
});
