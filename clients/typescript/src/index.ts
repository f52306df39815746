// steerable-sidecar-client: spawn steerable-sidecar from a Node or Electron
// host and drive it with typed methods. See README.md.
export { spawnSidecar, type SpawnOptions } from "./spawn.js";
export {
  Sidecar,
  type DisposeOptions,
  type ExitInfo,
  type HandlerContext,
  type Handlers,
  type HostMethods,
  type InvokeOptions,
  type RequestOptions,
} from "./sidecar.js";
export { ToolCall } from "./call.js";
export { findBinary, BINARY_ENV, type FoundBinary } from "./binary.js";
export { BinaryNotFoundError, CANCELLED, METHOD_NOT_FOUND, RpcError, SidecarError, SidecarExitError } from "./errors.js";
export { defaultLogger, parseLogLine, type LogEntry, type Logger } from "./logs.js";
export type { Framing } from "./framing.js";
export type * from "./protocol.js";
