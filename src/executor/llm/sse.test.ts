import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from './sse.ts';

const encoder = new TextEncoder();

/** Feeds `bytes` split at the given offsets and collects every event. */
function parseSplit(bytes: Uint8Array, cuts: readonly number[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  events.push(...parser.end());
  return events;
}

describe('SseParser', () => {
  const stream =
    ': comment\r\n' +
    'data: {"t":"héllo 数学 🧮"}\r\n\r\n' +
    'data: first\r\ndata: second\r\n\r\n' +
    'event: note\rdata: line one\rdata: line two\r\r' +
    'id: 7\ndata:no-space\n\n' +
    'data: [DONE]\n\n';
  const expected: SseEvent[] = [
    { event: 'message', data: '{"t":"héllo 数学 🧮"}' },
    { event: 'message', data: 'first\nsecond' },
    { event: 'note', data: 'line one\nline two' },
    { event: 'message', data: 'no-space', id: '7' },
    { event: 'message', data: '[DONE]', id: '7' },
  ];
  const bytes = encoder.encode(stream);

  it('parses LF, CRLF and CR line endings, comments, multi-line data and ids', () => {
    expect(parseSplit(bytes, [])).toEqual(expected);
  });

  it('gives the same events for every single split point, including inside UTF-8 characters and CRLF', () => {
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(parseSplit(bytes, [cut]), `split at byte ${cut}`).toEqual(expected);
    }
  });

  it('gives the same events when fed one byte at a time', () => {
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(parseSplit(bytes, cuts)).toEqual(expected);
  });

  it('dispatches a final event that lacks its blank line at end of stream', () => {
    expect(parseSplit(encoder.encode('data: tail'), [])).toEqual([{ event: 'message', data: 'tail' }]);
  });

  it('ignores blank lines with no data and unknown fields', () => {
    expect(parseSplit(encoder.encode('\n\nretry: 10\nfoo: bar\n\n'), [])).toEqual([]);
  });
});
