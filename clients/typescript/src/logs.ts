// The sidecar's stderr: zerolog JSON lines (or text: boot errors, a Go panic,
// --log-format console). The client always drains it — a host that does not
// loses log lines — and hands each line, parsed, to the host's logger.

/** One stderr line of the sidecar. */
export interface LogEntry {
  /** zerolog's level ("debug", "info", "warn", "error", "fatal", "panic"), or "text" for a line that is not JSON. */
  level: string;
  message: string;
  /** RFC 3339 time of a JSON line. */
  time?: string;
  /** The line's other fields (tool, callId, error, …). */
  fields: Record<string, unknown>;
  /** The line as written. */
  raw: string;
  /** The sidecar's process id. */
  pid: number;
}

/** A logger receives every stderr line of the sidecar. */
export type Logger = (entry: LogEntry) => void;

const severe = new Set(["error", "fatal", "panic", "text"]);

/**
 * defaultLogger writes errors and text lines (a boot error, a panic) to this
 * process's stderr, prefixed with the sidecar's pid. Warnings — a failed tool
 * call is one, and a model misspelling a tool is routine — and debug and
 * info lines are dropped. Pass your own logger to keep them, or `null` to
 * drop everything.
 */
export const defaultLogger: Logger = (e) => {
  if (!severe.has(e.level)) return;
  const fields = Object.keys(e.fields).length ? " " + JSON.stringify(e.fields) : "";
  process.stderr.write(`steerable-sidecar[${e.pid}] ${e.level === "text" ? "" : e.level + ": "}${e.message}${fields}\n`);
};

/** parseLogLine turns one stderr line into a LogEntry. */
export function parseLogLine(raw: string, pid: number): LogEntry {
  if (raw.startsWith("{")) {
    try {
      const { level, message, time, ...fields } = JSON.parse(raw) as Record<string, unknown>;
      return { level: String(level ?? "info"), message: String(message ?? ""), time: typeof time === "string" ? time : undefined, fields, raw, pid };
    } catch {
      // not JSON after all: a text line
    }
  }
  return { level: "text", message: raw, fields: {}, raw, pid };
}

/**
 * Tail keeps the last lines of stderr (bounded in lines and bytes), for the
 * messages of errors that end with the process.
 */
export class Tail {
  private lines: string[] = [];
  private bytes = 0;

  constructor(private readonly maxLines = 40, private readonly maxBytes = 16 * 1024) {}

  push(line: string): void {
    const kept = line.length > this.maxBytes ? line.slice(0, this.maxBytes) + "…" : line;
    this.lines.push(kept);
    this.bytes += kept.length;
    while (this.lines.length > this.maxLines || (this.bytes > this.maxBytes && this.lines.length > 1)) {
      this.bytes -= this.lines.shift()!.length;
    }
  }

  get(): string[] {
    return [...this.lines];
  }
}

/**
 * bootError picks the lines that say why the sidecar did not start: its text
 * lines and error-level JSON lines, in order, up to a usage block (a bad
 * flag prints the whole --help after the one line that matters).
 */
export function bootError(lines: readonly string[]): string {
  const picked: string[] = [];
  for (const raw of lines) {
    const e = parseLogLine(raw, 0);
    if (e.level === "text") {
      if (/^usage:/i.test(raw)) break;
      if (raw.trim() !== "") picked.push(raw);
    } else if (e.level === "error" || e.level === "fatal" || e.level === "panic") {
      picked.push(e.fields.error ? `${e.message}: ${String(e.fields.error)}` : e.message);
    }
  }
  return picked.slice(0, 12).join("\n");
}
