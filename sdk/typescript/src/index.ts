export { createRuntimeClient, RuntimeClient } from "./client.js";
export type { RuntimeClientOptions, RequestOptions } from "./client.js";
export {
  RuntimeApiError,
  CapabilityError,
  RuntimeCapabilityError,
  StreamCursorError,
  errorKindForStatus,
} from "./errors.js";
export type { ErrorKind, CapabilityName } from "./errors.js";
export { streamEvents, isResync } from "./events.js";
export type { EventsOptions, ReconnectOptions, ReconnectInfo, StreamResync, ThreadStreamItem } from "./events.js";
export { fleetEvents } from "./fleet.js";
export type { FleetEventsOptions } from "./fleet.js";
export { registerTool, toolSpec } from "./tools.js";
export type {
  ToolDefinition,
  ToolCall,
  ToolHandlerResult,
  ToolCallOutcome,
  ToolRegistration,
  RegisterToolOptions,
} from "./tools.js";
export { SseParser, StreamProtocolError, DEFAULT_MAX_EVENT_SIZE } from "./sse.js";
export type { SseMessage, SseParserOptions } from "./sse.js";
export type * from "./types.js";
