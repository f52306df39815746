// One tool.invoke in flight: a promise of its ToolResult that also carries
// the call's live output (tool.progress), as events or as an async iterator.
import { EventEmitter } from "node:events";
import type { ToolProgressParams, ToolResult } from "./protocol.js";

/**
 * ToolCall is what Sidecar.invoke returns. Await it (or `.result`) for the
 * ToolResult; listen to "progress" or iterate `progress()` for the call's
 * output as it is produced. Listeners attached in the same tick as invoke
 * see every chunk: notifications are only read on a later tick.
 *
 *     const call = sidecar.invoke("bash", { command: "make" });
 *     for await (const p of call.progress()) process.stdout.write(p.chunk);
 *     const result = await call;
 */
export class ToolCall extends EventEmitter implements PromiseLike<ToolResult> {
  /** The ToolCall id: tool.progress notifications carry it as callId. */
  readonly id: string;
  readonly name: string;
  /** Settles with the call: its ToolResult, or the error that ended the request. */
  readonly result: Promise<ToolResult>;
  private settled = false;

  constructor(id: string, name: string, result: Promise<ToolResult>) {
    super();
    this.id = id;
    this.name = name;
    this.result = result;
    const done = () => {
      this.settled = true;
      this.emit("settled");
    };
    result.then(done, done);
  }

  /** @internal delivers one tool.progress notification of this call. */
  progressed(p: ToolProgressParams): void {
    this.emit("progress", p);
  }

  then<A = ToolResult, B = never>(
    onfulfilled?: ((value: ToolResult) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.result.then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<ToolResult | B> {
    return this.result.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<ToolResult> {
    return this.result.finally(onfinally);
  }

  /**
   * progress iterates this call's tool.progress notifications from now until
   * the call ends; it throws the call's error when the request failed.
   */
  progress(): AsyncIterableIterator<ToolProgressParams> {
    const queue: ToolProgressParams[] = [];
    let wake: (() => void) | undefined;
    const onProgress = (p: ToolProgressParams) => {
      queue.push(p);
      wake?.();
    };
    const onSettled = () => wake?.();
    this.on("progress", onProgress);
    this.on("settled", onSettled);
    const stop = () => {
      this.off("progress", onProgress);
      this.off("settled", onSettled);
    };
    const self = this;
    return {
      async next(): Promise<IteratorResult<ToolProgressParams>> {
        for (;;) {
          if (queue.length > 0) return { value: queue.shift()!, done: false };
          if (self.settled) {
            stop();
            await self.result; // throws the call's error, if it failed
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      async return(): Promise<IteratorResult<ToolProgressParams>> {
        stop();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}
