// The two framings the sidecar speaks (SPEC §1): one compact JSON object per
// line (its default, and what the README shows), or LSP-style
// Content-Length headers, which vscode-jsonrpc reads natively. The
// newline reader and writer below plug the first into vscode-jsonrpc.
import type { Readable, Writable } from "node:stream";
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
  type DataCallback,
  type Disposable,
  type Message,
  type MessageReader,
  type MessageWriter,
} from "vscode-jsonrpc/node";

/** How frames are delimited on the sidecar's stdio. */
export type Framing = "newline" | "content-length";

/** The command-line flag that selects framing on the sidecar. */
export function framingFlag(framing: Framing): string[] {
  return framing === "newline" ? [] : ["--framing", framing];
}

export function readerFor(framing: Framing, input: Readable): MessageReader {
  return framing === "newline" ? new NewlineMessageReader(input) : new StreamMessageReader(input);
}

export function writerFor(framing: Framing, output: Writable): MessageWriter {
  return framing === "newline" ? new NewlineMessageWriter(output) : new StreamMessageWriter(output);
}

const NL = 0x0a;

/**
 * NewlineMessageReader reads one JSON value per line. Lines have no length
 * limit (a reply is one line, and a bash result can be megabytes); a line
 * that is not JSON is reported through onError and skipped.
 */
export class NewlineMessageReader extends AbstractMessageReader {
  private partial: Buffer[] = [];

  constructor(private readonly input: Readable) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer) => this.onData(chunk, callback);
    const onError = (err: Error) => this.fireError(err);
    const onClose = () => this.fireClose();
    this.input.on("data", onData);
    this.input.on("error", onError);
    this.input.on("close", onClose);
    return {
      dispose: () => {
        this.input.off("data", onData);
        this.input.off("error", onError);
        this.input.off("close", onClose);
      },
    };
  }

  private onData(chunk: Buffer, callback: DataCallback): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) {
        if (start < chunk.length) this.partial.push(chunk.subarray(start));
        return;
      }
      let line = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = Buffer.concat(this.partial);
        this.partial = [];
      }
      this.deliver(line, callback);
    }
  }

  private deliver(line: Buffer, callback: DataCallback): void {
    const text = line.toString("utf8").trim();
    if (text === "") return;
    let msg: Message;
    try {
      msg = JSON.parse(text) as Message;
    } catch {
      this.fireError(new NotJSONError(text));
      return;
    }
    callback(msg);
  }
}

/** NotJSONError is a stdout line that is not JSON (a usage text, before the sidecar is ready). */
export class NotJSONError extends Error {
  constructor(readonly line: string) {
    super(`the sidecar wrote a line that is not JSON: ${line.slice(0, 200)}`);
  }
}

/** NewlineMessageWriter writes each message as one compact JSON line. */
export class NewlineMessageWriter extends AbstractMessageWriter {
  private errors = 0;

  constructor(private readonly output: Writable) {
    super();
    output.on("error", (err) => this.fireError(err));
    output.on("close", () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    return new Promise((resolve, reject) => {
      // JSON.stringify escapes every newline inside strings: one line.
      this.output.write(JSON.stringify(msg) + "\n", "utf8", (err) => {
        if (!err) return resolve();
        this.fireError(err, msg, ++this.errors);
        reject(err);
      });
    });
  }

  end(): void {
    this.output.end();
  }
}
