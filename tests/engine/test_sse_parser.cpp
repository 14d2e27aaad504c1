// Server-sent events (engine/src/util/sse_parser.h) read as the WHATWG HTML standard's
// event stream interpretation says, on its own examples (a stock ticker's multi-line data,
// comments and ids, "data" without a colon, one space dropped after the colon) and on its
// rules (CRLF, LF and a lone CR as line ends, also split across reads; a BOM; event types;
// retry digits only; an id holding NUL ignored; an incomplete last event not dispatched),
// fed whole and a byte at a time; an event over the limit is dropped and said.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/sse_parser.h"

namespace kvchat {
namespace {

struct Read {
  std::vector<SseEvent> events;
  size_t dropped = 0;
  std::optional<int64_t> retry;
};

// The events of `stream`, fed whole (piece 0) or `piece` bytes at a time.
Read read(const std::string& stream, size_t piece = 0, size_t max = 1 << 20) {
  Read r;
  SseParser p(
      max, [&](SseEvent&& e) { r.events.push_back(std::move(e)); },
      [&](size_t n) { r.dropped = n; });
  if (piece == 0) {
    p.feed(stream);
  } else {
    for (size_t i = 0; i < stream.size(); i += piece)
      p.feed(std::string_view(stream).substr(i, piece));
  }
  r.retry = p.retry_ms();
  return r;
}

std::vector<std::string> datas(const Read& r) {
  std::vector<std::string> out;
  for (const SseEvent& e : r.events) out.push_back(e.data);
  return out;
}

TEST(SseParser, TheStandardsExamples) {
  for (size_t piece : {0, 1, 2, 3}) {
    // Three data lines: one event, joined with newlines.
    EXPECT_EQ(datas(read("data: YHOO\ndata: +2\ndata: 10\n\n", piece)),
              std::vector<std::string>{"YHOO\n+2\n10"});
    // A comment, ids (a bare "id" empties it), one leading space dropped, not two.
    const Read ids = read(
        ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third "
        "event\n",
        piece);
    ASSERT_EQ(ids.events.size(), 2u) << piece;  // the third has no blank line after it
    EXPECT_EQ(ids.events[0].data, "first event");
    EXPECT_EQ(ids.events[0].last_event_id, "1");
    EXPECT_EQ(ids.events[1].data, "second event");
    EXPECT_EQ(ids.events[1].last_event_id, "");
    // "data" without a colon is an empty data line: "" and "\n"; the last one never ends.
    EXPECT_EQ(datas(read("data\n\ndata\ndata\n\ndata:", piece)),
              (std::vector<std::string>{"", "\n"}));
    // With or without the space after the colon, the same.
    EXPECT_EQ(datas(read("data:test\n\ndata: test\n\n", piece)),
              (std::vector<std::string>{"test", "test"}));
  }
}

TEST(SseParser, LineEndsTypesRetryAndIds) {
  for (size_t piece : {0, 1, 2, 5}) {
    // CRLF, a lone CR and LF all end lines; a CR's LF in the next read ends nothing more.
    EXPECT_EQ(datas(read("data: a\r\ndata: b\rdata: c\n\r\n", piece)),
              std::vector<std::string>{"a\nb\nc"})
        << piece;
    EXPECT_EQ(datas(read("data: x\r\r", piece)), std::vector<std::string>{"x"});
    // A BOM before the first line is dropped (only there).
    EXPECT_EQ(datas(read("\xEF\xBB\xBF"
                         "data: bom\n\n",
                         piece)),
              std::vector<std::string>{"bom"});
    const Read typed = read("event: add\ndata: 73857293\n\ndata: plain\n\n", piece);
    ASSERT_EQ(typed.events.size(), 2u);
    EXPECT_EQ(typed.events[0].type, "add");
    EXPECT_EQ(typed.events[1].type, "message");  // the type does not outlive its event
    // An event with no data is not dispatched, and its type goes with it.
    const Read empty = read("event: ping\n\ndata: after\n\n", piece);
    ASSERT_EQ(empty.events.size(), 1u);
    EXPECT_EQ(empty.events[0].type, "message");
    EXPECT_EQ(read("retry: 3000\n", piece).retry, 3000);
    EXPECT_EQ(read("retry: 3000\nretry: 3s\n", piece).retry, 3000);  // digits only
    EXPECT_FALSE(read("retry: -1\n", piece).retry);
    const Read nul = read(std::string("id: 7\ndata: a\n\nid: x\0y\ndata: b\n\n", 32), piece);
    ASSERT_EQ(nul.events.size(), 2u);
    EXPECT_EQ(nul.events[1].last_event_id, "7");  // an id holding NUL is ignored
    // Unknown fields are ignored.
    EXPECT_EQ(datas(read("foo: bar\ndata: kept\n\n", piece)), std::vector<std::string>{"kept"});
  }
}

TEST(SseParser, AnEventOverTheLimitIsDroppedAndSaid) {
  for (size_t piece : {0, 1, 7}) {
    const Read r = read("data: x\n\ndata: 0123456789abcdefXYZ\n\ndata: ok\n\n", piece, 16);
    EXPECT_EQ(datas(r), (std::vector<std::string>{"x", "ok"})) << piece;
    EXPECT_GT(r.dropped, 16u);
    // One line longer than the limit with no end yet is dropped too.
    const Read line = read(std::string(64, 'a') + "\n\ndata: ok\n\n", piece, 16);
    EXPECT_EQ(datas(line), std::vector<std::string>{"ok"}) << piece;
  }
}

}  // namespace
}  // namespace kvchat
