// kvchat-cli serve driven by the official OpenAI JavaScript SDK (node --test):
// models.list, chat (streamed and not), an abort mid-stream, 4 concurrent clients.
// Usage: NODE_PATH=<dir with node_modules> node --test openai_sdk.test.mjs, with
// KVCHAT_CLI and KVCHAT_MODEL in the environment (tests/CMakeLists.txt sets them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServe, stopServe } from './serve.mjs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.KVCHAT_NODE_MODULES + '/');
const OpenAI = require('openai').default ?? require('openai');

let server, client, port;
const model = 'kjv-demo-f16';

before(async () => {
  ({ server, port } = startServe(['--model', process.env.KVCHAT_MODEL, '--api-key', 'test-key',
                                  '--parallel', '4', '--ctx', '32768']));
  port = await port;
  client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'test-key', maxRetries: 0 });
});

after(async () => {
  assert.equal(await stopServe(server), 0);
});

test('models.list', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, [model]);
});

test('chat, not streamed', async () => {
  const r = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'In the beginning' }], max_tokens: 8, seed: 1,
  });
  assert.match(r.id, /^chatcmpl-/);
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, 8);
});

test('chat, streamed, equals the non-streamed text for the same seed', async () => {
  const params = { model, messages: [{ role: 'user', content: 'And God said' }], max_tokens: 16,
                   seed: 5, temperature: 0.9 };
  const plain = await client.chat.completions.create(params);
  const stream = await client.chat.completions.create({ ...params, stream: true,
                                                        stream_options: { include_usage: true } });
  let text = '', usage = null, finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length) {
      text += chunk.choices[0].delta.content ?? '';
      finish = chunk.choices[0].finish_reason ?? finish;
    }
  }
  assert.equal(text, plain.choices[0].message.content);
  assert.equal(finish, 'length');
  assert.equal(usage.completion_tokens, 16);
});

test('abort mid-stream frees the session', async () => {
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model, messages: [{ role: 'user', content: 'Abort me' }], max_tokens: 30000, stream: true,
      stop: '@@none@@' },
    { signal: controller.signal });
  let chunks = 0;
  try {
    for await (const _ of stream) {
      if (++chunks === 3) {
        controller.abort();
        break;
      }
    }
  } catch (e) {
    assert.equal(e.name, 'APIUserAbortError');  // some SDK versions end the loop instead
  }
  assert.equal(chunks, 3);
  let h = null;
  for (let i = 0; i < 100; ++i) {
    h = await fetch(`http://127.0.0.1:${port}/health`,
                    { headers: { Authorization: 'Bearer test-key' } }).then((r) => r.json());
    if (h.sessions.busy === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(h.sessions.busy, 0);
  // Cancelled long before its 30000 tokens.
  for (const s of h.session_stats) assert.ok(s.tokens < 20000, JSON.stringify(s));
});

test('4 concurrent clients', async () => {
  const replies = await Promise.all([0, 1, 2, 3].map((i) => client.chat.completions.create({
    model, messages: [{ role: 'user', content: `Verse ${i}` }], max_tokens: 12, seed: i,
  })));
  for (const r of replies) assert.equal(r.usage.completion_tokens, 12);
});

test('a wrong key is a 401 APIError', async () => {
  const bad = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'nope', maxRetries: 0 });
  await assert.rejects(bad.models.list(), (e) => e.status === 401);
});
