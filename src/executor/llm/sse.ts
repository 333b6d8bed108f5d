/**
 * A Server-Sent Events parser that follows the WHATWG event-stream rules that matter for LLM
 * APIs: lines end in LF, CRLF or CR (a CR at the end of one read and an LF at the start of
 * the next are one line ending); lines starting with ':' are comments; `data:` lines of one
 * event are joined with '\n'; a blank line dispatches. Bytes are decoded with a streaming
 * TextDecoder, so a multi-byte UTF-8 character split across reads comes out whole.
 */

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private skipLeadingLf = false;
  private data: string[] = [];
  private eventName = '';
  private lastId: string | undefined;

  /** Feeds raw bytes (or already-decoded text) and returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.consume(text);
  }

  /** Flushes the decoder and any final line; an event without its blank line is dispatched. */
  end(): SseEvent[] {
    const events = this.consume(this.decoder.decode());
    if (this.buffer.length > 0) {
      this.line(this.buffer, events);
      this.buffer = '';
    }
    this.dispatch(events);
    return events;
  }

  private consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let input = text;
    if (this.skipLeadingLf && input.length > 0) {
      if (input.startsWith('\n')) input = input.slice(1);
      this.skipLeadingLf = false;
    }
    this.buffer += input;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i += 1) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.buffer.slice(start, i), events);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i += 1;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
  }

  private dispatch(events: SseEvent[]): void {
    if (this.data.length > 0) {
      const event: SseEvent = { event: this.eventName || 'message', data: this.data.join('\n') };
      if (this.lastId !== undefined) event.id = this.lastId;
      events.push(event);
    }
    this.data = [];
    this.eventName = '';
  }
}
